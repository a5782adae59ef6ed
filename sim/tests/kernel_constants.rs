//! The C kernels name their constants and bounds in one header per family (`kernels/arm/*/<family>.h`); the values
//! are defined once, in the sim models. Every numeric `#define` of those headers must equal the model's constant of
//! the same meaning, and every one must be listed here, so that a constant added to a header is checked too.

use pqhelium_sim::{fndsa_ntt as fndsa, mlkem_ntt as mlkem, mlkem_poly};

const FNDSA_NTT_H: &str = include_str!("../../kernels/arm/fndsa_ntt/fndsa_ntt.h");
const MLKEM_NTT_H: &str = include_str!("../../kernels/arm/mlkem_ntt/mlkem_ntt.h");
const MLKEM_POLY_H: &str = include_str!("../../kernels/arm/mlkem_ntt/mlkem_poly.h");

/// `#define NAME value` lines whose value is an integer literal, optionally negative in parentheses: (name, value).
fn numeric_defines(header: &str) -> Vec<(String, i64)> {
    header
        .lines()
        .filter_map(|line| {
            let mut words = line.strip_prefix("#define ")?.split_whitespace();
            let name = words.next()?;
            let literal = words.next()?.trim_start_matches('(').trim_end_matches(')');
            literal.parse().ok().map(|value| (name.to_string(), value))
        })
        .collect()
}

/// The header defines exactly `expected`'s names, each with the expected value.
fn check(header_name: &str, header: &str, expected: &[(&str, i64)]) {
    let defines = numeric_defines(header);
    for (name, value) in &defines {
        match expected.iter().find(|(n, _)| n == name) {
            Some(&(_, want)) => assert_eq!(*value, want, "{header_name}: {name}"),
            None => panic!("{header_name}: {name} = {value} is not checked against the model's constants"),
        }
    }
    for (name, _) in expected {
        assert!(defines.iter().any(|(n, _)| n == name), "{header_name}: {name} is missing");
    }
}

#[test]
fn the_parser_reads_plain_and_parenthesised_literals_only() {
    let header = "#define A 12\n#define B (-7)\n#define C (A + 1)\n#define PQH_GUARD_H\n  #define D 3\n";
    assert_eq!(numeric_defines(header), [("A".to_string(), 12), ("B".to_string(), -7)]);
}

#[test]
fn fndsa_ntt_header_matches_the_model() {
    let last = |logn: u32| fndsa::centred(i64::from(fndsa::IZETA[1]) * i64::from(fndsa::ninv(logn)));
    let companion = |w: i16| i64::from(fndsa::barrett_companion(w));
    check(
        "fndsa_ntt.h",
        FNDSA_NTT_H,
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
