//! The cluster recipes of deploy/ run here the way the schedulers run them:
//! N `deploy/shard.sh` processes at once with a Slurm array's or a
//! Kubernetes Indexed Job's variables, then `deploy/combine.sh`; the joined
//! result must equal one run (the atlas folder byte for byte, the sweep's
//! digest and counts). Needs bash; without it the test says so and passes.

use std::path::{Path, PathBuf};
use std::process::Command;

use ptx_cvt_tests::{bin, workspace};

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ptx-cvt-deploy-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn bash() -> bool {
    let ok = Command::new("bash").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        println!("SKIPPED: no bash to run deploy/*.sh");
    }
    ok
}

/// Run the N shards at once, each with the scheduler's variables for its index.
fn shards(n: usize, vars: impl Fn(usize) -> Vec<(&'static str, String)>, out: &Path, args: &[&str]) {
    let children: Vec<_> = (0..n)
        .map(|k| {
            Command::new("bash")
                .arg(workspace().join("deploy/shard.sh"))
                .args(args)
                .envs(vars(k))
                .env("OUT", out)
                .env("PTX_CVT", bin())
                .env("MAX_BITS", "16")
                .env("JOBS", "1")
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a shard failed");
    }
}

fn combine(out: &Path, args: &[&str]) -> String {
    let o = Command::new("bash")
        .arg(workspace().join("deploy/combine.sh"))
        .args(args)
        .env("OUT", out)
        .env("PTX_CVT", bin())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    v.sort();
    v
}

/// `value` of `name:` in the manifest, e.g. `completions: 64`.
fn yaml_value(text: &str, name: &str) -> String {
    let after = text.split(&format!("{name}:")).nth(1).unwrap_or_else(|| panic!("no `{name}:`"));
    after.lines().next().unwrap().trim().trim_matches('"').to_string()
}

#[test]
fn atlas_shards_from_slurm_and_kubernetes_join_into_one_run() {
    if !bash() {
        return;
    }
    let d = scratch("atlas");
    let single = d.join("single");
    let o = Command::new(bin()).args(["atlas", "gen", "--max-bits", "16", "--out"]).arg(&single).output().unwrap();
    assert!(o.status.success());
    // Slurm: --array=0-4 gives SLURM_ARRAY_TASK_ID 0..4 and SLURM_ARRAY_TASK_COUNT 5.
    let out = d.join("slurm");
    shards(
        5,
        |k| vec![("SLURM_ARRAY_TASK_ID", k.to_string()), ("SLURM_ARRAY_TASK_COUNT", "5".into())],
        &out,
        &["atlas"],
    );
    let dir = d.join("slurm-atlas");
    combine(&out, &["atlas", dir.to_str().unwrap()]);
    assert!(files(&dir) == files(&single), "Slurm shards joined differ from one run");
    // Kubernetes: the manifest's SHARDS must be its completions; indices 0..N-1.
    let job = std::fs::read_to_string(workspace().join("deploy/kubernetes/atlas-job.yaml")).unwrap();
    let lines: Vec<&str> = job.lines().map(str::trim).collect();
    let shards_at = lines.iter().position(|l| *l == "- name: SHARDS").expect("SHARDS in the manifest");
    let shard_count = lines[shards_at + 1].trim_start_matches("value:").trim().trim_matches('"');
    assert_eq!(yaml_value(&job, "completions"), shard_count, "SHARDS must equal completions");
    assert!(
        job.contains("completionMode: Indexed")
            && job.contains(r#"command: ["/opt/ptx-cvt/deploy/shard.sh", "atlas"]"#)
    );
    let out = d.join("k8s");
    shards(4, |k| vec![("JOB_COMPLETION_INDEX", k.to_string()), ("SHARDS", "4".into())], &out, &["atlas"]);
    let dir = d.join("k8s-atlas");
    combine(&out, &["atlas", dir.to_str().unwrap()]);
    assert!(files(&dir) == files(&single), "Kubernetes shards joined differ from one run");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn sweep_shards_combine_into_one_run() {
    if !bash() {
        return;
    }
    let d = scratch("sweep");
    let one = Command::new(bin()).args(["sweep", "cvt.rn.f16.bf16", "--json"]).output().unwrap();
    let one: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    let out = d.join("parts");
    shards(
        3,
        |k| vec![("SLURM_ARRAY_TASK_ID", k.to_string()), ("SLURM_ARRAY_TASK_COUNT", "3".into())],
        &out,
        &["sweep", "cvt.rn.f16.bf16"],
    );
    let text = combine(&out, &["sweep"]);
    assert!(text.contains(&format!("digest {}\n", one["summary"]["digest"].as_str().unwrap())), "{text}");
    assert!(text.contains("65536 inputs evaluated, 0 mismatches"), "{text}");
    assert!(text.contains("inputs 0x0000..0x10000 (end excluded), 3 shard(s) combined"), "{text}");
    // A missing shard is refused.
    std::fs::remove_file(out.join("sweep-1.json")).unwrap();
    let o = Command::new(bin())
        .arg("combine")
        .arg(out.join("sweep-0.json"))
        .arg(out.join("sweep-2.json"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("every shard 0..3 exactly once"));
    let _ = std::fs::remove_dir_all(d);
}
