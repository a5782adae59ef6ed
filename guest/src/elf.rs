//! Guest ELF images: validation, loadable segments and the symbol table.
//!
//! Anything that is not a 32-bit little-endian Arm executable with loadable segments is rejected with a typed error
//! before an emulator sees it.

use std::collections::BTreeMap;

use object::elf::{EM_ARM, ET_EXEC, PT_LOAD, STT_FUNC, STT_NOTYPE};
use object::read::elf::{ElfFile32, FileHeader, ProgramHeader};
use object::{Endianness, Object, ObjectSymbol};

#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    #[error("not a valid ELF file: {0}")]
    Malformed(String),
    #[error(
        "ELF for another architecture (e_machine {machine}, {class}); pqhelium runs 32-bit Arm (EM_ARM = 40) images"
    )]
    ForeignArchitecture { machine: u16, class: &'static str },
    #[error("ELF is not an executable image (e_type {0}); link it first")]
    NotExecutable(u16),
    #[error("ELF has no loadable segment")]
    NoSegments,
    #[error("symbol `{0}` not found in the guest image")]
    MissingSymbol(String),
    #[error("required harness symbol `{0}` not found: is this a pqhelium image?")]
    NotAHarnessImage(&'static str),
}

/// A loadable segment: `data` is written at `addr`, then zero-filled up to `mem_size`.
#[derive(Debug, Clone)]
pub struct Segment {
    pub addr: u32,
    pub data: Vec<u8>,
    pub mem_size: u32,
    pub writable: bool,
}

#[derive(Debug, Clone)]
pub struct GuestElf {
    pub name: String,
    pub entry: u32,
    pub segments: Vec<Segment>,
    symbols: BTreeMap<String, u32>,
    /// Functions and labels by address, for `symbol+offset` of fault PCs.
    by_address: BTreeMap<u32, String>,
}

impl GuestElf {
    pub fn parse(name: &str, bytes: &[u8]) -> Result<Self, ElfError> {
        check_identity(bytes)?;
        // The parser reads headers in place and needs them aligned; embedded or read bytes may not be.
        let aligned = Aligned::copy_of(bytes);
        let bytes = aligned.bytes();
        let file = ElfFile32::<Endianness>::parse(bytes).map_err(|e| ElfError::Malformed(e.to_string()))?;
        let endian = file.endian();
        let header = file.elf_header();
        if header.e_type(endian) != ET_EXEC {
            return Err(ElfError::NotExecutable(header.e_type(endian)));
        }
        let mut segments = Vec::new();
        for ph in file.elf_program_headers() {
            if ph.p_type(endian) != PT_LOAD || ph.p_memsz(endian) == 0 {
                continue;
            }
            let data = ph.data(endian, bytes).map_err(|_| ElfError::Malformed("segment data out of bounds".into()))?;
            let mem_size = ph.p_memsz(endian);
            if (data.len() as u64) > u64::from(mem_size) {
                return Err(ElfError::Malformed("segment file size exceeds memory size".into()));
            }
            let addr = ph.p_paddr(endian);
            addr.checked_add(mem_size).ok_or_else(|| ElfError::Malformed("segment wraps the address space".into()))?;
            segments.push(Segment { addr, data: data.to_vec(), mem_size, writable: ph.p_flags(endian) & 2 != 0 });
        }
        if segments.is_empty() {
            return Err(ElfError::NoSegments);
        }
        let mut symbols = BTreeMap::new();
        let mut by_address = BTreeMap::new();
        let mut functions_at = std::collections::BTreeSet::new();
        for sym in file.symbols() {
            let Ok(name) = sym.name() else { continue };
            if name.is_empty() || name.starts_with('$') {
                continue; // mapping symbols ($t, $d) are not names
            }
            let st_type = sym.elf_symbol().st_type();
            let addr = sym.address() as u32;
            symbols.insert(name.to_string(), addr);
            // The first function at an address names it, before any label there (`__kernels_start`).
            if st_type == STT_FUNC && functions_at.insert(addr & !1) {
                by_address.insert(addr & !1, name.to_string());
            } else if st_type == STT_FUNC || st_type == STT_NOTYPE {
                by_address.entry(addr & !1).or_insert_with(|| name.to_string());
            }
        }
        Ok(Self { name: name.to_string(), entry: header.e_entry(endian), segments, symbols, by_address })
    }

    /// Address of a symbol (Thumb functions keep their odd address).
    pub fn symbol(&self, name: &str) -> Result<u32, ElfError> {
        self.symbols.get(name).copied().ok_or_else(|| ElfError::MissingSymbol(name.to_string()))
    }

    pub fn harness_symbol(&self, name: &'static str) -> Result<u32, ElfError> {
        self.symbols.get(name).copied().ok_or(ElfError::NotAHarnessImage(name))
    }

    pub fn has_symbol(&self, name: &str) -> bool {
        self.symbols.contains_key(name)
    }

    /// `symbol+0xoffset` for an address, or the bare address when nothing precedes it.
    pub fn locate(&self, addr: u32) -> String {
        let pc = addr & !1;
        match self.by_address.range(..=pc).next_back() {
            Some((base, name)) => format!("{name}+{:#x}", pc - base),
            None => format!("{pc:#010x}"),
        }
    }
}

/// Checks the identification bytes first, so that a foreign ELF gets a precise error instead of a parse failure.
fn check_identity(bytes: &[u8]) -> Result<(), ElfError> {
    if bytes.len() < 20 || &bytes[..4] != b"\x7fELF" {
        return Err(ElfError::Malformed("no ELF magic".into()));
    }
    let class = match bytes[4] {
        1 => "32-bit",
        2 => "64-bit",
        _ => return Err(ElfError::Malformed("bad ELF class".into())),
    };
    let machine = match bytes[5] {
        1 => u16::from_le_bytes([bytes[18], bytes[19]]),
        2 => u16::from_be_bytes([bytes[18], bytes[19]]),
        _ => return Err(ElfError::Malformed("bad ELF data encoding".into())),
    };
    if machine != EM_ARM || class != "32-bit" || bytes[5] != 1 {
        return Err(ElfError::ForeignArchitecture { machine, class });
    }
    Ok(())
}

/// A copy of a byte string at 8-byte alignment.
pub struct Aligned {
    words: Vec<u64>,
    len: usize,
}

impl Aligned {
    pub fn copy_of(bytes: &[u8]) -> Self {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        for (word, chunk) in words.iter_mut().zip(bytes.chunks(8)) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            *word = u64::from_ne_bytes(b);
        }
        Self { words, len: bytes.len() }
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `words` holds at least `len` initialised bytes; u8 has no alignment requirement.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<u8>(), self.len) }
    }
}

