//! Whole schemes on the guest through the pqm4 API (`crypto_kem_keypair`, `crypto_kem_enc`, `crypto_kem_dec`,
//! `randombytes`), as pqm4's `test`, `testvectors`, `speed` and `stack` programs run them on a board: the NIST KAT
//! procedure runs entirely on the guest, and each operation is checked against the host reference
//! (`pqhelium_core`), with its instructions and its stack high-water mark.
//!
//! The guest side (`kernels/arm/scheme/`): the NIST AES-256-CTR DRBG as `randombytes`, and the stack probes
//! `pqh_stack_paint` and `pqh_stack_scan`, which the harness calls right before and after an operation with the same
//! stack pointer. Each operation is a call of its own, so the harness counts its instructions alone; the DRBG state
//! stays in guest memory from one call to the next. Every value the guest returns is checked before use.

use pqhelium_core::drbg::{NistDrbg, SEED_SIZE};
use pqhelium_core::mlkem::{ML_KEM_768, MlKem};
use pqhelium_core::rsp::Record;
use pqhelium_core::xwing::{self, XWing};
use pqhelium_guest::backend::{Arg, Backend, Call, CallError, CallOutput, Image};
use sha2::{Digest, Sha256};

/// Bytes of stack painted below the operation's stack pointer: a high-water mark of this much means at least this
/// much (the probe cannot see below its window).
pub const STACK_WINDOW: u32 = 64 * 1024;

/// Bytes of the DRBG state the guest saves and restores (key || V).
pub const DRBG_STATE_SIZE: usize = 48;

/// `randombytes_init`'s third argument in the NIST KAT generator.
pub const SECURITY_STRENGTH: u32 = 256;

/// A KEM build on the guest: its pqm4 API under a symbol prefix, and its sizes (pqm4's `api.h`).
#[derive(Debug, Clone, Copy)]
pub struct KemBuild {
    /// `--scheme`.
    pub name: &'static str,
    pub algorithm: &'static str,
    /// `portable` or `mve` (`--build`).
    pub build: &'static str,
    /// The images holding it: the MVE builds are not in the Cortex-M7 image.
    pub images: &'static [Image],
    /// Prepended to `crypto_kem_*`: our images hold several schemes, each namespaced as pqm4 does.
    pub prefix: &'static str,
    pub public_key: usize,
    pub secret_key: usize,
    pub ciphertext: usize,
    pub shared_secret: usize,
    /// The objects of the build in the image's kernel archive, whose sizes make its code and data size.
    pub objects: &'static [&'static str],
    /// The host reference's values for a KAT entry's DRBG seed, drawing its randomness as the build does.
    pub reference: fn(&[u8; SEED_SIZE]) -> KemValues,
    /// The published known answers the build is held to besides the host reference.
    pub published: Published,
}

/// Published known answers of a scheme, run on the guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Published {
    /// The NIST KAT file's count = 0 record (its SHA-256, PQClean's `nistkat-sha256`): the first entry's values.
    NistRecord0,
    /// The X-Wing draft's test vectors, through the build's derandomised functions (`keypair_derand`, `enc_derand`).
    XWingDraft10,
}

/// ML-KEM-768, portable build (`kernels/arm/mlkem768/`): scalar C, scalar Keccak, the scalar ML-KEM kernels.
pub const MLKEM768_PORTABLE: KemBuild = KemBuild {
    name: "mlkem768",
    algorithm: "ML-KEM-768",
    build: "portable",
    images: &ALL_IMAGES,
    prefix: "mlkem768_portable_",
    public_key: ML_KEM_768.ek_len(),
    secret_key: ML_KEM_768.dk_len(),
    ciphertext: ML_KEM_768.ct_len(),
    shared_secret: pqhelium_core::mlkem::SHARED_SECRET_SIZE,
    objects: &[
        "kernel_mlkem768_kem_c.o",
        "kernel_scheme_fips202_c.o",
        "kernel_keccak_keccak_f1600_c.o",
        "kernel_mlkem_ntt_mlkem_ntt_scalar_c.o",
        "kernel_mlkem_ntt_mlkem_poly_scalar_c.o",
    ],
    reference: mlkem768_reference,
    published: Published::NistRecord0,
};

