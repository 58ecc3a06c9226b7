//! Replaying straight-line SASS on a small register model to learn which
//! stores write values that ptxas computed at compile time.
//!
//! A register holds a known 32-bit value (from immediates and `RZ`), a part
//! of a 64-bit value loaded from a constant bank plus a known offset (the
//! kernel's `out` pointer), or an unknown value (anything computed at run
//! time). Only a handful of instructions are understood exactly (MOV,
//! IMAD.MOV, HFMA2 of immediates, PRMT, CS2R, IADD3 and the pointer carry of
//! IADD3.X, LDC/ULDC); every other instruction makes what it writes unknown.
//! So a store whose value is known is a value ptxas folded, never a guess.

use std::collections::HashMap;

use super::sass::Instr;

/// What a register holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Val {
    Known(u32),
    /// Half of the 64-bit value at constant-bank offset `base`, plus `add`.
    Ptr {
        base: u32,
        add: i64,
        hi: bool,
    },
    /// The 32-bit word at constant-bank offset `off` (sm_80 builds the
    /// pointer from two of them).
    Word(u32),
    /// Some bytes known (`mask` set), the rest computed at run time: a PRMT
    /// that merges a folded 16-bit value into a register.
    Part {
        bits: u32,
        mask: u32,
    },
    Unknown,
}

impl Val {
    /// As the low half of a pointer: (constant offset, add).
    fn lo(self) -> Option<(u32, i64)> {
        match self {
            Val::Ptr { base, add, hi: false } => Some((base, add)),
            Val::Word(off) => Some((off, 0)),
            _ => None,
        }
    }

    /// The known bits and which they are.
    fn bits(self) -> (u32, u32) {
        match self {
            Val::Known(v) => (v, u32::MAX),
            Val::Part { bits, mask } => (bits & mask, mask),
            _ => (0, 0),
        }
    }

    fn from_bits(bits: u32, mask: u32) -> Val {
        match mask {
            u32::MAX => Val::Known(bits),
            0 => Val::Unknown,
            _ => Val::Part { bits: bits & mask, mask },
        }
    }

    /// As the high half of a pointer.
    fn hi(self) -> Option<(u32, i64)> {
        match self {
            Val::Ptr { base, add, hi: true } => Some((base, add)),
            Val::Word(off) => off.checked_sub(4).map(|b| (b, 0)),
            _ => None,
        }
    }
}

/// One store the kernel performs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Store {
    /// Constant-bank offset of the pointer it stores through.
    pub base: u32,
    /// Byte offset from that pointer.
    pub offset: i64,
    /// Width in bits (8, 16, 32, 64 or 128).
    pub width: u32,
    /// The stored bits when every one comes from immediates.
    pub value: Option<u128>,
    /// Under a guard predicate: it may not happen.
    pub guarded: bool,
    /// The instruction, for messages.
    pub text: String,
}

/// Why a function's stores cannot be read at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unreadable {
    /// A branch, call or guarded exit before the end: not straight-line code.
    ControlFlow(String),
    /// A store whose address is not the pointer plus a known offset, or a
    /// kind of store (shared, local, generic, atomic) not modelled.
    StoreAddress(String),
    /// No unguarded EXIT.
    NoExit,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::ControlFlow(t) => write!(f, "the SASS is not straight-line ({t})"),
            Unreadable::StoreAddress(t) => write!(f, "a store this reader cannot place ({t})"),
            Unreadable::NoExit => write!(f, "the SASS has no EXIT"),
        }
    }
}

/// Every store of the straight-line code up to the first unguarded EXIT.
pub fn stores(instrs: &[Instr]) -> Result<Vec<Store>, Unreadable> {
    let mut m = Machine::default();
    for i in instrs {
        let guarded = match i.guard.as_deref() {
            None | Some("PT") => false,
            Some("!PT") => continue,
            Some(_) => true,
        };
        match i.base() {
            "EXIT" if !guarded => return Ok(m.stores),
            "EXIT" | "BRA" | "BRX" | "JMP" | "JMX" | "CALL" | "RET" | "BREAK" | "KILL" | "BPT" => {
                return Err(Unreadable::ControlFlow(i.text()))
            }
            "STG" => m.store(i, guarded)?,
            "ST" | "STS" | "STL" | "ATOM" | "ATOMG" | "ATOMS" | "RED" | "REDG" | "STSM" | "ATOMS.CAS" => {
                return Err(Unreadable::StoreAddress(i.text()))
            }
            _ if guarded => m.clobber(i),
            _ => m.exec(i),
        }
    }
    Err(Unreadable::NoExit)
}

