//! Contracts declared in a manifest (`[[contract]]`): a kernel with no contract of ours is checked against one its
//! author writes, in the vocabulary `pqhelium list --json` exports (arguments with element type, length, direction,
//! bounds, modulus, representation, secrecy), and a reference the author names:
//!
//! - `reference = { c = "ref.c", symbol = "f" }`: a C function compiled for the host. It runs in a host process of
//!   its own, built by `cc` from the file and a driver generated from the declared prototype, that reads each call's
//!   inputs on its stdin and writes the outputs on its stdout (one process per job, kept across cases). A process
//!   and not a library loaded into ours: the call is compiled from the declared prototype (no calling convention
//!   guessed at run time), and a reference that crashes or writes out of bounds ends its own process, which is then
//!   an error of the case, not of the bench.
//! - `reference = { symbol = "g" }`: another symbol of the user's objects, run on the same core (one object against
//!   another: a scheduled kernel against the unscheduled one, an MVE build against the portable C).
//!
//! On an argument with a modulus the reference's outputs are reduced mod q, as the object code's are
//! ([`crate::foreign`]): the comparison is of residues. There is no model: a declared contract is checked two ways,
//! and `coverage` (which needs a model) does not apply.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;

use rand::Rng;
use serde::Deserialize;

use crate::foreign::{get, put};
use pqhelium_families::{
    ArgSpec, Behaviour, Bound, CaseRng, Checked, Description, Dir, Elem, Evaluation, Images, Kernel, Len, Modulus,
    Outcome,
};
use pqhelium_guest::backend::{Arg, Backend, Call, Image, Limits, POISON};

/// The host's C compiler for a reference in C.
const HOST_CC: &str = "cc";

/// A `[[contract]]` of the manifest.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContractEntry {
    /// The id `contract = "..."` of a `[[kernel]]` names; not one of ours.
    pub id: String,
    #[serde(default)]
    pub summary: String,
    /// What the outputs are, in words (shown by `check`).
    #[serde(default)]
    pub computes: String,
    pub reference: ReferenceEntry,
    /// The arguments in AAPCS order.
    #[serde(rename = "arg")]
    pub args: Vec<ArgEntry>,
}

/// `{ c = "ref.c", symbol = "f" }` (a host C function) or `{ symbol = "g" }` (a symbol of the user's objects).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceEntry {
    pub symbol: String,
    /// C sources for the host, relative to the manifest (one file, or several).
    pub c: Option<OneOrMany>,
    /// Flags for the host compiler (`-DNAME`, `-I dir`).
    #[serde(default)]
    pub flags: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    One(PathBuf),
    Many(Vec<PathBuf>),
}

