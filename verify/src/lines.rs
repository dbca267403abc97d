//! Reading the JSON-lines files of an export a block at a time, each block's lines in one
//! buffer (one allocation and one UTF-8 check per block, buffers reused from block to block).

use std::io::{BufRead, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::error::{fail, InspectionError};
use crate::format::ADJUDICATIONS;

/// Lines of a file, in one buffer.
#[derive(Debug, Default)]
pub(super) struct LineBlock {
    text: String,
    /// End offset of each line in `text`.
    ends: Vec<usize>,
}

impl LineBlock {
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Lines `range` of the block.
    pub(super) fn lines_in(&self, range: std::ops::Range<usize>) -> Vec<&str> {
        let mut start = match range.start {
            0 => 0,
            n => self.ends[n - 1],
        };
        self.ends[range]
            .iter()
            .map(|&end| {
                let line = &self.text[start..end];
                start = end;
                line
            })
            .collect()
    }
}

/// A file hashed as it is read, so that its MANIFEST sum needs no second pass over it.
struct HashingFile {
    file: std::fs::File,
    hasher: Sha256,
}

impl Read for HashingFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

/// A JSON-lines file read in blocks.
pub(super) struct LineReader {
    name: &'static str,
    reader: std::io::BufReader<HashingFile>,
    /// Lines read so far.
    line: usize,
    /// Bytes of the last block read.
    last_block: usize,
}

impl LineReader {
    pub(super) fn open(dir: &Path, name: &'static str) -> Result<LineReader, InspectionError> {
        let file = std::fs::File::open(dir.join(name))
            .map_err(|e| fail(name, format!("cannot read: {e}")))?;
        Ok(LineReader {
            name,
            reader: std::io::BufReader::with_capacity(
                1 << 20,
                HashingFile {
                    file,
                    hasher: Sha256::new(),
                },
            ),
            line: 0,
            last_block: 0,
        })
    }

    /// Appends the next line, without its newline, to `bytes`; `false` at the end of the file.
    fn read_into(&mut self, bytes: &mut Vec<u8>) -> Result<bool, InspectionError> {
        let n = self
            .reader
            .read_until(b'\n', bytes)
            .map_err(|e| fail(self.name, format!("cannot read: {e}")))?;
        if n == 0 {
            return Ok(false);
        }
        self.line += 1;
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        Ok(true)
    }

    /// Room in `bytes` (emptied) for a block about as large as the last one, and an eighth
    /// more: a buffer grown by doubling as lines arrive copies what it holds into fresh pages,
    /// which the kernel clears first, at every step.
    fn make_room(&self, bytes: &mut Vec<u8>) {
        bytes.clear();
        bytes.reserve(self.last_block + self.last_block / 8);
    }

    /// The SHA-256 of the whole file (what was not read yet is read now).
    pub(super) fn finish_sha256(self) -> Result<String, InspectionError> {
        // The buffered bytes were hashed when they were read from the file.
        let mut file = self.reader.into_inner();
        std::io::copy(&mut file, &mut std::io::sink())
            .map_err(|e| fail(self.name, format!("cannot read: {e}")))?;
        Ok(hex::encode(file.hasher.finalize()))
    }

    /// Up to `max` lines into `block` (emptied first, its buffers kept).
    pub(super) fn next_block(
        &mut self,
        max: usize,
        block: &mut LineBlock,
    ) -> Result<(), InspectionError> {
        let first_line = self.line + 1;
        let mut bytes = std::mem::take(&mut block.text).into_bytes();
        self.make_room(&mut bytes);
        block.ends.clear();
        block.ends.reserve(max);
        while block.ends.len() < max && self.read_into(&mut bytes)? {
            block.ends.push(bytes.len());
        }
        self.last_block = bytes.len();
        block.text = into_text(bytes, &block.ends, self.name, first_line)?;
        Ok(())
    }
}

/// The buffer as text, or the line that is not UTF-8.
fn into_text(
    bytes: Vec<u8>,
    ends: &[usize],
    name: &str,
    first_line: usize,
) -> Result<String, InspectionError> {
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = first_line + ends.partition_point(|&end| end <= at);
        fail(format!("{name} line {line}"), "not UTF-8")
    })
}

/// A verdict's place: its entry index, its line of adjudications.jsonl and its text.
#[derive(Debug, Clone, Copy)]
struct VerdictSpan {
    index: u64,
    line: usize,
    start: usize,
    end: usize,
}

