//! FN-DSA-512 and -1024 whole on the guest, in two builds: a signature known answer (`vectors/fndsa.kat`) run end to
//! end by the object code, key generation from the entry's seed (`fndsa.keygen.pair*`), signing its message
//! (`fndsa.sign*`), verifying the signature alone (`fndsa.verify*`) and in a batch of four with two altered requests
//! (`fndsa.verify.batch4*`), each with the stack painted before it and scanned after it. The host only frames the
//! requests; its reference and the published value check the results.

use pqhelium_core::fndsa::codec;
use pqhelium_core::keccak;
use pqhelium_families::fndsa_sign::{self, kat_keygen_seed, kat_message, kat_randomness};
use pqhelium_families::fndsa_verify::Request as VerifyRequest;
use pqhelium_families::{self as registry};
use pqhelium_guest::backend::{Arg, Backend, Call, CallOutput, Image};

use crate::on_guest::{self, STACK_WINDOW, Size};

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
/// entry point too, and the MVE FFT hands the smallest degrees to the portable one).
pub const SHARED_OBJECTS: [&str; 9] = [
    "kernel_fndsa_keygen_keygen_c.o",
    "kernel_fndsa_keygen_keygen_primes_c.o",
    "kernel_fndsa_keygen_fft_q32_gm_c.o",
    "kernel_fndsa_keygen_fft_q32_scalar_c.o",
    "kernel_fndsa_keygen_div_scalar_c.o",
    "kernel_fndsa_ntt_fndsa_ntt_scalar_c.o",
    "kernel_fndsa_ntt_fndsa_ntt_tables_c.o",
    "kernel_scheme_fips202_c.o",
    "kernel_keccak_keccak_f1600_c.o",
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
    let calls =
        [Call::new("pqh_stack_paint", vec![Arg::U32(STACK_WINDOW)]), call.clone(), Call::new("pqh_stack_scan", vec![])];
    let mut results = Vec::new();
    for (c, result) in calls.iter().zip(backend.run_batch(&calls)) {
        results.push(result.map_err(|e| format!("{}: {e}", c.symbol))?);
    }
    let [painted, output, used] = &results[..] else { unreachable!("one result per call") };
    if painted.r0 > STACK_WINDOW || used.r0 > painted.r0 {
        return Err(format!("stack probe: {} bytes used of {} painted", used.r0, painted.r0));
    }
    Ok(OpRun { call, output: output.clone(), stack: used.r0, saturated: used.r0 == painted.r0 })
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

#[cfg(test)]
mod tests {
    use super::*;
    use object::{Object, ObjectSymbol};
    use std::collections::BTreeSet;

    /// Every symbol a build's objects (with the shared ones) refer to is defined by one of them, or is the C
    /// library's memory functions or libgcc's (which the harness links): the size counts the whole build.
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
            let provided = |s: &str| s.starts_with("__aeabi_") || s.starts_with("mem");
            let missing: Vec<_> = undefined.iter().filter(|s| !defined.contains(*s) && !provided(s)).collect();
            assert!(missing.is_empty(), "{} build: {missing:?}", build.build);
            for kernel in build.kernels {
                assert!(defined.contains(registry::find(kernel).unwrap().symbol), "{kernel}");
            }
        }
    }
}
