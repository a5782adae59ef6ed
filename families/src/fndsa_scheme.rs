//! Host-only contract of the whole FN-DSA v0.4 scheme: our key generation, signing and verification
//! (`pqhelium-core`, the "model") against the oracle crate `fn-dsa` 0.4.0 (the "reference"), from random seeds.
//!
//! Inputs: [logn, hash mode], the 32-byte key-generation seed, the 40-byte signing randomness (exactly what the
//! crate reads from its RNG), a context, a message and a mutation (byte index, bit). Outputs, on both sides:
//! [signing key, verifying key, signature, verdicts], the verdicts being whether each side's verifier accepts the
//! honest signature, the signature with one bit flipped, and the signature under another context.

use fn_dsa::{
    DomainContext, HashIdentifier, KeyPairGenerator, KeyPairGeneratorStandard, KeyPairGeneratorWeak, SigningKey as _,
    SigningKeyStandard, SigningKeyWeak, VerifyingKey as _, VerifyingKeyStandard, VerifyingKeyWeak, sign_key_size,
    signature_size, vrfy_key_size,
};
use pqhelium_core::fndsa::{self, HashId, ReferenceKernels, SigningKey, VerifyingKey};
use pqhelium_core::keccak;
use rand::Rng;

use super::{
    ArgSpec, Bound, CaseRng, Contract, Description, Elem, Images, Kernel, Len, Outcome, RunReference, Ways, buffer,
};
use pqhelium_guest::backend::Arg;

/// Hash modes of the signed message: the message itself, its SHA3-256 pre-hash, or 64 bytes given as mu.
const RAW: u8 = 0;
const SHA3_256: u8 = 1;
const EXTERNAL_MU: u8 = 2;

/// logn 9 with all-zero inputs and logn 10 with all-ones inputs.
const EDGE_CASES: u64 = 2;

/// The degrees the crate supports.
const LOGN: std::ops::RangeInclusive<u8> = 2..=10;
/// The longest context and message the generator makes.
const CONTEXT_MAX: usize = 255;
const MESSAGE_MAX: usize = 200;

pub(super) fn kernels() -> Vec<Kernel> {
    vec![Kernel::new(FndsaScheme)]
}

struct FndsaScheme;

impl Contract for FndsaScheme {
    /// The six input buffers, in order.
    type Input = Vec<Vec<u8>>;

    fn describe(&self) -> Description {
        let input = |name, len, secret: bool| {
            let arg = ArgSpec::input(name, Elem::U8, len, Bound::Any).repr("bytes");
            if secret { arg.secret() } else { arg }
        };
        let result = |name, len: usize, repr| ArgSpec::output(name, Elem::U8, Len::UpTo(len), Bound::Any).repr(repr);
        Description {
            id: "fndsa.scheme",
            symbol: "",
            images: Images::HostOnly,
            summary: "FN-DSA v0.4 keygen, sign and verify (logn 2..10): pqhelium-core vs the fn-dsa 0.4.0 crate".into(),
            computes: "keygen(logn, kseed); sign(sk, sseed, ctx, mode, msg); verify(sig), verify(sig with one bit \
                       flipped), verify(sig, another ctx): [sk, vk, sig, the three verdicts] equal to the fn-dsa \
                       crate's"
                .into(),
            requires: format!(
                "params = [logn in {}..={}, hash mode {RAW} raw / {SHA3_256} SHA3-256 / {EXTERNAL_MU} external mu]",
                LOGN.start(),
                LOGN.end()
            ),
            edge_cases: EDGE_CASES,
            args: vec![
                ArgSpec::input("params", Elem::U8, Len::Fixed(2), Bound::Range { lo: 0, hi: i64::from(*LOGN.end()) })
                    .repr("logn, hash mode"),
                input("kseed", Len::Fixed(32), true),
                input("sseed", Len::Fixed(40), true),
                input("ctx", Len::UpTo(CONTEXT_MAX), false),
                input("msg", Len::UpTo(MESSAGE_MAX), false),
                input("mutation", Len::Fixed(3), false).repr("byte index (u16 LE), bit"),
            ],
            returns: None,
            results: vec![
                result("sk", sign_key_size(10), "fndsa-signing-key").secret(),
                result("vk", vrfy_key_size(10), "fndsa-verifying-key"),
                result("sig", signature_size(10), "fndsa-signature"),
                ArgSpec::output("verdicts", Elem::U8, Len::Fixed(3), Bound::Range { lo: 0, hi: 1 })
                    .repr("accepted: honest, flipped, other context"),
            ],
        }
    }

    fn generate(&self, case: u64, rng: &mut CaseRng) -> Vec<Vec<u8>> {
        generate(case, rng)
    }

    fn encode(&self, buffers: &Vec<Vec<u8>>) -> Vec<Arg> {
        buffers.iter().map(|b| Arg::In(b.clone())).collect()
    }

    fn decode(&self, args: &[Arg]) -> Vec<Vec<u8>> {
        args.iter().map(|a| buffer(a).to_vec()).collect()
    }

