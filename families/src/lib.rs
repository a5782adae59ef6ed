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
pub mod fndsa_keygen_pair;
pub mod fndsa_ntt;
pub mod fndsa_scheme;
pub mod fndsa_sign;
pub mod fndsa_verify;
mod framing;
mod keccak;
pub use keccak::scheduled_permutations;
pub mod mlkem_ntt;
pub mod mlkem_poly;
mod sample;
mod sampler_corners;
mod schemes;
pub mod softfloat;
pub mod x25519;

use std::collections::BTreeSet;
use std::sync::{LazyLock, Mutex};

/// A Keccak-f\[1600\] state's two representations: 25 standard 64-bit lanes and 50 bit-interleaved 32-bit words.
pub use keccak::{
    INTERLEAVED as KECCAK_INTERLEAVED, deinterleave_bitwise as keccak_deinterleave,
    interleave_bitwise as keccak_interleave,
};
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
    fndsa_keygen_pair::kernels,
    fndsa_verify::kernels,
    fndsa_sign::kernels,
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

/// `, did you mean `NAME`?` for the candidate nearest to a mistyped name, or nothing when none is near. Near: at
/// one edit away (two in a name of [`LONG`] letters or more), [`SIMILAR`] by normalised Damerau-Levenshtein similarity, one name inside the other, or every
/// part of the name (split at `.`, `_`, `-`, `*`) a part of the candidate; the most similar is named.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    fn parts(s: &str) -> impl Iterator<Item = &str> {
        s.split(['.', '_', '-', '*']).filter(|p| !p.is_empty())
    }
    let near = |c: &str, similarity: f64| {
        similarity >= SIMILAR
            || strsim::damerau_levenshtein(word, c) <= if word.len() < LONG { 1 } else { 2 }
            || c.contains(word)
            || word.contains(c)
            || parts(word).all(|p| parts(c).any(|q| q == p))
    };
    let best = candidates
        .into_iter()
        .filter(|c| *c != word && !word.is_empty())
        .map(|c| (strsim::normalized_damerau_levenshtein(word, c), strsim::jaro_winkler(word, c), c))
        .filter(|&(similarity, _, c)| near(c, similarity))
        // Ties (`m56`: `m55` and `m85`) go to the one sharing the longer prefix.
        .max_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    best.map_or(String::new(), |(_, _, c)| format!(", did you mean `{c}`?"))
}

/// A name this long may be two letters off.
pub const LONG: usize = 6;

/// How similar (normalised Damerau-Levenshtein, 0 to 1) a candidate must be to be suggested on that alone: two
/// letters off in a name of ten.
pub const SIMILAR: f64 = 0.8;

