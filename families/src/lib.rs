//! pqhelium-families: the kernel registry. Every kernel pqhelium knows, one row of data in its family's table,
//! read by everything above (differential engine, analyses, schemes, CLI, docs).
//!
//! A family is one module: its kernels as rows (id, symbol, parameters, and the behaviour that the family's contract
//! type gives each row), written in the vocabulary of [`pqhelium_contract`], which this crate re-exports. A new
//! family is one line in `FAMILIES`.
//!
//! ```
//! let kernel = pqhelium_families::find("keccak.f1600").expect("a registered kernel");
//! let args = kernel.generate(0, &mut pqhelium_families::case_rng(7, 0));
//! assert!(pqhelium_families::check_model(kernel, &args).1.is_none());
//! ```

mod ct_fixture;
pub mod fndsa_fpu;
mod fndsa_keygen;
pub mod fndsa_keygen_fft;
pub mod fndsa_ntt;
mod fndsa_scheme;
pub mod fndsa_verify;
mod keccak;
pub mod mlkem_ntt;
pub mod mlkem_poly;
mod sample;
mod schemes;
pub mod softfloat;
pub mod x25519;

use std::collections::BTreeSet;
use std::sync::{LazyLock, Mutex};

pub use pqhelium_contract::*;
use pqhelium_guest::backend::{BackendKind, Image};

/// A changed copy of a registered kernel, for tests that need a contract to be wrong (leaked: test use only).
pub fn variant(id: &str, change: impl FnOnce(&mut Alteration)) -> &'static Kernel {
    Kernel::altered(find(id).unwrap_or_else(|| panic!("unknown kernel {id}")), change)
}

/// Which build of a family's kernels runs: MVE or portable C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Build {
    /// The MVE kernels (`*.mve.c`): Cortex-M55 image only, in their own storage orders.
    Mve,
    /// The portable C baselines (`*_scalar.c`): both images.
    Scalar,
}

impl Build {
    /// The build a backend runs: the MVE kernels where the image has MVE (QEMU's Cortex-M55; unicorn has none).
    pub fn for_backend(kind: BackendKind) -> Self {
        if kind == BackendKind::Qemu { Build::Mve } else { Build::Scalar }
    }

    /// The build an image holds for a provider: the MVE kernels in the M55 and M85 images.
    pub fn for_image(image: Image) -> Self {
        Self::for_backend(image.backend())
    }
}

/// The kernel families, each a module with its contracts. A new family is one line here.
const FAMILIES: &[fn() -> Vec<Kernel>] = &[
    keccak::kernels,
    schemes::kernels,
    fndsa_scheme::kernels,
    fndsa_ntt::kernels,
    mlkem_ntt::kernels,
    mlkem_poly::kernels,
    softfloat::kernels,
    fndsa_fpu::kernels,
    fndsa_keygen::kernels,
    fndsa_keygen_fft::kernels,
    fndsa_verify::kernels,
    x25519::kernels,
    ct_fixture::kernels,
];

static REGISTRY: LazyLock<Vec<Kernel>> = LazyLock::new(|| FAMILIES.iter().flat_map(|family| family()).collect());

/// Every kernel pqhelium knows, family by family.
pub fn all() -> impl Iterator<Item = &'static Kernel> {
    REGISTRY.iter()
}

pub fn find(id: &str) -> Option<&'static Kernel> {
    all().find(|k| k.id == id)
}

/// The name of coverage step `step` of kernel `id`: `<id>/<step>` (`fndsa.fpu.add/add.tie`), made from the id so
/// that no row retypes it.
pub fn step_name(id: &str, step: &str) -> &'static str {
    interned(format!("{id}/{step}"))
}

/// A name made at run time as a static string (ids, symbols and step names are `&'static str`), each made once.
fn interned(name: String) -> &'static str {
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    match names.get(name.as_str()) {
        Some(&known) => known,
        None => {
            let name: &'static str = Box::leak(name.into_boxed_str());
            names.insert(name);
            name
        }
    }
}

