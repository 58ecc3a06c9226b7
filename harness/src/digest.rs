//! The order-independent digest of a sweep (defined in tools' `sweep` help
//! and vectors/README.md): `Σ splitmix64(x·K ⊕ r) mod 2^64` over inputs `x`
//! with results `r`, so that shards and blocks add up.

use ptx_cvt::fast::Isa;

pub const DIGEST_K: u64 = 0xd6e8_feb8_6659_fd93;

/// SplitMix64's output function on `z`.
#[inline]
pub fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// One input's term of the digest.
#[inline]
pub fn digest_term(input: u64, result: u64) -> u64 {
    splitmix64(input.wrapping_mul(DIGEST_K) ^ result)
}

/// The digest of the results `results[j]` of the consecutive inputs
/// `first + j`: the sum of their terms (mod 2^64). Vectorised on the unit
/// the fast engine's kernels use (`fast::Isa::chosen`: the widest the CPU
/// has, unless `PTX_CVT_ISA` names a narrower one).
pub fn digest_run(first: u64, results: &[u64]) -> u64 {
    match Isa::chosen() {
        // SAFETY: `chosen` gives a unit only if the CPU has its features.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { digest_run_avx512(first, results) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { digest_run_avx2(first, results) },
        _ => digest_run_portable(first, results),
    }
}

#[inline(always)]
fn digest_run_portable(first: u64, results: &[u64]) -> u64 {
    results.iter().enumerate().fold(0u64, |d, (j, &r)| d.wrapping_add(digest_term(first.wrapping_add(j as u64), r)))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
unsafe fn digest_run_avx512(first: u64, results: &[u64]) -> u64 {
    digest_run_portable(first, results)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn digest_run_avx2(first: u64, results: &[u64]) -> u64 {
    digest_run_portable(first, results)
}

#[cfg(test)]
mod tests {
    #[test]
    fn splitmix_reference() {
        // The first output of SplitMix64 seeded with 0 (Vigna's splitmix64.c): next() on state 0.
        assert_eq!(super::splitmix64(0), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn digest_run_is_the_sum_of_terms() {
        // Lengths around the vector widths, a start that wraps past 2^64.
        for (first, n) in [(0u64, 0usize), (5, 1), (u64::MAX - 3, 9), (1 << 40, 1000)] {
            let r: Vec<u64> = (0..n as u64).map(|j| super::splitmix64(j ^ 0x55)).collect();
            let want = (0..n).fold(0u64, |d, j| d.wrapping_add(super::digest_term(first.wrapping_add(j as u64), r[j])));
            assert_eq!(super::digest_run(first, &r), want, "{first:x} {n}");
            assert_eq!(super::digest_run_portable(first, &r), want);
        }
    }
}
