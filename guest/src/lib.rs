//! pqhelium-guest: the guest side of the test bench. The Cortex-M images as validated ELF files, the two emulators
//! that run them behind one [`backend::Backend`] trait (unicorn in process for the M7 image, QEMU worker processes
//! for the M55 and M85 images), and what the emulators record: leakage [`trace`]s and block [`profile`]s.
//!
//! ```no_run
//! use pqhelium_guest::backend::{Arg, Call, Image, Limits};
//!
//! let mut guest = Image::M55.open(Limits::default())?;
//! let state = vec![0u8; 200];
//! let output = guest.call(&Call::new("keccak_f1600_interleaved", vec![Arg::InOut(state)]))?;
//! println!("{} instructions", output.instructions);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`elf`]: guest images, validated before an emulator sees them;
//! - [`backend`]: the emulators and the images they run ([`backend::Image`]);
//! - [`cpu`]: the cores the images are built for ([`cpu::Core`]);
//! - [`trace`]: leakage traces (control flow, memory addresses, predication, variable-latency operands);
//! - [`profile`]: the QEMU plugin's block profiles, the input of the cycle estimates;
//! - [`affinity`]: a CPU of its own for each emulator worker (`--pin`).

pub mod affinity;
pub mod backend;
pub mod cpu;
pub mod elf;
pub mod profile;
pub mod trace;
