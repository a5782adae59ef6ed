//! Known-answer tests from `vectors/` (embedded at build time): each entry runs the reference in `pqhelium-core`.

use pqhelium_core::keccak;

const FIPS202: &str = include_str!("../../vectors/fips202.kat");

#[derive(Debug, Clone)]
pub struct KatResult {
    pub suite: &'static str,
    pub name: String,
    pub passed: bool,
    pub detail: String,
}

/// Runs every known answer pqhelium has.
pub fn run_all() -> Vec<KatResult> {
    FIPS202
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let result = match fields.as_slice() {
                [function, message, expected] => check_fips202(function, message, expected),
                _ => Err(format!("malformed line `{line}`")),
            };
            let name = fields.iter().take(2).copied().collect::<Vec<_>>().join(" ");
            match result {
                Ok(()) => KatResult { suite: "fips202", name, passed: true, detail: String::new() },
                Err(detail) => KatResult { suite: "fips202", name, passed: false, detail },
            }
        })
        .collect()
}

fn check_fips202(function: &str, message: &str, expected: &str) -> Result<(), String> {
    let message = if message == "-" { Vec::new() } else { hex::decode(message).map_err(|e| e.to_string())? };
    let expected = hex::decode(expected).map_err(|e| e.to_string())?;
    let got: Vec<u8> = match function {
        "keccak-f1600-zero-lane0" | "keccak-f1600-twice-lane0" => {
            let mut state = [0u64; 25];
            keccak::keccak_f1600(&mut state);
            if function == "keccak-f1600-twice-lane0" {
                keccak::keccak_f1600(&mut state);
            }
            state[0].to_le_bytes().to_vec()
        }
        "sha3-256" => keccak::sha3_256(&message).to_vec(),
        "sha3-512" => keccak::sha3_512(&message).to_vec(),
        "shake128" | "shake256" => {
            let mut out = vec![0u8; expected.len()];
            if function == "shake128" {
                keccak::shake128(&message, &mut out);
            } else {
                keccak::shake256(&message, &mut out);
            }
            out
        }
        other => return Err(format!("unknown function `{other}`")),
    };
    if got == expected { Ok(()) } else { Err(format!("expected {}, got {}", hex::encode(expected), hex::encode(got))) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_known_answer_passes() {
        let results = super::run_all();
        assert!(results.len() >= 8);
        for r in results {
            assert!(r.passed, "{} {}: {}", r.suite, r.name, r.detail);
        }
    }
}
