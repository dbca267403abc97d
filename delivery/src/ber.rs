//! BER to DER, as far as reading CMS needs it. Java's CMS generators (and `openssl cms -stream`)
//! write indefinite lengths and OCTET STRINGs in chunks; the DER decoder reads neither. Lengths
//! become definite, chunked OCTET STRINGs one string; DER passes through unchanged, so the
//! signed attributes a signature covers keep their bytes.

use crate::error::DeliveryError;

/// Nesting deeper than this is not a CMS file.
const MAX_DEPTH: usize = 64;

fn malformed(what: &str) -> DeliveryError {
    DeliveryError::Cms(format!("not BER: {what}"))
}

/// `input`, one BER element, re-encoded with definite lengths and whole OCTET STRINGs.
pub(crate) fn to_der(input: &[u8]) -> Result<Vec<u8>, DeliveryError> {
    let mut pos = 0;
    let out = element(input, &mut pos, 0)?;
    // Some writers pad a file; nothing but zeros may follow the element.
    if input[pos..].iter().any(|b| *b != 0) {
        return Err(malformed("bytes after the element"));
    }
    Ok(out)
}

fn byte(input: &[u8], pos: &mut usize) -> Result<u8, DeliveryError> {
    let b = *input.get(*pos).ok_or_else(|| malformed("cut short"))?;
    *pos += 1;
    Ok(b)
}

/// The length octets: `None` for the indefinite form.
fn length(input: &[u8], pos: &mut usize) -> Result<Option<usize>, DeliveryError> {
    let first = byte(input, pos)?;
    if first < 0x80 {
        return Ok(Some(usize::from(first)));
    }
    if first == 0x80 {
        return Ok(None);
    }
    let count = usize::from(first & 0x7f);
    if count > 4 {
        return Err(malformed("a length longer than 4 bytes"));
    }
    let mut n = 0usize;
    for _ in 0..count {
        n = (n << 8) | usize::from(byte(input, pos)?);
    }
    Ok(Some(n))
}

fn encode(identifier: &[u8], content: &[u8]) -> Vec<u8> {
    let mut out = identifier.to_vec();
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes = n.to_be_bytes();
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(content);
    out
}

/// The identifier and the content of an element this module wrote (definite length).
fn split(element: &[u8]) -> Result<(u8, &[u8]), DeliveryError> {
    let mut pos = 1;
    let n = length(element, &mut pos)?.ok_or_else(|| malformed("indefinite length"))?;
    let content = element
        .get(pos..pos + n)
        .ok_or_else(|| malformed("cut short"))?;
    Ok((element[0], content))
}

/// The contents of primitive OCTET STRINGs, one after another; `None` when any is not one.
fn joined_octets(chunks: &[Vec<u8>]) -> Result<Option<Vec<u8>>, DeliveryError> {
    let mut joined = Vec::new();
    for chunk in chunks {
        let (identifier, content) = split(chunk)?;
        if identifier != 0x04 {
            return Ok(None);
        }
        joined.extend_from_slice(content);
    }
    Ok(Some(joined))
}

