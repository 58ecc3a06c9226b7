//! `ptx-cvt lowering`: the committed lowering atlas
//! (evidence/ptxas-13.5/lowering.tsv, made by scripts/ptxas-lowering.py):
//! for a target, the SASS ptxas 13.5 emits for each legal spelling with
//! register operands, as one conversion instruction or a sequence.

use clap::{Args, ValueEnum};
use ptx_cvt::Target;
use serde_json::json;

use crate::options::VariantFilter;

/// The committed table in the source tree this program was built from (read
/// at run time: it lies outside the package, and it is 3 MB).
const COMMITTED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../evidence/ptxas-13.5/lowering.tsv");

const HELP: &str = "\
Each row: the spelling, its register widths (sources -> destination), the
class and the SASS. `one`: one SASS conversion instruction (F2F, F2I, I2F,
F2FP, HADD2.F32, ...), which says nothing beyond the PTX text. `sequence`:
several instructions, or one that is no conversion (a shift, a PRMT); then
the sequence decides the hardware's bits. `none`: no instruction (a move).
Kernels load each source from memory, so nothing is folded; NOPs, loads,
stores, parameter reads and EXIT are left out.

The table was made with ptxas and nvdisasm 13.5.37 (-O3 -arch=<target>,
nvdisasm -c) by `python3 scripts/ptxas-lowering.py --target all`; the
evidence/ptxas-13.5/README.md says what it settles.

Examples:
  ptx-cvt lowering --target sm_90 --kind sequence
  ptx-cvt lowering --target sm_100a --filter 'cvt.rna*.tf32.f32'
  ptx-cvt lowering --target sm_90 --json | jq '.rows[0]'";

#[derive(Args)]
#[command(after_long_help = HELP)]
pub struct LoweringArgs {
    /// Target whose rows to print (sm_75 … sm_121f: every target ptxas 13.5 knows).
    #[arg(long, default_value = "sm_90", value_parser = crate::parse_target)]
    target: Target,
    #[arg(long = "filter", value_name = "GLOB", help = crate::options::FILTER_HELP)]
    filters: Vec<String>,
    /// Only rows of this kind of lowering (`--class`, the old spelling, is
    /// kept; on check and fuzz `--class N` is a bug class).
    #[arg(long, value_enum, alias = "class")]
    kind: Option<Class>,
    /// Print one JSON object: the table's header lines and the rows.
    #[arg(long)]
    json: bool,
    /// The table to read (default: evidence/ptxas-13.5/lowering.tsv of the
    /// source tree ptx-cvt was built from, else of the current directory).
    /// (`--table FILE`, the old spelling, is kept: on check `--table` adds a table.)
    #[arg(long, value_name = "FILE", alias = "table")]
    from: Option<std::path::PathBuf>,
}

/// The table's text: --from, else the committed one.
fn table_text(given: Option<&std::path::Path>) -> Result<String, String> {
    let path = match given {
        Some(p) => p.to_path_buf(),
        None => [std::path::PathBuf::from(COMMITTED), "evidence/ptxas-13.5/lowering.tsv".into()]
            .into_iter()
            .find(|p| p.is_file())
            .ok_or("no lowering table here: give --from evidence/ptxas-13.5/lowering.tsv (in a ptx-cvt checkout)")?,
    };
    std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Class {
    One,
    Sequence,
    None,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::One => "one",
            Class::Sequence => "sequence",
            Class::None => "none",
        }
    }
}

/// One row of the table.
#[derive(Debug, PartialEq, Eq)]
pub struct Row<'a> {
    pub target: &'a str,
    pub instruction: &'a str,
    pub registers: &'a str,
    pub class: &'a str,
    /// The SASS instructions, in order.
    pub sass: Vec<&'a str>,
}

/// The rows of `text` (the committed table's format); an error names the bad line.
pub fn rows(text: &str) -> Result<Vec<Row<'_>>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let [target, instruction, registers, class, sass] = f[..] else {
            return Err(format!("lowering table line {}: {} fields, not 5", n + 1, f.len()));
        };
        let sass = if sass.is_empty() { Vec::new() } else { sass.split(" ; ").collect() };
        out.push(Row { target, instruction, registers, class, sass });
    }
    Ok(out)
}

pub fn run(a: LoweringArgs) -> u8 {
    match lowering(&a) {
        Ok(()) => 0,
        Err(e) => {
            fail!("{e}");
            2
        }
    }
}

fn lowering(a: &LoweringArgs) -> Result<(), String> {
    let filter = VariantFilter::new(&a.filters)?;
    let text = table_text(a.from.as_deref())?;
    let all = rows(&text)?;
    let target = a.target.to_string();
    if !all.iter().any(|r| r.target == target) {
        let mut have: Vec<&str> = all.iter().map(|r| r.target).collect();
        have.dedup();
        return Err(format!("the lowering table has no rows for {target}; it has {}", have.join(" ")));
    }
    let chosen: Vec<&Row> = all
        .iter()
        .filter(|r| r.target == target && filter.matches_name(r.instruction))
        .filter(|r| a.kind.is_none_or(|c| c.name() == r.class))
        .collect();
    let header: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
    if a.json {
        let rows: Vec<_> = chosen
            .iter()
            .map(|r| json!({"instruction": r.instruction, "registers": r.registers, "class": r.class, "sass": r.sass}))
            .collect();
        say!("{}", json!({"target": target, "header": header, "rows": rows}));
        return Ok(());
    }
    for h in header.iter().filter(|h| h.starts_with("# tools") || h.starts_with("# command")) {
        say!("{h}");
    }
    let width = chosen.iter().map(|r| r.instruction.len()).max().unwrap_or(0);
    for r in &chosen {
        say!("{:width$}  {:12}  {:8}  {}", r.instruction, r.registers, r.class, r.sass.join(" ; "));
    }
    let count = |c: &str| chosen.iter().filter(|r| r.class == c).count();
    say!(
        "# {target}: {} spelling(s): {} one conversion instruction, {} sequence, {} none",
        chosen.len(),
        count("one"),
        count("sequence"),
        count("none")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_table_reads_and_knows_the_tf32_sequence() {
        let text = table_text(None).unwrap();
        let all = rows(&text).unwrap();
        // ptxas 13.5.37 -O3 -arch=sm_90: FSETP.GEU |x|, +INF; @!P0 add 0x1000; LOP3 & 0xffffe000.
        let r = all.iter().find(|r| r.target == "sm_90" && r.instruction == "cvt.rna.tf32.f32").unwrap();
        assert_eq!(r.class, "sequence");
        assert!(r.sass.iter().any(|i| i.starts_with("LOP3.LUT") && i.contains("0xffffe000")), "{r:?}");
        let r = all.iter().find(|r| r.target == "sm_90" && r.instruction == "cvt.rn.f16.f32").unwrap();
        assert_eq!((r.class, r.sass.len()), ("one", 1));
        assert!(rows("sm_90\tcvt.rn.f16.f32\n").is_err());
    }
}