/// The verdicts of a block of entries, in increasing index order (the file holds each one
/// canonical).
#[derive(Debug, Default)]
pub(super) struct Verdicts {
    text: String,
    spans: Vec<VerdictSpan>,
}

impl Verdicts {
    pub(super) fn len(&self) -> usize {
        self.spans.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The line and verdict of entry `index`.
    pub(super) fn get(&self, index: u64) -> Option<(usize, &str)> {
        let at = self.spans.binary_search_by_key(&index, |s| s.index).ok()?;
        let span = self.spans[at];
        Some((span.line, &self.text[span.start..span.end]))
    }

    /// (line, index) of every verdict.
    pub(super) fn places(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.spans.iter().map(|s| (s.line, s.index))
    }
}

/// adjudications.jsonl, read in step with the entries (both are in index order). Lines are
/// canonical `{"index":N,"verdict":V}`; each V is checked later, against re-adjudication or for
/// canonical form.
pub(super) struct VerdictReader {
    lines: LineReader,
    /// A line read ahead, belonging to a later block: line number, index and bytes.
    ahead: Option<(usize, u64, Vec<u8>)>,
    last_index: Option<u64>,
}

const LINE_PREFIX: &[u8] = b"{\"index\":";
const VERDICT_KEY: &[u8] = b",\"verdict\":";

impl VerdictReader {
    pub(super) fn open(dir: &Path) -> Result<VerdictReader, InspectionError> {
        Ok(VerdictReader {
            lines: LineReader::open(dir, ADJUDICATIONS)?,
            ahead: None,
            last_index: None,
        })
    }

    /// The SHA-256 of adjudications.jsonl (what was not read yet is read now).
    pub(super) fn finish_sha256(self) -> Result<String, InspectionError> {
        self.lines.finish_sha256()
    }

