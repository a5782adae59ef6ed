//! Helpers shared by test binaries: a run of the binary, mutants of assembly text, the QEMU processes they start, a
//! child process killed with the test, work that must not hang, and the disassembly of a guest image.
// Each test binary uses only some of them.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::process::{Child, Command};
use std::sync::mpsc;
use std::time::Duration;

use pqhelium_kernels::abi;

/// Runs the `pqhelium` binary: its exit code (-1 when a signal ended it), stdout and stderr.
pub fn pqhelium(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).output().expect("run pqhelium");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// A `--manifest` building variants of one of our kernel sources as a user's code: each (file stem, text) written as
/// a C file to `dir`, built with our `kernels` and include folders `includes` (both below `kernels/arm`) and `flags`
/// for `core`, one `[[kernel]]` per (symbol, contract). Returns the manifest's path.
pub fn variants_manifest(
    dir: &std::path::Path,
    core: &str,
    variants: &[(&str, String)],
    kernels: &[&str],
    flags: &[&str],
    includes: &[&str],
    symbols: &[(&str, &str)],
) -> std::path::PathBuf {
    let arm = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../kernels/arm");
    let mut sources = Vec::new();
    for (stem, text) in variants {
        let path = dir.join(format!("{stem}.c"));
        std::fs::write(&path, text).unwrap();
        sources.push(path.display().to_string());
    }
    sources.extend(kernels.iter().map(|k| arm.join(k).display().to_string()));
    let flags: Vec<String> = flags
        .iter()
        .map(|f| f.to_string())
        .chain(includes.iter().map(|d| format!("-I{}", arm.join(d).display())))
        .collect();
    let quoted = |items: &[String]| items.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(", ");
    let mut manifest = format!("core = \"{core}\"\nsources = [{}]\nflags = [{}]\n", quoted(&sources), quoted(&flags));
    for (symbol, contract) in symbols {
        manifest += &format!("\n[[kernel]]\nsymbol = \"{symbol}\"\ncontract = \"{contract}\"\n");
    }
    let path = dir.join("variants.toml");
    std::fs::write(&path, manifest).unwrap();
    path
}

/// The (mismatches, faults, result) cells of `check --manifest`'s row for `symbol` under `contract`.
pub fn manifest_check_row(out: &str, symbol: &str, contract: &str) -> (String, String, String) {
    let row = out
        .lines()
        .find(|l| l.starts_with(&format!("| {symbol} | {contract} |")))
        .unwrap_or_else(|| panic!("no row for {symbol}:\n{out}"));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    // | symbol | contract | target | cases | mismatches | faults | cases/s | instructions/call | result |
    (cells[5].to_string(), cells[6].to_string(), cells[9].to_string())
}

/// `text` with the lines holding the instructions `first` and `second` (comments aside) after the label `start`
/// exchanged.
pub fn swapped(text: &str, start: &str, first: &str, second: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let holds = |line: &str, instruction: &str| line.split("//").next().unwrap().trim() == instruction;
    let from = lines.iter().position(|l| l.trim() == format!("{start}:")).expect("start label");
    let i = from + lines[from..].iter().position(|l| holds(l, first)).expect("first line");
    let j = from + lines[from..].iter().position(|l| holds(l, second)).expect("second line");
    lines.swap(i, j);
    lines.join("\n") + "\n"
}

/// The first instruction between the labels `start` and `end` that writes a register named `bank`N (a load or
/// arithmetic) and the first later one that reads it.
pub fn dependent_pair(text: &str, start: &str, end: &str, bank: char) -> (String, String) {
    let body: Vec<&str> = text
        .lines()
        .map(|l| l.split("//").next().unwrap().trim())
        .skip_while(|l| *l != format!("{start}:"))
        .skip(1)
        .take_while(|l| *l != format!("{end}:"))
        .filter(|l| !l.is_empty() && !l.starts_with('@') && !l.starts_with('.') && !l.ends_with(':'))
        .collect();
    let operands = |line: &str| -> Vec<String> {
        let rest = line.split_once(' ').map_or("", |(_, r)| r);
        rest.split(|c: char| !c.is_ascii_alphanumeric()).filter(|s| !s.is_empty()).map(str::to_string).collect()
    };
    for (i, line) in body.iter().enumerate() {
        let written = operands(line).into_iter().next().unwrap_or_default();
        if !written.starts_with(bank) || ["vstr", "vst4", "str"].iter().any(|store| line.starts_with(store)) {
            continue;
        }
        if let Some(reader) = body[i + 1..].iter().find(|l| operands(l).get(1..).unwrap_or_default().contains(&written))
        {
            return (line.to_string(), reader.to_string());
        }
    }
    panic!("no dependent pair in the region");
}

