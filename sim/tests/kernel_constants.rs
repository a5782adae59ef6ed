//! The C kernels name their constants and bounds in one header per family (`kernels/arm/*/<family>.h`); the values
//! are defined once, in the sim models. Every `#define` with a value in those headers is evaluated (integer
//! literals, decimal or hexadecimal with C's suffixes, names defined before, parentheses, unary minus, `+ - * << >>`)
//! and must equal the model's constant of the same meaning; a value the evaluator does not understand fails, and
//! every name must be listed here, so that a constant added to a header is checked too.

use pqhelium_sim::{fndsa_ntt as fndsa, mlkem_ntt as mlkem, mlkem_poly, x25519_fe};

const FNDSA_NTT_H: &str = include_str!("../../kernels/arm/fndsa_ntt/fndsa_ntt.h");
const MLKEM_NTT_H: &str = include_str!("../../kernels/arm/mlkem_ntt/mlkem_ntt.h");
const MLKEM_POLY_H: &str = include_str!("../../kernels/arm/mlkem_ntt/mlkem_poly.h");
const X25519_FE_H: &str = include_str!("../../kernels/arm/x25519/fe.h");
const X25519_BASE_TABLE_H: &str = include_str!("../../kernels/arm/x25519/base_table.h");

/// A tiny evaluator of the constant expressions the headers use, over the names defined so far.
struct Expr<'a> {
    tokens: Vec<String>,
    at: usize,
    names: &'a [(String, i64)],
}

impl Expr<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.at).map(String::as_str)
    }

    fn next(&mut self) -> Result<String, String> {
        let t = self.tokens.get(self.at).cloned().ok_or("unexpected end")?;
        self.at += 1;
        Ok(t)
    }

    fn shift(&mut self) -> Result<i64, String> {
        let mut v = self.sum()?;
        while let Some(op @ ("<<" | ">>")) = self.peek() {
            let left = op == "<<";
            self.at += 1;
            let by = u32::try_from(self.sum()?).map_err(|e| e.to_string())?;
            v = if left { v.checked_shl(by).ok_or("shift out of range")? } else { v >> by.min(63) };
        }
        Ok(v)
    }

    fn sum(&mut self) -> Result<i64, String> {
        let mut v = self.product()?;
        while let Some(op @ ("+" | "-")) = self.peek() {
            let add = op == "+";
            self.at += 1;
            let w = self.product()?;
            v = if add { v.checked_add(w) } else { v.checked_sub(w) }.ok_or("overflow")?;
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<i64, String> {
        let mut v = self.unary()?;
        while self.peek() == Some("*") {
            self.at += 1;
            v = v.checked_mul(self.unary()?).ok_or("overflow")?;
        }
        Ok(v)
    }

    fn unary(&mut self) -> Result<i64, String> {
        let t = self.next()?;
        match t.as_str() {
            "-" => Ok(-self.unary()?),
            "(" => {
                let v = self.shift()?;
                (self.next()? == ")").then_some(v).ok_or_else(|| "unbalanced parentheses".to_string())
            }
            _ => literal(&t)
                .or_else(|| self.names.iter().find(|(n, _)| *n == t).map(|&(_, v)| v))
                .ok_or_else(|| format!("not a literal or a name defined before: {t}")),
        }
    }
}

/// A C integer literal, decimal or hexadecimal, with its suffixes (u, l, ll in any case).
fn literal(t: &str) -> Option<i64> {
    let digits = t.trim_end_matches(['u', 'U', 'l', 'L']);
    match digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => digits.parse().ok().filter(|_| digits.starts_with(|c: char| c.is_ascii_digit())),
    }
}

fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' {
            let mut word = c.to_string();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_alphanumeric() || **d == '_') {
                word.push(d);
                chars.next();
            }
            out.push(word);
        } else if (c == '<' || c == '>') && chars.peek() == Some(&c) {
            chars.next();
            out.push(format!("{c}{c}"));
        } else {
            out.push(c.to_string());
        }
    }
    out
}

