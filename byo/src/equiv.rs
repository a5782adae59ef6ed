//! Region equivalence (`pqhelium equiv`): two code regions, before and after a rewrite (a scheduler's output), run
//! from the same random register state on QEMU and compared register by register and byte by byte.
//!
//! Each region is assembled inside a wrapper function of ours, `pqh_equiv_region(state, b0, b1, ...)`: it loads r0-r12,
//! APSR (NZCVQ, GE), FPSCR, VPR.P0 and q0-q7 from the state block, turns the address registers into pointers into the
//! buffers `b0...`, runs the region (inline, or by `bl` when the region is a function), stores every register back and
//! turns the pointers into offsets again, so that two images whose buffers lie elsewhere compare equal. A region
//! that is a function (it declares `.type NAME, %function`) must preserve the AAPCS callee-saved registers; so must
//! any register named with `--preserve`. The wrapped object goes through the lint and is linked with our harness
//! as a user's object is (`crate::load`).

use std::fmt;
use std::path::{Path, PathBuf};

use pqhelium_guest::backend::{Arg, Call, CallOutput, Image, Limits};
use pqhelium_kernels::GuestImage;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{CORES, Core};

/// The wrapper's symbol in both images.
const WRAPPER: &str = "pqh_equiv_region";
/// Core registers a state gives the region: r0-r12.
const CORE_REGISTERS: usize = 13;
/// Vector registers: q0-q7.
const VECTOR_REGISTERS: usize = 8;
/// The state block (`wrapper`): r0-r12 at 0, APSR at 52, FPSCR at 56, VPR at 60, one tag per core register at 64
/// (0: a plain value, k: an offset into buffer k - 1), q0-q7 at 128.
const APSR_AT: usize = 52;
const FPSCR_AT: usize = 56;
const VPR_AT: usize = 60;
const TAGS_AT: usize = 64;
const Q_AT: usize = 128;
const STATE_BYTES: usize = Q_AT + 16 * VECTOR_REGISTERS;
/// The APSR bits a state sets and compares: N, Z, C, V, Q and GE[3:0] (`msr APSR_nzcvqg`).
const APSR_MASK: u32 = 0xF80F_0000;
/// The FPSCR bits a state sets at random: N, Z, C, V, QC and the cumulative exception flags. The others (rounding,
/// flush-to-zero, LTPSIZE) stay as the harness has them: a region depends on them only by its own choice (an `le` loop
/// faults unless LTPSIZE is 4).
const FPSCR_RANDOM: u32 = 0xF800_009F;
/// VPR.P0, the predicate that `vpst` and `vpt` blocks read.
const VPR_MASK: u32 = 0xFFFF;
/// Stack the wrapper reserves below the region's sp for its spills (`[sp, #offset]`); never compared.
const REGION_STACK: usize = 1024;
/// States run in one batch after the first.
const STATES_PER_BATCH: u32 = 256;
/// Pointer arguments after the state: the harness passes 8 integer arguments.
const MAX_BUFFERS: usize = 7;
/// The largest buffer an address register may point into.
const MAX_BUFFER_BYTES: usize = 1 << 20;
/// The buffer an inferred address register points at the start of.
pub const INFERRED_BUFFER_BYTES: usize = 4096;
/// The AAPCS callee-saved registers, which a region that is a function preserves.
const CALLEE_SAVED: &str = "r4-r11,d8-d15";

/// A register of the state, as `--preserve` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Register {
    /// r0-r12.
    Core(u8),
    /// d0-d15 (the halves of q0-q7).
    Double(u8),
}

impl fmt::Display for Register {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Register::Core(n) => write!(f, "r{n}"),
            Register::Double(n) => write!(f, "d{n}"),
        }
    }
}

