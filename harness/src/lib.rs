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
//! - [`runner`]: the run loop's core every command and the Python API share:
//!   a batch of one form to one implementation ([`settle`]), each answer
//!   judged ([`judge::Judge`]: legality once per form, the fast engine where
//!   it covers the form, the exact engine otherwise), one event per case.
//! - [`mismatch::Mismatch`]: one wrong answer with the oracle's explanation,
//!   the rule that decides the differing bits ([`attribution`]), its coverage
//!   class and diagnosis (built, and evaluated, only there); [`report`]
//!   renders it as text and JSON.
//! - [`diagnose`]: the catalogue of hypotheses (alternative semantics) that
//!   may reproduce a wrong answer.
//! - [`triage::Triage`]: per-variant tallies and the bug classes, one per
//!   cause ([`group`]); [`summary`] renders them as text and JSON.
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
pub mod judge;
pub mod lines;
pub mod mismatch;
pub mod module_protocol;
pub mod process;
pub mod ptx_kernels;
pub mod ptxas;
pub mod report;
pub mod reproducer;
pub mod runner;
pub mod shared_lib;
pub mod summary;
pub mod triage;
pub mod worker;

pub use implementation::{settle, Answer, FastEngine, Implementation, Outcome, Settled};
pub use mismatch::{Mismatch, Origin};
pub use triage::Triage;
