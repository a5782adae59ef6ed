//! Builds the guest images and the QEMU instruction-count plugin.
//!
//! - `pqhelium-m55.elf`: every source under `arm/`, gcc `-mcpu=cortex-m55` (FP64 + MVE), run by QEMU mps3-an547.
//! - `pqhelium-m85.elf`: the same sources, clang `-mcpu=cortex-m85` (gcc 12 does not know the M85), linked by gcc
//!   against the same libgcc; run by QEMU mps3-an547 too (same Armv8.1-M + MVE instruction set).
//! - `pqhelium-m7.elf`: every source except `*.mve.c` and `*.mve.S`, `-mcpu=cortex-m7 -mfpu=fpv5-d16`, run by unicorn.
//! - the harness objects of each image and `arm/harness/link.ld` are embedded too (`Harness`), so that `pqhelium link`
//!   links a user's objects with them.
//! - `libpqh_icount.so`: the TCG plugin that counts instructions, built with the host C compiler.
//! - `libpqh_trace.so`: the TCG plugin that builds leakage traces (`pqhelium ct`), likewise.
//!
//! A missing cross compiler is a build error that names the command installing it: never a silent skip.
//!
//! Incremental: the outputs stay in `OUT_DIR` between builds, and an object (or plugin) is recompiled only when it,
//! its depfile or its fingerprint (`<output>.cmd`: the compiler's path and version, the exact command line) is
//! missing, the fingerprint differs, or a file its depfile names (from the compiler: source, headers, `.S`
//! includes) is missing or newer. An image and its archive are relinked, from scratch, when an object was rebuilt,
//! the list of objects or a command changed, or `link.ld` is newer. Compiles run on `NUM_JOBS` threads.

use std::env;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::SystemTime;

#[path = "src/toolchain.rs"]
mod toolchain;
use toolchain::{CLANG, COMMON_FLAGS, CROSS_AR, CROSS_CC, INSTALL_HINT, LINK_FLAGS, M7_FLAGS, M55_FLAGS, M85_FLAGS};

/// The compiler of an image's objects. gcc links every image (its libgcc, the same linker script).
#[derive(Clone, Copy, PartialEq)]
enum Compiler {
    Gcc,
    /// `--target=arm-none-eabi`, newlib's headers from the gcc installation; `-grecord-command-line` so that the
    /// debug info names the flags (gcc records them by default), which a test reads back. clang marks its C objects'
    /// stacks non-executable, and GNU ld then warns about any object that does not say so: its `.S` objects say so too.
    Clang,
}

struct Image {
    file: &'static str,
    compiler: Compiler,
    cpu_flags: &'static [&'static str],
    /// The flags gcc needs to pick the matching libgcc multilib when it links the image.
    link_cpu_flags: &'static [&'static str],
    includes_mve: bool,
}