/// Registers as `r4-r11,d8-d15,q4,r12`: single registers and ranges of r0-r12, d0-d15, q0-q7 (a q is its two d).
pub fn parse_registers(text: &str) -> Result<Vec<Register>, String> {
    let mut registers = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (first, last) = item.split_once('-').unwrap_or((item, item));
        let (kind, lo) = register_number(first).ok_or_else(|| format!("`{first}` is not r0-r12, d0-d15 or q0-q7"))?;
        let (kind_last, hi) =
            register_number(last).ok_or_else(|| format!("`{last}` is not r0-r12, d0-d15 or q0-q7"))?;
        if kind != kind_last || hi < lo {
            return Err(format!("`{item}` is not a range of registers"));
        }
        for n in lo..=hi {
            match kind {
                'r' => registers.push(Register::Core(n)),
                'd' => registers.push(Register::Double(n)),
                _ => registers.extend([Register::Double(2 * n), Register::Double(2 * n + 1)]),
            }
        }
    }
    if registers.is_empty() {
        return Err("no register named".into());
    }
    Ok(registers)
}

fn register_number(text: &str) -> Option<(char, u8)> {
    let kind = text.chars().next()?.to_ascii_lowercase();
    let n: u8 = text.get(1..)?.parse().ok()?;
    let limit = match kind {
        'r' => CORE_REGISTERS as u8,
        'd' => 2 * VECTOR_REGISTERS as u8,
        'q' => VECTOR_REGISTERS as u8,
        _ => return None,
    };
    (n < limit).then_some((kind, n))
}

/// An address register: it points `offset` bytes into a buffer of `bytes` bytes of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Address {
    pub register: u8,
    pub bytes: usize,
    pub offset: usize,
}

/// `--addr r0:1024,r1:512@256`: each register, its buffer's size in bytes and (after `@`) where in it it points.
pub fn parse_addresses(text: &str) -> Result<Vec<Address>, String> {
    let mut addresses: Vec<Address> = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (register, size) =
            item.split_once(':').ok_or_else(|| format!("`{item}`: an address is REGISTER:BYTES[@OFFSET]"))?;
        let register = match register_number(register) {
            Some(('r', n)) => n,
            _ => return Err(format!("`{item}`: an address register is one of r0-r12")),
        };
        let (bytes, offset) = size.split_once('@').unwrap_or((size, "0"));
        let number = |s: &str| s.trim().parse::<usize>().map_err(|_| format!("`{item}`: `{s}` is not a number"));
        let (bytes, offset) = (number(bytes)?, number(offset)?);
        if bytes == 0 || bytes > MAX_BUFFER_BYTES || offset > bytes {
            return Err(format!("`{item}`: a buffer has 1 to {MAX_BUFFER_BYTES} bytes and the offset lies in it"));
        }
        if addresses.iter().any(|a| a.register == register) {
            return Err(format!("`{item}`: r{register} is given twice"));
        }
        addresses.push(Address { register, bytes, offset });
    }
    if addresses.len() > MAX_BUFFERS {
        return Err(format!("at most {MAX_BUFFERS} address registers"));
    }
    Ok(addresses)
}

/// Where a region starts or ends in its file: after the line of a label (`name:`), or at a line number (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marker {
    Label(String),
    Line(usize),
}

/// `--region START:END`: the lines strictly between the two markers.
pub fn parse_region(text: &str) -> Result<(Marker, Marker), String> {
    let (start, end) = text.split_once(':').ok_or("a region is START:END (labels or line numbers)")?;
    let marker = |s: &str| match s.trim().parse::<usize>() {
        Ok(0) => Err("lines are numbered from 1".to_string()),
        Ok(n) => Ok(Marker::Line(n)),
        Err(_) if !s.trim().is_empty() => Ok(Marker::Label(s.trim().to_string())),
        Err(_) => Err("a region is START:END (labels or line numbers)".to_string()),
    };
    Ok((marker(start)?, marker(end)?))
}

/// What `equiv` is asked.
#[derive(Debug, Clone)]
pub struct Options {
    /// `m55` or `m85`.
    pub core: String,
    pub before: PathBuf,
    pub after: PathBuf,
    pub region: Option<(Marker, Marker)>,
    pub states: u32,
    pub seed: u64,
    /// `None`: inferred from the base registers of the regions' memory operands.
    pub addresses: Option<Vec<Address>>,
    /// `None`: the callee-saved registers when a region is a function, nothing otherwise.
    pub preserve: Option<Vec<Register>>,
    /// Registers whose final values are not compared: the regions' scratch registers, which a scheduler may
    /// rename (SLOTHY keeps only the registers it is told are outputs).
    pub ignore: Vec<Register>,
    pub limits: Limits,
}

