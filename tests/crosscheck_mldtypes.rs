//! Independent cross-check: f32 → fp8/fp6/fp4/ue8m0/f16/bf16 conversions by
//! ml_dtypes (a second implementation, not ours), recorded in
//! `tests/data/mldtypes-crosscheck.tsv` by `scripts/crosscheck-mldtypes.py`.
//!
//! Rows are compared bit for bit wherever PTX `cvt` and ml_dtypes follow the
//! same rule (round to nearest even on in-range values). The policy
//! differences, documented in `tests/data/mldtypes-crosscheck.md`, are:
//! - e4m3/e5m2 overflow and ±Inf: ml_dtypes gives NaN/Inf, `.satfinite` gives ±MAX;
//! - NaN inputs: ml_dtypes keeps the sign (fp8), or gives a signed zero (fp6/fp4);
//!   PTX gives the canonical NaN, or +MAX for formats without NaN;
//! - ue8m0: ml_dtypes rounds to the nearest power of two with ties up, PTX has
//!   only rz and rp: compared as rp from 1.5·2^k up and rz below; ml_dtypes'
//!   handling of zero, negatives and f32 subnormals is not comparable.

use std::collections::BTreeMap;

use ptx_cvt::{evaluate, instr, Operand, Profile};

const DATA: &str = include_str!("data/mldtypes-crosscheck.tsv");

/// The PTX instruction that computes the row's conversion, if the row is comparable.
fn instruction(format: &str, f32_bits: u32, class: &str) -> Option<String> {
    let comparable = match format {
        "e4m3" | "e5m2" => !matches!(class, "overflow" | "inf" | "nan"),
        "e2m3" | "e3m2" | "e2m1" | "f16" | "bf16" => class != "nan",
        "ue8m0" => {
            let exp = (f32_bits >> 23) & 0xff;
            f32_bits >> 31 == 0 && exp != 0 && exp != 0xff
        }
        _ => panic!("unknown format {format}"),
    };
    if !comparable {
        return None;
    }
    Some(match format {
        "f16" | "bf16" => format!("cvt.rn.{format}.f32"),
        "ue8m0" => {
            let at_or_above_midpoint = f32_bits & 0x40_0000 != 0;
            format!("cvt.{}.ue8m0x2.f32", if at_or_above_midpoint { "rp" } else { "rz" })
        }
        _ => format!("cvt.rn.satfinite.{format}x2.f32"),
    })
}

#[test]
fn oracle_agrees_with_ml_dtypes_wherever_the_policies_coincide() {
    let mut compared: BTreeMap<&str, usize> = BTreeMap::new();
    let mut skipped = 0;
    let mut differences = Vec::new();
    for line in DATA.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let [format, bits, code, class] = f[..] else { panic!("bad row {line}") };
        let a = u32::from_str_radix(bits, 16).unwrap();
        let want = u64::from_str_radix(code, 16).unwrap();
        let Some(text) = instruction(format, a, class) else {
            skipped += 1;
            continue;
        };
        let c = instr::parse(&text).unwrap();
        let shape = instr::shape(&c);
        let ops: Vec<Operand> = shape.srcs.iter().map(|_| Operand { bits: a as u64, width: 32 }).collect();
        let o = evaluate(&c, &ops, c.dtype.bits(), Profile::Sm90).unwrap();
        let got = o.accept.single().unwrap_or_else(|| panic!("{text} {bits}: not a single value: {}", o.accept));
        // For packed results both lanes hold the same conversion; take the low one.
        let lane = if c.dtype.is_packed() { got & ((1 << c.dtype.lane_bits()) - 1) } else { got };
        *compared.entry(format).or_default() += 1;
        if lane != want {
            differences.push(format!("{format} {bits} ({class}): ml_dtypes {code}, oracle {lane:x} via {text}"));
        }
    }
    eprintln!("compared per format: {compared:?}; skipped by policy: {skipped}");
    for f in ["e4m3", "e5m2", "e2m3", "e3m2", "e2m1", "ue8m0", "f16", "bf16"] {
        assert!(compared.get(f).copied().unwrap_or(0) > 1000, "too few {f} rows compared");
    }
    let shown: Vec<&str> = differences.iter().take(30).map(|s| s.as_str()).collect();
    assert!(differences.is_empty(), "{} unexplained differences:\n{}", differences.len(), shown.join("\n"));
}
