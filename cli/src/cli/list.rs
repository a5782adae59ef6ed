//! `pqhelium list`: every kernel's contract, from the registry's data, as text (people), JSON (tools) or Markdown
//! (docs/kernels.md is this output, and a test keeps it current); then the backends.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::Result;
use pqhelium_families::{self as registry, ArgSpec, Bound, CASE_GENERATORS, Images, Kernel};
use pqhelium_guest::backend::BackendKind;

/// Schema of `pqhelium list --json`.
pub const SCHEMA: &str = "pqhelium-contracts/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

pub fn run(format: Format) -> Result<ExitCode> {
    let kernels: Vec<&Kernel> = registry::all().collect();
    match format {
        Format::Text => {
            print!("{}", text(&kernels));
            print_backends();
        }
        Format::Json => {
            #[derive(serde::Serialize)]
            struct Contracts<'a> {
                schema: &'static str,
                case_generators: u32,
                kernels: &'a [&'a Kernel],
            }
            let contracts = Contracts { schema: SCHEMA, case_generators: CASE_GENERATORS, kernels: &kernels };
            println!("{}", serde_json::to_string_pretty(&contracts)?);
        }
        Format::Markdown => print!("{}", markdown(&kernels)),
    }
    Ok(ExitCode::SUCCESS)
}

fn images(images: Images) -> &'static str {
    match images {
        Images::Both => "m55+m85+m7: QEMU (gcc and clang builds) and unicorn",
        Images::M55Only => "m55+m85: QEMU (gcc and clang builds)",
        Images::HostOnly => "host only: the model backend",
    }
}

/// Every argument, then the return value and the results, with what each is.
fn entries(k: &Kernel) -> impl Iterator<Item = (&'static str, &ArgSpec)> {
    let args = k.args.iter().map(|a| ("", a));
    args.chain(k.returns.iter().map(|a| ("returned", a))).chain(k.results.iter().map(|a| ("result", a)))
}

/// An argument's contract as text: type, length, direction, input bound, output bound, representation, modulus
/// (`-`: not residues mod q), secrecy.
fn fields(a: &ArgSpec) -> [String; 8] {
    let bound = |b: Option<Bound>| b.map_or("-".into(), |b| b.to_string());
    [
        a.elem.name().into(),
        a.len.to_string(),
        a.dir.name().into(),
        bound(a.input),
        bound(a.output),
        a.repr.into(),
        a.modulus.map_or("-".into(), |m| m.to_string()),
        if a.secret { "secret" } else { "public" }.into(),
    ]
}

fn text(kernels: &[&Kernel]) -> String {
    let mut out = String::from("kernels:\n");
    for k in kernels {
        let _ = writeln!(out, "  {} ({}; checked {})", k.id, images(k.images), k.checked.explain());
        let _ = writeln!(out, "      {}", k.summary);
        if let Some(prototype) = k.prototype() {
            let _ = writeln!(out, "      {prototype}");
        }
        let _ = writeln!(out, "      computes: {}", k.computes);
        if !k.requires.is_empty() {
            let _ = writeln!(out, "      requires: {}", k.requires);
        }
        for (role, a) in entries(k) {
            let [elem, len, dir, input, output, repr, modulus, secret] = fields(a);
            let role = if role.is_empty() { String::new() } else { format!("{role} ") };
            let repr = if a.modulus.is_some() { format!("{repr}, {modulus}") } else { repr };
            let _ =
                writeln!(out, "      {role}{} {elem}[{len}] {dir}: in {input}, out {output}, {repr}, {secret}", a.name);
        }
    }
    out
}

fn print_backends() {
    println!("backends:");
    for b in BackendKind::ALL {
        let what = match b {
            BackendKind::Model => "the sim model against the reference (no object code; three-way kernels)",
            BackendKind::Unicorn => "Cortex-M7 image (Thumb-2 + FP64) in process",
            BackendKind::Qemu => "Cortex-M55 image (FP64 + MVE) on qemu-system-arm mps3-an547",
        };
        match b.availability() {
            Ok(()) => println!("  {:<8} available: {what}", b.name()),
            Err(why) => println!("  {:<8} NOT available: {why}", b.name()),
        }
    }
}