/// The verdict of a run.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// States run on both regions (up to the first that differed).
    pub states: u32,
    pub addresses: Vec<Address>,
    pub preserved: Vec<Register>,
    /// Instructions of one run of each region, wrapper included, in the first state.
    pub instructions: [u64; 2],
    pub finding: Option<Finding>,
}

/// The first state in which the regions differ (or one broke a rule): `pqhelium equiv --seed SEED --states 1`
/// runs it alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub state: u32,
    pub seed: u64,
    pub message: String,
}

const SIDES: [&str; 2] = ["before", "after"];

/// Builds both regions, runs them over `options.states` random states and compares them.
pub fn run(options: &Options) -> Result<Outcome, String> {
    let core = CORES
        .iter()
        .find(|c| c.name == options.core && c.name != "m7")
        .ok_or_else(|| format!("unknown core `{}` (m55, m85: equiv needs MVE)", options.core))?;
    let regions = [&options.before, &options.after]
        .map(|path| read_region(path, options.region.as_ref()).map_err(|e| format!("{}: {e}", path.display())));
    let [before, after] = regions;
    let regions = [before?, after?];
    let addresses = match &options.addresses {
        Some(given) => given.clone(),
        None => infer_addresses(&regions.iter().map(|r| r.text.as_str()).collect::<Vec<_>>())?,
    };
    let is_function = regions.iter().any(|r| r.function.is_some());
    let preserved = match &options.preserve {
        Some(list) => list.clone(),
        None if is_function => parse_registers(CALLEE_SAVED).expect("a list of registers"),
        None => Vec::new(),
    };
    let images = [0, 1].map(|side| build(core, &regions[side], SIDES[side]));
    let [image_before, image_after] = images;
    let images = [image_before?, image_after?];
    let mut backends = Vec::new();
    for (side, image) in images.iter().enumerate() {
        backends.push(image.open(options.limits).map_err(|e| format!("the {} region: {e}", SIDES[side]))?);
    }
    let outcome = |states, finding, instructions| Outcome {
        states,
        addresses: addresses.clone(),
        preserved: preserved.clone(),
        instructions,
        finding,
    };
    let mut instructions = [0; 2];
    let mut first = 0;
    while first < options.states {
        // The first state alone, then batches: a region that faults or loops is reported after one state, not
        // after a batch of timeouts.
        let count = if first == 0 { 1 } else { STATES_PER_BATCH.min(options.states - first) };
        let seeds: Vec<u64> = (first..first + count).map(|k| options.seed.wrapping_add(u64::from(k))).collect();
        let states: Vec<State> = seeds.iter().map(|&seed| State::random(seed, &addresses)).collect();
        let calls: Vec<Call> = states.iter().map(State::call).collect();
        let outputs: Vec<_> = backends.iter_mut().map(|backend| backend.run_batch(&calls)).collect();
        for (i, state) in states.iter().enumerate() {
            let found = |message: String| Finding { state: first + i as u32, seed: seeds[i], message };
            let ran = match (&outputs[0][i], &outputs[1][i]) {
                (Ok(before), Ok(after)) => [before, after],
                (Err(e), _) => {
                    return Ok(outcome(
                        first + i as u32 + 1,
                        Some(found(format!("the before region: {e}"))),
                        instructions,
                    ));
                }
                (_, Err(e)) => {
                    return Ok(outcome(
                        first + i as u32 + 1,
                        Some(found(format!("the after region: {e}"))),
                        instructions,
                    ));
                }
            };
            if first + i as u32 == 0 {
                instructions = [ran[0].instructions, ran[1].instructions];
            }
            let message = (0..2)
                .find_map(|side| {
                    clobbered(state, ran[side], &preserved).map(|m| format!("the {} region {m}", SIDES[side]))
                })
                .or_else(|| difference(ran[0], ran[1], &addresses, &options.ignore));
            if let Some(message) = message {
                return Ok(outcome(first + i as u32 + 1, Some(found(message)), instructions));
            }
        }
        first += count;
    }
    Ok(outcome(options.states, None, instructions))
}