/// QEMU processes started by this test process.
pub fn qemu_children() -> Vec<i32> {
    qemu_children_of(std::process::id())
}

/// QEMU processes whose parent is process `parent`.
pub fn qemu_children_of(parent: u32) -> Vec<i32> {
    let parent = i32::try_from(parent).unwrap();
    // A process that ends during the walk is skipped: its entry or its stat is gone.
    let stats = procfs::process::all_processes().unwrap().flatten().filter_map(|p| p.stat().ok());
    stats.filter(|s| s.comm.starts_with("qemu-system-arm") && s.ppid == parent).map(|s| s.pid).collect()
}

/// Whether QEMU process `pid` serves a campaign worker: its guest has finished a batch (done_seq in the control
/// block of its shared-memory DDR, named by `mem-path=` on its command line). A QEMU still booting would fail
/// its worker's start-up instead, which is another test's business.
pub fn serving(pid: i32) -> bool {
    let Ok(qemu) = procfs::process::Process::new(pid) else { return false };
    let Ok(cmdline) = qemu.cmdline() else { return false };
    let mut options = cmdline.iter().flat_map(|arg| arg.split(','));
    let Some(path) = options.find_map(|option| option.strip_prefix("mem-path=")) else { return false };
    // The DDR is a descriptor QEMU inherited (`/proc/self/fd/N`): seen from here, it is QEMU's fd N.
    let ddr = match path.strip_prefix("/proc/self/") {
        Some(relative) => qemu.open_relative(relative).ok(),
        None => std::fs::File::open(path).ok(),
    };
    let Some(ddr) = ddr else { return false };
    let mut done_seq = [0; 4];
    let at = u64::from(abi::CTRL_OFFSET) + abi::ctrl::DONE_SEQ as u64;
    ddr.read_exact_at(&mut done_seq, at).is_ok() && u32::from_le_bytes(done_seq) > 0
}

/// A child process killed (and reaped) when the test ends, should it fail before it does.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Far above what any call or start-up of a test needs on a loaded machine: a bound that only turns a hang into a
/// failure, never a judgement of speed.
pub const HANG: Duration = Duration::from_secs(120);

/// The result of `work`, run on a thread of its own; fails, instead of hanging, when `work` has not returned after
/// [`HANG`]. A panic in `work` is the caller's.
pub fn without_hanging<T: Send + 'static>(what: &str, work: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, result) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)));
    });
    match result.recv_timeout(HANG) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("{what}: no answer after {HANG:?}"),
    }
}

/// One disassembled instruction.
pub struct Instruction {
    pub address: u64,
    pub mnemonic: String,
    pub operands: String,
}

/// Every function of a guest image, or of the address range `[start, stop)` of it, from `arm-none-eabi-objdump -d`
/// (the toolchain that links the images).
pub fn disassemble(elf: &[u8], range: Option<(u64, u64)>) -> BTreeMap<String, Vec<Instruction>> {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(elf).unwrap();
    let mut command = Command::new("arm-none-eabi-objdump");
    command.args(["-d", "--no-show-raw-insn"]);
    if let Some((start, stop)) = range {
        command.arg(format!("--start-address={start:#x}")).arg(format!("--stop-address={stop:#x}"));
    }
    let output = command
        .arg(file.path())
        .output()
        .expect("arm-none-eabi-objdump (installed with arm-none-eabi-gcc, which links the images) must run");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut functions: BTreeMap<String, Vec<Instruction>> = BTreeMap::new();
    let mut current = None;
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        if let Some(name) = line.strip_suffix(">:").and_then(|l| l.split_once(" <")).map(|(_, name)| name) {
            current = Some(name.to_string());
            functions.entry(name.to_string()).or_default();
            continue;
        }
        let (Some(function), Some((address, rest))) = (&current, line.trim_start().split_once(":\t")) else {
            continue;
        };
        let Ok(address) = u64::from_str_radix(address, 16) else { continue };
        let (mnemonic, operands) = rest.split_once('\t').unwrap_or((rest, ""));
        let instruction = Instruction { address, mnemonic: mnemonic.to_string(), operands: operands.to_string() };
        functions.get_mut(function).unwrap().push(instruction);
    }
    functions
}
