//! Where a fuzzed variant's inputs come from, for `ptx-cvt fuzz` and the
//! Python `fuzz`: every case of the compact generator at the user's seed
//! first, then a mix of the generator's cases under fresh seeds, its cases
//! with one to three bits flipped in one operand, and random bits in their
//! registers.

use std::collections::HashSet;

use ptx_cvt::accept::width_mask;
use ptx_cvt::gen::{self, GenCase, Level, SeededRng};
use ptx_cvt::Cvt;

pub struct FuzzInputs {
    pub c: Cvt,
    /// The compact generator's cases at the user's seed (made on first use).
    structured: Option<Vec<GenCase>>,
    /// Next structured case to send.
    next: usize,
    /// Seed-dependent generator cases under a fresh seed, not yet sent.
    fresh: Vec<GenCase>,
    /// Fresh seeds used so far.
    pub reseeds: u64,
    /// Whether fresh seeds still give new cases (not for small sources).
    seeds_help: bool,
}

impl FuzzInputs {
    pub fn new(c: Cvt) -> FuzzInputs {
        FuzzInputs { c, structured: None, next: 0, fresh: Vec::new(), reseeds: 0, seeds_help: true }
    }

    /// The next batch of at most `n` cases (empty when the form has none).
    pub fn batch(&mut self, n: usize, seed: u64, rng: &mut SeededRng) -> Vec<GenCase> {
        let structured = self.structured.get_or_insert_with(|| gen::cases(&self.c, Level::Compact, seed));
        if structured.is_empty() {
            return Vec::new();
        }
        if self.next < structured.len() {
            let end = (self.next + n).min(structured.len());
            let b = structured[self.next..end].to_vec();
            self.next = end;
            return b;
        }
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            match rng.below(3) {
                0 if self.seeds_help => {
                    if self.fresh.is_empty() {
                        self.refill_fresh(seed);
                        continue;
                    }
                    out.extend(self.fresh.pop());
                }
                1 => {
                    let s = self.structured.as_ref().expect("made above");
                    let mut g = s[rng.below(s.len() as u64) as usize].clone();
                    let k = rng.below(g.operands.len() as u64) as usize;
                    let w = g.operands[k].width;
                    for _ in 0..=rng.below(3) {
                        g.operands[k].bits ^= 1u64 << rng.below(w as u64);
                    }
                    out.push(g);
                }
                _ => {
                    let s = self.structured.as_ref().expect("made above");
                    let mut g = s[rng.below(s.len() as u64) as usize].clone();
                    for o in &mut g.operands {
                        o.bits = rng.next() & width_mask(o.width);
                    }
                    out.push(g);
                }
            }
        }
        out
    }

    /// Generator cases under the next fresh seed that the user's seed did not give.
    fn refill_fresh(&mut self, seed: u64) {
        let structured = self.structured.as_ref().expect("made before");
        let known: HashSet<(Vec<(u64, u32)>, u32)> = structured.iter().map(key).collect();
        for _ in 0..4 {
            self.reseeds += 1;
            let s = seed.wrapping_add(self.reseeds.wrapping_mul(0x9e37_79b9));
            self.fresh =
                gen::cases(&self.c, Level::Compact, s).into_iter().filter(|g| !known.contains(&key(g))).collect();
            if !self.fresh.is_empty() {
                return;
            }
        }
        self.seeds_help = false;
    }
}

fn key(g: &GenCase) -> (Vec<(u64, u32)>, u32) {
    (g.operands.iter().map(|o| (o.bits, o.width)).collect(), g.dst_width)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_start_structured_then_vary() {
        let c = ptx_cvt::instr::parse("cvt.rn.f16.f32").unwrap();
        let mut v = FuzzInputs::new(c);
        let mut rng = SeededRng::new(1);
        let all = gen::cases(&c, Level::Compact, 7);
        let mut seen = Vec::new();
        while seen.len() < all.len() {
            seen.extend(v.batch(100, 7, &mut rng));
        }
        assert_eq!(seen, all);
        let more = v.batch(300, 7, &mut rng);
        assert_eq!(more.len(), 300);
        let known: HashSet<_> = all.iter().map(key).collect();
        assert!(more.iter().filter(|g| !known.contains(&key(g))).count() > 100);
        assert!(v.reseeds > 0);
    }
}
