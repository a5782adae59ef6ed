//! The contract comments of the C kernel sources are checked against the registry: every kernel id a comment names
//! (literally, through a brace list `a.{b,c}.d` or a trailing `*`) is registered, every registered kernel with
//! object code is named by a comment in the directory of its symbol, and the head comment of a C file that defines
//! kernels names a model (`Model: ...`) exactly when they are checked three ways.

use std::collections::BTreeSet;
use std::path::PathBuf;

use pqhelium_families::{Checked, Images, Kernel, all, glob_match};

/// The `/* ... */` blocks of a source, the first (its head, where its contract is written) first.
fn comments(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("/*") {
        let Some(len) = rest[start..].find("*/") else { break };
        out.push(&rest[start + 2..start + len]);
        rest = &rest[start + len + 2..];
    }
    out
}

/// `a.{b,c}.d` -> `a.b.d`, `a.c.d`.
fn expand(word: &str) -> Vec<String> {
    match (word.find('{'), word.find('}')) {
        (Some(open), Some(close)) if open < close => word[open + 1..close]
            .split(',')
            .flat_map(|alt| expand(&format!("{}{alt}{}", &word[..open], &word[close + 1..])))
            .collect(),
        _ => vec![word.to_string()],
    }
}

/// The kernel ids (or id globs) a comment names: dotted words whose first part is a family's.
fn named_ids(comment: &str, families: &BTreeSet<&str>) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut depth = 0;
    for c in comment.chars().chain([' ']) {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '*' | '{' | '}') || (c == ',' && depth > 0) {
            word.push(c);
        } else if !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
    }
    words
        .iter()
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| w.contains('.') && ![".c", ".h", ".S", ".rs"].iter().any(|ext| w.ends_with(ext)))
        .filter(|w| w.split('.').next().is_some_and(|family| families.contains(family)))
        .flat_map(expand)
        .collect()
}

/// Every kernel source (C, headers, assembly) outside the harness, the self-tests and the calibration kernels, in
/// subdirectories too (a family's SLOTHY-scheduled kernels).
fn sources() -> Vec<(PathBuf, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(PathBuf, String)>) {
        for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push((path.clone(), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../kernels/arm"));
    let mut out = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()) {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if ["harness", "selftest", "calibration", "mve_validate"].contains(&name.as_str()) {
            continue;
        }
        walk(&dir, &mut out);
    }
    out.sort();
    out
}

fn with_object_code(k: &Kernel) -> bool {
    k.images != Images::HostOnly
}

#[test]
fn every_kernel_comment_agrees_with_the_registry() {
    let families: BTreeSet<&str> = all().map(|k| k.id.split('.').next().unwrap()).collect();
    let mut named: BTreeSet<&str> = BTreeSet::new();
    let mut problems = Vec::new();
    let sources = sources();
    for (path, text) in &sources {
        let dir = path.parent().unwrap();
        for (n, comment) in comments(text).into_iter().enumerate() {
            let mut defined_here: Vec<&Kernel> = Vec::new();
            for id in named_ids(comment, &families) {
                // A family's or a group's name (`ct.fixture`) is a prefix of registered ids.
                let matched: Vec<&Kernel> = all().filter(|k| glob_match(&id, k.id)).collect();
                if matched.is_empty() && !all().any(|k| k.id.starts_with(&format!("{id}."))) {
                    problems.push(format!("{}: names {id}, which is no registered kernel", path.display()));
                }
                for k in matched.into_iter().filter(|k| with_object_code(k)) {
                    if sources.iter().any(|(p, t)| p.parent() == Some(dir) && t.contains(k.symbol)) {
                        named.insert(k.id);
                    }
                    if n == 0 && path.extension().is_some_and(|e| e == "c") && text.contains(&format!("{}(", k.symbol))
                    {
                        defined_here.push(k);
                    }
                }
            }
            let names_model = comment.contains("Model:");
            for k in defined_here {
                if names_model != (k.checked == Checked::ThreeWay) {
                    let why = if names_model { "names a model" } else { "names no model (Model: ...)" };
                    problems.push(format!("{}: {why} for {}, checked {:?}", path.display(), k.id, k.checked));
                }
            }
        }
    }
    for k in all().filter(|k| with_object_code(k) && !named.contains(k.id)) {
        problems.push(format!("{}: no head comment beside its symbol {} names it", k.id, k.symbol));
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn comment_ids_are_read_with_brace_lists_and_globs() {
    let families = BTreeSet::from(["mlkem", "keccak"]);
    let comment = " * mlkem.compress.{du10,dv4}.mve, keccak.f1600: see keccak.h and fft.c; mlkem.poly.* too.\n";
    assert_eq!(
        named_ids(comment, &families),
        ["mlkem.compress.du10.mve", "mlkem.compress.dv4.mve", "keccak.f1600", "mlkem.poly.*"]
    );
}