/// A `[[contract.arg]]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ArgEntry {
    pub name: String,
    /// `u8`, `i16`, `u16`, `i32`, `u32`, `i64`, `u64`.
    #[serde(rename = "type")]
    pub elem: String,
    /// A number of elements, or `"scalar"` (a value in a register).
    pub length: LengthEntry,
    /// `in`, `out` or `inout` (a scalar is `in`).
    pub direction: String,
    /// `[lo, hi]`, `"any"` or `"canonical"` (0..q-1, with a modulus); `"any"` when absent.
    pub input: Option<BoundEntry>,
    pub output: Option<BoundEntry>,
    /// `q`, or `{ q = q, form = "plain" | "montgomery", log2-r = k }`: the elements are residues mod q.
    pub modulus: Option<ModulusEntry>,
    #[serde(default)]
    pub representation: String,
    #[serde(default)]
    pub secret: bool,
    /// Values each of which makes one edge case with every element equal to it; the input bound's ends when absent.
    pub edges: Option<Vec<i64>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum LengthEntry {
    Elements(usize),
    Word(String),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum BoundEntry {
    Range([i64; 2]),
    Word(String),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ModulusEntry {
    Q(i64),
    Table(ModulusTable),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ModulusTable {
    pub q: i64,
    pub form: Option<String>,
    pub log2_r: Option<u32>,
}

const ELEMS: [Elem; 7] = [Elem::U8, Elem::I16, Elem::U16, Elem::I32, Elem::U32, Elem::I64, Elem::U64];

/// The range of values of an integer element type.
fn elem_range(elem: Elem) -> (i64, i64) {
    match elem {
        Elem::U8 => (0, 255),
        Elem::I16 => (i64::from(i16::MIN), i64::from(i16::MAX)),
        Elem::U16 => (0, i64::from(u16::MAX)),
        Elem::I32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
        Elem::U32 => (0, i64::from(u32::MAX)),
        // A u64 is given by its 64-bit pattern.
        Elem::I64 | Elem::U64 | Elem::F64 => (i64::MIN, i64::MAX),
    }
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// One declared argument, resolved.
#[derive(Debug, Clone)]
struct Declared {
    spec: ArgSpec,
    /// Elements (1 for a scalar).
    n: usize,
    /// The input range values are drawn from.
    range: (i64, i64),
    edges: Vec<i64>,
}

impl ArgEntry {
    fn resolve(&self) -> Result<Declared, String> {
        let name = &self.name;
        let at = |e: String| format!("argument `{name}`: {e}");
        let elem = ELEMS
            .into_iter()
            .find(|e| e.name() == self.elem)
            .ok_or_else(|| at(format!("unknown type `{}` (u8, i16, u16, i32, u32, i64, u64)", self.elem)))?;
        let len = match &self.length {
            LengthEntry::Elements(0) => return Err(at("length 0".into())),
            LengthEntry::Elements(n) => Len::Fixed(*n),
            LengthEntry::Word(w) if w == "scalar" => Len::Scalar,
            LengthEntry::Word(w) => return Err(at(format!("length `{w}`: a number of elements or \"scalar\""))),
        };
        let dir = match self.direction.as_str() {
            "in" => Dir::In,
            "out" => Dir::Out,
            "inout" => Dir::InOut,
            other => return Err(at(format!("unknown direction `{other}` (in, out, inout)"))),
        };
        if len == Len::Scalar
            && (dir != Dir::In || !matches!(elem, Elem::U8 | Elem::I16 | Elem::U16 | Elem::I32 | Elem::U32))
        {
            return Err(at("a scalar is an input of at most 32 bits".into()));
        }
        let modulus = match &self.modulus {
            None => None,
            Some(ModulusEntry::Q(q)) => Some(Modulus::plain(*q)),
            Some(ModulusEntry::Table(t)) => Some(match (t.form.as_deref(), t.log2_r) {
                (None | Some("plain"), None) => Modulus::plain(t.q),
                (Some("montgomery"), Some(k)) if (1..=64).contains(&k) => Modulus::montgomery(t.q, k),
                (Some("montgomery"), _) => return Err(at("a montgomery modulus takes log2-r = 1..64".into())),
                (Some(other), _) if other != "plain" => {
                    return Err(at(format!("unknown modulus form `{other}` (plain, montgomery)")));
                }
                _ => return Err(at("log2-r goes with form = \"montgomery\"".into())),
            }),
        };
        let (elo, ehi) = elem_range(elem);
        if let Some(m) = modulus
            && (m.q < 2 || m.q - 1 > ehi)
        {
            return Err(at(format!("modulus {} does not fit {} (2 <= q, q - 1 in the type)", m.q, elem.name())));
        }
        let bound = |entry: &Option<BoundEntry>, what: &str| -> Result<Bound, String> {
            match entry {
                None => Ok(Bound::Any),
                Some(BoundEntry::Word(w)) if w == "any" => Ok(Bound::Any),
                Some(BoundEntry::Word(w)) if w == "canonical" => match modulus {
                    Some(m) => Ok(Bound::Canonical { q: m.q }),
                    None => Err(at(format!("{what} \"canonical\" needs a modulus"))),
                },
                Some(BoundEntry::Word(w)) => Err(at(format!("{what} `{w}`: [lo, hi], \"any\" or \"canonical\""))),
                Some(BoundEntry::Range([lo, hi])) if lo > hi || *lo < elo || *hi > ehi => {
                    Err(at(format!("{what} [{lo}, {hi}] is empty or outside {}", elem.name())))
                }
                Some(BoundEntry::Range([lo, hi])) => Ok(Bound::Range { lo: *lo, hi: *hi }),
            }
        };
        let input = bound(&self.input, "input")?;
        let output = bound(&self.output, "output")?;
        if dir == Dir::Out && self.input.is_some() {
            return Err(at("an output takes no input bound".into()));
        }
        if dir == Dir::In && self.output.is_some() {
            return Err(at("an input takes no output bound".into()));
        }
        let range = match input {
            Bound::Range { lo, hi } => (lo, hi),
            Bound::Canonical { q } => (0, q - 1),
            _ => (elo, ehi),
        };
        let edges = match &self.edges {
            Some(_) if dir == Dir::Out => return Err(at("an output takes no edge values".into())),
            Some(edges) => {
                if let Some(e) = edges.iter().find(|e| !(range.0..=range.1).contains(*e)) {
                    return Err(at(format!("edge value {e} is outside its input bound [{}, {}]", range.0, range.1)));
                }
                edges.clone()
            }
            None if dir == Dir::Out => vec![],
            None => vec![range.0, range.1],
        };
        let spec = ArgSpec {
            name: leak(name.clone()),
            elem,
            len,
            dir,
            input: (dir != Dir::Out).then_some(input),
            output: (dir != Dir::In).then_some(output),
            repr: leak(self.representation.clone()),
            modulus,
            secret: self.secret,
            c_struct: None,
        };
        let n = match len {
            Len::Fixed(n) => n,
            _ => 1,
        };
        Ok(Declared { spec, n, range, edges })
    }
}

/// Where a reference runs.
enum Reference {
    /// A host process per job, running the driver built from their C.
    Host {
        /// The program, open: its temporary directory is already removed (a registered kernel lives as long as the
        /// process, so nothing would remove it later), and the open file keeps it runnable.
        program: File,
        idle: Mutex<Vec<HostProcess>>,
    },
    /// A symbol of their image, on emulators of its own (one per job).
    Guest { image: Image, symbol: String, idle: Mutex<Vec<Box<dyn Backend>>> },
}

struct HostProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
}

impl Drop for HostProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Contract {
    args: Vec<Declared>,
    symbol: String,
    reference: Reference,
    edge_cases: u64,
}

/// Element `x` of an output with a modulus, reduced as [`crate::foreign`] reduces the object code's: into `0..q`, or
/// centred when the argument's input range holds no complete residue system from 0.
fn reduce(spec: &ArgSpec, x: i64, q: i64) -> i64 {
    let (lo, hi) = match spec.input {
        Some(Bound::Range { lo, hi }) => (lo, hi),
        Some(Bound::Canonical { q }) => (0, q - 1),
        _ => elem_range(spec.elem),
    };
    let from = if lo <= 0 && hi >= q - 1 { 0 } else { -(q - 1) / 2 };
    from + (i128::from(x) - i128::from(from)).rem_euclid(i128::from(q)) as i64
}

impl Contract {
    fn outputs(&self) -> impl Iterator<Item = &Declared> {
        self.args.iter().filter(|a| a.spec.dir != Dir::In)
    }

    /// Outputs with a modulus reduced (both sides compare residues).
    fn reduced(&self, outcome: &Outcome) -> Outcome {
        let mut outcome = outcome.clone();
        for (arg, data) in self.outputs().zip(outcome.buffers.iter_mut()) {
            if let Some(m) = arg.spec.modulus
                && data.len() == arg.n * arg.spec.elem.bytes()
            {
                for i in 0..arg.n {
                    let x = get(arg.spec.elem, data, i);
                    put(arg.spec.elem, data, i, reduce(&arg.spec, x, m.q));
                }
            }
        }
        outcome
    }

    fn run(&self, args: &[Arg]) -> Result<Outcome, String> {
        if args.len() != self.args.len() {
            return Err(format!("{} arguments, the contract declares {}", args.len(), self.args.len()));
        }
        match &self.reference {
            Reference::Host { program, idle } => {
                let process = idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
                let mut process = match process {
                    Some(p) => p,
                    None => spawn(program)?,
                };
                let outcome = self.run_host(&mut process, args)?;
                idle.lock().unwrap_or_else(|e| e.into_inner()).push(process);
                Ok(outcome)
            }
            Reference::Guest { image, symbol, idle } => {
                let backend = idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
                let mut backend = match backend {
                    Some(b) => b,
                    None => image.open(Limits::default()).map_err(|e| format!("reference `{symbol}`: {e}"))?,
                };
                let output = backend
                    .call(&Call::new(symbol.clone(), args.to_vec()))
                    .map_err(|e| format!("reference `{symbol}`: {e}"))?;
                idle.lock().unwrap_or_else(|e| e.into_inner()).push(backend);
                let buffers = args
                    .iter()
                    .filter(|a| matches!(a, Arg::In(_) | Arg::InOut(_) | Arg::Out(_)))
                    .zip(output.buffers)
                    .filter(|(a, _)| matches!(a, Arg::InOut(_) | Arg::Out(_)))
                    .map(|(_, data)| data)
                    .collect();
                Ok(Outcome { buffers, ret: None })
            }
        }
    }

    /// One call in a host process: the inputs in argument order (a scalar as 8 bytes), the outputs back.
    fn run_host(&self, process: &mut HostProcess, args: &[Arg]) -> Result<Outcome, String> {
        let mut request = Vec::new();
        for arg in args {
            match arg {
                Arg::In(b) | Arg::InOut(b) => request.extend_from_slice(b),
                Arg::U32(x) => request.extend_from_slice(&u64::from(*x).to_le_bytes()),
                Arg::Out(_) => {}
                Arg::F64(_) => return Err("a declared contract has no double arguments".into()),
            }
        }
        let mut buffers = Vec::new();
        let exchange = |process: &mut HostProcess, buffers: &mut Vec<Vec<u8>>| -> std::io::Result<()> {
            process.stdin.write_all(&request)?;
            process.stdin.flush()?;
            for arg in self.outputs() {
                let mut data = vec![0; arg.n * arg.spec.elem.bytes()];
                process.stdout.read_exact(&mut data)?;
                buffers.push(data);
            }
            Ok(())
        };
        if let Err(e) = exchange(process, &mut buffers) {
            let status = process.child.wait().map_or_else(|_| "unknown status".into(), |s| s.to_string());
            return Err(format!(
                "the host reference `{}` did not answer ({e}): its process ended, {status}",
                self.symbol
            ));
        }
        Ok(Outcome { buffers, ret: None })
    }
}

/// The path that runs an open program: its descriptor's.
fn run_path(program: &File) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", program.as_raw_fd()))
}

fn spawn(program: &File) -> Result<HostProcess, String> {
    let mut child = Command::new(run_path(program))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("the reference program built from your C: {e}"))?;
    let stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    Ok(HostProcess { child, stdin, stdout })
}

impl Behaviour for Contract {
    /// Case 0 has every element at the value of its bound nearest 0 (the shrinker's target); cases 1..edge_cases
    /// fill every argument with one of its edge values; later cases are uniform in the bounds, every other one with
    /// a quarter of its elements at edge values.
    fn generate_args(&self, case: u64, rng: &mut CaseRng) -> Vec<Arg> {
        let mixed = case >= self.edge_cases && case % 2 == 1;
        self.args
            .iter()
            .map(|arg| {
                let elem = arg.spec.elem;
                let (lo, hi) = arg.range;
                let value = |rng: &mut CaseRng| -> i64 {
                    if case == 0 {
                        return 0.clamp(lo, hi);
                    }
                    if case < self.edge_cases && !arg.edges.is_empty() {
                        return arg.edges[(case as usize - 1) % arg.edges.len()];
                    }
                    if mixed && !arg.edges.is_empty() && rng.gen_ratio(1, 4) {
                        return arg.edges[rng.gen_range(0..arg.edges.len())];
                    }
                    if elem == Elem::U64 && (lo, hi) == (i64::MIN, i64::MAX) {
                        return rng.r#gen();
                    }
                    rng.gen_range(lo..=hi)
                };
                match arg.spec.dir {
                    Dir::Out => Arg::Out(arg.n * elem.bytes()),
                    _ if arg.spec.len == Len::Scalar => Arg::U32(value(rng) as u32),
                    dir => {
                        let mut data = vec![0; arg.n * elem.bytes()];
                        for i in 0..arg.n {
                            put(elem, &mut data, i, value(rng));
                        }
                        if dir == Dir::In { Arg::In(data) } else { Arg::InOut(data) }
                    }
                }
            })
            .collect()
    }

    fn evaluate(&self, args: &[Arg]) -> Result<Evaluation, String> {
        let outcome = self.run(args)?;
        Ok(Evaluation { reference: self.reduced(&outcome), model: None })
    }

    fn expected(&self, args: &[Arg]) -> Outcome {
        self.evaluate(args).map_or(Outcome { buffers: vec![], ret: None }, |e| e.reference)
    }

    fn canonical(&self, outcome: &Outcome) -> Outcome {
        self.reduced(outcome)
    }

    fn canonicalises_object_code(&self) -> bool {
        true
    }

    fn checked(&self) -> Checked {
        Checked::TwoWay
    }

    fn declassified_events(&self) -> &'static [pqhelium_analyses::ct::Declassification] {
        &[]
    }
}

