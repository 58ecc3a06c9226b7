//! The digest atlas (vectors/atlas, vectors/README.md "Digest atlas")
//! against the exact engine, and `ptx-cvt atlas` end to end.
//!
//! - Every variant with sources of at most 16 bits is in the committed atlas
//!   (a new form that lands without a regenerated atlas fails here), and
//!   each file's digest, `open-nan` and `mask` equal what the exact engine
//!   (`eval::Evaluator`, sm90) gives on every input, with the representative
//!   written here from the README's definition.
//! - 32-bit sources: random blocks (seed printed; `PTX_CVT_ATLAS_SEED`
//!   repeats one) recomputed by the exact engine, against the committed file
//!   where there is one and against the fast engine's digest (the one
//!   `atlas gen` writes).
//! - The command: `gen` writes the committed bytes; N shards merged equal
//!   one run; `check` passes the fast engine, finds a planted bug in a
//!   process (toy_interp.py) and narrows it to its inputs, counts declined
//!   variants, reads block-digest files, refuses an altered atlas.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ptx_cvt::accept::{width_mask, Alt, LaneSet};
use ptx_cvt::eval::Evaluator;
use ptx_cvt::format::Format;
use ptx_cvt::{AcceptSet, Cvt, Profile};
use ptx_cvt_harness::atlas::{self, Entry, Space};
use ptx_cvt_tests::{bin, workspace};

fn splitmix64(z: u64) -> u64 {
    let mut z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The canonical NaN of the README: sign clear, every exponent and fraction
/// bit set, at the format's place in its container.
fn canonical_nan(f: Format) -> u64 {
    let l = f.float_layout().expect("NaN of a float format");
    (width_mask(l.width()) & !l.sign_bit()) << l.shift
}

/// What one input's result says about the variant's digest: the
/// representative, whether it has an any-NaN part, the bits that count.
fn representative(c: &Cvt, set: &AcceptSet) -> (u64, bool, u64) {
    let full = width_mask(c.dtype.bits());
    match set.alts.as_slice() {
        [Alt::Bits { value, mask }] => (value & mask, false, *mask),
        [Alt::AnyNan(f)] => (canonical_nan(*f), true, full),
        [Alt::Lanes { bits, lanes }] => lanes.iter().fold((0, false, full), |(v, nan, m), l| match l {
            LaneSet::Bits { value, mask } => ((v << bits) | (value & mask), nan, m),
            LaneSet::AnyNan(f) => ((v << bits) | (canonical_nan(*f) & width_mask(*bits)), true, m),
        }),
        other => panic!("{c}: no representative for {other:?}"),
    }
}

/// The digest of `[start, end)` by the exact engine, with the open results seen.
fn exact_digest(c: &Cvt, start: u64, end: u64) -> (u64, bool, u64) {
    let s = Space::of(c);
    let ev = Evaluator::new(c, s.widths[0], c.dtype.bits(), Profile::Sm90).expect("legal at natural widths");
    (start..end).fold((0u64, false, width_mask(c.dtype.bits())), |(d, nan, mask), x| {
        let set = ev.accept(&s.operands(x)).unwrap_or_else(|e| panic!("{c} input {x:x}: {e}"));
        let (r, n, m) = representative(c, &set);
        (d.wrapping_add(splitmix64(x.wrapping_mul(0xd6e8_feb8_6659_fd93) ^ r)), nan | n, mask & m)
    })
}

fn atlas_dir() -> PathBuf {
    workspace().join("vectors/atlas")
}

/// Run `work(i)` for i in 0..n on every core; collect the failures.
fn parallel(n: usize, work: impl Fn(usize) -> Option<String> + Sync) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let fails = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                if let Some(f) = work(i) {
                    fails.lock().unwrap().push(f);
                }
            });
        }
    });
    fails.into_inner().unwrap()
}

