//! `ptx-cvt gpu` (being written).

use clap::Args;

#[derive(Args)]
pub struct GpuArgs {}

pub fn run(_a: GpuArgs) -> u8 {
    eprintln!("error: `ptx-cvt gpu` is not implemented yet");
    2
}
