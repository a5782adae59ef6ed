//! Bring your own object code: a user's objects or sources, linked with our harness for one core, each of their
//! symbols checked against one of our contracts, or one their manifest declares ([`declared`]), through the adapters
//! its manifest gives ([`manifest`], [`crate::foreign`]).
//!
//! Before anything links, every object is checked for the architecture and float ABI of the images and linted
//! ([`pqhelium_analyses::lint`]): a finding refuses the link with its `symbol+offset`.

pub mod declared;
pub mod equiv;
pub mod foreign;
pub mod formula;
pub mod manifest;
pub mod scheme;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use pqhelium_kernels::toolchain::{
    CLANG, CROSS_AR, CROSS_CC, INSTALL_HINT, LINK_FLAGS, M7_FLAGS, M55_FLAGS, M85_FLAGS, OPTIMISATION,
};
use pqhelium_kernels::{GuestImage, Harness};

use crate::foreign::{ForeignArg, ForeignSpec};
use manifest::{ArgEntry, Manifest};
use pqhelium_analyses::lint::{self, Isa, LintError};
use pqhelium_families::Kernel;
use pqhelium_guest::backend::Image;
use pqhelium_guest::elf::GuestElf;

/// How a manifest is loaded beyond its text.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Lint rules (`undecodable`, `potentially-undefined`, `unpredictable-operands`) whose findings do not refuse the
    /// link: an object run for investigation, never a pass ([`Loaded::allowed`]).
    pub allow_lint: Vec<String>,
}

/// What `--manifest` gives the commands: their image, and their kernels in manifest order.
#[derive(Debug)]
pub struct Loaded {
    /// What the build did that the user did not ask for in so many words (a `.s` preprocessed), one line each.
    pub notes: Vec<String>,
    /// The lint findings `--allow-lint` let through, each naming its source line: every result of this image is of
    /// a refused object.
    pub allowed: Vec<String>,
    pub image: Image,
    pub kernels: Vec<&'static Kernel>,
    /// The contract id of each kernel.
    pub contracts: Vec<String>,
    /// The linked ELF on disk.
    pub elf: PathBuf,
    /// Removes the linked ELF when no `-o` asked to keep it.
    _temporary: Option<tempfile::TempPath>,
}

impl Loaded {
    /// Their kernels whose symbol matches a glob pattern.
    pub fn matching(&self, pattern: &str) -> Vec<&'static Kernel> {
        self.kernels.iter().copied().filter(|k| pqhelium_families::glob_match(pattern, k.id)).collect()
    }
}

/// A core a manifest names: its compiler, flags and harness.
struct Core {
    name: &'static str,
    cpu: &'static str,
    /// clang for the Cortex-M85 (as our image), gcc for the others.
    clang: bool,
    cpu_flags: &'static [&'static str],
    /// The flags gcc links with (the M85 links against the M55's libgcc multilib, as our image does).
    link_flags: &'static [&'static str],
    harness: Harness,
    /// The name of our image for this core (its file is `IMAGES_DIR/<name>.elf`).
    image: &'static str,
}

const CORES: [Core; 3] = [
    Core {
        name: "m55",
        cpu: "cortex-m55",
        clang: false,
        cpu_flags: M55_FLAGS,
        link_flags: M55_FLAGS,
        harness: pqhelium_kernels::M55_HARNESS,
        image: pqhelium_kernels::M55_IMAGE.name,
    },
    Core {
        name: "m85",
        cpu: "cortex-m85",
        clang: true,
        cpu_flags: M85_FLAGS,
        link_flags: M55_FLAGS,
        harness: pqhelium_kernels::M85_HARNESS,
        image: pqhelium_kernels::M85_IMAGE.name,
    },
    Core {
        name: "m7",
        cpu: "cortex-m7",
        clang: false,
        cpu_flags: M7_FLAGS,
        link_flags: M7_FLAGS,
        harness: pqhelium_kernels::M7_HARNESS,
        image: pqhelium_kernels::M7_IMAGE.name,
    },
];

/// ELF `e_flags` bit of an object built for the soft-float procedure call standard.
const EF_ARM_ABI_FLOAT_SOFT: u32 = 0x200;

