//! Constant-time traces of FN-DSA's whole operations on the guest (`pqhelium scheme --scheme fndsa512|fndsa1024
//! --ct-pairs N`): each pair differs only in what is secret. Their rejection loops make a pair's traces part early
//! by design, so the traces are compared with resynchronisation
//! (`pqhelium_guest::trace::resynchronised_differences`): a difference in code public by design ([`public_code`]) is
//! judged public, both runs skip to where they leave that code, and the comparison goes on; any other difference is
//! a leak. The verdict says how much of the traces was compared, skipped as public code, or not reached.
//!
//! The pairs:
//! - key generation: two seeds (the seed is the key) whose candidates meet the same ends (`seeds_of_one_course`);
//! - signing: two signing keys, one message, context and randomness. The hedged seed binds the key's hash, so the
//!   nonce (public: it is in the signature) and the sampler's randomness differ between the runs;
//! - verification alone and in a batch: nothing is secret (`pqhelium_analyses::ct::NO_SECRET` says why).
//!
//! Public by design: signing's hash-to-point (its input is public), its sampler (whose rejection rate FN-DSA's
//! analysis makes independent of the key), the sponge's read position, the encoding of the published s2, and key
//! generation's rejected draws; a known leak of one of our kernels at the same source line (`KNOWN_LEAKS`: FP64
//! division timing on the M85) is judged as in that kernel's campaign.

use pqhelium_analyses::ct::{self, KNOWN_LEAKS, Leak, LeakKind, Pair, Tracer};
use pqhelium_core::fndsa::keygen::{Candidate, keygen_from_seed_with_course};
use pqhelium_core::fndsa::{self, ReferenceKernels, codec};
use pqhelium_families::fndsa_sign::{self, kat_message};
use pqhelium_guest::backend::{Arg, BackendError, Image, Limits};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use std::collections::HashMap;
use std::ops::RangeInclusive;
use std::sync::LazyLock;
use std::time::Duration;

use crate::fndsa_on_guest::{Op, SignatureBuild};
use crate::scheme_ct::{CSource, OpVerdict, over_pairs};

static SIGN_SOURCE: LazyLock<CSource> =
    LazyLock::new(|| CSource::new("kernels/arm/fndsa_sign/fndsa_sign.c", pqhelium_kernels::FNDSA_SIGN_SOURCE));
static KEYGEN_SOURCE: LazyLock<CSource> =
    LazyLock::new(|| CSource::new("kernels/arm/fndsa_keygen/keygen.c", pqhelium_kernels::FNDSA_KEYGEN_SOURCE));
static SPONGE_SOURCE: LazyLock<CSource> =
    LazyLock::new(|| CSource::new("kernels/arm/scheme/fips202.c", pqhelium_kernels::FIPS202_SOURCE));
/// The lines of key generation's candidate loop (`for (uint32_t candidate = 0; ...) { ... }`, its closing brace the
/// first line `    }` after it), numbered from 1: a check there sends the loop to its next candidate.
static CANDIDATE_LOOP: LazyLock<RangeInclusive<usize>> = LazyLock::new(|| {
    let lines = KEYGEN_SOURCE.lines();
    let start =
        lines.iter().position(|l| l.contains("for (uint32_t candidate = 0;")).expect("keygen.c's candidate loop");
    let end = lines[start..].iter().position(|l| *l == "    }").map_or(lines.len(), |n| start + n);
    start + 1..=end + 1
});

/// The candidate loop's line that calls the NTRU solver (`found = kg_solve(...)`), numbered from 1: not public code,
/// so that runs skipping the loop's public code after a difference in the draws stop at the solver and compare it.
static SOLVER_CALL: LazyLock<usize> = LazyLock::new(|| {
    let lines = KEYGEN_SOURCE.lines();
    lines.iter().position(|l| l.contains("found = kg_solve(")).expect("keygen.c's call of the solver") + 1
});

