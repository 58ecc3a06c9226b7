//! `ptx-cvt combine`: the `sweep --json` outputs of the N shards of one
//! sweep (`--shard K/N`, e.g. a Slurm array or an indexed Job) joined into
//! the result one run over the whole range gives: the digests add up
//! (mod 2^64), the counts add, the mismatches follow in input order.

use clap::Args;
use serde_json::{json, Value};

#[derive(Args)]
pub struct CombineArgs {
    /// `ptx-cvt sweep --json --shard K/N` outputs, one per shard (any order).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<String>,
    /// JSON Lines: the shards' mismatch objects in input order, then `{"summary": ...}`.
    #[arg(long)]
    json: bool,
}

/// One shard's output: its summary and mismatch lines.
struct Shard {
    name: String,
    summary: Value,
    mismatches: Vec<Value>,
}

fn read(f: &str) -> Result<Shard, String> {
    let text = std::fs::read_to_string(f).map_err(|e| format!("cannot read {f}: {e}"))?;
    let (mut summary, mut mismatches) = (None, Vec::new());
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("{f}:{}: not JSON ({e})", i + 1))?;
        match (v.get("summary"), v.get("mismatch")) {
            (Some(s), _) => summary = Some(s.clone()),
            (_, Some(m)) => mismatches.push(m.clone()),
            _ => return Err(format!("{f}:{}: neither a mismatch nor a summary: not `sweep --json` output", i + 1)),
        }
    }
    let summary = summary.ok_or_else(|| format!("{f}: no summary line (did the shard finish?)"))?;
    Ok(Shard { name: f.to_string(), summary, mismatches })
}

fn field<'a>(s: &'a Shard, k: &str) -> Result<&'a Value, String> {
    s.summary.get(k).ok_or_else(|| format!("{}: the summary has no `{k}`", s.name))
}

fn num(s: &Shard, k: &str) -> Result<u64, String> {
    field(s, k)?.as_u64().ok_or_else(|| format!("{}: `{k}` is not a count", s.name))
}

fn hex(s: &Shard, k: &str) -> Result<u128, String> {
    let v = field(s, k)?.as_str().unwrap_or("");
    u128::from_str_radix(v.trim_start_matches("0x"), 16).map_err(|_| format!("{}: `{k}` is not hex: `{v}`", s.name))
}

pub fn run(a: CombineArgs) -> u8 {
    match combine(&a) {
        Ok(code) => code,
        Err(e) => {
            fail!("{e}");
            2
        }
    }
}

fn combine(a: &CombineArgs) -> Result<u8, String> {
    let mut shards = a.files.iter().map(|f| read(f)).collect::<Result<Vec<_>, _>>()?;
    let shard_of = |s: &Shard| -> Result<(u64, u64), String> {
        match field(s, "shard")?.as_array().map(|v| v.iter().map(Value::as_u64).collect::<Vec<_>>()) {
            Some(v) if v.len() == 2 && v.iter().all(Option::is_some) => Ok((v[0].unwrap(), v[1].unwrap())),
            _ => Err(format!("{}: `shard` is not [K, N]", s.name)),
        }
    };
    let mut keyed = Vec::new();
    for s in shards.drain(..) {
        keyed.push((shard_of(&s)?, s));
    }
    keyed.sort_by_key(|(k, _)| *k);
    let instr = field(&keyed[0].1, "instruction")?.clone();
    let n = keyed[0].0 .1;
    let ks: Vec<u64> = keyed.iter().map(|((k, _), _)| *k).collect();
    if keyed.iter().any(|((_, m), _)| *m != n) || ks != (0..n).collect::<Vec<_>>() {
        return Err(format!("shards given: {ks:?} of N = {n}: every shard 0..{n} exactly once is needed"));
    }
    let (mut digest, mut inputs, mut mism, mut errors) = (0u64, 0u64, 0u64, 0u64);
    let mut prev_end: Option<u128> = None;
    for (_, s) in &keyed {
        if *field(s, "instruction")? != instr {
            return Err(format!("{}: a sweep of {}, not of {instr}", s.name, field(s, "instruction")?));
        }
        if field(s, "complete")?.as_bool() != Some(true) {
            return Err(format!("{}: the shard did not complete (stopped early or failed): run it again", s.name));
        }
        let (start, end) = (hex(s, "start")?, hex(s, "end")?);
        if prev_end.is_some_and(|p| p != start) {
            return Err(format!(
                "{}: starts at 0x{start:x}, the previous shard ended at 0x{:x}",
                s.name,
                prev_end.unwrap()
            ));
        }
        prev_end = Some(end);
        let d = field(s, "digest")?.as_str().and_then(|d| u64::from_str_radix(d, 16).ok());
        digest = digest.wrapping_add(d.ok_or_else(|| format!("{}: no digest", s.name))?);
        inputs += num(s, "inputs")?;
        mism += num(s, "mismatches")?;
        errors += num(s, "errors")?;
    }
    let (first, last) = (&keyed[0].1, &keyed[keyed.len() - 1].1);
    let (start, end) = (field(first, "start")?.clone(), field(last, "end")?.clone());
    let instr_text = instr.as_str().unwrap_or("?").to_string();
    if a.json {
        for (_, s) in &keyed {
            for m in &s.mismatches {
                say!("{}", json!({ "mismatch": m }));
            }
        }
        say!(
            "{}",
            json!({"summary": {"instruction": instr, "start": start, "end": end, "shards": n, "inputs": inputs,
                               "complete": true, "digest": format!("{digest:016x}"), "mismatches": mism,
                               "errors": errors}})
        );
    } else {
        let range = format!("{}..{}", start.as_str().unwrap_or("?"), end.as_str().unwrap_or("?"));
        say!("sweep {instr_text}: inputs {range} (end excluded), {n} shard(s) combined");
        say!("digest {digest:016x}");
        say!("{inputs} inputs evaluated, {mism} mismatches");
        let shown: usize = keyed.iter().map(|(_, s)| s.mismatches.len()).sum();
        if shown > 0 {
            say!("{shown} mismatch(es) recorded in the shards' JSON (combine --json lists them in input order)");
        }
    }
    Ok(if errors > 0 {
        2
    } else if mism > 0 {
        1
    } else {
        0
    })
}
