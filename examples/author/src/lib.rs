//! A kernel author's crate: its kernel is assembly (`../byo/basemul_bitrev_mont.S`) described by `kernel.toml`, and
//! its tests (`tests/kernel.rs`) check that kernel through pqhelium's library API, `pqhelium::author`.
