//! FN-DSA-512 and -1024 whole on the guest, in two builds: a signature known answer (`vectors/fndsa.kat`) run end to
//! end by the object code, key generation from the entry's seed (`fndsa.keygen.pair*`), signing its message
//! (`fndsa.sign*`), verifying the signature alone (`fndsa.verify*`) and in a batch of four with two altered requests
//! (`fndsa.verify.batch4*`), each with the stack painted before it and scanned after it. The host only frames the
//! requests; its reference and the published value check the results. And the same builds through the pqm4
//! signature API (`kernels/arm/fndsa_pqm4/`), run by the NIST signature KAT procedure ([`run_pqm4_entry`]).

use pqhelium_core::fndsa::codec;
use pqhelium_core::keccak;
use pqhelium_families::fndsa_sign::{self, kat_keygen_seed, kat_message, kat_randomness};
use pqhelium_families::fndsa_verify::Request as VerifyRequest;
use pqhelium_families::{self as registry};
use pqhelium_guest::backend::{Arg, Backend, Call, CallOutput, Image};

use pqhelium_core::drbg::{NistDrbg, SEED_SIZE};
use pqhelium_core::fndsa::{HashId, ReferenceKernels, SigningKey};

use crate::on_guest::{self, DRBG_STATE_SIZE, SECURITY_STRENGTH, STACK_WINDOW, Size};

/// Time a guest call of a whole operation may take: FN-DSA-1024's portable key generation on unicorn runs up to
/// about 900 million instructions for a seed whose candidates are rejected many times.
pub const CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// One build: the kernels of each operation (registry ids), the images holding all of them and its objects.
#[derive(Debug, Clone, Copy)]
pub struct SignatureBuild {
    /// `portable` or `mve` (`--build`).
    pub build: &'static str,
    pub images: &'static [Image],
    /// The kernels of [`Op::ALL`], in that order.
    pub kernels: [&'static str; 4],
    /// Its objects in an image's kernel archive besides [`SHARED_OBJECTS`]: with them, the build's code and data.
    pub objects: &'static [&'static str],
}

/// The objects both builds use: the scalar NTT (key generation's h, signing's G), the scalar sponge, the key
/// generation's solver with its primes and the portable FFT and divisions (the solver's object holds the portable
/// entry point too, and the MVE FFT hands the smallest degrees to the portable one), the pqm4 API's request buffer.
pub const SHARED_OBJECTS: [&str; 10] = [
    "kernel_fndsa_keygen_keygen_c.o",
    "kernel_fndsa_keygen_keygen_primes_c.o",
    "kernel_fndsa_keygen_fft_q32_gm_c.o",
    "kernel_fndsa_keygen_fft_q32_scalar_c.o",
    "kernel_fndsa_keygen_div_scalar_c.o",
    "kernel_fndsa_ntt_fndsa_ntt_scalar_c.o",
    "kernel_fndsa_ntt_fndsa_ntt_tables_c.o",
    "kernel_scheme_fips202_c.o",
    "kernel_keccak_keccak_f1600_c.o",
    "kernel_fndsa_pqm4_request_c.o",
];

