//! `ptx-cvt ptx` (being written).

use clap::Args;

#[derive(Args)]
pub struct PtxArgs {}

pub fn run(_a: PtxArgs) -> u8 {
    eprintln!("error: `ptx-cvt ptx` is not implemented yet");
    2
}