/// Signing's hash-to-point.
const HASH_TO_POINT: &[&str] = &["fs_hash_to_point"];
pub const HASH_TO_POINT_REASON: &str = "hash-to-point rejects the words of SHAKE256(nonce || mu) at or above 5q: the \
     nonce is in the signature and mu is the message's, both public (the pair's nonces differ: the hedged seed binds \
     the key's hash)";

/// Signing's sampler: the rejection loop and the byte-wise Bernoulli trial, and the bytes they draw; the FP64
/// kernel each round calls (by symbol; its own traces are checked as a kernel's: `pqhelium ct`).
const SAMPLER: &[&str] = &["fs_sample", "fs_base", "fs_ber_exp", "fs_expm_p63", "fs_mul_hi", "fs_next_"];
const SAMPLER_ROUND_KERNEL: &str = "fndsa_fpu_sampler_exponent";
pub const SAMPLER_REASON: &str = "the sampler's rejection loop: how often it rejects is independent of the key by \
     FN-DSA's design (the acceptance probability is scaled by sigma_min / sigma), and the Bernoulli trial stops at the \
     first random byte that decides";

/// Signing's encoding of s2, whose bit positions follow the values the signature publishes.
const ENCODING: &[&str] = &["fs_comp_encode"];
pub const ENCODING_REASON: &str = "the encoding of s2: where each coefficient's bits go follows the values the \
     signature publishes";

/// The sponge's squeeze, which reads the state at the position the draws before it reached.
const SPONGE: &[&str] = &["pqh_keccak_squeeze", "lane_words", "permute", "store32", "load32"];
/// The squeeze alone: its conditions are the read position and the length left, which compilers may predicate.
const SQUEEZE: &[&str] = &["pqh_keccak_squeeze"];
/// The lane conversions the sponge inlines (`keccak.h`): every line of the file.
const LANE_CONVERSIONS: &str = "kernels/arm/keccak/keccak.h:";
/// The permutations the sponge calls (scalar C and the SLOTHY-scheduled assembly), by symbol.
const PERMUTATION: &[&str] = &["keccak_f1600"];
pub const SPONGE_REASON: &str = "the sponge's read position, and the permutation when it reaches the rate: how many \
     bytes the rejection loops before it drew, public by design; the bytes drawn stay secret, where they are read \
     from is not";

/// Key generation's draws: a coefficient out of range or of the wrong parity drawn again, a candidate (f, g)
/// rejected (no inverse mod q, too long, orthogonalized norm too large).
const KEYGEN_DRAWS: &[&str] = &["kg_sample_poly", "kg_next_", "kg_ortho_norm_ok"];
pub const CANDIDATE_REASON: &str = "a rejected draw: a coefficient or a candidate (f, g) the key generation discards \
     and draws again from the seed's stream; the key it keeps is independent of the rejected ones";

/// Time one traced call may take: the portable build's soft-float signing and the key generation trace for minutes.
const TRACE_TIMEOUT: Duration = Duration::from_secs(1200);

/// Runs `pairs` pairs of every operation of `build` at degree `logn` on `image` (inputs from `seed`).
pub fn check_operations(
    image: Image,
    build: &SignatureBuild,
    logn: u32,
    pairs: u64,
    seed: u64,
) -> Result<Vec<(Op, OpVerdict)>, BackendError> {
    let mut tracer = Tracer::open(image, Limits { timeout: TRACE_TIMEOUT })?;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut verdicts = Vec::new();
    for op in Op::ALL {
        let kernel = build.kernels[op as usize];
        if let Some(why) = ct::no_secret_reason(kernel) {
            verdicts.push((op, OpVerdict::NoSecret { why }));
            continue;
        }
        // An instruction without a source line (clang leaves some) outside the functions named public cannot be
        // placed: it neither ends nor starts a skip.
        let region = |location: &str, source: Option<&str>| match public_code(location, source) {
            Some(_) => Some(true),
            None => source.map(|_| false),
        };
        let symbol = build.symbol(op);
        let verdict = over_pairs(
            &mut tracer,
            pairs,
            || operation_pair(op, logn, &mut rng).map(|pair| (symbol.to_string(), pair)),
            |leak| explanation(image, leak),
            region,
        );
        verdicts.push((op, verdict));
    }
    Ok(verdicts)
}

