//! Per-block cycles from LLVM's scheduling models of the Cortex-M55 and Cortex-M85 (`llvm-mca-19`), on the blocks'
//! disassembly (`llvm-objdump-19`), cached per image and core.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use pqhelium_guest::profile::BlockId;

use super::Core;

const MCA: &str = "llvm-mca-19";
const OBJDUMP: &str = "llvm-objdump-19";
const TRIPLE: &str = "thumbv8.1m.main-none-eabi";
const ATTRS: &str = "+mve.fp,+fp64";
/// The latency of `bl`/`blx` in llvm-mca's schedule: the branch unit's single cycle (`WriteBrL`, latency 1, in both
/// cores' models); the callee's own blocks are profiled and timed themselves.
const CALL_LATENCY: u32 = 1;
const INSTALL_HINT: &str = "run `ci/setup` (apt-get install llvm-19)";

/// An LLVM tool: `$PQHELIUM_LLVM_MCA` / `$PQHELIUM_LLVM_OBJDUMP`, else the Debian name on the PATH.
fn tool(name: &str, env: &str) -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(env) {
        let path = PathBuf::from(path);
        if !path.is_file() {
            bail!("{name} not found at ${env} = {}; {INSTALL_HINT}", path.display());
        }
        return Ok(path);
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .with_context(|| format!("{name} not found: cycle estimates need LLVM 19; {INSTALL_HINT}"))
}

/// One instruction of the image as llvm-mca reads it.
#[derive(Debug, Clone)]
pub struct Insn {
    pub addr: u32,
    /// Bytes: 2 or 4.
    pub size: u32,
    pub mnemonic: String,
    /// Assembly llvm-mca accepts: branch targets become a local label, comments are dropped.
    pub text: String,
}

/// Every instruction of an image, by address.
pub struct Disassembly {
    insns: BTreeMap<u32, Insn>,
}

impl Disassembly {
    /// Disassembles the image's code with `llvm-objdump-19` (binutils' objdump does not decode clang's MVE output).
    pub fn of_image(elf: &[u8]) -> Result<Self> {
        let objdump = tool(OBJDUMP, "PQHELIUM_LLVM_OBJDUMP")?;
        // A directory of its own per call: threads of one process disassemble images side by side.
        let dir = tempfile::Builder::new().prefix("pqhelium-cycles-").tempdir()?;
        let path = dir.path().join("image.elf");
        std::fs::write(&path, elf)?;
        let output = Command::new(&objdump)
            .args(["-d", "--no-show-raw-insn", &format!("--triple={TRIPLE}"), &format!("--mattr={ATTRS}")])
            .arg(&path)
            .output();
        let output = output.with_context(|| format!("running {}", objdump.display()))?;
        if !output.status.success() {
            bail!("{OBJDUMP} failed: {}", String::from_utf8_lossy(&output.stderr).trim());
        }
        Ok(Self::parse(&String::from_utf8_lossy(&output.stdout)))
    }

    fn parse(listing: &str) -> Self {
        let mut rows: Vec<(u32, Option<(String, String)>)> = Vec::new();
        for line in listing.lines() {
            let Some((addr, rest)) = line.split_once(':') else { continue };
            let Ok(addr) = u32::from_str_radix(addr.trim(), 16) else { continue };
            if !line.starts_with(' ') {
                continue; // a symbol line: `00000938 <name>:`
            }
            let rest = rest.trim();
            // Data (`.word`), undecodable bytes: an address, no instruction.
            let data = [".word", ".short", ".byte", "<unknown>"].iter().any(|d| rest.contains(d));
            if rest.is_empty() || data {
                rows.push((addr, None));
                continue;
            }
            rows.push((addr, Some(mca_text(rest))));
        }
        let mut insns = BTreeMap::new();
        for (i, (addr, insn)) in rows.iter().enumerate() {
            let Some((mnemonic, text)) = insn else { continue };
            let next = rows.get(i + 1).map_or(addr + 4, |r| r.0);
            let size = if next > *addr && next - addr <= 4 { next - addr } else { 4 };
            insns.insert(*addr, Insn { addr: *addr, size, mnemonic: mnemonic.clone(), text: text.clone() });
        }
        Self { insns }
    }

