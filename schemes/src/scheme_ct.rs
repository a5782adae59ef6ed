//! Constant-time traces of whole operations: each operation of a KEM build runs on a pair of inputs that differ only
//! in what is secret, and the two leakage traces (`pqhelium_analyses::ct`: instruction and data addresses,
//! predication, variable-latency operands) must be equal.
//!
//! The pairs keep every public value equal:
//! - key pair: the key-generation randomness (ML-KEM's d || z, X-Wing's seed) differs;
//! - encapsulation: one encapsulation key, the randomness (m, X-Wing's eseed) differs;
//! - decapsulation (ML-KEM): one ciphertext, made for the first key; the second key is the first with its secret
//!   polynomial vector s and its rejection key z replaced, so the encapsulation key inside it (and the matrix it
//!   expands to) is the same, and the second run takes the implicit-rejection path where the first accepts: the
//!   traces must not tell which;
//! - decapsulation (X-Wing): one ciphertext, the seed differs.
//!
//! Our builds take the randomness through their derandomised functions; an implementation of the pqm4 API alone
//! (`scheme --manifest`) gets it from `randombytes`, which replays the pair's bytes ([`Randomness::Replayed`]).
//!
//! Where a pair cannot keep a public value equal, the difference it makes is declared: the matrix of ML-KEM is
//! sampled from rho, public (in the encapsulation key) but derived from the secret seed during key generation and
//! X-Wing's decapsulation, so their pairs part at SampleNTT's rejection sampling. A difference at a known leak of one
//! of our kernels (`KNOWN_LEAKS`, with its reason) is explained too. After an explained difference both runs skip
//! the sampler (`pqhelium_guest::trace::resynchronised_in_windows`) and the comparison goes on to the traces' ends.

use std::ops::RangeInclusive;
use std::sync::LazyLock;

use pqhelium_analyses::ct::{KNOWN_LEAKS, Leak, Pair, Tracer};
use pqhelium_core::mlkem::{ML_KEM_768, MlKem};
use pqhelium_core::xwing::{self, XWing};
use pqhelium_guest::backend::{Arg, BackendError, Image, Limits};
use pqhelium_guest::elf::GuestElf;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::on_guest::{KemBuild, Op, XWING_PORTABLE};

/// The prefixes of kem.c's SampleNTT functions (the XOF drivers, scalar and four-way, and the rejection sampling of
/// a block) and of the four-way XOF's read of one lane set for it, whose branches and reads follow rho: a difference
/// on their lines is rho's, public.
const SAMPLER: &[&str] = &["sample_ntt", "x4_state_lanes"];
const SAMPLER_FILE: &str = "kernels/arm/mlkem768/kem.c";

/// Why a difference in the sampler is public.
pub const SAMPLER_REASON: &str = "SampleNTT's rejection sampling reads rho, public (in the encapsulation key) but \
                                  derived from the secret seed in this operation: the pair cannot keep it equal";

