//! A whole scheme of a user's, as pqm4 lays one out (a directory with `api.h` and its sources), built and linked
//! with our harness for one core: the same compiler, flags, checks (architecture, float ABI, lint) and linker as a
//! kernel manifest, with our kernel archive for what the scheme asks of the harness (`randombytes`, the stack
//! probes, `memcpy` and the like) and the pqm4 common headers (`randombytes.h`, `fips202.h`) on the include path.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pqhelium_guest::backend::Image;
use pqhelium_kernels::GuestImage;

use crate::manifest::Manifest;
use crate::{CORES, build_objects, check_object, defined_symbols, link};

/// What the host calls besides the scheme (`pqhelium_schemes::on_guest`), from our kernel archive: the DRBG and
/// its state, the stack probes, the replayed randomness of constant-time pairs.
const HARNESS_SYMBOLS: [&str; 7] = [
    "randombytes_init",
    "pqh_randombytes_save",
    "pqh_randombytes_restore",
    "pqh_stack_paint",
    "pqh_stack_scan",
    "pqh_with_randomness2",
    "pqh_with_randomness3",
];

/// What to build: paths relative to `dir` (the scheme manifest's directory).
#[derive(Debug, Clone)]
pub struct SchemeSources<'a> {
    pub core: &'a str,
    pub dir: &'a Path,
    pub sources: &'a [PathBuf],
    pub objects: &'a [PathBuf],
    pub flags: &'a [String],
    /// Include directories, searched before the harness's headers.
    pub include: &'a [PathBuf],
    /// The symbols the scheme must define (its pqm4 API).
    pub wanted: &'a [String],
}

/// A user's scheme linked for one core.
#[derive(Debug)]
pub struct LinkedScheme {
    pub image: Image,
    /// Each of their objects as the manifest names it (a source, an object, an archive member), with its bytes.
    pub objects: Vec<(String, Vec<u8>)>,
}

/// Builds and links a scheme; every error is one line but for the compiler's own messages, shown whole.
pub fn link_scheme(what: &SchemeSources) -> Result<LinkedScheme, String> {
    let core = CORES.iter().find(|c| c.name == what.core).ok_or_else(|| {
        let near = pqhelium_families::did_you_mean(what.core, CORES.iter().map(|c| c.name));
        format!("unknown core `{}`{near} (m55, m85, m7)", what.core)
    })?;
    let build = tempfile::Builder::new().prefix("pqhelium-scheme-").tempdir().map_err(|e| e.to_string())?;
    let headers = build.path().join("include");
    std::fs::create_dir_all(&headers).map_err(|e| e.to_string())?;
    for (name, text) in pqhelium_kernels::SCHEME_HEADERS {
        std::fs::write(headers.join(name), text).map_err(|e| e.to_string())?;
    }
    let mut flags: Vec<String> = what.flags.to_vec();
    for dir in what.include {
        let dir = what.dir.join(dir);
        if !dir.is_dir() {
            return Err(format!("{}: no such directory", dir.display()));
        }
        // Absolute: the compiler runs in the manifest's folder, whatever folder `what.dir` is relative to.
        let dir = std::path::absolute(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        flags.push(format!("-I{}", dir.display()));
    }
    flags.push(format!("-I{}", headers.display()));
    let manifest = Manifest {
        core: core.name.to_string(),
        objects: what.objects.to_vec(),
        sources: what.sources.to_vec(),
        flags,
        aliases: BTreeMap::new(),
        contracts: Vec::new(),
        kernels: Vec::new(),
    };
    let built = build_objects(&manifest, core, what.dir, build.path(), &mut Vec::new())?;
    let mut objects = Vec::new();
    for object in &built {
        check_object(object, core, &[])?;
        let bytes = std::fs::read(&object.path).map_err(|e| format!("{}: {e}", object.shown))?;
        objects.push((object.shown.clone(), bytes));
    }
    let paths: Vec<PathBuf> = built.iter().map(|b| b.path.clone()).collect();
    let wanted: Vec<&str> = what.wanted.iter().map(String::as_str).collect();
    let linked: Vec<&str> = wanted.iter().copied().chain(HARNESS_SYMBOLS).collect();
    let elf_path = build.path().join("scheme.elf");
    link(core, build.path(), &paths, &linked, &BTreeMap::new(), true, &elf_path)?;
    let bytes = std::fs::read(&elf_path).map_err(|e| format!("{}: {e}", elf_path.display()))?;
    let defined = defined_symbols(&bytes)?;
    for symbol in &wanted {
        if !defined.contains(*symbol) {
            let near = pqhelium_families::did_you_mean(symbol, defined.iter().map(String::as_str));
            return Err(format!("missing API symbol: `{symbol}` is not defined by the implementation{near}"));
        }
    }
    let guest: &'static GuestImage = Box::leak(Box::new(GuestImage {
        name: Box::leak(format!("scheme-{}", core.name).into_boxed_str()),
        cpu: core.cpu,
        elf: Box::leak(bytes.into_boxed_slice()),
    }));
    Ok(LinkedScheme { image: Image::User(guest), objects })
}

