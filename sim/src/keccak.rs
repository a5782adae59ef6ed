//! Model of the bit-interleaved Keccak-f\[1600\] kernel for 32-bit Arm.
//!
//! A 32-bit core has no 64-bit rotate, so the kernel keeps each lane as two
//! words: the even-numbered bits and the odd-numbered bits. A 64-bit rotation
//! then becomes two 32-bit rotations (plus a swap of the halves when the
//! amount is odd), which the barrel shifter gives for free.
//!
//! Layout of the interleaved state (`[u32; 50]`): lane `i = x + 5 * y` is in
//! words `2 * i` (bit k = lane bit 2k) and `2 * i + 1` (bit k = lane bit 2k + 1).

/// rc(t) of FIPS 202 (Algorithm 5): bit t of the output of the LFSR x^8 + x^6 + x^5 + x^4 + 1, seeded with 1.
const fn rc_bit(t: usize) -> u64 {
    let mut r: u32 = 1;
    let mut i = 0;
    while i < t % 255 {
        r <<= 1;
        if r & 0x100 != 0 {
            r ^= 0x171;
        }
        i += 1;
    }
    (r & 1) as u64
}

/// The iota round constants, from the LFSR (FIPS 202, Algorithm 6): round i sets lane bit 2^j - 1 to rc(j + 7i).
pub const ROUND_CONSTANTS: [u64; 24] = {
    let mut out = [0; 24];
    let mut i = 0;
    while i < 24 {
        let mut j = 0;
        while j <= 6 {
            out[i] |= rc_bit(j + 7 * i) << ((1 << j) - 1);
            j += 1;
        }
        i += 1;
    }
    out
};

/// The rho offsets r[x + 5 y], from the walk of FIPS 202 (Algorithm 2): (x, y) starts at (1, 0) and moves to
/// (y, 2x + 3y mod 5); its t-th lane (t = 0..23) rotates by (t + 1)(t + 2) / 2 mod 64, lane (0, 0) by 0.
pub const RHO_OFFSETS: [u32; 25] = {
    let mut out = [0; 25];
    let (mut x, mut y) = (1, 0);
    let mut t = 0;
    while t < 24 {
        out[x + 5 * y] = ((t + 1) * (t + 2) / 2 % 64) as u32;
        (x, y) = (y, (2 * x + 3 * y) % 5);
        t += 1;
    }
    out
};

/// Swap the bits of `x` selected by `mask` with the bits `shift` places above.
const fn delta_swap(x: u32, mask: u32, shift: u32) -> u32 {
    let t = ((x >> shift) ^ x) & mask;
    x ^ t ^ (t << shift)
}

/// Move the even bits of `x` to the low half and the odd bits to the high
/// half, keeping their order. Each swap fixes one more level: evens first
/// within nibbles, then bytes, then halfwords.
const fn unzip(x: u32) -> u32 {
    let x = delta_swap(x, 0x2222_2222, 1);
    let x = delta_swap(x, 0x0C0C_0C0C, 2);
    let x = delta_swap(x, 0x00F0_00F0, 4);
    delta_swap(x, 0x0000_FF00, 8)
}

/// Inverse of [`unzip`]: each delta swap is an involution, so undo them in
/// reverse order.
const fn zip(x: u32) -> u32 {
    let x = delta_swap(x, 0x0000_FF00, 8);
    let x = delta_swap(x, 0x00F0_00F0, 4);
    let x = delta_swap(x, 0x0C0C_0C0C, 2);
    delta_swap(x, 0x2222_2222, 1)
}

/// One lane to its `[even, odd]` words, working on 32-bit halves.
const fn split_lane(lane: u64) -> [u32; 2] {
    let lo = unzip(lane as u32);
    let hi = unzip((lane >> 32) as u32);
    [(lo & 0xFFFF) | (hi << 16), (lo >> 16) | (hi & 0xFFFF_0000)]
}

