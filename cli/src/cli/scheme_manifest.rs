//! `pqhelium scheme --manifest`: a user's KEM, laid out as pqm4 lays one out, built for each core of its manifest and
//! run through the pqm4 API: the KAT file the user gives, a differential campaign against our host reference (random
//! DRBG seeds, and corrupted ciphertexts for implicit rejection), then instructions, estimated cycles, stack and size
//! per object in one table (docs/schemes.md).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Result, anyhow, bail};
use pqhelium_analyses::cycles::{self, Estimator};
use pqhelium_byo::scheme::{SchemeManifest, SchemeSources, link_scheme};
use pqhelium_core::drbg::SEED_SIZE;
use pqhelium_core::mlkem::{ML_KEM_768, MlKem};
use pqhelium_core::rsp::Record;
use pqhelium_core::xwing::XWing;
use pqhelium_guest::backend::{Arg, Backend, Image, Limits};
use pqhelium_schemes::on_guest::{self, EntryRun, GuestKemError, KemBuild, KemValues, Op};
use pqhelium_schemes::scheme_ct::Randomness;
use rand::{Rng, SeedableRng};

/// A scheme a manifest may name (pqm4's name): our build's sizes and host reference, and the reference's
/// decapsulation.
struct Scheme {
    name: &'static str,
    ours: KemBuild,
    /// The reference's decapsulation (of any ciphertext: implicit rejection included).
    decapsulate: fn(&[u8], &[u8]) -> Option<Vec<u8>>,
}

const SCHEMES: [Scheme; 2] = [
    Scheme {
        name: "ml-kem-768",
        ours: on_guest::MLKEM768_PORTABLE,
        decapsulate: |sk, ct| MlKem::reference(ML_KEM_768).decaps(sk, ct).ok().map(|ss| ss.to_vec()),
    },
    Scheme {
        name: "x-wing",
        ours: on_guest::XWING_PORTABLE,
        decapsulate: |sk, ct| XWing::reference().decaps(sk.try_into().ok()?, ct).ok().map(|ss| ss.to_vec()),
    },
];

/// Bytes of stack painted before each operation: more than the images' 512 KiB data memory, so that the probe paints
/// all the free stack and an operation that uses all of it has run into the harness's data below.
const WHOLE_STACK: u32 = 512 * 1024;

/// The fields of a KEM's `.rsp` record, in the file's order.
const KEM_FIELDS: [&str; 5] = ["seed", "pk", "sk", "ct", "ss"];

/// What `scheme --manifest` takes from the command line.
pub struct Run {
    pub manifest: PathBuf,
    pub entries: u64,
    pub campaign: u64,
    pub seed: u64,
    pub no_cycles: bool,
    /// `--ct-pairs`: constant-time pairs of each operation on each core.
    pub ct_pairs: Option<u64>,
}

/// One operation's figures on one core.
#[derive(Default, Clone)]
struct Figures {
    instructions: u64,
    stack: u32,
    cycles: Option<f64>,
}