/// The value of every `#define NAME value` (comments removed), in order, over `known` names from other headers;
/// an error names the first value that is not understood. Defines without a value (include guards) have none.
fn numeric_defines(header: &str, known: &[(String, i64)]) -> Result<Vec<(String, i64)>, String> {
    let mut names = known.to_vec();
    let mut defines = Vec::new();
    for line in header.lines() {
        let Some(rest) = line.strip_prefix("#define ") else { continue };
        let rest = rest.split("/*").next().unwrap_or_default().trim();
        let Some((name, value)) = rest.split_once(char::is_whitespace) else { continue };
        let mut e = Expr { tokens: tokens(value), at: 0, names: &names };
        let v = e.shift().and_then(|v| if e.at == e.tokens.len() { Ok(v) } else { Err("trailing tokens".into()) });
        let v = v.map_err(|why| format!("#define {name} {value}: {why}"))?;
        names.push((name.to_string(), v));
        defines.push((name.to_string(), v));
    }
    Ok(defines)
}

/// The header defines exactly `expected`'s names, each with the expected value; returns its defines.
fn check(header_name: &str, header: &str, known: &[(String, i64)], expected: &[(&str, i64)]) -> Vec<(String, i64)> {
    let defines = numeric_defines(header, known).unwrap_or_else(|e| panic!("{header_name}: {e}"));
    for (name, value) in &defines {
        match expected.iter().find(|(n, _)| n == name) {
            Some(&(_, want)) => assert_eq!(*value, want, "{header_name}: {name}"),
            None => panic!("{header_name}: {name} = {value} is not checked against the model's constants"),
        }
    }
    for (name, _) in expected {
        assert!(defines.iter().any(|(n, _)| n == name), "{header_name}: {name} is missing");
    }
    defines
}

#[test]
fn the_evaluator_reads_literals_names_and_expressions_and_refuses_the_rest() {
    let header = "#define A 12\n#define B (-7) /* why */\n#define C (A + 1)\n#define PQH_GUARD_H\n  #define D 3\n\
                  #define E 0x1Fu\n#define F (16u << 20)\n#define G (3 * A - B)\n#define H 0xFFull\n";
    let want = [("A", 12), ("B", -7), ("C", 13), ("E", 31), ("F", 16 << 20), ("G", 43), ("H", 255)];
    let got = numeric_defines(header, &[]).unwrap();
    assert_eq!(got, want.map(|(n, v)| (n.to_string(), v)));
    for bad in ["#define X 1.5\n", "#define X (A + 1)\n", "#define X (1 + 2\n", "#define X 1 2\n", "#define X f(1)\n"] {
        assert!(numeric_defines(bad, &[]).is_err(), "{bad}");
    }
}

#[test]
fn fndsa_ntt_header_matches_the_model() {
    let last = |logn: u32| fndsa::centred(i64::from(fndsa::IZETA[1]) * i64::from(fndsa::ninv(logn)));
    let companion = |w: i16| i64::from(fndsa::barrett_companion(w));
    check(
        "fndsa_ntt.h",
        FNDSA_NTT_H,
        &[],
        &[
            ("FNDSA_Q", fndsa::Q.into()),
            ("FNDSA_QINV", fndsa::QINV.into()),
            ("FNDSA_RED_V", fndsa::RED_V.into()),
            ("FNDSA_MONT_C", fndsa::MONT_C.into()),
            ("FNDSA_MONT_C_BR", companion(fndsa::MONT_C)),
            ("FNDSA_NINV_512", fndsa::ninv(9).into()),
            ("FNDSA_NINV_512_BR", companion(fndsa::ninv(9))),
            ("FNDSA_LAST_512", last(9).into()),
            ("FNDSA_LAST_512_BR", companion(last(9))),
            ("FNDSA_NINV_1024", fndsa::ninv(10).into()),
            ("FNDSA_NINV_1024_BR", companion(fndsa::ninv(10))),
            ("FNDSA_LAST_1024", last(10).into()),
            ("FNDSA_LAST_1024_BR", companion(last(10))),
            ("FNDSA_FWD_OUT_512", fndsa::FWD_OUT_512.into()),
            ("FNDSA_FWD_OUT_1024", fndsa::FWD_OUT_1024.into()),
            ("FNDSA_INV_IN", fndsa::INV_IN.into()),
            ("FNDSA_INV_OUT", fndsa::INV_OUT.into()),
            ("FNDSA_PW_IN", fndsa::PW_IN.into()),
            ("FNDSA_PW_OUT", fndsa::PW_OUT.into()),
            ("FNDSA_RED_OUT", fndsa::RED_OUT.into()),
        ],
    );
}

