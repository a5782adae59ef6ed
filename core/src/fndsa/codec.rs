//! Encodings of FN-DSA v0.4: the verifying key (`0x00 + logn`, then h in NTT form packed on 14 bits per value) and
//! the signature (`0x30 + logn`, a 40-byte nonce, then s2 compressed). Decoders accept exactly the canonical
//! encodings; every rejection names its reason.
//!
//! Bit streams are little-endian: value bits and stream bits both go least significant first.

use super::{B_INF, Error, MAX_LOGN, MIN_LOGN};

/// Nonce length in a signature.
pub const NONCE_LEN: usize = 40;

const Q: u16 = super::ntt::Q as u16;

/// Signature size in bytes by logn, 2..=10 (fixed per degree: s2 is zero-padded).
const SIGNATURE_SIZE: [usize; 11] = [0, 0, 47, 52, 63, 82, 122, 200, 356, 666, 1280];

fn check_logn(logn: u32) -> Result<(), Error> {
    if (MIN_LOGN..=MAX_LOGN).contains(&logn) { Ok(()) } else { Err(Error::UnsupportedDegree(logn)) }
}

/// Verifying-key size: one header byte and n values of 14 bits.
pub fn verifying_key_size(logn: u32) -> usize {
    1 + (14 << logn) / 8
}

/// Signature size: 666 bytes for logn 9, 1280 for logn 10.
pub fn signature_size(logn: u32) -> usize {
    SIGNATURE_SIZE[logn as usize]
}

