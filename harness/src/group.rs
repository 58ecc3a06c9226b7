//! Bug classes: the mismatches of a run grouped by cause (docs/diagnosis.md).
//!
//! 1. Each mismatch is one or more *units*: the whole answer, or each wrong
//!    lane of a packed answer, with the hypotheses that reproduce it.
//! 2. *Evidence before a name*: a hypothesis may explain the units of a
//!    variant only if the implementation's right answers of that variant
//!    (kept passed cases, and right lanes of wrong answers) do not refute
//!    it, that is where it predicts another answer than the oracle's, the
//!    implementation gave the oracle's (near) never.
//! 3. Within each variant, the admissible hypothesis that reproduces the
//!    most units is chosen first (ties: catalogue order), then the next.
//! 4. One cause, one class: every unit explained by the same hypothesis is
//!    one class, whatever the variant, lane, source type or family, and two
//!    explanations merge where one admissible hypothesis reproduces all
//!    their units. Units nothing explains form classes by where they come
//!    from (`hubs`), the code path they fail on (`unexplained_paths`) and
//!    what they answered (`answer_groups`).
//! 5. A class too small to be a defect apart, in a bigger class's variants,
//!    joins it (`absorb_small`).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use ptx_cvt::format::Format;
use ptx_cvt::{AcceptSet, Cvt, Operand, Profile, Rounding, Rule, Type};

use crate::diagnose::misread::{self, Reading};
use crate::diagnose::{self, diagnose_only, Hyps, Lanes, CATALOGUE, CONSTANT};
use crate::mismatch::Mismatch;

/// Passed cases kept per variant as evidence.
const KEPT_PER_VARIANT: usize = 256;
/// A hypothesis stays admissible in a variant while the right answers that
/// refute it are at most this share of the wrong ones it reproduces (1/8:
/// an implementation may get a special input right by a branch of its own,
/// NaN say, while the defect holds for the rest).
const REFUTED_PER_SUPPORTED: u64 = 8;
/// A hypothesis is a coincidence in a variant where the wrong answers
/// nothing else explains outnumber those it reproduces this many times.
const COINCIDENCE: usize = 3;
/// An answer group of fewer units than this stays with its path's biggest.
const FEW_ANSWERS: usize = 8;
/// A class of fewer than 1/SMALL (2%) of the run's mismatches may join a bigger one.
const SMALL: usize = 50;
/// `join_same_readings`: a class reads its sources consistently when at
/// most 1 in `SELF_AGREE` of them get answers no one value gives.
const SELF_AGREE: usize = 33;
/// `join_same_readings`: two classes read the same values on at least
/// `.0` telling sources, all but 1 in `.1` of them.
const SAME_READING: (usize, usize) = (8, 10);
/// A variant's wrong answers read as one constant from this many on.
const CONSTANT_AT_LEAST: usize = 4;
/// Two answer groups of one unexplained code path are one branch where at
/// least this share (1/2) of the smaller group's units lie in (path cell,
/// variant) pairs the other group also has.
const SAME_CELLS: (usize, usize) = (1, 2);

/// One right answer kept as evidence.
#[derive(Clone, Debug)]
struct PassedCase {
    ops: Vec<Operand>,
    dst_width: u32,
    got: u64,
    /// The oracle's set, computed once on first use (every refutation pass reads it).
    expected: std::sync::OnceLock<AcceptSet>,
}

/// Right answers, a deterministic sample per variant.
#[derive(Default)]
pub struct Evidence {
    per_variant: HashMap<Cvt, (u64, Vec<PassedCase>)>,
}

impl Evidence {
    /// Keep (a sample of) a right answer.
    pub fn passed(&mut self, c: &Cvt, ops: &[Operand], dst_width: u32, got: u64) {
        let (seen, kept) = self.per_variant.entry(*c).or_default();
        *seen += 1;
        let case = PassedCase { ops: ops.to_vec(), dst_width, got, expected: Default::default() };
        if kept.len() < KEPT_PER_VARIANT {
            kept.push(case);
        } else {
            // Reservoir sampling with a fixed hash of the count (runs are reproducible).
            let j = splitmix(*seen) % *seen;
            if let Some(slot) = kept.get_mut(j as usize) {
                *slot = case;
            }
        }
    }

    /// For each hypothesis of `only`, how many kept right answers of `c` it
    /// is refuted by; a hypothesis stops being tried once it reaches `limit[i]`.
    fn refutations(&self, c: &Cvt, only: Hyps, limit: &[u64], profile: Profile) -> Vec<u64> {
        let mut out = vec![0u64; CATALOGUE.len()];
        let Some((_, kept)) = self.per_variant.get(c) else { return out };
        let mut live = only;
        for p in kept {
            if live.is_empty() {
                break;
            }
            let got = AcceptSet::exact(p.dst_width, p.got);
            // The oracle's own set: a hypothesis whose answer it also accepts claims no deviation here.
            let expected = p.expected.get_or_init(|| {
                ptx_cvt::evaluate_accept(c, &p.ops, p.dst_width, profile).unwrap_or_else(|_| got.clone())
            });
            let d = diagnose_only(c, &p.ops, p.dst_width, profile, expected, &got, live);
            for i in (0..CATALOGUE.len()).filter(|&i| d.refuted.has(i)) {
                out[i] += 1;
                if out[i] > limit[i] {
                    live.0 &= !(1 << i);
                }
            }
        }
        out
    }

    /// The kept right answers of `c` (their result bits).
    fn answers(&self, c: &Cvt) -> impl Iterator<Item = u64> + '_ {
        self.per_variant.get(c).into_iter().flat_map(|(_, k)| k.iter().map(|p| p.got))
    }
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What explains a bug class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Explanation {
    /// A catalogue hypothesis (its index) reproduces every unit, unrefuted.
    Hypothesis(usize),
    /// No hypothesis does, but every answer is these bits, and no right
    /// answer of the same variants says otherwise.
    Constant(u64),
    /// Nothing explains the answers: the class is the deciding rule's.
    None,
}

/// A hypothesis's record on a class: the units it reproduces and the right
/// answers of the class's variants that refute it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HypothesisRecord {
    pub index: usize,
    pub support: u64,
    pub refuted: u64,
}

/// One bug class of a [`Grouping`].
#[derive(Clone, Debug)]
pub struct BugClass {
    /// 1-based, most cases first: `--class N`, JSON `bug_class`.
    pub id: usize,
    pub family: &'static str,
    pub explanation: Explanation,
    /// Where the class is a cause (catalogue.rs `CAUSES`): the hypotheses
    /// chosen for its units and how many each, most first (the explanation's
    /// hypothesis is the first). Empty for unexplained classes.
    pub parts: Vec<(usize, usize)>,
    /// Other hypotheses that reproduce every unit of the class, unrefuted.
    pub alternatives: Vec<&'static str>,
    /// Every hypothesis that reproduces some unit, most support first.
    pub hypotheses: Vec<HypothesisRecord>,
    /// The rule that decides the wrong bits of the example.
    pub rule: Rule,
    /// Where the answers of a class nothing explains come from, and the
    /// parts of the input space they lie in.
    pub source: Option<Unexplained>,
    pub variants: BTreeSet<Cvt>,
    /// Indices into the triage's mismatches, in the order met, each once.
    pub members: Vec<usize>,
    /// Wrong lanes of packed answers among the class's units (0: none).
    pub lane_units: usize,
    /// Units of an explained class that no hypothesis reproduces: they
    /// joined it because every one of their variants is the class's.
    pub unexplained_units: usize,
    /// Units from a wide source that the explanation reproduces only on the
    /// source narrowed to f32 first (rule 5 of docs/diagnosis.md).
    pub narrowed_units: usize,
    /// Every hypothesis that reproduces some unit of the class.
    pub seen: Hyps,
    /// Small classes that joined this one (rule 9 of docs/diagnosis.md): the
    /// name they had by themselves (`None`: nothing explained them) and
    /// their cases.
    pub absorbed: Vec<(Option<&'static str>, usize)>,
    /// Classes of other variants that joined it because their answers read
    /// the same wrong source values (rule 10): what each alone was called,
    /// and its cases.
    pub same_readings: Vec<(Option<&'static str>, usize)>,
}

impl BugClass {
    pub fn count(&self) -> usize {
        self.members.len()
    }
    /// The explanation's name (`None` for the deciding rule's classes).
    pub fn name(&self) -> Option<&'static str> {
        match self.explanation {
            Explanation::Hypothesis(_) if self.parts.len() > 1 => self.cause().map(|c| c.name),
            Explanation::Hypothesis(i) => Some(CATALOGUE[i].name),
            Explanation::Constant(_) => Some(CONSTANT),
            Explanation::None => None,
        }
    }
    /// The explanation in words, its placeholders filled from the variants.
    pub fn text(&self, width: u32) -> String {
        let lanes = if self.lane_units > 0 { " (in the lanes of packed results)" } else { "" };
        match self.explanation {
            Explanation::Hypothesis(_) if self.parts.len() > 1 => {
                let each: Vec<String> = self
                    .parts
                    .iter()
                    .map(|&(h, n)| format!("{} ({n})", diagnose::explain_text(&CATALOGUE[h], &self.variants, self.seen)))
                    .collect();
                let meaning = self.cause().map_or("", |c| c.meaning);
                format!("{meaning}{lanes}: {}{}", each.join("; "), self.rest_text())
            }
            Explanation::Hypothesis(i) => {
                format!("{}{lanes}{}", diagnose::explain_text(&CATALOGUE[i], &self.variants, self.seen), self.rest_text())
            }
            Explanation::Constant(b) => {
                format!("every answer is {} whatever the input (a constant)", ptx_cvt::eval::fmt_hex(b, width))
            }
            Explanation::None => format!(
                "{}{lanes}: no hypothesis reproduces these answers (the rule deciding the first one's wrong bits: {} [{}]){}",
                self.source.as_ref().map_or_else(|| self.family.to_string(), Unexplained::text),
                self.rule.name(),
                self.rule.evidence().tag(),
                joined(&self.same_readings, SAME_READINGS_TEXT)
            ),
        }
    }
    /// The units of the class its explanation does not reproduce, in words.
    fn rest_text(&self) -> String {
        let narrowed = match self.narrowed_units {
            0 => String::new(),
            n => format!(", 64-bit sources narrowed to f32 (to nearest) first ({n})"),
        };
        let rest = match self.unexplained_units {
            0 => String::new(),
            n => format!(
                "; and {n} wrong answer{} in these variants that no hypothesis reproduces",
                if n == 1 { "" } else { "s" }
            ),
        };
        let absorbed =
            joined(&self.absorbed, "a few more wrong answers in these variants, too few to be a defect apart");
        narrowed + &rest + &absorbed + &joined(&self.same_readings, SAME_READINGS_TEXT)
    }
    /// The cause of an explained class (catalogue.rs `CAUSES`), if its hypothesis has one.
    pub fn cause(&self) -> Option<&'static diagnose::catalogue::Cause> {
        match self.explanation {
            Explanation::Hypothesis(h) => diagnose::catalogue::cause_of(h),
            _ => None,
        }
    }
    /// The variants as one brace glob (`cvt.{rz,rm}.f32.s32`); `within …`
    /// when the glob also spans spellings the class does not hold.
    pub fn scope(&self) -> String {
        let (glob, exact) = diagnose::variants_glob(&self.variants);
        if exact {
            glob
        } else if glob.len() <= MAX_SCOPE_GLOB {
            format!("within {glob}")
        } else {
            // A glob over many families reads as noise: say how many, and two.
            let families: BTreeSet<&str> = self.variants.iter().map(family_name).collect();
            let mut first = self.variants.iter().map(|c| c.to_string());
            let (a, b) = (first.next().unwrap_or_default(), first.next().unwrap_or_default());
            format!("{} variants of {} families ({a}, {b}, …)", self.variants.len(), families.len())
        }
    }
}

