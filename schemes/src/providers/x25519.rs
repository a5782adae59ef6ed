//! `x25519::FieldArithmetic` from the sim models or the object code of the X25519 kernels (`kernels/arm/x25519/`),
//! with the provider's larger steps served whole: the ladder step (`x25519.ladder_step`), the paired inversion
//! (`x25519.inv2`), the whole scalar multiplication (`x25519.scalarmult`) and the fixed-base one (`x25519.base`).
//! Each operation runs the family's row for the build (`pqhelium_families::x25519::row`): the conditional swap is the
//! MVE kernel on the images with MVE, the portable C on the M7 image.
//!
//! Elements are the kernels' 8 x 32-bit limbs. Every call runs the kernel's registered contract ([`Engine::run`]):
//! bounds checked, outputs brought to their canonical residue by the contract's canonicalisation; encoding and
//! decoding are host-side (they are not kernels).

use std::cell::{Ref, RefCell};

use pqhelium_core::x25519::FieldArithmetic;
use pqhelium_sim::x25519_fe::{self as model, A24_PLUS_ONE, Fe, LIMBS};

use super::{Build, Engine, Tally, registered};
pub use pqhelium_families::x25519::Op;
use pqhelium_families::x25519::{self as family, ROWS};
use pqhelium_families::{Kernel, bytes_to_words, words_to_bytes};
use pqhelium_guest::backend::{Arg, BackendError, Image};

/// The X25519 kernels of one build, from the model or from object code; used by reference (`&X25519Provider`
/// implements the trait) and keeping its bookkeeping in a cell.
pub struct X25519Provider {
    /// The kernel serving each operation of the family: its row for the build, or a rewired one.
    kernels: Vec<(Op, &'static Kernel)>,
    engine: RefCell<Engine>,
}

impl X25519Provider {
    /// The kernels of `build` on `engine`: the sim model, or the object code (the build must be in its image).
    pub fn new(build: Build, engine: Engine) -> Self {
        let mut kernels: Vec<(Op, &'static Kernel)> = Vec::new();
        for op in ROWS.iter().map(|r| r.op) {
            if !kernels.iter().any(|&(served, _)| served == op) {
                kernels.push((op, registered(family::row(op, build).id)));
            }
        }
        Self { kernels, engine: RefCell::new(engine) }
    }

    /// The object code of `image` on its emulator: the MVE swap on the M55 and M85 images, the portable C on M7.
    pub fn open(image: Image) -> Result<Self, BackendError> {
        Ok(Self::new(Build::for_image(image), Engine::open_image(image)?))
    }

    /// The kernel (contract and symbol) that serves `op`.
    pub fn kernel(&self, op: Op) -> &'static Kernel {
        self.kernels.iter().find(|&&(served, _)| served == op).expect("every operation of the family is served").1
    }

    /// Serves `op` with another contract of the same shape, e.g. a registry variant with a wrong symbol.
    pub fn rewire(&mut self, op: Op, kernel: &'static Kernel) {
        let slot = self.kernels.iter_mut().find(|(served, _)| *served == op).expect("a served operation");
        slot.1 = kernel;
    }

    pub fn tally(&self) -> Ref<'_, Tally> {
        Ref::map(self.engine.borrow(), Engine::tally)
    }

    /// Runs `op` on `args`: its output buffers, canonical, or `None` after a failure.
    fn run(&self, op: Op, args: Vec<Arg>) -> Option<Vec<Vec<u8>>> {
        Some(self.engine.borrow_mut().run(self.kernel(op), 0, args)?.buffers)
    }

    /// A field operation of one output element (zero after a failure: the scheme ends, the tally has the failure).
    fn element(&self, op: Op, operands: &[&Fe]) -> Fe {
        let mut args = vec![Arg::Out(4 * LIMBS)];
        args.extend(operands.iter().map(|fe| Arg::In(words_to_bytes(*fe))));
        self.run(op, args).map_or([0; LIMBS], |out| limbs(&out[0]))
    }