#[test]
fn small_sources_equal_the_exact_engine() {
    let entries = atlas::read_dir(&atlas_dir()).expect("the committed atlas reads, checksums match");
    let small: Vec<&Entry> = entries.iter().filter(|e| Space::of(&e.c).bits <= 16).collect();
    let names = |v: Vec<Cvt>| {
        let mut n: Vec<String> = v.iter().map(|c| c.to_string()).collect();
        n.sort();
        n
    };
    assert_eq!(
        names(small.iter().map(|e| e.c).collect()),
        names(atlas::variants(16)),
        "the atlas's ≤16-bit variants are not the library's: regenerate with `ptx-cvt atlas gen --max-bits 16 --out vectors/atlas`"
    );
    assert_eq!(small.len(), 369, "variants with sources of at most 16 bits today");
    let started = std::time::Instant::now();
    let fails = parallel(small.len(), |i| {
        let e = small[i];
        let (d, nan, mask) = exact_digest(&e.c, 0, Space::of(&e.c).size());
        let want = (e.blocks[0], e.open.nan, e.open.mask);
        (want != (d, nan, mask)).then(|| format!("{}: atlas {want:x?}, exact engine {:x?}", e.c, (d, nan, mask)))
    });
    println!("{} variants recomputed by the exact engine in {:.1} s", small.len(), started.elapsed().as_secs_f64());
    assert!(fails.is_empty(), "{} differ:\n{}", fails.len(), fails.join("\n"));
}

#[test]
fn sampled_32_bit_blocks_equal_the_exact_engine() {
    let seed = std::env::var("PTX_CVT_ATLAS_SEED").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
    });
    println!("seed {seed} (PTX_CVT_ATLAS_SEED={seed} repeats this sample)");
    let committed: Vec<Entry> =
        atlas::read_dir(&atlas_dir()).unwrap().into_iter().filter(|e| Space::of(&e.c).bits == 32).collect();
    let all = atlas::variants(32).into_iter().filter(|c| Space::of(c).bits == 32).collect::<Vec<_>>();
    assert!(all.len() >= 341, "32-bit-source variants: {}", all.len());
    // One whole block of a committed variant (if any) and one of any variant.
    let mut rng = seed;
    let mut pick = |n: u64| {
        splitmix64({
            rng = rng.wrapping_add(1);
            rng
        }) % n
    };
    let mut samples: Vec<(Cvt, u64)> = Vec::new();
    if !committed.is_empty() {
        samples.push((committed[pick(committed.len() as u64) as usize].c, pick(256)));
    }
    samples.push((all[pick(all.len() as u64) as usize], pick(256)));
    for (c, b) in samples {
        let (lo, hi) = Space::of(&c).block(b);
        let started = std::time::Instant::now();
        // The block in 8 slices on every core, summed.
        let parts = Mutex::new(Vec::new());
        let step = (hi - lo) / 8;
        parallel(8, |i| {
            let r = exact_digest(&c, lo + i as u64 * step, lo + (i as u64 + 1) * step);
            parts.lock().unwrap().push(r);
            None
        });
        let exact = parts.into_inner().unwrap().iter().fold(0u64, |d, p| d.wrapping_add(p.0));
        println!("{c} block {b}: exact engine in {:.1} s", started.elapsed().as_secs_f64());
        assert_eq!(exact, atlas::fast_digest(&c, lo, hi), "{c} block {b}: exact and fast engines differ (seed {seed})");
        if let Some(e) = committed.iter().find(|e| e.c == c) {
            assert_eq!(exact, e.blocks[b as usize], "{c} block {b}: the committed atlas differs (seed {seed})");
        }
    }
}