#[derive(Default)]
struct Machine {
    regs: HashMap<String, Val>,
    /// Carry predicates of pointer additions: predicate -> (base, new add).
    carries: HashMap<String, (u32, i64)>,
    stores: Vec<Store>,
}

/// `R4` -> ("R", 4); `UR6` -> ("UR", 6).
fn reg_parts(s: &str) -> Option<(&str, u32)> {
    let (kind, n) = if let Some(n) = s.strip_prefix("UR") { ("UR", n) } else { ("R", s.strip_prefix('R')?) };
    n.parse().ok().map(|n| (kind, n))
}

/// A hex or decimal integer immediate as nvdisasm prints it (`0x3c00`, `-0x10`, `12`).
fn int_imm(s: &str) -> Option<u32> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok()?,
        None => s.parse::<u64>().ok()?,
    };
    if v > u64::from(u32::MAX) {
        return None;
    }
    let v = v as u32;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `c[0x0][0x210]` -> 0x210 (bank 0 only).
fn const_ref(s: &str) -> Option<u32> {
    let off = s.strip_prefix("c[0x0][")?.strip_suffix(']')?;
    int_imm(off)
}

/// How many consecutive registers an instruction not modelled may write:
/// an over-estimate is safe (values become unknown), an under-estimate not.
fn dest_count(i: &Instr) -> u32 {
    let op = &i.opcode;
    if op.contains("128") {
        4
    } else if op.contains("64") || op.contains("WIDE") || i.base().starts_with('D') || i.base() == "CS2R" {
        2
    } else {
        1
    }
}

impl Machine {
    fn get(&self, name: &str) -> Val {
        match name {
            "RZ" | "URZ" => Val::Known(0),
            _ => self.regs.get(name).copied().unwrap_or(Val::Unknown),
        }
    }

    fn set(&mut self, name: &str, v: Val) {
        if name != "RZ" && name != "URZ" {
            self.regs.insert(name.to_string(), v);
        }
    }

    /// Register `name` plus `k`: `R4`+1 = `R5`.
    fn next(name: &str, k: u32) -> Option<String> {
        if name == "RZ" || name == "URZ" {
            return Some(name.to_string());
        }
        let (kind, n) = reg_parts(name)?;
        Some(format!("{kind}{}", n + k))
    }

    /// A source operand's value: a register (with `-` or `~`), an integer immediate.
    fn src(&self, s: &str) -> Val {
        if let Some(r) = s.strip_prefix('-') {
            if reg_parts(r).is_some() || r == "RZ" || r == "URZ" {
                return match self.get(r) {
                    Val::Known(v) => Val::Known(v.wrapping_neg()),
                    _ => Val::Unknown,
                };
            }
        }
        if let Some(r) = s.strip_prefix('~') {
            return match self.get(r) {
                Val::Known(v) => Val::Known(!v),
                _ => Val::Unknown,
            };
        }
        if s == "RZ" || s == "URZ" || reg_parts(s).is_some() {
            return self.get(s);
        }
        if let Some(off) = const_ref(s) {
            return Val::Word(off);
        }
        int_imm(s).map_or(Val::Unknown, Val::Known)
    }

    /// What an instruction not modelled writes becomes unknown.
    fn clobber(&mut self, i: &Instr) {
        let Some(d) = i.operands.first() else { return };
        if reg_parts(d).is_some() {
            for k in 0..dest_count(i) {
                if let Some(r) = Self::next(d, k) {
                    self.set(&r, Val::Unknown);
                }
            }
        }
        // Any predicate it names may now hold anything.
        for o in &i.operands {
            self.carries.remove(o.trim_start_matches('!'));
        }
    }

