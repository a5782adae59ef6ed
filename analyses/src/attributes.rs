//! The architecture an object was built for, from its `.ARM.attributes` section (the Arm ELF "build attributes":
//! ABI for the Arm Architecture, "Addenda to, and Errata in, the ABI", public subsection `aeabi`).

use object::{Object, ObjectSection};

/// `Tag_CPU_arch`: the architecture the object's code needs.
const TAG_CPU_ARCH: u64 = 6;
/// `Tag_MVE_arch`: 1 integer MVE, 2 integer and floating-point MVE.
const TAG_MVE_ARCH: u64 = 48;
/// `Tag_CPU_arch` values of the M-profile architectures newer than Armv7E-M: v8-M baseline, mainline, v8.1-M.
const V8M_BASELINE: u64 = 16;
const V8M_MAINLINE: u64 = 17;
const V81M_MAINLINE: u64 = 21;
/// Attributes whose value is a NUL-terminated string (the others below 32 are ULEB128 numbers; above, odd tags are
/// strings and even tags numbers): `Tag_CPU_raw_name`, `Tag_CPU_name`, `Tag_also_compatible_with`,
/// `Tag_conformance`.
const STRING_TAGS: [u64; 4] = [4, 5, 65, 67];
/// `Tag_compatibility`: a number, then a string.
const TAG_COMPATIBILITY: u64 = 32;
/// The subsection of attributes that apply to the whole file.
const TAG_FILE: u8 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arch {
    pub cpu_arch: u64,
    pub mve: u64,
}

impl Arch {
    /// Code of Armv8-M or later (or MVE), which an Armv7E-M core does not run.
    pub fn is_v8m(self) -> bool {
        matches!(self.cpu_arch, V8M_BASELINE | V8M_MAINLINE | V81M_MAINLINE) || self.mve != 0
    }
}

impl std::fmt::Display for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self.cpu_arch {
            V8M_BASELINE => "Armv8-M baseline",
            V8M_MAINLINE => "Armv8-M mainline",
            V81M_MAINLINE => "Armv8.1-M mainline",
            _ => "another Arm architecture",
        };
        write!(f, "{name}{}", if self.mve != 0 { " with MVE (Cortex-M55, M85)" } else { "" })
    }
}

/// The architecture of an object, when it says.
pub fn of(file: &object::File) -> Option<Arch> {
    parse(file.section_by_name(".ARM.attributes")?.data().ok()?)
}

fn uleb(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *data.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

fn string(data: &[u8], at: &mut usize) -> Option<()> {
    let end = data.get(*at..)?.iter().position(|&b| b == 0)?;
    *at += end + 1;
    Some(())
}

fn u32_at(data: &[u8], at: usize) -> Option<usize> {
    Some(u32::from_le_bytes(data.get(at..at + 4)?.try_into().ok()?) as usize)
}

/// The section's format: `A`, then sections (length, vendor name, subsections (tag, length, attributes)).
fn parse(data: &[u8]) -> Option<Arch> {
    if data.first() != Some(&b'A') {
        return None;
    }
    let mut arch = Arch { cpu_arch: 0, mve: 0 };
    let mut section = 1;
    while section < data.len() {
        let length = u32_at(data, section)?;
        let end = section.checked_add(length).filter(|&e| e <= data.len() && length > 4)?;
        let mut at = section + 4;
        let vendor_end = at + data.get(at..end)?.iter().position(|&b| b == 0)?;
        let vendor = &data[at..vendor_end];
        at = vendor_end + 1;
        while vendor == b"aeabi" && at < end {
            let tag = data[at];
            let sub_length = u32_at(data, at + 1)?;
            let sub_end = at.checked_add(sub_length).filter(|&e| e <= end && sub_length > 5)?;
            let mut p = at + 5;
            while tag == TAG_FILE && p < sub_end {
                match uleb(data, &mut p)? {
                    TAG_COMPATIBILITY => {
                        uleb(data, &mut p)?;
                        string(data, &mut p)?;
                    }
                    t if STRING_TAGS.contains(&t) || (t > TAG_COMPATIBILITY && t % 2 == 1) => string(data, &mut p)?,
                    TAG_CPU_ARCH => arch.cpu_arch = uleb(data, &mut p)?,
                    TAG_MVE_ARCH => arch.mve = uleb(data, &mut p)?,
                    _ => {
                        uleb(data, &mut p)?;
                    }
                }
            }
            at = sub_end;
        }
        section = end;
    }
    Some(arch)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section as the ABI lays it out, with a Cortex-M55's attributes.
    fn section(attributes: &[u8]) -> Vec<u8> {
        let mut sub = vec![TAG_FILE];
        sub.extend(((5 + attributes.len()) as u32).to_le_bytes());
        sub.extend(attributes);
        let mut out = vec![b'A'];
        out.extend(((4 + 6 + sub.len()) as u32).to_le_bytes());
        out.extend(b"aeabi\0");
        out.extend(sub);
        out
    }

    #[test]
    fn reads_the_architecture_and_mve() {
        // Tag_CPU_name "8.1-M.MAIN", Tag_CPU_arch 21, Tag_CPU_arch_profile 'M', Tag_MVE_arch 2, Tag_ABI_VFP_args 1.
        let m55 = section(b"\x058.1-M.MAIN\0\x06\x15\x07\x4d\x30\x02\x1c\x01");
        let arch = parse(&m55).unwrap();
        assert_eq!(arch, Arch { cpu_arch: 21, mve: 2 });
        assert!(arch.is_v8m());
        assert_eq!(arch.to_string(), "Armv8.1-M mainline with MVE (Cortex-M55, M85)");
        // Cortex-M7: Tag_CPU_name "7E-M", Tag_CPU_arch 13 (v7E-M).
        let m7 = parse(&section(b"\x057E-M\0\x06\x0d\x07\x4d")).unwrap();
        assert_eq!(m7, Arch { cpu_arch: 13, mve: 0 });
        assert!(!m7.is_v8m());
        assert_eq!(parse(b"B"), None);
        assert_eq!(parse(&m55[..m55.len() - 3]), None);
    }
}
