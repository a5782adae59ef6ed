//! Replays the fuzz corpus `fuzz/corpus/<target>/` (the seeds, and every crash AFL found, minimised) through the
//! same target functions as the AFL binary: none may panic, and each target has seeds its parser accepts, so that
//! its properties (re-encoding, agreement with the oracle crates) are checked here too.

use std::path::{Path, PathBuf};

use pqhelium::fuzzing::{TARGETS, Verdict};

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus").join(target)
}

#[test]
fn every_corpus_input_passes_its_target() {
    for target in TARGETS {
        let dir = corpus_dir(target.name);
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut accepted = 0;
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let verdict = std::panic::catch_unwind(|| (target.run)(&data))
                .unwrap_or_else(|_| panic!("{} panicked on {}", target.name, path.display()));
            accepted += usize::from(verdict == Verdict::Accepted);
        }
        assert!(accepted > 0, "{}: no input of {} is accepted", target.name, dir.display());
    }
}

#[test]
fn every_corpus_directory_is_a_target() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    for entry in std::fs::read_dir(&corpus).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(TARGETS.iter().any(|t| t.name == name), "fuzz/corpus/{name} has no target");
    }
}
