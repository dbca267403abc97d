//! The wire format of C2SP `tlog-witness`, for the witness and its clients alike: the body of an
//! add-checkpoint request (`old <size>`, up to 63 consistency proof lines in base64, an empty
//! line, the signed checkpoint) and the 409 answer's body (the size, `text/x.tlog.size`).

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;

use crate::merkle::Hash;

/// The content type of a 409 answer's body.
pub const SIZE_CONTENT_TYPE: &str = "text/x.tlog.size";

/// The most proof lines a client may send (a proof between 63-bit tree sizes).
pub const MAX_PROOF_LINES: usize = 63;

/// A request body, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddCheckpoint {
    pub old_size: u64,
    pub proof: Vec<Hash>,
    /// The signed checkpoint note, as sent.
    pub note: String,
}

/// Reads a request body; the message says what is malformed.
pub fn parse(body: &[u8]) -> Result<AddCheckpoint, String> {
    let body = std::str::from_utf8(body).map_err(|_| "the body is not UTF-8".to_owned())?;
    let (head, note) = body
        .split_once("\n\n")
        .ok_or_else(|| "no empty line before the checkpoint".to_owned())?;
    let mut lines = head.split('\n');
    let old = lines
        .next()
        .and_then(|l| l.strip_prefix("old "))
        .ok_or_else(|| "the first line is not `old <size>`".to_owned())?;
    let old_size = decimal(old)
        .ok_or_else(|| format!("old size `{old}` is not a decimal without leading zeroes"))?;
    let proof = lines
        .map(|line| {
            BASE64
                .decode(line)
                .ok()
                .and_then(|h| Hash::try_from(h).ok())
                .ok_or_else(|| format!("proof line `{line}` is not base64 of 32 bytes"))
        })
        .collect::<Result<Vec<Hash>, String>>()?;
    if proof.len() > MAX_PROOF_LINES {
        return Err(format!(
            "{} proof lines; at most {MAX_PROOF_LINES} are allowed",
            proof.len()
        ));
    }
    // The origin is the note's first line: without one there is no log to look for.
    if note.split('\n').next().unwrap_or_default().is_empty() {
        return Err("the checkpoint note is empty or its first line (the origin) is".to_owned());
    }
    Ok(AddCheckpoint {
        old_size,
        proof,
        note: note.to_owned(),
    })
}

/// An ASCII decimal without leading zeroes (`0` itself allowed), at most 2⁶³ − 1.
pub fn decimal(text: &str) -> Option<u64> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    text.parse::<u64>()
        .ok()
        .filter(|n| canonical && *n <= i64::MAX as u64)
}

/// The size a 409 answer carries (`<size>\n`).
pub fn parse_size(body: &[u8]) -> Option<u64> {
    std::str::from_utf8(body)
        .ok()?
        .strip_suffix('\n')
        .and_then(decimal)
}

/// The body of a request (for a client).
pub fn body(old_size: u64, proof: &[Hash], note: &str) -> String {
    let mut body = format!("old {old_size}\n");
    for hash in proof {
        body.push_str(&BASE64.encode(hash));
        body.push('\n');
    }
    body.push('\n');
    body.push_str(note);
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "example.org/log\n3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n\u{2014} example.org/log abcd\n";

    #[test]
    fn a_body_reads_back_as_written() {
        let proof = [[0x2a; 32], [7; 32]];
        let read = parse(body(1, &proof, NOTE).as_bytes()).unwrap();
        assert_eq!(
            read,
            AddCheckpoint {
                old_size: 1,
                proof: proof.to_vec(),
                note: NOTE.into()
            }
        );
        let empty = parse(body(0, &[], NOTE).as_bytes()).unwrap();
        assert!(empty.proof.is_empty());
        assert_eq!(empty.note, NOTE);
    }

    #[test]
    fn malformed_bodies_are_named() {
        for (body, why) in [
            ("old 01\n\nx", "leading zeroes"),
            ("old +1\n\nx", "leading zeroes"),
            ("old -1\n\nx", "leading zeroes"),
            ("old 9223372036854775808\n\nx", "leading zeroes"),
            ("new 1\n\nx", "`old <size>`"),
            ("old 1\nAAAA\n\nx", "base64 of 32 bytes"),
            ("old 1\n", "no empty line"),
            ("old 0\n\n", "the origin"),
            ("old 0\n\n\n1\nroot\n", "the origin"),
        ] {
            let e = parse(body.as_bytes()).unwrap_err();
            assert!(e.contains(why), "{body:?}: {e}");
        }
        let many = body(1, &[[1; 32]; 64], NOTE);
        assert!(parse(many.as_bytes()).unwrap_err().contains("at most 63"));
        assert!(parse(body(1, &[[1; 32]; 63], NOTE).as_bytes()).is_ok());
    }

    #[test]
    fn a_conflict_answer_carries_one_size_and_a_newline() {
        assert_eq!(parse_size(b"3\n"), Some(3));
        assert_eq!(parse_size(b"0\n"), Some(0));
        for bad in [&b"3"[..], b"03\n", b"3\n\n", b" 3\n", b""] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
    }
}
