//! Executable models of the instruction sequences ptxas emits for the `cvt`
//! forms that do not become one conversion instruction.
//!
//! ptxas 13.5.37 (`ptxas -arch=sm_90 -O3`, read back with `nvdisasm -c`)
//! lowers most `cvt` forms to one SASS conversion (`F2F`, `F2FP`, `I2F`,
//! ...), which says no more than the PTX text. The forms listed in
//! [`SEQUENCES`] become plain integer and compare instructions around at
//! most one conversion: executing those instructions gives the bits the GPU
//! computes. Each model below follows its SASS line by line (registers
//! renamed to values): integer instructions exactly, floating-point ones by
//! their documented behaviour ([`fp`]). `tests/sass.rs` compares every model
//! with the oracle under the sm90 profile; docs/semantics.md §5.17 states
//! the rules (`[SASS]`) that follow from them.

pub mod fp;

use crate::instr::Cvt;

/// One form, the SASS ptxas 13.5.37 emits for it with register operands,
/// and its model.
pub struct Sequence {
    /// The PTX spelling.
    pub form: &'static str,
    /// Source and destination register widths.
    pub src_bits: u32,
    pub dst_bits: u32,
    /// Targets checked to emit this same sequence (sm_90, sm_100a, sm_120;
    /// registers, the instruction that loads a constant and the order of
    /// independent instructions may differ).
    pub targets: &'static [&'static str],
    /// The SASS for `-arch=sm_90 -O3`, loads and stores left out.
    pub sass: &'static [&'static str],
    /// The model: source register bits to destination register bits.
    pub run: fn(u64) -> u64,
}

impl Sequence {
    pub fn cvt(&self) -> Cvt {
        self.form.parse().expect("a valid spelling")
    }
}

const ALL_THREE: &[&str] = &["sm_90", "sm_100a", "sm_120"];