    /// The fn-dsa 0.4.0 crate.
    fn reference(&self, buffers: &Vec<Vec<u8>>, _: RunReference) -> Outcome {
        oracle(buffers)
    }

    fn ways(&self) -> Ways<Self> {
        Ways::Three { model: |_, buffers| ours(buffers), canon: |_, o| o.clone() }
    }

    fn precondition(&self, buffers: &Vec<Vec<u8>>) -> Result<(), String> {
        let [logn, mode] = buffers[0][..] else { unreachable!("the contract checked the length") };
        if LOGN.contains(&logn) && mode <= EXTERNAL_MU {
            Ok(())
        } else {
            Err(format!("params = [{logn}, {mode}]: logn in {}..={}, mode 0..=2", LOGN.start(), LOGN.end()))
        }
    }
}

fn generate(case: u64, rng: &mut CaseRng) -> Vec<Vec<u8>> {
    let constant = |byte: u8, len: usize| vec![byte; len];
    match case {
        0 => vec![vec![9, RAW], constant(0, 32), constant(0, 40), constant(0, 0), constant(0, 0), constant(0, 3)],
        1 => vec![
            vec![10, SHA3_256],
            constant(0xFF, 32),
            constant(0xFF, 40),
            constant(0xFF, CONTEXT_MAX),
            constant(0xFF, MESSAGE_MAX),
            constant(0xFF, 3),
        ],
        _ => {
            // The standard degrees most of the time, every smaller one now and then.
            let logn = match rng.gen_range(0..10) {
                0..4 => 9,
                4..8 => 10,
                _ => rng.gen_range(2..=8),
            };
            let mode = rng.gen_range(RAW..=EXTERNAL_MU);
            let ctx_len = if rng.gen_ratio(1, 20) { CONTEXT_MAX } else { rng.gen_range(0..=32) };
            let msg_len = rng.gen_range(0..=MESSAGE_MAX);
            let mut bytes = |len: usize| -> Vec<u8> { (0..len).map(|_| rng.r#gen()).collect() };
            vec![vec![logn, mode], bytes(32), bytes(40), bytes(ctx_len), bytes(msg_len), bytes(3)]
        }
    }
}

/// The decoded inputs of one case.
struct Case<'a> {
    logn: u32,
    mode: u8,
    kseed: [u8; 32],
    sseed: [u8; 40],
    ctx: &'a [u8],
    msg: &'a [u8],
    /// Byte index (modulo the signature size) and bit to flip.
    flip: (usize, u8),
}

impl<'a> Case<'a> {
    fn parse(buffers: &'a [Vec<u8>]) -> Self {
        let (params, mutation) = (&buffers[0], &buffers[5]);
        Case {
            logn: u32::from(params[0]),
            mode: params[1],
            kseed: buffers[1][..].try_into().expect("32-byte seed"),
            sseed: buffers[2][..].try_into().expect("40-byte randomness"),
            ctx: &buffers[3],
            msg: &buffers[4],
            flip: (usize::from(u16::from_le_bytes([mutation[0], mutation[1]])), mutation[2] & 7),
        }
    }

    /// The hash identifier and the hashed value the signer receives.
    fn hashed(&self) -> (HashId<'static>, Vec<u8>) {
        match self.mode {
            RAW => (HashId::RAW, self.msg.to_vec()),
            SHA3_256 => (HashId::SHA3_256, keccak::sha3_256(self.msg).to_vec()),
            _ => (HashId::EXTERNAL_MU, keccak::sha3_512(self.msg).to_vec()),
        }
    }

    fn mutated(&self, sig: &[u8]) -> Vec<u8> {
        let mut bad = sig.to_vec();
        if !bad.is_empty() {
            let i = self.flip.0 % bad.len();
            bad[i] ^= 1 << self.flip.1;
        }
        bad
    }

    /// Another context (for external mu the context plays no part, and both sides must agree on that too).
    fn other_ctx(&self) -> Vec<u8> {
        let mut other = self.ctx.to_vec();
        match other.first_mut() {
            Some(b) => *b ^= 1,
            None => other.push(0),
        }
        other
    }
}

fn outcome(sk: Vec<u8>, vk: Vec<u8>, sig: Vec<u8>, verdicts: [bool; 3]) -> Outcome {
    Outcome { buffers: vec![sk, vk, sig, verdicts.map(u8::from).to_vec()], ret: None }
}

fn refused(error: impl std::fmt::Display) -> Outcome {
    Outcome { buffers: vec![format!("error: {error}").into_bytes()], ret: None }
}

fn ours(buffers: &[Vec<u8>]) -> Outcome {
    let case = Case::parse(buffers);
    let (id, hv) = case.hashed();
    let run = || {
        let mut kernels = ReferenceKernels::default();
        let (sk, vk) = fndsa::keygen(&mut kernels, case.logn, &case.kseed)?;
        let key = SigningKey::decode_with(&mut kernels, &sk)?;
        let sig = key.sign(&mut kernels, &case.sseed, case.ctx, id, &hv)?;
        let verifier = VerifyingKey::decode(&vk)?;
        let verify = |sig: &[u8], ctx: &[u8]| verifier.verify(&mut fndsa::Reference, sig, ctx, id, &hv).is_ok();
        let verdicts = [verify(&sig, case.ctx), verify(&case.mutated(&sig), case.ctx), verify(&sig, &case.other_ctx())];
        Ok::<_, fndsa::Error>(outcome(sk, vk, sig, verdicts))
    };
    run().unwrap_or_else(refused)
}

/// Hands the crate exactly the bytes it asks for, once.
pub struct Replay<'a>(pub &'a [u8]);

