//! The members of an acceptance set: a slice of [`Alt`]s that holds one
//! member without a heap allocation (nearly every result is one value).

use std::fmt;
use std::ops::Deref;

use super::Alt;

/// The alternatives of an [`super::AcceptSet`]; reads as a slice.
#[derive(Clone)]
pub struct Alts(Repr);

#[derive(Clone)]
enum Repr {
    One([Alt; 1]),
    Many(Vec<Alt>),
}

impl Alts {
    pub const fn new() -> Alts {
        Alts(Repr::Many(Vec::new()))
    }
    /// One member, inline.
    #[inline]
    pub fn one(a: Alt) -> Alts {
        Alts(Repr::One([a]))
    }
    pub fn as_slice(&self) -> &[Alt] {
        self
    }
    pub fn push(&mut self, a: Alt) {
        match &mut self.0 {
            Repr::Many(v) if !v.is_empty() => v.push(a),
            Repr::Many(_) => *self = Alts::one(a),
            Repr::One(_) => {
                let Repr::One([first]) = std::mem::replace(&mut self.0, Repr::Many(Vec::new())) else { unreachable!() };
                self.0 = Repr::Many(vec![first, a]);
            }
        }
    }
    /// Remove and return the member at `i` (panics when out of range, like `Vec::remove`).
    pub fn remove(&mut self, i: usize) -> Alt {
        match &mut self.0 {
            Repr::Many(v) => v.remove(i),
            Repr::One(_) => {
                assert_eq!(i, 0, "index {i} out of range for one member");
                let Repr::One([a]) = std::mem::replace(&mut self.0, Repr::Many(Vec::new())) else { unreachable!() };
                a
            }
        }
    }
}

impl Default for Alts {
    fn default() -> Alts {
        Alts::new()
    }
}

impl Deref for Alts {
    type Target = [Alt];
    #[inline]
    fn deref(&self) -> &[Alt] {
        match &self.0 {
            Repr::One(a) => a,
            Repr::Many(v) => v,
        }
    }
}

impl From<Vec<Alt>> for Alts {
    fn from(v: Vec<Alt>) -> Alts {
        Alts(Repr::Many(v))
    }
}

impl FromIterator<Alt> for Alts {
    fn from_iter<I: IntoIterator<Item = Alt>>(it: I) -> Alts {
        let mut alts = Alts::new();
        for a in it {
            alts.push(a);
        }
        alts
    }
}

impl IntoIterator for Alts {
    type Item = Alt;
    type IntoIter = std::iter::Chain<std::option::IntoIter<Alt>, std::vec::IntoIter<Alt>>;
    fn into_iter(self) -> Self::IntoIter {
        let (first, rest) = match self.0 {
            Repr::One([a]) => (Some(a), Vec::new()),
            Repr::Many(v) => (None, v),
        };
        first.into_iter().chain(rest)
    }
}

impl<'a> IntoIterator for &'a Alts {
    type Item = &'a Alt;
    type IntoIter = std::slice::Iter<'a, Alt>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Equal when the members are, however they are held.
impl PartialEq for Alts {
    fn eq(&self, o: &Alts) -> bool {
        self.as_slice() == o.as_slice()
    }
}
impl Eq for Alts {}

/// Like a `Vec`'s: `[member, ...]`.
impl fmt::Debug for Alts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_as_a_slice_whichever_way_it_is_held() {
        let a = |v| Alt::Bits { value: v, mask: 0xff };
        let mut one = Alts::one(a(1));
        assert_eq!(one, Alts::from(vec![a(1)]));
        one.push(a(2));
        assert_eq!(one.as_slice(), &[a(1), a(2)]);
        assert_eq!(one.remove(0), a(1));
        assert_eq!(one.into_iter().collect::<Vec<_>>(), vec![a(2)]);
        let mut empty = Alts::new();
        empty.push(a(3));
        assert_eq!(empty.len(), 1);
        assert_eq!(format!("{empty:?}"), format!("{:?}", vec![a(3)]));
        assert_eq!([a(4), a(5)].into_iter().collect::<Alts>().as_slice(), &[a(4), a(5)]);
    }
}
