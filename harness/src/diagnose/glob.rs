//! A compact description of a set of variants as one brace glob, e.g.
//! `cvt.{rz,rm,rp}{,.sat}.f32.{s32,u32}`: each part of the spelling lists
//! the values the variants take there (`{,.sat}`: with and without).

use std::collections::BTreeSet;

use ptx_cvt::{Cvt, Rounding, Type};

/// The glob and whether it is exact (every spelling it spans is in the set).
pub fn variants_glob(variants: &BTreeSet<Cvt>) -> (String, bool) {
    if variants.len() == 1 {
        return (variants.iter().next().map(|c| c.to_string()).unwrap_or_default(), true);
    }
    let parsed: Vec<(Option<&str>, Vec<String>, Vec<String>)> = variants.iter().map(|c| split(c)).collect();
    let mut s = String::from("cvt");
    let mut span: usize = 1;
    // The rounding.
    let rounds: BTreeSet<Option<&str>> = parsed.iter().map(|p| p.0).collect();
    let mut rounds_sorted: Vec<Option<&str>> = rounds.into_iter().collect();
    rounds_sorted.sort_by_key(|r| r.map(|n| Rounding::ALL.iter().position(|x| x.name() == n)));
    if rounds_sorted.iter().all(Option::is_some) {
        s += ".";
        s += &alternatives(rounds_sorted.iter().map(|r| r.unwrap_or_default().to_string()).collect());
    } else {
        s += &alternatives(rounds_sorted.iter().map(|r| r.map(|n| format!(".{n}")).unwrap_or_default()).collect());
    }
    span *= rounds_sorted.len();
    // Each modifier, in the order first met.
    let mut mods: Vec<String> = Vec::new();
    for p in &parsed {
        for m in &p.1 {
            if !mods.contains(m) {
                mods.push(m.clone());
            }
        }
    }
    for m in &mods {
        let with = parsed.iter().filter(|p| p.1.contains(m)).count();
        if with == parsed.len() {
            s += &format!(".{m}");
        } else {
            s += &format!("{{,.{m}}}");
            span *= 2;
        }
    }
    // The types, position by position.
    let n = parsed.iter().map(|p| p.2.len()).max().unwrap_or(0);
    for i in 0..n {
        let vals: BTreeSet<&str> = parsed.iter().filter_map(|p| p.2.get(i).map(String::as_str)).collect();
        let mut v: Vec<&str> = vals.into_iter().collect();
        v.sort_by_key(|t| Type::all().position(|x| x.name() == *t));
        span *= v.len();
        s += ".";
        s += &alternatives(v.iter().map(|t| t.to_string()).collect());
    }
    (s, span == variants.len())
}

/// `{a,b}` for several, `a` for one.
fn alternatives(v: Vec<String>) -> String {
    match v.as_slice() {
        [one] => one.clone(),
        _ => format!("{{{}}}", v.join(",")),
    }
}

/// The rounding, the other modifiers and the types of a spelling.
fn split(c: &Cvt) -> (Option<&'static str>, Vec<String>, Vec<String>) {
    let text = c.to_string();
    let parts: Vec<&str> = text.split('.').skip(1).collect();
    let types = parts.iter().rev().take_while(|p| Type::from_name(p).is_some()).count().min(3);
    let (mods, tys) = parts.split_at(parts.len() - types);
    let rounding = c.rounding.map(Rounding::name);
    let mods = mods.iter().filter(|m| Some(**m) != rounding).map(|m| m.to_string()).collect();
    (rounding, mods, tys.iter().map(|t| t.to_string()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(v: &[&str]) -> (String, bool) {
        variants_glob(&v.iter().map(|s| s.parse().unwrap()).collect())
    }

    #[test]
    fn globs_name_each_part_once() {
        assert_eq!(glob(&["cvt.rz.f32.s32", "cvt.rm.f32.s32", "cvt.rp.f32.s32"]).0, "cvt.{rz,rm,rp}.f32.s32");
        let (g, exact) = glob(&["cvt.rn.f32.s32", "cvt.rn.sat.f32.s32", "cvt.rn.f32.u32"]);
        assert_eq!(g, "cvt.rn{,.sat}.f32.{u32,s32}");
        assert!(!exact);
        assert_eq!(glob(&["cvt.rni.f64.f64"]), ("cvt.rni.f64.f64".to_string(), true));
    }
}