/// The longest brace glob a class's scope is written as in the text report.
const MAX_SCOPE_GLOB: usize = 120;

const SAME_READINGS_TEXT: &str = "wrong answers of other variants that read the same wrong source values";

/// The classes that joined another, in words (`why` they joined first).
fn joined(classes: &[(Option<&str>, usize)], why: &str) -> String {
    let each: Vec<String> = classes
        .iter()
        .map(|&(name, n)| match name {
            Some(name) => format!("{n} that alone read as `{name}`"),
            None => format!("{n} that no hypothesis reproduces"),
        })
        .collect();
    if each.is_empty() {
        String::new()
    } else {
        format!("; with {why}: {}", each.join(", "))
    }
}

/// The bug classes of a run, most cases first, and each mismatch's classes.
pub struct Grouping {
    pub classes: Vec<BugClass>,
    /// The first class id of each mismatch.
    pub class_of: Vec<usize>,
    /// Every class id of each mismatch (two for a packed answer whose lanes
    /// are wrong for different reasons), ascending.
    pub classes_of: Vec<Vec<usize>>,
}

/// Short family names for reports.
pub fn family_name(c: &Cvt) -> &'static str {
    use ptx_cvt::instr::Family;
    let base = match c.family() {
        Family::IntToInt => "int→int",
        Family::IntToFloat => "int→float",
        Family::FloatToInt => "float→int",
        Family::SameFloat => "float→same-float",
        Family::Widen => "float→float-widen",
        Family::Narrow => "float→float-narrow",
    };
    if c.dtype.is_packed() || c.atype.is_packed() {
        match base {
            "float→float-widen" => "packed-widen",
            _ => "packed-narrow",
        }
    } else {
        base
    }
}

/// One unit of one mismatch.
struct UnitRef {
    k: usize,
    hyps: Hyps,
    lane: bool,
    lane_index: Option<u8>,
}

struct VariantStats {
    support: Vec<u64>,
    refuted: Vec<u64>,
}

impl Default for VariantStats {
    fn default() -> Self {
        VariantStats { support: vec![0; CATALOGUE.len()], refuted: vec![0; CATALOGUE.len()] }
    }
}

/// Group `mismatches` into bug classes with the right answers in `evidence`.
pub fn group(mismatches: &[Mismatch], evidence: &Evidence, profile: Profile) -> Grouping {
    let mut units: Vec<UnitRef> = Vec::new();
    for (k, m) in mismatches.iter().enumerate() {
        if m.units.is_empty() {
            units.push(UnitRef { k, hyps: Hyps(0), lane: false, lane_index: None });
        }
        for u in &m.units {
            units.push(UnitRef { k, hyps: u.hyps, lane: u.lane.is_some(), lane_index: u.lane });
        }
    }
    // Support and refutation per variant and hypothesis.
    let mut stats: HashMap<Cvt, VariantStats> = HashMap::new();
    for u in &units {
        let s = stats.entry(mismatches[u.k].case.instr).or_default();
        for i in (0..CATALOGUE.len()).filter(|&i| u.hyps.has(i)) {
            s.support[i] += 1;
        }
    }
    for m in mismatches {
        let s = stats.entry(m.case.instr).or_default();
        for i in (0..CATALOGUE.len()).filter(|&i| m.refuted.has(i)) {
            s.refuted[i] += 1;
        }
    }
    for (c, s) in stats.iter_mut() {
        let candidates = Hyps((0..CATALOGUE.len()).filter(|&i| s.support[i] > 0).fold(0, |a, i| a | 1 << i));
        let limit: Vec<u64> =
            (0..CATALOGUE.len()).map(|i| (s.support[i] / REFUTED_PER_SUPPORTED).saturating_sub(s.refuted[i])).collect();
        let r = evidence.refutations(c, candidates, &limit, profile);
        for (total, new) in s.refuted.iter_mut().zip(r) {
            *total += new;
        }
    }
    let admissible = |c: &Cvt, i: usize| {
        let s = &stats[c];
        s.support[i] > 0 && s.refuted[i] * REFUTED_PER_SUPPORTED <= s.support[i]
    };
    let mut adm: Vec<Hyps> = units
        .iter()
        .map(|u| {
            let c = &mismatches[u.k].case.instr;
            Hyps((0..CATALOGUE.len()).filter(|&i| u.hyps.has(i) && admissible(c, i)).fold(0, |a, i| a | 1 << i))
        })
        .collect();
    // Choose within each variant (where the implementation's code is one
    // path), then merge what one cause explains across variants.
    let mut scopes: BTreeMap<Cvt, Vec<usize>> = BTreeMap::new();
    for (j, u) in units.iter().enumerate() {
        scopes.entry(mismatches[u.k].case.instr).or_default().push(j);
    }
    drop_coincidences(&scopes, &mut adm, |j| {
        let u = &units[j];
        (u.lane_index.is_none()).then(|| mismatches[u.k].got.single()).flatten()
    });
    let mut chosen: Vec<Option<usize>> = vec![None; units.len()];
    for (c, members) in &scopes {
        let hyps: Vec<Hyps> = members.iter().map(|&j| adm[j]).collect();
        for (&j, h) in members.iter().zip(diagnose::choose(&hyps, &stats[c].refuted)) {
            chosen[j] = h;
        }
    }
    let families: Vec<&'static str> = units.iter().map(|u| family_name(&mismatches[u.k].case.instr)).collect();
    let mut everywhere: HashMap<usize, bool> = HashMap::new();
    let mut holds = |h: usize| *everywhere.entry(h).or_insert_with(|| holds_everywhere(h, &stats, evidence, profile));
    let mut chosen = merge_shared_causes(chosen, &adm, &families, &mut holds);
    // A 64-bit source narrowed to f32 first, then the f32 path's defect.
    let mut narrowed = vec![false; units.len()];
    for (j, key) in narrowed_sources(&scopes, &units, &chosen, &adm, mismatches, profile) {
        chosen[j] = Some(key);
        adm[j].0 |= 1 << key;
        narrowed[j] = true;
    }
    // Two causes at once: a unit nothing explains whose answer another
    // established cause reproduces on top of a rewrite chosen in its variant
    // (a rounding ignored, a modifier dropped) belongs to both classes.
    let mut found = composites(&units, &chosen, mismatches, profile, None);
    // A hypothesis chosen only for answers that two causes established
    // elsewhere reproduce together is not a third cause (a clamp and a
    // rounding both ignored look like an unchecked overflow).
    let keys: BTreeSet<usize> = chosen.iter().flatten().copied().collect();
    for h in keys {
        let n = chosen.iter().filter(|&&c| c == Some(h)).count();
        let two = composites(&units, &chosen, mismatches, profile, Some(h));
        if two.len() == n {
            found.extend(two);
        }
    }
    for (j, extra) in found {
        chosen[j] = Some(extra.0);
        adm[j].0 |= 1 << extra.0;
        adm.push(Hyps(1 << extra.1));
        units.push(UnitRef { k: units[j].k, hyps: Hyps(0), lane: units[j].lane, lane_index: units[j].lane_index });
        chosen.push(Some(extra.1));
    }
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum Key {
        /// A hypothesis, or the hypotheses of one cause joined (`cause_classes`).
        Explained(usize),
        /// A hub and the first path cell of a code path (`unexplained_paths`).
        Unexplained(Hub, usize),
    }
    let hubs = hubs(&units, &chosen, mismatches);
    let cells = path_cells(&units, &chosen, mismatches, &hubs);
    let paths = unexplained_paths(&cells, &units, mismatches);
    let answers: Vec<Answer> = units
        .iter()
        .zip(&cells)
        .map(|(u, c)| if c.is_some() { Answer::of(&mismatches[u.k], u.lane_index) } else { Answer::Unknown })
        .collect();
    let variants: Vec<Cvt> = units.iter().map(|u| mismatches[u.k].case.instr).collect();
    let paths = answer_groups(&cells, &variants, &paths, &answers);
    let cause = cause_classes(&units, &chosen, mismatches);
    let mut by_key: BTreeMap<Key, Vec<usize>> = BTreeMap::new();
    for (j, u) in units.iter().enumerate() {
        let m = &mismatches[u.k];
        let c = &m.case.instr;
        let key = match chosen[j] {
            Some(h) => Key::Explained(cause[&h]),
            None => Key::Unexplained(hubs[&Lanes::of(c).pair()], paths[j]),
        };
        by_key.entry(key).or_default().push(j);
    }
    join_into_causes(&mut by_key, |k| matches!(k, Key::Explained(_)), |j| mismatches[units[j].k].case.instr);
    let classes: Vec<BugClass> = by_key
        .into_iter()
        .map(|(key, js)| {
            let mut members: Vec<usize> = js.iter().map(|&j| units[j].k).collect();
            let mut seen_k = std::collections::HashSet::new();
            members.retain(|k| seen_k.insert(*k));
            let first = &mismatches[members[0]];
            let variants: BTreeSet<Cvt> = members.iter().map(|&k| mismatches[k].case.instr).collect();
            let seen = Hyps(js.iter().fold(0, |acc, &j| acc | units[j].hyps.0));
            let mut hypotheses: Vec<HypothesisRecord> = (0..CATALOGUE.len())
                .filter(|&i| seen.has(i))
                .map(|i| HypothesisRecord {
                    index: i,
                    support: js.iter().filter(|&&j| units[j].hyps.has(i)).count() as u64,
                    refuted: variants.iter().map(|c| stats[c].refuted[i]).sum(),
                })
                .collect();
            hypotheses.sort_by_key(|h| (std::cmp::Reverse(h.support), h.refuted, h.index));
            let (explanation, alternatives, source, parts) = match key {
                Key::Explained(_) => {
                    // The hypotheses chosen within the cause, most units first.
                    let mut parts: BTreeMap<usize, usize> = BTreeMap::new();
                    for h in js.iter().filter_map(|&j| chosen[j]) {
                        *parts.entry(h).or_default() += 1;
                    }
                    let mut parts: Vec<(usize, usize)> = parts.into_iter().collect();
                    parts.sort_by_key(|&(h, n)| (std::cmp::Reverse(n), h));
                    let h = parts[0].0;
                    let explained = js.iter().filter(|&&j| chosen[j].is_some());
                    let all = explained.fold(u128::MAX, |acc, &j| acc & adm[j].0) & !(1 << h);
                    (Explanation::Hypothesis(h), Hyps(all).names(), None, parts)
                }
                Key::Unexplained(hub, _) => {
                    let got = |k: usize| mismatches[k].got.single();
                    let x = got(members[0]);
                    let same = members.len() > 1 && members.iter().all(|&k| got(k).is_some() && got(k) == x);
                    // "Whatever the input" is refuted by right answers that are other bits.
                    let others = variants.iter().flat_map(|c| evidence.answers(c)).filter(|b| Some(*b) != x).count();
                    let e = match x {
                        Some(b) if same && others * 20 <= members.len() => Explanation::Constant(b),
                        _ => Explanation::None,
                    };
                    let cell = |j: usize| cells[j].as_ref().expect("a unit nothing explains has a cell");
                    let regions = js.iter().map(|&j| cell(j).3).collect();
                    let fields = js.iter().map(|&j| cell(j).4).collect();
                    let answers = js.iter().map(|&j| answers[j]).collect();
                    (e, Vec::new(), Some(Unexplained { hub, regions, fields, answers }), Vec::new())
                }
            };
            BugClass {
                id: 0,
                family: family_name(&first.case.instr),
                explanation,
                parts,
                alternatives,
                hypotheses,
                rule: first.rule,
                source,
                variants,
                lane_units: js.iter().filter(|&&j| units[j].lane).count(),
                unexplained_units: match key {
                    Key::Explained(_) => js.iter().filter(|&&j| chosen[j].is_none()).count(),
                    Key::Unexplained(..) => 0,
                },
                narrowed_units: js.iter().filter(|&&j| narrowed.get(j).copied().unwrap_or(false)).count(),
                members,
                seen,
                absorbed: Vec::new(),
                same_readings: Vec::new(),
            }
        })
        .collect();
    let classes = absorb_small(classes, mismatches.len());
    let mut classes = join_same_readings(classes, mismatches);
    // Most cases first; ties in the order of the first mismatch.
    classes.sort_by_key(|b| (std::cmp::Reverse(b.members.len()), b.members[0]));
    let mut classes_of: Vec<Vec<usize>> = vec![Vec::new(); mismatches.len()];
    for (i, b) in classes.iter_mut().enumerate() {
        b.id = i + 1;
        for &k in &b.members {
            classes_of[k].push(b.id);
        }
    }
    let class_of = classes_of.iter().map(|ids| ids.first().copied().unwrap_or(0)).collect();
    Grouping { classes, class_of, classes_of }
}