/// The portable build (soft-float signing, portable FFT and bit-by-bit divisions, scalar NTT and Keccak) and the
/// MVE build (native FP64, MVE FFT, VDIV divisions, MVE NTTs and Keccak in verification).
pub const SIGNATURE_BUILDS: [SignatureBuild; 2] = [
    SignatureBuild {
        build: "portable",
        images: &[Image::M55, Image::M85, Image::M7],
        kernels: ["fndsa.keygen.pair.scalar", "fndsa.sign.emu", "fndsa.verify.scalar", "fndsa.verify.batch4.scalar"],
        objects: &[
            "kernel_fndsa_sign_fndsa_sign_emu_c.o",
            "kernel_fndsa_fpu_fft_emu_c.o",
            "kernel_fndsa_fpu_ldl_emu_c.o",
            "kernel_fndsa_fpu_poly_emu_c.o",
            "kernel_fndsa_fpu_sampler_fp_emu_c.o",
            "kernel_fndsa_fpu_softfloat_c.o",
            "kernel_fndsa_fpu_fndsa_fpu_gm_c.o",
            "kernel_fndsa_verify_fndsa_verify_scalar_c.o",
            "kernel_fndsa_pqm4_sign_c.o",
            "kernel_fndsa_pqm4_fndsa1024_portable_c.o",
        ],
    },
    SignatureBuild {
        build: "mve",
        images: &[Image::M55, Image::M85],
        kernels: ["fndsa.keygen.pair", "fndsa.sign", "fndsa.verify", "fndsa.verify.batch4"],
        objects: &[
            "kernel_fndsa_keygen_keygen_mve_mve_c.o",
            "kernel_fndsa_keygen_fft_q32_mve_c.o",
            "kernel_fndsa_keygen_div_c.o",
            "kernel_fndsa_sign_fndsa_sign_c.o",
            "kernel_fndsa_fpu_fft_c.o",
            "kernel_fndsa_fpu_ldl_c.o",
            "kernel_fndsa_fpu_poly_c.o",
            "kernel_fndsa_fpu_sampler_fp_c.o",
            "kernel_fndsa_fpu_fndsa_fpu_gm_c.o",
            "kernel_fndsa_verify_fndsa_verify_mve_c.o",
            "kernel_fndsa_ntt_fndsa_ntt_mve_c.o",
            "kernel_keccak_keccak_x4_mve_c.o",
            "kernel_fndsa_pqm4_fndsa512_mve_mve_c.o",
            "kernel_fndsa_pqm4_fndsa1024_mve_mve_c.o",
        ],
    },
];

impl SignatureBuild {
    pub fn find(build: &str) -> Option<SignatureBuild> {
        SIGNATURE_BUILDS.into_iter().find(|b| b.build == build)
    }

    /// The guest symbol of an operation's kernel.
    pub fn symbol(&self, op: Op) -> &'static str {
        registry::find(self.kernels[op as usize]).map_or("", |k| k.symbol)
    }

    /// Code and data bytes of its objects in `image`'s kernel archive.
    pub fn size(&self, image: Image) -> anyhow::Result<Size> {
        let objects: Vec<&str> = SHARED_OBJECTS.iter().chain(self.objects).copied().collect();
        on_guest::archive_sizes(image, &objects)
    }
}

/// The operations of a known answer, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Keypair,
    Sign,
    Verify,
    VerifyBatch4,
}

impl Op {
    pub const ALL: [Op; 4] = [Op::Keypair, Op::Sign, Op::Verify, Op::VerifyBatch4];

    pub fn name(self) -> &'static str {
        match self {
            Op::Keypair => "keypair",
            Op::Sign => "sign",
            Op::Verify => "verify",
            Op::VerifyBatch4 => "verify x4 (one batch)",
        }
    }
}

/// The scheme's name at a degree (`--scheme`) and the degree of a name.
pub const SCHEMES: [(&str, &str, u32); 2] = [("fndsa512", "FN-DSA-512", 9), ("fndsa1024", "FN-DSA-1024", 10)];

pub fn scheme_name(logn: u32) -> &'static str {
    SCHEMES.iter().find(|s| s.2 == logn).map_or("FN-DSA", |s| s.1)
}

/// One operation on the guest: its call (to run it again, profiled), output, and stack high-water mark.
#[derive(Debug, Clone)]
pub struct OpRun {
    pub call: Call,
    pub output: CallOutput,
    /// Bytes of stack the operation used; [`STACK_WINDOW`] (the whole painted window) or more if `saturated`.
    pub stack: u32,
    pub saturated: bool,
}

/// What the guest produced for one known answer.
#[derive(Debug, Clone)]
pub struct EntryRun {
    pub sk: Vec<u8>,
    pub vk: Vec<u8>,
    pub sig: Vec<u8>,
    /// The verdict on the signature alone.
    pub verified: bool,
    /// The verdicts of the batch: the request, its signature with a bit flipped, the request again, another context.
    pub batch: [bool; 4],
    /// [`Op::ALL`]'s runs.
    pub ops: Vec<OpRun>,
}

/// The batch's expected verdicts.
pub const BATCH_VERDICTS: [bool; 4] = [true, false, true, false];

