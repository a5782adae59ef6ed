//! FN-DSA-512 and -1024 whole on the guest, in two builds: a signature known answer (`vectors/fndsa.kat`) run end to
//! end by the object code, key generation from the entry's seed (`fndsa.keygen.pair*`), signing its message
//! (`fndsa.sign*`), verifying the signature alone (`fndsa.verify*`) and in a batch of four with two altered requests
//! (`fndsa.verify.batch4*`). The host only frames the requests; its reference and the published value check the
//! results.

use pqhelium_core::keccak;
use pqhelium_families::fndsa_sign::{self, kat_keygen_seed, kat_message, kat_randomness};
use pqhelium_families::fndsa_verify::Request as VerifyRequest;
use pqhelium_families::{self as registry};
use pqhelium_guest::backend::{Arg, Backend, Call, Image};

use pqhelium_core::fndsa::codec;

/// One build: the kernels of each operation (registry ids) and the images holding all of them.
#[derive(Debug, Clone, Copy)]
pub struct SignatureBuild {
    pub build: &'static str,
    pub images: &'static [Image],
    pub keygen: &'static str,
    pub sign: &'static str,
    pub verify: &'static str,
    pub verify_batch: &'static str,
}

/// The portable build (soft-float signing, portable FFT and bit-by-bit divisions, scalar NTT and Keccak) and the
/// optimised one (native FP64, MVE FFT, VDIV divisions, MVE NTTs and Keccak in verification).
pub const SIGNATURE_BUILDS: [SignatureBuild; 2] = [
    SignatureBuild {
        build: "portable",
        images: &[Image::M55, Image::M85, Image::M7],
        keygen: "fndsa.keygen.pair.scalar",
        sign: "fndsa.sign.emu",
        verify: "fndsa.verify.scalar",
        verify_batch: "fndsa.verify.batch4.scalar",
    },
    SignatureBuild {
        build: "optimised",
        images: &[Image::M55, Image::M85],
        keygen: "fndsa.keygen.pair",
        sign: "fndsa.sign",
        verify: "fndsa.verify",
        verify_batch: "fndsa.verify.batch4",
    },
];

/// The scheme's name at a degree.
pub fn scheme_name(logn: u32) -> &'static str {
    if logn == 9 { "FN-DSA-512" } else { "FN-DSA-1024" }
}

/// What the guest produced for one known answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryRun {
    pub sk: Vec<u8>,
    pub vk: Vec<u8>,
    pub sig: Vec<u8>,
    /// The verdict on the signature alone.
    pub verified: bool,
    /// The verdicts of the batch: the request, its signature with a bit flipped, the request again, another context.
    pub batch: [bool; 4],
    /// Instructions of key generation, signing, verification and the batch, harness excluded.
    pub instructions: [u64; 4],
}

/// The batch's expected verdicts.
pub const BATCH_VERDICTS: [bool; 4] = [true, false, true, false];

impl EntryRun {
    /// SHA3-256(sk || vk || sig): the known answer's value.
    pub fn value(&self) -> [u8; 32] {
        keccak::sha3_256(&[self.sk.as_slice(), &self.vk, &self.sig].concat())
    }
}

fn call(backend: &mut dyn Backend, id: &str, args: Vec<Arg>) -> Result<pqhelium_guest::backend::CallOutput, String> {
    let kernel = registry::find(id).ok_or(format!("{id} is not registered"))?;
    backend.call(&Call::new(kernel.symbol, args)).map_err(|e| format!("{id}: {e}"))
}

/// Known answer (logn, j) on the guest.
pub fn run_kat_entry(backend: &mut dyn Backend, build: &SignatureBuild, logn: u32, j: u32) -> Result<EntryRun, String> {
    let (sk_len, vk_len) = (codec::signing_key_size(logn), codec::verifying_key_size(logn));
    let seed = kat_keygen_seed(logn, j).to_vec();
    let seed_len = Arg::U32(seed.len() as u32);
    let keys =
        call(backend, build.keygen, vec![Arg::Out(sk_len), Arg::Out(vk_len), Arg::In(seed), seed_len, Arg::U32(logn)])?;
    if keys.r0 != 1 {
        return Err(format!("{}: returned {} (no key)", build.keygen, keys.r0));
    }
    let (sk, vk) = (keys.buffers[0].clone(), keys.buffers[1].clone());

    let message = kat_message(j);
    let request =
        fndsa_sign::Request { sk: sk.clone(), randomness: kat_randomness(logn, j).to_vec(), ..message.clone() };
    let framed = request.framed();
    let sig_len = codec::signature_size(logn);
    let signed =
        call(backend, build.sign, vec![Arg::Out(sig_len), Arg::In(framed.clone()), Arg::U32(framed.len() as u32)])?;
    if signed.r0 as usize != sig_len {
        return Err(format!("{}: returned {} (no signature)", build.sign, signed.r0));
    }
    let sig = signed.buffers[0].clone();

    let honest = VerifyRequest { vk: vk.clone(), sig: sig.clone(), ctx: message.ctx, id: message.id, hv: message.hv };
    let framed = honest.framed();
    let verified = call(backend, build.verify, vec![Arg::In(framed.clone()), Arg::U32(framed.len() as u32)])?;
    let mut flipped = honest.clone();
    flipped.sig[sig_len / 2] ^= 0x10;
    let other_context = VerifyRequest { ctx: b"other".to_vec(), ..honest.clone() };
    let batch: Vec<u8> = [&honest, &flipped, &honest, &other_context].iter().flat_map(|r| r.framed()).collect();
    let batch_len = Arg::U32(batch.len() as u32);
    let verdicts = call(backend, build.verify_batch, vec![Arg::Out(4), Arg::In(batch), batch_len, Arg::U32(logn)])?;
    let batch = std::array::from_fn(|i| verdicts.buffers[0][i] == 1);
    Ok(EntryRun {
        sk,
        vk,
        sig,
        verified: verified.r0 == 1,
        batch,
        instructions: [keys.instructions, signed.instructions, verified.instructions, verdicts.instructions],
    })
}

/// The host reference's (signing key, verifying key, signature) of known answer (logn, j): core's.
pub fn reference(logn: u32, j: u32) -> Option<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let (keys, request) = fndsa_sign::kat_entry(logn, j);
    let sig = fndsa_sign::sign(&request.framed())?;
    Some((keys.sk, keys.vk, sig))
}