/// A class of fewer than 1/`SMALL` of the run's mismatches, at least half
/// of whose variants are a bigger class's, joins the biggest such class: a
/// handful of wrong answers where a big defect already fails is most often
/// that defect's edge (a branch its hypothesis does not model, answers a
/// hypothesis reproduces by coincidence), not a second defect. The text keeps
/// what they alone would have been called.
fn absorb_small(mut classes: Vec<BugClass>, mismatches: usize) -> Vec<BugClass> {
    classes.sort_by_key(|b| (Reverse(b.members.len()), b.members[0]));
    let mut gone = vec![false; classes.len()];
    for small in (0..classes.len()).rev() {
        let n = classes[small].members.len();
        if n * SMALL >= mismatches {
            break;
        }
        let target = (0..small).find(|&big| {
            let (a, b) = (&classes[small].variants, &classes[big].variants);
            !gone[big] && classes[big].members.len() > n && 2 * a.intersection(b).count() >= a.len()
        });
        if let Some(big) = target {
            gone[small] = true;
            absorb(&mut classes, small, big, Joined::Few);
        }
    }
    classes.into_iter().zip(gone).filter(|(_, g)| !g).map(|(b, _)| b).collect()
}

/// Why a class joined another (`BugClass::absorbed`, `same_readings`).
#[derive(Clone, Copy)]
enum Joined {
    Few,
    SameReadings,
}

/// Class `from`'s cases join class `to` (`from` is left empty).
fn absorb(classes: &mut [BugClass], from: usize, to: usize, why: Joined) {
    let members = std::mem::take(&mut classes[from].members);
    let name = classes[from].name();
    let variants = std::mem::take(&mut classes[from].variants);
    let lanes = classes[from].lane_units;
    let source = classes[from].source.take();
    let b = &mut classes[to];
    if let (Joined::SameReadings, Some(from), Some(to)) = (why, source, b.source.as_mut()) {
        // One defect: the host's text spans where both fail and what both answered.
        to.regions.extend(from.regions);
        to.fields.extend(from.fields);
        to.answers.extend(from.answers);
    }
    let before: std::collections::HashSet<usize> = b.members.iter().copied().collect();
    let added: Vec<usize> = members.into_iter().filter(|k| !before.contains(k)).collect();
    match why {
        Joined::Few => b.absorbed.push((name, added.len())),
        Joined::SameReadings => b.same_readings.push((name, added.len())),
    }
    b.members.extend(added);
    b.variants.extend(variants);
    b.lane_units += lanes;
}

/// Each class's reading of each scalar source (type and bits) it fails
/// on, met over its answers (`None` where its answers read different
/// values: `diagnose::misread`), and whether it tells a wrong value
/// (`Reading::informative`).
type Readings = BTreeMap<(Type, u64), (Option<Reading>, bool)>;

fn readings(b: &BugClass, mismatches: &[Mismatch]) -> Readings {
    let mut met: BTreeMap<(Type, u64), Option<Reading>> = BTreeMap::new();
    for &k in &b.members {
        let m = &mismatches[k];
        let (Some(got), [op]) = (m.got.single(), m.case.operands.as_slice()) else { continue };
        let Some(x) = misread::reading(&m.case.instr, got) else { continue };
        let key = (m.case.instr.atype, op.bits);
        let v = match met.get(&key) {
            None => Some(x),
            Some(y) => y.as_ref().and_then(|y| y.meet(&x)),
        };
        met.insert(key, v);
    }
    met.into_iter()
        .map(|(key, r)| {
            let telling = r.as_ref().is_some_and(|r| r.informative(key.0.format(), key.1));
            (key, (r, telling))
        })
        .collect()
}

/// Whether a class reads each source as one value (all but 1/`SELF_AGREE`).
fn self_consistent(r: &Readings) -> bool {
    !r.is_empty() && r.values().filter(|(v, _)| v.is_none()).count() * SELF_AGREE <= r.len()
}

/// Whether two classes read the same wrong values: of the sources both fail
/// on where either reading excludes the true value, at least
/// `SAME_READING.0` and all but 1/`SAME_READING.1` admit one value.
fn same_readings(a: &Readings, b: &Readings) -> bool {
    let (mut n, mut agree) = (0, 0);
    for (key, (x, tells_x)) in a {
        let Some((y, tells_y)) = b.get(key) else { continue };
        if !(*tells_x || *tells_y) {
            continue;
        }
        n += 1;
        if let (Some(x), Some(y)) = (x, y) {
            agree += usize::from(x.meet(y).is_some());
        }
    }
    n >= SAME_READING.0 && (n - agree) * SAME_READING.1 <= n
}

