//! `ptx-cvt ptx`: the emitted modules (one kernel per legal variant, and per
//! wider register widths with `--registers all`) are well formed, their
//! header table matches the kernels, their harness part keeps to the subset
//! of docs/kernels.md, and ptxas 13.5 assembles them whole.
//!
//! ptxas comes from `~/.cache/ptx-cvt/nvcc` (or `$XDG_CACHE_HOME/ptx-cvt/nvcc`)
//! when `scripts/get-ptxas.sh` already installed it, else from running that
//! script (which needs network access to PyPI once). Without ptxas the
//! assembling tests print `SKIPPED` and pass; the header checks always run.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use ptx_cvt_tests::{bin, workspace};

fn ptx_cvt(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("run ptx-cvt")
}

/// stdout of a successful `ptx-cvt` run.
fn stdout_of(args: &[&str]) -> String {
    let o = ptx_cvt(args);
    assert!(o.status.success(), "ptx-cvt {args:?} failed ({}):\n{}", o.status, String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("utf-8 output")
}

/// ptxas, found once: the cached install, else `scripts/get-ptxas.sh`.
fn ptxas() -> Option<&'static Path> {
    static PTXAS: OnceLock<Option<PathBuf>> = OnceLock::new();
    PTXAS
        .get_or_init(|| {
            let cache = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()).map(PathBuf::from);
            let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache"));
            if let Some(p) = cache
                .into_iter()
                .chain(home)
                .map(|c| c.join("ptx-cvt/nvcc/nvidia/cu13/bin/ptxas"))
                .find(|p| p.is_file())
            {
                return Some(p);
            }
            let out = Command::new("bash").arg(workspace().join("scripts/get-ptxas.sh")).output().ok()?;
            if !out.status.success() {
                eprintln!("scripts/get-ptxas.sh failed:\n{}", String::from_utf8_lossy(&out.stderr));
                return None;
            }
            let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).lines().last()?.trim());
            path.is_file().then_some(path)
        })
        .as_deref()
}

/// A temporary folder, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("ptx-cvt-ptx-test-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("create temp dir");
        TempDir(d)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One header-table line.
#[derive(Debug)]
struct Row {
    name: String,
    instruction: String,
    srcs: Vec<u32>,
    dst: u32,
}

/// The header table of a module, checked against its kernels: same names in
/// the same order, unique, as many as `// kernels N` says, names derived from
/// the spellings, parameters and register declarations matching the widths.
fn table(module: &str) -> Vec<Row> {
    let rows: Vec<Row> = module
        .lines()
        .filter_map(|l| l.strip_prefix("// kernel "))
        .map(|l| {
            let (left, dst) = l.split_once(" -> ").unwrap_or_else(|| panic!("no ` -> ` in table line {l:?}"));
            let mut f = left.split(' ');
            let name = f.next().unwrap().to_string();
            let instruction = f.next().unwrap_or_else(|| panic!("no instruction in {l:?}")).to_string();
            let srcs: Vec<u32> = f.map(|w| w.parse().unwrap_or_else(|_| panic!("bad width {w:?} in {l:?}"))).collect();
            Row { name, instruction, srcs, dst: dst.parse().unwrap_or_else(|_| panic!("bad width in {l:?}")) }
        })
        .collect();
    let count: usize =
        module.lines().find_map(|l| l.strip_prefix("// kernels ")).expect("`// kernels N` line").parse().unwrap();
    assert_eq!(rows.len(), count, "`// kernels` disagrees with the table");
    let names: HashSet<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names.len(), rows.len(), "kernel names are not unique");
    let entries: Vec<&str> = module
        .lines()
        .filter_map(|l| l.strip_prefix(".visible .entry "))
        .map(|l| l.strip_suffix('(').expect("`(` ends the entry line"))
        .collect();
    let listed: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(entries, listed, "the table does not list the kernels in order");
    // Each kernel: name from the spelling, one in_ parameter per source, registers of the listed widths.
    for (row, body) in rows.iter().zip(module.split(".visible .entry ").skip(1)) {
        let natural = row.instruction.replace(['.', ':'], "_");
        let widths: Vec<String> = row.srcs.iter().chain([&row.dst]).map(|w| w.to_string()).collect();
        let wide = format!("{natural}__{}", widths.join("_"));
        assert!(row.name == natural || row.name == wide, "{row:?}");
        assert!(
            !row.srcs.is_empty() && row.srcs.iter().chain([&row.dst]).all(|w| [8, 16, 32, 64].contains(w)),
            "{row:?}"
        );
        let params = body.lines().filter(|l| l.trim_start().starts_with(".param .u64 in_")).count();
        assert_eq!(params, row.srcs.len(), "{row:?}\n{body}");
        assert!(body.contains("\t.param .u64 out,\n\t.param .u32 n\n)"), "{body}");
        assert!(body.contains(&format!("\t.reg .b{} %d;\n", row.dst)), "{row:?}\n{body}");
        assert!(body.contains(&format!("\t{} %d, ", row.instruction)), "{row:?}\n{body}");
        assert!(body.contains(&format!("\tst.global.b{} [%ptr], %d;\n", row.dst)), "{row:?}\n{body}");
        for w in &row.srcs {
            assert!(body.contains(&format!("\tld.global.b{w} %")), "{row:?}\n{body}");
        }
    }
    rows
}

