//! The cross toolchain and its flags, shared by `build.rs` (our images) and `pqhelium link` (a user's objects).

pub const CROSS_CC: &str = "arm-none-eabi-gcc";
pub const CROSS_AR: &str = "arm-none-eabi-ar";
pub const CLANG: &str = "clang-19";
pub const INSTALL_HINT: &str =
    "run `ci/setup` (or `apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi clang-19`)";

/// The optimisation level of our images, and of a user's sources whose flags set none (gcc and clang would build
/// them at -O0, whose code no one ships).
pub const OPTIMISATION: &str = "-O2";

/// C flags shared by every image. `-ffp-contract=off`: no fused multiply-add may change an FP64 result.
/// `-fomit-frame-pointer` is gcc's -O2 default; clang would otherwise keep r7 as the Thumb frame pointer.
pub const COMMON_FLAGS: &[&str] = &[
    "-std=c11",
    OPTIMISATION,
    "-fomit-frame-pointer",
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

pub const M55_FLAGS: &[&str] = &["-mcpu=cortex-m55", "-mfloat-abi=hard"];
pub const M85_FLAGS: &[&str] = &["-mcpu=cortex-m85", "-mfloat-abi=hard"];
pub const M7_FLAGS: &[&str] = &["-mcpu=cortex-m7", "-mfpu=fpv5-d16", "-mfloat-abi=hard"];

/// How gcc links an image: no start files or C library start-up, the harness's own vectors and reset.
pub const LINK_FLAGS: &[&str] =
    &["-mthumb", "-nostdlib", "-nostartfiles", "-Wl,--fatal-warnings", "-Wl,--no-warn-rwx-segments"];