/// X-Wing, portable build (`kernels/arm/xwing/`): the portable ML-KEM-768, X25519 by the ladder, scalar Keccak.
pub const XWING_PORTABLE: KemBuild = KemBuild {
    name: "xwing",
    algorithm: "X-Wing (draft 10)",
    build: "portable",
    images: &ALL_IMAGES,
    prefix: "xwing_portable_",
    public_key: xwing::ENCAPSULATION_KEY_SIZE,
    secret_key: xwing::SECRET_KEY_SIZE,
    ciphertext: xwing::CIPHERTEXT_SIZE,
    shared_secret: xwing::SHARED_SECRET_SIZE,
    objects: &[
        "kernel_xwing_xwing_c.o",
        "kernel_mlkem768_kem_c.o",
        "kernel_x25519_ladder_c.o",
        "kernel_x25519_fe_c.o",
        "kernel_scheme_fips202_c.o",
        "kernel_keccak_keccak_f1600_c.o",
        "kernel_mlkem_ntt_mlkem_ntt_scalar_c.o",
        "kernel_mlkem_ntt_mlkem_poly_scalar_c.o",
    ],
    reference: xwing_reference,
    published: Published::XWingDraft10,
};

/// ML-KEM-768, MVE build (`kernels/arm/mlkem768_mve/kem_mve.mve.c`): the portable code on the MVE ML-KEM kernels, the
/// polynomials in the MVE storage order from sampling to encoding; the matrix and the noise on the four-way MVE
/// Keccak, the other hashes on the scalar one.
pub const MLKEM768_MVE: KemBuild = KemBuild {
    build: "mve",
    images: &MVE_IMAGES,
    prefix: "mlkem768_mve_",
    objects: &[
        "kernel_mlkem768_mve_kem_mve_mve_c.o",
        "kernel_scheme_fips202_c.o",
        "kernel_keccak_keccak_f1600_c.o",
        "kernel_keccak_keccak_x4_mve_c.o",
        "kernel_mlkem_ntt_mlkem_ntt_mve_c.o",
        "kernel_mlkem_ntt_mlkem_poly_mve_c.o",
    ],
    ..MLKEM768_PORTABLE
};

/// X-Wing, MVE build (`kernels/arm/xwing_mve/xwing_mve.mve.c`): on the MVE ML-KEM-768 build, the fixed-base table for
/// both base-point multiplications, the ladder for the shared secrets (one inversion shared with the table's in
/// encapsulation and decapsulation); Keccak scalar.
pub const XWING_MVE: KemBuild = KemBuild {
    build: "mve",
    images: &MVE_IMAGES,
    prefix: "xwing_mve_",
    objects: &[
        "kernel_xwing_mve_xwing_mve_mve_c.o",
        "kernel_mlkem768_mve_kem_mve_mve_c.o",
        "kernel_x25519_base_c.o",
        "kernel_x25519_base_table_c.o",
        "kernel_x25519_ladder_c.o",
        "kernel_x25519_fe_c.o",
        "kernel_scheme_fips202_c.o",
        "kernel_keccak_keccak_f1600_c.o",
        "kernel_keccak_keccak_x4_mve_c.o",
        "kernel_mlkem_ntt_mlkem_ntt_mve_c.o",
        "kernel_mlkem_ntt_mlkem_poly_mve_c.o",
    ],
    ..XWING_PORTABLE
};

const ALL_IMAGES: [Image; 3] = [Image::M55, Image::M85, Image::M7];
const MVE_IMAGES: [Image; 2] = [Image::M55, Image::M85];

/// The KEM builds `--scheme` and `--build` name.
pub const KEM_BUILDS: [KemBuild; 4] = [MLKEM768_PORTABLE, MLKEM768_MVE, XWING_PORTABLE, XWING_MVE];

impl KemBuild {
    pub fn find(name: &str, build: &str) -> Option<KemBuild> {
        KEM_BUILDS.into_iter().find(|b| b.name == name && b.build == build)
    }

    pub fn symbol(&self, op: Op) -> String {
        format!("{}{}", self.prefix, op.api_name())
    }
}

/// The operations of a KEM, in the order the KAT procedure runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Keypair,
    Enc,
    Dec,
}

impl Op {
    pub const ALL: [Op; 3] = [Op::Keypair, Op::Enc, Op::Dec];

