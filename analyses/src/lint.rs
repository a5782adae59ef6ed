//! The object lint: every instruction of an image or object file, checked before it runs.
//!
//! QEMU executes encodings the architecture calls UNPREDICTABLE without complaint, where a board may fault or compute
//! something else (a published scheduler-generated inverse NTT holds an `ldrd` with writeback into one of its own
//! destination registers and gives wrong results on hardware). Three rules, all from LLVM 19 (`llvm-19`):
//!
//! - **undecodable**: LLVM's disassembler decodes no instruction in a code region (UNDEFINED or reserved);
//! - **potentially-undefined**: LLVM's disassembler decodes the instruction but flags bits the architecture requires
//!   to hold fixed values ("SoftFail");
//! - **unpredictable-operands**: the disassembly fed back to LLVM's assembler, whose operand checks follow the
//!   architecture's UNPREDICTABLE cases that the disassembler does not check (writeback into a transfer register,
//!   `ldrd` with equal destinations, the base in a written-back register list, a 32-bit MVE long multiply whose
//!   destination overlaps a source, a non-predicable instruction in an IT block, ...).
//!
//! Data in code sections (literal pools, marked by the ELF mapping symbols `$d`) is skipped.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use object::{Object, ObjectSection};

use crate::attributes::{self, Arch};

/// The LLVM tools the lint runs (Debian's `llvm-19`, installed by `ci/setup`).
pub const LLVM_OBJDUMP: &str = "llvm-objdump-19";
pub const LLVM_MC: &str = "llvm-mc-19";

/// The instruction set an object is decoded as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isa {
    /// Armv8.1-M Mainline with MVE (integer and float) and FP64: Cortex-M55 and Cortex-M85.
    V81mMve { cpu: &'static str },
    /// Armv7E-M with FP64: Cortex-M7.
    V7em,
}

impl Isa {
    /// The instruction set of a core named as `--image`/`core` names it (m55, m85, m7).
    pub fn of_core(core: &str) -> Option<Isa> {
        match core {
            "m55" | "cortex-m55" => Some(Isa::V81mMve { cpu: "cortex-m55" }),
            "m85" | "cortex-m85" => Some(Isa::V81mMve { cpu: "cortex-m85" }),
            "m7" | "cortex-m7" => Some(Isa::V7em),
            _ => None,
        }
    }

    fn triple(self) -> &'static str {
        match self {
            Isa::V81mMve { .. } => "thumbv8.1m.main-none-eabi",
            Isa::V7em => "thumbv7em-none-eabihf",
        }
    }

    fn cpu(self) -> &'static str {
        match self {
            Isa::V81mMve { cpu } => cpu,
            Isa::V7em => "cortex-m7",
        }
    }

    fn mattr(self) -> &'static str {
        match self {
            Isa::V81mMve { .. } => "+mve.fp,+fp64",
            Isa::V7em => "+fp64",
        }
    }

    fn llvm_args(self) -> [String; 3] {
        [format!("--triple={}", self.triple()), format!("--mcpu={}", self.cpu()), format!("--mattr={}", self.mattr())]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    Undecodable,
    PotentiallyUndefined,
    UnpredictableOperands,
}

impl Rule {
    pub const ALL: [Rule; 3] = [Rule::Undecodable, Rule::PotentiallyUndefined, Rule::UnpredictableOperands];

    /// The rule of a name as [`Rule::name`] gives it.
    pub fn named(name: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Rule::Undecodable => "undecodable",
            Rule::PotentiallyUndefined => "potentially-undefined",
            Rule::UnpredictableOperands => "unpredictable-operands",
        }
    }
}

/// One instruction the lint refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub symbol: String,
    pub offset: u64,
    pub address: u64,
    pub section: String,
    /// LLVM's disassembly (or the raw halfwords when it has none).
    pub instruction: String,
    pub rule: Rule,
    /// What LLVM said.
    pub detail: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}+{:#x} ({} {:#x}) `{}`: {} ({})",
            self.symbol,
            self.offset,
            self.section,
            self.address,
            self.instruction,
            self.rule.name(),
            self.detail
        )
    }
}

