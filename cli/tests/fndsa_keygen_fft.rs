//! The twiddle table the keygen FFT kernels read (`fndsa_keygen_gm`, `kernels/arm/fndsa_keygen/fft_q32_gm.c`) is,
//! in both guest images, the reference's roots: entry k's real part, then its imaginary part, as little-endian u64.

use pqhelium_core::fndsa::keygen::fxp::roots;
use pqhelium_guest::elf::GuestElf;

const TABLE: &str = "fndsa_keygen_gm";

/// The `len` bytes at `addr` in the image's loadable segments.
fn bytes_at(elf: &GuestElf, addr: u32, len: usize) -> Vec<u8> {
    let segment = elf
        .segments
        .iter()
        .find(|s| s.addr <= addr && (addr - s.addr) as usize + len <= s.data.len())
        .unwrap_or_else(|| panic!("{}: {TABLE} is not inside a segment's initialised data", elf.name));
    let at = (addr - segment.addr) as usize;
    segment.data[at..at + len].to_vec()
}

#[test]
fn the_guest_twiddle_tables_are_the_reference_roots() {
    let want: Vec<u8> = roots().iter().flat_map(|&(re, im)| [re, im]).flat_map(u64::to_le_bytes).collect();
    for (name, image) in [("m55", pqhelium_kernels::M55_IMAGE.elf), ("m7", pqhelium_kernels::M7_IMAGE.elf)] {
        let elf = GuestElf::parse(name, image).expect("guest image");
        let addr = elf.symbol(TABLE).expect("table symbol");
        assert_eq!(bytes_at(&elf, addr, want.len()), want, "{name}: {TABLE} differs from roots()");
    }
}

/// Instructions per call at logn 9 and 10 on QEMU (docs/benchmarks.md): the MVE kernels against the portable
/// baselines, both equal to the reference on the same input, and the MVE kernels executing fewer instructions. The
/// counts do not depend on the data (no operand-dependent branch in either build).
#[test]
fn mve_kernels_execute_fewer_instructions_than_the_baselines_at_logn_9_and_10() {
    use pqhelium_core::fndsa::keygen::fxp::{FxpKernels, Reference};
    use pqhelium_guest::backend::qemu::QemuBackend;
    use pqhelium_guest::backend::{Arg, Backend, Call, Limits};

    let mut qemu = QemuBackend::open(&pqhelium_kernels::M55_IMAGE, Limits::default())
        .unwrap_or_else(|e| panic!("this test needs QEMU (qemu-system-arm with mps3-an547): {e}"));
    for logn in [9u32, 10] {
        let f: Vec<u64> = (0..1u64 << logn).map(|i| (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        for (inverse, name) in [(false, "fft"), (true, "ifft")] {
            let mut want = f.clone();
            if inverse {
                Reference.ifft(logn, &mut want);
            } else {
                Reference.fft(logn, &mut want);
            }
            let want: Vec<u8> = want.iter().flat_map(|x| x.to_le_bytes()).collect();
            let mut count = |symbol: String| {
                let input = f.iter().flat_map(|x| x.to_le_bytes()).collect();
                let call = Call::new(&symbol, vec![Arg::InOut(input), Arg::U32(logn)]);
                let out = qemu.run_batch(&[call]).pop().unwrap().unwrap_or_else(|e| panic!("{symbol}: {e}"));
                assert_eq!(out.buffers[0], want, "{symbol}, logn {logn}: differs from the reference");
                out.instructions
            };
            let (mve, scalar) = (count(format!("fndsa_keygen_{name}")), count(format!("fndsa_keygen_{name}_scalar")));
            eprintln!(
                "{name} logn {logn}: MVE {mve} instructions, scalar {scalar}, ratio {:.2}",
                scalar as f64 / mve as f64
            );
            assert!(mve < scalar, "{name}, logn {logn}: MVE {mve} instructions, scalar {scalar}");
        }
    }
}