/// Packs values in `[0, q-1]` on 14 bits each; n must be a multiple of 4 so that the output is whole bytes.
pub fn modq_encode(h: &[u16]) -> Result<Vec<u8>, Error> {
    assert!(h.len() % 4 == 0, "modq_encode: length not a multiple of 4");
    let mut out = Vec::with_capacity(h.len() * 14 / 8);
    let (mut acc, mut bits) = (0u32, 0);
    for (index, &value) in h.iter().enumerate() {
        if value >= Q {
            return Err(Error::CoefficientNotReduced { index, value });
        }
        acc |= u32::from(value) << bits;
        bits += 14;
        while bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
    Ok(out)
}

/// Unpacks n 14-bit values; each must be below q.
pub fn modq_decode(d: &[u8], n: usize) -> Result<Vec<u16>, Error> {
    let expected = n * 14 / 8;
    if d.len() != expected {
        return Err(Error::Length { got: d.len(), expected });
    }
    let mut h = Vec::with_capacity(n);
    let (mut acc, mut bits) = (0u32, 0);
    for &byte in d {
        acc |= u32::from(byte) << bits;
        bits += 8;
        if bits >= 14 {
            let value = (acc & 0x3FFF) as u16;
            if value >= Q {
                return Err(Error::CoefficientNotReduced { index: h.len(), value });
            }
            h.push(value);
            acc >>= 14;
            bits -= 14;
        }
    }
    Ok(h)
}

/// Encodes a verifying key from logn and h (NTT form, values in `[0, q-1]`).
pub fn encode_verifying_key(logn: u32, h: &[u16]) -> Result<Vec<u8>, Error> {
    check_logn(logn)?;
    assert_eq!(h.len(), 1 << logn, "encode_verifying_key: h is not 2^logn long");
    let mut out = vec![logn as u8];
    out.extend(modq_encode(h)?);
    Ok(out)
}

/// Decodes a verifying key into logn and h (NTT form, values in `[0, q-1]`).
pub fn decode_verifying_key(src: &[u8]) -> Result<(u32, Vec<u16>), Error> {
    let &head = src.first().ok_or(Error::Empty)?;
    if head & 0xF0 != 0 {
        return Err(Error::VerifyingKeyHeader(head));
    }
    let logn = u32::from(head);
    check_logn(logn)?;
    let expected = verifying_key_size(logn);
    if src.len() != expected {
        return Err(Error::Length { got: src.len(), expected });
    }
    Ok((logn, modq_decode(&src[1..], 1 << logn)?))
}

/// LSB-first bit writer into a fixed-capacity buffer.
struct BitWriter {
    out: Vec<u8>,
    bit: usize,
}

impl BitWriter {
    fn push(&mut self, value: u32, nbits: usize) -> Result<(), Error> {
        if self.bit + nbits > 8 * self.out.len() {
            return Err(Error::TooManyBits { capacity: self.out.len() });
        }
        for k in 0..nbits {
            self.out[self.bit / 8] |= (((value >> k) & 1) as u8) << (self.bit % 8);
            self.bit += 1;
        }
        Ok(())
    }
}

/// Compresses s2 into exactly `capacity` bytes. Each coefficient x is its sign bit (1 for negative), the 7 low bits
/// of |x|, then |x| >> 7 in unary (that many zeros, then a one); the rest is zero padding.
pub fn comp_encode(s: &[i16], capacity: usize) -> Result<Vec<u8>, Error> {
    let mut w = BitWriter { out: vec![0; capacity], bit: 0 };
    for (index, &x) in s.iter().enumerate() {
        let magnitude = x.unsigned_abs() as u32;
        if magnitude > B_INF {
            return Err(Error::CoefficientTooLarge { index, magnitude });
        }
        w.push(u32::from(x < 0) | ((magnitude & 0x7F) << 1), 8)?;
        let high = (magnitude >> 7) as usize;
        w.push(1 << high, high + 1)?;
    }
    Ok(w.out)
}

/// Decompresses n coefficients, rejecting all but the one canonical encoding of each value: no '-0', no magnitude
/// above B_inf (at most 6 unary zeros), and only zero bits after the last coefficient.
pub fn comp_decode(d: &[u8], n: usize) -> Result<Vec<i16>, Error> {
    let total = 8 * d.len();
    let bit = |p: usize| u32::from(d[p / 8] >> (p % 8)) & 1;
    let mut p = 0;
    let mut s = Vec::with_capacity(n);
    for index in 0..n {
        if p + 8 > total {
            return Err(Error::Truncated { index });
        }
        let head: u32 = (0..8).map(|k| bit(p + k) << k).sum();
        p += 8;
        let negative = head & 1 == 1;
        let mut magnitude = head >> 1;
        loop {
            if p >= total {
                return Err(Error::Truncated { index });
            }
            p += 1;
            if bit(p - 1) == 1 {
                break;
            }
            magnitude += 128;
            // The 7 low bits are at most 127 <= B_inf, so only the unary part can push past the bound: stop there.
            if magnitude > B_INF {
                return Err(Error::CoefficientTooLarge { index, magnitude });
            }
        }
        if negative && magnitude == 0 {
            return Err(Error::NegativeZero { index });
        }
        let v = magnitude as i16;
        s.push(if negative { -v } else { v });
    }
    if (p..total).any(|q| bit(q) == 1) {
        return Err(Error::NonZeroPadding);
    }
    Ok(s)
}

/// A decoded signature: degree, nonce, and s2 with every |coefficient| <= B_inf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub logn: u32,
    pub nonce: [u8; NONCE_LEN],
    pub s2: Vec<i16>,
}

impl Signature {
    /// Decodes a signature of degree 2^logn (the verifying key's): length first, then header, then s2.
    pub fn decode(logn: u32, src: &[u8]) -> Result<Self, Error> {
        check_logn(logn)?;
        let expected = signature_size(logn);
        if src.len() != expected {
            return Err(Error::Length { got: src.len(), expected });
        }
        let want = 0x30 + logn as u8;
        if src[0] != want {
            return Err(Error::SignatureHeader { got: src[0], expected: want });
        }
        let nonce = src[1..1 + NONCE_LEN].try_into().expect("slice of NONCE_LEN bytes");
        let s2 = comp_decode(&src[1 + NONCE_LEN..], 1 << logn)?;
        Ok(Self { logn, nonce, s2 })
    }

    /// The canonical encoding; fails if s2 has a coefficient above B_inf or does not fit the fixed size.
    pub fn encode(&self) -> Result<Vec<u8>, Error> {
        check_logn(self.logn)?;
        assert_eq!(self.s2.len(), 1 << self.logn, "Signature::encode: s2 is not 2^logn long");
        let mut out = vec![0x30 + self.logn as u8];
        out.extend_from_slice(&self.nonce);
        out.extend(comp_encode(&self.s2, signature_size(self.logn) - 1 - NONCE_LEN)?);
        Ok(out)
    }
}