/// Classes nothing explains whose answers are, source by source, the right
/// conversion of the same wrong value read the source the same wrong way:
/// one defect of the code that reads it, seen in each family that reads
/// this source type (rule 10). They join, transitively, into the biggest.
fn join_same_readings(mut classes: Vec<BugClass>, mismatches: &[Mismatch]) -> Vec<BugClass> {
    let n = classes.len();
    let candidates: Vec<usize> = (0..n).filter(|&i| matches!(classes[i].explanation, Explanation::None)).collect();
    let r: BTreeMap<usize, Readings> = candidates
        .iter()
        .map(|&i| (i, readings(&classes[i], mismatches)))
        .filter(|(_, r)| self_consistent(r))
        .collect();
    let mut root: Vec<usize> = (0..n).collect();
    for (&i, a) in &r {
        for (&j, b) in r.range(i + 1..) {
            if same_readings(a, b) {
                join(&mut root, i, j);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &i in r.keys() {
        groups.entry(find(&mut root, i)).or_default().push(i);
    }
    let mut gone = vec![false; n];
    for members in groups.values().filter(|m| m.len() > 1) {
        let host =
            *members.iter().max_by_key(|&&i| (classes[i].members.len(), Reverse(i))).expect("a group has members");
        for &i in members.iter().filter(|&&i| i != host) {
            gone[i] = true;
            absorb(&mut classes, i, host, Joined::SameReadings);
        }
    }
    classes.into_iter().zip(gone).filter(|(_, g)| !g).map(|(b, _)| b).collect()
}

/// What nothing explains in variants that all have an established cause
/// is that cause's other face (the same code where the hypothesis's model
/// of it stops), not a defect of its own: each such class (`explained`
/// false) joins the explained class whose variants cover its own (the
/// biggest, if several do). Its units are counted apart by the caller.
fn join_into_causes<K: Ord + Copy>(
    by_key: &mut BTreeMap<K, Vec<usize>>,
    explained: impl Fn(&K) -> bool,
    variant: impl Fn(usize) -> Cvt,
) {
    let variants_of = |js: &[usize]| -> BTreeSet<Cvt> { js.iter().map(|&j| variant(j)).collect() };
    let hosts: Vec<(K, BTreeSet<Cvt>, usize)> =
        by_key.iter().filter(|(k, _)| explained(k)).map(|(k, js)| (*k, variants_of(js), js.len())).collect();
    let joins: Vec<(K, K)> = by_key
        .iter()
        .filter(|(k, _)| !explained(k))
        .filter_map(|(k, js)| {
            let v = variants_of(js);
            let host = hosts.iter().filter(|(_, hv, _)| v.is_subset(hv)).max_by_key(|(hk, _, n)| (*n, Reverse(*hk)));
            host.map(|(hk, _, _)| (*k, *hk))
        })
        .collect();
    for (from, to) in joins {
        let js = by_key.remove(&from).unwrap_or_default();
        by_key.entry(to).or_default().extend(js);
    }
}

/// In a variant whose wrong answers are mostly unexplained (the
/// implementation gets it wrong in a way no hypothesis describes), a
/// hypothesis that reproduces a small part of them (the zeros, the
/// saturated values) is a coincidence of that defect, not a cause of its
/// own: there it is not admissible. A part is small when the units nothing
/// else explains are more than `COINCIDENCE` times as many. So is a
/// hypothesis that reproduces only part of a variant's wrong answers where
/// nearly all of them are the same bits and some of those are unexplained:
/// the answer does not follow the input, so no reading of the input made
/// it (`answer`: a whole register's bits, `None` for a lane).
fn drop_coincidences(scopes: &BTreeMap<Cvt, Vec<usize>>, adm: &mut [Hyps], answer: impl Fn(usize) -> Option<u64>) {
    for members in scopes.values() {
        let mut counts: BTreeMap<u64, usize> = BTreeMap::new();
        for b in members.iter().filter_map(|&j| answer(j)) {
            *counts.entry(b).or_default() += 1;
        }
        let top = counts.into_iter().max_by_key(|&(b, n)| (n, std::cmp::Reverse(b)));
        let same: Vec<usize> = match top {
            Some((b, n)) if n >= CONSTANT_AT_LEAST && n * 10 >= members.len() * 9 => {
                members.iter().copied().filter(|&j| answer(j) == Some(b)).collect()
            }
            _ => Vec::new(),
        };
        loop {
            let unexplained = members.iter().filter(|&&j| adm[j].is_empty()).count();
            let constant_unexplained = same.iter().any(|&j| adm[j].is_empty());
            let mut weak = 0u128;
            for i in 0..CATALOGUE.len() {
                let n = members.iter().filter(|&&j| adm[j].has(i)).count();
                let part = constant_unexplained && same.iter().any(|&j| adm[j].has(i));
                if n > 0 && (unexplained > COINCIDENCE * n || part) {
                    weak |= 1 << i;
                }
            }
            if weak == 0 {
                break;
            }
            for &j in members {
                adm[j].0 &= !weak;
            }
        }
    }
}

/// One cause, one class: where one admissible hypothesis reproduces every
/// unit of two explanations, they are one, named by the larger one's
/// hypothesis if it covers the other's units, else by the shared one (the
/// earliest in the catalogue). Largest first, until nothing merges.
type Scoped = Option<ClassKey>;

/// An explanation's hypothesis.
type ClassKey = usize;

fn merge_shared_causes(
    mut chosen: Vec<Scoped>,
    adm: &[Hyps],
    families: &[&'static str],
    holds: &mut impl FnMut(usize) -> bool,
) -> Vec<Scoped> {
    let mut refused: BTreeSet<(ClassKey, ClassKey)> = BTreeSet::new();
    loop {
        // Each explanation's units, the hypotheses admissible on all of them, its families.
        let mut groups: BTreeMap<ClassKey, (usize, u128, BTreeSet<&'static str>)> = BTreeMap::new();
        for (j, key) in chosen.iter().enumerate() {
            if let Some(key) = key {
                let g = groups.entry(*key).or_insert((0, u128::MAX, BTreeSet::new()));
                g.0 += 1;
                g.1 &= adm[j].0;
                g.2.insert(families[j]);
            }
        }
        let mut order: Vec<_> = groups.into_iter().map(|(key, (n, all, f))| (key, n, all, f)).collect();
        order.sort_by_key(|&(key, n, _, _)| (std::cmp::Reverse(n), key));
        let name = |a: ClassKey, ia: u128, b: ClassKey, ib: u128| {
            if ib >> a & 1 == 1 {
                a
            } else if ia >> b & 1 == 1 {
                b
            } else {
                (ia & ib).trailing_zeros() as usize
            }
        };
        let mut pair = None;
        'find: for (i, (ka, _, ia, fa)) in order.iter().enumerate() {
            for (kb, _, ib, fb) in &order[i + 1..] {
                if ia & ib == 0 || refused.contains(&(*ka, *kb)) {
                    continue;
                }
                let to = name(*ka, *ia, *kb, *ib);
                // Across families only under a hypothesis that holds wherever it can be
                // tested (the code paths are otherwise apart: a copy of the bits in int→int
                // and an integer rounding ignored in f64→f64 are two defects).
                if fa.is_disjoint(fb) && !holds(to) {
                    refused.insert((*ka, *kb));
                    continue;
                }
                pair = Some((*ka, *kb, to));
                break 'find;
            }
        }
        let Some((ka, kb, to)) = pair else { return chosen };
        for key in chosen.iter_mut().flatten() {
            if *key == ka || *key == kb {
                *key = to;
            }
        }
    }
}

/// A converter written for f32 and handed a wider source (a C function
/// taking `float`, Python's `struct.pack('f', x)`) narrows it to f32, to
/// nearest, before its own code runs: where a variant with an f64 or 64-bit
/// integer source is, nearly unit for unit, its f32 sibling's cause on the
/// narrowed source, its units are that cause's.
/// Returns each such unit and the cause (the sibling's most chosen key).
fn narrowed_sources(
    scopes: &BTreeMap<Cvt, Vec<usize>>,
    units: &[UnitRef],
    chosen: &[Scoped],
    adm: &[Hyps],
    mismatches: &[Mismatch],
    profile: Profile,
) -> Vec<(usize, ClassKey)> {
    // How many units of each variant each key was chosen for.
    let keys: HashMap<Cvt, BTreeMap<ClassKey, usize>> = scopes
        .iter()
        .map(|(c, js)| {
            let mut n: BTreeMap<ClassKey, usize> = BTreeMap::new();
            for key in js.iter().filter_map(|&j| chosen[j]) {
                *n.entry(key).or_default() += 1;
            }
            (*c, n)
        })
        .collect();
    let mut out = Vec::new();
    for (c, js) in scopes {
        let narrows = c.atype.bits() == 64 && c.dtype.is_float() && c.dtype.bits() < 32;
        if !narrows || !c.is_scalar() || c.dtype.is_packed() {
            continue;
        }
        let sibling = Cvt { atype: Type::F32, ..*c };
        let Some(key) =
            keys.get(&sibling).and_then(|k| k.iter().max_by_key(|&(k, n)| (*n, Reverse(*k)))).map(|(k, _)| *k)
        else {
            continue;
        };
        // Where a `via-f32` row already names most of the variant, the narrowing has its class.
        let via = |k: ClassKey| CATALOGUE[k].name.starts_with("via-f32");
        if js.iter().filter(|&&j| chosen[j].is_some_and(via)).count() * 2 >= js.len() {
            continue;
        }
        let narrow = Cvt { rounding: Some(Rounding::Rn), ..Cvt::new(Type::F32, c.atype) };
        let others: BTreeSet<ClassKey> = keys[&sibling].keys().copied().filter(|&k| k != key).collect();
        // Each unit: reproduced by the cause on the narrowed source (`Some(true)`),
        // by the narrowing alone, which the cause leaves right (`Some(false)`), or not.
        let fit = |j: usize| -> Option<bool> {
            let m = &mismatches[units[j].k];
            let x = diagnose::eval_any(&narrow, &m.case.operands, 32, profile)?.single()?;
            let ops = [Operand { bits: x, width: 32 }];
            let expected = diagnose::eval_any(&sibling, &ops, m.got.width, profile)?;
            if m.got.is_subset_of(&expected) {
                return Some(false);
            }
            let d = diagnose_only(&sibling, &ops, m.got.width, profile, &expected, &m.got, Hyps(1 << key));
            d.units.iter().any(|x| x.lane == units[j].lane_index && x.hyps.has(key)).then_some(true)
        };
        // Units the cause reproduces as they are need no narrowing: they count, and stay.
        let fits: Vec<(usize, Option<bool>)> =
            js.iter().map(|&j| (j, if adm[j].has(key) { None } else { fit(j) })).collect();
        let by_cause = fits.iter().filter(|(_, f)| *f == Some(true)).count();
        let held = |j: usize| adm[j].has(key) || chosen[j].is_some_and(|k| others.contains(&k));
        let elsewhere = fits.iter().filter(|(j, f)| f.is_none() && held(*j)).count();
        let fitting = fits.iter().filter(|(_, f)| f.is_some()).count();
        // The cause must carry the variant, not the narrowing alone; the sibling's
        // other causes (its NaN rule, say) may hold the rest.
        if by_cause * 4 >= js.len() && (fitting + elsewhere) * 10 >= js.len() * 9 {
            out.extend(fits.into_iter().filter(|(_, f)| f.is_some()).map(|(j, _)| (j, key)));
        }
    }
    out
}

/// Whether hypothesis `h` holds wherever the answers can test it: admissible
/// in every variant where it reproduces a wrong answer, and refuted by no
/// right answer of any other variant.
fn holds_everywhere(h: usize, stats: &HashMap<Cvt, VariantStats>, evidence: &Evidence, profile: Profile) -> bool {
    let ok = stats.values().all(|s| {
        if s.support[h] > 0 {
            s.refuted[h] * REFUTED_PER_SUPPORTED <= s.support[h]
        } else {
            s.refuted[h] == 0
        }
    });
    let limit = vec![0u64; CATALOGUE.len()];
    ok && evidence
        .per_variant
        .keys()
        .filter(|c| !stats.contains_key(c))
        .all(|c| evidence.refutations(c, Hyps(1 << h), &limit, profile)[h] == 0)
}

/// The class key of each chosen hypothesis. Hypotheses of one cause
/// (catalogue.rs `CAUSES`) chosen for the same conversion (source and
/// destination type) are one decision of that code path: one class,
/// joined transitively. Elsewhere they stay apart (`.rn` truncating into
/// bf16 and `.rz` ignored for s32 sources are two defects). Rows that answer
/// with another rounding join only where the modes form a cycle in one
/// conversion (`.rm` answering as `.rp` and `.rp` as `.rm`: one switch that
/// swaps them); `.rn` whose ties go away and `.rm` that truncates are two
/// defects of one rounding routine, and they join nothing else of the cause.
fn cause_classes(units: &[UnitRef], chosen: &[Scoped], mismatches: &[Mismatch]) -> HashMap<usize, usize> {
    use diagnose::catalogue::{answers_with, as_float};
    let mut pairs: BTreeMap<usize, BTreeSet<(Type, Type)>> = BTreeMap::new();
    // Per conversion: written mode → the mode answered, and the row saying so.
    let mut edges: BTreeMap<(Type, Type), BTreeSet<ModeEdge>> = BTreeMap::new();
    for (u, h) in units.iter().zip(chosen) {
        if let Some(h) = h {
            let c = &mismatches[u.k].case.instr;
            pairs.entry(*h).or_default().insert((c.atype, c.dtype));
            if let (Some(to), Some(from)) = (answers_with(*h), c.rounding) {
                edges.entry((c.atype, c.dtype)).or_default().insert((as_float(from), to, *h));
            }
        }
    }
    let mut cycles: BTreeSet<(usize, usize)> = BTreeSet::new();
    for es in edges.values() {
        let on_cycle: Vec<ModeEdge> = es.iter().copied().filter(|&(from, to, _)| reaches(es, to, from)).collect();
        for &(fa, _, a) in &on_cycle {
            for &(fb, _, b) in &on_cycle {
                if reaches(es, fa, fb) && reaches(es, fb, fa) {
                    cycles.insert((a, b));
                }
            }
        }
    }
    let joins = |a: usize, b: usize| {
        let cause = diagnose::catalogue::cause_key;
        cause(a) == cause(b)
            && match (answers_with(a).is_some(), answers_with(b).is_some()) {
                (true, true) => cycles.contains(&(a, b)),
                (false, false) => !pairs[&a].is_disjoint(&pairs[&b]),
                _ => false,
            }
    };
    let hs: Vec<usize> = pairs.keys().copied().collect();
    let mut key: HashMap<usize, usize> = hs.iter().map(|&h| (h, h)).collect();
    while let Some((ka, kb)) =
        hs.iter().find_map(|&a| hs.iter().find(|&&b| key[&a] != key[&b] && joins(a, b)).map(|&b| (key[&a], key[&b])))
    {
        for k in key.values_mut() {
            if *k == kb {
                *k = ka;
            }
        }
    }
    key
}

/// A written rounding mode, the mode answered instead, and the row saying so.
type ModeEdge = (Rounding, Rounding, usize);

/// Whether `to` is reached from `from` along the edges (a mode reaches itself).
fn reaches(edges: &BTreeSet<ModeEdge>, from: Rounding, to: Rounding) -> bool {
    let mut seen = vec![from];
    let mut i = 0;
    while let Some(&m) = seen.get(i) {
        if m == to {
            return true;
        }
        for &(a, b, _) in edges {
            if a == m && !seen.contains(&b) {
                seen.push(b);
            }
        }
        i += 1;
    }
    false
}

/// For each unit chosen `of` (`None`: each unit nothing explains): the
/// rewrite hypothesis chosen for other units of its variant and the
/// established cause that, on top of it, reproduces the unit (their class
/// keys), neither of them `of`. For a hypothesis, it stops at the first unit
/// without such a pair (the caller needs them all).
fn composites(
    units: &[UnitRef],
    chosen: &[Scoped],
    mismatches: &[Mismatch],
    profile: Profile,
    of: Option<usize>,
) -> Vec<(usize, (ClassKey, ClassKey))> {
    let keys: BTreeSet<ClassKey> = chosen.iter().flatten().copied().filter(|&k| Some(k) != of).collect();
    let established = Hyps(keys.iter().fold(0, |a, k| a | 1 << k));
    let mut in_variant: HashMap<Cvt, BTreeSet<ClassKey>> = HashMap::new();
    for (u, key) in units.iter().zip(chosen) {
        if let Some(key) = key.filter(|&k| Some(k) != of) {
            in_variant.entry(mismatches[u.k].case.instr).or_default().insert(key);
        }
    }
    let mut out = Vec::new();
    for (j, u) in units.iter().enumerate().filter(|(j, _)| chosen[*j] == of) {
        let m = &mismatches[u.k];
        let c = &m.case.instr;
        let found = in_variant.get(c).and_then(|firsts| {
            firsts.iter().find_map(|&first| {
                let c1 = diagnose::catalogue::rewrite(CATALOGUE[first].name, c)?;
                let expected = diagnose::eval_any(&c1, &m.case.operands, m.got.width, profile)?;
                let d = diagnose_only(&c1, &m.case.operands, m.got.width, profile, &expected, &m.got, established);
                let unit = d.units.iter().find(|x| x.lane == u.lane_index)?;
                // A second cause of the same decision is not a second cause.
                let cause = diagnose::catalogue::cause_key;
                let second = (0..CATALOGUE.len()).find(|&i| unit.hyps.has(i) && cause(i) != cause(first))?;
                let key = keys.iter().find(|&&k| k == second)?;
                Some((first, *key))
            })
        });
        match found {
            Some(pair) => out.push((j, pair)),
            None if of.is_some() => break,
            None => {}
        }
    }
    out
}

/// Where a class nothing explains comes from, and where its answers lie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unexplained {
    pub hub: Hub,
    pub regions: BTreeSet<Region>,
    pub fields: BTreeSet<Field>,
    /// The kinds of value the implementation answered.
    pub answers: BTreeSet<Answer>,
}

impl Unexplained {
    pub fn text(&self) -> String {
        let r: Vec<&str> = self.regions.iter().map(|r| r.text()).collect();
        let f: Vec<&str> = self.fields.iter().map(|f| f.text()).collect();
        let a: Vec<String> = self.answers.iter().map(|a| a.text()).collect();
        format!(
            "{}, {}, wrong bits in {}, answered as {}",
            self.hub.text(),
            r.join(" and "),
            f.join(" or "),
            a.join(" or ")
        )
    }
}

/// Where the highest wrong bit of a unit lies in its result format: which
/// part of a converter computed it (the exponent, the significand's rounding,
/// the sign, an integer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Field {
    Sign,
    Exponent,
    Fraction,
    Integer,
    /// The oracle allows several answers (or the answer is not one value).
    Unknown,
}

impl Field {
    pub fn text(self) -> &'static str {
        match self {
            Field::Sign => "the sign",
            Field::Exponent => "the exponent field",
            Field::Fraction => "the fraction field",
            Field::Integer => "the integer",
            Field::Unknown => "an answer the oracle leaves open",
        }
    }

    /// The field of the highest bit that `got` and the oracle's answer differ
    /// in, within `lane` (or the lowest lane that differs).
    fn of(m: &Mismatch, lane: Option<u8>) -> Field {
        let (Some(e), Some(g)) = (m.outcome.accept.single(), m.got.single()) else { return Field::Unknown };
        let lanes = Lanes::of(&m.case.instr);
        let x = wrong_lane(&lanes, e, g, lane).map_or(e ^ g, |i| lanes.lane(e ^ g, i));
        let Some(l) = lanes.dst.float_layout() else { return Field::Integer };
        let top = 63 - u64::from(x.max(1).leading_zeros());
        if top >= u64::from(l.exp_bits + l.man_bits) {
            Field::Sign
        } else if top >= u64::from(l.man_bits) {
            Field::Exponent
        } else {
            Field::Fraction
        }
    }
}

/// The lane a unit is about: its own, or for a whole answer the lowest lane
/// where `got` differs from the oracle's `expected`.
fn wrong_lane(lanes: &Lanes, expected: u64, got: u64, lane: Option<u8>) -> Option<u32> {
    lane.map(u32::from).or_else(|| (0..lanes.n).find(|&i| lanes.lane(expected ^ got, i) != 0))
}

/// The kind of a value in its lane's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ValueKind {
    Zero,
    Subnormal,
    Normal,
    Largest,
    Inf,
    Nan,
    /// An integer or fixed-point result.
    Integer,
}