impl EntryRun {
    /// SHA3-256(sk || vk || sig): the known answer's value.
    pub fn value(&self) -> [u8; 32] {
        keccak::sha3_256(&[self.sk.as_slice(), &self.vk, &self.sig].concat())
    }

    /// Whether the keys and signature are `reference`'s and the verdicts the expected ones.
    pub fn matches(&self, reference: &(Vec<u8>, Vec<u8>, Vec<u8>)) -> bool {
        (&self.sk, &self.vk, &self.sig) == (&reference.0, &reference.1, &reference.2)
            && self.verified
            && self.batch == BATCH_VERDICTS
    }
}

/// Paint the stack, run `call`, scan the stack.
fn run_op(backend: &mut dyn Backend, call: Call) -> Result<OpRun, String> {
    run_painted(backend, None, call, None).map(|(run, _)| run)
}

/// One batch: `before` (if any), paint the stack, `call`, scan the stack, `after` (if any); the call's run and the
/// output of `after`.
fn run_painted(
    backend: &mut dyn Backend,
    before: Option<Call>,
    call: Call,
    after: Option<Call>,
) -> Result<(OpRun, Option<CallOutput>), String> {
    let probes = [Call::new("pqh_stack_paint", vec![Arg::U32(STACK_WINDOW)]), Call::new("pqh_stack_scan", vec![])];
    let first = usize::from(before.is_some());
    let has_after = after.is_some();
    let calls: Vec<Call> =
        before.into_iter().chain([probes[0].clone(), call.clone(), probes[1].clone()]).chain(after).collect();
    let mut results = Vec::new();
    for (c, result) in calls.iter().zip(backend.run_batch(&calls)) {
        results.push(result.map_err(|e| format!("{}: {e}", c.symbol))?);
    }
    let (painted, output, used) = (&results[first], &results[first + 1], &results[first + 2]);
    if painted.r0 > STACK_WINDOW || used.r0 > painted.r0 {
        return Err(format!("stack probe: {} bytes used of {} painted", used.r0, painted.r0));
    }
    let run = OpRun { call, output: output.clone(), stack: used.r0, saturated: used.r0 == painted.r0 };
    Ok((run, has_after.then(|| results[first + 3].clone())))
}

/// Known answer (logn, j) on the guest.
pub fn run_kat_entry(backend: &mut dyn Backend, build: &SignatureBuild, logn: u32, j: u32) -> Result<EntryRun, String> {
    let (sk_len, vk_len) = (codec::signing_key_size(logn), codec::verifying_key_size(logn));
    let seed = kat_keygen_seed(logn, j).to_vec();
    let seed_len = Arg::U32(seed.len() as u32);
    let keygen = Call::new(
        build.symbol(Op::Keypair),
        vec![Arg::Out(sk_len), Arg::Out(vk_len), Arg::In(seed), seed_len, Arg::U32(logn)],
    );
    let keys = run_op(backend, keygen)?;
    if keys.output.r0 != 1 {
        return Err(format!("{}: returned {} (no key)", build.kernels[0], keys.output.r0));
    }
    let (sk, vk) = (keys.output.buffers[0].clone(), keys.output.buffers[1].clone());

    let message = kat_message(j);
    let request =
        fndsa_sign::Request { sk: sk.clone(), randomness: kat_randomness(logn, j).to_vec(), ..message.clone() };
    let framed = request.framed();
    let sig_len = codec::signature_size(logn);
    let framed_len = Arg::U32(framed.len() as u32);
    let signed =
        run_op(backend, Call::new(build.symbol(Op::Sign), vec![Arg::Out(sig_len), Arg::In(framed), framed_len]))?;
    if signed.output.r0 as usize != sig_len {
        return Err(format!("{}: returned {} (no signature)", build.kernels[1], signed.output.r0));
    }
    let sig = signed.output.buffers[0].clone();

    let honest = VerifyRequest { vk: vk.clone(), sig: sig.clone(), ctx: message.ctx, id: message.id, hv: message.hv };
    let framed = honest.framed();
    let framed_len = Arg::U32(framed.len() as u32);
    let verified = run_op(backend, Call::new(build.symbol(Op::Verify), vec![Arg::In(framed), framed_len]))?;
    let mut flipped = honest.clone();
    flipped.sig[sig_len / 2] ^= 0x10;
    let other_context = VerifyRequest { ctx: b"other".to_vec(), ..honest.clone() };
    let batch: Vec<u8> = [&honest, &flipped, &honest, &other_context].iter().flat_map(|r| r.framed()).collect();
    let batch_len = Arg::U32(batch.len() as u32);
    let batch_args = vec![Arg::Out(4), Arg::In(batch), batch_len, Arg::U32(logn)];
    let verdicts = run_op(backend, Call::new(build.symbol(Op::VerifyBatch4), batch_args))?;
    let batch = std::array::from_fn(|i| verdicts.output.buffers[0][i] == 1);
    Ok(EntryRun { sk, vk, sig, verified: verified.output.r0 == 1, batch, ops: vec![keys, signed, verified, verdicts] })
}

