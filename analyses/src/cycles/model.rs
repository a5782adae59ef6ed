//! From a block profile to cycles: llvm-mca's cycles for each block after the block that ran before it, plus the
//! terms llvm-mca leaves out (unpipelined FP64, taken branches, mispredictions, low-overhead loops),
//! each documented in docs/cycles.md.

use std::collections::HashMap;

use anyhow::Result;

use super::Core;
use super::mca::{Disassembly, Insn, Mca, RegionCost};
use pqhelium_guest::elf::GuestElf;
use pqhelium_guest::profile::{BlockId, Profile};

/// Cortex-M55: a taken branch refills the pipeline. LLVM's `ARMScheduleM55.td` (written by Arm) sets
/// `MispredictPenalty = 3` and describes the core as "a lot like the M4/M33" for scheduling, cores that fetch
/// sequentially and pay the refill on every taken branch; we charge it on every taken branch but `le`.
pub const M55_TAKEN_BRANCH: f64 = 3.0;
/// Cortex-M85: a mispredicted branch. LLVM's `ARMScheduleM85.td`: `MispredictPenalty = 4`; measured on an RA8D1
/// (jnk0le/random, `pipeline cycle test/doc/cortex_m85.md`): `le` ending a loop shows 4-5 cycles.
pub const M85_MISPREDICT: f64 = 4.0;
/// Cortex-M55 `le`, `dls`, `wls` (no scheduling information in LLVM 19's M55 model): one issue cycle each. After
/// the first iteration `le` is served from the loop cache (the Armv8.1-M LO_BRANCH_INFO): no cycle at all.
pub const M55_LOOP_INSN: f64 = 1.0;

/// FP64 arithmetic: the instructions LLVM's models time with the long FP64 latencies (`ARMScheduleM55.td`:
/// `WriteFPALU64` 15, `WriteFPMUL64` 21, `WriteFPMAC64` 36, VFMA D 24, `WriteFPDIV64`/`WriteFPSQRT64` 30;
/// `ARMScheduleM85.td`: 6, 8, 14, 29); the other `.f64` instructions (`vneg`, `vabs`, `vcvt`, `vmov`, `vcmp`, ...)
/// have the single-precision latencies 1-2.
const FP64_ARITHMETIC: [&str; 14] = [
    "vadd", "vsub", "vmul", "vnmul", "vmla", "vmls", "vnmla", "vnmls", "vfma", "vfms", "vfnma", "vfnms", "vdiv",
    "vsqrt",
];

fn is_fp64_arithmetic(text: &str) -> bool {
    let mnemonic = text.split_whitespace().next().unwrap_or("");
    mnemonic.strip_suffix(".f64").is_some_and(|op| FP64_ARITHMETIC.contains(&op))
}

/// What llvm-mca's schedule of a region (a block or a pair) leaves out, re-timed in order:
///
/// - *Unpipelined FP64* (both cores): each FP64 arithmetic instruction holds the core for its whole latency
///   (llvm-mca's, from Arm's `ARMScheduleM55.td`/`ARMScheduleM85.td`), nothing issues beside or behind it
///   (docs/cycles.md, "FP64 on the Cortex-M55" and "The Cortex-M85"); LLVM's models pipeline it.
/// - *No dual issue of 32-bit instructions* (Cortex-M55): the core pairs only 16-bit instructions
///   (`ARMScheduleM55.td`'s header); LLVM's model guesses the encoding from the opcode ("optimistic"), while the
///   disassembly knows it, so an instruction next to a 32-bit one issues at least a cycle after it.
///
/// An instruction issues no earlier than llvm-mca issued it, than the end of the FP64 instruction holding the core,
/// than the instruction before it plus their gap in llvm-mca's schedule, at most that instruction's latency (a gap
/// spent waiting for an older FP64 result is already covered by the hold), and, on the M55, than a cycle after the
/// instruction before it when either is 32-bit. The total grows by what the last result moved.
fn retime(core: Core, region: &[&Insn], cost: &RegionCost) -> RegionCost {
    let mut held = cost.clone();
    let mut free_at = 0;
    let mut before: Option<(u64, u64, u64, u32)> = None; // llvm-mca's issue, our issue, latency, size
    for (i, insn) in region.iter().enumerate() {
        let (Some(issued), Some(executed)) = (cost.issued[i], cost.executed[i]) else { continue };
        let latency = executed.saturating_sub(issued);
        let mut at = issued.max(free_at);
        if let Some((was, is, lat, size)) = before {
            at = at.max(is + issued.saturating_sub(was).min(lat));
            if core == Core::M55 && (size == 4 || insn.size == 4) {
                at = at.max(is + 1);
            }
        }
        (held.issued[i], held.executed[i]) = (Some(at), Some(at + latency));
        if is_fp64_arithmetic(&insn.text) {
            free_at = at + latency;
        }
        before = Some((issued, at, latency, insn.size));
    }
    let last = |c: &RegionCost| c.executed.iter().flatten().max().copied().unwrap_or(0);
    held.total = cost.total + last(&held) - last(cost);
    held
}