impl ValueKind {
    pub fn text(self) -> &'static str {
        match self {
            ValueKind::Zero => "zeros",
            ValueKind::Subnormal => "subnormals",
            ValueKind::Normal => "normal numbers",
            ValueKind::Largest => "largest finite values",
            ValueKind::Inf => "infinities",
            ValueKind::Nan => "NaNs",
            ValueKind::Integer => "integers",
        }
    }

    /// The kind of value `code` is in `f`.
    fn of(f: Format, code: u64) -> ValueKind {
        let Some(l) = f.float_layout() else { return ValueKind::Integer };
        match ptx_cvt::exact::decode(f, code) {
            ptx_cvt::exact::Value::Nan(_) => ValueKind::Nan,
            ptx_cvt::exact::Value::Inf { .. } => ValueKind::Inf,
            ptx_cvt::exact::Value::Num { mag, .. } if mag.is_zero() => ValueKind::Zero,
            ptx_cvt::exact::Value::Num { .. } => {
                let mag = code & !l.sign_bit() & l.code_mask();
                if mag == l.max_finite_code() {
                    ValueKind::Largest
                } else if mag >> l.man_bits == 0 {
                    ValueKind::Subnormal
                } else {
                    ValueKind::Normal
                }
            }
        }
    }
}

/// What the implementation did with a wrong answer: a value of the kind
/// the oracle's answer is, with other bits, or another kind of value (a
/// normal number answered as zero, a NaN as the largest value). Defects of
/// code several conversions share fail in the same variants and path cells,
/// but each answers its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Answer {
    Kept,
    Became {
        right: ValueKind,
        got: ValueKind,
    },
    /// Either answer is not one value.
    Unknown,
}

impl Answer {
    pub fn text(self) -> String {
        match self {
            Answer::Kept => "values of the right kind".to_string(),
            Answer::Became { right, got } => format!("{} where {} are right", got.text(), right.text()),
            Answer::Unknown => "answers of several values".to_string(),
        }
    }

    /// What the implementation answered in `lane` (or the lowest lane that
    /// differs from the oracle's).
    fn of(m: &Mismatch, lane: Option<u8>) -> Answer {
        let (Some(g), Some(e)) = (m.got.single(), m.outcome.accept.single()) else { return Answer::Unknown };
        let lanes = Lanes::of(&m.case.instr);
        let i = wrong_lane(&lanes, e, g, lane).unwrap_or(0);
        let (right, got) = (ValueKind::of(lanes.dst, lanes.lane(e, i)), ValueKind::of(lanes.dst, lanes.lane(g, i)));
        if right == got {
            Answer::Kept
        } else {
            Answer::Became { right, got }
        }
    }
}

/// The representative of `x` in a union-find forest (path halving).
fn find(root: &mut [usize], mut x: usize) -> usize {
    while root[x] != x {
        root[x] = root[root[x]];
        x = root[x];
    }
    x
}

/// Join the sets of `a` and `b`, the smaller index representing both.
fn join(root: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(root, a), find(root, b));
    root[ra.max(rb)] = ra.min(rb);
}

