//! Mutation score of the committed compact vectors: every plausible wrong
//! implementation in `ptx_cvt::eval::Mutant` (one rule broken each) must
//! disagree with at least one committed vector.

use ptx_cvt::eval::{evaluate_mutant, Mutant};
use ptx_cvt::{parse_case, Case, Profile};
use ptx_cvt_tests::compact_vectors;

/// The first committed case the mutant gets wrong, if any.
fn killer(m: Mutant, cases: &[(String, Case)]) -> Option<String> {
    cases.iter().find_map(|(line, c)| {
        let want = c.result.as_ref().unwrap();
        match evaluate_mutant(&c.instr, &c.operands, c.dst_width(), Profile::Sm90, m) {
            Ok(o) if want.is_subset_of(&o.accept) => None,
            _ => Some(line.clone()),
        }
    })
}

#[test]
fn compact_vectors_kill_every_mutant() {
    let cases: Vec<(String, Case)> = compact_vectors()
        .into_iter()
        .flat_map(|(_, text)| text.lines().map(String::from).collect::<Vec<_>>())
        .filter_map(|l| parse_case(&l).unwrap().map(|c| (l, c)))
        .collect();
    assert!(cases.len() > 100_000);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunks: Vec<&[Mutant]> = Mutant::ALL.chunks(Mutant::ALL.len().div_ceil(threads)).collect();
    let results: Vec<(Mutant, Option<String>)> = std::thread::scope(|s| {
        let hs: Vec<_> = chunks
            .into_iter()
            .map(|ms| s.spawn(|| ms.iter().map(|m| (*m, killer(*m, &cases))).collect::<Vec<_>>()))
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut survivors = Vec::new();
    for (m, k) in &results {
        match k {
            Some(line) => eprintln!("killed   {m:?} ({}) by: {line}", m.describe()),
            None => survivors.push(format!("{m:?}: {}", m.describe())),
        }
    }
    let killed = results.len() - survivors.len();
    eprintln!("mutation score: {killed}/{} ({:.0}%)", results.len(), 100.0 * killed as f64 / results.len() as f64);
    assert!(results.len() >= 25);
    assert!(survivors.is_empty(), "surviving mutants:\n{}", survivors.join("\n"));
}