/// One random register state and the buffers' contents.
struct State {
    bytes: Vec<u8>,
    buffers: Vec<Vec<u8>>,
}

impl State {
    fn random(seed: u64, addresses: &[Address]) -> State {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut bytes = vec![0u8; STATE_BYTES];
        rng.fill(&mut bytes[..TAGS_AT]);
        rng.fill(&mut bytes[Q_AT..]);
        let mut put = |at: usize, value: u32| bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        put(APSR_AT, rng.r#gen::<u32>() & APSR_MASK);
        put(FPSCR_AT, rng.r#gen::<u32>() & FPSCR_RANDOM);
        put(VPR_AT, rng.r#gen::<u32>() & VPR_MASK);
        for (k, a) in addresses.iter().enumerate() {
            put(4 * usize::from(a.register), a.offset as u32);
            put(TAGS_AT + 4 * usize::from(a.register), k as u32 + 1);
        }
        let buffers = addresses
            .iter()
            .map(|a| {
                let mut buffer = vec![0u8; a.bytes];
                rng.fill(&mut buffer[..]);
                buffer
            })
            .collect();
        State { bytes, buffers }
    }

    /// The wrapper's call: the state block, then one buffer per address register.
    fn call(&self) -> Call {
        let mut args = vec![Arg::InOut(self.bytes.clone())];
        args.extend(self.buffers.iter().map(|b| Arg::InOut(b.clone())));
        Call::new(WRAPPER, args)
    }
}

fn word(state: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(state[at..at + 4].try_into().expect("four bytes"))
}

fn double(state: &[u8], n: u8) -> u64 {
    let at = Q_AT + 8 * usize::from(n);
    u64::from_le_bytes(state[at..at + 8].try_into().expect("eight bytes"))
}

/// The first register a region was told to preserve and did not.
fn clobbered(state: &State, output: &CallOutput, preserved: &[Register]) -> Option<String> {
    let after = &output.buffers[0];
    preserved.iter().find_map(|&register| {
        let (was, is) = match register {
            Register::Core(n) => {
                (u64::from(word(&state.bytes, 4 * usize::from(n))), u64::from(word(after, 4 * usize::from(n))))
            }
            Register::Double(n) => (double(&state.bytes, n), double(after, n)),
        };
        (was != is).then(|| format!("does not preserve {register} ({was:#x} before the region, {is:#x} after it)"))
    })
}

/// The first register, flag or byte in which two runs differ.
fn difference(before: &CallOutput, after: &CallOutput, addresses: &[Address], ignore: &[Register]) -> Option<String> {
    let (b, a) = (&before.buffers[0], &after.buffers[0]);
    for n in 0..CORE_REGISTERS {
        let (x, y) = (word(b, 4 * n), word(a, 4 * n));
        if x != y && !ignore.contains(&Register::Core(n as u8)) {
            let pointer = addresses.iter().any(|ad| usize::from(ad.register) == n);
            let what = if pointer { " (an address register: offsets into its buffer)" } else { "" };
            return Some(format!("r{n} differs: {x:#010x} before, {y:#010x} after{what}"));
        }
    }
    let (x, y) = (word(b, APSR_AT) & APSR_MASK, word(a, APSR_AT) & APSR_MASK);
    if x != y {
        const FLAGS: [(&str, u32); 9] =
            [("N", 31), ("Z", 30), ("C", 29), ("V", 28), ("Q", 27), ("GE3", 19), ("GE2", 18), ("GE1", 17), ("GE0", 16)];
        let (flag, bit) = FLAGS.iter().find(|(_, bit)| (x ^ y) >> bit & 1 == 1).expect("a differing bit is a flag");
        return Some(format!("flag APSR.{flag} differs: {} before, {} after", x >> bit & 1, y >> bit & 1));
    }
    let (x, y) = (word(b, FPSCR_AT), word(a, FPSCR_AT));
    if x != y {
        const FIELDS: [(&str, u32); 11] = [
            ("N", 31),
            ("Z", 30),
            ("C", 29),
            ("V", 28),
            ("QC", 27),
            ("IDC", 7),
            ("IXC", 4),
            ("UFC", 3),
            ("OFC", 2),
            ("DZC", 1),
            ("IOC", 0),
        ];
        let field =
            FIELDS.iter().find(|(_, bit)| (x ^ y) >> bit & 1 == 1).map_or(String::new(), |f| format!(".{}", f.0));
        return Some(format!("FPSCR{field} differs: {x:#010x} before, {y:#010x} after"));
    }
    let (x, y) = (word(b, VPR_AT), word(a, VPR_AT));
    if x != y {
        return Some(format!("VPR.P0 differs: {x:#06x} before, {y:#06x} after"));
    }
    for n in 0..VECTOR_REGISTERS {
        let at = Q_AT + 16 * n;
        let compared = |lane: usize| !ignore.contains(&Register::Double((2 * n + lane / 2) as u8));
        let lane = (0..4).find(|&l| compared(l) && word(b, at + 4 * l) != word(a, at + 4 * l));
        if let Some(lane) = lane {
            let (x, y) = (word(b, at + 4 * lane), word(a, at + 4 * lane));
            return Some(format!("q{n} differs in lane {lane} (32-bit): {x:#010x} before, {y:#010x} after"));
        }
    }
    for (k, address) in addresses.iter().enumerate() {
        let (x, y) = (&before.buffers[k + 1], &after.buffers[k + 1]);
        if let Some(i) = (0..x.len()).find(|&i| x[i] != y[i]) {
            return Some(format!(
                "byte {i} of r{}'s buffer differs: {:#04x} before, {:#04x} after",
                address.register, x[i], y[i]
            ));
        }
    }
    None
}

/// A region as read from its file.
struct Region {
    path: PathBuf,
    /// The line of the file (from 1) the region's text starts at.
    first_line: usize,
    text: String,
    /// The function the region defines (`.type NAME, %function`): the wrapper calls it.
    function: Option<String>,
}

fn read_region(path: &Path, region: Option<&(Marker, Marker)>) -> Result<Region, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let lines: Vec<&str> = text.lines().collect();
    let (text, first_line) = match region {
        None => (text.clone(), 1),
        Some((start, end)) => {
            let find = |marker: &Marker| -> Result<usize, String> {
                match marker {
                    Marker::Line(n) if *n <= lines.len() => Ok(n - 1),
                    Marker::Line(n) => Err(format!("no line {n} (the file has {})", lines.len())),
                    Marker::Label(name) => lines
                        .iter()
                        .position(|l| {
                            l.trim_start().strip_prefix(name.as_str()).is_some_and(|r| r.trim_start().starts_with(':'))
                        })
                        .ok_or_else(|| format!("no label `{name}:`")),
                }
            };
            let (first, last) = (find(start)?, find(end)?);
            if last <= first {
                return Err("the region's end comes before its start".into());
            }
            (lines[first + 1..last].join("\n"), first + 2)
        }
    };
    Ok(Region { path: path.to_path_buf(), first_line, function: declared_function(&text), text })
}

/// The name in `.type NAME, %function` (or `@function`, `#function`, `"function"`).
fn declared_function(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let rest = line.trim_start().strip_prefix(".type")?;
        let (name, kind) = rest.split_once(',')?;
        kind.trim()
            .trim_matches('"')
            .trim_start_matches(['%', '@', '#'])
            .eq("function")
            .then(|| name.trim().to_string())
    })
}

