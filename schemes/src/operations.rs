//! The kernel part of whole operations in estimated cycles (`pqhelium cycles --operation`): an operation runs with
//! its kernels as object code on a profiled QEMU guest of the core's image, its result checked against the known
//! answers; each kernel's calls are timed from their added-up block profile. What runs on the host (Keccak, the
//! samplers, the integer parts of FN-DSA signing, encodings between kernels) is not counted: a kernel part is a lower
//! bound of the operation on a board, and a comparison of kernel parts compares the kernels only.

use std::collections::BTreeMap;

use anyhow::{Context, Result, bail};
use pqhelium_core::fndsa::keygen::FxpReference;
use pqhelium_core::fndsa::{self, HashId, fpu, ntt};
use pqhelium_core::keccak::{self, ReferencePermutation, Shake128};
use pqhelium_core::x25519::{self, BASE_POINT, FieldArithmetic};
use pqhelium_core::xwing::XWing;
use pqhelium_sim::x25519_fe::Fe;
use sha2::{Digest, Sha256};

use crate::kat::{self, Fields};
use crate::providers::fndsa_fpu::EmulatedFpu;
use crate::providers::fndsa_keygen::FxpProvider;
use crate::providers::mlkem::MlkemProvider;
use crate::providers::x25519::X25519Provider;
use crate::providers::{Build, Engine, Guest, Profiles, SymbolProfile};
use pqhelium_analyses::cycles::{self, Timing};
use pqhelium_families::{self as registry, fndsa_verify};
use pqhelium_guest::backend::{Arg, Image};

/// The operations `pqhelium cycles --operation` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scheme {
    /// X-Wing key generation, encapsulation, decapsulation with a cached expanded key and from the seed (the three
    /// draft-10 vectors): the design's optimised kernels against the portable C baselines.
    Xwing,
    /// FN-DSA signing (key decoding and signing of the signature KAT): native FP64 kernels against soft-float.
    FndsaSign,
    /// FN-DSA key generation (the key generation KAT): the fixed-point kernels, MVE against portable C.
    FndsaKeygen,
    /// FN-DSA verification of four KAT signatures: four single verifications and one batch of four, MVE and
    /// portable builds.
    FndsaVerify,
}

impl Scheme {
    /// The name `--operation` takes.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Xwing => "xwing",
            Scheme::FndsaSign => "fndsa-sign",
            Scheme::FndsaKeygen => "fndsa-keygen",
            Scheme::FndsaVerify => "fndsa-verify",
        }
    }
}

/// One kernel's calls in the operations of an [`OperationPart`], added up.
#[derive(Debug, Clone)]
pub struct KernelPart {
    pub symbol: &'static str,
    pub calls: u64,
    /// Executed instructions of all the calls (the harness's count; the block profile's is checked equal).
    pub instructions: u64,
    pub cycles: f64,
    /// The cycles by instruction class (`super::Class::ALL`).
    pub by_class: cycles::model::ByClass,
}

/// The kernel part of `operations` runs of one operation with one set of kernels.
#[derive(Debug, Clone)]
pub struct OperationPart {
    pub operation: String,
    /// Which kernels: "optimised", "baseline", "native FP64", ...
    pub variant: String,
    pub operations: u64,
    pub kernels: Vec<KernelPart>,
}

impl OperationPart {
    /// Instructions per operation.
    pub fn instructions(&self) -> f64 {
        self.kernels.iter().map(|k| k.instructions as f64).sum::<f64>() / self.operations as f64
    }

    /// Estimated cycles per operation.
    pub fn cycles(&self) -> f64 {
        self.kernels.iter().map(|k| k.cycles).sum::<f64>() / self.operations as f64
    }

    /// Estimated cycles per operation by instruction class.
    pub fn by_class(&self) -> cycles::model::ByClass {
        let mut total = [0.0; 5];
        for kernel in &self.kernels {
            for (t, c) in total.iter_mut().zip(kernel.by_class) {
                *t += c / self.operations as f64;
            }
        }
        total
    }
}