/// Reads the manifest, builds and links their code (to `output`, or to a file next to the manifest's temporary
/// build), and returns their image and kernels. Every error is one line, but for the compiler's own messages.
pub fn load(manifest_path: &Path, output: Option<&Path>) -> Result<Loaded, String> {
    load_with(manifest_path, output, &Options::default())
}

/// [`load`] with options.
pub fn load_with(manifest_path: &Path, output: Option<&Path>, options: &Options) -> Result<Loaded, String> {
    for rule in &options.allow_lint {
        if lint::Rule::named(rule).is_none() {
            let names = lint::Rule::ALL.map(lint::Rule::name);
            return Err(format!(
                "--allow-lint: no rule `{rule}`{} (rules: {})",
                pqhelium_families::did_you_mean(rule, names),
                names.join(", ")
            ));
        }
    }
    let manifest = manifest::read(manifest_path)?;
    let at = |what: String| format!("{}: {what}", manifest_path.display());
    let core = CORES.iter().find(|c| c.name == manifest.core).ok_or_else(|| {
        let near = pqhelium_families::did_you_mean(&manifest.core, CORES.iter().map(|c| c.name));
        at(format!("unknown core `{}`{near} (m55, m85, m7)", manifest.core))
    })?;
    if manifest.kernels.is_empty() {
        return Err(at("no [[kernel]] entry".into()));
    }
    for c in &manifest.contracts {
        declared::check(c).map_err(&at)?;
        if manifest.contracts.iter().filter(|d| d.id == c.id).count() > 1 {
            return Err(at(format!("contract `{}` is declared twice", c.id)));
        }
    }
    for k in &manifest.kernels {
        if pqhelium_families::find(&k.contract).is_none() && !manifest.contracts.iter().any(|c| c.id == k.contract) {
            return Err(at(no_contract(&k.symbol, &k.contract)));
        }
    }
    for (theirs, ours) in &manifest.aliases {
        check_alias(core, theirs, ours).map_err(&at)?;
    }
    let dir = manifest_path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let dir = if dir.as_os_str().is_empty() { PathBuf::from(".") } else { dir };
    let build = tempfile::Builder::new().prefix("pqhelium-link-").tempdir().map_err(|e| e.to_string())?;
    let mut notes = Vec::new();
    let built = build_objects(&manifest, core, &dir, build.path(), &mut notes)?;
    let mut allowed = Vec::new();
    for object in &built {
        allowed.extend(check_object(object, core, &options.allow_lint)?);
    }
    let objects: Vec<PathBuf> = built.into_iter().map(|b| b.path).collect();
    let temporary = match output {
        Some(_) => None,
        None => Some(
            tempfile::Builder::new()
                .prefix("pqhelium-")
                .suffix(".elf")
                .tempfile()
                .map_err(|e| e.to_string())?
                .into_temp_path(),
        ),
    };
    let elf_path = output.map_or_else(|| temporary.as_ref().expect("a temporary").to_path_buf(), Path::to_path_buf);
    let wanted: Vec<&str> = manifest
        .kernels
        .iter()
        .flat_map(|k| {
            let extras = k.args.iter().flatten().filter_map(|a| match a {
                ArgEntry::Extra(e) => e.symbol.as_deref(),
                ArgEntry::Name(_) => None,
            });
            std::iter::once(k.symbol.as_str()).chain(extras)
        })
        .chain(declared::guest_symbols(&manifest.contracts))
        .collect();
    link(core, build.path(), &objects, &wanted, &manifest.aliases, false, &elf_path)?;
    let bytes = std::fs::read(&elf_path).map_err(|e| format!("{}: {e}", elf_path.display()))?;
    let elf = GuestElf::parse(core.name, &bytes).map_err(|e| format!("{}: {e}", elf_path.display()))?;
    let defined = defined_symbols(&bytes)?;
    for symbol in &wanted {
        if !defined.contains(*symbol) {
            let near = pqhelium_families::did_you_mean(symbol, defined.iter().map(String::as_str));
            return Err(at(format!("symbol `{symbol}` is not defined by your objects{near}")));
        }
    }
    let name = format!("{}-{}", manifest_path.file_stem().map_or("user".into(), |s| s.to_string_lossy()), core.name);
    pqhelium_guest::backend::record_manifest(&name, manifest_path);
    let guest: &'static GuestImage = Box::leak(Box::new(GuestImage {
        name: Box::leak(name.into_boxed_str()),
        cpu: core.cpu,
        elf: Box::leak(bytes.into_boxed_slice()),
    }));
    let image = Image::User(guest);
    let mut declared = Vec::new();
    for c in manifest.contracts.iter().filter(|c| manifest.kernels.iter().any(|k| k.contract == c.id)) {
        declared.push(declared::contract(c, image, core.name, &dir).map_err(&at)?);
    }
    let mut kernels = Vec::new();
    for entry in &manifest.kernels {
        let address = |name: &str| elf.symbol(name).ok();
        let kernel = match declared.iter().find(|c| c.id == entry.contract) {
            Some(&contract) => foreign_spec(entry, contract, core.name, &dir, &address)
                .and_then(|spec| foreign::foreign_on(&spec, contract)),
            None => foreign_kernel(entry, core.name, &dir, &address),
        };
        kernels.push(kernel.map_err(&at)?);
    }
    let contracts = manifest.kernels.iter().map(|k| k.contract.clone()).collect();
    Ok(Loaded { notes, allowed, image, kernels, contracts, elf: elf_path, _temporary: temporary })
}

