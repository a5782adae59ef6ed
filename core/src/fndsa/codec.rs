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
    assert!(h.len().is_multiple_of(4), "modq_encode: length not a multiple of 4");
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

/// Bits per coefficient of f and g in a signing key, by logn (their spread shrinks as n grows; key generation
/// discards any f, g that does not fit).
pub fn small_bits(logn: u32) -> u32 {
    match logn {
        0..=5 => 8,
        6..=7 => 7,
        8..=9 => 6,
        _ => 5,
    }
}

/// Bits per coefficient of F in a signing key, at every degree.
pub const BIG_F_BITS: u32 = 8;

/// Signing-key size: header, f and g trimmed, F on 8 bits, and the 64-byte verifying-key hash.
pub fn signing_key_size(logn: u32) -> usize {
    let n = 1usize << logn;
    1 + 2 * (n * small_bits(logn) as usize) / 8 + n * BIG_F_BITS as usize / 8 + 64
}

/// Which polynomial of a signing key a coefficient error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyPoly {
    F,
    G,
    BigF,
    BigG,
}

impl std::fmt::Display for KeyPoly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            KeyPoly::F => "f",
            KeyPoly::G => "g",
            KeyPoly::BigF => "F",
            KeyPoly::BigG => "G",
        })
    }
}

/// Packs signed coefficients in two's complement on `bits` bits each (LSB first). Every value must lie in
/// `[-(2^(bits-1) - 1), 2^(bits-1) - 1]`: the most negative pattern is reserved (decoders reject it), which keeps the
/// range symmetric.
pub fn trim_i8_encode(poly: KeyPoly, v: &[i8], bits: u32) -> Result<Vec<u8>, Error> {
    assert!((2..=8).contains(&bits), "trim_i8_encode: width {bits} outside 2..=8");
    assert!((v.len() * bits as usize).is_multiple_of(8), "trim_i8_encode: output is not whole bytes");
    let limit = (1i32 << (bits - 1)) - 1;
    let mask = (1u32 << bits) - 1;
    let mut out = Vec::with_capacity(v.len() * bits as usize / 8);
    let (mut acc, mut acc_bits) = (0u32, 0);
    for (index, &x) in v.iter().enumerate() {
        if i32::from(x).abs() > limit {
            return Err(Error::SmallCoefficientRange { poly, index, value: i32::from(x), bits });
        }
        acc |= (x as u8 as u32 & mask) << acc_bits;
        acc_bits += bits;
        while acc_bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            acc_bits -= 8;
        }
    }
    Ok(out)
}

/// Unpacks `n` signed coefficients of `bits` bits each from exactly `n*bits/8` bytes, rejecting the reserved value
/// -2^(bits-1).
pub fn trim_i8_decode(poly: KeyPoly, d: &[u8], n: usize, bits: u32) -> Result<Vec<i8>, Error> {
    assert!((2..=8).contains(&bits), "trim_i8_decode: width {bits} outside 2..=8");
    let expected = n * bits as usize / 8;
    if d.len() != expected {
        return Err(Error::Length { got: d.len(), expected });
    }
    let mask = (1u32 << bits) - 1;
    let sign = 1u32 << (bits - 1);
    let mut v = Vec::with_capacity(n);
    let (mut acc, mut acc_bits) = (0u32, 0);
    for &byte in d {
        acc |= u32::from(byte) << acc_bits;
        acc_bits += 8;
        while acc_bits >= bits {
            let w = acc & mask;
            acc >>= bits;
            acc_bits -= bits;
            if w == sign {
                return Err(Error::ForbiddenValue { poly, index: v.len(), bits });
            }
            // Sign-extend from `bits` bits.
            v.push(((w ^ sign) as i32 - sign as i32) as i8);
        }
    }
    Ok(v)
}

/// The fields of an encoded signing key: f, g, F (G is implied by f*G - g*F = q) and SHAKE256 of the verifying key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigningKeyParts {
    pub logn: u32,
    pub f: Vec<i8>,
    pub g: Vec<i8>,
    pub big_f: Vec<i8>,
    pub hashed_vk: [u8; 64],
}

/// Encodes a signing key: `0x50 + logn`, f and g on [`small_bits`] bits, F on 8 bits, then the verifying-key hash.
pub fn encode_signing_key(logn: u32, f: &[i8], g: &[i8], big_f: &[i8], hashed_vk: &[u8; 64]) -> Result<Vec<u8>, Error> {
    check_logn(logn)?;
    let n = 1usize << logn;
    for v in [f, g, big_f] {
        assert_eq!(v.len(), n, "encode_signing_key: polynomial is not 2^logn long");
    }
    let bits = small_bits(logn);
    let mut out = Vec::with_capacity(signing_key_size(logn));
    out.push(0x50 + logn as u8);
    out.extend(trim_i8_encode(KeyPoly::F, f, bits)?);
    out.extend(trim_i8_encode(KeyPoly::G, g, bits)?);
    out.extend(trim_i8_encode(KeyPoly::BigF, big_f, BIG_F_BITS)?);
    out.extend_from_slice(hashed_vk);
    Ok(out)
}

/// Decodes a signing key: header, then exact length, then each coefficient (no reserved value).
pub fn decode_signing_key(src: &[u8]) -> Result<SigningKeyParts, Error> {
    let &head = src.first().ok_or(Error::Empty)?;
    if head & 0xF0 != 0x50 {
        return Err(Error::SigningKeyHeader(head));
    }
    let logn = u32::from(head & 0x0F);
    check_logn(logn)?;
    let expected = signing_key_size(logn);
    if src.len() != expected {
        return Err(Error::Length { got: src.len(), expected });
    }
    let n = 1usize << logn;
    let bits = small_bits(logn);
    let (fg_len, big_len) = (n * bits as usize / 8, n * BIG_F_BITS as usize / 8);
    let (f_bytes, rest) = src[1..].split_at(fg_len);
    let (g_bytes, rest) = rest.split_at(fg_len);
    let (big_f_bytes, hashed) = rest.split_at(big_len);
    Ok(SigningKeyParts {
        logn,
        f: trim_i8_decode(KeyPoly::F, f_bytes, n, bits)?,
        g: trim_i8_decode(KeyPoly::G, g_bytes, n, bits)?,
        big_f: trim_i8_decode(KeyPoly::BigF, big_f_bytes, n, BIG_F_BITS)?,
        hashed_vk: hashed.try_into().expect("64 bytes remain after the length check"),
    })
}