/// Kernel calls of several runs of an operation, per symbol.
#[derive(Default)]
struct Collected {
    operations: u64,
    symbols: BTreeMap<&'static str, SymbolProfile>,
}

impl Collected {
    /// One more operation: what `sources` recorded since they were last taken.
    fn add(&mut self, sources: &[&Profiles]) {
        self.operations += 1;
        for source in sources {
            for (symbol, profile) in source.take() {
                let entry = self.symbols.entry(symbol).or_default();
                entry.calls += profile.calls;
                entry.instructions += profile.instructions;
                entry.blocks.add(&profile.blocks.profile());
            }
        }
    }

    fn estimate(self, timing: &mut Timing, operation: &str, variant: &str) -> Result<OperationPart> {
        if self.operations == 0 {
            bail!("{operation} ({variant}): no operation ran");
        }
        let mut kernels = Vec::new();
        for (symbol, profile) in self.symbols {
            let blocks = profile.blocks.profile();
            if blocks.instructions() != profile.instructions {
                bail!("{symbol}: {} instructions profiled, {} counted", blocks.instructions(), profile.instructions);
            }
            let estimate = timing.estimate(&blocks, profile.calls).with_context(|| symbol.to_string())?;
            kernels.push(KernelPart {
                symbol,
                calls: profile.calls,
                instructions: profile.instructions,
                cycles: estimate.cycles * profile.calls as f64,
                by_class: estimate.by_class.map(|c| c * profile.calls as f64),
            });
        }
        Ok(OperationPart { operation: operation.into(), variant: variant.into(), operations: self.operations, kernels })
    }
}

/// How many known answers each operation runs: `vectors` X-Wing vectors (at most 3), signatures, keys and batches
/// per degree.
pub fn run(timing: &mut Timing, scheme: Scheme, vectors: u32) -> Result<Vec<OperationPart>> {
    let image = Image::of(timing.core);
    match scheme {
        Scheme::Xwing => xwing(timing, image, vectors),
        Scheme::FndsaSign => fndsa_sign(timing, image, vectors),
        Scheme::FndsaKeygen => fndsa_keygen(timing, image, vectors),
        Scheme::FndsaVerify => fndsa_verify(timing, image),
    }
}

/// The X25519 side of X-Wing as the X-Wing-on-M85 design runs it, on the X25519 kernels. Optimised: key generation
/// by the fixed-base table (`x25519.base`), encapsulation's two scalar multiplications by ladder steps with the MVE
/// swap and one paired inversion (`x25519.inv2`), decapsulation's by ladder steps with the MVE swap. Baseline: every
/// scalar multiplication the portable C ladder (`x25519.scalarmult`, its own swap and inversion).
struct DesignField<'a> {
    field: &'a X25519Provider,
    optimised: bool,
}

impl FieldArithmetic for DesignField<'_> {
    type Element = Fe;

    fn decode(&self, bytes: &[u8; 32]) -> Fe {
        self.field.decode(bytes)
    }
    fn encode(&self, a: &Fe) -> [u8; 32] {
        self.field.encode(a)
    }
    fn add(&self, a: &Fe, b: &Fe) -> Fe {
        self.field.add(a, b)
    }
    fn sub(&self, a: &Fe, b: &Fe) -> Fe {
        self.field.sub(a, b)
    }
    fn mul(&self, a: &Fe, b: &Fe) -> Fe {
        self.field.mul(a, b)
    }
    fn sqr(&self, a: &Fe) -> Fe {
        self.field.sqr(a)
    }
    fn mul_small(&self, a: &Fe, factor: u32) -> Fe {
        self.field.mul_small(a, factor)
    }
    fn cswap(&self, swap: u64, a: &mut Fe, b: &mut Fe) {
        self.field.cswap(swap, a, b)
    }
    fn invert(&self, a: &Fe) -> Fe {
        self.field.invert(a)
    }
    fn ladder_step(&self, state: &mut [Fe; 4], x1: &Fe) {
        self.field.ladder_step(state, x1)
    }
    fn invert_pair(&self, d1: &Fe, d2: &Fe) -> (Fe, Fe) {
        self.field.invert_pair(d1, d2)
    }
    fn scalarmult(&self, k: &[u8; 32], u: &[u8; 32]) -> [u8; 32] {
        match self.optimised {
            true => x25519::x25519_by_ladder(self, k, u),
            false => self.field.scalarmult(k, u),
        }
    }
    fn scalarmult_base(&self, k: &[u8; 32]) -> [u8; 32] {
        match self.optimised {
            true => self.field.scalarmult_base(k),
            false => self.field.scalarmult(k, &BASE_POINT),
        }
    }
    fn scalarmult_base_and_shared(&self, k: &[u8; 32], u: &[u8; 32]) -> ([u8; 32], [u8; 32]) {
        match self.optimised {
            true => x25519::x25519_pair_by_ladder(self, k, u),
            false => (self.field.scalarmult(k, &BASE_POINT), self.field.scalarmult(k, u)),
        }
    }
}