/// Within each code path of what nothing explains (`paths`), the group of
/// each unit by what it answered: units of one path that answer differently
/// (`Answer`) are apart, unless `SAME_CELLS` of the smaller group's units
/// lie in (path cell, variant) pairs the other group also has (one branch
/// whose wrong value lands in two kinds), and a group of fewer than
/// `FEW_ANSWERS` units stays with its path's biggest. Returns a group index
/// per unit (`usize::MAX` for the others).
fn answer_groups(cells: &[Option<Cell>], variants: &[Cvt], paths: &[usize], answers: &[Answer]) -> Vec<usize> {
    // (path, answer) -> units per (cell, variant)
    type Footprint<'a> = BTreeMap<(&'a Cell, Cvt), usize>;
    let mut by_group: BTreeMap<(usize, Answer), Footprint> = BTreeMap::new();
    for (((cell, &p), &a), &c) in cells.iter().zip(paths).zip(answers).zip(variants) {
        if let Some(cell) = cell {
            *by_group.entry((p, a)).or_default().entry((cell, c)).or_default() += 1;
        }
    }
    let keys: Vec<(usize, Answer)> = by_group.keys().copied().collect();
    let mut root: Vec<usize> = (0..keys.len()).collect();
    for a in 0..keys.len() {
        for b in a + 1..keys.len() {
            if keys[a].0 != keys[b].0 {
                continue;
            }
            let (ca, cb) = (&by_group[&keys[a]], &by_group[&keys[b]]);
            let (na, nb): (usize, usize) = (ca.values().sum(), cb.values().sum());
            let (small, big, n) = if na <= nb { (ca, cb, na) } else { (cb, ca, nb) };
            let shared: usize = small.iter().filter(|(c, _)| big.contains_key(*c)).map(|(_, k)| k).sum();
            if shared * SAME_CELLS.1 >= n * SAME_CELLS.0 {
                join(&mut root, a, b);
            }
        }
    }
    let index: HashMap<(usize, Answer), usize> = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let group: Vec<usize> = cells
        .iter()
        .zip(paths)
        .zip(answers)
        .map(|((cell, &p), &a)| match cell {
            Some(_) => find(&mut root, index[&(p, a)]),
            None => usize::MAX,
        })
        .collect();
    // Too few answers of a kind show no branch of their own (a flipped low
    // bit turns one zero into a subnormal): they stay with their path's
    // biggest group.
    let mut size: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (&p, &g) in paths.iter().zip(&group) {
        if g != usize::MAX {
            *size.entry((p, g)).or_default() += 1;
        }
    }
    let mut biggest: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for (&(p, g), &n) in &size {
        let b = biggest.entry(p).or_insert((n, g));
        if n > b.0 {
            *b = (n, g);
        }
    }
    paths
        .iter()
        .zip(group)
        .map(|(&p, g)| match size.get(&(p, g)) {
            Some(&n) if n < FEW_ANSWERS => biggest[&p].1,
            _ => g,
        })
        .collect()
}

/// A path cell: the hub, the kinds of source and result, the region and the
/// field of the wrong bits.
type Cell = (Hub, String, String, Region, Field);

/// The code path of each unit nothing explains, as the index of its first
/// *path cell* (`usize::MAX` for the others). A cell is one hub and one way
/// through a conversion: the kinds of source and result and the region, from
/// the coverage class, and the field its wrong bits are in (the exponent's
/// code and the significand's are apart in a converter). A defect in one
/// branch strikes a few cells in the
/// variants that reach the branch, so cells of a hub that fail in the same
/// variants are one code path: joined (transitively) where at least half of
/// the smaller one's variants are the other's. Cells in disjoint variants
/// stay apart (a broken subnormal branch of f16 and a broken rounding of
/// e4m3 are two defects).
fn unexplained_paths(cells: &[Option<Cell>], units: &[UnitRef], mismatches: &[Mismatch]) -> Vec<usize> {
    let mut variants: BTreeMap<&Cell, BTreeSet<Cvt>> = BTreeMap::new();
    for (cell, u) in cells.iter().zip(units) {
        if let Some(cell) = cell {
            variants.entry(cell).or_default().insert(mismatches[u.k].case.instr);
        }
    }
    let keys: Vec<&Cell> = variants.keys().copied().collect();
    let mut root: Vec<usize> = (0..keys.len()).collect();
    for a in 0..keys.len() {
        for b in a + 1..keys.len() {
            let (va, vb) = (&variants[keys[a]], &variants[keys[b]]);
            if keys[a].0 == keys[b].0 && 2 * va.intersection(vb).count() >= va.len().min(vb.len()) {
                join(&mut root, a, b);
            }
        }
    }
    let index: HashMap<&Cell, usize> = keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    cells
        .iter()
        .map(|cell| match cell {
            Some(cell) => find(&mut root, index[cell]),
            None => usize::MAX,
        })
        .collect()
}

/// The path cell of each unit nothing explains (`None` for the others).
fn path_cells(
    units: &[UnitRef],
    chosen: &[Scoped],
    mismatches: &[Mismatch],
    hubs: &HashMap<(Format, Format), Hub>,
) -> Vec<Option<Cell>> {
    units
        .iter()
        .zip(chosen)
        .map(|(u, h)| {
            h.is_none().then(|| {
                let m = &mismatches[u.k];
                let mut parts = m.class.split('/').map(|p| p.split('+').next().unwrap_or(""));
                let (input, result) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
                let hub = hubs[&Lanes::of(&m.case.instr).pair()];
                (hub, input.to_string(), result.to_string(), Region::of(&m.class), Field::of(m, u.lane_index))
            })
        })
        .collect()
}

/// Where the wrong answers nothing explains come from: the reading of one
/// kind of source or the writing of one kind of result (all integer formats
/// are one kind: one reader, one writer in most implementations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Hub {
    Source(Kind),
    Result(Kind),
}

/// The part of the input space a wrong answer lies in, from its coverage
/// class (`input/result/event`): defects nothing explains are told apart
/// by where they strike: the NaN and Inf branch, the range check
/// (overflow, clamping), or the ordinary path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Region {
    Special,
    Range,
    Ordinary,
}

impl Region {
    pub fn text(self) -> &'static str {
        match self {
            Region::Special => "NaN and Inf sources",
            Region::Range => "out-of-range values",
            Region::Ordinary => "ordinary values",
        }
    }

    fn of(class: &str) -> Region {
        let mut parts = class.split('/');
        let (input, result, event) =
            (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let has = |s: &str, w: &str| s.split('+').any(|p| p.starts_with(w));
        if has(input, "nan") || has(input, "inf") {
            Region::Special
        } else if ["overflow", "clamp", "sat", "wrap"].iter().any(|w| event.contains(w))
            || ["max", "inf", "min"].iter().any(|w| has(result, w))
        {
            Region::Range
        } else {
            Region::Ordinary
        }
    }
}

/// A format, or every integer format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Integers,
    Format(Format),
}

impl Kind {
    fn of(f: Format) -> Kind {
        if f.is_float() || f.fixed_frac_bits().is_some() {
            Kind::Format(f)
        } else {
            Kind::Integers
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Kind::Integers => "integer",
            Kind::Format(f) => f.name(),
        }
    }
}

impl Hub {
    pub fn text(self) -> String {
        match self {
            Hub::Source(k) => format!("conversions from {} (and the formats they share code with)", k.name()),
            Hub::Result(k) => format!("conversions to {} (and the formats they share code with)", k.name()),
        }
    }
}

