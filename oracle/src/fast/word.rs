//! [`Word`]: the register types the slice API takes and gives (`u8`, `u16`,
//! `u32`, `u64`), so callers pass their arrays as they are: no widening copy
//! into `u64` and back.

mod sealed {
    pub trait Sealed {}
}

/// A register of `BITS` bits, as an unsigned integer.
pub trait Word: Copy + Default + Send + Sync + sealed::Sealed + 'static {
    const BITS: u32;
    fn widen(self) -> u64;
    /// The low `BITS` bits of `v`.
    fn narrow(v: u64) -> Self;
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline(always)]
            fn widen(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn narrow(v: u64) -> Self {
                v as $t
            }
        }
    )*};
}
word!(u8, u16, u32, u64);