/// The X-Wing operations, in the order of the table.
pub const XWING_OPERATIONS: [&str; 4] =
    ["key generation", "encapsulation", "decapsulation, cached expanded key", "decapsulation from the seed"];

/// X-Wing's four operations on the draft-10 vectors, optimised and baseline kernels.
fn xwing(timing: &mut Timing, image: Image, vectors: u32) -> Result<Vec<OperationPart>> {
    let entries: Vec<Fields> = kat::scheme_entries("xwing")
        .take(vectors.clamp(1, 3) as usize)
        .map(|(name, f)| f.map_err(|e| anyhow::anyhow!("xwing {name}: {e}")))
        .collect::<Result<_>>()?;
    let mut parts = Vec::new();
    for (variant, build) in [("optimised", Build::Mve), ("baseline", Build::Scalar)] {
        let (engine, mlkem_profiles) = Engine::open_profiled(image)?;
        let kernels = MlkemProvider::new(build, engine);
        let (engine, x25519_profiles) = Engine::open_profiled(image)?;
        let field = X25519Provider::new(build, engine);
        let xwing = XWing::new(&kernels, DesignField { field: &field, optimised: build == Build::Mve });
        let sources = [&mlkem_profiles, &x25519_profiles];
        let mut collected: [Collected; 4] = Default::default();
        let checked = |what: &str, outcome: Result<(), String>| -> Result<()> {
            let kernels_ok = kernels.tally().check().and(field.tally().check());
            kernels_ok.and(outcome).map_err(|e| anyhow::anyhow!("X-Wing {what} ({variant}) on {image}: {e}"))
        };
        for f in &entries {
            let index = f.get("index").map_err(anyhow::Error::msg)?.first().copied().unwrap_or(0);
            let mut stream = Shake128::new();
            let (mut seed, mut eseed) = ([0u8; 32], [0u8; 64]);
            for _ in 0..=index {
                stream.squeeze(&mut seed);
                stream.squeeze(&mut eseed);
            }
            let pk = xwing.keygen(&seed);
            checked("key generation", f.expect("pk_sha256", &Sha256::digest(pk)))?;
            collected[0].add(&sources);
            let (ss, ct) = xwing.encaps(&pk, &eseed).map_err(|e| anyhow::anyhow!("{e}"))?;
            checked("encapsulation", f.expect("ss", &ss).and(f.expect("ct_sha256", &Sha256::digest(ct))))?;
            collected[1].add(&sources);
            let key = xwing.expand_key(&seed);
            sources.iter().for_each(|s| drop(s.take())); // the expansion belongs to key generation
            let warm = xwing.decaps_expanded(&key, &ct).map_err(|e| anyhow::anyhow!("{e}"))?;
            checked("decapsulation", f.expect("ss", &warm))?;
            collected[2].add(&sources);
            let cold = xwing.decaps(&seed, &ct).map_err(|e| anyhow::anyhow!("{e}"))?;
            checked("decapsulation", f.expect("ss", &cold))?;
            collected[3].add(&sources);
        }
        for (operation, collected) in XWING_OPERATIONS.iter().zip(collected) {
            parts.push(collected.estimate(timing, &format!("X-Wing {operation}"), variant)?);
        }
    }
    Ok(parts)
}

