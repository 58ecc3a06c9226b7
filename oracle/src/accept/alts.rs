//! The members of an acceptance set: nearly every result is one value, so
//! one member is held inline (no heap allocation), more on the heap.

use smallvec::SmallVec;

use super::Alt;

/// The alternatives of an [`super::AcceptSet`]; reads as a slice.
pub type Alts = SmallVec<[Alt; 1]>;

/// A set of one member, inline.
#[inline]
pub fn one(a: Alt) -> Alts {
    SmallVec::from_buf([a])
}