    pub fn api_name(self) -> &'static str {
        match self {
            Op::Keypair => "crypto_kem_keypair",
            Op::Enc => "crypto_kem_enc",
            Op::Dec => "crypto_kem_dec",
        }
    }
}

/// One operation as it ran on the guest.
#[derive(Debug, Clone, PartialEq)]
pub struct OpRun {
    pub op: Op,
    /// Instructions of the operation alone (the harness's count), `randombytes` included as in pqm4's `speed`.
    pub instructions: u64,
    /// Stack high-water mark in bytes; [`STACK_WINDOW`] or more if `stack_saturated`.
    pub stack: u32,
    pub stack_saturated: bool,
    /// The operation's outputs, in argument order.
    pub outputs: Vec<Vec<u8>>,
}

/// What went wrong running an entry: a call that failed, or a guest value that cannot be right.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GuestKemError {
    #[error("{symbol}: {error}")]
    Call { symbol: String, error: CallError },
    #[error("{symbol} returned {value}, not 0")]
    Returned { symbol: String, value: i32 },
    #[error("stack probe: {0}")]
    Probe(String),
}

/// The values of one KAT entry: the DRBG seed and what the KEM made of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KemValues {
    pub seed: [u8; SEED_SIZE],
    pub pk: Vec<u8>,
    pub sk: Vec<u8>,
    pub ct: Vec<u8>,
    pub ss: Vec<u8>,
}

impl KemValues {
    /// The entry as the NIST `.rsp` file writes it.
    pub fn record(&self, count: u64) -> Record {
        Record::new(count)
            .with("seed", &self.seed)
            .with("pk", &self.pk)
            .with("sk", &self.sk)
            .with("ct", &self.ct)
            .with("ss", &self.ss)
    }
}

/// One entry run on the guest: its values, the shared secret decapsulation gave, and the three operations.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryRun {
    pub values: KemValues,
    pub decapsulated: Vec<u8>,
    pub ops: Vec<OpRun>,
}

impl EntryRun {
    /// The values compared with `expected`, by name, in the order the operations produce them; the last is the
    /// shared secret decapsulation gave back, compared with the expected one.
    fn compared<'a>(&'a self, expected: &'a KemValues) -> [(&'static str, &'a [u8], &'a [u8]); 5] {
        let v = &self.values;
        [
            ("pk", &v.pk, &expected.pk),
            ("sk", &v.sk, &expected.sk),
            ("ct", &v.ct, &expected.ct),
            ("ss", &v.ss, &expected.ss),
            ("crypto_kem_dec's ss", &self.decapsulated, &expected.ss),
        ]
    }

    /// The name of the first value that differs from `expected`, or `None` when the whole entry matches.
    pub fn first_difference(&self, expected: &KemValues) -> Option<&'static str> {
        self.compared(expected).into_iter().find(|(_, got, want)| got != want).map(|(name, _, _)| name)
    }

    /// Per operation (key pair, encapsulation, decapsulation): whether the values it produced equal `expected`'s.
    pub fn verdicts(&self, expected: &KemValues) -> [bool; 3] {
        let equal = self.compared(expected).map(|(_, got, want)| got == want);
        [equal[0] && equal[1], equal[2] && equal[3], equal[4]]
    }
}

/// The seeds of the first `entries` records of a NIST KAT file (`PQCgenKAT_kem.c`): a DRBG seeded with the bytes
/// 0x00..0x2f draws 48 bytes per record.
pub fn kat_seeds(entries: usize) -> Vec<[u8; SEED_SIZE]> {
    let mut master = NistDrbg::new(&std::array::from_fn(|i| i as u8));
    (0..entries)
        .map(|_| {
            let mut seed = [0u8; SEED_SIZE];
            master.fill(&mut seed);
            seed
        })
        .collect()
}

/// The host reference's values for `seed` (ML-KEM-768 of `pqhelium_core`, the NIST KAT's randomness: d || z, then m).
pub fn mlkem768_reference(seed: &[u8; SEED_SIZE]) -> KemValues {
    let mut drbg = NistDrbg::new(seed);
    let (mut coins, mut m) = ([0u8; 64], [0u8; 32]);
    drbg.fill(&mut coins);
    drbg.fill(&mut m);
    let kem = MlKem::reference(ML_KEM_768);
    let (pk, sk) = kem.keygen_internal(coins[..32].try_into().unwrap(), coins[32..].try_into().unwrap());
    let (ss, ct) = kem.encaps(&pk, &m).expect("a key the reference made is valid");
    KemValues { seed: *seed, pk, sk, ct, ss: ss.to_vec() }
}

