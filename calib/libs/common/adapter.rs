//! Shared plumbing of the Rust calibration adapters: the cvt_impl C ABI
//! (capi/include/ptx_cvt_impl.h), the decline reason, instruction parsing and
//! the ground-truth log (`KEY<TAB>DEFECT` lines, KEY as ptx-cvt prints a case).

#![allow(dead_code)]

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::io::Write;
use std::sync::Mutex;

/// A parsed canonical spelling: rounding, other modifiers, dst and src types.
pub struct Form<'a> {
    pub rnd: Option<&'a str>,
    pub mods: Vec<&'a str>,
    pub d: &'a str,
    pub a: &'a str,
}

impl Form<'_> {
    /// The instruction spelled back (`cvt.rn.relu.f16.f32`).
    pub fn name(&self) -> String {
        let mut s = String::from("cvt");
        for part in self.rnd.iter().chain(&self.mods) {
            s.push('.');
            s.push_str(part);
        }
        format!("{s}.{}.{}", self.d, self.a)
    }
}

/// The two C symbols of capi/include/ptx_cvt_impl.h, forwarding to
/// [`entry`] with the adapter's `convert` and log variable.
#[macro_export]
macro_rules! export_cvt_impl {
    ($convert:expr, $log_env:expr) => {
        /// # Safety
        /// The cvt_impl contract of capi/include/ptx_cvt_impl.h.
        #[no_mangle]
        pub unsafe extern "C" fn cvt_impl(
            instruction: *const std::os::raw::c_char,
            operands: *const u64,
            operand_widths: *const u32,
            n_operands: usize,
            dst_width: u32,
            result: *mut u64,
        ) -> i32 {
            adapter::entry($convert, $log_env, instruction, operands, operand_widths, n_operands, dst_width, result)
        }

        #[no_mangle]
        pub extern "C" fn cvt_impl_reason() -> *const std::os::raw::c_char {
            adapter::reason()
        }
    };
}

impl<'a> Form<'a> {
    pub fn parse(s: &'a str) -> Option<Form<'a>> {
        let parts: Vec<&str> = s.split('.').collect();
        if parts.len() < 3 || parts[0] != "cvt" {
            return None;
        }
        let n = parts.len();
        let mut rnd = None;
        let mut mods = Vec::new();
        for m in &parts[1..n - 2] {
            if matches!(*m, "rn" | "rna" | "rz" | "rm" | "rp" | "rs" | "rni" | "rzi" | "rmi" | "rpi") {
                rnd = Some(*m);
            } else {
                mods.push(*m);
            }
        }
        Some(Form { rnd, mods, d: parts[n - 2], a: parts[n - 1] })
    }
    pub fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| *x == m)
    }
    /// Every modifier is one of `allowed`.
    pub fn only(&self, allowed: &[&str]) -> bool {
        self.mods.iter().all(|m| allowed.contains(m))
    }
}

/// The answer of one case: the result bits and the documented differences
/// that made it differ from PTX (empty when it agrees).
pub struct Answer {
    pub bits: u64,
    pub defects: Vec<&'static str>,
}

pub type Convert = fn(&Form, &[u64], u32) -> Result<Answer, String>;

thread_local! {
    static REASON: RefCell<Option<CString>> = const { RefCell::new(None) };
}

static LOG: Mutex<Option<std::fs::File>> = Mutex::new(None);

fn log_line(env: &str, line: &str) {
    let mut g = LOG.lock().unwrap();
    if g.is_none() {
        let Ok(path) = std::env::var(env) else { return };
        if path.is_empty() {
            return;
        }
        match std::fs::OpenOptions::new().create(true).append(true).open(&path) {
            Ok(f) => *g = Some(f),
            Err(_) => return,
        }
    }
    if let Some(f) = g.as_mut() {
        let _ = f.write_all(line.as_bytes());
        let _ = f.flush();
    }
}

pub unsafe fn entry(
    convert: Convert,
    log_env: &str,
    instruction: *const c_char,
    operands: *const u64,
    operand_widths: *const u32,
    n_operands: usize,
    dst_width: u32,
    result: *mut u64,
) -> i32 {
    let instr = match CStr::from_ptr(instruction).to_str() {
        Ok(s) => s,
        Err(_) => return decline("instruction is not UTF-8".into()),
    };
    let ops = std::slice::from_raw_parts(operands, n_operands);
    let widths = std::slice::from_raw_parts(operand_widths, n_operands);
    let Some(form) = Form::parse(instr) else { return decline(format!("cannot parse {instr}")) };
    match convert(&form, ops, dst_width) {
        Ok(ans) => {
            let mask = if dst_width >= 64 { u64::MAX } else { (1u64 << dst_width) - 1 };
            *result = ans.bits & mask;
            if !ans.defects.is_empty() && std::env::var_os(log_env).is_some() {
                let mut key = instr.to_lowercase();
                for (o, w) in ops.iter().zip(widths) {
                    key.push_str(&format!(" {:0w$x}", o, w = (*w / 4) as usize));
                }
                let mut d = ans.defects.clone();
                d.sort_unstable();
                d.dedup();
                log_line(log_env, &format!("{key} /{dst_width}\t{}\n", d.join(",")));
            }
            0
        }
        Err(msg) => decline(msg),
    }
}

fn decline(msg: String) -> i32 {
    REASON.with(|r| *r.borrow_mut() = CString::new(msg).ok());
    1
}

pub fn reason() -> *const c_char {
    REASON.with(|r| r.borrow().as_ref().map_or(std::ptr::null(), |c| c.as_ptr()))
}
