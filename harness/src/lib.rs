//! ptx-cvt-harness: drive a `cvt` implementation under test and report where
//! it departs from the ptx-cvt oracle.
//!
//! - [`Implementation`]: what every implementation under test presents; it
//!   answers bits, declines a case ([`Answer::Declined`]: counted as
//!   unsupported), or fails (an adapter error).
//! - Adapters: [`process::ProcessImpl`] (a program speaking case lines over
//!   pipes), [`module_protocol::ModuleImpl`] (a driver that runs whole PTX
//!   modules, e.g. an emulator's front door; the kernels come from
//!   [`ptx_kernels`]), [`shared_lib::SharedLib`] (a C function in a shared library),
//!   [`FastEngine`] (the oracle's own fast engine), [`ptxas::PtxasFolder`]
//!   (ptxas's constant folder, read back from its SASS).
//! - [`report::Mismatch`]: one wrong answer, as text and JSON, with the rule
//!   that decides the differing bits ([`attribution`]) and its coverage class.
//! - [`diagnose`]: the catalogue of hypotheses (alternative semantics) that
//!   may reproduce a wrong answer.
//! - [`triage::Triage`]: per-variant tallies and the bug classes, one per
//!   cause ([`triage::Grouping`]).
//! - [`digest`]: the order-independent sweep digest; [`atlas`]: the digest
//!   atlas of every variant with sources of at most 32 bits.

pub mod atlas;
pub mod attribution;
pub mod crash_note;
pub mod diagnose;
pub mod digest;
pub mod fuzz_inputs;
pub mod group;
pub mod implementation;
pub mod interrupt;
pub mod lines;
pub mod module_protocol;
pub mod process;
pub mod ptx_kernels;
pub mod ptxas;
pub mod report;
pub mod reproducer;
pub mod shared_lib;
pub mod triage;
pub mod worker;

pub use implementation::{settle, Answer, FastEngine, Implementation, Outcome, Settled};
pub use report::{Mismatch, Origin};
pub use triage::Triage;
