//! The guest side of pqhelium: Cortex-M kernels and the harness firmware, built by `build.rs` with
//! `arm-none-eabi-gcc` (and `clang-19` for the Cortex-M85) into three ELF images, plus the QEMU TCG plugin that
//! counts instructions.
//!
//! The images are embedded in this crate, so pqhelium needs nothing at run time but QEMU itself.
//!
//! ```
//! // Each image is an Arm ELF file for its core.
//! for image in [pqhelium_kernels::M55_IMAGE, pqhelium_kernels::M85_IMAGE, pqhelium_kernels::M7_IMAGE] {
//!     assert_eq!(&image.elf[..4], b"\x7fELF");
//!     assert!(image.cpu.starts_with("cortex-m"));
//! }
//! ```

pub mod abi;
pub mod toolchain;

/// A guest image and the emulator it is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GuestImage {
    pub name: &'static str,
    pub cpu: &'static str,
    pub elf: &'static [u8],
}

/// Where `build.rs` left the images as files (`<name>.elf`), each also embedded here: what `arm-none-eabi-nm` and
/// `objdump` read.
pub const IMAGES_DIR: &str = env!("OUT_DIR");

/// Cortex-M55 (FP64 + MVE), built by gcc, for QEMU `mps3-an547`.
pub const M55_IMAGE: GuestImage = GuestImage {
    name: "pqhelium-m55",
    cpu: "cortex-m55",
    elf: include_bytes!(concat!(env!("OUT_DIR"), "/pqhelium-m55.elf")),
};

/// Cortex-M85, built by clang from the same sources (gcc 12 knows no M85), for the same QEMU `mps3-an547` model:
/// the M85 and M55 share the Armv8.1-M + MVE instruction set; timing and PACBTI are not modelled.
pub const M85_IMAGE: GuestImage = GuestImage {
    name: "pqhelium-m85",
    cpu: "cortex-m85",
    elf: include_bytes!(concat!(env!("OUT_DIR"), "/pqhelium-m85.elf")),
};

/// Cortex-M7 (FP64, no MVE), for unicorn, whose QEMU 5.0 has no M55.
pub const M7_IMAGE: GuestImage = GuestImage {
    name: "pqhelium-m7",
    cpu: "cortex-m7",
    elf: include_bytes!(concat!(env!("OUT_DIR"), "/pqhelium-m7.elf")),
};

/// The pqm4 common headers a scheme implementation includes (`randombytes.h`, `fips202.h`), as the harness provides
/// them: what `pqhelium scheme --manifest` compiles a user's sources against.
pub const SCHEME_HEADERS: [(&str, &str); 2] = [
    ("randombytes.h", include_str!("../arm/scheme/randombytes.h")),
    ("fips202.h", include_str!("../arm/scheme/fips202.h")),
];

/// The QEMU TCG plugin (host shared object) that counts executed instructions into shared memory.
pub const ICOUNT_PLUGIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpqh_icount.so"));

/// The QEMU TCG plugin that builds leakage traces (`pqhelium ct`) into a host file the guest cannot see.
pub const TRACE_PLUGIN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libpqh_trace.so"));

/// What a user's objects are linked with to run on the bench (`pqhelium link`): the harness objects built for one
/// core, by the compiler of that core's image, and the linker script every image is linked with.
#[derive(Debug, Clone, Copy)]
pub struct Harness {
    /// `(file name, object)`: the linker script places objects named `pqh_harness_*.o` in the harness range.
    pub objects: [(&'static str, &'static [u8]); 2],
    /// Every kernel object of the image, as an archive: what a user's objects link against to use our tables.
    pub kernels: &'static [u8],
}

macro_rules! harness_of {
    ($image:literal) => {
        Harness {
            objects: [
                (
                    "pqh_harness_harness_entry_S.o",
                    include_bytes!(concat!(env!("OUT_DIR"), "/", $image, "/pqh_harness_harness_entry_S.o")),
                ),
                (
                    "pqh_harness_harness_main_c.o",
                    include_bytes!(concat!(env!("OUT_DIR"), "/", $image, "/pqh_harness_harness_main_c.o")),
                ),
            ],
            kernels: include_bytes!(concat!(env!("OUT_DIR"), "/", $image, "/libpqh_kernels.a")),
        }
    };
}

/// The harness of the Cortex-M55 image (gcc).
pub const M55_HARNESS: Harness = harness_of!("pqhelium-m55");
/// The harness of the Cortex-M85 image (clang).
pub const M85_HARNESS: Harness = harness_of!("pqhelium-m85");
/// The harness of the Cortex-M7 image (gcc).
pub const M7_HARNESS: Harness = harness_of!("pqhelium-m7");

/// The linker script of every image (`arm/harness/link.ld`).
pub const LINK_SCRIPT: &str = include_str!("../arm/harness/link.ld");

/// The ML-KEM-768 scheme build's source (`arm/mlkem768/kem.c`): `pqhelium scheme --ct` reads where its sampler's
/// lines are, whatever the compilers inline.
pub const MLKEM768_KEM_SOURCE: &str = include_str!("../arm/mlkem768/kem.c");

/// FN-DSA's whole signing (`arm/fndsa_sign/fndsa_sign.c`) and key generation (`arm/fndsa_keygen/keygen.c`):
/// `pqhelium scheme --ct-pairs` reads where their rejection loops' lines are.
pub const FNDSA_SIGN_SOURCE: &str = include_str!("../arm/fndsa_sign/fndsa_sign.c");
pub const FNDSA_KEYGEN_SOURCE: &str = include_str!("../arm/fndsa_keygen/keygen.c");
/// The scalar sponge (`arm/scheme/fips202.c`), whose read position FN-DSA's rejection loops move.
pub const FIPS202_SOURCE: &str = include_str!("../arm/scheme/fips202.c");