impl fn_dsa::RngCore for Replay<'_> {
    fn next_u32(&mut self) -> u32 {
        unreachable!("fn-dsa reads its randomness as bytes")
    }
    fn next_u64(&mut self) -> u64 {
        unreachable!("fn-dsa reads its randomness as bytes")
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        assert_eq!(dest.len(), self.0.len(), "fn-dsa read {} random bytes, {} were prepared", dest.len(), self.0.len());
        dest.copy_from_slice(self.0);
        self.0 = &[];
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), fn_dsa::RngError> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl fn_dsa::CryptoRng for Replay<'_> {}

fn oracle(buffers: &[Vec<u8>]) -> Outcome {
    let case = Case::parse(buffers);
    let (id, hv) = case.hashed();
    let logn = case.logn;
    let (mut sk, mut vk, mut sig) =
        (vec![0; sign_key_size(logn)], vec![0; vrfy_key_size(logn)], vec![0; signature_size(logn)]);
    let (dctx, hid) = (DomainContext(case.ctx), HashIdentifier(id.0));
    // The crate splits its API by degree: "standard" for logn 9 and 10, "weak" below.
    let signed = if logn >= 9 {
        KeyPairGeneratorStandard::default().keygen(logn, &mut Replay(&case.kseed), &mut sk, &mut vk);
        SigningKeyStandard::decode(&sk).map(|mut k| k.sign(&mut Replay(&case.sseed), &dctx, &hid, &hv, &mut sig))
    } else {
        KeyPairGeneratorWeak::default().keygen(logn, &mut Replay(&case.kseed), &mut sk, &mut vk);
        SigningKeyWeak::decode(&sk).map(|mut k| k.sign(&mut Replay(&case.sseed), &dctx, &hid, &hv, &mut sig))
    };
    match signed {
        Some(Some(())) => {}
        Some(None) => return refused("the crate failed to sign"),
        None => return refused("the crate refuses its own signing key"),
    }
    let verify = |sig: &[u8], ctx: &[u8]| {
        let ctx = DomainContext(ctx);
        if logn >= 9 {
            VerifyingKeyStandard::decode(&vk).is_some_and(|k| k.verify(sig, &ctx, &hid, &hv))
        } else {
            VerifyingKeyWeak::decode(&vk).is_some_and(|k| k.verify(sig, &ctx, &hid, &hv))
        }
    };
    let verdicts = [verify(&sig, case.ctx), verify(&case.mutated(&sig), case.ctx), verify(&sig, &case.other_ctx())];
    outcome(sk, vk, sig, verdicts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case_rng;
    use crate::check_model;

    #[test]
    fn edge_and_random_cases_agree_with_the_crate() {
        let kernel = Kernel::new(FndsaScheme);
        for case in 0..12 {
            let args = kernel.generate(case, &mut case_rng(7, case));
            let (outcome, failure) = check_model(&kernel, &args);
            assert!(failure.is_none(), "case {case}: {failure:?}");
            // The honest signature verifies, the flipped one and the one under another context do not (except
            // under external mu, where the context is not part of the signed value).
            let mode = Case::parse(&FndsaScheme.decode(&args)).mode;
            assert_eq!(outcome.buffers[3], [1, 0, u8::from(mode == EXTERNAL_MU)], "case {case}");
        }
    }

    #[test]
    fn a_wrong_signer_is_caught() {
        let kernel = crate::variant("fndsa.scheme", |k| {
            k.model = Some(|args| {
                let mut o = ours(&FndsaScheme.decode(args));
                o.buffers[2][41] ^= 1;
                o
            })
        });
        let args = kernel.generate(0, &mut case_rng(7, 0));
        assert!(check_model(kernel, &args).1.is_some());
    }

    /// Parameters outside the scheme's domain are refused before anything runs.
    #[test]
    fn parameters_outside_the_domain_are_refused() {
        let kernel = Kernel::new(FndsaScheme);
        let mut args = kernel.generate(0, &mut case_rng(7, 0));
        args[0] = Arg::In(vec![11, RAW]);
        assert!(kernel.evaluate(&args).unwrap_err().to_string().contains("params = [11, 0]"));
        args[0] = Arg::In(vec![9, 3]);
        assert!(kernel.evaluate(&args).is_err());
    }
}
