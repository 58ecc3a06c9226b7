//! ptx-cvt: the bit-exact semantics of the PTX `cvt` instruction.
//!
//! Layers, bottom up: [`format`](mod@format) (the format table), [`exact`] (decode to
//! exact values), [`round`] (the one rounding decision), [`encode`]
//! (overflow policies and bits), [`policy`] (PTX rules, evidence and
//! profiles), [`instr`] (parse, print, legality), [`eval`] (the semantics),
//! [`accept`] and [`caseline`] (results and the text format).

pub mod accept;
pub mod caseline;
pub mod encode;
pub mod eval;
pub mod exact;
pub mod fast;
pub mod format;
pub mod gen;
pub mod instr;
pub mod policy;
pub mod round;

/// Version of the semantics this crate implements (`docs/semantics.md` §9):
/// raised whenever any result, acceptance set or legality verdict changes,
/// independently of the crate's own version.
pub const SEMANTICS_VERSION: u32 = 1;

pub use accept::AcceptSet;
pub use caseline::{format_case, parse_case, Case};
pub use eval::{evaluate, evaluate_accept, EvalError, Operand, Outcome};
pub use instr::{Cvt, PtxVersion, Regs, Rounding, Target, Type};
pub use policy::{Profile, Rule};