    /// The block's instructions, in order; an error when the image has no such code.
    pub fn block(&self, id: BlockId) -> Result<Vec<&Insn>> {
        let mut out = Vec::with_capacity(id.insns as usize);
        let mut addr = id.addr;
        for _ in 0..id.insns {
            let insn = self.insns.get(&addr).with_context(|| format!("block {id}: no instruction at {addr:#x}"))?;
            out.push(insn);
            addr += insn.size;
        }
        Ok(out)
    }
}

/// `mnemonic` and the llvm-mca text of an objdump instruction: the ` @ ...` comment dropped, `0x1234 <sym+0x10>`
/// targets replaced by a label (llvm-mca times instructions, never follows branches) and `<...>` notes dropped.
fn mca_text(insn: &str) -> (String, String) {
    let insn = insn.split(" @ ").next().unwrap_or(insn).trim();
    let mut text = String::new();
    let mut rest = insn;
    while let Some(open) = rest.find('<') {
        let Some(close) = rest[open..].find('>') else { break };
        let before = rest[..open].trim_end();
        // A branch target printed as an address, then the note: the address becomes the label.
        match before.rsplit_once(|c: char| c.is_whitespace() || c == ',') {
            Some((head, last)) if last.starts_with("0x") => {
                text.push_str(&before[..head.len() + 1]);
                text.push_str(".Ltarget");
            }
            _ => text.push_str(before),
        }
        rest = &rest[open + close + 1..];
    }
    text.push_str(rest);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mnemonic = text.split_whitespace().next().unwrap_or("").to_string();
    (mnemonic, text)
}

/// What llvm-mca reports for one region (one iteration): its total cycles and, for each instruction sent, the cycle it
/// issued in and the cycle its result was written (`None`: llvm-mca has no scheduling information for it and skipped
/// it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegionCost {
    pub total: u64,
    pub issued: Vec<Option<u64>>,
    pub executed: Vec<Option<u64>>,
}

/// llvm-mca's results per region text, kept in a file per image and core.
pub struct Mca {
    core: Core,
    mca: PathBuf,
    cache_path: Option<PathBuf>,
    cache: Cache,
    dirty: bool,
}

/// Written between regions, outside them (so not analysed): four instructions use up an IT or VPT block that a
/// region leaves open (it holds at most four), which would otherwise swallow the next region's first instructions
/// and make a region's cost depend on the regions sent with it.
const REGION_SEPARATOR: &str = "nop\nnop\nnop\nnop\n";

#[derive(Default, Serialize, Deserialize)]
struct Cache {
    /// `llvm-mca-19 --version`: another LLVM gives other numbers.
    tool: String,
    regions: HashMap<String, RegionCost>,
}

/// Where the cache lives: `$PQHELIUM_CACHE_DIR`, else `$XDG_CACHE_HOME/pqhelium`, else `~/.cache/pqhelium`.
fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PQHELIUM_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(Path::new(&dir).join("pqhelium"));
    }
    std::env::var_os("HOME").map(|home| Path::new(&home).join(".cache/pqhelium"))
}