/// The degrees the FN-DSA operations run at.
const FNDSA_LOGNS: [u8; 2] = [9, 10];

/// FN-DSA signature KAT entries j < `signatures` at logn 9 and 10 with the native and the soft-float FP64 kernels
/// (key decoding and signing; key generation, the NTTs and Keccak on the reference).
fn fndsa_sign(timing: &mut Timing, image: Image, signatures: u32) -> Result<Vec<OperationPart>> {
    let mut parts = Vec::new();
    for logn in FNDSA_LOGNS {
        for (variant, emu) in [("native FP64", false), ("soft-float", true)] {
            let (guest, profiles) = Guest::open_profiled(image)?;
            let mut kernels = kat::FndsaKernels {
                ntt: ntt::Reference,
                fpu: EmulatedFpu::on(guest, emu),
                fxp: FxpReference,
                keccak: ReferencePermutation,
            };
            let mut collected = Collected::default();
            for (name, f) in kat::scheme_entries("fndsa") {
                let f = f.map_err(|e| anyhow::anyhow!("fndsa {name}: {e}"))?;
                let (entry_logn, j) = (f.array::<1>("logn").map_err(anyhow::Error::msg)?[0], f.array::<1>("j"));
                if entry_logn != logn || j.map_err(anyhow::Error::msg)?[0] as u32 >= signatures {
                    continue;
                }
                let outcome = kat::check_fndsa(&f, &mut kernels).and(kernels.fpu.check());
                outcome.map_err(|e| anyhow::anyhow!("FN-DSA signature KAT {name} ({variant}) on {image}: {e}"))?;
                collected.add(&[&profiles]);
            }
            let operation = format!("FN-DSA-{} signing", 1 << logn);
            parts.push(collected.estimate(timing, &operation, variant)?);
        }
    }
    Ok(parts)
}

/// FN-DSA key generation KAT entries "test0" .. at logn 9 and 10, with the MVE and the portable fixed-point
/// kernels (the NTTs and Keccak on the reference).
fn fndsa_keygen(timing: &mut Timing, image: Image, keys: u32) -> Result<Vec<OperationPart>> {
    let seeds: Vec<Vec<u8>> = (0..keys.max(1)).map(|i| format!("test{i}").into_bytes()).collect();
    let mut parts = Vec::new();
    for logn in FNDSA_LOGNS {
        for (variant, build) in [("MVE", Build::Mve), ("portable", Build::Scalar)] {
            let (engine, profiles) = Engine::open_profiled(image)?;
            let mut kernels = fndsa::Kernels {
                ntt: ntt::Reference,
                fpu: fpu::Reference,
                fxp: FxpProvider::new(build, engine),
                keccak: ReferencePermutation,
            };
            let mut collected = Collected::default();
            for (name, f) in kat::scheme_entries("fndsa-keygen") {
                let f = f.map_err(|e| anyhow::anyhow!("fndsa-keygen {name}: {e}"))?;
                let entry_logn = f.array::<1>("logn").map_err(anyhow::Error::msg)?[0];
                if entry_logn != logn || !seeds.iter().any(|s| f.get("seed").is_ok_and(|seed| seed == s)) {
                    continue;
                }
                let outcome = kat::check_fndsa_keygen(&f, &mut kernels).and(kernels.fxp.tally().check());
                outcome.map_err(|e| anyhow::anyhow!("FN-DSA key generation KAT {name} ({variant}) on {image}: {e}"))?;
                collected.add(&[&profiles]);
            }
            parts.push(collected.estimate(timing, &format!("FN-DSA-{} key generation", 1 << logn), variant)?);
        }
    }
    Ok(parts)
}

