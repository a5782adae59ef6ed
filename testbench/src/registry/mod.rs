//! The kernel registry: one contract per kernel, read by everything else (differential engine, CLI, tests).
//!
//! A contract names the kernel's symbol and images, its AAPCS signature, its input domain with the generator that
//! covers it (edge cases first, then random, all from (seed, case) alone), and three functions: the model (the
//! kernel's exact output, in its own layout), the reference (what the standard computes, in the standard layout) and
//! the canonicalisation between the two.

pub mod fndsa_fpu;
mod fndsa_ntt;
mod fndsa_scheme;
mod keccak;
mod mlkem_ntt;
mod sample;
mod schemes;
pub mod softfloat;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::backend::{Arg, BackendKind, CallOutput};

/// Random source of one case: a function of (campaign seed, case index) only.
pub type CaseRng = ChaCha8Rng;

/// Version of the case generators, raised whenever one changes which case a (seed, case index) gives: a campaign
/// is resumed only by generators of its own version. 2: coefficient vectors from `sample` (1: rand's `gen_range`).
pub const CASE_GENERATORS: u32 = 2;

pub fn case_rng(seed: u64, case: u64) -> CaseRng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(case);
    rng
}

/// Which guest images contain the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Images {
    /// Portable code: built for the Cortex-M55 (QEMU) and the Cortex-M7 (unicorn) images.
    Both,
    /// MVE code: Cortex-M55 image only.
    M55Only,
    /// No object code: a whole scheme in Rust checked against an oracle crate (model backend only).
    HostOnly,
}

/// What a kernel produced: its output buffers (`Out` and `InOut` arguments, in order) and its return value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub buffers: Vec<Vec<u8>>,
    pub ret: Option<u64>,
}

/// How the kernel returns a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Returns {
    Nothing,
    U32,
}

#[derive(Clone, Copy)]
pub struct KernelSpec {
    pub id: &'static str,
    pub summary: &'static str,
    pub symbol: &'static str,
    pub images: Images,
    /// The C prototype, for people.
    pub signature: &'static str,
    pub precondition: &'static str,
    pub postcondition: &'static str,
    pub returns: Returns,
    /// Cases `0..edge_cases` are the edge cases, in order; later cases are random.
    pub edge_cases: u64,
    /// The arguments of case `case` (the rng is `case_rng(seed, case)`).
    pub generate: fn(case: u64, rng: &mut CaseRng) -> Vec<Arg>,
    pub model: fn(&[Arg]) -> Outcome,
    pub reference: fn(&[Arg]) -> Outcome,
    /// Maps the kernel's outcome (model or object code) to the reference's layout.
    pub canon: fn(&Outcome) -> Outcome,
}

impl std::fmt::Debug for KernelSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelSpec").field("id", &self.id).field("symbol", &self.symbol).finish_non_exhaustive()
    }
}

impl KernelSpec {
    /// Whether this kernel's object code exists for the backend's image.
    pub fn runs_on(&self, backend: BackendKind) -> bool {
        match backend {
            BackendKind::Model => true,
            BackendKind::Qemu => self.images != Images::HostOnly,
            BackendKind::Unicorn => self.images == Images::Both,
        }
    }

    /// The outcome of an emulated call, in the same shape as the model's (the output buffers move over).
    pub fn outcome_of(&self, args: &[Arg], output: CallOutput) -> Outcome {
        let buffer_args = args.iter().filter(|a| matches!(a, Arg::In(_) | Arg::InOut(_) | Arg::Out(_)));
        let buffers = buffer_args
            .zip(output.buffers)
            .filter(|(arg, _)| matches!(arg, Arg::InOut(_) | Arg::Out(_)))
            .map(|(_, data)| data)
            .collect();
        let ret = match self.returns {
            Returns::Nothing => None,
            Returns::U32 => Some(u64::from(output.r0)),
        };
        Outcome { buffers, ret }
    }
}

/// The kernel families; each module lists its contracts. A new family is one line here.
const FAMILIES: &[&[KernelSpec]] = &[
    keccak::KERNELS,
    schemes::KERNELS,
    fndsa_scheme::KERNELS,
    fndsa_ntt::KERNELS,
    mlkem_ntt::KERNELS,
    softfloat::KERNELS,
    fndsa_fpu::KERNELS,
];

/// Every kernel pqhelium knows, family by family.
pub fn all() -> impl Iterator<Item = &'static KernelSpec> {
    FAMILIES.iter().flat_map(|family| family.iter())
}

pub fn find(id: &str) -> Option<&'static KernelSpec> {
    all().find(|k| k.id == id)
}

/// A changed copy of a registered contract, for tests that need a contract to be wrong (leaked: test use only).
pub fn variant(id: &str, change: impl FnOnce(&mut KernelSpec)) -> &'static KernelSpec {
    let mut spec = *find(id).unwrap_or_else(|| panic!("unknown kernel {id}"));
    change(&mut spec);
    Box::leak(Box::new(spec))
}

/// Kernels whose id matches a glob pattern (`*` any run of characters, `?` one character).
pub fn matching(pattern: &str) -> Vec<&'static KernelSpec> {
    all().filter(|k| glob_match(pattern.as_bytes(), k.id.as_bytes())).collect()
}

fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => (0..=text.len()).any(|i| glob_match(rest, &text[i..])),
        Some((&p, rest)) => {
            text.split_first().is_some_and(|(&t, tail)| (p == b'?' || p == t) && glob_match(rest, tail))
        }
    }
}

/// Helpers for contracts over 32-bit words.
pub(crate) fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

pub(crate) fn bytes_to_words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match(b"keccak.*", b"keccak.f1600"));
        assert!(glob_match(b"*", b"anything"));
        assert!(glob_match(b"keccak.?1600", b"keccak.f1600"));
        assert!(!glob_match(b"keccak.*", b"mlkem.ntt.fwd"));
        assert!(!glob_match(b"keccak", b"keccak.f1600"));
    }

    #[test]
    fn ids_are_unique_and_symbols_exist_in_their_images() {
        let m55 = crate::elf::GuestElf::parse("m55", pqhelium_kernels::M55_IMAGE.elf).unwrap();
        let m7 = crate::elf::GuestElf::parse("m7", pqhelium_kernels::M7_IMAGE.elf).unwrap();
        let mut ids: Vec<_> = all().map(|k| k.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), all().count());
        for k in all().filter(|k| k.images != Images::HostOnly) {
            assert!(m55.has_symbol(k.symbol), "{} missing from the M55 image", k.symbol);
            assert_eq!(m7.has_symbol(k.symbol), k.images == Images::Both, "{} in the M7 image", k.symbol);
        }
    }

    #[test]
    fn cases_depend_on_seed_and_index_only() {
        for k in all() {
            for case in [0, k.edge_cases, k.edge_cases + 7] {
                let a = (k.generate)(case, &mut case_rng(42, case));
                let b = (k.generate)(case, &mut case_rng(42, case));
                let c = (k.generate)(case, &mut case_rng(43, case));
                assert_eq!(a, b);
                if case >= k.edge_cases {
                    assert_ne!(a, c, "{}: random cases must depend on the seed", k.id);
                }
            }
        }
    }
}