fn run(args: &[&str]) -> Output {
    let o = Command::new(bin()).args(args).current_dir(workspace()).output().expect("run ptx-cvt");
    assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"), "{args:?} panicked");
    o
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn expect(o: &Output, code: i32) -> String {
    assert_eq!(o.status.code(), Some(code), "{}", text(o));
    text(o)
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptx-cvt-atlas-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every file of a folder, sorted, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn gen_writes_the_committed_files_and_shards_merge_to_one_run() {
    let d = scratch("gen");
    let single = d.join("single");
    expect(&run(&["atlas", "gen", "--max-bits", "16", "--out", single.to_str().unwrap()]), 0);
    // Every file it writes is committed byte for byte; the MANIFEST too
    // when the committed atlas holds nothing more.
    let committed = files(&atlas_dir());
    let mine = files(&single);
    assert_eq!(mine.len(), 370, "369 variants and the MANIFEST");
    for (n, bytes) in &mine {
        let theirs = committed.iter().find(|(c, _)| c == n).map(|x| &x.1);
        if n != "MANIFEST" || committed.len() == mine.len() {
            assert!(theirs == Some(bytes), "atlas gen --max-bits 16 writes another {n} than vectors/atlas");
        }
    }
    // Three shards as an array job runs them (in parallel, separate processes), then merged.
    let parts: Vec<PathBuf> = (0..3).map(|k| d.join(format!("part-{k}"))).collect();
    let children: Vec<_> = parts
        .iter()
        .enumerate()
        .map(|(k, p)| {
            Command::new(bin())
                .args(["atlas", "gen", "--max-bits", "16", "--shard", &format!("{k}/3"), "--out"])
                .arg(p)
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let merged = d.join("merged");
    let mut args = vec!["atlas", "merge", "--out", merged.to_str().unwrap()];
    args.extend(parts.iter().map(|p| p.to_str().unwrap()));
    expect(&run(&args), 0);
    assert!(files(&merged) == files(&single), "merged shards differ from one run");
    // A missing part, or one given twice, is an error that names it.
    let out = expect(&run(&["atlas", "merge", "--out", d.join("x").to_str().unwrap(), parts[0].to_str().unwrap()]), 2);
    assert!(out.contains("a part is missing"), "{out}");
    let p0 = parts[0].to_str().unwrap();
    let out = expect(&run(&["atlas", "merge", "--out", d.join("x").to_str().unwrap(), p0, p0]), 2);
    assert!(out.contains("also in an earlier line or part"), "{out}");
    assert!(!d.join("x").exists(), "nothing written on an error");
    let _ = std::fs::remove_dir_all(d);
}

fn toy_interp(fixed: bool) -> String {
    let path = workspace().join("examples/toy-interp/toy_interp.py");
    format!("python3 '{}'{}", path.display(), if fixed { " --fixed" } else { "" })
}

#[test]
fn check_finds_a_planted_bug_by_digest_and_narrows_it() {
    let dir = atlas_dir();
    let dir = dir.to_str().unwrap();
    // The fast engine against every committed block.
    let out = expect(&run(&["atlas", "check", dir, "--max-bits", "16"]), 0);
    assert!(out.contains("369 variant(s), 369 block(s) compared, 0 differ"), "{out}");
    if Command::new("python3").arg("--version").output().is_err() {
        println!("SKIPPED the process part: no python3");
        return;
    }
    // toy_interp zero-extends the byte of cvt.s16.s8 (inputs 80..ff are wrong).
    let filter = "cvt.{s16.s8,s32.s8,f32.f16}";
    let bad = toy_interp(false);
    let out = expect(&run(&["atlas", "check", dir, "--filter", filter, "--target-cmd", &bad, "--show", "2"]), 1);
    assert!(out.contains("DIFFERS cvt.s16.s8 block 0: inputs 00..100"), "{out}");
    assert!(out.contains("MISMATCH cvt.s16.s8 80"), "{out}");
    assert!(out.contains("128 wrong input(s) in block 0 of cvt.s16.s8 (2 shown)"), "{out}");
    assert!(out.contains("DIFFERS cvt.s32.s8"), "{out}");
    assert!(out.contains("declined cvt.f32.f16"), "{out}");
    assert!(
        out.contains("3 variant(s), 2 block(s) compared, 2 differ, 1 variant(s) declined; 256 wrong input(s)"),
        "{out}"
    );
    let out = expect(&run(&["atlas", "check", dir, "--filter", filter, "--target-cmd", &toy_interp(true)]), 0);
    assert!(out.contains("2 block(s) compared, 0 differ"), "{out}");
    let out =
        run(&["atlas", "check", dir, "--filter", filter, "--target-cmd", &toy_interp(true), "--fail-on-unsupported"]);
    expect(&out, 1);
}

#[test]
fn digest_files_from_elsewhere() {
    let d = scratch("digests");
    let e = atlas::read_dir(&atlas_dir()).unwrap().into_iter().find(|e| e.c.to_string() == "cvt.rn.f16.bf16").unwrap();
    let dir = atlas_dir();
    let dir = dir.to_str().unwrap();
    let good = d.join("good.txt");
    std::fs::write(&good, format!("# instruction: cvt.rn.f16.bf16\n0 {:016x}\n", e.blocks[0])).unwrap();
    expect(&run(&["atlas", "check", dir, "--digests", good.to_str().unwrap()]), 0);
    let bad = d.join("bad.txt");
    std::fs::write(&bad, format!("0 {:016x}  # mine\n", e.blocks[0] ^ 1)).unwrap();
    let out =
        expect(&run(&["atlas", "check", dir, "--filter", "cvt.rn.f16.bf16", "--digests", bad.to_str().unwrap()]), 1);
    assert!(out.contains("DIFFERS cvt.rn.f16.bf16 block 0: inputs 0000..10000"), "{out}");
    assert!(out.contains("ptx-cvt atlas check"), "{out}");
    assert!(out.contains("--block 0 --target-lib"), "{out}");
    assert!(out.contains("ptx-cvt sweep cvt.rn.f16.bf16 --range 0x0..0x10000 --against RESULTS.cases"), "{out}");
    // No variant named, a malformed line, a block out of range: errors naming the line.
    let out = expect(&run(&["atlas", "check", dir, "--digests", bad.to_str().unwrap()]), 2);
    assert!(out.contains("which variant?"), "{out}");
    std::fs::write(&bad, "# instruction: cvt.rn.f16.bf16\n0 zz\n").unwrap();
    let out = expect(&run(&["atlas", "check", dir, "--digests", bad.to_str().unwrap()]), 2);
    assert!(out.contains("bad.txt:2: `zz` is not a hex digest"), "{out}");
    std::fs::write(&bad, "# instruction: cvt.rn.f16.bf16\n1 0000000000000000\n").unwrap();
    let out = expect(&run(&["atlas", "check", dir, "--digests", bad.to_str().unwrap()]), 2);
    assert!(out.contains("bad.txt:2: cvt.rn.f16.bf16 has blocks 0..1, not 1"), "{out}");
    // An altered atlas file is refused by its checksum.
    let copy = d.join("atlas");
    std::fs::create_dir_all(&copy).unwrap();
    for (n, bytes) in files(&atlas_dir()) {
        std::fs::write(copy.join(&n), bytes).unwrap();
    }
    let f = copy.join("cvt.rn.f16.bf16.digests");
    let t = std::fs::read_to_string(&f).unwrap().replace(&format!("0 {:016x}", e.blocks[0]), "0 0000000000000000");
    std::fs::write(&f, t).unwrap();
    let out = expect(&run(&["atlas", "check", copy.to_str().unwrap(), "--filter", "cvt.rn.f16.bf16"]), 2);
    assert!(out.contains("cvt.rn.f16.bf16.digests has sha256"), "{out}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn several_operands_concatenate_first_operand_high() {
    // No legal form with several sources fits 32 bits yet; the input number
    // and the lane path are the same for wider ones: ranges of f16x2 from two f32.
    let c = ptx_cvt::instr::parse("cvt.rn.f16x2.f32").unwrap();
    let s = Space::of(&c);
    assert_eq!(s.widths, [32, 32]);
    let ops = s.operands(0x3f80_0000_4000_0000);
    assert_eq!((ops[0].bits, ops[1].bits), (0x3f80_0000, 0x4000_0000), "a is the high half");
    assert_eq!(s.input(&ops), 0x3f80_0000_4000_0000);
    for start in [0x3f80_0000_3f7f_f000u64, 0x7f80_0000_7f7f_f800, 0xffff_ffff_0000_0000] {
        let end = start + 4096;
        assert_eq!(atlas::fast_digest(&c, start, end), exact_digest(&c, start, end).0, "{c} from {start:x}");
    }
}