/// Assemble `module` with `ptxas -arch=<target>`; panics with ptxas's first
/// messages when it fails or warns.
fn assemble(ptxas: &Path, module: &str, target: &str) {
    // Tests assemble for one target at once: a folder per call.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = TempDir::new(&format!("{target}-{call}"));
    let src = dir.0.join(format!("{target}.ptx"));
    let obj = dir.0.join(format!("{target}.cubin"));
    std::fs::write(&src, module).unwrap();
    let start = std::time::Instant::now();
    let out =
        Command::new(ptxas).arg(format!("-arch={target}")).arg(&src).arg("-o").arg(&obj).output().expect("run ptxas");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first: Vec<&str> = stderr.lines().take(20).collect();
    assert!(
        out.status.success(),
        "ptxas -arch={target} rejected the module ({}); first messages:\n{}",
        out.status,
        first.join("\n")
    );
    assert!(stderr.trim().is_empty(), "ptxas -arch={target} warned:\n{}", first.join("\n"));
    assert!(obj.metadata().map(|m| m.len() > 0).unwrap_or(false), "ptxas wrote no {}", obj.display());
    eprintln!(
        "ptxas -arch={target}: {} kernels in {:.2} s",
        module.matches(".visible .entry ").count(),
        start.elapsed().as_secs_f64()
    );
}

/// Emit the whole module for `target`; check it lists exactly `ptx-cvt list`'s spellings
/// but the four `.rm`/`.rp` scalar `.pzo` ones ptxas 13.5 crashes on (sm_107a/f).
fn whole_module(target: &str) -> String {
    let module = stdout_of(&["ptx", "--target", target]);
    let rows = table(&module);
    let list = stdout_of(&["list", "--target", target]);
    const CRASH: [&str; 4] = ["cvt.rm.pzo.bf16.f32", "cvt.rp.pzo.bf16.f32", "cvt.rm.pzo.f16.f32", "cvt.rp.pzo.f16.f32"];
    let listed: Vec<&str> = list.lines().filter(|l| !CRASH.contains(l)).collect();
    let instructions: Vec<&str> = rows.iter().map(|r| r.instruction.as_str()).collect();
    assert_eq!(instructions, listed, "the module's kernels are not `ptx-cvt list --target {target}`");
    assert!(module.contains(&format!("\n.version 9.5\n.target {target}\n.address_size 64\n")), "module directives");
    harness_is_portable(&module);
    module
}