/// The host reference's values for `seed` (X-Wing of `pqhelium_core`, randomness as the guest build draws it: the
/// 32-byte decapsulation key, then the 64-byte eseed).
pub fn xwing_reference(seed: &[u8; SEED_SIZE]) -> KemValues {
    let mut drbg = NistDrbg::new(seed);
    let (mut sk, mut eseed) = ([0u8; xwing::SECRET_KEY_SIZE], [0u8; xwing::ESEED_SIZE]);
    drbg.fill(&mut sk);
    drbg.fill(&mut eseed);
    let scheme = XWing::reference();
    let pk = scheme.keygen(&sk);
    let (ss, ct) = scheme.encaps(&pk, &eseed).expect("a key the reference made is valid");
    KemValues { seed: *seed, pk: pk.to_vec(), sk: sk.to_vec(), ct: ct.to_vec(), ss: ss.to_vec() }
}

/// The SHA-256 of the count = 0 record of the ML-KEM-768 NIST KAT file (PQClean's `nistkat-sha256`), from
/// `vectors/schemes.kat`.
pub fn mlkem768_record0_sha256() -> [u8; 32] {
    let line = include_str!("../../vectors/schemes.kat")
        .lines()
        .find(|l| l.starts_with("mlkem768 nist-kat-count0 "))
        .expect("vectors/schemes.kat has the NIST record");
    let hex = line.split_whitespace().find_map(|f| f.strip_prefix("record_sha256=")).expect("record_sha256");
    hex::decode(hex).expect("hex").try_into().expect("32 bytes")
}

/// Whether `values` are the count = 0 record of the published KAT file.
pub fn is_mlkem768_record0(values: &KemValues) -> bool {
    Sha256::digest(values.record(0).to_rsp().as_bytes())[..] == mlkem768_record0_sha256()
}

/// Runs one KAT entry on the guest: `randombytes_init(seed)`, then keypair, encapsulation and decapsulation, each
/// between the stack probes, in three batches (each operation's inputs are the previous one's outputs). The DRBG
/// state goes from one batch to the next through the host (`pqh_randombytes_save`, `pqh_randombytes_restore`):
/// a backend may restore guest memory between batches.
pub fn run_entry(
    backend: &mut dyn Backend,
    build: &KemBuild,
    seed: &[u8; SEED_SIZE],
) -> Result<EntryRun, GuestKemError> {
    run_entry_painting(backend, build, seed, STACK_WINDOW)
}

/// [`run_entry`] with `window` bytes of stack painted before each operation (the probe paints no further than the
/// image's stack limit, so a window larger than the stack paints all of it).
pub fn run_entry_painting(
    backend: &mut dyn Backend,
    build: &KemBuild,
    seed: &[u8; SEED_SIZE],
    window: u32,
) -> Result<EntryRun, GuestKemError> {
    let init = Call::new("randombytes_init", vec![Arg::In(seed.to_vec()), Arg::U32(0), Arg::U32(SECURITY_STRENGTH)]);
    let (keypair, drbg) = run_op(
        backend,
        build,
        Op::Keypair,
        vec![Arg::Out(build.public_key), Arg::Out(build.secret_key)],
        init,
        window,
    )?;
    let (pk, sk) = (keypair.outputs[0].clone(), keypair.outputs[1].clone());
    let restore = Call::new("pqh_randombytes_restore", vec![Arg::In(drbg)]);
    let enc_args = vec![Arg::Out(build.ciphertext), Arg::Out(build.shared_secret), Arg::In(pk.clone())];
    let (enc, drbg) = run_op(backend, build, Op::Enc, enc_args, restore, window)?;
    let (ct, ss) = (enc.outputs[0].clone(), enc.outputs[1].clone());
    let restore = Call::new("pqh_randombytes_restore", vec![Arg::In(drbg)]);
    let dec_args = vec![Arg::Out(build.shared_secret), Arg::In(ct.clone()), Arg::In(sk.clone())];
    let (dec, _) = run_op(backend, build, Op::Dec, dec_args, restore, window)?;
    let decapsulated = dec.outputs[0].clone();
    Ok(EntryRun { values: KemValues { seed: *seed, pk, sk, ct, ss }, decapsulated, ops: vec![keypair, enc, dec] })
}