/// The host reference's (signing key, verifying key, signature) of known answer (logn, j): core's.
pub fn reference(logn: u32, j: u32) -> Option<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let (keys, request) = fndsa_sign::kat_entry(logn, j);
    let sig = fndsa_sign::sign(&request.framed())?;
    Some((keys.sk, keys.vk, sig))
}

// ---- The pqm4 API: the NIST signature KAT procedure ----

/// The pqm4 signature API's functions a KAT entry runs, in order.
pub const PQM4_OPS: [&str; 3] = ["crypto_sign_keypair", "crypto_sign", "crypto_sign_open"];

/// The inputs of the NIST signature KAT procedure (`PQCgenKAT_sign.c`): per count, the 48-byte seed and the
/// message of 33 (count + 1) bytes, both drawn from the master DRBG seeded with 0, 1, ..., 47.
pub fn nist_sign_inputs(entries: usize) -> Vec<([u8; SEED_SIZE], Vec<u8>)> {
    let mut master = NistDrbg::new(&std::array::from_fn(|i| i as u8));
    (0..entries)
        .map(|count| {
            let mut seed = [0u8; SEED_SIZE];
            master.fill(&mut seed);
            let mut message = vec![0u8; 33 * (count + 1)];
            master.fill(&mut message);
            (seed, message)
        })
        .collect()
}

/// A KAT entry's values: public key, secret key, signed message (signature || message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pqm4Values {
    pub pk: Vec<u8>,
    pub sk: Vec<u8>,
    pub sm: Vec<u8>,
}

/// The host reference's values: the DRBG seeded with `seed` gives the key generation's 32 bytes, then the
/// signer's 40; core's key generation and pure signing with an empty context.
pub fn pqm4_reference(logn: u32, seed: &[u8; SEED_SIZE], message: &[u8]) -> Option<Pqm4Values> {
    let mut drbg = NistDrbg::new(seed);
    let (mut key_seed, mut randomness) = ([0u8; 32], [0u8; 40]);
    drbg.fill(&mut key_seed);
    drbg.fill(&mut randomness);
    let mut kernels = ReferenceKernels::default();
    let (sk, pk) = pqhelium_core::fndsa::keygen(&mut kernels, logn, &key_seed).ok()?;
    let key = SigningKey::decode_with(&mut kernels, &sk).ok()?;
    let sig = key.sign(&mut kernels, &randomness, b"", HashId::RAW, message).ok()?;
    Some(Pqm4Values { pk, sk, sm: [sig, message.to_vec()].concat() })
}

/// One entry through the pqm4 API on the guest: the values, the message `crypto_sign_open` gave back, whether it
/// refused the signed message with one byte changed, and the runs of [`PQM4_OPS`].
#[derive(Debug, Clone)]
pub struct Pqm4Run {
    pub values: Pqm4Values,
    pub opened: Option<Vec<u8>>,
    pub forgery_refused: bool,
    pub ops: Vec<OpRun>,
}

/// The API's namespace of a build at a degree (`fndsa512_portable_`, ...).
pub fn pqm4_prefix(build: &SignatureBuild, logn: u32) -> String {
    format!("fndsa{}_{}_", 1u32 << logn, build.build)
}

