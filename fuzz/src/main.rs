//! `pqhelium-fuzz TARGET`: the AFL entry point of one target of `pqhelium::fuzzing` (persistent mode).
//! `pqhelium-fuzz --list`: the target names, one a line.
//! `pqhelium-fuzz --write-seeds DIR`: writes the seed corpus made by our own encoders under `DIR/<target>/`.

use std::path::Path;
use std::process::ExitCode;

use pqhelium::fuzzing;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--list" => {
            fuzzing::TARGETS.iter().for_each(|t| println!("{}", t.name));
            ExitCode::SUCCESS
        }
        [flag, dir] if flag == "--write-seeds" => write_seeds(Path::new(dir)),
        [name] => match fuzzing::target(name) {
            Some(target) => {
                afl::fuzz!(|data: &[u8]| {
                    (target.run)(data);
                });
                ExitCode::SUCCESS
            }
            None => usage(&format!("no target `{name}`")),
        },
        _ => usage("expected a target name or --write-seeds DIR"),
    }
}

fn write_seeds(dir: &Path) -> ExitCode {
    for (target, name, bytes) in fuzzing::seeds() {
        let path = dir.join(target).join(name);
        if let Err(e) = std::fs::create_dir_all(dir.join(target)).and_then(|()| std::fs::write(&path, &bytes)) {
            eprintln!("{}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ExitCode {
    let names: Vec<&str> = fuzzing::TARGETS.iter().map(|t| t.name).collect();
    eprintln!("{problem}\nusage: pqhelium-fuzz TARGET | --list | --write-seeds DIR\ntargets: {}", names.join(", "));
    ExitCode::from(2)
}