fn seed(rng: &mut ChaCha20Rng) -> [u8; 32] {
    std::array::from_fn(|_| rng.r#gen())
}

/// The pair of an operation: key generation from two seeds of one course, signing one request with two keys.
fn operation_pair(op: Op, logn: u32, rng: &mut ChaCha20Rng) -> Result<Pair, String> {
    let no_key = || "the reference made no key".to_string();
    let (args_a, args_b) = match op {
        Op::Keypair => {
            let (sk_len, vk_len) = (codec::signing_key_size(logn), codec::verifying_key_size(logn));
            let args = |seed: [u8; 32]| {
                vec![Arg::Out(sk_len), Arg::Out(vk_len), Arg::In(seed.to_vec()), Arg::U32(32), Arg::U32(logn)]
            };
            let (a, b) = seeds_of_one_course(logn, rng)?;
            (args(a), args(b))
        }
        Op::Sign => {
            let randomness: Vec<u8> = (0..fndsa_sign::RANDOMNESS_BYTES).map(|_| rng.r#gen()).collect();
            let request = |rng: &mut ChaCha20Rng| -> Result<Vec<Arg>, String> {
                let (sk, _) =
                    fndsa::keygen(&mut ReferenceKernels::default(), logn, &seed(rng)).map_err(|_| no_key())?;
                let framed = fndsa_sign::Request { sk, randomness: randomness.clone(), ..kat_message(0) }.framed();
                let len = Arg::U32(framed.len() as u32);
                Ok(vec![Arg::Out(codec::signature_size(logn)), Arg::In(framed), len])
            };
            (request(rng)?, request(rng)?)
        }
        Op::Verify | Op::VerifyBatch4 => return Err("nothing is secret".into()),
    };
    Ok(Pair { a: 0, b: 1, args_a, args_b })
}

/// Seeds drawn at most in search of two of one course.
const COURSE_DRAWS: usize = 2000;

/// Two seeds whose key generations take the same course (core's `keygen_from_seed_with_course`): every candidate
/// rejected by the same check, none by the solver, the same one accepted. Which check rejects a candidate is public
/// by design, so such a pair's traces differ only where the draws and the secret values could make them, and the
/// comparison can follow them to their ends; seeds of different courses part at the first candidate one of them
/// rejects.
fn seeds_of_one_course(logn: u32, rng: &mut ChaCha20Rng) -> Result<([u8; 32], [u8; 32]), String> {
    let mut courses: HashMap<Vec<Candidate>, [u8; 32]> = HashMap::new();
    for _ in 0..COURSE_DRAWS {
        let seed = seed(rng);
        let mut course = Vec::new();
        keygen_from_seed_with_course(&mut ReferenceKernels::default(), logn, &seed, &mut course)
            .map_err(|e| format!("the reference made no key: {e}"))?;
        if course.contains(&Candidate::Unsolved) {
            continue;
        }
        if let Some(first) = courses.insert(course, seed) {
            return Ok((first, seed));
        }
    }
    Err(format!("no two of {COURSE_DRAWS} seeds take the same course through key generation's candidates"))
}

/// Why a pair's difference is not a leak, if it is not: a branch or an access in code public by design
/// ([`public_code`]; in the key generation's draws, only the rejection checks branch), or a known leak of one of our
/// kernels at the same source line. A predicated instruction (IT, VPT) is public code's only in the squeeze
/// (`pqh_keccak_squeeze`), whose conditions are its read position and length: elsewhere predication selects values,
/// and the rejection loops are written with branches, their values with masks.
pub fn explanation(image: Image, leak: &Leak) -> Option<&'static str> {
    let public = match leak.kind {
        LeakKind::Predication | LeakKind::LanePredication => {
            leak.source.as_deref().filter(|source| SPONGE_SOURCE.in_functions(source, SQUEEZE)).map(|_| SPONGE_REASON)
        }
        // Without a source line, a branch of the draws is one of their loops' or rejection checks': their C has
        // no other branch.
        LeakKind::ControlFlow => public_code(&leak.location, leak.source.as_deref())
            .filter(|&why| why != CANDIDATE_REASON || leak.source.as_deref().is_none_or(is_rejection_check)),
        _ => public_code(&leak.location, leak.source.as_deref()),
    };
    public.or_else(|| {
        KNOWN_LEAKS.iter().find(|known| !known.planted && known.explains_line(image, leak)).map(|known| known.why)
    })
}

/// Why the instruction at `location` (`symbol+offset`), of source line `source`, is public by design, if it is: the
/// hash-to-point, the sampler, the sponge's squeeze and permutation, the key generation's draws and candidate loop.
pub fn public_code(location: &str, source: Option<&str>) -> Option<&'static str> {
    let Some(source) = source else {
        // No source line (clang leaves some): the function the instruction belongs to, by its symbol.
        let function = location.split_once('+').map_or(location, |(f, _)| f);
        let named = |names: &[&str]| names.iter().any(|n| function.starts_with(n));
        return [(HASH_TO_POINT, HASH_TO_POINT_REASON), (SAMPLER, SAMPLER_REASON), (ENCODING, ENCODING_REASON)]
            .into_iter()
            .chain([(KEYGEN_DRAWS, CANDIDATE_REASON), (SPONGE, SPONGE_REASON), (PERMUTATION, SPONGE_REASON)])
            .find(|(names, _)| named(names))
            .map(|(_, why)| why)
            .or_else(|| function.starts_with(SAMPLER_ROUND_KERNEL).then_some(SAMPLER_REASON));
    };
    let sign = |names| SIGN_SOURCE.in_functions(source, names);
    if sign(HASH_TO_POINT) {
        Some(HASH_TO_POINT_REASON)
    } else if sign(ENCODING) {
        Some(ENCODING_REASON)
    } else if sign(SAMPLER) || location.starts_with(SAMPLER_ROUND_KERNEL) {
        Some(SAMPLER_REASON)
    } else if KEYGEN_SOURCE.in_functions(source, KEYGEN_DRAWS) || in_candidate_loop(source) {
        Some(CANDIDATE_REASON)
    } else if SPONGE_SOURCE.in_functions(source, SPONGE)
        || source.starts_with(LANE_CONVERSIONS)
        || PERMUTATION.iter().any(|p| location.starts_with(p))
    {
        Some(SPONGE_REASON)
    } else {
        None
    }
}