/// Kernels whose id matches a glob pattern (`*` any run of characters, `?` one character).
pub fn matching(pattern: &str) -> Vec<&'static Kernel> {
    let glob = Glob::new(pattern);
    all().filter(|k| glob.is_match(k.id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_symbols_exist_in_their_images() {
        let m55 = pqhelium_guest::elf::GuestElf::parse("m55", pqhelium_kernels::M55_IMAGE.elf).unwrap();
        let m7 = pqhelium_guest::elf::GuestElf::parse("m7", pqhelium_kernels::M7_IMAGE.elf).unwrap();
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
                let a = k.generate(case, &mut case_rng(42, case));
                let b = k.generate(case, &mut case_rng(42, case));
                let c = k.generate(case, &mut case_rng(43, case));
                assert_eq!(a, b);
                if case >= k.edge_cases {
                    assert_ne!(a, c, "{}: random cases must depend on the seed", k.id);
                }
            }
        }
    }

    /// A function is never compared with itself: no three-way kernel's model is its reference function, and the
    /// kernels whose order of operations is the definition (the FN-DSA signing FP64 kernels and the soft-float) or
    /// whose output is a bare verdict (FN-DSA verification) are checked two ways, with no model.
    #[test]
    fn no_model_is_the_reference() {
        for k in all() {
            assert!(!k.behaviour().model_is_reference(), "{}: the model is the reference function", k.id);
        }
        // Two-way exactly where the definition is the kernel's order of operations or a verdict.
        let definitional = ["fndsa.fpu.", "fndsa.emu.f64.", "fndsa.verify"];
        for k in all() {
            let defined = definitional.iter().any(|prefix| k.id.starts_with(prefix));
            assert_eq!(k.checked == Checked::TwoWay, defined, "{}", k.id);
        }
        for prefix in definitional {
            assert!(all().any(|k| k.id.starts_with(prefix) && k.checked == Checked::TwoWay), "no {prefix} kernel");
        }
        for k in all().filter(|k| k.checked == Checked::TwoWay) {
            assert!(!k.runs_on(BackendKind::Model), "{}: a model row would compare the reference with itself", k.id);
            let args = k.generate(0, &mut case_rng(1, 0));
            assert!(k.evaluate(&args).unwrap().model.is_none(), "{}", k.id);
        }
    }

    /// The data is consistent: every bound fits its element type, inputs have input bounds and outputs output bounds,
    /// lengths name scalar parameters, and the generated arguments have the declared shapes.
    #[test]
    fn descriptions_are_consistent() {
        for k in all() {
            for a in k.args.iter().chain(&k.results).chain(&k.returns) {
                assert_eq!(a.input.is_some(), a.dir != Dir::Out, "{} {}: input bound", k.id, a.name);
                assert_eq!(a.output.is_some(), a.dir != Dir::In, "{} {}: output bound", k.id, a.name);
                for bound in a.input.iter().chain(&a.output) {
                    assert!(bound.fits(a.elem), "{} {}: {bound} on {}", k.id, a.name, a.elem.name());
                }
                if let Len::PowerOfTwo { param, .. } = a.len {
                    assert!(k.args.iter().any(|p| p.name == param && p.len == Len::Scalar), "{} {}", k.id, a.name);
                }
                assert!(!a.repr.is_empty(), "{} {}: no representation", k.id, a.name);
            }
            assert!(k.results.is_empty() || k.images == Images::HostOnly, "{}: results are host-only", k.id);
            let args = k.generate(0, &mut case_rng(1, 0));
            assert_eq!(check_input_bounds(k, &args), Ok(()), "{}", k.id);
        }
    }

    /// The generators stay inside the declared input bounds and relations, edge cases and random cases alike, and
    /// what the object code must produce (the model's outcome, the reference's for two-way kernels) inside the
    /// declared output bounds. The schemes' whole runs are left to the campaigns.
    #[test]
    fn generated_cases_and_models_keep_their_bounds() {
        for k in all().filter(|k| k.images != Images::HostOnly) {
            let cases = (0..k.edge_cases.min(400)).chain(k.edge_cases..k.edge_cases + 60);
            for case in cases {
                let args = k.generate(case, &mut case_rng(0xB0D, case));
                check_input_bounds(k, &args).unwrap_or_else(|e| panic!("case {case}: {e}"));
                let evaluation = k.evaluate(&args).unwrap_or_else(|e| panic!("case {case}: {e}"));
                // Two-way kernels: the reference is what the object code must produce, in the kernel's layout.
                let (produced, side) = match &evaluation.model {
                    Some(model) => (model, "model"),
                    None => (&evaluation.reference, "reference"),
                };
                check_output_bounds(k, &args, produced, side).unwrap_or_else(|e| panic!("case {case}: {e}"));
            }
        }
    }
}