impl Mca {
    /// llvm-mca for `core` on the image `elf`; the cache file is keyed by the image's SHA-256 and the core. A cache
    /// that cannot be read or was made by another llvm-mca is ignored.
    pub fn new(core: Core, elf: &[u8]) -> Result<Self> {
        let mca = tool(MCA, "PQHELIUM_LLVM_MCA")?;
        let version =
            Command::new(&mca).arg("--version").output().with_context(|| format!("running {}", mca.display()))?;
        let version = String::from_utf8_lossy(&version.stdout).lines().next().unwrap_or("").trim().to_string();
        // The options and the separator between regions are part of the key: other ones give other numbers.
        let tool_version = format!("{version}; {}; {}", Self::options(core).join(" "), REGION_SEPARATOR.escape_debug());
        let hash = hex::encode(Sha256::digest(elf));
        let cache_path = cache_dir().map(|d| d.join(format!("cycles-{}-{}.json", core.name(), &hash[..16])));
        let cache = cache_path
            .as_ref()
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|bytes| serde_json::from_slice::<Cache>(&bytes).ok())
            .filter(|c| c.tool == tool_version)
            .unwrap_or(Cache { tool: tool_version, regions: HashMap::new() });
        Ok(Self { core, mca, cache_path, cache, dirty: false })
    }

    /// The costs of every region (instruction texts in order), from the cache or one llvm-mca run for the rest.
    pub fn costs(&mut self, regions: &[Vec<&str>]) -> Result<Vec<RegionCost>> {
        let keys: Vec<String> = regions.iter().map(|r| r.join("\n")).collect();
        let mut seen = std::collections::HashSet::new();
        let missing: Vec<usize> = (0..regions.len())
            .filter(|&i| !regions[i].is_empty() && !self.cache.regions.contains_key(&keys[i]) && seen.insert(&keys[i]))
            .collect();
        if !missing.is_empty() {
            let fresh = self.run(&missing.iter().map(|&i| &regions[i]).collect::<Vec<_>>())?;
            for (i, cost) in missing.iter().zip(fresh) {
                self.cache.regions.insert(keys[*i].clone(), cost);
            }
            self.dirty = true;
        }
        // An empty region (a block of branches that issue beside others): no cycles.
        let empty = RegionCost { total: 0, issued: Vec::new(), executed: Vec::new() };
        Ok(keys.iter().map(|k| self.cache.regions.get(k).unwrap_or(&empty).clone()).collect())
    }

    /// Writes new results to the cache file (best effort: a read-only home only costs time).
    pub fn save(&mut self) {
        if let (true, Some(path)) = (self.dirty, &self.cache_path) {
            let write = || -> std::io::Result<()> {
                std::fs::create_dir_all(path.parent().expect("a file in a directory"))?;
                let tmp = path.with_extension(format!("tmp{}", std::process::id()));
                std::fs::write(&tmp, serde_json::to_vec(&self.cache)?)?;
                std::fs::rename(tmp, path)
            };
            if let Err(e) = write() {
                tracing::warn!("cycle cache {}: {e}", path.display());
            }
            self.dirty = false;
        }
    }

    /// llvm-mca's options: one iteration of each region, with the timeline (each instruction's issue cycle), as JSON.
    fn options(core: Core) -> Vec<String> {
        let mut options =
            vec![format!("-mtriple={TRIPLE}"), format!("-mcpu={}", core.cpu()), format!("-mattr={ATTRS}")];
        options.extend(
            ["-iterations=1", "-skip-unsupported-instructions=any", "--all-views=false", "--summary-view"]
                .map(String::from),
        );
        // A call is a taken branch (charged by the branch terms), not the 100 cycles llvm-mca assumes for the callee
        // by default.
        options.push(format!("--call-latency={CALL_LATENCY}"));
        options.extend(["--timeline", "--timeline-max-cycles=0", "--json"].map(String::from));
        options
    }

    /// One llvm-mca run over all regions, one iteration each, with the timeline (issue cycle per instruction).
    fn run(&self, regions: &[&Vec<&str>]) -> Result<Vec<RegionCost>> {
        let mut input = String::new();
        for (i, region) in regions.iter().enumerate() {
            input.push_str(&format!("# LLVM-MCA-BEGIN r{i}\n"));
            for insn in region.iter() {
                input.push_str(insn);
                input.push('\n');
            }
            input.push_str(&format!("# LLVM-MCA-END r{i}\n"));
            input.push_str(REGION_SEPARATOR);
        }
        let mut child = Command::new(&self.mca)
            .args(Self::options(self.core))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .with_context(|| format!("running {}", self.mca.display()))?;
        let mut stdin = child.stdin.take().expect("piped");
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let output = child.wait_with_output()?;
        writer.join().expect("writer thread").context("feeding llvm-mca")?;
        if !output.status.success() {
            let err = String::from_utf8_lossy(&output.stderr);
            bail!("{MCA} failed: {}", err.lines().find(|l| l.contains("error")).unwrap_or(err.trim()));
        }
        let report: Report = serde_json::from_slice(&output.stdout).context("reading llvm-mca's JSON")?;
        let mut by_name: HashMap<String, ReportRegion> =
            report.code_regions.into_iter().map(|r| (r.name.clone(), r)).collect();
        regions
            .iter()
            .enumerate()
            .map(|(i, sent)| match by_name.remove(&format!("r{i}")) {
                // Nothing in the region had scheduling information.
                None => Ok(RegionCost { total: 0, issued: vec![None; sent.len()], executed: vec![None; sent.len()] }),
                Some(region) => Ok(align(sent, region)),
            })
            .collect()
    }
}