/// Whether `source` (`file:line`) is one of the key generation's rejection checks: a line of its candidate loop, of
/// its stream (`kg_next_*`: the buffer's refill), or a condition or `continue` of the coefficient draw.
fn is_rejection_check(source: &str) -> bool {
    let text = KEYGEN_SOURCE.line_of(source).map_or("", |line| KEYGEN_SOURCE.text(line));
    let check = ["if (", "while (", "continue;"].iter().any(|c| text.contains(c));
    in_candidate_loop(source)
        || KEYGEN_SOURCE.in_functions(source, &["kg_next_"])
        || check && KEYGEN_SOURCE.in_functions(source, &["kg_sample_poly"])
}

/// Whether `source` (`file:line`) is in the key generation's candidate loop ([`CANDIDATE_LOOP`]).
fn in_candidate_loop(source: &str) -> bool {
    KEYGEN_SOURCE.line_of(source).is_some_and(|line| CANDIDATE_LOOP.contains(&line) && line != *SOLVER_CALL)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `file:line` of the first line of `source` containing `needle`, plus `offset` lines.
    fn line_of(source: &CSource, needle: &str, offset: usize) -> String {
        let at = source.lines().iter().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle}"));
        format!("{}:{}", source.file, at + 1 + offset)
    }

    fn sign_line(needle: &str, offset: usize) -> String {
        line_of(&SIGN_SOURCE, needle, offset)
    }

    #[test]
    fn the_public_code_is_the_rejection_loops_hashing_and_encoding() {
        let at = |needle, offset| public_code("fndsa_sign+0x10", Some(&sign_line(needle, offset)));
        assert_eq!(at("static int32_t fs_sample(", 8), Some(SAMPLER_REASON));
        assert_eq!(at("static void fs_hash_to_point(", 8), Some(HASH_TO_POINT_REASON));
        assert_eq!(at("static uint32_t fs_comp_encode(", 6), Some(ENCODING_REASON));
        let sponge = line_of(&SPONGE_SOURCE, "void pqh_keccak_squeeze(", 3);
        assert_eq!(public_code("pqh_keccak_squeeze+0x8", Some(&sponge)), Some(SPONGE_REASON));
        let draws = line_of(&KEYGEN_SOURCE, "static void kg_sample_poly(", 8);
        assert_eq!(public_code("kg_sample_poly+0x8", Some(&draws)), Some(CANDIDATE_REASON));
    }

    /// The key's own computations are not public: the attempt's Gram matrix and lattice point (whose function takes
    /// a `struct fs_sampler *`: the parameter's type names no function), the key decoding, the NTRU solver.
    #[test]
    fn the_key_computations_are_not() {
        let at = |needle, offset| public_code("fndsa_sign+0x10", Some(&sign_line(needle, offset)));
        assert_eq!(at("static uint32_t fs_attempt(", 8), None);
        assert_eq!(at("static uint32_t fs_decode_key(", 4), None);
        assert_eq!(at("static uint32_t fs_compute_big_g(", 4), None);
        let solver = line_of(&KEYGEN_SOURCE, "static int kg_solve(", 4);
        assert_eq!(public_code("kg_solve+0x8", Some(&solver)), None);
        // The candidate loop is public but for its call of the solver, where skipping runs stop and compare.
        let call = line_of(&KEYGEN_SOURCE, "found = kg_solve(", 0);
        assert_eq!(public_code("fndsa_keygen_pair_with+0x8", Some(&call)), None);
        let check = line_of(&KEYGEN_SOURCE, "if (!kg_ortho_norm_ok(kern", 0);
        assert_eq!(public_code("fndsa_keygen_pair_with+0x8", Some(&check)), Some(CANDIDATE_REASON));
    }

    /// Predication is public in the squeeze only (gcc predicates its test of the read position on the M7), not in
    /// the sampler nor in the lane conversions the sponge inlines.
    #[test]
    fn only_the_squeeze_may_predicate() {
        let leak = |location: &str, source: String| Leak {
            kind: LeakKind::Predication,
            class: None,
            pc: 0,
            location: location.into(),
            source: Some(source),
            event: 0,
            a: String::new(),
            b: String::new(),
        };
        let squeeze = leak("pqh_keccak_squeeze+0x1e", line_of(&SPONGE_SOURCE, "void pqh_keccak_squeeze(", 9));
        assert_eq!(explanation(Image::M7, &squeeze), Some(SPONGE_REASON));
        let sampler = leak("fs_sample+0x10", sign_line("static int32_t fs_sample(", 8));
        assert_eq!(public_code(&sampler.location, sampler.source.as_deref()), Some(SAMPLER_REASON));
        assert_eq!(explanation(Image::M7, &sampler), None);
        let conversion = leak("lane_words+0x4", format!("{LANE_CONVERSIONS}40"));
        assert_eq!(public_code(&conversion.location, conversion.source.as_deref()), Some(SPONGE_REASON));
        assert_eq!(explanation(Image::M7, &conversion), None);
    }

    /// Without a source line, the symbol decides.
    #[test]
    fn an_instruction_without_a_line_is_placed_by_its_function() {
        assert_eq!(public_code("fs_sample+0x3ea", None), Some(SAMPLER_REASON));
        assert_eq!(public_code("keccak_f1600_interleaved+0x40", None), Some(SPONGE_REASON));
        assert_eq!(public_code("fs_attempt+0x40", None), None);
        assert_eq!(public_code("fndsa_fpu_ldl_fft+0x46", None), None);
    }
}