/// Source lines of a guest image from its DWARF line tables (the images are built with `-g`).
pub struct SourceLines {
    context: addr2line::Context<gimli::EndianRcSlice<gimli::RunTimeEndian>>,
}

impl SourceLines {
    /// The line tables of an ELF image; `None` when it has no usable debug information.
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        use gimli::{Dwarf, EndianRcSlice, RunTimeEndian};
        use object::ObjectSection;
        let aligned = Aligned::copy_of(bytes);
        let file = object::File::parse(aligned.bytes()).ok()?;
        let load = |id: gimli::SectionId| -> Result<_, gimli::Error> {
            let data = file.section_by_name(id.name()).and_then(|s| s.uncompressed_data().ok()).unwrap_or_default();
            Ok(EndianRcSlice::new(std::rc::Rc::from(&*data), RunTimeEndian::Little))
        };
        let dwarf = Dwarf::load(load).ok()?;
        Some(Self { context: addr2line::Context::from_dwarf(dwarf).ok()? })
    }

    /// `file:line` of the instruction at `addr`: our sources from `kernels/arm/` on, others by file name.
    pub fn line(&self, addr: u32) -> Option<String> {
        let location = self.context.find_location(u64::from(addr & !1)).ok()??;
        let file = location.file?;
        let name = match file.find("kernels/arm/") {
            Some(at) => &file[at..],
            None => file.rsplit('/').next().unwrap_or(file),
        };
        Some(format!("{name}:{}", location.line?))
    }
}
