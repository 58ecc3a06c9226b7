//! The committed compact vectors (`vectors/compact/`): they regenerate
//! byte-identically (every file in the full suite, a quarter by default),
//! match their MANIFEST, and pass `ptx-cvt check`.

use std::collections::{BTreeMap, BTreeSet};

use ptx_cvt::gen::{self, Level};
use ptx_cvt::{Profile, PtxVersion, Target};
use ptx_cvt_tests::{bin, compact_vectors, workspace};
use sha2::{Digest, Sha256};

/// Every target ptxas 13.5 knows, in the order `ptx-cvt gen --target all`
/// takes them (tests/ptx.rs assembles a module for each).
const ALL_TARGETS: [&str; 26] = [
    "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103",
    "sm_103a", "sm_103f", "sm_107", "sm_107a", "sm_107f", "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a",
    "sm_120f", "sm_121", "sm_121a", "sm_121f",
];

/// The files `ptx-cvt gen --target all` (compact, seed 1, sm90) writes, and
/// the text of every `stride`-th of them (all of them in the full suite,
/// `scripts/test.sh --full`; a quarter, spread over every family, by default).
fn regenerate(stride: usize) -> (BTreeSet<String>, BTreeMap<String, String>) {
    let targets = ALL_TARGETS.map(|t| (t.parse::<Target>().unwrap(), PtxVersion::LATEST));
    let all = gen::legal_variants(&targets);
    let names = all.iter().map(|(c, _)| gen::file_name(c)).collect();
    let variants: Vec<_> = all.into_iter().step_by(stride).collect();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunks: Vec<_> = variants.chunks(variants.len().div_ceil(threads)).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|(c, on)| {
                            let lines = gen::generate(c, Level::Compact, 1, Profile::Sm90);
                            let mut text = gen::header(c, on, Profile::Sm90, Level::Compact, 1, lines.len());
                            for l in &lines {
                                text.push_str(&l.text);
                                text.push('\n');
                            }
                            (gen::file_name(c), text)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        (names, handles.into_iter().flat_map(|h| h.join().unwrap()).collect())
    })
}

#[test]
fn committed_vectors_regenerate_byte_identically_and_match_the_manifest() {
    let committed: BTreeMap<String, String> = compact_vectors().into_iter().collect();
    let (names, fresh) = regenerate(if ptx_cvt_tests::full_suite() { 1 } else { 4 });
    let missing: Vec<&String> = names.iter().filter(|k| !committed.contains_key(*k)).collect();
    let extra: Vec<&String> = committed.keys().filter(|k| !names.contains(*k)).collect();
    assert!(missing.is_empty() && extra.is_empty(), "not committed: {missing:?}; stale: {extra:?}");
    let differ: Vec<&String> = fresh.iter().filter(|(k, v)| committed[*k] != **v).map(|(k, _)| k).collect();
    assert!(
        differ.is_empty(),
        "{} files differ from a fresh `ptx-cvt gen`, e.g. {:?}",
        differ.len(),
        &differ[..differ.len().min(5)]
    );

    let manifest = std::fs::read_to_string(workspace().join("vectors/compact/MANIFEST")).unwrap();
    let rows: Vec<Vec<&str>> =
        manifest.lines().filter(|l| !l.starts_with('#')).map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), committed.len(), "MANIFEST rows");
    for r in rows {
        let [file, variant, count, sha, targets] = r[..] else { panic!("bad MANIFEST row {r:?}") };
        let text = &committed[file];
        let hex: String = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, sha, "{file}: sha256");
        assert_eq!(gen::file_name(&ptx_cvt::instr::parse(variant).unwrap()), file);
        let cases = text.lines().filter(|l| !l.starts_with('#')).count();
        assert_eq!(cases.to_string(), count, "{file}: case count");
        assert!(text.contains(&format!("\n# cases: {count}\n")), "{file}: header count");
        assert!(text.contains(&format!("\n# targets: {targets}\n")), "{file}: MANIFEST targets = header targets");
    }
}

/// Every spelling `ptx-cvt list` prints (legal on some target) has a
/// committed file: the oracle evaluates every one.
#[test]
fn every_listed_spelling_has_a_committed_file() {
    let out = std::process::Command::new(bin()).arg("list").output().unwrap();
    assert!(out.status.success());
    let committed: std::collections::BTreeSet<String> = compact_vectors().into_iter().map(|(f, _)| f).collect();
    let listed: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    let missing: Vec<&&str> =
        listed.iter().filter(|s| !committed.contains(&gen::file_name(&ptx_cvt::instr::parse(s).unwrap()))).collect();
    assert!(missing.is_empty(), "no committed file for {missing:?}");
    assert_eq!(listed.len(), committed.len(), "one committed file per listed spelling");
}