/// The kernel of one manifest entry, as `load` makes it after linking: `address` gives the address of a symbol of
/// their image (`None`: not defined), `dir` is the manifest's directory (order files are relative to it).
pub fn foreign_kernel(
    entry: &manifest::KernelEntry,
    core: &str,
    dir: &Path,
    address: &dyn Fn(&str) -> Option<u32>,
) -> Result<&'static Kernel, String> {
    let contract =
        pqhelium_families::find(&entry.contract).ok_or_else(|| no_contract(&entry.symbol, &entry.contract))?;
    foreign::foreign(&foreign_spec(entry, contract, core, dir, address)?)
}

fn foreign_spec(
    entry: &manifest::KernelEntry,
    contract: &Kernel,
    core: &str,
    dir: &Path,
    address: &dyn Fn(&str) -> Option<u32>,
) -> Result<ForeignSpec, String> {
    let names: Vec<ArgEntry> = match &entry.args {
        Some(args) => args.clone(),
        None => contract.args.iter().map(|a| ArgEntry::Name(a.name.to_string())).collect(),
    };
    // The adapters of an argument's input and output.
    let adapters = |name: &str| match entry.adapt.get(name) {
        Some(a) => a.adapters(dir).map_err(|e| format!("`{}` argument `{name}`: {e}", entry.symbol)),
        None => Ok(Default::default()),
    };
    let mut args = Vec::new();
    let mut adapted = Vec::new();
    for arg in names {
        args.push(match arg {
            ArgEntry::Name(name) => {
                adapted.push(name.clone());
                let (input_adapter, output_adapter) = adapters(&name)?;
                ForeignArg::Contract { input_adapter, output_adapter, name }
            }
            ArgEntry::Extra(extra) => match extra {
                manifest::Extra { symbol: Some(name), scratch: None, constant: None, input: None, in_place: None } => {
                    let address =
                        address(&name).ok_or_else(|| format!("symbol `{name}` is not defined by your objects"))?;
                    ForeignArg::Symbol { name, address }
                }
                manifest::Extra { symbol: None, scratch: Some(bytes), constant: None, input: None, in_place: None } => {
                    ForeignArg::Scratch { bytes }
                }
                manifest::Extra { symbol: None, scratch: None, constant: Some(value), input: None, in_place: None } => {
                    ForeignArg::Constant(value)
                }
                manifest::Extra { symbol: None, scratch: None, constant: None, input: Some(name), in_place: None } => {
                    ForeignArg::InputOf { adapter: adapters(&name)?.0, name }
                }
                manifest::Extra {
                    symbol: None,
                    scratch: None,
                    constant: None,
                    input: None,
                    in_place: Some([input, output]),
                } => {
                    adapted.extend([input.clone(), output.clone()]);
                    ForeignArg::InPlace {
                        input_adapter: adapters(&input)?.0,
                        output_adapter: adapters(&output)?.1,
                        input,
                        output,
                    }
                }
                _ => {
                    return Err(format!(
                        "`{}`: an extra argument is one of {{ symbol = \"name\" }}, {{ scratch = bytes }}, \
                         {{ constant = value }}, {{ input = \"arg\" }}, {{ in-place = [\"in\", \"out\"] }}",
                        entry.symbol
                    ));
                }
            },
        });
    }
    for name in entry.adapt.keys() {
        if !adapted.contains(name) {
            return Err(format!("`{}`: an adapter for `{name}`, which is not among its arguments", entry.symbol));
        }
    }
    let (states, layout) = entry.states()?;
    Ok(ForeignSpec {
        symbol: entry.symbol.clone(),
        contract: entry.contract.clone(),
        args,
        core: core.into(),
        states,
        layout,
    })
}

