//! The framing of the whole-operation requests on the guest (FN-DSA signing and verification): one little-endian
//! u32 length per field, then the fields back to back, in order.

/// The fields framed.
pub fn framed(fields: &[&[u8]]) -> Vec<u8> {
    let mut out: Vec<u8> = fields.iter().flat_map(|f| (f.len() as u32).to_le_bytes()).collect();
    fields.iter().for_each(|f| out.extend_from_slice(f));
    out
}

/// The `N` fields of the request at the front of `bytes` and its size, if its header and fields fit.
pub fn unframed<const N: usize>(bytes: &[u8]) -> Option<([Vec<u8>; N], usize)> {
    let header = bytes.get(..4 * N)?;
    let mut at = 4 * N;
    let mut fields = Vec::with_capacity(N);
    for word in header.chunks_exact(4) {
        let len = u32::from_le_bytes(word.try_into().expect("4 bytes")) as usize;
        fields.push(bytes.get(at..at.checked_add(len)?)?.to_vec());
        at += len;
    }
    Some((fields.try_into().ok()?, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_back_and_a_short_request_does_not() {
        let bytes = framed(&[b"ab", b"", b"cde"]);
        assert_eq!(bytes.len(), 12 + 5);
        assert_eq!(&bytes[..4], &2u32.to_le_bytes());
        let ([a, b, c], size) = unframed::<3>(&bytes).unwrap();
        assert_eq!((a.as_slice(), b.as_slice(), c.as_slice(), size), (&b"ab"[..], &b""[..], &b"cde"[..], 17));
        assert_eq!(unframed::<3>(&bytes[..16]), None);
        assert_eq!(unframed::<4>(&bytes), None);
    }
}
