//! The twiddle table the keygen FFT kernels read (`fndsa_keygen_gm`, `kernels/arm/fndsa_keygen/fft_q32_gm.c`) is,
//! in both guest images, the reference's roots: entry k's real part, then its imaginary part, as little-endian u64.

use pqhelium_core::fndsa::keygen::fxp::roots;
use pqhelium_testbench::elf::GuestElf;

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