/// Instruction classes of the plot and of `--blocks`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Scalar,
    MveLoadStore,
    MveArith,
    Fp,
    Branch,
}

impl Class {
    pub const ALL: [Class; 5] = [Class::Scalar, Class::MveLoadStore, Class::MveArith, Class::Fp, Class::Branch];

    pub fn name(self) -> &'static str {
        match self {
            Class::Scalar => "scalar",
            Class::MveLoadStore => "MVE load/store",
            Class::MveArith => "MVE arithmetic",
            Class::Fp => "FP64 (scalar FP)",
            Class::Branch => "branches",
        }
    }

    fn index(self) -> usize {
        Class::ALL.iter().position(|&c| c == self).expect("listed")
    }
}

/// Cycles per class, indexed like [`Class::ALL`].
pub type ByClass = [f64; 5];

fn base(mnemonic: &str) -> &str {
    mnemonic.trim_end_matches(".w").trim_end_matches(".n")
}

const CONDITIONS: [&str; 16] =
    ["eq", "ne", "cs", "hs", "cc", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt", "gt", "le"];

/// How an instruction ends a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transfer {
    /// Not a branch: the block ended for another reason (size, page) and falls through.
    None,
    Conditional,
    /// Always taken: `b`, `bl`, `bx`, `blx`, `tbb`, `tbh`, a load of pc.
    Always,
    /// `le`/`letp`: taken back to the loop start but on the last iteration.
    LoopEnd,
    /// `wls`/`wlstp`: taken (past the loop) when the count is zero.
    LoopStart,
}

fn transfer(insn: &Insn) -> Transfer {
    let m = base(&insn.mnemonic);
    match m {
        "le" | "letp" => Transfer::LoopEnd,
        "wls" | "wlstp" => Transfer::LoopStart,
        "cbz" | "cbnz" => Transfer::Conditional,
        "b" | "bl" | "bx" | "blx" | "tbb" | "tbh" => Transfer::Always,
        _ if m.starts_with('b') && CONDITIONS.contains(&&m[1..]) => Transfer::Conditional,
        "pop" | "ldm" | "ldmia" | "ldr" | "ldmdb" if insn.text.contains("pc") && !insn.text.contains("[pc") => {
            Transfer::Always
        }
        _ => Transfer::None,
    }
}

/// The instruction's class: branches; MVE (a q register) loads/stores and the rest; scalar FP (`v*` without q); scalar.
pub fn classify(insn: &Insn) -> Class {
    let m = base(&insn.mnemonic);
    let is_loop = matches!(m, "le" | "letp" | "wls" | "wlstp" | "dls" | "dlstp");
    if is_loop || transfer(insn) != Transfer::None {
        return Class::Branch;
    }
    if !m.starts_with('v') {
        return Class::Scalar;
    }
    let has_q = insn
        .text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w.len() >= 2 && w.starts_with('q') && w[1..].chars().all(|c| c.is_ascii_digit()));
    let vector_only = ["vpst", "vpt", "vctp", "vpsel", "vpnot"].iter().any(|p| m.starts_with(p));
    match (has_q || vector_only, ["vld", "vst"].iter().any(|p| m.starts_with(p))) {
        (true, true) => Class::MveLoadStore,
        (true, false) => Class::MveArith,
        (false, _) => Class::Fp,
    }
}