/// The manifest of a scheme (`pqhelium scheme --manifest`, docs/schemes.md): paths relative to the manifest.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SchemeManifest {
    /// The scheme and parameter set (`ml-kem-768`).
    pub scheme: String,
    /// The implementation's directory as pqm4 lays it out (`crypto_kem/<scheme>/<impl>/`): its `api.h` is checked,
    /// its `.c`, `.S` and `.s` files are the sources, and it is on the include path.
    pub implementation: PathBuf,
    /// More sources, outside the implementation's directory.
    #[serde(default)]
    pub sources: Vec<PathBuf>,
    /// Objects and archives (`.o`, `.a`).
    #[serde(default)]
    pub objects: Vec<PathBuf>,
    /// Flags for the sources (`-O2`, `-DNAME`).
    #[serde(default)]
    pub flags: Vec<String>,
    /// More include directories.
    #[serde(default)]
    pub include: Vec<PathBuf>,
    /// Prepended to the API's names (`crypto_kem_keypair`), for an implementation namespaced as PQClean's are.
    #[serde(default)]
    pub namespace: String,
    /// The cores to run on (`m55`, `m85`, `m7`).
    pub cores: Vec<String>,
    /// The NIST KAT file (`PQCkemKAT_*.rsp`).
    pub kat: PathBuf,
    /// Functions whose differences in a constant-time pair are public by design (`--ct-pairs`): a rejection sampler
    /// reading rho, which a key pair's pair cannot keep equal. What runs after such a difference is not compared.
    #[serde(default)]
    pub ct_public: Vec<String>,
    /// Seconds one batch of calls may take before it counts as an endless loop.
    #[serde(default = "default_timeout")]
    pub timeout_seconds: u64,
}

fn default_timeout() -> u64 {
    10
}

impl SchemeManifest {
    /// Reads a scheme manifest; an error is one line, `path:line:column: message`.
    pub fn read(path: &Path) -> Result<SchemeManifest, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        crate::manifest::parse_toml(&text).map_err(|e| format!("{}:{e}", path.display()))
    }

    /// The implementation's sources (its directory's `.c`, `.S`, `.s`, sorted) then the manifest's, relative to the
    /// manifest's directory `dir`.
    pub fn all_sources(&self, dir: &Path) -> Result<Vec<PathBuf>, String> {
        let listed = std::fs::read_dir(dir.join(&self.implementation))
            .map_err(|e| format!("{}: {e}", dir.join(&self.implementation).display()))?;
        let mut own: Vec<PathBuf> = listed
            .filter_map(Result::ok)
            .map(|e| self.implementation.join(e.file_name()))
            .filter(|p| p.extension().is_some_and(|x| x == "c" || x == "S" || x == "s"))
            .collect();
        own.sort();
        own.extend(self.sources.iter().cloned());
        Ok(own)
    }
}