const IMAGES: &[Image] = &[
    Image {
        file: "pqhelium-m55.elf",
        compiler: Compiler::Gcc,
        cpu_flags: M55_FLAGS,
        link_cpu_flags: M55_FLAGS,
        includes_mve: true,
    },
    Image {
        file: "pqhelium-m85.elf",
        compiler: Compiler::Clang,
        cpu_flags: M85_FLAGS,
        // The M85's libgcc is the M55's: same architecture, FP64 and MVE, and gcc 12 knows no `cortex-m85`.
        link_cpu_flags: M55_FLAGS,
        includes_mve: true,
    },
    Image {
        file: "pqhelium-m7.elf",
        compiler: Compiler::Gcc,
        cpu_flags: M7_FLAGS,
        link_cpu_flags: M7_FLAGS,
        includes_mve: false,
    },
];

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let arm = root.join("arm");
    // Cargo reruns the script on any change below these; the script then rebuilds only what the change reaches.
    println!("cargo:rerun-if-changed=arm");
    println!("cargo:rerun-if-changed=plugin");
    println!("cargo:rerun-if-changed=src/toolchain.rs");
    println!("cargo:rerun-if-env-changed=HOST_CC");

    let gcc_id = check_compiler(CROSS_CC);
    let clang_id = check_compiler(CLANG);
    let ar_id = compiler_id(CROSS_AR);
    let host_cc = env::var("HOST_CC").unwrap_or_else(|_| "cc".into());
    let host_cc_id = compiler_id(&host_cc);
    let newlib_include = newlib_include_dir();
    let sources = collect_sources(&arm);

    // Every object of every image, and the plugins, in one pool of jobs; then each image is linked.
    let mut compiles = Vec::new();
    let mut images = Vec::new();
    for image in IMAGES {
        let id = match image.compiler {
            Compiler::Gcc => &gcc_id,
            Compiler::Clang => &clang_id,
        };
        let first = compiles.len();
        compiles.extend(image_compiles(image, &arm, &sources, &newlib_include, &out, id));
        images.push((image, first..compiles.len()));
    }
    for name in ["pqh_icount", "pqh_trace"] {
        let src = root.join(format!("plugin/{name}.c"));
        compiles.push(plugin_compile(&host_cc, &host_cc_id, &src, &out.join(format!("lib{name}.so")), &arm));
    }
    let rebuilt = build_all(&compiles, num_jobs());
    println!(
        "pqhelium-kernels: {} of {} outputs (objects and plugins) rebuilt",
        rebuilt.iter().filter(|&&r| r).count(),
        compiles.len()
    );
    for (image, range) in images {
        let objects: Vec<&Path> = compiles[range.clone()].iter().map(|c| c.output.as_path()).collect();
        let objects_rebuilt = rebuilt[range].iter().any(|&r| r);
        link_image(image, &arm, &out, &objects, objects_rebuilt, &format!("{gcc_id}\n{ar_id}"));
    }
}