fn check_target(target: &str) {
    let module = whole_module(target);
    let wide = stdout_of(&["ptx", "--target", target, "--registers", "all"]);
    let rows = table(&wide);
    assert!(rows.len() > 2 * table(&module).len(), "--registers all adds the wider kernels");
    assert!(rows.iter().any(|r| r.name == "cvt_s16_s8__32_32" && r.srcs == [32] && r.dst == 32));
    harness_is_portable(&wide);
    match ptxas() {
        Some(p) => {
            assemble(p, &module, target);
            assemble(p, &wide, target);
        }
        None => eprintln!(
            "SKIPPED: ptxas not available (scripts/get-ptxas.sh failed); the {target} module was not assembled"
        ),
    }
}

/// The opcodes docs/kernels.md allows in the harness part, read from its table.
fn documented_opcodes() -> HashSet<String> {
    let doc = std::fs::read_to_string(workspace().join("docs/kernels.md")).expect("docs/kernels.md");
    let table = doc.split("<!-- subset:").nth(1).and_then(|t| t.split("<!-- end subset -->").next()).expect("subset");
    let mut ops = HashSet::new();
    for cell in table.lines().filter_map(|l| l.strip_prefix("| `")).map(|l| l.split('|').next().unwrap()) {
        let names: Vec<&str> = cell.split('`').filter(|x| !x.trim().is_empty() && x.trim() != "…").collect();
        match names[..] {
            // `ld.global.b8` … `ld.global.b64`: every width between.
            [lo, hi] => {
                let stem = lo.trim_end_matches(char::is_numeric);
                assert_eq!(stem, hi.trim_end_matches(char::is_numeric), "{cell}");
                for w in ["8", "16", "32", "64"] {
                    ops.insert(format!("{stem}{w}"));
                }
            }
            [one] => {
                ops.insert(one.to_string());
            }
            _ => panic!("cannot read the subset row {cell:?}"),
        }
    }
    assert!(ops.contains("mul.wide.u32") && ops.contains("st.global.b64"), "{ops:?}");
    ops
}

/// Every kernel's harness part (all but its one `cvt`) declares one
/// register per line, uses no list or vector syntax and only the opcodes of
/// docs/kernels.md: in particular no conversion.
fn harness_is_portable(module: &str) {
    let allowed = documented_opcodes();
    for body in module.split(".visible .entry ").skip(1) {
        let name = body.split('(').next().unwrap();
        let code = body.split_once("\n{\n").expect("a body").1;
        let mut cvts = 0;
        for l in code.lines().map(str::trim).filter(|l| !l.is_empty() && *l != "}") {
            if l.starts_with("cvt.") {
                cvts += 1;
                continue;
            }
            assert!(!l.contains('{') && !l.contains('<'), "{name}: list or vector syntax in `{l}`");
            if let Some(decl) = l.strip_prefix(".reg ") {
                let mut f = decl.trim_end_matches(';').split_whitespace();
                let (ty, reg) = (f.next().unwrap_or(""), f.next().unwrap_or(""));
                assert!(
                    f.next().is_none() && !reg.contains(',') && (ty == ".pred" || ty.starts_with(".b")),
                    "{name}: `{l}` is not one register of a bit-size type"
                );
                continue;
            }
            if l.ends_with(':') {
                continue;
            }
            let op = l.trim_start_matches("@%p ").split_whitespace().next().unwrap().trim_end_matches(';');
            assert!(allowed.contains(op), "{name}: `{op}` (in `{l}`) is not in docs/kernels.md's subset");
        }
        assert_eq!(cvts, 1, "{name}: the harness part must hold no conversion, the kernel one cvt");
    }
}

#[test]
fn every_sm_90_variant_assembles() {
    check_target("sm_90");
}

#[test]
fn every_sm_100a_variant_assembles() {
    check_target("sm_100a");
}