/// The lint of one object.
#[derive(Debug, Clone, Default)]
pub struct LintReport {
    pub instructions: usize,
    pub findings: Vec<Finding>,
}

#[derive(Debug, thiserror::Error)]
pub enum LintError {
    #[error("{0} not found (ci/setup installs Debian's llvm-19)")]
    ToolMissing(&'static str),
    #[error("{tool} failed: {message}")]
    ToolFailed { tool: &'static str, message: String },
    #[error("{path}: {message}")]
    NotAnArmObject { path: String, message: String },
    /// Its build attributes name an architecture the instruction set it is decoded as does not cover.
    #[error("{path}: built for {built_for}, which Armv7E-M (Cortex-M7) does not run")]
    OtherArchitecture { path: String, built_for: Arch },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Lints an ELF image or relocatable object held in memory (our embedded images).
pub fn lint_bytes(name: &str, elf: &[u8], isa: Isa) -> Result<LintReport, LintError> {
    let dir = std::env::temp_dir().join(format!("pqhelium-lint-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{name}.elf"));
    std::fs::write(&path, elf)?;
    let result = lint_file(&path, isa);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// Lints an ELF image or relocatable object (`.o`) on disk.
pub fn lint_file(path: &Path, isa: Isa) -> Result<LintReport, LintError> {
    check_arm_object(path, isa)?;
    let listing = run_tool(LLVM_OBJDUMP, &disassemble_args(path, isa), None)?;
    let sections = parse_listing(&listing);
    let mut report = LintReport {
        instructions: sections.iter().flat_map(|s| &s.items).filter(|i| i.is_code()).count(),
        findings: Vec::new(),
    };
    report.findings.extend(undecodable(&sections, isa)?);
    report.findings.extend(potentially_undefined(&sections, isa)?);
    report.findings.extend(unpredictable_operands(&sections, isa)?);
    report.findings.sort_by(|a, b| (&a.section, a.address, a.rule).cmp(&(&b.section, b.address, b.rule)));
    report.findings.dedup_by(|a, b| a.section == b.section && a.address == b.address && a.rule == b.rule);
    Ok(report)
}

fn disassemble_args(path: &Path, isa: Isa) -> Vec<String> {
    let mut args = vec!["--disassemble".to_string()];
    args.extend(isa.llvm_args());
    args.push(path.display().to_string());
    args
}

/// A 32-bit little-endian Arm ELF (image or relocatable object) whose build attributes, where it has them, name an
/// architecture `isa` covers; or a clear error naming what it is instead. Decoded as Armv7E-M, Armv8-M code would
/// be reported instruction by instruction.
fn check_arm_object(path: &Path, isa: Isa) -> Result<(), LintError> {
    let bad = |message: String| LintError::NotAnArmObject { path: path.display().to_string(), message };
    let data = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    let file = object::File::parse(&*data).map_err(|e| bad(format!("not an ELF object ({e})")))?;
    if file.architecture() != object::Architecture::Arm {
        return Err(bad(format!("an object for {:?}, not 32-bit Arm", file.architecture())));
    }
    if !file.sections().any(|s| s.kind() == object::SectionKind::Text) {
        return Err(bad("no code section".into()));
    }
    if isa == Isa::V7em
        && let Some(built_for) = attributes::of(&file).filter(|a| a.is_v8m())
    {
        return Err(LintError::OtherArchitecture { path: path.display().to_string(), built_for });
    }
    Ok(())
}

fn run_tool(tool: &'static str, args: &[String], stdin: Option<&str>) -> Result<(String, String), LintError> {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => LintError::ToolMissing(tool),
            _ => LintError::Io(e),
        })?;
    if let Some(input) = stdin {
        // Written from a thread: a large input must not dead-lock against a full stdout pipe.
        let mut pipe = child.stdin.take().expect("stdin is piped");
        let input = input.to_owned();
        std::thread::spawn(move || pipe.write_all(input.as_bytes()));
    }
    let out = child.wait_with_output()?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // llvm-mc exits 1 when it reports errors, which is how the operand rule speaks; objdump must succeed.
    if tool == LLVM_OBJDUMP && !out.status.success() {
        return Err(LintError::ToolFailed { tool, message: stderr.lines().next().unwrap_or("").to_string() });
    }
    Ok((stdout, stderr))
}

/// One line of the disassembly: an instruction (or data, or an encoding LLVM cannot decode) at an address.
#[derive(Debug, Clone)]
struct Item {
    address: u64,
    /// In memory order.
    bytes: Vec<u8>,
    text: String,
    symbol: String,
    symbol_start: u64,
}

impl Item {
    fn is_data(&self) -> bool {
        self.text.starts_with('.')
    }

    fn is_unknown(&self) -> bool {
        self.text.starts_with("<unknown>")
    }

    fn is_code(&self) -> bool {
        !self.is_data()
    }

    fn finding(&self, section: &str, rule: Rule, detail: &str) -> Finding {
        Finding {
            symbol: self.symbol.clone(),
            offset: self.address - self.symbol_start,
            address: self.address,
            section: section.to_string(),
            instruction: if self.is_unknown() {
                let halfwords: Vec<String> =
                    self.bytes.chunks(2).map(|h| format!("{:04x}", u16::from_le_bytes([h[0], h[1]]))).collect();
                format!("<unknown> {}", halfwords.join(" "))
            } else {
                self.text.split_whitespace().collect::<Vec<_>>().join(" ")
            },
            rule,
            detail: detail.to_string(),
        }
    }
}

#[derive(Debug, Clone, Default)]
struct Section {
    name: String,
    items: Vec<Item>,
}

/// Parses `llvm-objdump --disassemble` output: section headers, symbol headers and instruction lines.
fn parse_listing((listing, _): &(String, String)) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    let (mut symbol, mut symbol_start) = (String::from("?"), 0);
    for line in listing.lines() {
        if let Some(name) = line.strip_prefix("Disassembly of section ").and_then(|s| s.strip_suffix(':')) {
            sections.push(Section { name: name.to_string(), items: Vec::new() });
            continue;
        }
        if let Some((address, name)) = parse_symbol_header(line) {
            (symbol, symbol_start) = (name, address);
            continue;
        }
        let (Some(section), Some((address, bytes, text))) = (sections.last_mut(), parse_instruction(line)) else {
            continue;
        };
        section.items.push(Item { address, bytes, text, symbol: symbol.clone(), symbol_start });
    }
    sections
}

/// `0000b5f8 <name>:`
fn parse_symbol_header(line: &str) -> Option<(u64, String)> {
    let (address, rest) = line.split_once(" <")?;
    let name = rest.strip_suffix(">:")?;
    Some((u64::from_str_radix(address, 16).ok()?, name.to_string()))
}

/// `    b612: fe05 6e42    \tvmla.i8 ...` (Thumb: halfwords as numbers) or `   0: 00 00 08 20  \t.word ...` (data).
fn parse_instruction(line: &str) -> Option<(u64, Vec<u8>, String)> {
    let (address, rest) = line.trim_start().split_once(':')?;
    let address = u64::from_str_radix(address, 16).ok()?;
    let (hex, text) = rest.split_once('\t')?;
    let mut bytes = Vec::new();
    for group in hex.split_whitespace() {
        match group.len() {
            2 => bytes.push(u8::from_str_radix(group, 16).ok()?),
            4 => bytes.extend(u16::from_str_radix(group, 16).ok()?.to_le_bytes()),
            _ => return None,
        }
    }
    let text = text.trim().to_string();
    (!bytes.is_empty() && !text.is_empty()).then_some((address, bytes, text))
}

/// Contiguous runs of decodable instructions: what the disassembler and the assembler see in one piece, so that
/// IT blocks keep their state.
fn code_runs(section: &Section) -> impl Iterator<Item = &[Item]> {
    section.items.split(|i| i.is_data() || i.is_unknown()).filter(|run| !run.is_empty())
}

/// Encodings LLVM's disassembler cannot decode. One class of valid encodings LLVM 19 misses is accepted: MVE
/// VMLA/VMLAS (vector by scalar) with U = 1 (`vmla.u8`...; Armv8.1-M ARM, VMLA/VMLAS T1: U selects the unsigned
/// data types, and the result is the same), which gcc emits for the unsigned intrinsics; it is recognised by
/// decoding the same word with U = 0.
fn undecodable(sections: &[Section], isa: Isa) -> Result<Vec<Finding>, LintError> {
    let unknown: Vec<(&Section, &Item)> =
        sections.iter().flat_map(|s| s.items.iter().filter(|i| i.is_unknown()).map(move |i| (s, i))).collect();
    if unknown.is_empty() {
        return Ok(Vec::new());
    }
    let signed_twins: String = unknown
        .iter()
        .map(|(_, item)| {
            let mut bytes = item.bytes.clone();
            if bytes.len() == 4 {
                bytes[1] &= !0x10; // bit 12 of the first halfword: U
            }
            hex_line(&bytes)
        })
        .collect();
    let decoded = disassemble_lines(&signed_twins, isa)?;
    Ok(unknown
        .iter()
        .zip(decoded)
        .filter(|(_, twin)| !twin.as_deref().is_some_and(|t| t.starts_with("vmla.") || t.starts_with("vmlas.")))
        .map(|((section, item), _)| item.finding(&section.name, Rule::Undecodable, "LLVM decodes no instruction"))
        .collect())
}

fn hex_line(bytes: &[u8]) -> String {
    let mut line: String = bytes.iter().map(|b| format!("{b:#04x} ")).collect();
    line.push('\n');
    line
}

/// Disassembles each line of bytes on its own; the first instruction's mnemonic and operands per line, or None.
fn disassemble_lines(lines: &str, isa: Isa) -> Result<Vec<Option<String>>, LintError> {
    let mut args = vec!["--disassemble".to_string()];
    args.extend(isa.llvm_args());
    let (stdout, stderr) = run_tool(LLVM_MC, &args, Some(lines))?;
    let count = lines.lines().count();
    let mut decoded = vec![None; count];
    let failed: std::collections::BTreeSet<usize> = stderr.lines().filter_map(|l| diagnostic(l).map(|d| d.0)).collect();
    let mut texts = stdout.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('.'));
    for (index, slot) in decoded.iter_mut().enumerate() {
        if !failed.contains(&(index + 1)) {
            *slot = texts.next().map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    Ok(decoded)
}

/// `<stdin>:LINE:COLUMN: error|warning: MESSAGE`
fn diagnostic(line: &str) -> Option<(usize, usize, &str)> {
    let rest = line.strip_prefix("<stdin>:")?;
    let mut parts = rest.splitn(3, ':');
    let line_no = parts.next()?.parse().ok()?;
    let column = parts.next()?.parse().ok()?;
    let message = parts.next()?.trim();
    let message = message.strip_prefix("error:").or_else(|| message.strip_prefix("warning:"))?.trim();
    Some((line_no, column, message))
}

/// LLVM's disassembler's SoftFail warnings, each run of code decoded as one stream.
fn potentially_undefined(sections: &[Section], isa: Isa) -> Result<Vec<Finding>, LintError> {
    let runs: Vec<(&Section, &[Item])> = sections.iter().flat_map(|s| code_runs(s).map(move |r| (s, r))).collect();
    let input: String =
        runs.iter().map(|(_, run)| hex_line(&run.iter().flat_map(|i| i.bytes.clone()).collect::<Vec<_>>())).collect();
    let mut args = vec!["--disassemble".to_string()];
    args.extend(isa.llvm_args());
    let (_, stderr) = run_tool(LLVM_MC, &args, Some(&input))?;
    let mut findings = Vec::new();
    for (line_no, column, message) in stderr.lines().filter_map(diagnostic) {
        let Some((section, run)) = runs.get(line_no.wrapping_sub(1)) else { continue };
        // Each byte is printed as `0xNN ` (five columns): the column names the instruction's first byte.
        let byte = (column - 1) / 5;
        let mut offset = 0;
        for item in run.iter() {
            if (offset..offset + item.bytes.len()).contains(&byte) {
                findings.push(item.finding(&section.name, Rule::PotentiallyUndefined, message));
                break;
            }
            offset += item.bytes.len();
        }
    }
    Ok(findings)
}

/// The disassembly assembled again: every instruction behind its own label, branch targets rewritten to those
/// labels, data and undecodable words as bytes. An operand error names a line, and so an instruction.
fn unpredictable_operands(sections: &[Section], isa: Isa) -> Result<Vec<Finding>, LintError> {
    let mut source = String::from(".syntax unified\n.thumb\n");
    let mut line_no = 2;
    let mut lines: BTreeMap<usize, (&Section, &Item)> = BTreeMap::new();
    for (index, section) in sections.iter().enumerate() {
        source.push_str(&format!(".section .pqh_lint_{index},\"ax\",%progbits\n"));
        line_no += 1;
        let labels: std::collections::BTreeSet<u64> = section.items.iter().map(|i| i.address).collect();
        for item in &section.items {
            let text = if item.is_data() || item.is_unknown() {
                format!(".byte {}", item.bytes.iter().map(|b| format!("{b:#04x}")).collect::<Vec<_>>().join(","))
            } else {
                relabel(&item.text, |target| labels.contains(&target).then(|| format!("L{index}_{target:x}")))
            };
            source.push_str(&format!("L{index}_{:x}: {text}\n", item.address));
            line_no += 1;
            lines.insert(line_no, (section, item));
        }
    }
    let mut args = isa.llvm_args().to_vec();
    args.extend(["--filetype=obj".into(), "-o".into(), "/dev/null".into()]);
    let (_, stderr) = run_tool(LLVM_MC, &args, Some(&source))?;
    Ok(stderr
        .lines()
        .filter_map(diagnostic)
        .filter_map(|(line_no, _, message)| {
            let (section, item) = lines.get(&line_no)?;
            Some(item.finding(&section.name, Rule::UnpredictableOperands, message))
        })
        .collect())
}

/// Rewrites `0x1a2 <f+0x10>` branch and address targets to labels, and drops the `<...>` comments LLVM prints
/// after `adr` and literal loads.
fn relabel(text: &str, label: impl Fn(u64) -> Option<String>) -> String {
    let text = text.split(" @ ").next().unwrap_or(text);
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find(" <") {
        let Some(close) = rest[open..].find('>') else { break };
        let before = &rest[..open];
        let target_start = before.rfind(|c: char| c.is_whitespace() || c == ',').map_or(0, |p| p + 1);
        let target = &before[target_start..];
        match target.strip_prefix("0x").and_then(|h| u64::from_str_radix(h, 16).ok()).and_then(&label) {
            Some(l) => {
                out.push_str(&before[..target_start]);
                out.push_str(&l);
            }
            None => out.push_str(before),
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_lines_parse() {
        assert_eq!(
            parse_instruction("    b612: fe05 6e42    \tvmla.i8\tq3, q2, r2"),
            Some((0xb612, vec![0x05, 0xfe, 0x42, 0x6e], "vmla.i8\tq3, q2, r2".into()))
        );
        assert_eq!(
            parse_instruction("       0: 00 00 08 20  \t.word\t0x20080000"),
            Some((0, vec![0, 0, 8, 0x20], ".word\t0x20080000".into()))
        );
        assert_eq!(parse_symbol_header("0000b5f8 <pqh_mve_vmlaq_n_u8>:"), Some((0xb5f8, "pqh_mve_vmlaq_n_u8".into())));
        assert_eq!(
            diagnostic("<stdin>:12:7: error: destination operands can't be identical"),
            Some((12, 7, "destination operands can't be identical"))
        );
    }

    #[test]
    fn targets_become_labels() {
        let label = |t: u64| (t == 0x1a).then(|| "L0_1a".to_string());
        assert_eq!(relabel("bne\t0x1a <f+0x1a>", label), "bne\tL0_1a");
        assert_eq!(relabel("cbz\tr0, 0x1a <f+0x1a>", label), "cbz\tr0, L0_1a");
        assert_eq!(relabel("adr\tr3, #608 <g+0xd8>", label), "adr\tr3, #608");
        assert_eq!(relabel("bl\t0x400 <memcpy>", label), "bl\t0x400");
    }
}