/// One operation's verdict over its pairs.
#[derive(Debug, Clone, PartialEq)]
pub enum OpVerdict {
    /// A pair's traces differ where nothing explains it: a leak.
    Leak { pair: u64, leak: Leak },
    /// A run faulted, or its traces differ where the recordings cannot show.
    Fault { pair: u64, why: String },
    /// Nothing the operation reads is secret: no pair to compare.
    NoSecret { why: &'static str },
    /// A whole operation's pairs compared on after each difference that is public by design
    /// (`pqhelium_analyses::ct::Tracer::compare_whole`): no other difference in the events compared.
    Resynchronised(Resynchronised),
}

/// What the pairs of a whole operation compared with resynchronisation showed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resynchronised {
    pub pairs: u64,
    /// Each place of a public difference (first seen), with why it is public.
    pub places: Vec<(Leak, &'static str)>,
    /// Public differences over all pairs.
    pub differences: u64,
    /// Events the comparisons went through (compared, or skipped as public code after a public difference), of them
    /// skipped, and events traced, over all pairs and both runs.
    pub compared: u64,
    pub skipped: u64,
    pub events: u64,
    /// Why a pair's comparison ended before the ends of its traces.
    pub lost: Option<String>,
}

impl Resynchronised {
    /// One line: the pairs, the public differences and their places, and the shares of the events compared, skipped
    /// as public code and not reached.
    pub fn summary(&self) -> String {
        let share = |n: u64| 100.0 * n as f64 / self.events.max(1) as f64;
        if self.differences == 0 && self.compared == self.events {
            return format!("{} pairs, equal traces ({} events)", self.pairs, self.events);
        }
        format!(
            "{} pairs, equal traces but for {} differences public by design at {} places: of {} events, {:.1}% \
             compared, {:.1}% skipped as public code after a public difference, {:.1}% not reached",
            self.pairs,
            self.differences,
            self.places.len(),
            self.events,
            share(self.compared - self.skipped),
            share(self.skipped),
            share(self.events - self.compared),
        )
    }
}

impl OpVerdict {
    pub fn passed(&self) -> bool {
        matches!(self, OpVerdict::NoSecret { .. } | OpVerdict::Resynchronised(_))
    }
}

/// How an implementation's operations get the pair's randomness.
#[derive(Debug, Clone, Copy)]
pub enum Randomness<'a> {
    /// Our builds: their derandomised functions take it as an argument.
    Derandomised,
    /// An implementation of the pqm4 API alone (`scheme --manifest`): `randombytes` replays it while the operation
    /// runs (`pqh_with_randomness*`); a difference in one of `public` (functions the manifest declares public,
    /// such as a rejection sampler reading rho) is explained by that declaration.
    Replayed { public: &'a [String] },
}

/// Why a difference in a function the manifest declares public is not a leak.
pub const DECLARED_REASON: &str = "declared public by the manifest (`ct-public`)";

/// Runs `pairs` pairs of every operation of `build` on `image` (pair inputs from `seed`).
pub fn check_operations(
    image: Image,
    build: &KemBuild,
    pairs: u64,
    seed: u64,
    randomness: Randomness,
) -> Result<Vec<(Op, OpVerdict)>, BackendError> {
    let mut tracer = Tracer::open(image, Limits::default())?;
    let elf = GuestElf::parse(image.name(), image.guest().elf)?;
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut verdicts = Vec::new();
    for op in Op::ALL {
        let mut failed = None;
        let verdict = over_pairs(
            &mut tracer,
            pairs,
            || match randomness {
                Randomness::Derandomised => Ok(operation_pair(build, op, &mut rng)),
                Randomness::Replayed { .. } => replayed_pair(&elf, build, op, &mut rng).map_err(|e| {
                    failed = Some(e);
                    "the pair's inputs could not be made".to_string()
                }),
            },
            |leak| explanation(image, leak, randomness),
            |location, source| public_code(location, source, randomness),
        );
        if let Some(e) = failed {
            return Err(e);
        }
        verdicts.push((op, verdict));
    }
    Ok(verdicts)
}

/// The verdict of one operation over `pairs` pairs from `next_pair` (each with the symbol it calls; `Err`: why it made
/// none, a fault): each pair compared to its ends, brought back in step after each difference `explain` says why is public
/// (`region` placing the code it lies in), or the first pair that leaked or faulted.
pub(crate) fn over_pairs(
    tracer: &mut Tracer,
    pairs: u64,
    mut next_pair: impl FnMut() -> Result<(String, Pair), String>,
    explain: impl Fn(&Leak) -> Option<&'static str>,
    region: impl Fn(&str, Option<&str>) -> Option<bool>,
) -> OpVerdict {
    let mut whole = Resynchronised { pairs, ..Resynchronised::default() };
    for index in 0..pairs {
        let (symbol, pair) = match next_pair() {
            Ok(next) => next,
            Err(why) => return OpVerdict::Fault { pair: index, why },
        };
        let compared = match tracer.compare_whole(&symbol, &pair, |leak| explain(leak).is_some(), &region) {
            Ok(compared) => compared,
            Err(e) => return OpVerdict::Fault { pair: index, why: e.to_string() },
        };
        let found = compared.found;
        if let Some(leak) = found.leak {
            return OpVerdict::Leak { pair: index, leak };
        }
        for leak in found.public {
            if !whole.places.iter().any(|(p, _)| p.same_instruction(&leak)) {
                let why = explain(&leak).expect("public: explained");
                whole.places.push((leak, why));
            }
        }
        whole.differences += found.public_count;
        whole.compared += found.compared.0 + found.compared.1;
        whole.skipped += found.skipped;
        whole.events += compared.events.0 + compared.events.1;
        if let Some(lost) = found.lost {
            whole.lost.get_or_insert(format!("pair {index}: {lost}"));
        }
    }
    OpVerdict::Resynchronised(whole)
}

/// Whether the instruction at `location` (`symbol+offset`), of source line `source`, is public code: in a manifest's
/// implementation, a function it declares public (by symbol); in our builds, a line of the sampler, or for an
/// instruction without a line (clang leaves some) the sampler's symbols, `None` (it cannot be placed) for the rest.
fn public_code(location: &str, source: Option<&str>, randomness: Randomness) -> Option<bool> {
    let function = location.split_once('+').map_or(location, |(f, _)| f);
    if let Randomness::Replayed { public } = randomness {
        return Some(public.iter().any(|p| p == function));
    }
    match source {
        Some(source) => Some(KEM_SOURCE.in_functions(source, SAMPLER)),
        None => SAMPLER.iter().any(|p| function.starts_with(p)).then_some(true),
    }
}

/// Whether the difference is on a line of a sampler's body in kem.c (the compilers may inline them: their lines stay).
fn in_sampler(leak: &Leak) -> bool {
    leak.source.as_deref().is_some_and(|source| KEM_SOURCE.in_functions(source, SAMPLER))
}

/// A C source of ours, split once into lines and function definitions, for placing a `file:line` of a trace.
pub(crate) struct CSource {
    pub(crate) file: &'static str,
    lines: Vec<&'static str>,
    /// Each definition's name and the lines (numbered from 1) from its head to its closing brace.
    functions: Vec<(&'static str, RangeInclusive<usize>)>,
}

impl CSource {
    /// `text`, the content of `file`. A definition is a line `... name(` at column 0 that is not a prototype; its
    /// body ends at the first closing brace in column 0.
    pub(crate) fn new(file: &'static str, text: &'static str) -> Self {
        let lines: Vec<&'static str> = text.lines().collect();
        // The defined name: the word before the line's first parenthesis.
        let name = |l: &'static str| l.split('(').next().and_then(|head| head.rsplit([' ', '*']).next()).unwrap_or("");
        let functions = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.starts_with(|c: char| c.is_ascii_alphabetic()) && !l.ends_with(';') && l.contains('('))
            .map(|(start, l)| {
                let end = lines[start..].iter().position(|l| l.starts_with('}')).map_or(lines.len(), |n| start + n);
                (name(l), start + 1..=end + 1)
            })
            .collect();
        Self { file, lines, functions }
    }