/// The build's published known answers on the guest, `first` the values of the KAT procedure's entry 0: (what,
/// verdict) per answer.
pub fn published_answers(
    backend: &mut dyn Backend,
    build: &KemBuild,
    first: &KemValues,
) -> Vec<(String, Result<(), String>)> {
    match build.published {
        Published::NistRecord0 => {
            let verdict = if is_mlkem768_record0(first) { Ok(()) } else { Err("DOES NOT match".to_string()) };
            vec![(
                "the published count = 0 record (SHA-256 of its .rsp lines, PQClean's nistkat-sha256)".into(),
                verdict,
            )]
        }
        Published::XWingDraft10 => {
            let mut guest = GuestXWing { backend, build };
            crate::kat::xwing_vectors(&mut guest)
                .into_iter()
                .map(|(name, verdict)| (format!("X-Wing draft 10 vector {name}"), verdict))
                .collect()
        }
    }
}

/// Calls the build's API function `function` (its name after the build's prefix) on the guest: its output buffers,
/// or why it failed (a fault, or a return value other than 0).
pub fn call_api(
    backend: &mut dyn Backend,
    build: &KemBuild,
    function: &str,
    args: Vec<Arg>,
) -> Result<Vec<Vec<u8>>, String> {
    let symbol = format!("{}{function}", build.prefix);
    let out = backend.call(&Call::new(&symbol, args)).map_err(|error| format!("{symbol}: {error}"))?;
    check_returned(&symbol, &out).map_err(|e| e.to_string())?;
    Ok(out.buffers)
}

/// An X-Wing build's derandomised functions on the guest.
pub(crate) struct GuestXWing<'a> {
    pub(crate) backend: &'a mut dyn Backend,
    pub(crate) build: &'a KemBuild,
}

impl GuestXWing<'_> {
    fn call(&mut self, function: &str, args: Vec<Arg>) -> Result<Vec<Vec<u8>>, String> {
        call_api(&mut *self.backend, self.build, function, args)
    }
}

impl crate::kat::XWingDerand for GuestXWing<'_> {
    fn keygen(&mut self, seed: &[u8; 32]) -> Result<Vec<u8>, String> {
        let mut out = self.call("keypair_derand", vec![Arg::Out(self.build.public_key), Arg::In(seed.to_vec())])?;
        Ok(out.swap_remove(0))
    }
    fn encaps(&mut self, pk: &[u8], eseed: &[u8; 64]) -> Result<(Vec<u8>, Vec<u8>), String> {
        let (ct, ss) = (Arg::Out(self.build.ciphertext), Arg::Out(self.build.shared_secret));
        let out = self.call("enc_derand", vec![ct, ss, Arg::In(pk.to_vec()), Arg::In(eseed.to_vec())])?;
        Ok((out[1].clone(), out[0].clone()))
    }
    fn decaps(&mut self, seed: &[u8; 32], ct: &[u8]) -> Result<Vec<u8>, String> {
        decapsulate(&mut *self.backend, self.build, ct, seed).map_err(|e| e.to_string())
    }
}

/// Decapsulates `ct` with `sk` on the guest (no probes): the shared secret.
pub fn decapsulate(
    backend: &mut dyn Backend,
    build: &KemBuild,
    ct: &[u8],
    sk: &[u8],
) -> Result<Vec<u8>, GuestKemError> {
    let args = vec![Arg::Out(build.shared_secret), Arg::In(ct.to_vec()), Arg::In(sk.to_vec())];
    let symbol = build.symbol(Op::Dec);
    let out = backend
        .call(&Call::new(&symbol, args))
        .map_err(|error| GuestKemError::Call { symbol: symbol.clone(), error })?;
    check_returned(&symbol, &out)?;
    Ok(out.buffers[0].clone())
}