    fn exec(&mut self, i: &Instr) {
        let ops: Vec<&str> = i.operands.iter().map(String::as_str).collect();
        let mods: Vec<&str> = i.modifiers().collect();
        let result = match (i.base(), mods.as_slice(), ops.as_slice()) {
            ("MOV" | "UMOV", [] | ["U32"], [d, s]) => Some((*d, self.src(s))),
            ("IMAD", ["MOV"] | ["MOV", "U32"], [d, "RZ", "RZ", s]) => Some((*d, self.src(s))),
            ("HFMA2", [] | ["MMA"], [d, "-RZ", "RZ", rest @ ..])
                if !rest.is_empty() && rest.iter().all(|o| literal(o)) =>
            {
                Some((*d, half2_imm(i)))
            }
            ("PRMT", [], [d, a, sel, b]) => Some((*d, prmt(self.src(a), self.src(sel), self.src(b)))),
            ("LDC" | "ULDC", [] | ["64"], [d, c]) => {
                let wide = mods == ["64"];
                match const_ref(c) {
                    Some(off) if !wide => Some((*d, Val::Word(off))),
                    Some(base) => {
                        self.set(d, Val::Ptr { base, add: 0, hi: false });
                        if let Some(h) = Self::next(d, 1) {
                            self.set(&h, Val::Ptr { base, add: 0, hi: true });
                        }
                        return;
                    }
                    None => None,
                }
            }
            ("CS2R", [], [d, "SRZ"]) => {
                self.set(d, Val::Known(0));
                if let Some(h) = Self::next(d, 1) {
                    self.set(&h, Val::Known(0));
                }
                return;
            }
            ("IADD3" | "UIADD3", [], [d, p, a, b, c]) if p.starts_with('P') || p.starts_with("UP") => {
                self.carries.remove(*p);
                let v = self.add3(a, b, c, Some(p));
                Some((*d, v))
            }
            ("IADD3" | "UIADD3", [], [d, a, b, c]) => Some((*d, self.add3(a, b, c, None))),
            ("IADD3" | "UIADD3", ["X"], [d, "RZ" | "URZ", hi, "RZ" | "URZ", p, "!PT"]) => {
                let v = match (self.get(hi).hi(), self.carries.get(*p)) {
                    (Some((base, _)), Some((b, add))) if base == *b => Val::Ptr { base, add: *add, hi: true },
                    _ => Val::Unknown,
                };
                Some((*d, v))
            }
            _ => None,
        };
        match result {
            Some((d, v)) if reg_parts(d).is_some() || d == "RZ" || d == "URZ" => self.set(d, v),
            _ => self.clobber(i),
        }
    }

    /// Three-input add: of known values, or a pointer's low half plus known
    /// values (recording the carry in predicate `p` for IADD3.X).
    fn add3(&mut self, a: &str, b: &str, c: &str, p: Option<&str>) -> Val {
        let vals = [self.src(a), self.src(b), self.src(c)];
        let known: Vec<u32> = vals.iter().filter_map(|v| if let Val::Known(x) = v { Some(*x) } else { None }).collect();
        let ptrs: Vec<(u32, i64)> = vals.iter().filter_map(|v| v.lo()).collect();
        match (known.len(), ptrs.as_slice()) {
            (3, []) => Val::Known(known.iter().fold(0u32, |s, x| s.wrapping_add(*x))),
            (2, [(base, add)]) => {
                // Signed immediates: a pointer moves by a small signed offset.
                let delta: i64 = known.iter().map(|x| i64::from(*x as i32)).sum();
                if let Some(p) = p {
                    self.carries.insert(p.to_string(), (*base, add + delta));
                }
                Val::Ptr { base: *base, add: add + delta, hi: false }
            }
            _ => Val::Unknown,
        }
    }