/// Cortex-M85: a predicted direct branch (`b`, `bl`, a conditional branch, `cbz`/`cbnz`, `le`) issues beside the
/// two instructions before it, or one before and one at its target (jnk0le/random, `pipeline cycle test/doc/
/// cortex_m85.md`, RA8D1: the measuring template's 40 instructions and `bne` take 20 cycles an iteration): it takes no
/// issue cycle, and a misprediction is charged by [`M85_MISPREDICT`]. llvm-mca issues it alone and the next
/// instruction two cycles later, so such branches are left out of what it times.
fn issues_free(core: Core, insn: &Insn) -> bool {
    core == Core::M85
        && match transfer(insn) {
            Transfer::Conditional | Transfer::LoopEnd => true,
            Transfer::Always => matches!(base(&insn.mnemonic), "b" | "bl"),
            Transfer::None | Transfer::LoopStart => false,
        }
}

/// Cycles of an instruction llvm-mca skipped (no scheduling information), outside the loop terms.
fn unscheduled(core: Core, insn: &Insn) -> f64 {
    let m = base(&insn.mnemonic);
    match core {
        // `it` issues alongside two other instructions when fetch keeps up (jnk0le, cortex_m85.md).
        Core::M85 if m.starts_with("it") => 0.0,
        // `le` is charged by the loop term.
        Core::M55 if matches!(m, "le" | "letp") => 0.0,
        _ => 1.0,
    }
}

/// One block's share of a call.
#[derive(Debug, Clone)]
pub struct BlockEstimate {
    pub id: BlockId,
    /// `symbol+offset` of its first instruction.
    pub location: String,
    pub executions: f64,
    pub cycles: f64,
    pub by_class: ByClass,
}

/// The estimate of one call (the average over the profiled calls).
#[derive(Debug, Clone)]
pub struct Estimate {
    pub cycles: f64,
    pub instructions: f64,
    pub by_class: ByClass,
    /// What the terms on top of llvm-mca's schedule add (taken branches, mispredictions, loop instructions).
    pub branch_terms: f64,
    /// Blocks, most cycles first.
    pub blocks: Vec<BlockEstimate>,
}