/// `before, paint, op, scan, save` in one batch: the operation's run and the DRBG state after it.
fn run_op(
    backend: &mut dyn Backend,
    build: &KemBuild,
    op: Op,
    args: Vec<Arg>,
    before: Call,
    window: u32,
) -> Result<(OpRun, Vec<u8>), GuestKemError> {
    let symbol = build.symbol(op);
    let calls = [
        before,
        Call::new("pqh_stack_paint", vec![Arg::U32(window)]),
        Call::new(&symbol, args),
        Call::new("pqh_stack_scan", vec![]),
        Call::new("pqh_randombytes_save", vec![Arg::Out(DRBG_STATE_SIZE)]),
    ];
    let mut results = Vec::new();
    for (call, result) in calls.iter().zip(backend.run_batch(&calls)) {
        results.push(result.map_err(|error| GuestKemError::Call { symbol: call.symbol.clone(), error })?);
    }
    let [_, painted, out, used, saved] = &results[..] else { unreachable!("one result per call") };
    check_returned(&symbol, out)?;
    if painted.r0 > window || painted.r0 % 4 != 0 {
        return Err(GuestKemError::Probe(format!("painted {} bytes of a {window}-byte window", painted.r0)));
    }
    if used.r0 > painted.r0 {
        return Err(GuestKemError::Probe(format!("{} bytes used of {} painted", used.r0, painted.r0)));
    }
    let run = OpRun {
        op,
        instructions: out.instructions,
        stack: used.r0,
        stack_saturated: used.r0 == painted.r0,
        outputs: out.buffers.clone(),
    };
    Ok((run, saved.buffers[0].clone()))
}

fn check_returned(symbol: &str, out: &CallOutput) -> Result<(), GuestKemError> {
    match out.r0 as i32 {
        0 => Ok(()),
        value => Err(GuestKemError::Returned { symbol: symbol.to_string(), value }),
    }
}

/// Code and data bytes of a build's objects (`.text*` and `.rodata*`, `.data*`, `.bss*`), read from an image's
/// kernel archive: what the build adds to a firmware, as pqm4's size figures count it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Size {
    pub code: u64,
    pub data: u64,
    pub bss: u64,
}

/// The size of `build` in `image` (one of ours): its objects in the image's kernel archive.
pub fn build_size(build: &KemBuild, image: Image) -> anyhow::Result<Size> {
    archive_sizes(image, build.objects)
}

/// The sizes of `objects` in `image`'s kernel archive (one of our images).
pub fn archive_sizes(image: Image, objects: &[&str]) -> anyhow::Result<Size> {
    let archive = match image {
        Image::M55 => pqhelium_kernels::M55_HARNESS.kernels,
        Image::M85 => pqhelium_kernels::M85_HARNESS.kernels,
        Image::M7 => pqhelium_kernels::M7_HARNESS.kernels,
        Image::User(guest) => anyhow::bail!("{}: a user's image has no kernel archive of ours", guest.name),
    };
    object_sizes(archive, objects)
}

/// The sizes of `objects` in `archive` (an `ar` archive of ELF objects); a missing object is an error naming it.
pub fn object_sizes(archive: &[u8], objects: &[&str]) -> anyhow::Result<Size> {
    let parsed = object::read::archive::ArchiveFile::parse(archive)?;
    let mut size = Size::default();
    for wanted in objects {
        let member = parsed
            .members()
            .filter_map(Result::ok)
            .find(|m| m.name() == wanted.as_bytes())
            .ok_or_else(|| anyhow::anyhow!("object {wanted} is not in the image's kernel archive"))?;
        // Members sit at any offset in the archive; the ELF parser wants its header aligned: parse a copy.
        let copy = member.data(archive)?.to_vec();
        let one = object_size(&copy)?;
        size = Size { code: size.code + one.code, data: size.data + one.data, bss: size.bss + one.bss };
    }
    Ok(size)
}

/// The size of one ELF object (`.text*` and `.rodata*` as code, `.data*`, `.bss*`).
pub fn object_size(elf: &[u8]) -> anyhow::Result<Size> {
    use object::{Object, ObjectSection};
    let file = object::File::parse(elf)?;
    let mut size = Size::default();
    for section in file.sections() {
        let name = section.name().unwrap_or("");
        let bytes = section.size();
        if name.starts_with(".text") || name.starts_with(".rodata") {
            size.code += bytes;
        } else if name.starts_with(".data") {
            size.data += bytes;
        } else if name.starts_with(".bss") {
            size.bss += bytes;
        }
    }
    Ok(size)
}
