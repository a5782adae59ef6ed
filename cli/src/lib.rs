//! pqhelium: the command line of the test bench (`src/main.rs`), the library API a kernel author's own tests
//! call ([`author`]), and the entry points of the fuzz targets ([`fuzzing`]) over every parser of untrusted input.

pub mod author;
pub mod fuzzing;