    /// Every verdict with an index below `end`, into `verdicts` (emptied first).
    pub(super) fn take_before(
        &mut self,
        end: u64,
        verdicts: &mut Verdicts,
    ) -> Result<(), InspectionError> {
        let mut bytes = std::mem::take(&mut verdicts.text).into_bytes();
        self.lines.make_room(&mut bytes);
        verdicts.spans.clear();
        let mut ends = Vec::with_capacity(verdicts.spans.capacity());
        let mut first_line = None;
        loop {
            let start = bytes.len();
            let (line, index) = match self.ahead.take() {
                Some((line, index, ahead)) => {
                    bytes.extend_from_slice(&ahead);
                    (line, index)
                }
                None if self.lines.read_into(&mut bytes)? => {
                    let line = self.lines.line;
                    (line, self.index_of(line, &bytes[start..])?)
                }
                None => break,
            };
            if index >= end {
                self.ahead = Some((line, index, bytes[start..].to_vec()));
                bytes.truncate(start);
                break;
            }
            first_line.get_or_insert(line);
            ends.push(bytes.len());
            // The verdict: after `,"verdict":`, before the closing brace.
            let digits = bytes[start + LINE_PREFIX.len()..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            verdicts.spans.push(VerdictSpan {
                index,
                line,
                start: start + LINE_PREFIX.len() + digits + VERDICT_KEY.len(),
                end: bytes.len() - 1,
            });
        }
        self.lines.last_block = bytes.len();
        verdicts.text = into_text(bytes, &ends, ADJUDICATIONS, first_line.unwrap_or(0))?;
        Ok(())
    }

    /// The index of a canonical `{"index":N,"verdict":…}` line, in increasing order.
    fn index_of(&mut self, line: usize, bytes: &[u8]) -> Result<u64, InspectionError> {
        let item = || format!("{ADJUDICATIONS} line {line}");
        let index = bytes
            .strip_prefix(LINE_PREFIX)
            .and_then(|rest| {
                let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
                let (number, rest) = rest.split_at(digits);
                let canonical_number =
                    !number.is_empty() && (number == b"0" || number[0] != b'0') && digits <= 19;
                let well_formed = rest.starts_with(VERDICT_KEY)
                    && rest.len() > VERDICT_KEY.len() + 1
                    && rest.ends_with(b"}");
                if !(canonical_number && well_formed) {
                    return None;
                }
                std::str::from_utf8(number).ok()?.parse::<u64>().ok()
            })
            .ok_or_else(|| fail(item(), "not a canonical {\"index\":…,\"verdict\":…} line"))?;
        if self.last_index.is_some_and(|last| index <= last) {
            return Err(fail(item(), "verdicts are not in increasing index order"));
        }
        self.last_index = Some(index);
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir_with(name: &str, content: &[u8]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(name), content).unwrap();
        dir
    }

    #[test]
    fn blocks_of_lines_reuse_one_buffer_and_name_a_line_that_is_not_utf8() {
        let dir = dir_with("x.jsonl", b"one\ntwo\nthree\nfour\nfive");
        let mut reader = LineReader::open(dir.path(), "x.jsonl").unwrap();
        let mut block = LineBlock::default();
        let mut seen = Vec::new();
        loop {
            reader.next_block(2, &mut block).unwrap();
            if block.is_empty() {
                break;
            }
            seen.push(block.lines_in(0..block.len()).join(","));
            if block.len() == 2 {
                seen.push(block.lines_in(1..2).join(","));
            }
        }
        assert_eq!(seen, ["one,two", "two", "three,four", "four", "five"]);
        assert_eq!(
            reader.finish_sha256().unwrap(),
            hex::encode(Sha256::digest(b"one\ntwo\nthree\nfour\nfive"))
        );
        // Stopped early, the rest of the file (beyond the read buffer's 1 MiB) is still hashed.
        let long: String = (0..300_000).map(|n| format!("line {n}\n")).collect();
        let dir = dir_with("x.jsonl", long.as_bytes());
        let mut reader = LineReader::open(dir.path(), "x.jsonl").unwrap();
        reader.next_block(1, &mut block).unwrap();
        assert_eq!(block.lines_in(0..1), ["line 0"]);
        assert_eq!(
            reader.finish_sha256().unwrap(),
            hex::encode(Sha256::digest(long.as_bytes()))
        );

        let dir = dir_with("x.jsonl", b"a\nb\nc\n\xff\ne\n");
        let mut reader = LineReader::open(dir.path(), "x.jsonl").unwrap();
        reader.next_block(2, &mut block).unwrap();
        let error = reader.next_block(2, &mut block).unwrap_err();
        assert_eq!(error.item, "x.jsonl line 4");
    }

    fn verdict_line(index: u64) -> String {
        format!("{{\"index\":{index},\"verdict\":{{\"n\":{index}}}}}\n")
    }

    #[test]
    fn verdicts_are_taken_block_by_block_with_their_lines() {
        let text: String = [1, 3, 4, 9].map(verdict_line).concat();
        let dir = dir_with(ADJUDICATIONS, text.as_bytes());
        let mut reader = VerdictReader::open(dir.path()).unwrap();
        let mut verdicts = Verdicts::default();
        reader.take_before(4, &mut verdicts).unwrap();
        assert_eq!(verdicts.places().collect::<Vec<_>>(), [(1, 1), (2, 3)]);
        assert_eq!(verdicts.get(3), Some((2, "{\"n\":3}")));
        assert_eq!(verdicts.get(2), None);
        reader.take_before(5, &mut verdicts).unwrap();
        assert_eq!(verdicts.places().collect::<Vec<_>>(), [(3, 4)]);
        assert_eq!(verdicts.get(4), Some((3, "{\"n\":4}")));
        reader.take_before(9, &mut verdicts).unwrap();
        assert!(verdicts.is_empty());
        reader.take_before(u64::MAX, &mut verdicts).unwrap();
        assert_eq!(verdicts.get(9), Some((4, "{\"n\":9}")));
        reader.take_before(u64::MAX, &mut verdicts).unwrap();
        assert_eq!(verdicts.len(), 0);
    }

    #[test]
    fn verdict_lines_out_of_order_or_not_canonical_are_named() {
        let read_all = |text: &str| {
            let dir = dir_with(ADJUDICATIONS, text.as_bytes());
            let mut reader = VerdictReader::open(dir.path())?;
            reader.take_before(u64::MAX, &mut Verdicts::default())
        };
        let descending = [5, 4].map(verdict_line).concat();
        let error = read_all(&descending).unwrap_err();
        assert_eq!(error.item, "adjudications.jsonl line 2");
        assert!(error.message.contains("increasing"));
        for bad in [
            "{\"index\":07,\"verdict\":{}}\n",
            "{\"index\":7,\"verdict\":}\n",
            "{\"verdict\":{},\"index\":7}\n",
            "{\"index\":7, \"verdict\":{}}\n",
            "{\"index\":99999999999999999999,\"verdict\":{}}\n",
        ] {
            let error = read_all(bad).unwrap_err();
            assert_eq!(error.item, "adjudications.jsonl line 1", "{bad}");
        }
        assert!(read_all("{\"index\":0,\"verdict\":{}}\n").is_ok());
    }
}