/// The symbols of their objects that declared contracts run as references (linked with their kernels).
pub fn guest_symbols(contracts: &[ContractEntry]) -> impl Iterator<Item = &str> {
    contracts.iter().filter(|c| c.reference.c.is_none()).map(|c| c.reference.symbol.as_str())
}

/// Checks a declaration before anything is built: its id, arguments and reference.
pub fn check(entry: &ContractEntry) -> Result<(), String> {
    resolve(entry).map(|_| ())
}

fn resolve(entry: &ContractEntry) -> Result<Vec<Declared>, String> {
    let at = |e: String| format!("contract `{}`: {e}", entry.id);
    if pqhelium_families::find(&entry.id).is_some() {
        return Err(at("is one of ours; a declared contract takes an id of its own".into()));
    }
    if entry.args.is_empty() {
        return Err(at("no [[contract.arg]]".into()));
    }
    let args = entry.args.iter().map(ArgEntry::resolve).collect::<Result<Vec<_>, _>>().map_err(&at)?;
    for (i, a) in args.iter().enumerate() {
        if args[..i].iter().any(|b| b.spec.name == a.spec.name) {
            return Err(at(format!("argument `{}` is declared twice", a.spec.name)));
        }
    }
    if !args.iter().any(|a| a.spec.dir != Dir::In) {
        return Err(at("no output (direction out or inout)".into()));
    }
    let is_name = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if let Some(bad) =
        std::iter::once(entry.reference.symbol.as_str()).chain(args.iter().map(|a| a.spec.name)).find(|s| !is_name(s))
    {
        return Err(at(format!("`{bad}` is not a C name")));
    }
    if entry.reference.c.is_none() && !entry.reference.flags.is_empty() {
        return Err(at("reference flags go with a C reference (c = \"file.c\")".into()));
    }
    Ok(args)
}

