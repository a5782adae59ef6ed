//! pqhelium-contract: what a kernel promises, as data, and the vocabulary every kernel family is written in.
//!
//! A contract is a [`Description`] (every argument in AAPCS order with its element type, length, direction, input
//! and output bounds, representation, storage order, modulus (residues mod q) and secrecy) and a [`Behaviour`] (edge
//! and corner cases first, then random cases, each from (seed, case index) alone; the reference; for kernels checked
//! three ways the model and the canonicalisation between the two). A [`Kernel`] joins the two; [`check`] holds the
//! host-side checks of one case.
//!
//! A contract for a kernel `void add_mod_q(uint32_t a[4], const uint32_t b[4])` that adds two vectors mod 3329,
//! checked two ways (object code against the reference):
//!
//! ```
//! use pqhelium_contract::*;
//! use pqhelium_guest::backend::Arg;
//! use rand::Rng;
//!
//! const Q: i64 = 3329;
//! struct AddModQ;
//!
//! impl Contract for AddModQ {
//!     type Input = ([u32; 4], [u32; 4]);
//!     fn describe(&self) -> Description {
//!         let canonical = Bound::Canonical { q: Q };
//!         Description {
//!             id: "example.add",
//!             symbol: "add_mod_q",
//!             images: Images::Both,
//!             summary: "a + b mod q".into(),
//!             computes: "a[i] = (a[i] + b[i]) mod 3329".into(),
//!             requires: String::new(),
//!             edge_cases: 1,
//!             args: vec![
//!                 ArgSpec::in_out("a", Elem::U32, Len::Fixed(4), canonical, canonical).modulus(Modulus::plain(Q)),
//!                 ArgSpec::input("b", Elem::U32, Len::Fixed(4), canonical).modulus(Modulus::plain(Q)),
//!             ],
//!             returns: None,
//!             results: vec![],
//!         }
//!     }
//!     fn generate(&self, case: u64, rng: &mut CaseRng) -> Self::Input {
//!         let top = Q as u32 - 1;
//!         if case == 0 { return ([top; 4], [top; 4]) } // the edge case: every sum wraps
//!         (std::array::from_fn(|_| rng.gen_range(0..Q as u32)), std::array::from_fn(|_| rng.gen_range(0..Q as u32)))
//!     }
//!     fn encode(&self, (a, b): &Self::Input) -> Vec<Arg> {
//!         vec![Arg::InOut(words_to_bytes(a)), Arg::In(words_to_bytes(b))]
//!     }
//!     fn decode(&self, args: &[Arg]) -> Self::Input {
//!         let words = |i| bytes_to_words(buffer(&args[i])).try_into().unwrap();
//!         (words(0), words(1))
//!     }
//!     fn reference(&self, (a, b): &Self::Input, _: RunReference) -> Outcome {
//!         let sum: Vec<u32> = a.iter().zip(b).map(|(x, y)| (x + y) % Q as u32).collect();
//!         Outcome { buffers: vec![words_to_bytes(&sum)], ret: None }
//!     }
//!     fn ways(&self) -> Ways<Self> {
//!         Ways::Two
//!     }
//! }
//!
//! let kernel = Kernel::new(AddModQ);
//! assert_eq!(kernel.prototype().unwrap(), "void add_mod_q(uint32_t a[4], const uint32_t b[4])");
//! let args = kernel.generate(0, &mut case_rng(7, 0));
//! assert_eq!(check_input_bounds(&kernel, &args), Ok(()));
//! let expected = kernel.expected(&args);
//! assert_eq!(bytes_to_words(&expected.buffers[0]), [3327; 4]);
//! ```

mod case_rng;
pub mod check;
mod description;
mod glob;
mod kernel;
mod pin;

pub use case_rng::{CaseRng, CaseStream, case_rng};
pub use check::{Difference, Failure, check_model, compare};
pub use description::*;
pub use glob::{Glob, glob_match};
pub use kernel::*;
pub use pin::{PIN_SEARCH, Pin, pinnable_parameters};