/// `cargo build -jN` (`NUM_JOBS`), else every core.
fn num_jobs() -> usize {
    env::var("NUM_JOBS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// The compiler's identity for the fingerprints (`compiler_id`); a missing compiler is an error naming its install.
fn check_compiler(compiler: &str) -> String {
    match Command::new(compiler).arg("--version").output() {
        Ok(o) if o.status.success() => compiler_id(compiler),
        _ => panic!("\n\n{compiler} not found: the Cortex-M kernels cannot be built. {INSTALL_HINT}.\n\n"),
    }
}

/// Which binary `PATH` resolves `tool` to, and its `--version`: a fingerprint with them rebuilds what a different or
/// upgraded toolchain would build differently. Empty parts if the tool cannot be run: its command then fails itself.
fn compiler_id(tool: &str) -> String {
    let path = env::var_os("PATH")
        .and_then(|paths| env::split_paths(&paths).map(|dir| dir.join(tool)).find(|p| p.is_file()))
        .unwrap_or_else(|| PathBuf::from(tool));
    let version = Command::new(tool).arg("--version").output().map(|o| o.stdout).unwrap_or_default();
    format!("{}\n{}", path.display(), String::from_utf8_lossy(&version).trim())
}

/// newlib's headers as the gcc installation has them (`<prefix>/arm-none-eabi/include`, next to its `lib/libc.a`),
/// so that clang sees the same C library headers as gcc.
fn newlib_include_dir() -> PathBuf {
    let output = Command::new(CROSS_CC).arg("-print-file-name=libc.a").output().unwrap();
    let libc = PathBuf::from(String::from_utf8(output.stdout).unwrap().trim());
    let include = libc.parent().and_then(Path::parent).map(|prefix| prefix.join("include"));
    match include {
        Some(dir) if dir.join("string.h").is_file() => dir,
        _ => panic!("\n\nnewlib's headers not found next to {}. {INSTALL_HINT}.\n\n", libc.display()),
    }
}

/// All `.c` and `.S` files below `arm/`, sorted so the images are reproducible.
fn collect_sources(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if matches!(path.extension().and_then(|e| e.to_str()), Some("c" | "S")) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The archive of an image's kernel objects (`Harness::kernels`).
const KERNEL_ARCHIVE: &str = "libpqh_kernels.a";

/// Object name: the linker script places `pqh_harness_*.o` in the harness range that counters skip.
fn object_name(arm: &Path, src: &Path) -> String {
    let rel = src.strip_prefix(arm).unwrap();
    let dir = rel.parent().and_then(|p| p.to_str()).unwrap_or("");
    let stem = rel.file_name().unwrap().to_str().unwrap().replace('.', "_");
    if dir == "harness" {
        format!("pqh_harness_{stem}.o")
    } else {
        format!("kernel_{}_{stem}.o", dir.replace('/', "_"))
    }
}

/// The compiler runs that make an image's objects, in link order.
fn image_compiles(
    image: &Image,
    arm: &Path,
    sources: &[PathBuf],
    newlib_include: &Path,
    out: &Path,
    cc_id: &str,
) -> Vec<Compile> {
    let obj_dir = out.join(image.file.trim_end_matches(".elf"));
    std::fs::create_dir_all(&obj_dir).unwrap();
    let include_dirs: Vec<String> =
        ["harness", "keccak", "mlkem_ntt", "scheme"].iter().map(|d| format!("-I{}", arm.join(d).display())).collect();
    let compiler_flags: Vec<String> = match image.compiler {
        Compiler::Gcc => vec![],
        Compiler::Clang => vec![
            "--target=arm-none-eabi".into(),
            "-grecord-command-line".into(),
            "-Wa,--noexecstack".into(),
            "-isystem".into(),
            newlib_include.display().to_string(),
        ],
    };
    let cc = match image.compiler {
        Compiler::Gcc => CROSS_CC,
        Compiler::Clang => CLANG,
    };
    let flags: Vec<String> = compiler_flags
        .into_iter()
        .chain(COMMON_FLAGS.iter().chain(image.cpu_flags).map(|f| f.to_string()))
        .chain(include_dirs)
        .collect();
    let mut compiles = Vec::new();
    for src in sources {
        let is_mve = [".mve.c", ".mve.S"].iter().any(|suffix| src.to_str().unwrap().ends_with(suffix));
        if is_mve && !image.includes_mve {
            continue;
        }
        let obj = obj_dir.join(object_name(arm, src));
        compiles.push(Compile::new(cc, cc_id, image.compiler, &flags, &["-c"], src, &obj));
    }
    compiles
}

/// Archives an image's kernel objects and links the image, unless both are current: no object was rebuilt, the
/// commands (hence the list of objects) are those of the last link, and no input is newer than the image.
fn link_image(image: &Image, arm: &Path, out: &Path, objects: &[&Path], objects_rebuilt: bool, tools_id: &str) {
    let obj_dir = out.join(image.file.trim_end_matches(".elf"));
    let archive = obj_dir.join(KERNEL_ARCHIVE);
    let elf = out.join(image.file);
    let script = arm.join("harness/link.ld");
    let kernel_objects =
        objects.iter().filter(|o| !o.file_name().unwrap().to_str().unwrap().starts_with("pqh_harness_"));
    let ar_args: Vec<String> = ["rcsD", archive.to_str().unwrap()]
        .into_iter()
        .chain(kernel_objects.map(|o| o.to_str().unwrap()))
        .map(String::from)
        .collect();
    let link_args: Vec<String> = image
        .link_cpu_flags
        .iter()
        .chain(LINK_FLAGS)
        .map(|f| f.to_string())
        .chain([format!("-T{}", script.display())])
        .chain(objects.iter().map(|o| o.to_str().unwrap().to_string()))
        .chain(["-lgcc", "-o", elf.to_str().unwrap()].map(String::from))
        .collect();
    let fingerprint = format!("{tools_id}\n{CROSS_AR}\n{}\n{CROSS_CC}\n{}\n", ar_args.join("\n"), link_args.join("\n"));
    let stamp = with_suffix(&elf, ".cmd");
    let inputs = objects.iter().copied().chain([script.as_path()]);
    if !objects_rebuilt && archive.is_file() && is_current(&elf, &stamp, &fingerprint, inputs) {
        return;
    }
    remove_if_exists(&stamp).unwrap_or_else(|e| panic!("{e}"));
    // The kernel objects as an archive, for users' objects that name our tables (`aliases` in a manifest): the
    // linker takes only the members that define what is asked for. Rebuilt from scratch so no stale member stays.
    remove_if_exists(&archive).unwrap_or_else(|e| panic!("{e}"));
    run(Command::new(CROSS_AR).args(&ar_args));
    let started = SystemTime::now();
    run(Command::new(CROSS_CC).args(&link_args));
    finish(&elf, started, &stamp, &fingerprint).unwrap_or_else(|e| panic!("{e}"));
    println!("pqhelium-kernels: linked {}", elf.display());
}

/// A plugin sees the harness's headers (the trace plugin checks the register canaries of `pqh_invoke.h`).
fn plugin_compile(cc: &str, cc_id: &str, src: &Path, out: &Path, arm: &Path) -> Compile {
    let flags: Vec<String> = ["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror"]
        .into_iter()
        .map(String::from)
        .chain([format!("-I{}", arm.join("harness").display())])
        .collect();
    Compile::new(cc, cc_id, Compiler::Gcc, &flags, &[], src, out)
}

/// One compiler run making one output from one source: skipped while the output is current (`is_current`).
struct Compile {
    cc: String,
    /// The whole command after `cc`, as run.
    args: Vec<String>,
    /// clang's depfile comes from a second, preprocess-only run (these arguments): `-MD` would land in its objects'
    /// `-grecord-command-line` debug info and change their bytes. gcc leaves `-MD` out of its recorded switches.
    dep_args: Option<Vec<String>>,
    output: PathBuf,
    depfile: PathBuf,
    /// Where the fingerprint is kept: the compiler's identity and the exact command line.
    stamp: PathBuf,
    fingerprint: String,
}

impl Compile {
    fn new(
        cc: &str,
        cc_id: &str,
        compiler: Compiler,
        flags: &[String],
        mode: &[&str],
        src: &Path,
        output: &Path,
    ) -> Compile {
        let depfile = with_suffix(output, ".d");
        let (src, out, dep) = (src.to_str().unwrap(), output.to_str().unwrap(), depfile.to_str().unwrap());
        let with = |extra: &[&str]| -> Vec<String> {
            flags.iter().cloned().chain(extra.iter().map(|s| s.to_string())).collect()
        };
        let (mut args, dep_args) = match compiler {
            Compiler::Gcc => (with(&["-MD", "-MF", dep]), None),
            Compiler::Clang => (with(&[]), Some(with(&["-M", "-MF", dep, "-MT", out, src]))),
        };
        args.extend(mode.iter().map(|s| s.to_string()));
        args.extend([src, "-o", out].map(String::from));
        let fingerprint = format!("{FINGERPRINT_VERSION}\n{cc_id}\n{cc}\n{}\n", args.join("\n"));
        Compile {
            cc: cc.into(),
            args,
            dep_args,
            output: output.into(),
            stamp: with_suffix(output, ".cmd"),
            depfile,
            fingerprint,
        }
    }

    /// Whether it ran: `Ok(false)` if the output was current.
    fn build(&self) -> Result<bool, String> {
        let deps = std::fs::read_to_string(&self.depfile).ok().and_then(|text| parse_depfile(&text));
        let inputs = deps.iter().flatten().map(PathBuf::as_path);
        if deps.is_some() && is_current(&self.output, &self.stamp, &self.fingerprint, inputs) {
            return Ok(false);
        }
        // No fingerprint until output and depfile are complete: a failed or interrupted run is redone next time.
        remove_if_exists(&self.stamp)?;
        let started = SystemTime::now();
        try_run(Command::new(&self.cc).args(&self.args))?;
        if let Some(dep_args) = &self.dep_args {
            try_run(Command::new(&self.cc).args(dep_args))?;
        }
        finish(&self.output, started, &self.stamp, &self.fingerprint)?;
        println!("pqhelium-kernels: compiled {}", self.output.display());
        Ok(true)
    }
}

/// Bumped when the way outputs are made changes without their commands changing: every output is then rebuilt.
const FINGERPRINT_VERSION: &str = "pqhelium-kernels build fingerprint 1";

/// Runs the compiles on `jobs` threads; which of them ran. The first failure stops the others from starting more.
fn build_all(compiles: &[Compile], jobs: usize) -> Vec<bool> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let worker = || {
        let mut done = Vec::new();
        while !failed.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(compile) = compiles.get(i) else { break };
            let result = compile.build();
            failed.fetch_or(result.is_err(), Ordering::Relaxed);
            done.push((i, result));
        }
        done
    };
    let mut done: Vec<(usize, Result<bool, String>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs.min(compiles.len())).map(|_| scope.spawn(worker)).collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, result)| result.unwrap_or_else(|e| panic!("{e}"))).collect()
}