/// The declared contract as a registered kernel (leaked, as long as the process), its reference built: their C
/// compiled for the host in `build`, or their symbol on `image`. `dir` is the manifest's directory.
pub fn contract(entry: &ContractEntry, image: Image, core: &str, dir: &Path) -> Result<&'static Kernel, String> {
    let args = resolve(entry)?;
    let at = |e: String| format!("contract `{}`: {e}", entry.id);
    let edge_cases = 1 + args.iter().map(|a| a.edges.len() as u64).max().unwrap_or(0);
    let specs: Vec<ArgSpec> = args.iter().map(|a| a.spec).collect();
    let symbol = entry.reference.symbol.clone();
    let (reference, by) = match &entry.reference.c {
        Some(sources) => {
            let sources = match sources {
                OneOrMany::One(p) => vec![p.clone()],
                OneOrMany::Many(ps) => ps.clone(),
            };
            let program = build_host(&symbol, &args, &sources, &entry.reference.flags, dir).map_err(&at)?;
            let by = format!("the host C function `{symbol}`");
            (Reference::Host { program, idle: Mutex::new(vec![]) }, by)
        }
        None => {
            let by = format!("`{symbol}` of your objects on the {core}");
            (Reference::Guest { image, symbol: symbol.clone(), idle: Mutex::new(vec![]) }, by)
        }
    };
    let description = Description {
        id: leak(entry.id.clone()),
        symbol: leak(symbol.clone()),
        images: if core == "m7" { Images::Both } else { Images::M55Only },
        summary: if entry.summary.is_empty() { "declared in the manifest".into() } else { entry.summary.clone() },
        computes: format!(
            "{}reference: {by}{}",
            if entry.computes.is_empty() { String::new() } else { format!("{}; ", entry.computes) },
            if specs.iter().any(|s| s.modulus.is_some() && s.dir != Dir::In) {
                ", outputs with a modulus compared as residues"
            } else {
                ""
            }
        ),
        requires: String::new(),
        edge_cases,
        args: specs,
        returns: None,
        results: vec![],
    };
    let behaviour = Contract { args, symbol, reference, edge_cases };
    Ok(Box::leak(Box::new(Kernel::from_behaviour(description, Box::new(behaviour)))))
}