/// Every other target ptxas 13.5 knows (sm_75 … sm_121f; it has no sm_101):
/// the module of each assembles without a message, `cvt.pack` included.
#[test]
fn every_other_target_assembles() {
    let others = [
        "sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90a", "sm_100", "sm_100f", "sm_103", "sm_103a",
        "sm_103f", "sm_107", "sm_107a", "sm_107f", "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f",
        "sm_121", "sm_121a", "sm_121f",
    ];
    for t in others {
        let module = whole_module(t);
        assert_eq!(module.matches("\n\tcvt.pack.sat.").count(), 8, "{t}: the eight cvt.pack kernels");
        if let Some(p) = ptxas() {
            assemble(p, &module, t);
        }
    }
}

/// The target model's first PTX ISA version per target is ptxas 13.5's: a
/// module at that `.version` assembles, one at the version before it does
/// not, and `ptx-cvt ptx` refuses that version too.
#[test]
fn first_ptx_version_of_every_target_is_ptxas_s() {
    let Some(p) = ptxas() else { return eprintln!("SKIPPED: ptxas not available") };
    // (target, first version, the version before it)
    let firsts = [
        ("sm_75", "6.3", "6.2"),
        ("sm_80", "7.0", "6.5"),
        ("sm_86", "7.1", "7.0"),
        ("sm_87", "7.4", "7.3"),
        ("sm_88", "9.0", "8.8"),
        ("sm_89", "7.8", "7.7"),
        ("sm_90a", "8.0", "7.8"),
        ("sm_100", "8.6", "8.5"),
        ("sm_100f", "8.8", "8.7"),
        ("sm_103", "8.8", "8.7"),
        ("sm_107", "9.4", "9.3"),
        ("sm_110", "9.0", "8.8"),
        ("sm_120", "8.7", "8.6"),
        ("sm_120f", "8.8", "8.7"),
        ("sm_121", "8.8", "8.7"),
    ];
    let dir = TempDir::new("versions");
    let src = dir.0.join("m.ptx");
    for (t, first, before) in firsts {
        for (v, ok) in [(first, true), (before, false)] {
            std::fs::write(&src, format!(".version {v}\n.target {t}\n.address_size 64\n.entry k() {{ ret; }}\n"))
                .unwrap();
            let out = Command::new(p).arg(format!("-arch={t}")).arg(&src).arg("-o").arg(dir.0.join("m.o")).output();
            assert_eq!(out.unwrap().status.success(), ok, "ptxas on .target {t} .version {v}");
            let ours = ptx_cvt(&["ptx", "--target", t, "--ptx-version", v, "--filter", "cvt.rn.f32.s32"]);
            assert_eq!(ours.status.success(), ok, "ptx-cvt ptx --target {t} --ptx-version {v}");
        }
    }
}

#[test]
fn known_kernels_and_widths() {
    let module = stdout_of(&["ptx", "--target", "sm_100a"]);
    let rows = table(&module);
    let row = |i: &str| rows.iter().find(|r| r.instruction == i).unwrap_or_else(|| panic!("no kernel for {i}"));
    let want: [(&str, &str, &[u32], u32); 6] = [
        ("cvt.rn.f16.f32", "cvt_rn_f16_f32", &[32], 16),
        ("cvt.rn.bf16.s8", "cvt_rn_bf16_s8", &[8], 16),
        ("cvt.rni.u8.bf16", "cvt_rni_u8_bf16", &[16], 8),
        ("cvt.rn.f16x2.f32", "cvt_rn_f16x2_f32", &[32, 32], 32),
        ("cvt.rn.satfinite.e2m1x2.f32", "cvt_rn_satfinite_e2m1x2_f32", &[32, 32], 8),
        ("cvt.rs.satfinite.e2m1x4.f32", "cvt_rs_satfinite_e2m1x4_f32", &[32, 32, 32, 32, 32], 16),
    ];
    for (i, name, srcs, dst) in want {
        let r = row(i);
        assert_eq!((r.name.as_str(), r.srcs.as_slice(), r.dst), (name, srcs, dst), "{i}");
    }
    assert!(module.contains("\tcvt.rs.satfinite.e2m1x4.f32 %d, {%a, %b, %e, %f}, %rbits;\n"));
    assert!(module.contains("// kernel cvt_rn_f16_f32 cvt.rn.f16.f32 32 -> 16\n"));
}

