//! pqm4's FIPS 202 API (`kernels/arm/scheme/fips202.h`, mupq's names and context sizes) on the guest, against the
//! `sha3` crate: the one-shot functions, the incremental SHAKE and SHA3 contexts (absorbing and squeezing in pieces
//! that cross block boundaries) and the non-incremental SHAKE contexts squeezed a block at a time. Each call passes
//! its context in and out, as a scheme's stack would keep it.

use std::time::Duration;

use pqhelium_guest::backend::{Arg, Backend, Call, Image, Limits};
use sha3::digest::{Digest, ExtendableOutput, Update, XofReader};

/// 200 bytes: more than a SHAKE128 block (168) and a SHAKE256 or SHA3-256 block (136).
fn message() -> Vec<u8> {
    (0..200u32).map(|i| (i * 37 + 11) as u8).collect()
}

fn call(guest: &mut dyn Backend, symbol: &str, args: Vec<Arg>) -> Vec<Vec<u8>> {
    let out = guest.call(&Call::new(symbol, args)).unwrap_or_else(|e| panic!("{symbol}: {e}"));
    out.buffers
}

fn shake<X: Default + Update + ExtendableOutput>(message: &[u8], len: usize) -> Vec<u8> {
    let mut xof = X::default();
    xof.update(message);
    let mut out = vec![0; len];
    xof.finalize_xof().read(&mut out);
    out
}

/// `NAME_inc_init`, two absorbs, `NAME_inc_finalize`, then squeezes of `pieces` bytes each: the squeezed bytes.
fn incremental_shake(guest: &mut dyn Backend, name: &str, message: &[u8], pieces: &[usize]) -> Vec<u8> {
    let mut ctx = call(guest, &format!("{name}_inc_init"), vec![Arg::InOut(vec![0; 208])]).remove(0);
    for part in [&message[..70], &message[70..]] {
        let args = vec![Arg::InOut(ctx), Arg::In(part.to_vec()), Arg::U32(part.len() as u32)];
        ctx = call(guest, &format!("{name}_inc_absorb"), args).remove(0);
    }
    ctx = call(guest, &format!("{name}_inc_finalize"), vec![Arg::InOut(ctx)]).remove(0);
    let mut squeezed = Vec::new();
    for &len in pieces {
        let args = vec![Arg::Out(len), Arg::U32(len as u32), Arg::InOut(ctx)];
        let mut buffers = call(guest, &format!("{name}_inc_squeeze"), args);
        ctx = buffers.remove(1);
        squeezed.extend(buffers.remove(0));
    }
    squeezed
}

/// `NAME_absorb` once, then `NAME_squeezeblocks` of 2 blocks and of 1: the squeezed bytes.
fn blockwise_shake(guest: &mut dyn Backend, name: &str, rate: usize, message: &[u8]) -> Vec<u8> {
    let args = vec![Arg::InOut(vec![0; 200]), Arg::In(message.to_vec()), Arg::U32(message.len() as u32)];
    let mut ctx = call(guest, &format!("{name}_absorb"), args).remove(0);
    let mut squeezed = Vec::new();
    for blocks in [2, 1] {
        let args = vec![Arg::Out(blocks * rate), Arg::U32(blocks as u32), Arg::InOut(ctx)];
        let mut buffers = call(guest, &format!("{name}_squeezeblocks"), args);
        ctx = buffers.remove(1);
        squeezed.extend(buffers.remove(0));
    }
    squeezed
}

/// `NAME_inc_init`, two absorbs, `NAME_inc_finalize`: the digest.
fn incremental_sha3(guest: &mut dyn Backend, name: &str, digest: usize, message: &[u8]) -> Vec<u8> {
    let mut ctx = call(guest, &format!("{name}_inc_init"), vec![Arg::InOut(vec![0; 208])]).remove(0);
    for part in [&message[..150], &message[150..]] {
        let args = vec![Arg::InOut(ctx), Arg::In(part.to_vec()), Arg::U32(part.len() as u32)];
        ctx = call(guest, &format!("{name}_inc_absorb"), args).remove(0);
    }
    call(guest, &format!("{name}_inc_finalize"), vec![Arg::Out(digest), Arg::InOut(ctx)]).remove(0)
}

#[test]
fn pqm4_names_compute_fips202_on_every_image() {
    let message = message();
    for image in Image::ALL {
        let mut guest = image.open(Limits { timeout: Duration::from_secs(60) }).expect("the emulator starts");
        let guest = guest.as_mut();
        let len = message.len() as u32;
        for (name, expected) in
            [("shake128", shake::<sha3::Shake128>(&message, 400)), ("shake256", shake::<sha3::Shake256>(&message, 400))]
        {
            let args = vec![Arg::Out(400), Arg::U32(400), Arg::In(message.clone()), Arg::U32(len)];
            assert_eq!(call(guest, name, args)[0], expected, "{name} on {image}");
            assert_eq!(incremental_shake(guest, name, &message, &[1, 200, 199]), expected, "{name}_inc on {image}");
        }
        let shake128 = shake::<sha3::Shake128>(&message, 3 * 168);
        assert_eq!(blockwise_shake(guest, "shake128", 168, &message), shake128, "shake128 blocks on {image}");
        let shake256 = shake::<sha3::Shake256>(&message, 3 * 136);
        assert_eq!(blockwise_shake(guest, "shake256", 136, &message), shake256, "shake256 blocks on {image}");
        for (name, expected) in [
            ("sha3_256", sha3::Sha3_256::digest(&message).to_vec()),
            ("sha3_512", sha3::Sha3_512::digest(&message).to_vec()),
        ] {
            let digest = expected.len();
            let args = vec![Arg::Out(digest), Arg::In(message.clone()), Arg::U32(len)];
            assert_eq!(call(guest, name, args)[0], expected, "{name} on {image}");
            assert_eq!(incremental_sha3(guest, name, digest, &message), expected, "{name}_inc on {image}");
        }
    }
}