pub fn run(args: Run) -> Result<ExitCode> {
    let path = &args.manifest;
    let manifest = SchemeManifest::read(path).map_err(|e| anyhow!(e))?;
    let at = |what: String| anyhow!("{}: {what}", path.display());
    let scheme = SCHEMES.iter().find(|s| s.name == manifest.scheme).ok_or_else(|| {
        let known: Vec<&str> = SCHEMES.iter().map(|s| s.name).collect();
        at(format!("scheme `{}` is not one we have a reference for (known: {})", manifest.scheme, known.join(", ")))
    })?;
    if manifest.cores.is_empty() {
        return Err(at("cores: name at least one of m55, m85, m7".into()));
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf();
    check_api(scheme, &dir.join(&manifest.implementation).join("api.h"))?;
    let kat = read_kat(scheme, &dir.join(&manifest.kat))?;
    let build = KemBuild {
        build: "manifest",
        images: &[],
        prefix: Box::leak(manifest.namespace.clone().into_boxed_str()),
        objects: &[],
        ..scheme.ours
    };
    let wanted: Vec<String> = Op::ALL.iter().map(|op| build.symbol(*op)).collect();
    let sources = manifest.all_sources(&dir).map_err(|e| anyhow!(e))?;
    let include =
        [manifest.implementation.clone()].into_iter().chain(manifest.include.iter().cloned()).collect::<Vec<_>>();
    let limits = Limits { timeout: Duration::from_secs(manifest.timeout_seconds.max(1)) };
    let entries = kat.len().min(args.entries as usize);
    println!(
        "{} through the pqm4 API ({}), KAT entries 0..{entries} of {}, differential campaign of {} seeds",
        scheme.ours.algorithm,
        dir.join(&manifest.implementation).display(),
        manifest.kat.display(),
        args.campaign
    );
    let mut passed = true;
    let mut table = Vec::new();
    for core in &manifest.cores {
        let linked = link_scheme(&SchemeSources {
            core,
            dir: &dir,
            sources: &sources,
            objects: &manifest.objects,
            flags: &manifest.flags,
            include: &include,
            wanted: &wanted,
        })
        .map_err(&at)?;
        let image = linked.image;
        let mut guest = image.open(limits)?;
        println!("{core} ({}):", image.backend());
        let run = match run_core(scheme, &build, guest.as_mut(), &kat[..entries], &args) {
            Ok(run) => run,
            Err(line) => {
                println!("FAILED: {line}");
                passed = false;
                continue;
            }
        };
        for line in &run.failures {
            println!("{line}");
        }
        passed &= run.failures.is_empty();
        let mut figures = run.figures;
        if !args.no_cycles {
            estimate_cycles(core, image, &build, &run.first, &mut figures);
        }
        print_sizes(&linked.objects)?;
        if let Some(pairs) = args.ct_pairs {
            let public = Randomness::Replayed { public: &manifest.ct_public };
            passed &= super::scheme_ct::print_ct(image, &build, pairs, public)?;
        }
        table.push((core.clone(), figures));
    }
    print_table(&build, &table);
    println!("{}", if passed { "scheme passed" } else { "scheme FAILED" });
    Ok(if passed { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// What one core made of the implementation: the failures (at most one for the KAT and one for the campaign), each
/// operation's figures (instructions of KAT entry 0, the largest stack over all runs) and KAT entry 0's run.
struct CoreRun {
    failures: Vec<String>,
    figures: [Figures; 3],
    first: EntryRun,
}

/// The KAT entries, then the differential campaign with corrupted ciphertexts, on one core. A wrong value fails its
/// part (the other still runs); a call that fails (a fault, an endless loop, a stack overflow) ends the core's run
/// with its line.
fn run_core(
    scheme: &Scheme,
    build: &KemBuild,
    guest: &mut dyn Backend,
    kat: &[(u64, KemValues)],
    args: &Run,
) -> Result<CoreRun, String> {
    let mut figures: [Figures; 3] = Default::default();
    let mut run = |guest: &mut dyn Backend, seed: &[u8; SEED_SIZE], what: &str| -> Result<EntryRun, String> {
        let run = on_guest::run_entry_painting(guest, build, seed, WHOLE_STACK).map_err(|e| match e {
            GuestKemError::Probe(_) => {
                format!("{what}: stack overflow: the operation wrote over the harness's data ({e})")
            }
            e => format!("{what}: {e}"),
        })?;
        for (f, op) in figures.iter_mut().zip(&run.ops) {
            if op.stack_saturated {
                return Err(format!(
                    "{what}: stack overflow: {} used all {} bytes of free stack and ran into the harness's data",
                    op.op.api_name(),
                    op.stack
                ));
            }
            f.stack = f.stack.max(op.stack);
        }
        Ok(run)
    };
    let mut failures = Vec::new();
    let mut first = None;
    for (count, expected) in kat {
        let entry = run(guest, &expected.seed, &format!("KAT entry {count}"))?;
        let wrong = entry
            .first_difference(expected)
            .map(|name| format!("KAT entry {count}: {name} differs from the .rsp file"));
        first.get_or_insert(entry);
        if let Some(wrong) = wrong {
            failures.push(format!("KAT FAILED: {wrong}"));
            break;
        }
    }
    if failures.is_empty() {
        println!("KAT: {} entries match the .rsp file", kat.len());
    }
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(args.seed);
    let mut agreed = true;
    for i in 0..args.campaign {
        let mut seed = [0u8; SEED_SIZE];
        rng.fill(&mut seed[..]);
        let what = format!("seed {i} ({})", hex::encode(seed));
        let entry = run(guest, &seed, &what)?;
        let expected = (scheme.ours.reference)(&seed);
        let mut wrong =
            entry.first_difference(&expected).map(|name| format!("{what}: {name} differs from the host reference"));
        // Implicit rejection: one byte of the ciphertext changed, the shared secret is J(z || c) on both sides.
        let mut corrupted = expected.ct.clone();
        let at = rng.gen_range(0..corrupted.len());
        corrupted[at] ^= rng.gen_range(1..=255u8);
        let got = on_guest::decapsulate(guest, build, &corrupted, &expected.sk).map_err(|e| format!("{what}: {e}"))?;
        let want = (scheme.decapsulate)(&expected.sk, &corrupted).ok_or("the host reference refuses its own key")?;
        if wrong.is_none() && got != want {
            wrong = Some(format!(
                "{what}: crypto_kem_dec of a corrupted ciphertext (byte {at}) differs from the host reference"
            ));
        }
        if let Some(wrong) = wrong {
            failures.push(format!("differential FAILED: {wrong}"));
            agreed = false;
            break;
        }
    }
    if agreed {
        println!("differential: {} seeds and their corrupted ciphertexts match the host reference", args.campaign);
    }
    let first = first.ok_or("the .rsp file has no entry")?;
    for (f, op) in figures.iter_mut().zip(&first.ops) {
        f.instructions = op.instructions;
    }
    Ok(CoreRun { failures, figures, first })
}

/// `api.h`'s sizes must be the scheme's: each `#define CRYPTO_*BYTES` a literal number, its name bare (pqm4) or
/// namespaced as PQClean's are (`PQCLEAN_MLKEM768_CLEAN_CRYPTO_BYTES`).
fn check_api(scheme: &Scheme, api: &Path) -> Result<()> {
    let text = std::fs::read_to_string(api).map_err(|e| anyhow!("{}: {e}", api.display()))?;
    let sizes = [
        ("CRYPTO_PUBLICKEYBYTES", scheme.ours.public_key),
        ("CRYPTO_SECRETKEYBYTES", scheme.ours.secret_key),
        ("CRYPTO_CIPHERTEXTBYTES", scheme.ours.ciphertext),
        ("CRYPTO_BYTES", scheme.ours.shared_secret),
    ];
    for (name, want) in sizes {
        let value = text.lines().find_map(|l| {
            let mut words = l.split_whitespace();
            let defined = (words.next() == Some("#define")).then(|| words.next()).flatten()?;
            let named = defined == name || defined.strip_suffix(name).is_some_and(|prefix| prefix.ends_with('_'));
            named.then(|| words.next().unwrap_or(""))
        });
        let Some(value) = value else { bail!("{}: no #define {name}", api.display()) };
        match value.parse::<usize>() {
            Ok(got) if got == want => {}
            Ok(got) => bail!("{}: {name} is {got}, {} has {want}", api.display(), scheme.ours.algorithm),
            Err(_) => bail!("{}: {name} is `{value}`, not a number", api.display()),
        }
    }
    Ok(())
}

/// The records of the user's KAT file, each with a 48-byte seed and the scheme's sizes (another scheme's file is
/// refused with the first size that differs).
/// The records of a `.rsp` file, each with its count, every field present with the scheme's size.
fn read_kat(scheme: &Scheme, path: &Path) -> Result<Vec<(u64, KemValues)>> {
    let text = std::fs::read_to_string(path).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let records = pqhelium_core::rsp::parse(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if records.is_empty() {
        bail!("{}: no KAT record", path.display());
    }
    let sizes =
        [SEED_SIZE, scheme.ours.public_key, scheme.ours.secret_key, scheme.ours.ciphertext, scheme.ours.shared_secret];
    let field = |record: &Record, (name, size): (&str, usize)| -> Result<Vec<u8>> {
        let got = record.get(name).ok_or_else(|| anyhow!("{}: count = {}: no {name}", path.display(), record.count))?;
        if got.len() != size {
            bail!(
                "{}: count = {}: {name} is {} bytes, {}'s is {size}: a KAT file of another scheme?",
                path.display(),
                record.count,
                got.len(),
                scheme.ours.algorithm
            );
        }
        Ok(got.to_vec())
    };
    records
        .iter()
        .map(|record| {
            let [seed, pk, sk, ct, ss]: [_; 5] = std::array::from_fn(|i| field(record, (KEM_FIELDS[i], sizes[i])));
            let seed = seed?.try_into().expect("its size is checked");
            Ok((record.count, KemValues { seed, pk: pk?, sk: sk?, ct: ct?, ss: ss? }))
        })
        .collect()
}

/// Estimated cycles of each operation of KAT entry 0 (M55, M85 models), run once more on a profiled worker of the
/// user's image (the DRBG seeded first, so that the same randomness is drawn). None for the M7.
fn estimate_cycles(core: &str, image: Image, build: &KemBuild, run: &EntryRun, figures: &mut [Figures; 3]) {
    let Some(core) = cycles::CORES.into_iter().find(|c| c.name() == core) else { return };
    let mut estimator = match Estimator::on_image(core, image) {
        Ok(estimator) => estimator,
        Err(e) => {
            eprintln!("no cycle estimates for {core}: {e:#}");
            return;
        }
    };
    let v = &run.values;
    let init = vec![Arg::In(v.seed.to_vec()), Arg::U32(0), Arg::U32(256)];
    if let Err(e) = estimator.estimate("randombytes_init", &[init]) {
        eprintln!("no cycle estimates for {core}: {e:#}");
        return;
    }
    let args = [
        vec![Arg::Out(build.public_key), Arg::Out(build.secret_key)],
        vec![Arg::Out(build.ciphertext), Arg::Out(build.shared_secret), Arg::In(v.pk.clone())],
        vec![Arg::Out(build.shared_secret), Arg::In(v.ct.clone()), Arg::In(v.sk.clone())],
    ];
    for ((f, op), args) in figures.iter_mut().zip(Op::ALL).zip(args) {
        match estimator.estimate(&build.symbol(op), &[args]) {
            Ok(estimate) => f.cycles = Some(estimate.cycles),
            Err(e) => eprintln!("no cycle estimate for {} on {core}: {e:#}", build.symbol(op)),
        }
    }
}

fn print_sizes(objects: &[(String, Vec<u8>)]) -> Result<()> {
    let mut total = on_guest::Size::default();
    for (name, bytes) in objects {
        let size = on_guest::object_size(bytes)?;
        println!("size of {name}: {} code, {} data, {} bss", size.code, size.data, size.bss);
        total =
            on_guest::Size { code: total.code + size.code, data: total.data + size.data, bss: total.bss + size.bss };
    }
    println!("size of the implementation: {} code, {} data, {} bss", total.code, total.data, total.bss);
    Ok(())
}

/// One table like pqm4's benchmarks, then where each figure comes from.
fn print_table(build: &KemBuild, table: &[(String, [Figures; 3])]) {
    println!();
    println!("| core | operation | instructions | est. cycles | stack (bytes) |");
    println!("|---|---|---|---|---|");
    for (core, figures) in table {
        for (f, op) in figures.iter().zip(Op::ALL) {
            let cycles = f.cycles.map_or("-".to_string(), |c| format!("{c:.0}"));
            println!("| {core} | {} | {} | {cycles} | {} |", build.symbol(op), f.instructions, f.stack);
        }
    }
    println!();
    println!(
        "instructions: KAT entry 0, counted by the harness (randombytes included); est. cycles: the M55/M85 models \
         (docs/cycles.md), none for the M7; stack: the largest high-water mark over every run (all free stack \
         painted); size: .text/.rodata, .data, .bss of each object"
    );
}