    /// The line number of `source` (`file:line`, the path perhaps through `dir/..`, as a build that includes the
    /// file from another directory names it) if it is a line of this file.
    pub(crate) fn line_of(&self, source: &str) -> Option<usize> {
        let (path, line) = source.rsplit_once(':')?;
        let mut parts: Vec<&str> = Vec::new();
        for part in path.split('/') {
            match part {
                ".." => {
                    parts.pop()?;
                }
                "." => {}
                _ => parts.push(part),
            }
        }
        (parts.join("/") == self.file).then(|| line.parse().ok()).flatten()
    }

    /// The text of line `line` (numbered from 1).
    pub(crate) fn text(&self, line: usize) -> &'static str {
        line.checked_sub(1).and_then(|i| self.lines.get(i)).copied().unwrap_or("")
    }

    /// The lines of the file (numbered from 0).
    pub(crate) fn lines(&self) -> &[&'static str] {
        &self.lines
    }

    /// Whether `source` (`file:line`) is a line of the body of a function whose name starts with one of `prefixes`.
    pub(crate) fn in_functions(&self, source: &str, prefixes: &[&str]) -> bool {
        self.line_of(source).is_some_and(|line| {
            self.functions
                .iter()
                .any(|(name, lines)| lines.contains(&line) && prefixes.iter().any(|p| name.starts_with(p)))
        })
    }
}

/// kem.c, where the samplers are.
static KEM_SOURCE: LazyLock<CSource> =
    LazyLock::new(|| CSource::new(SAMPLER_FILE, pqhelium_kernels::MLKEM768_KEM_SOURCE));

/// Why a pair's difference is not a leak of the operation, if it is not: the sampler's (ours, or a function the
/// manifest declares public), or a known leak of the kernel of ours it lies in (the same entry `check` judges the
/// kernel's own pairs against).
fn explanation(image: Image, first: &Leak, randomness: Randomness) -> Option<&'static str> {
    if let Randomness::Replayed { public } = randomness {
        let function = first.location.split_once('+').map_or(first.location.as_str(), |(f, _)| f);
        return public.iter().any(|p| p == function).then_some(DECLARED_REASON);
    }
    if in_sampler(first) {
        return Some(SAMPLER_REASON);
    }
    let function = first.location.split_once('+')?.0;
    let kernel = pqhelium_families::all().find(|k| k.symbol == function)?;
    // A planted leak (a fixture's, B8's) explains nothing: in a whole operation it is a leak.
    KNOWN_LEAKS.iter().find(|known| !known.planted && known.explains(kernel.id, image, first)).map(|known| known.why)
}