/// Every modelled sequence.
pub const SEQUENCES: &[Sequence] = &[
    Sequence {
        form: "cvt.rna.tf32.f32",
        src_bits: 32,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &[
            "HFMA2.MMA R5, -RZ, RZ, 0, 0.00048828125",
            "FSETP.GEU.AND P0, PT, |R0|, +INF , PT",
            "@!P0 IMAD.IADD.U32 R0, R0, 0x1, R5",
            "LOP3.LUT R5, R0, 0xffffe000, RZ, 0xc0, !PT",
        ],
        run: rna_tf32,
    },
    Sequence {
        form: "cvt.rna.satfinite.tf32.f32",
        src_bits: 32,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &[
            "IMAD.MOV.U32 R5, RZ, RZ, 0x1000",
            "FSETP.GEU.AND P0, PT, |R0|, +INF , PT",
            "@!P0 IMAD.IADD.U32 R0, R0, 0x1, R5",
            "LOP3.LUT R5, R0, 0xffffe000, RZ, 0xc0, !PT",
            "FSETP.GEU.AND P0, PT, |R5|, +INF , PT",
            "@P0 VIADD R5, R5, 0xffffe000",
        ],
        run: rna_satfinite_tf32,
    },
    Sequence {
        form: "cvt.ftz.f64.f32",
        src_bits: 32,
        dst_bits: 64,
        targets: ALL_THREE,
        sass: &["FMUL.FTZ R0, R0, 1", "F2F.F64.F32 R4, R0"],
        run: ftz_f64_f32,
    },
    Sequence {
        form: "cvt.rn.ftz.f32.f64",
        src_bits: 64,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &[
            "UMOV UR6, 0xf0000000",
            "UMOV UR7, 0x380fffff",
            "F2F.F32.F64 R7, R4",
            "DSETP.GEU.AND P0, PT, |R4|, UR6, PT",
            "@!P0 FMUL R7, R7, 1.175494350822287508e-38",
        ],
        run: rn_ftz_f32_f64,
    },
    Sequence {
        form: "cvt.rz.ftz.f32.f64",
        src_bits: 64,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &[
            "F2F.F32.F64.RZ R7, R4",
            "FSETP.GEU.AND P0, PT, |R7|, 1.175494350822287508e-38, PT",
            "@!P0 FMUL R7, R7, 1.175494350822287508e-38",
        ],
        run: rz_ftz_f32_f64,
    },
    Sequence {
        form: "cvt.rm.ftz.f32.f64",
        src_bits: 64,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &[
            "IMAD.MOV.U32 R6, RZ, RZ, 0x380fffff",
            "SHF.R.U32.HI R0, RZ, 0x1f, R5",
            "F2F.F32.F64.RM R9, R4",
            "ISETP.NE.AND P0, PT, R0, RZ, PT",
            "FSEL R7, R6, 3.4332275390625e-05, P0",
            "FSEL R6, RZ, -3.68934925454656143360e+19, !P0",
            "DSETP.GT.AND P0, PT, R6, |R4|, PT",
            "@P0 FMUL R9, R9, 1.175494350822287508e-38",
        ],
        run: rm_ftz_f32_f64,
    },
    Sequence {
        form: "cvt.rp.ftz.f32.f64",
        src_bits: 64,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &[
            "IMAD.MOV.U32 R6, RZ, RZ, 0x38100000",
            "SHF.R.U32.HI R0, RZ, 0x1f, R5",
            "F2F.F32.F64.RP R9, R4",
            "ISETP.NE.AND P0, PT, R0, RZ, PT",
            "FSEL R7, R6, 3.4332271752646192908e-05, P0",
            "FSEL R6, RZ, -3.68934925454656143360e+19, P0",
            "DSETP.GT.AND P0, PT, R6, |R4|, PT",
            "@P0 FMUL R9, R9, 1.175494350822287508e-38",
        ],
        run: rp_ftz_f32_f64,
    },
    // The .sat spellings: the same threshold test, a FADD.SAT before the flush.
    Sequence {
        form: "cvt.rn.ftz.sat.f32.f64",
        src_bits: 64,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &[
            "UMOV UR6, 0xf0000000",
            "UMOV UR7, 0x380fffff",
            "F2F.F32.F64 R7, R4",
            "DSETP.GEU.AND P0, PT, |R4|, UR6, PT",
            "FADD.SAT R7, RZ, R7",
            "@!P0 FMUL R7, R7, 1.175494350822287508e-38",
        ],
        run: rn_ftz_sat_f32_f64,
    },
    Sequence {
        form: "cvt.rz.ftz.sat.f32.f64",
        src_bits: 64,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &[
            "F2F.F32.F64.RZ R4, R4",
            "FADD.SAT R7, RZ, R4",
            "FSETP.GEU.AND P0, PT, R7, 1.175494350822287508e-38, PT",
            "@!P0 FMUL R7, R7, 1.175494350822287508e-38",
        ],
        run: rz_ftz_sat_f32_f64,
    },
    Sequence {
        form: "cvt.rm.ftz.sat.f32.f64",
        src_bits: 64,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &[
            "IMAD.MOV.U32 R6, RZ, RZ, 0x380fffff",
            "SHF.R.U32.HI R0, RZ, 0x1f, R5",
            "ISETP.NE.AND P0, PT, R0, RZ, PT",
            "F2F.F32.F64.RM R0, R4",
            "FSEL R7, R6, 3.4332275390625e-05, P0",
            "FSEL R6, RZ, -3.68934925454656143360e+19, !P0",
            "DSETP.GT.AND P0, PT, R6, |R4|, PT",
            "FADD.SAT R7, RZ, R0",
            "@P0 FMUL R7, R7, 1.175494350822287508e-38",
        ],
        run: rm_ftz_sat_f32_f64,
    },
    Sequence {
        form: "cvt.rp.ftz.sat.f32.f64",
        src_bits: 64,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &[
            "IMAD.MOV.U32 R6, RZ, RZ, 0x38100000",
            "SHF.R.U32.HI R0, RZ, 0x1f, R5",
            "ISETP.NE.AND P0, PT, R0, RZ, PT",
            "F2F.F32.F64.RP R0, R4",
            "FSEL R7, R6, 3.4332271752646192908e-05, P0",
            "FSEL R6, RZ, -3.68934925454656143360e+19, P0",
            "DSETP.GT.AND P0, PT, R6, |R4|, PT",
            "FADD.SAT R7, RZ, R0",
            "@P0 FMUL R7, R7, 1.175494350822287508e-38",
        ],
        run: rp_ftz_sat_f32_f64,
    },
    Sequence {
        form: "cvt.f32.bf16",
        src_bits: 16,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &["SHF.L.U32 R5, R0, 0x10, RZ"],
        run: f32_bf16,
    },
    // The rounding modifier changes nothing: an exact widening (same SASS).
    Sequence {
        form: "cvt.rn.f32.bf16",
        src_bits: 16,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &["SHF.L.U32 R5, R0, 0x10, RZ"],
        run: f32_bf16,
    },
    Sequence {
        form: "cvt.f16.f16",
        src_bits: 16,
        dst_bits: 16,
        targets: ALL_THREE,
        sass: &["HADD2 R5, R0.H0_H0, -RZ.H0_H0", "PRMT R5, R5, 0x5410, RZ"],
        run: f16_f16,
    },
    Sequence {
        form: "cvt.bf16.bf16",
        src_bits: 16,
        dst_bits: 16,
        targets: ALL_THREE,
        sass: &["HFMA2.BF16_V2 R5, -RZ.H0_H0, RZ.H0_H0, R0.H0_H0", "PRMT R5, R5, 0x5410, RZ"],
        run: bf16_bf16,
    },
    Sequence {
        form: "cvt.ftz.f32.f32",
        src_bits: 32,
        dst_bits: 32,
        targets: ALL_THREE,
        sass: &["FADD.FTZ R5, R0, -RZ"],
        run: ftz_f32_f32,
    },
];

