//! Builds the guest images and the QEMU instruction-count plugin.
//!
//! - `pqhelium-m55.elf`: every source under `arm/`, `-mcpu=cortex-m55` (FP64 + MVE), run by QEMU mps3-an547.
//! - `pqhelium-m7.elf`: every source except `*.mve.c`, `-mcpu=cortex-m7 -mfpu=fpv5-d16`, run by unicorn.
//! - `libpqh_icount.so`: the TCG plugin, built with the host C compiler.
//!
//! A missing cross compiler is a build error that names the command installing it: never a silent skip.

use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

const CROSS_CC: &str = "arm-none-eabi-gcc";
const INSTALL_HINT: &str = "run `ci/setup` (or `apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi`)";

/// C flags shared by both images. `-ffp-contract=off`: no fused multiply-add may change an FP64 result.
const COMMON_FLAGS: &[&str] = &[
    "-std=c11",
    "-O2",
    "-g",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-ffp-contract=off",
    "-ffreestanding",
    "-fno-common",
    "-mthumb",
    "-ffunction-sections",
];

struct Image {
    file: &'static str,
    cpu_flags: &'static [&'static str],
    includes_mve: bool,
}

const IMAGES: &[Image] = &[
    Image { file: "pqhelium-m55.elf", cpu_flags: &["-mcpu=cortex-m55", "-mfloat-abi=hard"], includes_mve: true },
    Image {
        file: "pqhelium-m7.elf",
        cpu_flags: &["-mcpu=cortex-m7", "-mfpu=fpv5-d16", "-mfloat-abi=hard"],
        includes_mve: false,
    },
];

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let arm = root.join("arm");
    println!("cargo:rerun-if-changed=arm");
    println!("cargo:rerun-if-changed=plugin");

    check_cross_compiler();
    let sources = collect_sources(&arm);
    for image in IMAGES {
        build_image(image, &arm, &sources, &out);
    }
    build_plugin(&root.join("plugin/pqh_icount.c"), &out.join("libpqh_icount.so"));
}

fn check_cross_compiler() {
    match Command::new(CROSS_CC).arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => panic!("\n\n{CROSS_CC} not found: the Cortex-M kernels cannot be built. {INSTALL_HINT}.\n\n"),
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

fn build_image(image: &Image, arm: &Path, sources: &[PathBuf], out: &Path) {
    let obj_dir = out.join(image.file.trim_end_matches(".elf"));
    std::fs::create_dir_all(&obj_dir).unwrap();
    let include_dirs: Vec<String> =
        ["harness", "keccak", "mlkem_ntt"].iter().map(|d| format!("-I{}", arm.join(d).display())).collect();
    let mut objects = Vec::new();
    for src in sources {
        let is_mve = src.to_str().unwrap().ends_with(".mve.c");
        if is_mve && !image.includes_mve {
            continue;
        }
        let obj = obj_dir.join(object_name(arm, src));
        run(Command::new(CROSS_CC)
            .args(COMMON_FLAGS)
            .args(image.cpu_flags)
            .args(&include_dirs)
            .arg("-c")
            .arg(src)
            .arg("-o")
            .arg(&obj));
        objects.push(obj);
    }
    run(Command::new(CROSS_CC)
        .args(image.cpu_flags)
        .args(["-mthumb", "-nostdlib", "-nostartfiles", "-Wl,--fatal-warnings", "-Wl,--no-warn-rwx-segments"])
        .arg(format!("-T{}", arm.join("harness/link.ld").display()))
        .args(&objects)
        .arg("-lgcc")
        .arg("-o")
        .arg(out.join(image.file)));
}

fn build_plugin(src: &Path, out: &Path) {
    let cc = env::var("HOST_CC").unwrap_or_else(|_| "cc".into());
    run(Command::new(cc).args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror"]).arg(src).arg("-o").arg(out));
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