fn element(input: &[u8], pos: &mut usize, depth: usize) -> Result<Vec<u8>, DeliveryError> {
    if depth > MAX_DEPTH {
        return Err(malformed("nested too deep"));
    }
    let first = byte(input, pos)?;
    let mut identifier = vec![first];
    if first & 0x1f == 0x1f {
        loop {
            let b = byte(input, pos)?;
            identifier.push(b);
            if b & 0x80 == 0 {
                break;
            }
            if identifier.len() > 5 {
                return Err(malformed("a tag number too large"));
            }
        }
    }
    let length = length(input, pos)?;
    if first & 0x20 == 0 {
        let n = length.ok_or_else(|| malformed("a primitive element of indefinite length"))?;
        let end = pos.checked_add(n).ok_or_else(|| malformed("a length"))?;
        let content = input.get(*pos..end).ok_or_else(|| malformed("cut short"))?;
        *pos = end;
        return Ok(encode(&identifier, content));
    }
    let mut children = Vec::new();
    match length {
        Some(n) => {
            let end = pos.checked_add(n).ok_or_else(|| malformed("a length"))?;
            if end > input.len() {
                return Err(malformed("cut short"));
            }
            while *pos < end {
                children.push(element(input, pos, depth + 1)?);
            }
            if *pos != end {
                return Err(malformed("a child reaching past its parent"));
            }
        }
        None => loop {
            if input.get(*pos..*pos + 2) == Some(&[0, 0]) {
                *pos += 2;
                break;
            }
            children.push(element(input, pos, depth + 1)?);
        },
    }
    // A chunked OCTET STRING is one string.
    if first == 0x24 {
        let joined = joined_octets(&children)?
            .ok_or_else(|| malformed("an OCTET STRING chunk that is not one"))?;
        return Ok(encode(&[0x04], &joined));
    }
    // EncryptedContentInfo ::= SEQUENCE { contentType OID, contentEncryptionAlgorithm
    // SEQUENCE, encryptedContent [0] IMPLICIT OCTET STRING }: chunked, the last is a
    // constructed [0] of OCTET STRINGs, which becomes the primitive [0].
    if first == 0x30
        && children.len() == 3
        && children[0].first() == Some(&0x06)
        && children[1].first() == Some(&0x30)
        && children[2].first() == Some(&0xa0)
    {
        let inner = {
            let (_, content) = split(&children[2])?;
            let mut at = 0;
            let mut chunks = Vec::new();
            while at < content.len() {
                chunks.push(element(content, &mut at, depth + 2)?);
            }
            chunks
        };
        if let Some(joined) = joined_octets(&inner)? {
            children[2] = encode(&[0x80], &joined);
        }
    }
    Ok(encode(&identifier, &children.concat()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn der_passes_through_unchanged() {
        // SEQUENCE { INTEGER 5, OCTET STRING "ab" }
        let der = [0x30, 0x07, 0x02, 0x01, 0x05, 0x04, 0x02, b'a', b'b'];
        assert_eq!(to_der(&der).unwrap(), der);
    }

    #[test]
    fn indefinite_lengths_and_chunks_become_der() {
        // SEQUENCE (indefinite) { OCTET STRING constructed (indefinite) { "ab", "c" } }
        let ber = [
            0x30, 0x80, 0x24, 0x80, 0x04, 0x02, b'a', b'b', 0x04, 0x01, b'c', 0x00, 0x00, 0x00,
            0x00,
        ];
        assert_eq!(
            to_der(&ber).unwrap(),
            [0x30, 0x05, 0x04, 0x03, b'a', b'b', b'c']
        );
    }

    #[test]
    fn an_encrypted_content_in_chunks_becomes_one_implicit_string() {
        // SEQUENCE { OID 1.2, SEQUENCE {}, [0] constructed (indefinite) { "ab", "c" } }
        let ber = [
            0x30, 0x80, 0x06, 0x01, 0x2a, 0x30, 0x00, 0xa0, 0x80, 0x04, 0x02, b'a', b'b', 0x04,
            0x01, b'c', 0x00, 0x00, 0x00, 0x00,
        ];
        assert_eq!(
            to_der(&ber).unwrap(),
            [0x30, 0x0a, 0x06, 0x01, 0x2a, 0x30, 0x00, 0x80, 0x03, b'a', b'b', b'c']
        );
    }

    #[test]
    fn what_is_not_ber_is_refused() {
        for bad in [
            &[0x30, 0x05, 0x02, 0x01][..],
            &[0x04, 0x80, 0x00, 0x00][..],
            &[0x30, 0x80, 0x02, 0x01, 0x05][..],
        ] {
            assert!(to_der(bad).is_err(), "{bad:?}");
        }
    }
}
