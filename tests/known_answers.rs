//! Known answers for every scalar conversion family, read from
//! `vectors/known-answers/*.cases` (hand-derived, each group citing its
//! source). The file name is the profile: under it, the oracle's acceptance
//! set must equal the file's result exactly. The sm90 answers must also be
//! accepted by the ISA contract, which permits every result the text allows.

use ptx_cvt::{evaluate, parse_case, Profile};

const SM90: &str = include_str!("../vectors/known-answers/sm90.cases");
const ISA: &str = include_str!("../vectors/known-answers/isa.cases");

/// Check every case line; `exact` asks for set equality, otherwise containment.
fn check(file: &str, text: &str, profile: Profile, exact: bool) -> usize {
    let mut failures = Vec::new();
    let mut section = String::new();
    let mut count = 0;
    for (n, line) in text.lines().enumerate() {
        if let Some(s) = line.strip_prefix("# == ") {
            section = s.trim_end_matches(" ==").to_string();
        }
        let Some(case) = parse_case(line).unwrap_or_else(|e| panic!("{file}:{}: {e}", n + 1)) else { continue };
        count += 1;
        let want = case.result.clone().expect("known answer has a result");
        if !exact && departs(&case) {
            continue;
        }
        match evaluate(&case.instr, &case.operands, case.dst_width(), profile) {
            Ok(o) if (exact && o.accept == want) || (!exact && want.is_subset_of(&o.accept)) => {}
            Ok(o) => {
                failures.push(format!("{file}:{} [{section}] {line}\n    oracle ({profile}) gives {}", n + 1, o.accept))
            }
            Err(e) => failures.push(format!("{file}:{} [{section}] {line}\n    error: {e}", n + 1)),
        }
    }
    assert!(failures.is_empty(), "{} known answers differ:\n{}", failures.len(), failures.join("\n"));
    count
}

#[test]
fn sm90_known_answers() {
    assert!(check("sm90.cases", SM90, Profile::Sm90, true) > 150);
}

#[test]
fn isa_contract_known_answers() {
    assert!(check("isa.cases", ISA, Profile::Isa, true) >= 5);
}

/// Whether the sm90 answer comes from a rule that departs from the ISA text
/// (ptxas's tf32 `.rna` code on NaN, docs/semantics.md §5.17, §6).
fn departs(case: &ptx_cvt::Case) -> bool {
    let o = evaluate(&case.instr, &case.operands, case.dst_width(), Profile::Sm90).unwrap();
    o.trace.iter().any(|s| s.rule.departs_from_isa())
        && !o
            .accept
            .is_subset_of(&evaluate(&case.instr, &case.operands, case.dst_width(), Profile::Isa).unwrap().accept)
}

#[test]
fn isa_contract_accepts_every_sm90_answer() {
    check("sm90.cases", SM90, Profile::Isa, false);
    // The departures are few, stated, and there (cvt.rna{.satfinite}.tf32.f32 of a NaN that becomes Inf or MAX_NORM).
    let n = SM90.lines().filter_map(|l| parse_case(l).ok().flatten()).filter(departs).count();
    assert_eq!(n, 5);
}

#[test]
fn the_harness_catches_a_planted_error() {
    let planted = "cvt.rn.f16.f32 3f803000 => 3c01   # true answer 3c02 (ties to even)";
    let r = std::panic::catch_unwind(|| check("planted", planted, Profile::Sm90, true));
    assert!(r.is_err());
}
