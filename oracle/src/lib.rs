//! ptx-cvt: the bit-exact semantics of the PTX `cvt` instruction.
//!
//! Give it an instruction and the bits of the source registers; it tells you
//! which destination bits are right (an [`AcceptSet`]: usually one value,
//! a set where the ISA leaves bits open) and, on request, which rules decided
//! them. The rules are stated in `docs/semantics.md` of the repository.
//!
//! # Checking one result in CI
//!
//! Parse a case line (the text format of `vectors/README.md`), evaluate it,
//! and compare the result you got with the oracle's set:
//!
//! ```
//! use ptx_cvt::{evaluate, evaluate_accept, parse_case, Profile};
//!
//! // An implementation under test answered 3c01 for cvt.rn.f16.f32 of 1 + 2^-11.
//! let case = parse_case("cvt.rn.f16.f32 3f801000 => 3c01").unwrap().expect("a case line");
//! let expected = evaluate_accept(&case.instr, &case.operands, case.dst_width(), Profile::Sm90).unwrap();
//! let got = case.result.as_ref().unwrap();
//! if !got.is_subset_of(&expected) {
//!     // Explain why: the exact input, the rules that fired, the deciding rule.
//!     let why = evaluate(&case.instr, &case.operands, case.dst_width(), Profile::Sm90).unwrap();
//!     assert_eq!(why.accept.to_string(), "3c00"); // a tie: to nearest even
//!     assert_eq!(why.deciding_rule().name(), "round-to-float");
//! }
//! # else { unreachable!() }
//! ```
//!
//! [`evaluate_accept`] skips building the explanation (fast); [`evaluate`]
//! builds it; [`eval::Evaluator`] checks legality once for many operands.
//! [`fast`] is a second, independent engine for sweeps.
//!
//! # Layers
//!
//! Bottom up: [`format`](mod@format) (the format table), [`exact`] (decode to
//! exact values), [`round`] (the one rounding decision), [`encode`] (bits),
//! [`policy`] (PTX rules, evidence and profiles), [`instr`] (parse, print,
//! legality), [`decide`] (every rule's decision, asked by both engines),
//! [`eval`] (the semantics), [`accept`] and [`caseline`] (results and the
//! text format).
//!
//! The exact layers speak GMP integers: [`exact::Dyadic`] gives its
//! significand as a [`rug::Integer`] (held in a machine word when it fits
//! 64 bits, so the common conversions allocate nothing), and [`exact::Value`] and
//! [`format::Format::int_range`] give them. The crate re-exports [`rug`] for
//! them; use `ptx_cvt::rug` rather than a `rug` dependency of your own, so
//! that the versions match. [`round`] and [`encode`] show only what the
//! explanations and the exact values need; their workings are internal.

pub mod accept;
pub mod caseline;
pub mod decide;
pub mod encode;
pub mod eval;
pub mod exact;
pub mod fast;
pub mod format;
pub mod gen;
pub mod instr;
mod operand;
pub mod policy;
pub mod round;
pub mod sass;

/// Version of the semantics this crate implements (`docs/semantics.md` §9):
/// raised whenever any result, acceptance set or legality verdict changes,
/// independently of the crate's own version.
pub const SEMANTICS_VERSION: u32 = 5;

/// The big-integer crate of the exact layers, re-exported so that callers
/// build their [`rug::Integer`]s with the version this crate links.
pub use rug;

pub use accept::AcceptSet;
pub use caseline::{format_case, parse_case, Case};
pub use eval::{evaluate, evaluate_accept, EvalError, Operand, Outcome};
pub use instr::{Cvt, PtxVersion, Regs, Rounding, Target, Type};
pub use policy::{Profile, Rule};
