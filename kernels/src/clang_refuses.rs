/// Sources under `arm/` that clang refuses, with the reason: `build.rs` leaves them out of the M85 image (with a build
/// warning) instead of failing every build, so their kernels are absent from that image, and `check` and the M85
/// image's test name them. Portable C removes its entry here.
pub const CLANG_REFUSES: &[(&str, &str)] = &[(
    "keccak/keccak_x4.mve.c",
    "shift counts reach vshrq_n/vshlq_n through inline-function parameters; ACLE requires constant expressions there, \
     which gcc accepts after inlining and clang does not",
)];