    fn store(&mut self, i: &Instr, guarded: bool) -> Result<(), Unreadable> {
        let bad = || Unreadable::StoreAddress(i.text());
        let [addr, value] = i.operands.as_slice() else { return Err(bad()) };
        // `desc[UR4][R2.64+0x8]`: the last bracket is the address.
        let inner = addr.rsplit_once('[').map(|(_, r)| r.trim_end_matches(']')).ok_or_else(bad)?;
        let (reg, off) = match inner.find(['+', '-']) {
            Some(k) => (&inner[..k], int_imm(inner[k..].trim_start_matches('+')).ok_or_else(bad)?),
            None => (inner, 0),
        };
        // A 64-bit address: `R2.64`, a uniform pair `UR4` (sm_75), or `R2` under `.E`.
        let reg = match reg.strip_suffix(".64") {
            Some(r) => r,
            None if reg.starts_with("UR") || i.modifiers().any(|m| m == "E") => reg,
            None => return Err(bad()),
        };
        let hi = Self::next(reg, 1).ok_or_else(bad)?;
        let (base, add) = match (self.get(reg).lo(), self.get(&hi).hi()) {
            (Some(lo), Some(hi)) if lo == hi => lo,
            _ => return Err(bad()),
        };
        let mods: Vec<&str> = i.modifiers().collect();
        // A width this reader does not know (Blackwell's `.ENL2.256`) must not read as 32.
        if mods.iter().any(|m| m.starts_with("ENL") || (m.parse::<u32>().is_ok() && *m != "64" && *m != "128")) {
            return Err(bad());
        }
        let width: u32 = if mods.iter().any(|m| *m == "U8" || *m == "S8") {
            8
        } else if mods.iter().any(|m| *m == "U16" || *m == "S16") {
            16
        } else if mods.contains(&"64") {
            64
        } else if mods.contains(&"128") {
            128
        } else {
            32
        };
        let mut bits: Option<u128> = Some(0);
        for k in 0..width.div_ceil(32) {
            let r = Self::next(value, k).ok_or_else(bad)?;
            let need = if width >= 32 { u32::MAX } else { (1u32 << width) - 1 };
            let (v, mask) = self.get(&r).bits();
            bits = bits.filter(|_| mask & need == need).map(|b| b | u128::from(v & need) << (32 * k));
        }
        let mask = if width == 128 { u128::MAX } else { (1u128 << width) - 1 };
        let offset = add + i64::from(off as i32);
        self.stores.push(Store { base, offset, width, value: bits.map(|b| b & mask), guarded, text: i.text() });
        Ok(())
    }
}

/// An immediate operand as printed (`0x10`, `1.875`, `-INF`, `+QNAN`): no
/// register, predicate or constant-bank reference.
fn literal(o: &str) -> bool {
    let t = o.trim_start_matches(['-', '+', '|', '!', '~']);
    !(t.starts_with('R') || t.starts_with("UR") || t.starts_with('P') || t.starts_with("UP") || t.contains("c["))
}

/// HFMA2 `Rd, -RZ, RZ, a, b` is `-0 * 0 + (a, b)` per f16 lane: the immediate
/// itself, except that a NaN lane might come out canonical: unknown then.
fn half2_imm(i: &Instr) -> Val {
    let v = i.imm32();
    let nan = |h: u32| h & 0x7c00 == 0x7c00 && h & 0x03ff != 0;
    if nan(v & 0xffff) || nan(v >> 16) {
        Val::Unknown
    } else {
        Val::Known(v)
    }
}

/// PRMT in its default mode: result byte k is byte `sel[4k..4k+3] & 7` of
/// {b, a}, or that byte's sign replicated when bit 3 of the nibble is set.
/// Known result bytes are those whose source byte is known.
fn prmt(a: Val, sel: Val, b: Val) -> Val {
    let Val::Known(sel) = sel else { return Val::Unknown };
    let ((av, am), (bv, bm)) = (a.bits(), b.bits());
    let bytes = (u64::from(bv) << 32 | u64::from(av)).to_le_bytes();
    let known = (u64::from(bm) << 32 | u64::from(am)).to_le_bytes();
    let (mut out, mut mask) = (0u32, 0u32);
    for k in 0..4 {
        let n = (sel >> (4 * k)) & 0xf;
        let (byte, full) = (bytes[(n & 7) as usize], known[(n & 7) as usize] == 0xff);
        let byte = if n & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        out |= u32::from(byte) << (8 * k);
        if full {
            mask |= 0xff << (8 * k);
        }
    }
    Val::from_bits(out, mask)
}

/// The value a slot holds after the kernel, when ptxas folded it: exactly one
/// store writes any of bytes `offset..offset + width/8` through pointer
/// `base`, unguarded, exactly that wide at exactly that offset, from immediates.
pub fn folded(stores: &[Store], base: u32, offset: i64, width: u32) -> Option<u128> {
    let end = offset + i64::from(width / 8);
    let mut hits =
        stores.iter().filter(|s| s.base == base && s.offset < end && s.offset + i64::from(s.width / 8) > offset);
    let s = hits.next()?;
    if hits.next().is_some() || s.guarded || s.offset != offset || s.width != width {
        return None;
    }
    s.value
}