/// A size_t the guest wrote (little-endian, 4 bytes) and checks it against the buffer it describes.
fn written_len(output: &CallOutput, index: usize, capacity: usize) -> Result<usize, String> {
    let bytes: [u8; 4] = output.buffers[index][..4].try_into().map_err(|_| "a length of 4 bytes".to_string())?;
    let len = u32::from_le_bytes(bytes) as usize;
    if len > capacity {
        return Err(format!("a length of {len} bytes for a buffer of {capacity}"));
    }
    Ok(len)
}

/// The NIST procedure's entry (seed, message) through the pqm4 API of `build` at logn: `randombytes_init(seed)`,
/// `crypto_sign_keypair`, `crypto_sign(message)`, `crypto_sign_open`, then `crypto_sign_open` of the signed message
/// with its middle byte changed. The DRBG's state goes from batch to batch through the host.
pub fn run_pqm4_entry(
    backend: &mut dyn Backend,
    build: &SignatureBuild,
    logn: u32,
    seed: &[u8; SEED_SIZE],
    message: &[u8],
) -> Result<Pqm4Run, String> {
    let prefix = pqm4_prefix(build, logn);
    let (pk_len, sk_len, sig_len) =
        (codec::verifying_key_size(logn), codec::signing_key_size(logn), codec::signature_size(logn));
    let returned = |op: &OpRun, name: &str| match op.output.r0 as i32 {
        0 => Ok(()),
        value => Err(format!("{prefix}{name} returned {value}")),
    };
    let init = Call::new("randombytes_init", vec![Arg::In(seed.to_vec()), Arg::U32(0), Arg::U32(SECURITY_STRENGTH)]);
    let save = || Call::new("pqh_randombytes_save", vec![Arg::Out(DRBG_STATE_SIZE)]);
    let keypair = Call::new(format!("{prefix}crypto_sign_keypair"), vec![Arg::Out(pk_len), Arg::Out(sk_len)]);
    let (keys, saved) = run_painted(backend, Some(init), keypair, Some(save()))?;
    returned(&keys, PQM4_OPS[0])?;
    let (pk, sk) = (keys.output.buffers[0].clone(), keys.output.buffers[1].clone());
    let drbg = saved.expect("the save's output").buffers[0].clone();

    let restore = Call::new("pqh_randombytes_restore", vec![Arg::In(drbg)]);
    let sm_capacity = sig_len + message.len();
    let sign = Call::new(
        format!("{prefix}crypto_sign"),
        vec![
            Arg::Out(sm_capacity),
            Arg::Out(4),
            Arg::In(message.to_vec()),
            Arg::U32(message.len() as u32),
            Arg::In(sk.clone()),
        ],
    );
    let (signed, _) = run_painted(backend, Some(restore), sign, None)?;
    returned(&signed, PQM4_OPS[1])?;
    let sm_len = written_len(&signed.output, 1, sm_capacity)?;
    let sm = signed.output.buffers[0][..sm_len].to_vec();

    let open = |sm: &[u8]| {
        Call::new(
            format!("{prefix}crypto_sign_open"),
            vec![Arg::Out(sm.len()), Arg::Out(4), Arg::In(sm.to_vec()), Arg::U32(sm.len() as u32), Arg::In(pk.clone())],
        )
    };
    let opened = run_op(backend, open(&sm))?;
    let opened_message = match opened.output.r0 {
        0 => Some(opened.output.buffers[0][..written_len(&opened.output, 1, sm.len())?].to_vec()),
        _ => None,
    };
    let mut forged = sm.clone();
    forged[sm.len() / 2] ^= 0x01;
    let refused = run_op(backend, open(&forged))?;
    Ok(Pqm4Run {
        values: Pqm4Values { pk, sk, sm },
        opened: opened_message,
        forgery_refused: refused.output.r0 as i32 == -1,
        ops: vec![keys, signed, opened],
    })
}