#[test]
fn mlkem_ntt_header_matches_the_model() {
    let twisted = |z: i16| i64::from(mlkem::twist(z));
    check(
        "mlkem_ntt.h",
        MLKEM_NTT_H,
        &[],
        &[
            ("MLKEM_Q", mlkem::Q.into()),
            ("MLKEM_F", mlkem::F.into()),
            ("MLKEM_F_TW", twisted(mlkem::F)),
            ("MLKEM_ZF", mlkem::ZF.into()),
            ("MLKEM_ZF_TW", twisted(mlkem::ZF)),
            ("MLKEM_ONE_TW", mlkem::ONE_TW.into()),
            ("MLKEM_BARRETT32", mlkem::BARRETT32.into()),
            ("MLKEM_FWD_IN_MAX", mlkem::FWD_IN_MAX),
            ("MLKEM_FWD_OUT_MAX", mlkem::FWD_OUT_MAX),
            ("MLKEM_INV_OUT_MAX", mlkem::INV_OUT_MAX),
            ("MLKEM_BASEMUL_IN_MAX", mlkem::BASEMUL_IN_MAX),
            ("MLKEM_BASEMUL_OUT_MAX", mlkem::BASEMUL_OUT_MAX),
        ],
    );
}

#[test]
fn mlkem_poly_header_matches_the_model() {
    check(
        "mlkem_poly.h",
        MLKEM_POLY_H,
        &[],
        &[
            ("MLKEM_K", mlkem_poly::K as i64),
            ("MLKEM_BARRETT26", mlkem_poly::BARRETT26.into()),
            ("MLKEM_COMPRESS_HALF", mlkem_poly::COMPRESS_HALF.into()),
            ("MLKEM_COMPRESS_M16", mlkem_poly::COMPRESS_M16.into()),
            ("MLKEM_COMPRESS_M32", mlkem_poly::COMPRESS_M32.into()),
            ("MLKEM_ADD_A_MAX", mlkem_poly::ADD_A_MAX),
            ("MLKEM_ADD_B_MAX", mlkem_poly::ADD_B_MAX),
            ("MLKEM_DOT_A_MAX", mlkem_poly::DOT_A_MAX),
            ("MLKEM_DOT_OUT_MAX", mlkem_poly::DOT_OUT_MAX),
        ],
    );
}

#[test]
fn x25519_headers_match_the_model() {
    let fe = check("fe.h", X25519_FE_H, &[], &[("X25519_FE_LIMBS", x25519_fe::LIMBS as i64)]);
    check(
        "base_table.h",
        X25519_BASE_TABLE_H,
        &fe,
        &[
            ("X25519_BASE_WINDOWS", x25519_fe::SIGNED_WINDOWS as i64),
            ("X25519_BASE_ENTRIES", x25519_fe::SIGNED_ENTRIES as i64),
            ("X25519_BASE_WINDOW_BITS", x25519_fe::SIGNED_WINDOW_BITS as i64),
            ("X25519_NIELS_WORDS", x25519_fe::NIELS_WORDS as i64),
        ],
    );
}
