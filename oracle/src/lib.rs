//! ptx-cvt: the bit-exact semantics of the PTX `cvt` instruction.
//!
//! Layers, bottom up: [`format`] (the format table), [`exact`] (decode to
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

pub use accept::AcceptSet;
pub use caseline::{format_case, parse_case, Case};
pub use eval::{evaluate, evaluate_accept, EvalError, Operand, Outcome};
pub use instr::{Cvt, PtxVersion, Regs, Rounding, Target, Type};
pub use policy::{Profile, Rule};
