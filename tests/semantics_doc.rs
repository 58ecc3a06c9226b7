//! docs/semantics.md against the code: every result rule of `policy::Rule`
//! has a row in the rule index (§8.1) with its tag and section, every legality
//! rule name has a row in §8.2, every section cited in the tree as
//! "SPEC §x.y" or "semantics.md §x.y" is a heading, and the semantics version
//! agrees with `ptx_cvt::SEMANTICS_VERSION` and `ptx-cvt --version`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use ptx_cvt::instr::{self, Regs};
use ptx_cvt::{PtxVersion, Rule, Target};
use ptx_cvt_tests::{bin, workspace};

fn doc() -> String {
    std::fs::read_to_string(workspace().join("docs/semantics.md")).expect("docs/semantics.md exists")
}

/// Section numbers of the headings: `## 5. Evaluation` → "5", `### 5.3 Float to integer` → "5.3".
fn headings(doc: &str) -> BTreeSet<String> {
    doc.lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|l| l.trim_start_matches('#').trim_start())
        .filter_map(|l| {
            let n = section_number(l)?;
            let rest = &l[n.len()..];
            (rest.is_empty() || rest.starts_with(". ") || rest.starts_with(' ')).then_some(n)
        })
        .collect()
}

/// A section number at the start of `s`: digits, then `.digits` groups ("5.10"; not the "." of "4.").
fn section_number(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let digits = |i: usize| (i..b.len()).take_while(|&j| b[j].is_ascii_digit()).count();
    let mut end = digits(0);
    if end == 0 {
        return None;
    }
    while b.get(end) == Some(&b'.') && digits(end + 1) > 0 {
        end += 1 + digits(end + 1);
    }
    Some(s[..end].to_string())
}

/// The old name of the document in citations, spelled so that rewriting
/// those citations does not rewrite this test.
const OLD: &str = concat!("SPEC", " §");
const OLD_MD: &str = concat!("SPEC", ".md §");

/// The section numbers cited in `text` after the old name, "SPEC.md §" or "semantics.md §",
/// with the ones chained on: "§4/§5.3", "§1, §5.8", "§5.2 and §5.4", "§5.8–5.12".
fn citations(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for prefix in [OLD, OLD_MD, "semantics.md §"] {
        for (at, _) in text.match_indices(prefix) {
            let mut rest = &text[at + prefix.len()..];
            while let Some(n) = section_number(rest) {
                rest = &rest[n.len()..];
                out.push(n);
                let next = ["/§", ", §", " and §", "–§", "–", "-§"].iter().find(|sep| rest.starts_with(**sep));
                match next {
                    Some(sep) => rest = &rest[sep.len()..],
                    None => break,
                }
            }
        }
    }
    out
}

#[test]
fn citation_parser() {
    let t = "a (@4/§5.3) b @1, §2, §5.8–5.12. @5.2 and §5.4 with §9.9; \
             =3 / x; docs/semantics.md §5.10, 7; PTX ISA §6.5.1; SPEC 2"
        .replace('@', OLD)
        .replace('=', OLD_MD);
    let mut got = citations(&t);
    got.sort();
    assert_eq!(got, ["1", "2", "3", "4", "5.10", "5.12", "5.2", "5.3", "5.4", "5.8"]);
    let h = headings("# Title\n## 0. Evidence\n### 5.10 Stochastic\n#### 8.1\n## Notes 4\n##5.3x\n");
    assert_eq!(h.into_iter().collect::<Vec<_>>(), ["0", "5.10", "8.1"]);
}

/// Text files of the repository, outside build output and git's own files.
fn tree_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if !(name.starts_with('.') || name == "target" || name == "node_modules") {
                tree_files(&p, out);
            }
        } else {
            out.push(p);
        }
    }
}

#[test]
fn every_cited_section_is_a_heading() {
    let heads = headings(&doc());
    let mut files = Vec::new();
    tree_files(&workspace(), &mut files);
    let mut cited = 0;
    let mut missing = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        for n in citations(&text) {
            cited += 1;
            if !heads.contains(&n) {
                missing.push(format!("{}: §{n}", f.strip_prefix(workspace()).unwrap().display()));
            }
        }
    }
    // The tree cites the document over a hundred times: finding few means the scan is broken.
    assert!(cited >= 50, "only {cited} citations found");
    assert!(missing.is_empty(), "cited but not a heading of docs/semantics.md:\n{}", missing.join("\n"));
}