fn random<const N: usize>(rng: &mut ChaCha20Rng) -> [u8; N] {
    std::array::from_fn(|_| rng.r#gen())
}

/// The symbol an operation's pair calls and the pair: the derandomised functions for key pair and encapsulation
/// (their randomness an argument), the pqm4 API's decapsulation.
fn operation_pair(build: &KemBuild, op: Op, rng: &mut ChaCha20Rng) -> (String, Pair) {
    let xwing = build.name == XWING_PORTABLE.name;
    let (function, args_a, args_b) = match (op, xwing) {
        (Op::Keypair, false) => {
            let out = [Arg::Out(build.public_key), Arg::Out(build.secret_key)];
            let coins = |rng: &mut ChaCha20Rng| Arg::In(random::<64>(rng).to_vec());
            ("crypto_kem_keypair_derand", [&out[..], &[coins(rng)]].concat(), [&out[..], &[coins(rng)]].concat())
        }
        (Op::Keypair, true) => {
            let seed = |rng: &mut ChaCha20Rng| Arg::In(random::<32>(rng).to_vec());
            let out = Arg::Out(build.public_key);
            ("keypair_derand", vec![out.clone(), seed(rng)], vec![out, seed(rng)])
        }
        (Op::Enc, false) => {
            let (pk, _) = mlkem_keys(rng);
            let fixed = [Arg::Out(build.ciphertext), Arg::Out(build.shared_secret), Arg::In(pk)];
            let m = |rng: &mut ChaCha20Rng| Arg::In(random::<32>(rng).to_vec());
            ("crypto_kem_enc_derand", [&fixed[..], &[m(rng)]].concat(), [&fixed[..], &[m(rng)]].concat())
        }
        (Op::Enc, true) => {
            let pk = XWing::reference().keygen(&random(rng)).to_vec();
            let fixed = [Arg::Out(build.ciphertext), Arg::Out(build.shared_secret), Arg::In(pk)];
            let eseed = |rng: &mut ChaCha20Rng| Arg::In(random::<{ xwing::ESEED_SIZE }>(rng).to_vec());
            ("enc_derand", [&fixed[..], &[eseed(rng)]].concat(), [&fixed[..], &[eseed(rng)]].concat())
        }
        (Op::Dec, false) => {
            let (pk, sk_a) = mlkem_keys(rng);
            let (_, ct) = MlKem::reference(ML_KEM_768).encaps(&pk, &random(rng)).expect("a key the reference made");
            let sk_b = other_secret(&sk_a, rng);
            let out = Arg::Out(build.shared_secret);
            let args = |sk: Vec<u8>| vec![out.clone(), Arg::In(ct.clone()), Arg::In(sk)];
            ("crypto_kem_dec", args(sk_a), args(sk_b))
        }
        (Op::Dec, true) => {
            let scheme = XWing::reference();
            let (seed_a, seed_b) = (random::<32>(rng), random::<32>(rng));
            let (_, ct) = scheme.encaps(&scheme.keygen(&seed_a), &random(rng)).expect("a key the reference made");
            let args =
                |seed: [u8; 32]| vec![Arg::Out(build.shared_secret), Arg::In(ct.to_vec()), Arg::In(seed.to_vec())];
            ("crypto_kem_dec", args(seed_a), args(seed_b))
        }
    };
    (format!("{}{function}", build.prefix), Pair { a: 0, b: 1, args_a, args_b })
}

/// The pair of an operation of an implementation of the pqm4 API alone: the key pair and the encapsulation through
/// `pqh_with_randomness*` (the function's address an argument), with as many bytes as the scheme draws (ML-KEM-768:
/// d || z, then m; X-Wing: the seed, then the eseed); the decapsulation as for our builds.
fn replayed_pair(
    elf: &GuestElf,
    build: &KemBuild,
    op: Op,
    rng: &mut ChaCha20Rng,
) -> Result<(String, Pair), BackendError> {
    let xwing = build.name == XWING_PORTABLE.name;
    let drawn = match (op, xwing) {
        (Op::Keypair, false) => 64,
        (Op::Keypair, true) => xwing::SECRET_KEY_SIZE,
        (Op::Enc, false) => 32,
        (Op::Enc, true) => xwing::ESEED_SIZE,
        (Op::Dec, _) => return Ok(operation_pair(build, op, rng)),
    };
    let address = elf.symbol(&build.symbol(op))?;
    let bytes = |rng: &mut ChaCha20Rng| Arg::In((0..drawn).map(|_| rng.r#gen()).collect());
    let head = |bytes: Arg| vec![bytes, Arg::U32(drawn as u32), Arg::U32(address)];
    let (wrapper, outputs) = match op {
        Op::Keypair => ("pqh_with_randomness2", vec![Arg::Out(build.public_key), Arg::Out(build.secret_key)]),
        _ => {
            let pk = if xwing { XWing::reference().keygen(&random(rng)).to_vec() } else { mlkem_keys(rng).0 };
            ("pqh_with_randomness3", vec![Arg::Out(build.ciphertext), Arg::Out(build.shared_secret), Arg::In(pk)])
        }
    };
    let args_a = [head(bytes(rng)), outputs.clone()].concat();
    let args_b = [head(bytes(rng)), outputs].concat();
    Ok((wrapper.to_string(), Pair { a: 0, b: 1, args_a, args_b }))
}

/// An ML-KEM-768 key pair of the reference from random coins: (encapsulation key, decapsulation key).
fn mlkem_keys(rng: &mut ChaCha20Rng) -> (Vec<u8>, Vec<u8>) {
    MlKem::reference(ML_KEM_768).keygen_internal(&random(rng), &random(rng))
}

/// `sk` with its secret parts replaced: s (the first 384 k bytes, ByteEncode_12 of canonical coefficients) and z
/// (the last 32 bytes); the encapsulation key and its hash stay.
fn other_secret(sk: &[u8], rng: &mut ChaCha20Rng) -> Vec<u8> {
    let mut other = sk.to_vec();
    let s_bytes = 384 * ML_KEM_768.k;
    for pair in other[..s_bytes].chunks_exact_mut(3) {
        let (x, y): (u32, u32) = (rng.gen_range(0..3329), rng.gen_range(0..3329));
        let packed = x | y << 12;
        pair.copy_from_slice(&packed.to_le_bytes()[..3]);
    }
    let len = other.len();
    other[len - 32..].copy_from_slice(&random::<32>(rng));
    other
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line is placed whether the build names its file directly or through another directory and `..`.
    #[test]
    fn a_source_line_is_placed_through_dot_dot() {
        assert_eq!(KEM_SOURCE.line_of("kernels/arm/mlkem768/kem.c:69"), Some(69));
        assert_eq!(KEM_SOURCE.line_of("kernels/arm/mlkem768_mve/../mlkem768/kem.c:69"), Some(69));
        assert_eq!(KEM_SOURCE.line_of("kernels/arm/mlkem768_mve/kem.c:69"), None);
        assert_eq!(KEM_SOURCE.line_of("../kernels/arm/mlkem768/kem.c:69"), None);
        assert_eq!(KEM_SOURCE.line_of("kernels/arm/mlkem768/kem.c"), None);
    }
}