    /// A whole scalar multiplication's 32 bytes (zero after a failure).
    fn bytes(&self, op: Op, inputs: &[&[u8; 32]]) -> [u8; 32] {
        let mut args = vec![Arg::Out(32)];
        args.extend(inputs.iter().map(|b| Arg::In(b.to_vec())));
        self.run(op, args).map_or([0; 32], |out| out[0].as_slice().try_into().expect("32 bytes"))
    }
}

fn limbs(bytes: &[u8]) -> Fe {
    bytes_to_words(bytes).try_into().expect("8 limbs")
}

impl FieldArithmetic for &X25519Provider {
    type Element = Fe;

    /// Bit 255 cleared; a value p or above stays as it is (the kernels take any 256-bit value).
    fn decode(&self, bytes: &[u8; 32]) -> Fe {
        let mut fe = model::from_bytes(bytes);
        fe[LIMBS - 1] &= 0x7FFF_FFFF;
        fe
    }

    fn encode(&self, a: &Fe) -> [u8; 32] {
        words_to_bytes(&model::canonical(a)).try_into().expect("32 bytes")
    }

    fn add(&self, a: &Fe, b: &Fe) -> Fe {
        self.element(Op::Add, &[a, b])
    }

    fn sub(&self, a: &Fe, b: &Fe) -> Fe {
        self.element(Op::Sub, &[a, b])
    }

    fn mul(&self, a: &Fe, b: &Fe) -> Fe {
        self.element(Op::Mul, &[a, b])
    }

    fn sqr(&self, a: &Fe) -> Fe {
        self.element(Op::Sqr, &[a])
    }

    /// `x25519.fe.mul121666` for its constant, a multiplication by the constant's element otherwise.
    fn mul_small(&self, a: &Fe, factor: u32) -> Fe {
        if factor == A24_PLUS_ONE {
            return self.element(Op::Mul121666, &[a]);
        }
        let mut small = [0; LIMBS];
        small[0] = factor;
        self.mul(a, &small)
    }

    fn cswap(&self, swap: u64, a: &mut Fe, b: &mut Fe) {
        let args = vec![Arg::InOut(words_to_bytes(a)), Arg::InOut(words_to_bytes(b)), Arg::U32(swap as u32)];
        let (x, y) = self.run(Op::Cswap, args).map_or(([0; LIMBS], [0; LIMBS]), |out| (limbs(&out[0]), limbs(&out[1])));
        (*a, *b) = (x, y);
    }

    fn invert(&self, a: &Fe) -> Fe {
        self.element(Op::Inv, &[a])
    }

    fn ladder_step(&self, state: &mut [Fe; 4], x1: &Fe) {
        let args = vec![Arg::InOut(words_to_bytes(state.as_flattened())), Arg::In(words_to_bytes(x1))];
        *state = match self.run(Op::LadderStep, args) {
            Some(out) => std::array::from_fn(|k| limbs(&out[0][4 * LIMBS * k..4 * LIMBS * (k + 1)])),
            None => [[0; LIMBS]; 4],
        };
    }

    fn invert_pair(&self, d1: &Fe, d2: &Fe) -> (Fe, Fe) {
        let args =
            vec![Arg::Out(4 * LIMBS), Arg::Out(4 * LIMBS), Arg::In(words_to_bytes(d1)), Arg::In(words_to_bytes(d2))];
        self.run(Op::Inv2, args).map_or(([0; LIMBS], [0; LIMBS]), |out| (limbs(&out[0]), limbs(&out[1])))
    }

    fn scalarmult(&self, k: &[u8; 32], u: &[u8; 32]) -> [u8; 32] {
        self.bytes(Op::Scalarmult, &[k, u])
    }

    fn scalarmult_base(&self, k: &[u8; 32]) -> [u8; 32] {
        self.bytes(Op::Base, &[k])
    }
}