/// The estimate for `calls` calls that produced `profile`.
pub fn estimate(
    core: Core,
    profile: &Profile,
    calls: u64,
    disassembly: &Disassembly,
    mca: &mut Mca,
    elf: &GuestElf,
) -> Result<Estimate> {
    let calls = calls.max(1) as f64;
    let mut code: HashMap<BlockId, Vec<&Insn>> = HashMap::new();
    for (id, _) in &profile.blocks {
        code.insert(*id, disassembly.block(*id)?);
    }
    for (from, to, _) in &profile.edges {
        for id in from.iter().chain(std::iter::once(to)) {
            if !code.contains_key(id) {
                code.insert(*id, disassembly.block(*id)?);
            }
        }
    }
    // What llvm-mca schedules of each block: on the M85 without the branches that issue beside other instructions.
    let timed: HashMap<BlockId, Vec<&Insn>> = code
        .iter()
        .map(|(id, insns)| (*id, insns.iter().copied().filter(|i| !issues_free(core, i)).collect()))
        .collect();
    let text = |id: &BlockId| -> Vec<&str> { timed[id].iter().map(|i| i.text.as_str()).collect() };
    let insns = |id: &BlockId| -> Vec<&Insn> { timed[id].clone() };
    // Regions: each block alone, then each pair of blocks that ran one after the other.
    let blocks: Vec<BlockId> = profile.blocks.iter().map(|(id, _)| *id).collect();
    let pairs: Vec<(BlockId, BlockId)> = profile.edges.iter().filter_map(|(f, t, _)| f.map(|f| (f, *t))).collect();
    let mut regions: Vec<Vec<&str>> = blocks.iter().map(text).collect();
    regions.extend(pairs.iter().map(|(f, t)| [text(f), text(t)].concat()));
    let mut costs = mca.costs(&regions)?;
    let mut region_insns: Vec<Vec<&Insn>> = blocks.iter().map(insns).collect();
    region_insns.extend(pairs.iter().map(|(f, t)| [insns(f), insns(t)].concat()));
    mca.save();
    for (cost, region) in costs.iter_mut().zip(&region_insns) {
        *cost = retime(core, region, cost);
    }
    let alone: HashMap<BlockId, &RegionCost> = blocks.iter().copied().zip(&costs).collect();
    let after: HashMap<(BlockId, BlockId), &RegionCost> = pairs.iter().copied().zip(&costs[blocks.len()..]).collect();

    // Scheduled cycles of each block: what it adds after the block before it (the dependencies and MVE beats carried
    // over one block boundary), or its cycles alone when entered from the harness.
    let mut scheduled: HashMap<BlockId, f64> = HashMap::new();
    for (from, to, count) in &profile.edges {
        let cycles = match from {
            // After a block of branches that issue beside others (nothing timed): the block's issue span, its drain
            // overlapped by what follows, as after any other block (the block before the branches is not known).
            Some(f) if timed[f].is_empty() => alone[to].issued.iter().flatten().max().map_or(0, |last| last + 1),
            Some(f) => after[&(*f, *to)].total.saturating_sub(alone[f].total),
            None => alone[to].total,
        };
        *scheduled.entry(*to).or_default() += cycles as f64 * *count as f64;
    }

    // Where control went after each block: (taken, fell through) by the next block's address.
    let mut left: HashMap<BlockId, (u64, u64)> = HashMap::new();
    for (from, to, count) in &profile.edges {
        if let Some(from) = from {
            let last = code[from].last().expect("blocks have instructions");
            let out = left.entry(*from).or_default();
            if to.addr == last.addr + last.size { out.1 += count } else { out.0 += count }
        }
    }
    // Executions that left for the harness (the return; an interrupt) went somewhere else: taken.
    for (id, executions) in &profile.blocks {
        let out = left.entry(*id).or_default();
        out.0 += executions.saturating_sub(out.0 + out.1);
    }
    // The same by branch address: QEMU translates a loop's first iteration with the code before it, so one branch
    // can end several blocks, each seeing one direction only; a predictor sees the branch.
    let mut at_branch: HashMap<u32, (u64, u64)> = HashMap::new();
    for (id, (taken, fallthrough)) in &left {
        let out = at_branch.entry(code[id].last().expect("blocks have instructions").addr).or_default();
        (out.0, out.1) = (out.0 + taken, out.1 + fallthrough);
    }

    let mut estimate = Estimate {
        cycles: 0.0,
        instructions: profile.instructions() as f64 / calls,
        by_class: [0.0; 5],
        branch_terms: 0.0,
        blocks: Vec::new(),
    };
    for (id, executions) in &profile.blocks {
        let insns = &timed[id];
        let own = alone[id];
        let mut by_class = [0.0; 5];
        // The scheduled cycles split by instruction, in proportion to the cycles from each instruction's issue to the
        // next one's (the last one: to the end) in the block's own schedule.
        let issued: Vec<(usize, u64)> = own.issued.iter().enumerate().filter_map(|(i, c)| c.map(|c| (i, c))).collect();
        let spans: Vec<(usize, f64)> = issued
            .iter()
            .enumerate()
            .map(|(k, &(i, c))| {
                let next = issued.get(k + 1).map_or(own.total, |n| n.1);
                (i, next.saturating_sub(c) as f64)
            })
            .collect();
        let span_total: f64 = spans.iter().map(|s| s.1).sum();
        let sched = scheduled.get(id).copied().unwrap_or(0.0);
        for (i, span) in &spans {
            let share = if span_total > 0.0 { span / span_total } else { 1.0 / spans.len() as f64 };
            by_class[classify(insns[*i]).index()] += sched * share;
        }
        if spans.is_empty() {
            by_class[Class::Branch.index()] += sched;
        }
        // Instructions without scheduling information.
        for (insn, issued) in insns.iter().zip(&own.issued) {
            if issued.is_none() {
                by_class[classify(insn).index()] += unscheduled(core, insn) * *executions as f64;
            }
        }
        // Branch terms of the block's last instruction, from where control went next: the branch's turns against
        // the usual direction (over every block it ends) shared by the blocks in proportion to their exits.
        let last = code[id].last().expect("blocks have instructions");
        let (taken, fallthrough) = left[id];
        let (all_taken, all_fallthrough) = at_branch[&last.addr];
        let turns = all_taken.min(all_fallthrough) as f64 * (taken + fallthrough) as f64
            / (all_taken + all_fallthrough).max(1) as f64;
        let terms = branch_terms(core, transfer(last), taken, fallthrough, turns);
        by_class[Class::Branch.index()] += terms;
        estimate.branch_terms += terms / calls;
        let cycles: f64 = by_class.iter().sum();
        for (total, c) in estimate.by_class.iter_mut().zip(by_class) {
            *total += c / calls;
        }
        estimate.blocks.push(BlockEstimate {
            id: *id,
            location: elf.locate(id.addr),
            executions: *executions as f64 / calls,
            cycles: cycles / calls,
            by_class: by_class.map(|c| c / calls),
        });
    }
    // The total is the sum of the classes, in their order, so that a chart of the classes (`plot`) totals exactly
    // what a table prints; summed block by block instead, the two can differ in the last bit and round apart.
    estimate.cycles = estimate.by_class.iter().sum();
    estimate.blocks.sort_by(|a, b| b.cycles.total_cmp(&a.cycles).then(a.id.cmp(&b.id)));
    Ok(estimate)
}