/// The symbols the linked image defines (`--undefined` leaves those nobody defines in the table, undefined).
fn defined_symbols(elf: &[u8]) -> Result<std::collections::HashSet<String>, String> {
    use object::{Object, ObjectSymbol};
    let file = object::File::parse(elf).map_err(|e| e.to_string())?;
    Ok(file.symbols().filter(|s| s.is_definition()).filter_map(|s| s.name().ok().map(str::to_string)).collect())
}

/// One object to check and link, and how to name it to its author.
struct Built {
    path: PathBuf,
    /// The manifest's source it was compiled from, or the object or archive member as the manifest names it.
    shown: String,
}

/// The C preprocessor's directives: a `.s` holding one was meant for the preprocessor (which `.S` gets), and the
/// assembler alone would take each as a comment.
const DIRECTIVES: [&str; 9] = ["include", "define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif"];

/// The first preprocessor directive of an assembly text: its line number (from 1) and the directive.
pub fn preprocessor_line(text: &str) -> Option<(usize, &'static str)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let rest = line.trim_start().strip_prefix('#')?.trim_start();
        let word = rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '_').next()?;
        DIRECTIVES.iter().find(|d| **d == word).map(|d| (i + 1, *d))
    })
}

/// Their objects, archive members and compiled sources, as files in `build`. Sources are compiled with `-g` before
/// the manifest's flags (a `-g0` there turns it off), so that `ct` and the lint name source lines.
fn build_objects(
    manifest: &Manifest,
    core: &Core,
    dir: &Path,
    build: &Path,
    notes: &mut Vec<String>,
) -> Result<Vec<Built>, String> {
    let mut objects = Vec::new();
    for (i, source) in manifest.sources.iter().enumerate() {
        let path = dir.join(source);
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if !matches!(ext, "c" | "s" | "S") {
            return Err(format!("{}: a source is .c, .s or .S", path.display()));
        }
        if !path.is_file() {
            return Err(format!("{}: no such file", path.display()));
        }
        let stem = path.file_stem().map_or("source".into(), |s| s.to_string_lossy().into_owned());
        let object = build.join(format!("user_{i}_{stem}.o"));
        compile(core, dir, Path::new(source), &manifest.flags, &object, notes)?;
        objects.push(Built { path: object, shown: path.display().to_string() });
    }
    for (i, given) in manifest.objects.iter().enumerate() {
        let path = dir.join(given);
        if !path.is_file() {
            return Err(format!("{}: no such file", path.display()));
        }
        match path.extension().and_then(|e| e.to_str()) {
            Some("o") => objects.push(Built { shown: path.display().to_string(), path }),
            Some("a") => {
                // Members are linted and checked one by one; the archive itself is linked, so that only the members
                // it needs come in.
                let members = build.join(format!("archive_{i}"));
                std::fs::create_dir_all(&members).map_err(|e| e.to_string())?;
                let absolute = std::fs::canonicalize(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                run(Command::new(CROSS_AR).arg("x").arg(&absolute).current_dir(&members), "ar")?;
                let mut listed: Vec<PathBuf> =
                    std::fs::read_dir(&members).map_err(|e| e.to_string())?.map(|e| e.unwrap().path()).collect();
                listed.sort();
                for member in listed {
                    let name = member.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
                    objects.push(Built { shown: format!("{}({name})", path.display()), path: member });
                }
            }
            _ => return Err(format!("{}: an object is .o or .a", path.display())),
        }
    }
    if objects.is_empty() {
        return Err("the manifest names no objects and no sources".into());
    }
    Ok(objects)
}

/// Compiles or assembles one source for `core` (clang for the M85, as our image is built), with `-g`, and our images'
/// optimisation level unless `flags` set one, before `flags`;
/// a `.s` holding preprocessor lines goes through the preprocessor, with a note saying so. The compiler runs in the
/// manifest's folder `dir` on `source` as the manifest names it, so that relative paths in the flags (`-I include`)
/// and the source lines the debug information records are relative to the manifest, as its paths are. `object` is
/// in a temporary directory, whose path tempfile makes absolute.
fn compile(
    core: &Core,
    dir: &Path,
    source: &Path,
    flags: &[String],
    object: &Path,
    notes: &mut Vec<String>,
) -> Result<(), String> {
    let shown = dir.join(source);
    let mut command = Command::new(if core.clang { CLANG } else { CROSS_CC });
    command.current_dir(dir);
    if core.clang {
        command.args(["--target=arm-none-eabi", "-Wa,--noexecstack"]);
        if let Some(include) = newlib_include() {
            command.arg("-isystem").arg(include);
        }
    }
    command.args(core.cpu_flags).args(["-mthumb", "-g"]);
    if !flags.iter().any(|f| f.starts_with("-O")) {
        command.arg(OPTIMISATION);
    }
    command.args(flags).arg("-c");
    if source.extension().is_some_and(|e| e == "s") {
        let text = std::fs::read(&shown).map_err(|e| format!("{}: {e}", shown.display()))?;
        if let Some((line, directive)) = preprocessor_line(&String::from_utf8_lossy(&text)) {
            notes.push(format!(
                "{}:{line}: `#{directive}` in a .s file: assembled through the C preprocessor, as a .S file is",
                shown.display()
            ));
            command.args(["-x", "assembler-with-cpp"]);
        }
    }
    command.arg(source).arg("-o").arg(object);
    run(&mut command, &format!("compiling {} for {}", shown.display(), core.name)).map_err(|e| {
        match e.contains("selected processor does not support") || e.contains("requires: mve") {
            true => format!("{e}\n(core = \"{}\" is a {}; MVE needs core = \"m55\" or \"m85\")", core.name, core.cpu),
            false => e,
        }
    })
}

/// The most lint findings an error or a banner lists; the others are counted.
const FINDINGS_SHOWN: usize = 5;

/// Architecture, float ABI and lint of one object: the findings of the rules `allow` lets through, each with its
/// source line, or the error that refuses the object.
fn check_object(object: &Built, core: &Core, allow: &[String]) -> Result<Vec<String>, String> {
    use object::Object;
    let (path, shown) = (&object.path, &object.shown);
    let data = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    let file = object::File::parse(&*data).map_err(|e| format!("{shown}: not an ELF object ({e})"))?;
    if file.architecture() != object::Architecture::Arm {
        return Err(format!("{shown}: an object for {:?}, not 32-bit Arm (Cortex-M)", file.architecture()));
    }
    let flags = match file.flags() {
        object::FileFlags::Elf { e_flags, .. } => e_flags,
        _ => 0,
    };
    if flags & EF_ARM_ABI_FLOAT_SOFT != 0 {
        return Err(format!(
            "{shown}: built for the soft-float ABI; the bench's images use the hard-float ABI (-mfloat-abi=hard)"
        ));
    }
    let isa = Isa::of_core(core.name).expect("every core has an instruction set");
    let report = lint::lint_file(path, isa).map_err(|e| match e {
        LintError::OtherArchitecture { built_for, .. } => format!(
            "{shown}: built for {built_for}, which core = \"{}\" ({}, Armv7E-M) does not run; use core = \"m55\" or \"m85\"",
            core.name, core.cpu
        ),
        e => format!("{shown}: {e}"),
    })?;
    let (allowed, refused): (Vec<_>, Vec<_>) =
        report.findings.iter().partition(|f| allow.iter().any(|rule| rule == f.rule.name()));
    let described = |findings: &[&lint::Finding]| -> Vec<String> {
        let mut lines: Vec<String> =
            findings.iter().take(FINDINGS_SHOWN).map(|f| format!("{}: {f}", source_line(path, f, shown))).collect();
        if findings.len() > FINDINGS_SHOWN {
            lines.push(format!("and {} more", findings.len() - FINDINGS_SHOWN));
        }
        lines
    };
    if !refused.is_empty() {
        let rules: std::collections::BTreeSet<&str> = refused.iter().map(|f| f.rule.name()).collect();
        return Err(format!(
            "{shown}: the lint refuses it ({} finding{}): {} (`--allow-lint {}` runs it for investigation)",
            refused.len(),
            if refused.len() == 1 { "" } else { "s" },
            described(&refused).join("; "),
            rules.into_iter().collect::<Vec<_>>().join(" --allow-lint ")
        ));
    }
    Ok(described(&allowed))
}

/// `file:line` of a finding from the object's debug lines (`arm-none-eabi-addr2line`, which applies an object's
/// relocations), or the object as the manifest names it when it has none.
fn source_line(object: &Path, finding: &lint::Finding, shown: &str) -> String {
    let out = Command::new(ADDR2LINE)
        .arg("-e")
        .arg(object)
        .args(["-j", &finding.section])
        .arg(format!("{:#x}", finding.address))
        .output();
    let line = out.ok().filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    // addr2line prints `??:0` or `file:?` when it knows nothing; a discriminator may follow the line.
    let Some(line) = line.filter(|l| !l.starts_with("??") && !l.ends_with(":?") && !l.ends_with(":0")) else {
        return shown.to_string();
    };
    let line = line.split(" (discriminator").next().unwrap_or(&line);
    // The source as the manifest names it, rather than as the compiler recorded it; a header stays as recorded.
    match line.rsplit_once(':') {
        Some((file, number)) if Path::new(file).file_name() == Path::new(shown).file_name() => {
            format!("{shown}:{number}")
        }
        _ => line.to_string(),
    }
}

/// The binutils tool that maps an object's addresses to source lines.
const ADDR2LINE: &str = "arm-none-eabi-addr2line";

/// An alias must name a table (a data object) of our kernels for this core, and a name of theirs that is a plain
/// symbol: the linker is given both as they are.
fn check_alias(core: &Core, theirs: &str, ours: &str) -> Result<(), String> {
    use object::read::archive::ArchiveFile;
    use object::{Object, ObjectSymbol, SymbolKind};
    let is_name = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !is_name(theirs) {
        return Err(format!("aliases: `{theirs}` is not a symbol name"));
    }
    let archive = ArchiveFile::parse(core.harness.kernels).map_err(|e| e.to_string())?;
    let mut tables = Vec::new();
    for member in archive.members() {
        let member = member.map_err(|e| e.to_string())?;
        let aligned =
            pqhelium_guest::elf::Aligned::copy_of(member.data(core.harness.kernels).map_err(|e| e.to_string())?);
        let file = object::File::parse(aligned.bytes()).map_err(|e| e.to_string())?;
        for symbol in file.symbols().filter(|s| s.is_definition() && s.is_global() && s.kind() == SymbolKind::Data) {
            match symbol.name() {
                Ok(name) if name == ours => return Ok(()),
                Ok(name) => tables.push(name.to_string()),
                Err(_) => {}
            }
        }
    }
    tables.sort();
    tables.dedup();
    let near = pqhelium_families::did_you_mean(ours, tables.iter().map(String::as_str));
    Err(format!(
        "aliases: `{theirs}` = `{ours}`: our {} kernels have no table `{ours}`{near} (their tables: {}; the image: \
         {}/{}.elf)",
        core.name,
        tables.join(", "),
        pqhelium_kernels::IMAGES_DIR,
        core.image
    ))
}

/// Links their objects with our harness and linker script (and our kernel archive, for what they ask of it: with
/// `with_kernels` or aliases); an undefined symbol is named.
fn link(
    core: &Core,
    build: &Path,
    objects: &[PathBuf],
    wanted: &[&str],
    aliases: &BTreeMap<String, String>,
    with_kernels: bool,
    output: &Path,
) -> Result<(), String> {
    let script = build.join("link.ld");
    std::fs::write(&script, pqhelium_kernels::LINK_SCRIPT).map_err(|e| e.to_string())?;
    let mut harness = Vec::new();
    for (name, bytes) in core.harness.objects {
        let path = build.join(name);
        std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
        harness.push(path);
    }
    let mut command = Command::new(CROSS_CC);
    command.args(core.link_flags).args(LINK_FLAGS).arg(format!("-T{}", script.display())).args(&harness).args(objects);
    // Archive members come in only when something asks for them: their kernels and tables are asked for.
    for symbol in wanted {
        command.arg(format!("-Wl,--undefined={symbol}"));
    }
    if with_kernels || !aliases.is_empty() {
        let archive = build.join("libpqh_kernels.a");
        std::fs::write(&archive, core.harness.kernels).map_err(|e| e.to_string())?;
        for (theirs, ours) in aliases {
            command.arg(format!("-Wl,--undefined={ours}")).arg(format!("-Wl,--defsym={theirs}={ours}"));
        }
        command.arg(&archive);
    }
    // C library helpers (memcpy, memset, __aeabi_*) from newlib and libgcc. newlib's objects say nothing of their
    // stack and are built with variable-size enums, which clang's objects and ours are not: ld's warnings about
    // either would refuse any link that pulls in newlib.
    command.args(["-Wl,--no-warn-execstack", "-Wl,--no-enum-size-warning"]);
    command.args(["-Wl,--start-group", "-lc", "-lgcc", "-Wl,--end-group", "-o"]).arg(output);
    let out = command.output().map_err(|e| format!("cannot run {CROSS_CC}: {e}. {INSTALL_HINT}"))?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    if let Some(line) = stderr.lines().find(|l| l.contains("undefined reference to")) {
        let symbol = line.split("undefined reference to").nth(1).unwrap_or("").trim();
        let symbol = symbol.trim_matches(|c| c == '`' || c == '\'' || c == '"');
        let site = line.split(": ").nth(1).unwrap_or("").trim();
        return Err(format!("link: undefined symbol `{symbol}` (referenced from {site})"));
    }
    // ld: "error: out.elf uses VFP register arguments, their.o does not".
    if let Some(line) = stderr.lines().find(|l| l.contains("uses VFP register arguments")) {
        let object = line.rsplit(", ").next().unwrap_or("").trim_end_matches(" does not").trim();
        return Err(format!(
            "{object}: built for the soft-float ABI; the bench's images use the hard-float ABI (-mfloat-abi=hard)"
        ));
    }
    let first = stderr.lines().find(|l| l.contains("error")).or(stderr.lines().next());
    Err(format!("link failed: {}", first.unwrap_or("no message").trim()))
}

/// Runs a tool; its messages, when it fails, are the error whole (a compiler's are several lines).
fn run(command: &mut Command, what: &str) -> Result<(), String> {
    let out =
        command.output().map_err(|e| format!("{what}: cannot run {:?}: {e}. {INSTALL_HINT}", command.get_program()))?;
    if out.status.success() {
        return Ok(());
    }
    let messages = String::from_utf8_lossy(&out.stderr);
    match messages.trim_end() {
        "" => Err(format!("{what}: failed ({}) with no message", out.status)),
        messages => Err(format!("{what}:\n{messages}")),
    }
}

/// The `"{symbol}: no contract"` error, with the nearest contract id.
pub(crate) fn no_contract(symbol: &str, contract: &str) -> String {
    let near = pqhelium_families::did_you_mean(contract, pqhelium_families::all().map(|k| k.id));
    format!("`{symbol}`: no contract `{contract}`{near} (see `pqhelium list`)")
}

/// newlib's headers next to the cross gcc's `libc.a`, for clang (as the M85 image is built).
fn newlib_include() -> Option<PathBuf> {
    let out = Command::new(CROSS_CC).arg("-print-file-name=libc.a").output().ok()?;
    let libc = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    let include = libc.parent()?.parent()?.join("include");
    include.join("string.h").is_file().then_some(include)
}
