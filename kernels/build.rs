//! Builds the guest images and the QEMU instruction-count plugin.
//!
//! - `pqhelium-m55.elf`: every source under `arm/`, gcc `-mcpu=cortex-m55` (FP64 + MVE), run by QEMU mps3-an547.
//! - `pqhelium-m85.elf`: the same sources, clang `-mcpu=cortex-m85` (gcc 12 does not know the M85), linked by gcc
//!   against the same libgcc; run by QEMU mps3-an547 too (same Armv8.1-M + MVE instruction set).
//! - `pqhelium-m7.elf`: every source except `*.mve.c`, `-mcpu=cortex-m7 -mfpu=fpv5-d16`, run by unicorn.
//! - the harness objects of each image and `arm/harness/link.ld` are embedded too (`Harness`), so that `pqhelium link`
//!   links a user's objects with them.
//! - `libpqh_icount.so`: the TCG plugin that counts instructions, built with the host C compiler.
//! - `libpqh_trace.so`: the TCG plugin that builds leakage traces (`pqhelium ct`), likewise.
//!
//! A missing cross compiler is a build error that names the command installing it: never a silent skip.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    println!("cargo:rerun-if-changed=arm");
    println!("cargo:rerun-if-changed=plugin");
    println!("cargo:rerun-if-changed=src/toolchain.rs");

    check_compiler(CROSS_CC);
    check_compiler(CLANG);
    let newlib_include = newlib_include_dir();
    let sources = collect_sources(&arm);
    for image in IMAGES {
        build_image(image, &arm, &sources, &newlib_include, &out);
    }
    build_plugin(&root.join("plugin/pqh_icount.c"), &out.join("libpqh_icount.so"), &arm);
    build_plugin(&root.join("plugin/pqh_trace.c"), &out.join("libpqh_trace.so"), &arm);
}

fn check_compiler(compiler: &str) {
    match Command::new(compiler).arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => panic!("\n\n{compiler} not found: the Cortex-M kernels cannot be built. {INSTALL_HINT}.\n\n"),
    }
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

fn build_image(image: &Image, arm: &Path, sources: &[PathBuf], newlib_include: &Path, out: &Path) {
    let obj_dir = out.join(image.file.trim_end_matches(".elf"));
    std::fs::create_dir_all(&obj_dir).unwrap();
    let include_dirs: Vec<String> =
        ["harness", "keccak", "mlkem_ntt"].iter().map(|d| format!("-I{}", arm.join(d).display())).collect();
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
    let mut objects = Vec::new();
    for src in sources {
        let is_mve = src.to_str().unwrap().ends_with(".mve.c");
        if is_mve && !image.includes_mve {
            continue;
        }
        let obj = obj_dir.join(object_name(arm, src));
        run(Command::new(cc)
            .args(&compiler_flags)
            .args(COMMON_FLAGS)
            .args(image.cpu_flags)
            .args(&include_dirs)
            .arg("-c")
            .arg(src)
            .arg("-o")
            .arg(&obj));
        objects.push(obj);
    }
    // The kernel objects as an archive, for users' objects that name our tables (`aliases` in a manifest): the
    // linker takes only the members that define what is asked for. Rebuilt from scratch so no stale member stays.
    let archive = obj_dir.join(KERNEL_ARCHIVE);
    let _ = std::fs::remove_file(&archive);
    let kernel_objects =
        objects.iter().filter(|o| !o.file_name().unwrap().to_str().unwrap().starts_with("pqh_harness_"));
    run(Command::new(CROSS_AR).arg("rcsD").arg(&archive).args(kernel_objects));
    run(Command::new(CROSS_CC)
        .args(image.link_cpu_flags)
        .args(LINK_FLAGS)
        .arg(format!("-T{}", arm.join("harness/link.ld").display()))
        .args(&objects)
        .arg("-lgcc")
        .arg("-o")
        .arg(out.join(image.file)));
}

/// A plugin sees the harness's headers (the trace plugin checks the register canaries of `pqh_invoke.h`).
fn build_plugin(src: &Path, out: &Path, arm: &Path) {
    let cc = env::var("HOST_CC").unwrap_or_else(|_| "cc".into());
    run(Command::new(cc)
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", arm.join("harness").display()))
        .arg(src)
        .arg("-o")
        .arg(out));
}

fn run(cmd: &mut Command) {
    let output = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}. {INSTALL_HINT}"));
    if !output.status.success() {
        panic!(
            "command failed: {cmd:?}\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