/// The cycles llvm-mca does not see at a block's end, given how often control left it by a taken branch and by
/// falling through, and `turns`: this block's share of its branch's min(taken, not taken) over all blocks it ends.
fn branch_terms(core: Core, transfer: Transfer, taken: u64, fallthrough: u64, turns: f64) -> f64 {
    let (taken, fallthrough) = (taken as f64, fallthrough as f64);
    match (core, transfer) {
        (_, Transfer::None) => 0.0,
        // Every loop run ends in one fall-through; only its first `le` runs (1 cycle) and branches (refill).
        (Core::M55, Transfer::LoopEnd) => fallthrough * M55_LOOP_INSN + turns * M55_TAKEN_BRANCH,
        (Core::M55, _) => taken * M55_TAKEN_BRANCH,
        // A predictor that learnt the usual direction misses the other one: at least min(taken, not taken) times
        // (once per loop run for a loop branch).
        (Core::M85, Transfer::Conditional | Transfer::LoopEnd | Transfer::LoopStart) => turns * M85_MISPREDICT,
        (Core::M85, Transfer::Always) => 0.0,
        (Core::M7, _) => unreachable!("no cycle model for the M7 (`Timing` refuses it)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insn(text: &str) -> Insn {
        let mnemonic = text.split_whitespace().next().unwrap().to_string();
        Insn { addr: 0, size: 4, mnemonic, text: text.into() }
    }

    #[test]
    fn classes_and_transfers() {
        assert_eq!(classify(&insn("vldrw.u32 q0, [r0], #16")), Class::MveLoadStore);
        assert_eq!(classify(&insn("vld40.32 {q0, q1, q2, q3}, [r0]")), Class::MveLoadStore);
        assert_eq!(classify(&insn("vqrdmulh.s16 q1, q1, r2")), Class::MveArith);
        assert_eq!(classify(&insn("vpst")), Class::MveArith);
        assert_eq!(classify(&insn("vldr d3, [r5]")), Class::Fp);
        assert_eq!(classify(&insn("vmul.f64 d4, d7, d2")), Class::Fp);
        assert_eq!(classify(&insn("ble .Ltarget")), Class::Branch);
        assert_eq!(classify(&insn("pop {r4, pc}")), Class::Branch);
        assert_eq!(classify(&insn("ldr r3, [pc, #0xa4]")), Class::Scalar);
        assert_eq!(classify(&insn("bics r0, r1")), Class::Scalar);
        assert_eq!(transfer(&insn("le lr, .Ltarget")), Transfer::LoopEnd);
        assert_eq!(transfer(&insn("ble .Ltarget")), Transfer::Conditional);
        assert_eq!(transfer(&insn("bl .Ltarget")), Transfer::Always);
        assert_eq!(transfer(&insn("bic r0, r1, r2")), Transfer::None);
    }

    /// llvm-mca's schedule of `region` from (issue, result) cycles, with its total one cycle after the last result.
    fn schedule(timeline: &[(u64, u64)]) -> RegionCost {
        RegionCost {
            total: timeline.iter().map(|t| t.1).max().unwrap_or(0) + 1,
            issued: timeline.iter().map(|t| Some(t.0)).collect(),
            executed: timeline.iter().map(|t| Some(t.1)).collect(),
        }
    }

    fn sized(text: &str, size: u32) -> Insn {
        Insn { size, ..insn(text) }
    }

    fn retimed(core: Core, texts: &[&str], cost: &RegionCost) -> RegionCost {
        let insns: Vec<Insn> = texts.iter().map(|t| sized(t, 2)).collect();
        retime(core, &insns.iter().collect::<Vec<_>>(), cost)
    }

    #[test]
    fn fp64_holds_the_core() {
        for core in [Core::M55, Core::M85] {
            // Three independent FP64 adds (latency 15) issued one a cycle by llvm-mca: held, 3 x 15 cycles and the
            // final cycle.
            let adds = ["vadd.f64 d0, d3, d4", "vadd.f64 d1, d3, d4", "vadd.f64 d2, d3, d4"];
            let pipelined = schedule(&[(0, 15), (1, 16), (2, 17)]);
            let held = retimed(core, &adds, &pipelined);
            assert_eq!((held.total, held.issued.clone()), (3 * 15 + 1, vec![Some(0), Some(15), Some(30)]));
            // A dependent chain already waits out every latency: unchanged.
            let chain = ["vadd.f64 d0, d0, d1", "vadd.f64 d0, d0, d1"];
            let waits = schedule(&[(0, 15), (15, 30)]);
            assert_eq!(retimed(core, &chain, &waits), waits);
            // A load (latency 2) between a multiply (21) and the add using both: the load issues when the multiply
            // ends, the add when the load's result is there, not the 20 cycles after it llvm-mca's schedule had.
            let mixed = ["vmul.f64 d0, d1, d2", "vldr d3, [r0]", "vadd.f64 d4, d0, d3"];
            let held = retimed(core, &mixed, &schedule(&[(0, 21), (1, 3), (21, 36)]));
            assert_eq!((held.issued.clone(), held.total), (vec![Some(0), Some(21), Some(23)], 23 + 15 + 1));
            // Other FP64 instructions (single-precision latencies) and integer code do not hold the core.
            let short = ["vneg.f64 d0, d1", "vmov.f64 d2, d3", "add r0, r1"];
            let none = schedule(&[(0, 2), (1, 2), (2, 3)]);
            assert_eq!(retimed(core, &short, &none), none);
        }
    }

    #[test]
    fn m55_pairs_only_16_bit_instructions() {
        // llvm-mca pairs the last two; as 32-bit encodings they issue a cycle apart on the M55, not on the M85.
        let paired = schedule(&[(0, 1), (1, 2), (1, 2)]);
        let wide = [sized("add.w r2, r2, #1", 4), sized("add.w r2, r2, #1", 4), sized("subs.w r0, r0, #1", 4)];
        let wide: Vec<&Insn> = wide.iter().collect();
        assert_eq!(retime(Core::M55, &wide, &paired).issued, vec![Some(0), Some(1), Some(2)]);
        assert_eq!(retime(Core::M55, &wide, &paired).total, paired.total + 1);
        assert_eq!(retime(Core::M85, &wide, &paired), paired);
        let narrow = [sized("adds r2, #1", 2), sized("adds r2, #1", 2), sized("subs r0, #1", 2)];
        assert_eq!(retime(Core::M55, &narrow.iter().collect::<Vec<_>>(), &paired), paired);
    }

    #[test]
    fn loop_terms() {
        // A loop of 100 iterations run once: M55 pays one first-iteration `le` and one refill; M85 one misprediction.
        assert_eq!(branch_terms(Core::M55, Transfer::LoopEnd, 99, 1, 1.0), M55_LOOP_INSN + M55_TAKEN_BRANCH);
        assert_eq!(branch_terms(Core::M85, Transfer::LoopEnd, 99, 1, 1.0), M85_MISPREDICT);
        assert_eq!(branch_terms(Core::M55, Transfer::Conditional, 99, 1, 1.0), 99.0 * M55_TAKEN_BRANCH);
        // A branch ending two blocks (a loop's first iteration translated with the code before it), each seeing one
        // direction: the turns counted at the branch are charged, not the none of each block.
        assert_eq!(branch_terms(Core::M85, Transfer::Conditional, 1, 0, 0.5), 0.5 * M85_MISPREDICT);
    }
}