/// Markdown cells hold no `|`.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// docs/kernels.md.
fn markdown(kernels: &[&Kernel]) -> String {
    let mut out = String::from(
        "# Kernels\n\n\
         Generated from the kernel registry (`families/src/`) by `pqhelium list --markdown`; a test keeps \
         this file current. `pqhelium list --json` gives the same contracts to tools (schema `pqhelium-contracts/1`; \
         an argument of residues mod q has `\"modulus\": { \"q\": 3329, \"form\": \"plain\" }`, or `\"form\": \
         \"montgomery\"` with `\"log2_r\"`; other arguments have no `modulus`).\n\n\
         Every kernel is checked on every case, on every backend it has: its generated inputs within their input \
         bounds, the model's and the object code's outputs within their output bounds, read-only inputs unchanged. \
         Three-way kernels: reference == canon(model) and model == object code, byte for byte. Two-way kernels (the \
         kernel's order of operations is the definition: the FN-DSA signing FP64 kernels against `fpu::Reference`, \
         the soft-float against IEEE 754): reference == object code, and no model row. Whole schemes (model-only) run \
         on the host: the oracle crate (reference) == pqhelium-core (model).\n\n\
         Lengths are in elements; `2^logn` names the scalar argument `logn`. Bounds: `|x| <= b`, `[lo, hi]`, \
         `canonical mod q` (0..q-1), binary64 magnitudes (`zero or |x| in [2^a, 2^b)`), or `any`. Modulus: `mod q` \
         on an argument whose integers are residues mod q (the contract computes mod q on it; a value stands for \
         itself, or for x R^-1 in Montgomery form), what the factor and form adapters of `docs/byo.md` act on; `-` \
         on any other data.\n\n",
    );
    out.push_str("| kernel | images | checked | summary |\n|---|---|---|---|\n");
    for k in kernels {
        let checked = match k.checked {
            registry::Checked::TwoWay => "two-way",
            registry::Checked::ThreeWay => "three-way",
            registry::Checked::ModelOnly => "model-only",
        };
        let _ = writeln!(
            out,
            "| [`{}`](#{}) | {} | {checked} | {} |",
            k.id,
            anchor(k.id),
            images(k.images),
            cell(&k.summary)
        );
    }
    for k in kernels {
        let _ = write!(out, "\n## {}\n\n{}\n\n", k.id, cell(&k.summary));
        if let Some(prototype) = k.prototype() {
            let _ = write!(out, "`{prototype}`\n\n");
        }
        let _ = writeln!(out, "- images: {}", images(k.images));
        let _ = writeln!(out, "- checked {}", k.checked.explain());
        let _ = writeln!(out, "- computes: {}", k.computes);
        if !k.requires.is_empty() {
            let _ = writeln!(out, "- requires: {}", k.requires);
        }
        let _ = writeln!(out, "- edge cases: {}", k.edge_cases);
        out.push_str(
            "\n| argument | type | length | direction | input bound | output bound | representation | modulus | \
             secrecy |\n|---|---|---|---|---|---|---|---|---|\n",
        );
        for (role, a) in entries(k) {
            let role = if role.is_empty() { String::new() } else { format!(" ({role})") };
            let struct_note = a.c_struct.map_or(String::new(), |s| format!(" (`struct {s}`)"));
            let [elem, len, dir, input, output, repr, modulus, secret] = fields(a).map(|f| cell(&f));
            let _ = writeln!(
                out,
                "| `{}`{role} | {elem} | {len} | {dir} | {input} | {output} | {repr}{struct_note} | {modulus} | \
                 {secret} |",
                a.name
            );
        }
    }
    out
}

/// The GitHub anchor of a heading: lower case, dots dropped.
fn anchor(id: &str) -> String {
    id.chars().filter(|c| c.is_alphanumeric() || *c == '_' || *c == '-').collect::<String>().to_lowercase()
}