#[derive(Deserialize)]
struct Report {
    #[serde(rename = "CodeRegions")]
    code_regions: Vec<ReportRegion>,
}

#[derive(Deserialize)]
struct ReportRegion {
    #[serde(rename = "Name")]
    name: String,
    #[serde(rename = "Instructions")]
    instructions: Vec<String>,
    #[serde(rename = "SummaryView")]
    summary: Summary,
    #[serde(rename = "TimelineView")]
    timeline: Option<Timeline>,
}

#[derive(Deserialize)]
struct Summary {
    #[serde(rename = "TotalCycles")]
    total_cycles: u64,
}

#[derive(Deserialize)]
struct Timeline {
    #[serde(rename = "TimelineInfo")]
    info: Vec<TimelineEntry>,
}

#[derive(Deserialize)]
struct TimelineEntry {
    #[serde(rename = "CycleIssued")]
    issued: u64,
    #[serde(rename = "CycleExecuted")]
    executed: u64,
}

/// Matches llvm-mca's instructions (the ones it kept, in its own spelling) to the ones sent, by mnemonic in order.
fn align(sent: &[&str], region: ReportRegion) -> RegionCost {
    let base =
        |m: &str| m.split_whitespace().next().unwrap_or("").trim_end_matches(".w").trim_end_matches(".n").to_string();
    let timeline: Vec<(u64, u64)> =
        region.timeline.map(|t| t.info.into_iter().map(|e| (e.issued, e.executed)).collect()).unwrap_or_default();
    let mut kept = region.instructions.iter().map(|i| base(i)).zip(timeline).peekable();
    let (issued, executed) = sent
        .iter()
        .map(|insn| match kept.peek() {
            Some((m, _)) if *m == base(insn) => kept.next().map_or((None, None), |(_, (i, e))| (Some(i), Some(e))),
            _ => (None, None),
        })
        .unzip();
    RegionCost { total: region.summary.total_cycles, issued, executed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objdump_text_becomes_assembly_llvm_mc_reads() {
        assert_eq!(mca_text("bls\t0xa14 <fndsa_fpu_fft+0xdc> @ imm = #0xc4").1, "bls .Ltarget");
        assert_eq!(mca_text("le\tlr, 0x9b8 <fndsa_fpu_fft+0x80> @ imm = #-0x44").1, "le lr, .Ltarget");
        assert_eq!(mca_text("adr\tr3, #608 <f+0xd8>").1, "adr r3, #608");
        assert_eq!(mca_text("ldr\tr3, [pc, #0xa4]         @ 0xa1c <f+0xe4>").1, "ldr r3, [pc, #0xa4]");
        assert_eq!(mca_text("vadd.f64\td0, d4, d5").0, "vadd.f64");
    }

    /// A region that ends inside an IT or VPT block must not take the next region's instructions into it: each
    /// region's cost is the one it has when sent alone.
    #[test]
    fn a_region_left_in_an_it_or_vpt_block_does_not_reach_the_next() {
        let mut mca = Mca::new(Core::M55, b"no image").unwrap();
        mca.cache_path = None;
        let vector = vec!["vldrw.u32 q0, [r0]", "vadd.i32 q1, q0, q0", "vstrw.32 q1, [r2]"];
        let scalar = vec!["ldr r3, [r0]", "add r3, r3, r1", "str r3, [r2]"];
        for (open_block, next) in [(vec!["cmp r0, r1", "vpst"], vector), (vec!["cmp r0, r1", "itt eq"], scalar)] {
            let alone = mca.run(&[&next]).unwrap().remove(0);
            let after = mca.run(&[&open_block, &next]).unwrap().remove(1);
            assert!(alone.issued.iter().all(Option::is_some), "{next:?}: {:?}", alone.issued);
            assert_eq!((after.total, &after.issued), (alone.total, &alone.issued), "{next:?} after {open_block:?}");
        }
    }
}