/// Kernels whose id matches a glob pattern (`*` any run of characters, `?` one character).
pub fn matching(pattern: &str) -> Vec<&'static Kernel> {
    let glob = Glob::new(pattern);
    all().filter(|k| glob.is_match(k.id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mistyped_name_gets_the_nearest() {
        let ids = ["mlkem.ntt.fwd", "mlkem.basemul", "keccak.f1600"];
        assert_eq!(did_you_mean("mlkem.ntt.fw", ids), ", did you mean `mlkem.ntt.fwd`?");
        assert_eq!(did_you_mean("mlkem.basmul", ids), ", did you mean `mlkem.basemul`?");
        assert_eq!(did_you_mean("sha3", ids), "");
        assert_eq!(did_you_mean("mlkem.nope", ids), "");
        assert_eq!(
            did_you_mean("pqh_zeta", ["pqh_mlkem_gamma", "pqh_mlkem_zeta", "fndsa_zeta"]),
            ", did you mean `pqh_mlkem_zeta`?"
        );
        assert_eq!(did_you_mean("m56", ["m55", "m85", "m7"]), ", did you mean `m55`?");
        assert_eq!(did_you_mean("m33", ["m55", "m85", "m7"]), "");
        assert_eq!(did_you_mean("keccak.f1600", ids), "");
    }

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

    /// A function is never compared with itself: no model can be or call its reference function (the types refuse
    /// it, `pqhelium_contract::RunReference`), and the kernels whose order of operations is the definition (the
    /// FN-DSA signing FP64 kernels, the soft-float and whole signing on them) or whose output is a bare verdict
    /// (FN-DSA verification) are checked two ways, with no model.
    #[test]
    fn two_way_kernels_are_exactly_the_definitional_ones() {
        // Two-way exactly where the definition is the kernel's order of operations or a verdict.
        let definitional = ["fndsa.fpu.", "fndsa.emu.f64.", "fndsa.sign", "fndsa.verify", "fndsa.keygen.pair"];
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

    /// Element `i` of a 16- or 32-bit integer buffer.
    fn element(elem: Elem, bytes: &[u8], i: usize) -> i64 {
        let b = &bytes[i * elem.bytes()..(i + 1) * elem.bytes()];
        match elem {
            Elem::I16 => i64::from(i16::from_le_bytes([b[0], b[1]])),
            Elem::U16 => i64::from(u16::from_le_bytes([b[0], b[1]])),
            Elem::I32 => i64::from(i32::from_le_bytes(b.try_into().unwrap())),
            Elem::U32 => i64::from(u32::from_le_bytes(b.try_into().unwrap())),
            _ => unreachable!("a 16- or 32-bit integer"),
        }
    }

    /// Every element moved by q or -q where the result stays inside `lo..=hi` and the element type; `None` when no
    /// element can move.
    fn moved_by(q: i64, elem: Elem, bytes: &[u8], (lo, hi): (i64, i64)) -> Option<Vec<u8>> {
        let (tlo, thi) = match elem {
            Elem::I16 => (i64::from(i16::MIN), i64::from(i16::MAX)),
            Elem::U16 => (0, i64::from(u16::MAX)),
            Elem::I32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
            _ => (0, i64::from(u32::MAX)),
        };
        let (lo, hi) = (lo.max(tlo), hi.min(thi));
        let mut out = bytes.to_vec();
        let mut moved = false;
        for i in 0..bytes.len() / elem.bytes() {
            let x = element(elem, bytes, i);
            let Some(y) = [x + q, x - q].into_iter().find(|y| (lo..=hi).contains(y)) else { continue };
            moved = true;
            let at = i * elem.bytes();
            out[at..at + elem.bytes()].copy_from_slice(&y.to_le_bytes()[..elem.bytes()]);
        }
        moved.then_some(out)
    }

    /// Whether argument `index` of `k` behaves as residues mod q: other representatives of its inputs give the same
    /// reference, other representatives of its outputs canonicalise the same (each side it has, on every case tried,
    /// and some element moved).
    fn behaves_as_residues(k: &Kernel, index: usize, q: i64) -> bool {
        use pqhelium_guest::backend::Arg::{In, InOut};
        let spec = &k.args[index];
        let range = |b: Option<Bound>| match b {
            Some(Bound::Range { lo, hi }) => (lo, hi),
            _ => (i64::MIN, i64::MAX),
        };
        let output = k.args.iter().take(index).filter(|a| a.dir != Dir::In).count();
        let mut moved = false;
        for case in (0..4).chain(k.edge_cases..k.edge_cases + 3) {
            let args = k.generate(case, &mut case_rng(0x5EED, case));
            let evaluation = k.evaluate(&args).expect("a generated case");
            if spec.dir != Dir::Out {
                let Some(bytes) = moved_by(q, spec.elem, buffer(&args[index]), range(spec.input)) else { return false };
                let mut other = args.clone();
                other[index] = if spec.dir == Dir::In { In(bytes) } else { InOut(bytes) };
                if k.evaluate(&other).map(|e| e.reference).as_ref() != Ok(&evaluation.reference) {
                    return false;
                }
                moved = true;
            }
            if spec.dir != Dir::In {
                let produced = evaluation.model.unwrap_or(evaluation.reference);
                let Some(bytes) = moved_by(q, spec.elem, &produced.buffers[output], range(None)) else { return false };
                let mut other = produced.clone();
                other.buffers[output] = bytes;
                if k.canon(&other) != k.canon(&produced) {
                    return false;
                }
                moved = true;
            }
        }
        moved
    }

    /// Every argument whose integers are residues mod q carries that modulus, and no other argument does: derived
    /// from each argument's bounds and behaviour, never from ids. An argument is residues mod q when a bound says
    /// canonical mod q, or when moving its elements by q changes nothing (its inputs give the same reference, its
    /// outputs canonicalise the same). The q tried are those the registry's bounds and moduli name; wider integers
    /// hold fixed-point values or binary64 patterns, not residues.
    #[test]
    fn residue_arguments_and_only_they_have_a_modulus() {
        let canonical = |a: &ArgSpec| {
            a.input.into_iter().chain(a.output).find_map(|b| match b {
                Bound::Canonical { q } => Some(q),
                _ => None,
            })
        };
        let mut moduli: Vec<i64> = all()
            .flat_map(|k| k.args.iter())
            .flat_map(|a| canonical(a).into_iter().chain(a.modulus.map(|m| m.q)))
            .collect();
        moduli.sort();
        moduli.dedup();
        assert_eq!(moduli, [3329, 12289]);
        let mut with_modulus = 0;
        for k in all().filter(|k| k.images != Images::HostOnly) {
            for (index, a) in k.args.iter().enumerate() {
                let residues = matches!(a.elem, Elem::I16 | Elem::U16 | Elem::I32 | Elem::U32) && a.len != Len::Scalar;
                let q = canonical(a)
                    .or_else(|| moduli.iter().copied().find(|&q| residues && behaves_as_residues(k, index, q)));
                assert_eq!(a.modulus.map(|m| m.q), q, "{} {}: modulus", k.id, a.name);
                with_modulus += usize::from(q.is_some());
            }
            assert!(k.returns.iter().chain(&k.results).all(|a| a.modulus.is_none()), "{}", k.id);
        }
        // The ML-KEM NTTs, products and from_mve (12), the FN-DSA NTTs and products (20), the ML-KEM polynomial
        // kernels' polynomials (42).
        assert!(with_modulus >= 74, "{with_modulus}");
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