/// The base registers of the regions' memory operands (`[rN`, and the first operand of `ldm`/`stm`/`vldm`/`vstm`),
/// each pointing at the start of a buffer of [`INFERRED_BUFFER_BYTES`].
fn infer_addresses(texts: &[&str]) -> Result<Vec<Address>, String> {
    let mut registers = Vec::new();
    for text in texts {
        for line in text.lines() {
            let code = line.split(['@', ';']).next().unwrap_or("").split("//").next().unwrap_or("").trim();
            let mut bases: Vec<&str> = code.split('[').skip(1).collect();
            let mnemonic = code.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
            if ["ldm", "stm", "vldm", "vstm"].iter().any(|m| mnemonic.starts_with(m)) {
                bases.push(code[mnemonic.len()..].trim_start());
            }
            for base in bases {
                let name: String = base.trim_start().chars().take_while(char::is_ascii_alphanumeric).collect();
                if let Some(('r', n)) = register_number(&name)
                    && !registers.contains(&n)
                {
                    registers.push(n);
                }
            }
        }
    }
    registers.sort_unstable();
    if registers.len() > MAX_BUFFERS {
        return Err(format!(
            "the regions use {} base registers; at most {MAX_BUFFERS} address registers (declare them with --addr)",
            registers.len()
        ));
    }
    Ok(registers.into_iter().map(|register| Address { register, bytes: INFERRED_BUFFER_BYTES, offset: 0 }).collect())
}