/// Rows of the markdown table that follows `heading`: the cells of each row, header and rule excluded.
fn table_after(doc: &str, heading: &str) -> Vec<Vec<String>> {
    let start = doc.find(heading).unwrap_or_else(|| panic!("heading `{heading}` in docs/semantics.md"));
    doc[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| l.trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
        .collect()
}

fn unquote(cell: &str) -> &str {
    cell.trim_matches('`')
}

#[test]
fn every_rule_has_its_row_with_tag_and_section() {
    let doc = doc();
    let heads = headings(&doc);
    let rows: BTreeMap<String, Vec<String>> =
        table_after(&doc, "### 8.1 Result rules").into_iter().map(|r| (unquote(&r[0]).to_string(), r)).collect();
    let mut problems = Vec::new();
    for &rule in Rule::ALL {
        let Some(row) = rows.get(rule.name()) else {
            problems.push(format!("{}: no row in §8.1", rule.name()));
            continue;
        };
        if row.len() != 5 {
            problems.push(format!("{}: the row needs 5 cells (rule, tag, §, statement, source)", rule.name()));
            continue;
        }
        if row[1] != rule.evidence().tag() {
            problems.push(format!(
                "{}: tag {} in the document, {} in the code",
                rule.name(),
                row[1],
                rule.evidence().tag()
            ));
        }
        if row[2] != rule.section() {
            problems.push(format!(
                "{}: § {} in the document, {} in Rule::section",
                rule.name(),
                row[2],
                rule.section()
            ));
        }
        if !heads.contains(rule.section()) {
            problems.push(format!("{}: section {} is not a heading", rule.name(), rule.section()));
        }
        if row[3].is_empty() || row[4].is_empty() {
            problems.push(format!("{}: statement and source must not be empty", rule.name()));
        }
    }
    let known: BTreeSet<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
    for name in rows.keys().filter(|n| !known.contains(n.as_str())) {
        problems.push(format!("{name}: row in §8.1 but no such rule in policy.rs"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// An illegal spelling: instruction, destination and source register widths,
/// target, PTX version, the legality rule it breaks.
type Illegal = (&'static str, u32, u32, Option<&'static str>, Option<(u32, u32)>, &'static str);

/// One spelling (with registers, target, version) that breaks each legality rule.
const ILLEGAL: &[Illegal] = &[
    ("cvt.rn.s32.s16", 32, 16, None, None, "rounding-int-to-int"),
    ("cvt.pack.sat.u16.u32", 32, 32, None, None, "pack-types"),
    ("cvt.pack.u8.s32.b32", 32, 32, None, None, "pack-sat-required"),
    ("cvt.pack.rn.sat.u16.s32", 32, 32, None, None, "pack-modifier"),
    ("cvt.pack.sat.u16.s32", 64, 32, None, None, "register-pack-exact"),
    ("cvt.f32.s32", 32, 32, None, None, "rounding-required-frnd"),
    ("cvt.s32.f32", 32, 32, None, None, "rounding-required-irnd"),
    ("cvt.rn.f32.f32", 32, 32, None, None, "rounding-same-size"),
    ("cvt.rn.f64.f32", 64, 32, None, None, "rounding-widening"),
    ("cvt.rna.f16.f32", 16, 32, None, None, "rounding-packed-only"),
    ("cvt.rn.ftz.f16.f64", 16, 64, None, None, "ftz-needs-f32"),
    ("cvt.rn.sat.bf16.f32", 16, 32, None, None, "sat-bf16"),
    ("cvt.sat.s16.s8", 16, 8, None, None, "sat-superset"),
    ("cvt.rn.relu.f16.f64", 16, 64, None, None, "relu-satfinite-types"),
    ("cvt.rm.relu.f16.f32", 16, 32, None, None, "relu-satfinite-rounding"),
    ("cvt.rn.relu.ftz.f16.f32", 16, 32, None, None, "relu-satfinite-combination"),
    ("cvt.rn.ftz.f16x2.f32", 32, 32, None, None, "packed-modifier"),
    ("cvt.rn.f16x2.f64", 32, 64, None, None, "packed-types"),
    ("cvt.rm.f16x2.f32", 32, 32, None, None, "packed-rounding"),
    ("cvt.rn.e4m3x2.f32", 16, 32, None, None, "satfinite-required"),
    ("cvt.rn.satfinite.f16x2.e4m3x2", 32, 16, None, None, "satfinite-absent"),
    ("cvt.rz.relu.ue8m0x2.f32", 16, 32, None, None, "relu-absent"),
    ("cvt.rn.satfinite.scaled::n2::ue8m0.e4m3x2.f32", 16, 32, None, None, "scale-absent"),
    ("cvt.rn.satfinite.pzo.ue5m3x2.f32", 16, 32, None, None, "pzo-absent"),
    ("cvt.rn.satfinite.pzo.e4m3x2.f32", 16, 32, Some("sm_100a"), None, "ptx94-gate"),
    ("cvt.rn.satfinite.e4m3x2.f32", 32, 32, None, None, "register-packed-exact"),
    ("cvt.s32.s16", 24, 16, None, None, "register-width"),
    ("cvt.s32.s16", 16, 16, None, None, "register-narrow"),
    ("cvt.rn.bf16.f32", 16, 64, None, None, "register-bf16-exact"),
    ("cvt.rn.bf16.f16", 16, 16, Some("sm_80"), None, "target-gate"),
    ("cvt.rn.bf16.f16", 16, 16, None, Some((7, 0)), "version-gate"),
    ("cvt.rn.satfinite.e2m1x2.f32", 8, 32, Some("sm_90"), None, "packed-gate"),
    ("cvt.rn.f32.s32", 32, 32, Some("sm_90"), Some((7, 0)), "target-version"),
];

#[test]
fn every_legality_rule_has_its_row() {
    let doc = doc();
    let heads = headings(&doc);
    let rows: BTreeMap<String, Vec<String>> =
        table_after(&doc, "### 8.2 Legality rules").into_iter().map(|r| (unquote(&r[0]).to_string(), r)).collect();
    let mut seen = BTreeSet::new();
    for &(spelling, dst, src, target, version, want) in ILLEGAL {
        let c = instr::parse(spelling).unwrap();
        let t: Option<Target> = target.map(|t| t.parse().unwrap());
        let v = version.map(|(a, b)| PtxVersion::new(a, b));
        let e = instr::check(&c, Regs { dst, src }, t, v).expect_err(spelling).to_string();
        assert!(e.ends_with(&format!("[rule {want}]")), "{spelling}: expected rule {want}, got: {e}");
        let row = rows.get(want).unwrap_or_else(|| panic!("legality rule {want} has no row in §8.2"));
        assert!(heads.contains(&row[1]), "{want}: section {} is not a heading", row[1]);
        seen.insert(want);
    }
    let documented: BTreeSet<&str> = rows.keys().map(|k| k.as_str()).collect();
    // The rule names are an enum: every variant is documented and has an example here.
    let declared: BTreeSet<&str> = ptx_cvt::instr::LegalityRule::ALL.iter().map(|r| r.name()).collect();
    assert_eq!(documented, declared, "§8.2 rows and LegalityRule must name the same rules");
    assert_eq!(documented, seen, "§8.2 rows and the example spellings here must name the same rules");
}

#[test]
fn semantics_version_agrees() {
    let doc = doc();
    let v = ptx_cvt::SEMANTICS_VERSION.to_string();
    assert!(doc.lines().any(|l| l == format!("Semantics version: {v}")), "docs/semantics.md states version {v}");
    let history = table_after(&doc, "## 9. Versioning");
    assert_eq!(history.last().map(|r| r[0].as_str()), Some(v.as_str()), "§9 table ends with version {v}");
    let changelog = std::fs::read_to_string(workspace().join("CHANGELOG.md")).expect("CHANGELOG.md exists");
    assert!(
        changelog.to_lowercase().contains(&format!("semantics version {v}")),
        "CHANGELOG.md names semantics version {v}"
    );
    let out = Command::new(bin()).arg("--version").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success() && text.contains(&format!("(semantics {v})")), "ptx-cvt --version: {text}");
}

#[test]
fn explain_prints_the_section() {
    let out = Command::new(bin()).args(["explain", "cvt.rzi.s32.f64", "7ff8000000000000"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let line = text.lines().find(|l| l.contains("nan-to-int-sign-bit")).unwrap_or_else(|| panic!("{text}"));
    assert!(line.ends_with("(docs/semantics.md §5.3)"), "{line}");
    let out = Command::new(bin()).args(["explain", "--json", "cvt.rn.f16.f32", "3f801000"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains(r#""rule":"round-to-float","section":"5.4""#), "{text}");
}