/// The model of `form`, if it is one of [`SEQUENCES`].
pub fn find(form: &str) -> Option<&'static Sequence> {
    SEQUENCES.iter().find(|s| s.form == form)
}

/// `IMAD.IADD.U32 d, a, 0x1, b`: a + b modulo 2^32.
fn iadd(a: u32, b: u32) -> u32 {
    a.wrapping_add(b)
}

fn rna_tf32(x: u64) -> u64 {
    let r0 = x as u32;
    // HFMA2.MMA R5, -RZ, RZ, 0, 0.00048828125: -0*0 + (0, 2^-11) in f16 lanes: 0x0000_1000.
    let r5 = 0x1000;
    let p0 = fp::fsetp_geu_abs_inf(r0);
    let r0 = if !p0 { iadd(r0, r5) } else { r0 };
    (r0 & 0xffff_e000) as u64
}

fn rna_satfinite_tf32(x: u64) -> u64 {
    let r5 = rna_tf32(x) as u32;
    // VIADD R5, R5, 0xffffe000: minus 0x2000 modulo 2^32.
    let r5 = if fp::fsetp_geu_abs_inf(r5) { iadd(r5, 0xffff_e000) } else { r5 };
    r5 as u64
}

fn ftz_f64_f32(x: u64) -> u64 {
    let r0 = fp::fmul_ftz_one(x as u32);
    fp::f2f_f64_f32(r0)
}

fn rn_ftz_f32_f64(x: u64) -> u64 {
    let r7 = fp::f2f_f32_f64(x, "rn");
    // UR6/UR7 = 0x380ffffff0000000 = 2^-126 - 2^-151.
    let p0 = fp::dsetp_geu_abs(x, 0x380f_ffff_f000_0000);
    (if !p0 { fp::fmul_min_normal(r7) } else { r7 }) as u64
}

fn rz_ftz_f32_f64(x: u64) -> u64 {
    let r7 = fp::f2f_f32_f64(x, "rz");
    // 1.175494350822287508e-38 is 2^-126 (0x00800000).
    let p0 = fp::fsetp_geu_abs(r7, 0x0080_0000);
    (if !p0 { fp::fmul_min_normal(r7) } else { r7 }) as u64
}

