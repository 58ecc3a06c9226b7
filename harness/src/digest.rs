//! The order-independent digest of a sweep (defined in tools' `sweep` help
//! and vectors/README.md): `Σ splitmix64(x·K ⊕ r) mod 2^64` over inputs `x`
//! with results `r`, so that shards and blocks add up.

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

#[cfg(test)]
mod tests {
    #[test]
    fn splitmix_reference() {
        // The first output of SplitMix64 seeded with 0 (Vigna's splitmix64.c): next() on state 0.
        assert_eq!(super::splitmix64(0), 0xe220_a839_7b1d_cdaf);
    }
}
