//! pqhelium: the command line of the test bench (`src/main.rs`), and the entry points of the fuzz targets
//! ([`fuzzing`]) over every parser of untrusted input.

pub mod fuzzing;