/// The wrapper around a region, as assembly: the region inline, or after the wrapper when it is a function.
fn wrapper(region: &Region) -> String {
    let (inline, after) = match &region.function {
        Some(name) => (format!("    bl {name}\n"), region.text.as_str()),
        None => (format!("{}\n", region.text), ""),
    };
    // The stacked arguments follow r1-r3 once those are pushed: b[] is an array at sp + 108 (r0, the caller's FPSCR,
    // d8-d15, r4-r11 and lr above it).
    format!(
        r#"    .syntax unified
    .thumb
    .text
    .global {WRAPPER}
    .type {WRAPPER}, %function
    .p2align 2
{WRAPPER}:
    push {{r1-r3}}
    push {{r4-r11, lr}}
    vpush {{d8-d15}}
    vmrs r1, fpscr
    push {{r0, r1}}
    add r1, sp, #108
    movs r2, #0
.Lpqh_equiv_in:
    add r4, r0, r2, lsl #2
    ldr r3, [r4, #{TAGS_AT}]
    cbz r3, .Lpqh_equiv_in_next
    subs r3, #1
    ldr r3, [r1, r3, lsl #2]
    ldr r5, [r4]
    add r5, r3
    str r5, [r4]
.Lpqh_equiv_in_next:
    adds r2, #1
    cmp r2, #{CORE_REGISTERS}
    bne .Lpqh_equiv_in
    ldr r1, [r0, #{FPSCR_AT}]
    ldr r2, [sp, #4]
    movw r3, #{fpscr_random_low}
    movt r3, #{fpscr_random_high}
    and r1, r1, r3
    bic r2, r2, r3
    orr r1, r1, r2
    vmsr fpscr, r1
    ldr r1, [r0, #{VPR_AT}]
    vmsr p0, r1
    add r1, r0, #{Q_AT}
    vldm r1, {{d0-d15}}
    ldr r1, [r0, #{APSR_AT}]
    msr APSR_nzcvqg, r1
    sub sp, #{REGION_STACK}
    ldm r0, {{r0-r12}}
{inline}    push {{r0}}
    ldr r0, [sp, #{stacked_state}]
    add.w r0, r0, #4
    stm r0, {{r1-r12}}
    sub.w r0, r0, #4
    mrs r1, apsr
    str r1, [r0, #{APSR_AT}]
    vmrs r1, fpscr
    str r1, [r0, #{FPSCR_AT}]
    vmrs r1, p0
    str r1, [r0, #{VPR_AT}]
    add r1, r0, #{Q_AT}
    vstm r1, {{d0-d15}}
    pop {{r1}}
    str r1, [r0]
    add sp, #{REGION_STACK}
    add r1, sp, #108
    movs r2, #0
.Lpqh_equiv_out:
    add r4, r0, r2, lsl #2
    ldr r3, [r4, #{TAGS_AT}]
    cbz r3, .Lpqh_equiv_out_next
    subs r3, #1
    ldr r3, [r1, r3, lsl #2]
    ldr r5, [r4]
    sub r5, r3
    str r5, [r4]
.Lpqh_equiv_out_next:
    adds r2, #1
    cmp r2, #{CORE_REGISTERS}
    bne .Lpqh_equiv_out
    ldr r1, [sp, #4]
    vmsr fpscr, r1
    movs r1, #0
    vmsr p0, r1
    add sp, #8
    vpop {{d8-d15}}
    pop {{r4-r11, lr}}
    add sp, #12
    bx lr
    .size {WRAPPER}, . - {WRAPPER}
{after}
"#,
        stacked_state = REGION_STACK + 4,
        fpscr_random_low = FPSCR_RANDOM & 0xFFFF,
        fpscr_random_high = FPSCR_RANDOM >> 16,
    )
}

/// An assembler's message about the generated file, with its `file:line` turned into the region's file and line.
fn in_their_file(message: &str, source: &Path, generated: &str, region: &Region) -> String {
    let source = source.display().to_string();
    let message = message.replace(&format!("compiling {source}: "), "");
    let Some(region_at) = generated.find(&region.text).filter(|_| !region.text.is_empty()) else {
        return message;
    };
    let region_line = generated[..region_at].matches('\n').count() + 1;
    let mut parts = message.split(&source);
    let mut out = parts.next().unwrap_or("").to_string();
    for part in parts {
        let digits: String = part.strip_prefix(':').unwrap_or("").chars().take_while(char::is_ascii_digit).collect();
        match digits.parse::<usize>() {
            Ok(line) if line >= region_line => {
                let theirs = line - region_line + region.first_line;
                out += &format!("{}:{theirs}{}", region.path.display(), &part[1 + digits.len()..]);
            }
            _ => out += &format!("{source}{part}"),
        }
    }
    out
}

/// Assembles, checks, lints and links one region in its wrapper.
fn build(core: &Core, region: &Region, side: &str) -> Result<Image, String> {
    let dir = tempfile::Builder::new().prefix("pqhelium-equiv-").tempdir().map_err(|e| e.to_string())?;
    let source = dir.path().join(format!("{side}.s"));
    let generated = wrapper(region);
    std::fs::write(&source, &generated).map_err(|e| e.to_string())?;
    let object = dir.path().join(format!("{side}.o"));
    let at = |e: String| format!("the {side} region: {e}");
    crate::compile(core, dir.path(), &source, &[], &object, &mut Vec::new())
        .map_err(|e| at(in_their_file(&e, &source, &generated, region)))?;
    let built = crate::Built { path: object.clone(), shown: region.path.display().to_string() };
    crate::check_object(&built, core, &[]).map_err(at)?;
    let elf = dir.path().join(format!("{side}.elf"));
    crate::link(core, dir.path(), &[object], &[WRAPPER], &Default::default(), false, &elf).map_err(at)?;
    let bytes = std::fs::read(&elf).map_err(|e| e.to_string())?;
    let guest: &'static GuestImage = Box::leak(Box::new(GuestImage {
        name: Box::leak(format!("equiv-{side}-{}", core.name).into_boxed_str()),
        cpu: core.cpu,
        elf: Box::leak(bytes.into_boxed_slice()),
    }));
    Ok(Image::User(guest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_and_ranges() {
        let list = parse_registers("r4-r6,q1,d15").unwrap();
        let expected = [
            Register::Core(4),
            Register::Core(5),
            Register::Core(6),
            Register::Double(2),
            Register::Double(3),
            Register::Double(15),
        ];
        assert_eq!(list, expected);
        for bad in ["r13", "r4-d5", "r6-r4", "x1", "", "q8"] {
            assert!(parse_registers(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn addresses_and_regions() {
        let list = parse_addresses("r0:1024,r2:64@32").unwrap();
        assert_eq!(list[1], Address { register: 2, bytes: 64, offset: 32 });
        for bad in ["r0", "r0:0", "r0:16@17", "d0:16", "r0:16,r0:32", "r13:4"] {
            assert!(parse_addresses(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_region("start:3").unwrap(), (Marker::Label("start".into()), Marker::Line(3)));
        assert!(parse_region("0:3").is_err() && parse_region("start").is_err());
    }

    #[test]
    fn inferred_bases_and_functions() {
        let text = "  ldr r1, [r7, #4]\n  vldrw.u32 q0, [r2], #16 @ [r9\n  ldmia r3!, {r4, r5}\n  add r0, r1\n";
        let found: Vec<u8> = infer_addresses(&[text]).unwrap().iter().map(|a| a.register).collect();
        assert_eq!(found, [2, 3, 7]);
        assert_eq!(declared_function("  .type ntt, %function\nntt:\n").as_deref(), Some("ntt"));
        assert_eq!(declared_function("  .type table, %object\n"), None);
    }
}