/// `gen --target all` is the committed layout: one variant of sm_107a/f
/// only, and one of every target, regenerate to the committed bytes and
/// MANIFEST rows.
#[test]
fn gen_target_all_writes_the_committed_files() {
    let dir = std::env::temp_dir().join(format!("ptx-cvt-gen-all-{}", std::process::id()));
    let out = std::process::Command::new(bin())
        .args(["gen", "--target", "all", "--filter", "cvt.rz.satfinite.e4m3x2.f32", "--filter", "cvt.rn.f16.f32"])
        .arg("--out")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let committed = workspace().join("vectors/compact");
    let manifest = std::fs::read_to_string(committed.join("MANIFEST")).unwrap();
    let fresh = std::fs::read_to_string(dir.join("MANIFEST")).unwrap();
    for f in ["cvt.rz.satfinite.e4m3x2.f32.cases", "cvt.rn.f16.f32.cases"] {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        assert_eq!(bytes, std::fs::read(committed.join(f)).unwrap(), "{f}");
        let row = fresh.lines().find(|l| l.starts_with(&format!("{f}\t"))).unwrap();
        assert!(manifest.lines().any(|l| l == row), "{f}: MANIFEST row {row}");
    }
    let header = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert!(header("cvt.rz.satfinite.e4m3x2.f32.cases").contains("\n# targets: sm_107a sm_107f\n"));
    assert!(header("cvt.rn.f16.f32.cases").contains(&format!("\n# targets: {}\n", ALL_TARGETS.join(" "))));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn committed_vectors_pass_check() {
    let dir = workspace().join("vectors/compact");
    let mut files: Vec<String> =
        compact_vectors().into_iter().map(|(f, _)| dir.join(f).to_string_lossy().into_owned()).collect();
    files.insert(0, "-q".into());
    files.insert(0, "check".into());
    let out = std::process::Command::new(bin()).args(&files).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "check failed: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.trim_end().ends_with(" passed, 0 failed"), "{stdout}");
}

#[test]
fn coverage_reports_every_reachable_class_hit_and_names_missing_ones() {
    let dir = workspace().join("vectors/compact");
    let sample =
        ["cvt.rn.f16.f32.cases", "cvt.rni.s32.f64.cases", "cvt.rs.satfinite.e2m1x4.f32.cases", "cvt.s16.s8.cases"];
    let files: Vec<String> = sample.iter().map(|f| dir.join(f).to_string_lossy().into_owned()).collect();
    let out = std::process::Command::new(bin()).arg("coverage").arg("--fail-on-missing").args(&files).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(!text.contains("missing:"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("0 reachable classes missing"));

    // Keep only the first 100 cases of one file: the report must name what is lost.
    let full = std::fs::read_to_string(dir.join(sample[0])).unwrap();
    let part: String = full.lines().filter(|l| !l.starts_with('#')).take(100).map(|l| format!("{l}\n")).collect();
    let tmp = std::env::temp_dir().join(format!("ptx-cvt-coverage-{}.cases", std::process::id()));
    std::fs::write(&tmp, part).unwrap();
    let out = std::process::Command::new(bin()).args(["coverage", "--fail-on-missing"]).arg(&tmp).output().unwrap();
    let _ = std::fs::remove_file(&tmp);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("missing:") && text.contains("overflow-inf") || text.contains("tie-even"), "{text}");
}

/// Issue 12: coverage classes read structured trace events, never the
/// wording of explanations. With every step's text blanked, the classes of
/// the committed cases (every 3rd case of every file) are the committed ones.
#[test]
fn coverage_classes_do_not_read_explanation_text() {
    let (mut compared, mut differ) = (0usize, Vec::new());
    for (name, text) in compact_vectors() {
        for line in text.lines().filter(|l| !l.starts_with('#')).step_by(3) {
            let case = ptx_cvt::parse_case(line).unwrap().expect("a case line");
            let committed = case.comment.as_deref().and_then(|c| c.split_whitespace().next()).expect("a class");
            let mut o = ptx_cvt::evaluate(&case.instr, &case.operands, case.dst_width(), Profile::Sm90).unwrap();
            for s in &mut o.trace {
                s.detail.clear();
            }
            let class = gen::coverage::classify(&case.instr, &o);
            compared += 1;
            if class != committed && differ.len() < 10 {
                differ.push(format!("{name}: {line}: now {class}"));
            }
        }
    }
    assert!(compared > 50_000, "{compared} cases compared");
    assert!(differ.is_empty(), "classes that depend on the wording:\n{}", differ.join("\n"));
}