/// The hub of each (source, destination) lane-format pair with unexplained
/// units. The pairs form a graph over format kinds (a source kind and a
/// result kind joined by each failing pair); a defect in one reader or
/// writer, or in code several formats share, makes one connected part of it.
/// Each part is one hub, named by its busiest side: the source kind with the
/// most pairs, or the result kind (ties: the result side).
fn hubs(units: &[UnitRef], chosen: &[Scoped], mismatches: &[Mismatch]) -> HashMap<(Format, Format), Hub> {
    let pairs: BTreeSet<(Format, Format)> = units
        .iter()
        .zip(chosen)
        .filter(|(_, h)| h.is_none())
        .map(|(u, _)| Lanes::of(&mismatches[u.k].case.instr).pair())
        .collect();
    // Union-find over the nodes: Hub::Source(kind) and Hub::Result(kind).
    let mut parent: BTreeMap<Hub, Hub> = BTreeMap::new();
    fn root(parent: &mut BTreeMap<Hub, Hub>, x: Hub) -> Hub {
        let p = *parent.entry(x).or_insert(x);
        if p == x {
            return x;
        }
        let r = root(parent, p);
        parent.insert(x, r);
        r
    }
    let mut degree: BTreeMap<Hub, usize> = BTreeMap::new();
    for &(s, d) in &pairs {
        let (a, b) = (Hub::Source(Kind::of(s)), Hub::Result(Kind::of(d)));
        *degree.entry(a).or_default() += 1;
        *degree.entry(b).or_default() += 1;
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            parent.insert(ra, rb);
        }
    }
    // Each part's name: its node of the highest degree (results first on ties).
    let mut name: BTreeMap<Hub, Hub> = BTreeMap::new();
    for (&node, &n) in &degree {
        let r = root(&mut parent, node);
        let better = |cur: Hub| {
            let m = degree[&cur];
            n > m || n == m && matches!(node, Hub::Result(_)) && matches!(cur, Hub::Source(_))
        };
        match name.get(&r) {
            Some(&cur) if !better(cur) => {}
            _ => {
                name.insert(r, node);
            }
        }
    }
    pairs
        .into_iter()
        .map(|(s, d)| {
            let r = root(&mut parent, Hub::Source(Kind::of(s)));
            ((s, d), name[&r])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::diagnose::CATALOGUE;
    use crate::mismatch::{Mismatch, Origin};
    use crate::triage::{Explanation, Triage};
    use ptx_cvt::gen::{self, Level};
    use ptx_cvt::{evaluate, AcceptSet, Case, Cvt, Operand, Profile};

    /// A triage of an implementation `imp` (`None`: the oracle's answer)
    /// over the compact cases of `variants`.
    fn run(variants: &[&str], imp: impl Fn(&Cvt, &[Operand], u64) -> Option<u64>) -> Triage {
        let mut t = Triage::new(Profile::Sm90);
        for v in variants {
            let c: Cvt = v.parse().unwrap();
            for g in gen::cases(&c, Level::Compact, 1) {
                let o = evaluate(&c, &g.operands, g.dst_width, Profile::Sm90).unwrap();
                let Some(e) = o.accept.single() else { continue };
                let got = imp(&c, &g.operands, e).unwrap_or(e);
                if got == e {
                    t.passed_case(&c, &g.operands, g.dst_width, got);
                } else {
                    let case = Case {
                        instr: c,
                        operands: g.operands.clone(),
                        result: Some(AcceptSet::exact(g.dst_width, got)),
                        comment: None,
                    };
                    t.mismatch(&Mismatch::new(Origin::default(), case, o, Profile::Sm90));
                }
            }
        }
        t
    }

    fn names(t: &Triage) -> Vec<Option<&'static str>> {
        t.group().classes.iter().map(|b| b.name()).collect()
    }

    /// An adapter that answers 0 to everything (the wiring mistake every new
    /// user makes once) is one defect: one class, whatever the families.
    #[test]
    fn a_degenerate_implementation_is_one_class() {
        let t = run(&["cvt.rn.f16.f32", "cvt.rzi.s32.f64", "cvt.u16.u8", "cvt.rn.f32.s64"], |_, _, _| Some(0));
        assert_eq!(names(&t).len(), 1, "{}", t.text(&t.group(), false));
    }

    /// A clamp whose lower bound is +2^15 (GPGPU-Sim's `d2x` computes it as
    /// `1 << (to_width - 1)`): every f64 → s16 at most 32767 gives 8000. For
    /// a negative source `source-as-int` gives 8000 too (a negative double's
    /// bits, read as an s64, clamp to −2^15), but the same answer for the
    /// positive ones says the input did not make it: no name, one class.
    #[test]
    fn a_constant_answer_is_not_named_by_the_half_a_hypothesis_reproduces() {
        let t = run(&["cvt.rmi.sat.s16.f64", "cvt.rzi.sat.s16.f64"], |_, ops, e| {
            let x = f64::from_bits(ops[0].bits);
            if x.is_nan() {
                return Some(e);
            }
            Some(if x.floor() > 32767.0 { 0x7fff } else { 0x8000 })
        });
        let g = t.group();
        let text = t.text(&g, false);
        assert_eq!(g.classes.len(), 1, "{text}");
        assert!(!names(&t).contains(&Some("source-as-int")), "{text}");
    }

    /// A bf16 converter that truncates (`f32 bits >> 16`, a `.rn` that acts
    /// as `.rz`) handed an f64 narrows it to f32 first (Rust's `as`, to
    /// nearest even: IEEE 754). The f64 variant is the f32 path's defect on
    /// the narrowed source: one class, not the mechanisms its double
    /// rounding happens to resemble.
    #[test]
    fn a_wide_source_narrowed_to_f32_joins_the_f32_paths_cause() {
        let t = run(&["cvt.rn.bf16.f32", "cvt.rn.bf16.f64"], |c, ops, e| {
            let x = if c.atype == ptx_cvt::Type::F64 {
                f64::from_bits(ops[0].bits) as f32
            } else {
                f32::from_bits(ops[0].bits as u32)
            };
            (!x.is_nan()).then(|| u64::from(x.to_bits() >> 16)).or(Some(e))
        });
        let g = t.group();
        assert_eq!(names(&t), [Some("rounding-rz")], "{}", t.text(&g, false));
    }

    /// Negative values that wrap into an unsigned type: "wraps" reproduces
    /// every wrong answer too, but the right answers above the range (which
    /// it would wrap) refute it; the class is named by the cause that
    /// survives.
    #[test]
    fn right_answers_refute_a_hypothesis() {
        let t = run(&["cvt.rzi.u32.f32"], |_, ops, _| {
            let x = f32::from_bits(ops[0].bits as u32);
            (x < 0.0 && x > -2147483648.0).then_some((x as i64 as u64) & 0xffff_ffff)
        });
        let g = t.group();
        assert_eq!(names(&t), [Some("wraps-negative")], "{}", t.text(&g, false));
        let wraps = g.classes[0].hypotheses.iter().find(|h| CATALOGUE[h.index].name == "wraps").unwrap();
        assert!(wraps.refuted > 0, "{:?}", g.classes[0].hypotheses);
    }

    /// Two lanes wrong for different reasons: the case is in two classes,
    /// counted once. Each lane of a negative source ignores `.relu` (the
    /// negative value kept); each lane of a positive one truncates.
    #[test]
    fn lanes_wrong_for_different_reasons_are_in_two_classes() {
        let t = run(&["cvt.rn.relu.f16x2.f32"], |c, ops, e| {
            let lane = |op: Operand| {
                let neg = op.bits >> 31 == 1;
                let how =
                    if neg { Cvt { relu: false, ..*c } } else { Cvt { rounding: Some(ptx_cvt::Rounding::Rz), ..*c } };
                evaluate(&how, &[op, op], 32, Profile::Sm90).ok()?.accept.single().map(|b| b & 0xffff)
            };
            Some(lane(ops[0])? << 16 | lane(ops[1])?).filter(|&g| g != e)
        });
        let g = t.group();
        let text = t.text(&g, false);
        let n = names(&t);
        assert_eq!(n.len(), 2, "{text}");
        assert!(n.contains(&Some("rounding-rz")), "{text}");
        // `.relu` ignored, named alone or as every modifier dropped (the form has no other).
        assert!(n.contains(&Some("no-relu")) || n.contains(&Some("modifiers-ignored")), "{text}");
        assert!(g.classes_of.iter().any(|ids| ids.len() == 2), "{text}");
        assert!(g.classes.iter().all(|b| b.lane_units > 0));
        assert_eq!(t.counts().failed as usize, t.mismatches.len());
    }

    /// A rule named only with evidence: wrong answers nothing explains are
    /// "no hypothesis reproduces these", not a coincidental name.
    #[test]
    fn what_nothing_explains_is_said_so() {
        // Garbage in the low bits of the inexact results of ordinary values (f32 exponent field 112..140).
        let t = run(&["cvt.rn.f16.f32"], |_, ops, e| {
            let field = ops[0].bits >> 23 & 0xff;
            (ops[0].bits & 0x1fff != 0 && (112..=140).contains(&field)).then_some(e ^ 0x155)
        });
        let g = t.group();
        assert_eq!(g.classes.len(), 1, "{}", t.text(&g, false));
        assert_eq!(g.classes[0].explanation, Explanation::None);
        assert!(g.classes[0].text(16).contains("no hypothesis reproduces these"));
    }

    /// Two defects on one code path of one variant (normal results): low
    /// fraction bits garbled where the source's bit 0 is set, and a NaN
    /// written where bits 0 and 1 are clear. The same variant and region,
    /// but one answers values of the right kind and the other NaNs for
    /// numbers: two classes, each saying what it answered.
    #[test]
    fn defects_answering_different_kinds_on_one_path_are_apart() {
        let t = run(&["cvt.rn.f16.f32"], |_, ops, e| {
            let normal = (0x0400..0x7800).contains(&(e & 0x7fff));
            match ops[0].bits & 3 {
                1 | 3 if normal => Some(e ^ 0x0055),
                0 if normal => Some(0x7e01),
                _ => None,
            }
        });
        let g = t.group();
        let text = t.text(&g, false);
        assert_eq!(g.classes.len(), 2, "{text}");
        assert!(g.classes.iter().all(|b| b.explanation == Explanation::None), "{text}");
        assert!(text.contains("answered as values of the right kind"), "{text}");
        assert!(text.contains("answered as NaNs where normal numbers are right"), "{text}");
    }

    /// `.rz` ignored into f16 and bf16 (rounded to nearest), and NaN
    /// sources answered +0 (`nan-to-zero`) in `nan_in`, a few cases against
    /// hundreds: where the big defect fails too, the few join its class,
    /// which says what they alone read as; in a variant of their own they
    /// stay a class.
    #[test]
    fn a_small_class_in_a_big_defects_variants_joins_it() {
        use ptx_cvt::Rounding::{Rn, Rz};
        let imp = |nan_in: &'static str| {
            move |c: &Cvt, ops: &[Operand], e: u64| {
                let nan = f32::from_bits(ops[0].bits as u32).is_nan();
                if c.to_string() == nan_in && nan {
                    return Some(0).filter(|&z| z != e);
                }
                (c.rounding == Some(Rz))
                    .then(|| evaluate(&Cvt { rounding: Some(Rn), ..*c }, ops, 16, Profile::Sm90).ok()?.accept.single())
                    .flatten()
            }
        };
        let big = ["cvt.rz.f16.f32", "cvt.rz.f16.f64", "cvt.rz.bf16.f32", "cvt.rz.bf16.f64"];
        let t = run(&big, imp("cvt.rz.f16.f32"));
        let g = t.group();
        let text = t.text(&g, false);
        let nans = t.mismatches.iter().filter(|m| m.got.single() == Some(0)).count();
        assert!(nans > 0 && nans * 100 < t.mismatches.len(), "{nans} of {}", t.mismatches.len());
        assert_eq!(names(&t), [Some("rounding-rn")], "{text}");
        assert_eq!(g.classes[0].absorbed, [(Some("nan-to-zero"), nans)], "{text}");
        assert!(text.contains("too few to be a defect apart: "), "{text}");
        let t = run(&[&big[..], &["cvt.rn.f16.f32"]].concat(), imp("cvt.rn.f16.f32"));
        let g = t.group();
        let text = t.text(&g, false);
        assert_eq!(names(&t), [Some("rounding-rn"), Some("nan-to-zero")], "{text}");
        assert!(g.classes.iter().all(|b| b.absorbed.is_empty()), "{text}");
    }

    /// `.rz` ignored in `cvt.rz.f16.f32` (answers rounded to nearest), and
    /// every NaN source answered `1234` (no hypothesis gives that). Where
    /// only the `.rz` form has that NaN defect, its NaN answers join the
    /// rounding's class, said apart; where `cvt.rn.f16.f64`, a variant with
    /// no established cause, has it too, they are a class of their own.
    #[test]
    fn what_nothing_explains_in_a_causes_variants_joins_it() {
        use ptx_cvt::Rounding::Rn;
        let imp = |c: &Cvt, ops: &[Operand], _| {
            let nan = match c.atype {
                ptx_cvt::Type::F32 => f32::from_bits(ops[0].bits as u32).is_nan(),
                _ => f64::from_bits(ops[0].bits).is_nan(),
            };
            if nan {
                return Some(0x1234);
            }
            (c.atype == ptx_cvt::Type::F32)
                .then(|| evaluate(&Cvt { rounding: Some(Rn), ..*c }, ops, 16, Profile::Sm90).ok()?.accept.single())
                .flatten()
        };
        let t = run(&["cvt.rz.f16.f32"], imp);
        let g = t.group();
        let text = t.text(&g, false);
        let nans = t.mismatches.iter().filter(|m| m.got.single() == Some(0x1234)).count();
        assert_eq!(g.classes.len(), 1, "{text}");
        assert_eq!(g.classes[0].name(), Some("rounding-rn"), "{text}");
        assert!(nans > 0 && g.classes[0].unexplained_units == nans, "{text}");
        assert!(g.classes[0].text(16).contains("no hypothesis reproduces"), "{text}");
        let t = run(&["cvt.rz.f16.f32", "cvt.rn.f16.f64"], imp);
        let g = t.group();
        let text = t.text(&g, false);
        assert_eq!(g.classes.len(), 2, "{text}");
        assert!(g.classes.iter().all(|b| b.unexplained_units == 0), "{text}");
        let rest = g.classes.iter().find(|b| b.explanation == Explanation::None).expect(&text);
        assert_eq!(rest.variants.len(), 2, "{text}");
    }

    /// The bf16 rounding trick with no NaN check (`(x + 0x7fff + lsb) >> 16`,
    /// a common port): a NaN with a small payload rounds into Inf, one with
    /// every bit set carries into the sign (`8000`), the rest keep a payload.
    /// Three NaN answers of one branch are "a NaN source into a float gives
    /// another value than the rule's", one class.
    #[test]
    fn one_nan_branch_is_one_class() {
        let t = run(&["cvt.rn.bf16.f32"], |_, ops, _| {
            let x = ops[0].bits as u32;
            f32::from_bits(x).is_nan().then(|| u64::from((x.wrapping_add(0x7fff + (x >> 16 & 1)) >> 16) as u16))
        });
        let g = t.group();
        let text = t.text(&g, false);
        assert_eq!(g.classes.len(), 1, "{text}");
        assert_eq!(g.classes[0].cause().map(|c| c.name), Some("nan-to-float"), "{text}");
    }

    /// A converter that ignores both `.rz` and `.satfinite` (rounds to
    /// nearest, overflows to NaN with the value's sign, as a non-saturating
    /// e4m3 conversion does: docs/semantics.md §1.2, §5.8). Its `.rz`
    /// overflows are those two causes together, not an unchecked overflow:
    /// two classes, the rounding and the clamp.
    #[test]
    fn two_ignored_modifiers_are_not_a_third_cause() {
        use ptx_cvt::Rounding::Rn;
        let t = run(&["cvt.rn.satfinite.e4m3x2.f32", "cvt.rz.satfinite.e4m3x2.f32"], |c, ops, _| {
            let nearest = Cvt { rounding: Some(Rn), satfinite: false, ..*c };
            let e = crate::diagnose::eval_any(&nearest, ops, 16, Profile::Sm90)?.single()?;
            // The NaN an overflow gives takes the value's sign.
            let lane = |i: u32| {
                let (code, src) = (e >> (8 * i) & 0xff, ops[1 - i as usize].bits);
                if code & 0x7f == 0x7f && !f32::from_bits(src as u32).is_nan() {
                    code | (src >> 24 & 0x80)
                } else {
                    code
                }
            };
            Some(lane(1) << 8 | lane(0))
        });
        let g = t.group();
        let text = t.text(&g, false);
        let mut n = names(&t);
        n.sort();
        assert_eq!(n, [Some("no-satfinite"), Some("rounding-rn")], "{text}");
    }

    /// Two defects of one rounding routine: `.rn` always rounds up and `.rp`
    /// truncates. Both are "another mode's answer", but the modes form no
    /// cycle (no switch maps one onto the other): two classes.
    #[test]
    fn two_wrong_roundings_of_one_routine_are_two_classes() {
        use ptx_cvt::Rounding::{Rn, Rp, Rz};
        let t = run(&["cvt.rn.f16.f32", "cvt.rp.f16.f32"], |c, ops, _| {
            let r = if c.rounding == Some(Rn) {
                Rp
            } else if c.rounding == Some(Rp) {
                Rz
            } else {
                return None;
            };
            evaluate(&Cvt { rounding: Some(r), ..*c }, ops, 16, Profile::Sm90).ok()?.accept.single()
        });
        let g = t.group();
        let text = t.text(&g, false);
        let mut n = names(&t);
        n.sort();
        assert_eq!(n, [Some("rounding-rp"), Some("rounding-rz")], "{text}");
    }

    /// Wrong answers nothing explains, in one hub (conversions to f16) but on
    /// two code paths that share no variant: subnormal results of one
    /// conversion, normal results of another. Two classes; and one defect
    /// that strikes several paths of the same variants is one.
    #[test]
    fn unexplained_answers_on_separate_paths_are_separate_classes() {
        let garbage = |c: &Cvt, ops: &[Operand], e: u64| {
            let sub = e & 0x7c00 == 0 && e & 0x3ff != 0;
            // Below the largest value: the clamp's answers, garbled into
            // other normal numbers, would be a path of their own (rule 7).
            let normal = (0x0400..0x7bff).contains(&(e & 0x7fff));
            let hit = match c.to_string().as_str() {
                "cvt.rn.f16.f32" => sub,
                "cvt.rz.f16.f64" => normal && ops[0].bits & 0xfff != 0,
                _ => false,
            };
            hit.then_some(e ^ 0x155)
        };
        let t = run(&["cvt.rn.f16.f32", "cvt.rz.f16.f64"], garbage);
        let g = t.group();
        assert_eq!(g.classes.len(), 2, "{}", t.text(&g, false));
        assert!(g.classes.iter().all(|b| b.explanation == Explanation::None && b.variants.len() == 1));
        // Both paths of one variant (subnormal and normal results): one
        // class, as long as the answers keep their kind (a garbled Inf is a
        // NaN: told apart by what it answers).
        let finite = |e: u64| (1..0x7bff).contains(&(e & 0x7fff));
        let t = run(&["cvt.rn.f16.f32"], |_, ops, e| (ops[0].bits & 0x3 != 0 && finite(e)).then_some(e ^ 0x155));
        let g = t.group();
        assert_eq!(g.classes.len(), 1, "{}", t.text(&g, false));
        // One path (normal results), two parts of the code: wrong exponents
        // in `.rn`, wrong fractions in `.rz`: two classes.
        let t = run(&["cvt.rn.f16.f32", "cvt.rz.f16.f32"], |c, _, e| {
            let normal = (0x0400..0x7800).contains(&(e & 0x7fff));
            let rn = c.rounding == Some(ptx_cvt::Rounding::Rn);
            normal.then_some(if rn { e ^ 0x0400 } else { e ^ 0x0001 })
        });
        let g = t.group();
        let text = t.text(&g, false);
        assert_eq!(g.classes.len(), 2, "{text}");
        assert!(text.contains("wrong bits in the exponent field") && text.contains("wrong bits in the fraction field"));
    }

    /// A decoder that drops the top fraction bit of f32 sources answers, in
    /// every family, the right conversion of the value it read: the float
    /// and the integer destinations' classes read the same wrong values and
    /// are one defect. Where the integer path drops another bit, the two
    /// read different values and stay apart.
    #[test]
    fn one_misread_source_is_one_class_across_families() {
        let misread = |float_bit: u32, int_bit: u32| {
            move |c: &Cvt, ops: &[Operand], _| {
                let b = ops[0].bits;
                let bit = if c.dtype.format().is_float() { float_bit } else { int_bit };
                if b >> 23 & 0xff == 0xff || b >> bit & 1 == 0 {
                    return None;
                }
                let o = evaluate(c, &[Operand { bits: b & !(1 << bit), width: 32 }], c.dtype.bits(), Profile::Sm90);
                o.ok()?.accept.single()
            }
        };
        let variants = ["cvt.rn.f16.f32", "cvt.rni.s32.f32", "cvt.rz.bf16.f32", "cvt.rmi.u16.f32"];
        let class_of = |t: &Triage, variant: &str| {
            let g = t.group();
            g.classes.iter().position(|b| b.variants.iter().any(|c| c.to_string() == variant))
        };
        let t = run(&variants, misread(22, 22));
        let text = t.text(&t.group(), false);
        assert_eq!(class_of(&t, "cvt.rn.f16.f32"), class_of(&t, "cvt.rni.s32.f32"), "{text}");
        let t = run(&variants, misread(22, 21));
        let text = t.text(&t.group(), false);
        assert_ne!(class_of(&t, "cvt.rn.f16.f32"), class_of(&t, "cvt.rni.s32.f32"), "{text}");
    }

    /// One switch over the rounding modes that swaps `.rm` and `.rp` shows
    /// as two hypotheses ("answers equal `.rp`" in the `.rm` variant and the
    /// reverse): one decision, one class, both parts listed.
    #[test]
    fn one_wrong_decision_is_one_class() {
        use ptx_cvt::Rounding::{Rm, Rp};
        let t = run(&["cvt.rm.f16.f32", "cvt.rp.f16.f32"], |c, ops, _| {
            let swapped = Cvt { rounding: Some(if c.rounding == Some(Rm) { Rp } else { Rm }), ..*c };
            evaluate(&swapped, ops, 16, Profile::Sm90).ok()?.accept.single()
        });
        let g = t.group();
        let text = t.text(&g, false);
        assert_eq!(names(&t), [Some("rounding-direction")], "{text}");
        let parts: Vec<&str> = g.classes[0].parts.iter().map(|&(h, _)| CATALOGUE[h].name).collect();
        assert!(parts.contains(&"rounding-rp") && parts.contains(&"rounding-rm"), "{parts:?}");
    }

    /// A converter that takes `-x` as `~x` (one's complement) gets every
    /// negative integer's magnitude one short. Written here by hand with the
    /// host's own u32 → f32 conversion (round to nearest even, as `.rn`).
    #[test]
    fn a_ones_complement_negation_is_named() {
        let t = run(&["cvt.rn.f32.s32"], |_, ops, _| {
            let x = ops[0].bits as u32;
            if x >> 31 == 0 {
                return None;
            }
            Some(u64::from((!x as f32).to_bits() | 0x8000_0000))
        });
        let g = t.group();
        assert_eq!(g.classes[0].name(), Some("negation-ones-complement"), "{}", t.text(&g, false));
    }

    /// `.rpi` that rounds the magnitude up (the sign ignored): negative
    /// values go away from zero, where `.rpi` goes toward +∞. "Answers equal
    /// `.rmi`" reproduces the negative ones, but the positive right answers
    /// refute it; rounding away from zero reproduces both.
    #[test]
    fn directed_rounding_of_the_magnitude_is_rounding_away() {
        let t = run(&["cvt.rpi.s32.f32"], |_, ops, e| {
            let x = f32::from_bits(ops[0].bits as u32);
            if !x.is_finite() || x.abs() >= 2e9 {
                return Some(e);
            }
            let r = x.abs().ceil() * x.signum();
            Some(u64::from(r as i32 as u32))
        });
        let g = t.group();
        assert_eq!(g.classes[0].name(), Some("rounding-away"), "{}", t.text(&g, false));
    }
}