/// The driver of a host reference: reads each call's inputs on stdin, calls it, writes its outputs on stdout.
fn driver(symbol: &str, args: &[Declared]) -> String {
    let description = Description {
        id: "",
        symbol: leak(symbol.to_string()),
        images: Images::Both,
        summary: String::new(),
        computes: String::new(),
        requires: String::new(),
        edge_cases: 0,
        args: args.iter().map(|a| a.spec).collect(),
        returns: None,
        results: vec![],
    };
    let prototype = description.prototype().expect("a contract with object code has a prototype");
    let mut c = format!(
        "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n\n{prototype};\n\n\
         static int get(void *p, size_t n) {{ return fread(p, 1, n, stdin) == n; }}\n\n"
    );
    for a in args {
        let (name, ty) = (a.spec.name, c_type(a.spec.elem));
        if a.spec.len == Len::Scalar {
            c += &format!("static uint64_t arg_{name};\n");
        } else {
            c += &format!("static {ty} arg_{name}[{}];\n", a.n);
        }
    }
    // The outputs go to a copy of stdout; the reference's own printing goes to stderr.
    c += "\nint main(void) {\n    FILE *out = fdopen(dup(1), \"wb\");\n    if (!out || dup2(2, 1) < 0) return 1;\n    for (;;) {\n";
    for a in args {
        let name = a.spec.name;
        match (a.spec.len, a.spec.dir) {
            (Len::Scalar, _) => c += &format!("        if (!get(&arg_{name}, 8)) return 0;\n"),
            (_, Dir::Out) => c += &format!("        memset(arg_{name}, {POISON}, sizeof arg_{name});\n"),
            _ => c += &format!("        if (!get(arg_{name}, sizeof arg_{name})) return 0;\n"),
        }
    }
    let call: Vec<String> = args
        .iter()
        .map(|a| match a.spec.len {
            Len::Scalar => format!("({}) arg_{}", c_type(a.spec.elem), a.spec.name),
            _ => format!("arg_{}", a.spec.name),
        })
        .collect();
    c += &format!("        {symbol}({});\n", call.join(", "));
    for a in args.iter().filter(|a| a.spec.dir != Dir::In) {
        c += &format!("        fwrite(arg_{0}, 1, sizeof arg_{0}, out);\n", a.spec.name);
    }
    c += "        fflush(out);\n    }\n}\n";
    c
}

