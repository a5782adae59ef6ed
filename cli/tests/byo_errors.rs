//! What a kernel's author sees when something is wrong: each message of docs/byo.md "Messages" with the mistake that
//! causes it, and every command block of docs/byo.md run as written.

use std::path::{Path, PathBuf};
use std::process::Command;

fn pqhelium_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pqhelium")).args(args).current_dir(dir).output().expect("run pqhelium");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples")
}

/// The worked example's source and manifest.
fn example_source() -> String {
    std::fs::read_to_string(examples().join("byo/basemul_bitrev_mont.S")).unwrap()
}

fn example_manifest(source: &str, core: &str) -> String {
    std::fs::read_to_string(examples().join("byo/byo.toml"))
        .unwrap()
        .replace("basemul_bitrev_mont.S", source)
        .replace("core = \"m55\"", &format!("core = \"{core}\""))
}

/// A directory holding `m.toml` and these files.
fn project(manifest: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // The examples' shared header, included by the worked example's source.
    std::fs::copy(examples().join("byo/mlkem_mont.h"), dir.path().join("mlkem_mont.h")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    std::fs::write(dir.path().join("m.toml"), manifest).unwrap();
    dir
}

/// The 1-based number of the first line of `text` containing `what`.
fn line_of(text: &str, what: &str) -> usize {
    text.lines().position(|l| l.contains(what)).expect("the line is there") + 1
}

#[test]
fn a_dot_s_with_preprocessor_lines_is_preprocessed_with_a_note_on_stderr_and_stdout_is_the_table() {
    // The example's `.S` renamed `.s`: its `#include` and `#ifdef MUTANT ... #else ... #endif` need the preprocessor
    // (without it, the include is an error and both branches' table entries are assembled).
    let source = example_source();
    let dir = project(&example_manifest("plain.s", "m55"), &[("plain.s", &source)]);
    let (code, out, err) = pqhelium_in(dir.path(), &["check", "--manifest", "m.toml", "--cases", "20", "--jobs", "1"]);
    assert_eq!(code, 0, "{out}{err}");
    let first = line_of(&source, "#include");
    let note = format!("note: ./plain.s:{first}: `#include` in a .s file: assembled through the C preprocessor");
    assert!(err.contains(&note), "{err}");
    // Logs go to stderr: stdout is the heading, one table, the kernel's description and the totals.
    assert!(!out.contains("note:"), "{out}");
    let table: Vec<usize> = out.lines().enumerate().filter(|(_, l)| l.starts_with('|')).map(|(i, _)| i).collect();
    assert_eq!(table.len(), 3, "{out}");
    assert_eq!(table[2] - table[0], 2, "the table's lines are together: {out}");
    assert!(out.starts_with("## Your kernels") && out.ends_with("check passed\n"), "{out}");
}

/// The example plus a function holding `ldrd r0, r0, [r1]` (equal destinations: UNPREDICTABLE), as an encoding.
fn with_unpredictable_ldrd() -> String {
    format!(
        "{}\n    .text\n    .global byo_bad\n    .type byo_bad, %function\nbyo_bad:\n    .inst.w 0xe9d10000\n    bx lr\n",
        example_source()
    )
}

#[test]
fn a_lint_refusal_names_the_source_line_and_allow_lint_runs_it_marked_as_not_a_pass() {
    let source = with_unpredictable_ldrd();
    let dir = project(&example_manifest("lint.S", "m55"), &[("lint.S", &source)]);
    let check = ["check", "--manifest", "m.toml", "--cases", "5", "--jobs", "1"];
    let (code, out, err) = pqhelium_in(dir.path(), &check);
    assert_eq!(code, 2, "{out}{err}");
    let at = format!("./lint.S:{}: byo_bad+0x0", line_of(&source, ".inst.w 0xe9d10000"));
    assert!(err.contains(&at) && err.contains("unpredictable-operands"), "{err}");
    assert!(err.contains("`--allow-lint unpredictable-operands` runs it for investigation"), "{err}");
    assert!(!err.contains("user_0_"), "no temporary object named: {err}");

    let (code, out, err) = pqhelium_in(dir.path(), &[&check[..], &["--allow-lint", "unpredictable-operands"]].concat());
    assert_eq!(code, 1, "a run of a refused object is not a pass: {out}{err}");
    assert!(out.starts_with("INVESTIGATION ONLY: the lint refuses m.toml:") && out.contains(&at), "{out}");
    assert!(out.contains("| byo_basemul_bitrev_mont | mlkem.basemul.scalar | qemu (m-m55) | 5 | 0 | 0 |"), "{out}");
    assert!(out.contains("| INVESTIGATION ONLY |"), "{out}");
    assert!(out.trim_end().ends_with("(--allow-lint): not a pass"), "{out}");

    let (code, _, err) = pqhelium_in(dir.path(), &[&check[..], &["--allow-lint", "unpredictable"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("no rule `unpredictable`, did you mean `unpredictable-operands`?"), "{err}");
}

#[test]
fn an_alias_error_lists_every_table_of_the_core_and_where_the_image_is() {
    let manifest =
        example_manifest("b.S", "m55").replace("[[kernel]]", "[aliases]\nbyo_zeta = \"pqh_zeta\"\n[[kernel]]");
    let dir = project(&manifest, &[("b.S", &example_source())]);
    let (code, out, err) = pqhelium_in(dir.path(), &["link", "--manifest", "m.toml", "-o", "their.elf"]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no table `pqh_zeta`, did you mean `pqh_mlkem_zeta`?"), "{err}");
    // Tables of every family, not only the first few: the FN-DSA FPU's and ML-KEM's.
    for table in ["fndsa_fpu_gm", "pqh_mlkem_zeta", "pqh_mlkem_gamma"] {
        assert!(err.contains(&format!("{table},")) || err.contains(&format!("{table};")), "{table}: {err}");
    }
    let image = err.split("the image: ").nth(1).expect("the image is named").trim_end().trim_end_matches(')');
    assert!(image.ends_with("pqhelium-m55.elf") && Path::new(image).is_file(), "{image}");
}

#[test]
fn sources_are_built_with_debug_lines_unless_the_flags_say_g0() {
    // A source name found nowhere else: in the linked image only through its debug lines.
    let name = "only_in_debug_lines_7f3a.S";
    for (flags, present) in [("", true), ("flags = [\"-g0\"]\n", false)] {
        let manifest = format!("{flags}{}", example_manifest(name, "m55"));
        let dir = project(&manifest, &[(name, &example_source())]);
        let (code, out, err) = pqhelium_in(dir.path(), &["link", "--manifest", "m.toml", "-o", "their.elf"]);
        assert_eq!(code, 0, "{out}{err}");
        let elf = std::fs::read(dir.path().join("their.elf")).unwrap();
        let found = elf.windows(name.len()).any(|w| w == name.as_bytes());
        assert_eq!(found, present, "flags `{flags}`");
    }
}

const MVE_SOURCE: &str = "    .syntax unified\n    .thumb\n    .text\n    .global byo_basemul_bitrev_mont\n    \
                          .type byo_basemul_bitrev_mont, %function\nbyo_basemul_bitrev_mont:\n    vldrw.u32 q0, [r0]\n    \
                          vstrw.u32 q0, [r2]\n    bx lr\n";

#[test]
fn the_assemblers_messages_are_shown_whole() {
    let manifest = example_manifest("mve.S", "m7").replace(", { symbol = \"byo_gammas_mont\" }", "");
    let dir = project(&manifest, &[("mve.S", MVE_SOURCE)]);
    let (code, out, err) = pqhelium_in(dir.path(), &["link", "--manifest", "m.toml", "-o", "their.elf"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("Assembler messages:"), "{err}");
    for (line, instruction) in [(7, "vldrw.u32 q0,[r0]"), (8, "vstrw.u32 q0,[r2]")] {
        let message = format!("mve.S:{line}: Error: selected processor does not support `{instruction}'");
        assert!(err.contains(&message), "{message}: {err}");
    }
    assert!(err.contains("MVE needs core = \"m55\" or \"m85\""), "{err}");
}

#[test]
fn an_object_for_another_core_is_one_line() {
    let dir = project("", &[("mve.S", MVE_SOURCE)]);
    let status = Command::new("arm-none-eabi-gcc")
        .args(["-mcpu=cortex-m55", "-mfloat-abi=hard", "-mthumb", "-c", "mve.S", "-o", "m55.o"])
        .current_dir(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let manifest = example_manifest("x", "m7")
        .replace("sources = [\"x\"]", "objects = [\"m55.o\"]")
        .replace(", { symbol = \"byo_gammas_mont\" }", "");
    std::fs::write(dir.path().join("m.toml"), manifest).unwrap();
    let (code, out, err) = pqhelium_in(dir.path(), &["link", "--manifest", "m.toml", "-o", "their.elf"]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.len() < 300, "{err}");
    assert!(err.contains("./m55.o: built for Armv8.1-M mainline with MVE"), "{err}");
    assert!(err.contains("core = \"m7\" (cortex-m7, Armv7E-M) does not run; use core = \"m55\" or \"m85\""), "{err}");
}

#[test]
fn repro_labels_each_buffer_with_its_layout_and_shows_what_it_compared() {
    let manifest = examples().join("byo/byo.toml");
    let args = ["repro", "--manifest", manifest.to_str().unwrap(), "--kernel", "byo_basemul_bitrev_mont"];
    let (code, out, err) = pqhelium_in(&examples(), &[&args[..], &["--seed", "3", "--case", "1"]].concat());
    assert_eq!(code, 0, "{out}{err}");
    let buffer = |label: &str| {
        let line = out.lines().find(|l| l.contains(label)).unwrap_or_else(|| panic!("{label}: {out}"));
        line.rsplit(' ').next().unwrap().to_string()
    };
    assert!(out.contains("arg 0 in     (input, kernel layout) "), "{out}");
    let reference = buffer("reference    buffer 0 (reference, contract layout): ");
    let theirs = buffer("qemu         buffer 0 (output, kernel layout): ");
    let undone = buffer("canon(qemu)  buffer 0 (output, adapters undone, contract layout): ");
    // Their output differs from the reference as shown, and equals it once the adapters are undone: what was compared.
    assert_ne!(theirs, reference);
    assert_eq!(undone, reference);
    // The reference in the kernel's layout (bit-reversed, times 2^16 mod q) holds their output's residues, place by
    // place.
    let residues = |hex_text: &str| -> Vec<i32> {
        let bytes = hex::decode(hex_text).unwrap();
        bytes.chunks(2).map(|b| i32::from(i16::from_le_bytes([b[0], b[1]])).rem_euclid(3329)).collect()
    };
    let in_their_layout = buffer("reference    buffer 0 (reference, kernel layout): ");
    assert_ne!(in_their_layout, reference);
    assert_eq!(residues(&in_their_layout), residues(&theirs));
    assert!(out.contains("compared: reference and canon(qemu), both in the contract's layout\n"), "{out}");
    assert!(out.trim_end().ends_with("no difference"), "{out}");
}

#[test]
fn an_unaligned_access_is_decoded_from_the_fault_status() {
    // ldr.w does unaligned loads; ldrd does not (Armv8-M: UNALIGNED is set whatever CCR.UNALIGN_TRP says).
    let source = "    .syntax unified\n    .thumb\n    .text\n    .global byo_basemul_bitrev_mont\n    \
                  .type byo_basemul_bitrev_mont, %function\nbyo_basemul_bitrev_mont:\n    adds r0, #2\n    ldrd r2, r3, [r0]\n    \
                  bx lr\n";
    let manifest = example_manifest("u.S", "m55").replace(", { symbol = \"byo_gammas_mont\" }", "");
    let dir = project(&manifest, &[("u.S", source)]);
    let (code, out, err) = pqhelium_in(dir.path(), &["check", "--manifest", "m.toml", "--cases", "1", "--jobs", "1"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("usage fault: unaligned access (UNALIGNED), CFSR 0x01000000 at 0x"), "{out}");
    assert!(out.contains("(byo_basemul_bitrev_mont+0x2)"), "{out}");
}

#[test]
fn mistakes_get_the_nearest_valid_name() {
    let source = example_source();
    let cases: [(&[(&str, &str)], &str); 5] = [
        (&[("mlkem.basemul.scalar\"", "mlkem.basemul.scaler\"")], "did you mean `mlkem.basemul.scalar`?"),
        (
            &[("symbol = \"byo_basemul_bitrev_mont", "symbol = \"byo_basemul_bitrev_mnt")],
            "did you mean `byo_basemul_bitrev_mont`?",
        ),
        (
            &[("\"a\", \"b\", \"out\"", "\"a\", \"bb\", \"out\""), ("adapt.b]", "adapt.bb]")],
            "`bb` is not an argument of the contract, did you mean `b`?",
        ),
        (&[("output-bound", "output-bounds")], "did you mean `output-bound`?"),
        (&[("core = \"m55\"", "core = \"m56\"")], "unknown core `m56`, did you mean `m55`?"),
    ];
    for (edits, expected) in cases {
        let manifest = edits.iter().fold(example_manifest("b.S", "m55"), |m, (from, to)| m.replace(from, to));
        let dir = project(&manifest, &[("b.S", &source)]);
        let (code, out, err) = pqhelium_in(dir.path(), &["link", "--manifest", "m.toml", "-o", "their.elf"]);
        assert_eq!(code, 2, "{edits:?}: {out}{err}");
        assert!(err.contains(expected), "{edits:?}: {err}");
    }
    let manifest = examples().join("byo/byo.toml");
    let manifest = manifest.to_str().unwrap();
    let commands: [(&[&str], &str); 4] = [
        (&["repro", "--kernel", "mlkem.basemul.scaler", "--backend", "model", "--seed", "1", "--case", "0"], "scalar"),
        (&["fuzz", "--kernel", "mlkem.basemul.scalr*", "--backend", "model", "--cases", "1"], "mlkem.basemul.scalar"),
        (&["check", "--manifest", manifest, "--allow-lint", "undecodabl"], "undecodable"),
        (
            &["fuzz", "--manifest", manifest, "--kernel", "byo_basemul_bitrev", "--cases", "1"],
            "byo_basemul_bitrev_mont",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (args, nearest) in commands {
        let (code, out, err) = pqhelium_in(dir.path(), args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains("did you mean `") && err.contains(nearest), "{args:?}: {err}");
    }
}

/// Every line of docs/byo.md's ```sh blocks, run from a directory where `examples/` is the repository's: exit code 0,
/// or the one a `# exit N` comment at the end of the line gives.
#[test]
fn the_commands_of_docs_byo_run_as_written() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/byo.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_block = false;
    for line in doc.lines() {
        match line.trim() {
            "```sh" => in_block = true,
            "```" => in_block = false,
            command if in_block && !command.is_empty() => commands.push(command.to_string()),
            _ => {}
        }
    }
    assert!(commands.len() >= 5, "{commands:?}");
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(examples(), dir.path().join("examples")).unwrap();
    for line in commands {
        let (command, expected) = match line.split_once("# exit ") {
            Some((command, code)) => (command.trim(), code.trim().parse().unwrap()),
            None => (line.as_str(), 0),
        };
        let words: Vec<&str> = command.split_whitespace().map(|w| w.trim_matches('\'')).collect();
        assert_eq!(words[0], "pqhelium", "{line}");
        let (code, out, err) = pqhelium_in(dir.path(), &words[1..]);
        assert_eq!(code, expected, "{line}: {out}{err}");
    }
}

/// stdout and stderr into one pipe, as on a terminal: the build's note comes before the heading, and the table's lines
/// stay together whatever runs in parallel.
#[test]
fn logs_never_interleave_with_the_table() {
    let source = example_source();
    let manifest = example_manifest("plain.s", "m55");
    let second = manifest.split("[[kernel]]").nth(1).unwrap().replace("contract =", "# the same, twice\ncontract =");
    let dir = project(&format!("{manifest}\n[[kernel]]{second}"), &[("plain.s", &source)]);
    let out = Command::new("sh")
        .args(["-c", &format!("{} check --manifest m.toml --cases 40 --jobs 2 2>&1", env!("CARGO_BIN_EXE_pqhelium"))])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let note = lines.iter().position(|l| l.starts_with("note: ")).expect(&text);
    let heading = lines.iter().position(|l| l.starts_with("## Your kernels")).expect(&text);
    assert!(note < heading, "{text}");
    let table: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].starts_with('|')).collect();
    assert_eq!(table.len(), 4, "a heading, a rule and two rows: {text}");
    assert_eq!(table[3] - table[0], 3, "the table's lines are together: {text}");
}

#[test]
fn the_compilers_messages_are_shown_whole() {
    let source = "void k(int *p) {\n    p[0] = undeclared_one;\n    p[1] = undeclared_two;\n}\n";
    let manifest =
        "core = \"m55\"\nsources = [\"k.c\"]\n[[kernel]]\nsymbol = \"k\"\ncontract = \"mlkem.poly.reduce.scalar\"\n";
    let dir = project(manifest, &[("k.c", source)]);
    let (code, out, err) = pqhelium_in(dir.path(), &["link", "--manifest", "m.toml", "-o", "their.elf"]);
    assert_eq!(code, 2, "{out}{err}");
    for (line, name) in [(2, "undeclared_one"), (3, "undeclared_two")] {
        let message = format!("k.c:{line}:12: error: '{name}' undeclared");
        assert!(err.contains(&message), "{message}: {err}");
    }
}
