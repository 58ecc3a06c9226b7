//! Targets (`sm_90`, `sm_100a`, `sm_100f`) and PTX ISA versions.

use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suffix {
    /// Portable target (`sm_90`).
    None,
    /// Architecture-specific (`sm_90a`): only that chip.
    Arch,
    /// Family-specific (`sm_100f`): that chip family.
    Family,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    /// Compute capability times ten: 80, 89, 90, 100, 120.
    pub sm: u32,
    pub suffix: Suffix,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetError(pub String);

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for TargetError {}

/// Targets the oracle knows, with the first PTX ISA version that accepts them
/// (PTX ISA "PTX Module Directives: .target" release notes).
/// sm_88 and the 9.0 of sm_110: what ptxas 13.5 accepts (no lower version
/// assembles a `.target` line for them).
const KNOWN: [(u32, (u32, u32)); 20] = [
    (50, (4, 0)),
    (52, (4, 1)),
    (53, (4, 2)),
    (60, (5, 0)),
    (61, (5, 0)),
    (70, (6, 0)),
    (72, (6, 1)),
    (75, (6, 3)),
    (80, (7, 0)),
    (86, (7, 1)),
    (87, (7, 4)),
    (88, (9, 0)),
    (89, (7, 8)),
    (90, (7, 8)),
    (100, (8, 6)),
    (103, (8, 8)),
    (107, (9, 4)),
    (110, (9, 0)),
    (120, (8, 7)),
    (121, (8, 8)),
];

impl Target {
    pub fn new(sm: u32) -> Target {
        Target { sm, suffix: Suffix::None }
    }
    /// First PTX version that accepts this target, when known.
    pub fn min_version(&self) -> Option<PtxVersion> {
        let (_, (major, minor)) = KNOWN.iter().find(|(sm, _)| *sm == self.sm)?;
        let base = PtxVersion { major: *major, minor: *minor };
        Some(match self.suffix {
            // sm_90a came with PTX 8.0; family targets with PTX 8.8.
            Suffix::Arch if self.sm == 90 => PtxVersion { major: 8, minor: 0 },
            Suffix::Family => base.max(PtxVersion { major: 8, minor: 8 }),
            _ => base,
        })
    }
    /// Whether features of `sm_N` (portable) are available.
    pub fn at_least(&self, sm: u32) -> bool {
        self.sm >= sm
    }
}

impl FromStr for Target {
    type Err = TargetError;
    fn from_str(s: &str) -> Result<Target, TargetError> {
        let bad = || {
            TargetError(format!(
                "`{s}` is not a target: expected sm_NN with an optional `a` or `f` suffix (e.g. sm_90, sm_100a)"
            ))
        };
        let rest = s.strip_prefix("sm_").ok_or_else(bad)?;
        let (digits, suffix) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], Suffix::Arch),
            Some(b'f') => (&rest[..rest.len() - 1], Suffix::Family),
            _ => (rest, Suffix::None),
        };
        if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let sm: u32 = digits.parse().map_err(|_| bad())?;
        let t = Target { sm, suffix };
        if !KNOWN.iter().any(|(k, _)| *k == sm) {
            return Err(TargetError(format!(
                "unknown target `{s}` (known: sm_50 … sm_121, with `a` suffixes from sm_90 and `f` from sm_100)"
            )));
        }
        if suffix == Suffix::Family && sm < 100 {
            return Err(TargetError(format!("`{s}`: family (`f`) targets start at sm_100")));
        }
        if suffix == Suffix::Arch && sm < 90 {
            return Err(TargetError(format!("`{s}`: architecture-specific (`a`) targets start at sm_90")));
        }
        Ok(t)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self.suffix {
            Suffix::None => "",
            Suffix::Arch => "a",
            Suffix::Family => "f",
        };
        write!(f, "sm_{}{}", self.sm, s)
    }
}

/// A PTX ISA version (`.version 8.6`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxVersion {
    pub major: u32,
    pub minor: u32,
}

impl PtxVersion {
    /// The newest version this oracle knows (what ptxas 13.5 accepts).
    pub const LATEST: PtxVersion = PtxVersion { major: 9, minor: 5 };
    pub fn new(major: u32, minor: u32) -> PtxVersion {
        PtxVersion { major, minor }
    }
}

impl FromStr for PtxVersion {
    type Err = TargetError;
    fn from_str(s: &str) -> Result<PtxVersion, TargetError> {
        let bad = || TargetError(format!("`{s}` is not a PTX ISA version: expected MAJOR.MINOR such as 7.8 or 9.1"));
        let (a, b) = s.split_once('.').ok_or_else(bad)?;
        let ok = |x: &str| !x.is_empty() && x.len() <= 2 && x.bytes().all(|c| c.is_ascii_digit());
        if !ok(a) || !ok(b) {
            return Err(bad());
        }
        let v = PtxVersion { major: a.parse().map_err(|_| bad())?, minor: b.parse().map_err(|_| bad())? };
        if v > PtxVersion::LATEST || v.major == 0 {
            return Err(TargetError(format!(
                "PTX ISA version {s} is unknown (this oracle knows 1.0 … {})",
                PtxVersion::LATEST
            )));
        }
        Ok(v)
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_targets() {
        assert_eq!("sm_90".parse::<Target>().unwrap(), Target::new(90));
        assert_eq!("sm_100a".parse::<Target>().unwrap().suffix, Suffix::Arch);
        assert_eq!("sm_100f".parse::<Target>().unwrap().to_string(), "sm_100f");
        for bad in ["sm90", "sm_", "sm_9x", "sm_80f", "sm_1000", "sm_99"] {
            assert!(bad.parse::<Target>().is_err(), "{bad}");
        }
        assert_eq!("7.8".parse::<PtxVersion>().unwrap(), PtxVersion::new(7, 8));
        assert!("7".parse::<PtxVersion>().is_err());
        assert!("12.0".parse::<PtxVersion>().is_err());
    }
}
