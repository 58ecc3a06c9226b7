//! Reading `nvdisasm -c -hex` output: one [`Instr`] per SASS instruction,
//! with its text split into guard, opcode and operands, and the first 64-bit
//! word of its encoding (where sm_75+ keep a 32-bit immediate, bits 32..63).

/// One SASS instruction as nvdisasm prints it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    /// Byte address (`/*0080*/`).
    pub addr: u64,
    /// The guard predicate, e.g. `P0` or `!P0`; `None` when unguarded.
    pub guard: Option<String>,
    /// The opcode with its modifiers, e.g. `STG.E.64`.
    pub opcode: String,
    /// Operands as printed, e.g. `desc[UR4][R2.64+0x8]`, `R4`.
    pub operands: Vec<String>,
    /// The first 64-bit word of the encoding (`/* 0x… */` on the same line).
    pub word0: u64,
}

impl Instr {
    /// The opcode without modifiers: `STG` for `STG.E.64`.
    pub fn base(&self) -> &str {
        self.opcode.split('.').next().unwrap_or("")
    }

    /// The modifiers after the base opcode: `["E", "64"]` for `STG.E.64`.
    pub fn modifiers(&self) -> impl Iterator<Item = &str> {
        self.opcode.split('.').skip(1)
    }

    /// The 32-bit immediate field of the encoding (sm_75 and newer).
    pub fn imm32(&self) -> u32 {
        (self.word0 >> 32) as u32
    }

    /// The instruction as nvdisasm wrote it (without the encoding).
    pub fn text(&self) -> String {
        let guard = self.guard.as_ref().map(|g| format!("@{g} ")).unwrap_or_default();
        if self.operands.is_empty() {
            format!("{guard}{}", self.opcode)
        } else {
            format!("{guard}{} {}", self.opcode, self.operands.join(", "))
        }
    }
}

/// One function (`.text.<name>` section) of the disassembly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub instrs: Vec<Instr>,
}

/// The functions of an `nvdisasm -c -hex` listing, in order. Lines that are
/// not instructions (directives, labels, the second encoding word) are
/// skipped; an instruction line without its encoding is an error.
pub fn parse(listing: &str) -> Result<Vec<Function>, String> {
    let mut out: Vec<Function> = Vec::new();
    for (n, line) in listing.lines().enumerate() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix(".section") {
            let name = rest.trim().split(',').next().unwrap_or("").trim();
            if let Some(f) = name.strip_prefix(".text.") {
                out.push(Function { name: f.to_string(), instrs: Vec::new() });
            }
            continue;
        }
        let Some(i) = instr_line(t).map_err(|e| format!("nvdisasm output line {}: {e}: {t}", n + 1))? else {
            continue;
        };
        match out.last_mut() {
            Some(f) => f.instrs.push(i),
            None => return Err(format!("nvdisasm output line {}: an instruction outside a .text section", n + 1)),
        }
    }
    Ok(out)
}

/// `/*0080*/  STG.E.64 desc[UR4][R2.64+0x8], R4 ;  /* 0x0000080402007986 */`,
/// or `None` for any line that does not start with an address comment.
fn instr_line(t: &str) -> Result<Option<Instr>, String> {
    let Some(rest) = t.strip_prefix("/*") else { return Ok(None) };
    let Some((addr, rest)) = rest.split_once("*/") else { return Ok(None) };
    let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else { return Ok(None) };
    let (body, enc) = rest.rsplit_once("/*").ok_or("no encoding comment (run nvdisasm with -hex)")?;
    let enc = enc.trim().trim_end_matches("*/").trim();
    let word0 = enc
        .strip_prefix("0x")
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| format!("unreadable encoding {enc:?}"))?;
    let body = body.trim().trim_end_matches(';').trim();
    let (guard, body) = match body.strip_prefix('@') {
        Some(g) => {
            let (g, b) = g.split_once(char::is_whitespace).ok_or("a guard without an instruction")?;
            (Some(g.to_string()), b.trim())
        }
        None => (None, body),
    };
    let (opcode, ops) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    if opcode.is_empty() {
        return Err("no opcode".into());
    }
    Ok(Some(Instr { addr, guard, opcode: opcode.to_string(), operands: split_operands(ops), word0 }))
}

/// Split at top-level commas (not inside `[]`, `{}` or `()`).
fn split_operands(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for ch in s.chars() {
        match ch {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}