#[test]
fn filter_out_and_errors() {
    let module = stdout_of(&["ptx", "--target", "sm_90", "--filter", "cvt.*.f16.f32"]);
    let rows = table(&module);
    let got: Vec<&str> = rows.iter().map(|r| r.instruction.as_str()).collect();
    let list = stdout_of(&["list", "--target", "sm_90"]);
    let want: Vec<&str> = list.lines().filter(|l| l.starts_with("cvt.") && l.ends_with(".f16.f32")).collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    // --out FILE writes the same bytes as stdout, and only the file.
    let dir = TempDir::new("out");
    let file = dir.0.join("m.ptx");
    let o = ptx_cvt(&[
        "ptx",
        "--target",
        "sm_90",
        "--filter",
        "cvt.*.f16.f32",
        "--out",
        file.to_str().unwrap(),
        "--registers",
        "natural",
    ]);
    assert!(o.status.success() && o.stdout.is_empty(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), module);
    let names: Vec<String> =
        std::fs::read_dir(&dir.0).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["m.ptx"], "a temporary file was left behind");
    if let Some(p) = ptxas() {
        assemble(p, &module, "sm_90");
    }
    // An older version drops the variants it lacks: no satfinite before PTX 8.1.
    let old = stdout_of(&["ptx", "--target", "sm_90", "--ptx-version", "7.8", "--filter", "cvt.*.f16.f32"]);
    let old_rows = table(&old);
    assert!(
        old.contains("\n.version 7.8\n")
            && old_rows.len() < rows.len()
            && old_rows.iter().all(|r| !r.instruction.contains("satfinite"))
    );
    // Errors: no match, a bad glob, an unknown register mode, a version too old for the target.
    for args in [
        &["ptx", "--target", "sm_90", "--filter", "cvt.nothing"][..],
        &["ptx", "--target", "sm_90", "--filter", "cvt.[rn"],
        &["ptx", "--target", "sm_90", "--registers", "wide"],
        &["ptx", "--target", "sm_100a", "--ptx-version", "8.0"],
        &["ptx", "--ptx-version", "8.0", "--filter", "cvt.rs.*"],
    ] {
        let o = ptx_cvt(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

/// Without --target the module is for the first target that has every
/// variant: sm_75 for the oldest forms, sm_100a for the x4 `.rs` ones.
#[test]
fn default_target_is_the_first_with_the_form() {
    for (filter, target) in [("cvt.rn.f16.f32", "sm_75"), ("cvt.rs.satfinite.e4m3x4.f32", "sm_100a")] {
        let module = stdout_of(&["ptx", "--filter", filter]);
        assert!(module.contains(&format!("\n.target {target}\n")), "{filter}:\n{module}");
        table(&module);
        harness_is_portable(&module);
        if let Some(p) = ptxas() {
            assemble(p, &module, target);
        }
    }
}

/// Without an NVIDIA driver (as on CI), `ptx-cvt gpu` and scripts/gpu-check.sh
/// fail with a clear message and status 2, never a crash.
#[test]
fn gpu_without_a_driver_fails_cleanly() {
    if std::path::Path::new("/dev/nvidia0").exists() {
        eprintln!("SKIPPED: this machine has an NVIDIA device");
        return;
    }
    let out = std::process::Command::new(ptx_cvt_tests::bin())
        .args(["gpu", "--exhaustive", "--filter", "cvt.f32.f16"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no CUDA driver") && !err.contains("panicked"), "{err}");
    let dir = std::env::temp_dir().join(format!("ptx-cvt-gpu-check-{}", std::process::id()));
    let script = ptx_cvt_tests::workspace().join("scripts/gpu-check.sh");
    let out =
        std::process::Command::new("bash").arg(script).arg(&dir).env("PTX_CVT", ptx_cvt_tests::bin()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("no CUDA driver"), "{text}");
}