impl Pqm4Run {
    /// Whether the values are `reference`'s, the message came back and the changed one was refused.
    pub fn passes(&self, reference: &Pqm4Values, message: &[u8]) -> bool {
        &self.values == reference && self.opened.as_deref() == Some(message) && self.forgery_refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::{Object, ObjectSymbol};
    use std::collections::BTreeSet;

    /// The host reference of the pqm4 API's KAT procedure is the fn-dsa crate's key pair and signature from the
    /// same DRBG draws (32 bytes, then 40), the signed message the signature followed by the message.
    #[test]
    fn the_pqm4_reference_is_the_fn_dsa_crates() {
        use fn_dsa::{
            DomainContext, HashIdentifier, KeyPairGenerator, KeyPairGeneratorStandard, SigningKey as _,
            SigningKeyStandard,
        };
        use pqhelium_families::fndsa_scheme::Replay;
        for (count, (seed, message)) in nist_sign_inputs(3).iter().enumerate() {
            let logn = [9, 10, 9][count];
            let ours = pqm4_reference(logn, seed, message).expect("core signs");
            let mut drbg = NistDrbg::new(seed);
            let (mut key_seed, mut randomness) = ([0u8; 32], [0u8; 40]);
            drbg.fill(&mut key_seed);
            drbg.fill(&mut randomness);
            let (mut sk, mut pk) = (vec![0; codec::signing_key_size(logn)], vec![0; codec::verifying_key_size(logn)]);
            KeyPairGeneratorStandard::default().keygen(logn, &mut Replay(&key_seed), &mut sk, &mut pk);
            let mut sig = vec![0; codec::signature_size(logn)];
            let mut key = SigningKeyStandard::decode(&sk).expect("the crate decodes its key");
            key.sign(&mut Replay(&randomness), &DomainContext(b""), &HashIdentifier(&[0x00]), message, &mut sig);
            assert_eq!(ours, Pqm4Values { pk, sk, sm: [sig, message.clone()].concat() }, "count {count}");
            assert_eq!(message.len(), 33 * (count + 1));
        }
    }

    /// The sizes of `fndsa_pqm4/api.h` are FN-DSA's.
    #[test]
    fn the_api_sizes_are_fndsas() {
        let api = include_str!("../../kernels/arm/fndsa_pqm4/api.h");
        let define = |name: &str| -> usize {
            let line = api.lines().find(|l| l.starts_with(&format!("#define {name} "))).expect(name);
            line.split_whitespace().nth(2).unwrap().parse().unwrap()
        };
        for (degree, logn) in [(512, 9), (1024, 10)] {
            assert_eq!(define(&format!("FNDSA{degree}_CRYPTO_PUBLICKEYBYTES")), codec::verifying_key_size(logn));
            assert_eq!(define(&format!("FNDSA{degree}_CRYPTO_SECRETKEYBYTES")), codec::signing_key_size(logn));
            assert_eq!(define(&format!("FNDSA{degree}_CRYPTO_BYTES")), codec::signature_size(logn));
        }
    }

    /// Every symbol a build's objects (with the shared ones) refer to is defined by one of them, or is the C
    /// library's memory functions, libgcc's or `randombytes` (which the harness links): the size counts the whole
    /// build.
    #[test]
    fn each_builds_objects_are_closed_under_their_references() {
        for build in SIGNATURE_BUILDS {
            let archive = if build.images.contains(&Image::M7) {
                pqhelium_kernels::M7_HARNESS.kernels
            } else {
                pqhelium_kernels::M55_HARNESS.kernels
            };
            let parsed = object::read::archive::ArchiveFile::parse(archive).unwrap();
            let (mut defined, mut undefined) = (BTreeSet::new(), BTreeSet::new());
            for name in SHARED_OBJECTS.iter().chain(build.objects) {
                let member = parsed.members().filter_map(Result::ok).find(|m| m.name() == name.as_bytes());
                let data = member.unwrap_or_else(|| panic!("{name}")).data(archive).unwrap().to_vec();
                let file = object::File::parse(&*data).unwrap();
                for symbol in file.symbols().filter(|s| s.is_global()) {
                    let name = symbol.name().unwrap().to_string();
                    if symbol.is_undefined() {
                        undefined.insert(name)
                    } else {
                        defined.insert(name)
                    };
                }
            }
            let provided = |s: &str| s.starts_with("__aeabi_") || s.starts_with("mem") || s == "randombytes";
            let missing: Vec<_> = undefined.iter().filter(|s| !defined.contains(*s) && !provided(s)).collect();
            assert!(missing.is_empty(), "{} build: {missing:?}", build.build);
            for kernel in build.kernels {
                assert!(defined.contains(registry::find(kernel).unwrap().symbol), "{kernel}");
            }
        }
    }
}