/// The directed `.ftz.f32.f64` forms: `threshold(neg)` is the f64 the
/// FSELs build, for the sign bit of the source (`SHF.R.U32.HI R0, RZ, 0x1f, R5`).
fn directed_ftz_f32_f64(x: u64, mode: &'static str, threshold: fn(bool) -> u64, sat: bool) -> u64 {
    let r9 = fp::f2f_f32_f64(x, mode);
    let neg = (x >> 63) as u32 != 0;
    let p0 = fp::dsetp_gt_abs(threshold(neg), x);
    let r9 = if sat { fp::fadd_sat_zero(r9) } else { r9 };
    (if p0 { fp::fmul_min_normal(r9) } else { r9 }) as u64
}

fn rm_threshold(neg: bool) -> u64 {
    // FSEL R7, R6(0x380fffff), 3.4332275390625e-05 (0x38100000), P0: the high word;
    // FSEL R6, RZ, -3.68934925454656143360e+19 (0xe0000000), !P0: the low word.
    let hi: u64 = if neg { 0x380f_ffff } else { 0x3810_0000 };
    let lo: u64 = if !neg { 0 } else { 0xe000_0000 };
    hi << 32 | lo
}

fn rm_ftz_f32_f64(x: u64) -> u64 {
    directed_ftz_f32_f64(x, "rm", rm_threshold, false)
}

fn rm_ftz_sat_f32_f64(x: u64) -> u64 {
    directed_ftz_f32_f64(x, "rm", rm_threshold, true)
}

fn rp_threshold(neg: bool) -> u64 {
    // FSEL R7, R6(0x38100000), 3.4332271752646192908e-05 (0x380fffff), P0;
    // FSEL R6, RZ, -3.68934925454656143360e+19 (0xe0000000), P0.
    let hi: u64 = if neg { 0x3810_0000 } else { 0x380f_ffff };
    let lo: u64 = if neg { 0 } else { 0xe000_0000 };
    hi << 32 | lo
}

fn rp_ftz_f32_f64(x: u64) -> u64 {
    directed_ftz_f32_f64(x, "rp", rp_threshold, false)
}

fn rp_ftz_sat_f32_f64(x: u64) -> u64 {
    directed_ftz_f32_f64(x, "rp", rp_threshold, true)
}

fn rn_ftz_sat_f32_f64(x: u64) -> u64 {
    let r7 = fp::f2f_f32_f64(x, "rn");
    let p0 = fp::dsetp_geu_abs(x, 0x380f_ffff_f000_0000);
    let r7 = fp::fadd_sat_zero(r7);
    (if !p0 { fp::fmul_min_normal(r7) } else { r7 }) as u64
}

fn rz_ftz_sat_f32_f64(x: u64) -> u64 {
    let r7 = fp::fadd_sat_zero(fp::f2f_f32_f64(x, "rz"));
    // FSETP.GEU.AND P0, PT, R7, 2^-126: R7 is not negative after the clamp.
    let p0 = fp::fsetp_geu_abs(r7, 0x0080_0000);
    (if !p0 { fp::fmul_min_normal(r7) } else { r7 }) as u64
}

fn f32_bf16(x: u64) -> u64 {
    // SHF.L.U32 R5, R0, 0x10, RZ: the 16-bit register's bits, shifted left by 16.
    ((x as u32 & 0xffff) << 16) as u64
}

/// `PRMT R5, R5, 0x5410, RZ`: bytes 1, 0 of R5, then bytes 1, 0 of RZ above.
fn prmt_5410_rz(r: u32) -> u32 {
    r & 0xffff
}

fn f16_f16(x: u64) -> u64 {
    prmt_5410_rz(fp::hadd2_minus_zero(x as u16) as u32) as u64
}

fn bf16_bf16(x: u64) -> u64 {
    prmt_5410_rz(fp::hfma2_bf16_minus_zero(x as u16) as u32) as u64
}

fn ftz_f32_f32(x: u64) -> u64 {
    fp::fadd_ftz_minus_zero(x as u32) as u64
}