/// `output` is current if it exists, was made by the command `stamp` records, and every input (as the compiler
/// reported them in the depfile: the source and every header or `.S` include) exists and is older.
fn is_current<'a>(output: &Path, stamp: &Path, fingerprint: &str, mut inputs: impl Iterator<Item = &'a Path>) -> bool {
    let Ok(built) = std::fs::metadata(output).and_then(|m| m.modified()) else { return false };
    std::fs::read_to_string(stamp).is_ok_and(|s| s == fingerprint)
        && inputs.all(|input| std::fs::metadata(input).and_then(|m| m.modified()).is_ok_and(|t| t < built))
}

/// Dates `output` back to when its command started, so that an input edited while the command ran is newer than
/// it (and is rebuilt next time), then records the fingerprint that makes it current.
fn finish(output: &Path, started: SystemTime, stamp: &Path, fingerprint: &str) -> Result<(), String> {
    let err = |e: std::io::Error| format!("{}: {e}", output.display());
    File::options().write(true).open(output).and_then(|f| f.set_modified(started)).map_err(err)?;
    std::fs::write(stamp, fingerprint).map_err(|e| format!("{}: {e}", stamp.display()))
}

/// The prerequisites of a make rule as gcc and clang write it (`-MD`, `-M`): `target: dep dep \` over continued
/// lines, a space or `#` in a path escaped by `\`, `$` written `$$`. `None` if there is no rule, so the output is rebuilt.
fn parse_depfile(text: &str) -> Option<Vec<PathBuf>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(' ' | '#')) => word.push(chars.next().unwrap()),
            '\\' if matches!(chars.peek(), Some('\n' | '\r')) => {}
            '$' if chars.peek() == Some(&'$') => word.push(chars.next().unwrap()),
            c if c.is_whitespace() => words.push(std::mem::take(&mut word)),
            c => word.push(c),
        }
    }
    words.push(word);
    let mut words = words.into_iter().filter(|w| !w.is_empty());
    words.by_ref().find(|w| w.ends_with(':'))?;
    // Any further `target:` would start another rule: we use no `-MP`, but such a word is no file.
    let deps: Vec<PathBuf> = words.filter(|w| !w.ends_with(':')).map(PathBuf::from).collect();
    (!deps.is_empty()).then_some(deps)
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

fn remove_if_exists(path: &Path) -> Result<(), String> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(format!("{}: {e}", path.display())),
        _ => Ok(()),
    }
}

fn run(cmd: &mut Command) {
    try_run(cmd).unwrap_or_else(|e| panic!("{e}"));
}

fn try_run(cmd: &mut Command) -> Result<(), String> {
    let output = cmd.output().map_err(|e| format!("cannot run {cmd:?}: {e}. {INSTALL_HINT}"))?;
    if !output.status.success() {
        return Err(format!(
            "command failed: {cmd:?}\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(())
}