fn c_type(elem: Elem) -> &'static str {
    match elem {
        Elem::U8 => "uint8_t",
        Elem::I16 => "int16_t",
        Elem::U16 => "uint16_t",
        Elem::I32 => "int32_t",
        Elem::U32 => "uint32_t",
        Elem::I64 => "int64_t",
        Elem::U64 => "uint64_t",
        Elem::F64 => "double",
    }
}

/// Compiles their C with the driver into a host program in a temporary directory, removed on return; the program
/// comes back open. The compiler runs in the manifest's folder `dir` on the sources as the manifest names them, so
/// relative paths in the flags are relative to the manifest. The compiler's messages are shown whole on failure.
fn build_host(
    symbol: &str,
    args: &[Declared],
    sources: &[PathBuf],
    flags: &[String],
    dir: &Path,
) -> Result<File, String> {
    let build = tempfile::Builder::new().prefix("pqhelium-reference-").tempdir().map_err(|e| e.to_string())?;
    // tempfile's paths are absolute, so the compiler finds the driver and writes the program from `dir` too.
    let driver_path = build.path().join("pqhelium_driver.c");
    std::fs::write(&driver_path, driver(symbol, args)).map_err(|e| e.to_string())?;
    let program = build.path().join("reference");
    let mut command = Command::new(HOST_CC);
    command.current_dir(dir).arg("-O2").args(flags).arg(&driver_path);
    for source in sources {
        let path = dir.join(source);
        if !path.is_file() {
            return Err(format!("reference: {}: no such file", path.display()));
        }
        command.arg(source);
    }
    command.arg("-o").arg(&program);
    let out = command
        .output()
        .map_err(|e| format!("reference: cannot run the host C compiler `{HOST_CC}`: {e} (install gcc or clang)"))?;
    if !out.status.success() {
        return Err(format!(
            "reference: the host C compiler failed:\n{}",
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    File::open(&program).map_err(|e| format!("reference: {}: {e}", program.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arg(text: &str) -> Result<Declared, String> {
        toml::from_str::<ArgEntry>(text).map_err(|e| e.to_string())?.resolve()
    }

    #[test]
    fn arguments_resolve_with_their_bounds_and_edges() {
        let a = arg("name = \"a\"\ntype = \"i32\"\nlength = 256\ndirection = \"inout\"\ninput = [-5, 5]\n\
                     output = \"canonical\"\nmodulus = 7\nsecret = true\n")
        .unwrap();
        assert_eq!(a.spec.len, Len::Fixed(256));
        assert_eq!(
            (a.spec.input, a.spec.output),
            (Some(Bound::Range { lo: -5, hi: 5 }), Some(Bound::Canonical { q: 7 }))
        );
        assert_eq!(a.edges, vec![-5, 5]);
        assert!(a.spec.secret);
        let e = arg("name = \"a\"\ntype = \"i33\"\nlength = 1\ndirection = \"in\"\n").unwrap_err();
        assert_eq!(e, "argument `a`: unknown type `i33` (u8, i16, u16, i32, u32, i64, u64)");
        let e = arg("name = \"a\"\ntype = \"u8\"\nlength = 4\ndirection = \"in\"\nedges = [256]\n").unwrap_err();
        assert_eq!(e, "argument `a`: edge value 256 is outside its input bound [0, 255]");
        let e = arg("name = \"a\"\ntype = \"i16\"\nlength = 4\ndirection = \"in\"\nmodulus = 40000\n").unwrap_err();
        assert_eq!(e, "argument `a`: modulus 40000 does not fit i16 (2 <= q, q - 1 in the type)");
    }

    /// A registered kernel is never dropped, so the host reference leaves no directory behind: it runs from the
    /// open file of a program whose directory is already gone.
    #[test]
    fn the_host_reference_runs_without_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("inc.c"), "#include <stdint.h>\nvoid inc(int32_t *a) { a[0] += 1; }\n").unwrap();
        let args = [arg("name = \"a\"\ntype = \"i32\"\nlength = 1\ndirection = \"inout\"\n").unwrap()];
        let program = build_host("inc", &args, &[PathBuf::from("inc.c")], &[], dir.path()).unwrap();
        let built = std::fs::read_link(run_path(&program)).unwrap();
        assert!(!built.parent().unwrap().exists(), "{} is still there", built.display());
        let mut process = spawn(&program).unwrap();
        process.stdin.write_all(&41i32.to_le_bytes()).unwrap();
        let mut out = [0u8; 4];
        process.stdout.read_exact(&mut out).unwrap();
        assert_eq!(i32::from_le_bytes(out), 42);
    }

    /// Residues are reduced into 0..q when the input range holds 0..q-1, else centred, as the object code's are.
    #[test]
    fn outputs_reduce_as_the_object_codes_do() {
        let wide = ArgSpec::in_out("a", Elem::I32, Len::Fixed(1), Bound::magnitude(100), Bound::Any);
        let narrow = ArgSpec::in_out("a", Elem::I32, Len::Fixed(1), Bound::magnitude(3), Bound::Any);
        assert_eq!((reduce(&wide, -1, 7), reduce(&wide, 15, 7)), (6, 1));
        assert_eq!((reduce(&narrow, -1, 7), reduce(&narrow, 6, 7)), (-1, -1));
    }
}