/// `[even, odd]` words back to one lane.
const fn join_lane(even: u32, odd: u32) -> u64 {
    let lo = zip((even & 0xFFFF) | (odd << 16));
    let hi = zip((even >> 16) | (odd & 0xFFFF_0000));
    lo as u64 | ((hi as u64) << 32)
}

/// Iota constants split into `[even bits, odd bits]`, as the kernel's table
/// stores them.
pub const ROUND_CONSTANTS_INTERLEAVED: [[u32; 2]; 24] = {
    let mut out = [[0; 2]; 24];
    let mut i = 0;
    while i < 24 {
        out[i] = split_lane(ROUND_CONSTANTS[i]);
        i += 1;
    }
    out
};

/// Standard lanes to the interleaved state.
pub fn interleave(lanes: &[u64; 25]) -> [u32; 50] {
    let mut words = [0; 50];
    for (pair, &lane) in words.chunks_exact_mut(2).zip(lanes) {
        pair.copy_from_slice(&split_lane(lane));
    }
    words
}

/// Interleaved state back to standard lanes.
pub fn deinterleave(words: &[u32; 50]) -> [u64; 25] {
    core::array::from_fn(|i| join_lane(words[2 * i], words[2 * i + 1]))
}

/// Word index of half `h` (0 = even, 1 = odd) of lane `(x, y)`.
const fn w(x: usize, y: usize, h: usize) -> usize {
    2 * (x + 5 * y) + h
}

/// Rotate a lane held as `(even, odd)` left by `r` lane bits.
/// Lane bit j moves to j + r: for r = 2k parity is kept and each half turns
/// by k; for r = 2k + 1 parity flips, so the halves trade places and the
/// old odd bits (which carry into the next even slot) turn by k + 1.
fn rotl_lane(even: u32, odd: u32, r: u32) -> (u32, u32) {
    let k = r / 2;
    if r.is_multiple_of(2) {
        (even.rotate_left(k), odd.rotate_left(k))
    } else {
        (odd.rotate_left(k + 1), even.rotate_left(k))
    }
}

/// Keccak-f\[1600\] on the interleaved state, using 32-bit operations only.
pub fn keccak_f1600_interleaved(s: &mut [u32; 50]) {
    for rc in &ROUND_CONSTANTS_INTERLEAVED {
        // theta: column parities, each half independently (xor is bitwise).
        let mut c = [[0u32; 2]; 5];
        for (x, col) in c.iter_mut().enumerate() {
            for (h, half) in col.iter_mut().enumerate() {
                *half = (0..5).fold(0, |acc, y| acc ^ s[w(x, y, h)]);
            }
        }
        for x in 0..5 {
            let next = c[(x + 1) % 5];
            let prev = c[(x + 4) % 5];
            // The rotate-by-1 in theta is odd, so it swaps the halves too.
            let (re, ro) = rotl_lane(next[0], next[1], 1);
            let d = [prev[0] ^ re, prev[1] ^ ro];
            for y in 0..5 {
                s[w(x, y, 0)] ^= d[0];
                s[w(x, y, 1)] ^= d[1];
            }
        }

        // rho and pi: lane (x, y) rotated by its offset lands at (y, 2x + 3y).
        let mut b = [0u32; 50];
        for y in 0..5 {
            for x in 0..5 {
                let (e, o) = rotl_lane(s[w(x, y, 0)], s[w(x, y, 1)], RHO_OFFSETS[x + 5 * y]);
                let (nx, ny) = (y, (2 * x + 3 * y) % 5);
                b[w(nx, ny, 0)] = e;
                b[w(nx, ny, 1)] = o;
            }
        }

        // chi: bitwise, so the even and odd halves never mix.
        for y in 0..5 {
            for x in 0..5 {
                for h in 0..2 {
                    s[w(x, y, h)] = b[w(x, y, h)] ^ (!b[w((x + 1) % 5, y, h)] & b[w((x + 2) % 5, y, h)]);
                }
            }
        }

        // iota
        s[0] ^= rc[0];
        s[1] ^= rc[1];
    }
}