/// Four signatures of the signature KAT (entries j = 0 .. 3) at logn 9 and 10 verified on the guest, four single
/// verifications and one batch of four, by the MVE and the portable build. Everything of a verification runs on
/// the guest (decoding, SHAKE256, the NTT product, the norm check): this kernel part is the whole verification.
fn fndsa_verify(timing: &mut Timing, image: Image) -> Result<Vec<OperationPart>> {
    let mut parts = Vec::new();
    for logn in FNDSA_LOGNS {
        let requests: Vec<fndsa_verify::Request> =
            (0..fndsa_verify::BATCH as u8).map(|j| kat_request(logn, j)).collect::<Result<_>>()?;
        for (variant, suffix) in [("MVE", ""), ("portable", ".scalar")] {
            let single = registry::find(&format!("fndsa.verify{suffix}")).context("fndsa.verify is registered")?;
            let batch = registry::find(&format!("fndsa.verify.batch4{suffix}")).context("batch4 is registered")?;
            let (mut guest, profiles) = Guest::open_profiled(image)?;
            let mut singles = Collected::default();
            for request in &requests {
                let bytes = request.framed();
                let len = bytes.len() as u32;
                let out = guest.call(single.symbol, u32::from(logn), vec![Arg::In(bytes), Arg::U32(len)]);
                if out.as_ref().map(|o| o.r0) != Some(1) {
                    bail!("{} rejected a signature KAT entry at logn {logn}: {:?}", single.id, guest.tally().check());
                }
                singles.add(&[&profiles]);
            }
            let bytes: Vec<u8> = requests.iter().flat_map(fndsa_verify::Request::framed).collect();
            let len = bytes.len() as u32;
            let args = vec![Arg::Out(fndsa_verify::BATCH), Arg::In(bytes), Arg::U32(len), Arg::U32(u32::from(logn))];
            let out = guest.call(batch.symbol, u32::from(logn), args);
            if out.as_ref().map(|o| o.buffers[0].clone()) != Some(vec![1; fndsa_verify::BATCH]) {
                bail!("{} rejected signature KAT entries at logn {logn}: {:?}", batch.id, guest.tally().check());
            }
            let mut batched = Collected::default();
            batched.add(&[&profiles]);
            let n = 1 << logn;
            parts.push(singles.estimate(timing, &format!("FN-DSA-{n} verification, one"), variant)?);
            parts.push(batched.estimate(timing, &format!("FN-DSA-{n} verification, batch of four"), variant)?);
        }
    }
    Ok(parts)
}

/// The signature KAT entry (logn, j) as a verification request: the keys and signature of [`kat::fndsa_kat_entry`]
/// by the reference, checked against the KAT value.
fn kat_request(logn: u8, j: u8) -> Result<fndsa_verify::Request> {
    let mut seeds = [0u8; 72];
    keccak::shake256(&[logn, j, 0, 0, 0], &mut seeds);
    let (seed_kgen, seed_sign) = seeds.split_at(32);
    let mut kernels = fndsa::ReferenceKernels::default();
    let (sk, vk) = fndsa::keygen(&mut kernels, u32::from(logn), seed_kgen.try_into().expect("32 bytes"))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let key = fndsa::SigningKey::decode_with(&mut kernels, &sk).map_err(|e| anyhow::anyhow!("{e}"))?;
    let message = b"message".to_vec();
    let (id, hv) =
        if j % 2 == 1 { (HashId::SHA3_256, keccak::sha3_256(&message).to_vec()) } else { (HashId::RAW, message) };
    let sig = key
        .sign(&mut kernels, seed_sign.try_into().expect("40 bytes"), b"domain", id, &hv)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let value = keccak::sha3_256(&[sk, vk.clone(), sig.clone()].concat());
    let entry = kat::scheme_entries("fndsa")
        .filter_map(|(_, f)| f.ok())
        .find(|f| f.get("logn").is_ok_and(|l| l == [logn]) && f.get("j").is_ok_and(|v| v == [j]))
        .with_context(|| format!("no signature KAT entry logn {logn} j {j}"))?;
    entry.expect("value", &value).map_err(anyhow::Error::msg)?;
    Ok(fndsa_verify::Request { vk, sig, ctx: b"domain".to_vec(), id: id.0.to_vec(), hv })
}
