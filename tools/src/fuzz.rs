//! `ptx-cvt fuzz` (being written).

use clap::Args;

#[derive(Args)]
pub struct FuzzArgs {}

pub fn run(_a: FuzzArgs) -> u8 {
    eprintln!("error: `ptx-cvt fuzz` is not implemented yet");
    2
}
