//! Whether a value serializes to given bytes, in serde_json's compact form, decided while
//! serializing it: the verifier asks this of a million re-adjudicated verdicts.
//!
//! The serializer here writes what `serde_json::to_vec` writes, piece by piece, and compares
//! each piece with the expected bytes as it goes, stopping at the first difference. It knows
//! struct keys and most strings need no escaping, which serde_json checks byte by byte. Values
//! it does not handle the same way (floating-point numbers, maps with non-string keys, serde_json's
//! own number and raw-value tokens) are compared through serde_json itself instead.

use serde::ser::{self, Serialize};

/// Whether `serde_json::to_vec(value)` would give exactly `expected`. A value that serde_json
/// cannot serialize gives `false`.
pub fn serializes_to<T: Serialize + ?Sized>(value: &T, expected: &[u8]) -> bool {
    let mut compare = Compare { expected, at: 0 };
    match value.serialize(&mut Writer { out: &mut compare }) {
        Ok(()) => compare.at == expected.len(),
        Err(Stop::Differs) => false,
        Err(Stop::Unsupported) => {
            let mut same = SameBytes::new(expected);
            serde_json::to_writer(&mut same, value).is_ok() && same.all_same()
        }
    }
}

/// What serde_json would write for `value`, when this module writes it the same way (tests
/// compare the two); `None` for what it leaves to serde_json.
#[cfg(test)]
fn to_vec<T: Serialize + ?Sized>(value: &T) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    value.serialize(&mut Writer { out: &mut out }).ok()?;
    Some(out)
}

/// Why serialization stopped early.
#[derive(Debug)]
enum Stop {
    /// The output differs from the expected bytes.
    Differs,
    /// The value needs serde_json's own handling (or failed to serialize).
    Unsupported,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stop::Differs => "differs from the expected bytes",
            Stop::Unsupported => "left to serde_json",
        })
    }
}

impl std::error::Error for Stop {}

impl ser::Error for Stop {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        Stop::Unsupported
    }
}

/// Where the pieces of output go.
trait Output {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Stop>;
}

/// Compares the output with `expected` instead of keeping it.
struct Compare<'e> {
    expected: &'e [u8],
    at: usize,
}

impl Output for Compare<'_> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) -> Result<(), Stop> {
        let end = self.at + bytes.len();
        match self.expected.get(self.at..end) {
            Some(expected) if equal_bytes(expected, bytes) => {
                self.at = end;
                Ok(())
            }
            _ => Err(Stop::Differs),
        }
    }
}

#[cfg(test)]
impl Output for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), Stop> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

/// Whether two slices of the same length are equal. Output comes in pieces of a few bytes (a
/// key, a quote, a number), too short to be worth a call to `memcmp` each.
#[inline]
fn equal_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() <= 16 {
        // No early exit, so this stays a short loop instead of becoming a call.
        a.iter().zip(b).fold(true, |same, (x, y)| same & (x == y))
    } else {
        a == b
    }
}

/// A writer that compares what is written with expected bytes instead of keeping it: the
/// comparison through serde_json itself.
struct SameBytes<'a> {
    expected: &'a [u8],
    at: usize,
    same: bool,
}

impl<'a> SameBytes<'a> {
    fn new(expected: &'a [u8]) -> Self {
        SameBytes {
            expected,
            at: 0,
            same: true,
        }
    }

    /// Whether exactly the expected bytes were written.
    fn all_same(&self) -> bool {
        self.same && self.at == self.expected.len()
    }
}

impl std::io::Write for SameBytes<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.same {
            let end = self.at + buf.len();
            self.same = self
                .expected
                .get(self.at..end)
                .is_some_and(|expected| equal_bytes(expected, buf));
            self.at = end;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// serde_json's compact serializer, writing to an [`Output`].
struct Writer<'o, O: Output> {
    out: &'o mut O,
}

impl<O: Output> Writer<'_, O> {
    /// A string as serde_json writes it: quoted, with `"`, `\` and control characters escaped.
    #[inline]
    fn string(&mut self, s: &str) -> Result<(), Stop> {
        if needs_escape(s.as_bytes()) {
            let quoted = serde_json::to_string(s).map_err(|_| Stop::Unsupported)?;
            return self.out.put(quoted.as_bytes());
        }
        self.out.put(b"\"")?;
        self.out.put(s.as_bytes())?;
        self.out.put(b"\"")
    }

    fn unsigned(&mut self, n: u64) -> Result<(), Stop> {
        let mut digits = [0u8; 20];
        self.out.put(decimal(n, &mut digits))
    }

    fn signed(&mut self, n: i64) -> Result<(), Stop> {
        if n < 0 {
            self.out.put(b"-")?;
        }
        self.unsigned(n.unsigned_abs())
    }
}

/// `n` in decimal, written at the end of `buffer`.
fn decimal(mut n: u64, buffer: &mut [u8; 20]) -> &[u8] {
    let mut start = buffer.len();
    loop {
        start -= 1;
        // n % 10 < 10, so the cast keeps it.
        buffer[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buffer[start..];
        }
    }
}

/// Whether serde_json escapes some byte of the string: `"`, `\` or a control character.
#[inline]
fn needs_escape(bytes: &[u8]) -> bool {
    crate::canonical_scan::plain_run(bytes) != bytes.len()
}

/// serde_json writes these names' values specially (arbitrary-precision numbers, raw values).
fn is_serde_json_token(name: &str) -> bool {
    name.starts_with("$serde_json::")
}

impl<'w, 'o, O: Output> ser::Serializer for &'w mut Writer<'o, O> {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Compound<'w, 'o, O>;
    type SerializeTuple = Compound<'w, 'o, O>;
    type SerializeTupleStruct = Compound<'w, 'o, O>;
    type SerializeTupleVariant = Compound<'w, 'o, O>;
    type SerializeMap = Compound<'w, 'o, O>;
    type SerializeStruct = Compound<'w, 'o, O>;
    type SerializeStructVariant = Compound<'w, 'o, O>;

    fn serialize_bool(self, v: bool) -> Result<(), Stop> {
        self.out.put(if v { b"true" } else { b"false" })
    }

    fn serialize_i8(self, v: i8) -> Result<(), Stop> {
        self.signed(v.into())
    }

    fn serialize_i16(self, v: i16) -> Result<(), Stop> {
        self.signed(v.into())
    }

    fn serialize_i32(self, v: i32) -> Result<(), Stop> {
        self.signed(v.into())
    }

    fn serialize_i64(self, v: i64) -> Result<(), Stop> {
        self.signed(v)
    }

    fn serialize_i128(self, v: i128) -> Result<(), Stop> {
        self.out.put(v.to_string().as_bytes())
    }

    fn serialize_u8(self, v: u8) -> Result<(), Stop> {
        self.unsigned(v.into())
    }

    fn serialize_u16(self, v: u16) -> Result<(), Stop> {
        self.unsigned(v.into())
    }

    fn serialize_u32(self, v: u32) -> Result<(), Stop> {
        self.unsigned(v.into())
    }

    fn serialize_u64(self, v: u64) -> Result<(), Stop> {
        self.unsigned(v)
    }

    fn serialize_u128(self, v: u128) -> Result<(), Stop> {
        self.out.put(v.to_string().as_bytes())
    }

    fn serialize_f32(self, _: f32) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_f64(self, _: f64) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_char(self, v: char) -> Result<(), Stop> {
        self.string(v.encode_utf8(&mut [0u8; 4]))
    }

    fn serialize_str(self, v: &str) -> Result<(), Stop> {
        self.string(v)
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Stop> {
        self.out.put(b"[")?;
        for (n, byte) in v.iter().enumerate() {
            if n > 0 {
                self.out.put(b",")?;
            }
            self.unsigned((*byte).into())?;
        }
        self.out.put(b"]")
    }

    fn serialize_none(self) -> Result<(), Stop> {
        self.out.put(b"null")
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Stop> {
        self.out.put(b"null")
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Stop> {
        self.out.put(b"null")
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Stop> {
        self.string(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        if is_serde_json_token(name) {
            return Err(Stop::Unsupported);
        }
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        self.out.put(b"{")?;
        self.string(variant)?;
        self.out.put(b":")?;
        value.serialize(&mut *self)?;
        self.out.put(b"}")
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'w, 'o, O>, Stop> {
        self.out.put(b"[")?;
        Ok(Compound::new(self, b"]"))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'w, 'o, O>, Stop> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        len: usize,
    ) -> Result<Compound<'w, 'o, O>, Stop> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'w, 'o, O>, Stop> {
        self.out.put(b"{")?;
        self.string(variant)?;
        self.out.put(b":[")?;
        Ok(Compound::new(self, b"]}"))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'w, 'o, O>, Stop> {
        self.out.put(b"{")?;
        Ok(Compound::new(self, b"}"))
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'w, 'o, O>, Stop> {
        if is_serde_json_token(name) {
            return Err(Stop::Unsupported);
        }
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'w, 'o, O>, Stop> {
        self.out.put(b"{")?;
        self.string(variant)?;
        self.out.put(b":{")?;
        Ok(Compound::new(self, b"}}"))
    }
}

/// An array or object being written: commas between its elements, then its closing bytes.
struct Compound<'w, 'o, O: Output> {
    writer: &'w mut Writer<'o, O>,
    first: bool,
    close: &'static [u8],
}

impl<'w, 'o, O: Output> Compound<'w, 'o, O> {
    fn new(writer: &'w mut Writer<'o, O>, close: &'static [u8]) -> Self {
        Compound {
            writer,
            first: true,
            close,
        }
    }

    fn separator(&mut self) -> Result<(), Stop> {
        if self.first {
            self.first = false;
            Ok(())
        } else {
            self.writer.out.put(b",")
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.separator()?;
        value.serialize(&mut *self.writer)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Stop> {
        self.separator()?;
        self.writer.string(key)?;
        self.writer.out.put(b":")?;
        value.serialize(&mut *self.writer)
    }

    fn close(self) -> Result<(), Stop> {
        self.writer.out.put(self.close)
    }
}

impl<O: Output> ser::SerializeSeq for Compound<'_, '_, O> {
    type Ok = ();
    type Error = Stop;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.element(value)
    }

    fn end(self) -> Result<(), Stop> {
        self.close()
    }
}

impl<O: Output> ser::SerializeTuple for Compound<'_, '_, O> {
    type Ok = ();
    type Error = Stop;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.element(value)
    }

    fn end(self) -> Result<(), Stop> {
        self.close()
    }
}

impl<O: Output> ser::SerializeTupleStruct for Compound<'_, '_, O> {
    type Ok = ();
    type Error = Stop;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.element(value)
    }

    fn end(self) -> Result<(), Stop> {
        self.close()
    }
}

impl<O: Output> ser::SerializeTupleVariant for Compound<'_, '_, O> {
    type Ok = ();
    type Error = Stop;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.element(value)
    }

    fn end(self) -> Result<(), Stop> {
        self.close()
    }
}

impl<O: Output> ser::SerializeMap for Compound<'_, '_, O> {
    type Ok = ();
    type Error = Stop;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        self.separator()?;
        key.serialize(MapKey {
            writer: &mut *self.writer,
        })?;
        self.writer.out.put(b":")
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        value.serialize(&mut *self.writer)
    }

    fn end(self) -> Result<(), Stop> {
        self.close()
    }
}

impl<O: Output> ser::SerializeStruct for Compound<'_, '_, O> {
    type Ok = ();
    type Error = Stop;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        self.field(key, value)
    }

    fn end(self) -> Result<(), Stop> {
        self.close()
    }
}

impl<O: Output> ser::SerializeStructVariant for Compound<'_, '_, O> {
    type Ok = ();
    type Error = Stop;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        self.field(key, value)
    }

    fn end(self) -> Result<(), Stop> {
        self.close()
    }
}

/// A map key: strings (and unit variants, which are strings) are written as serde_json writes
/// them; serde_json's quoting of other keys is left to serde_json.
struct MapKey<'w, 'o, O: Output> {
    writer: &'w mut Writer<'o, O>,
}

impl<O: Output> ser::Serializer for MapKey<'_, '_, O> {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = ser::Impossible<(), Stop>;
    type SerializeTuple = ser::Impossible<(), Stop>;
    type SerializeTupleStruct = ser::Impossible<(), Stop>;
    type SerializeTupleVariant = ser::Impossible<(), Stop>;
    type SerializeMap = ser::Impossible<(), Stop>;
    type SerializeStruct = ser::Impossible<(), Stop>;
    type SerializeStructVariant = ser::Impossible<(), Stop>;

    fn serialize_str(self, v: &str) -> Result<(), Stop> {
        self.writer.string(v)
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Stop> {
        self.writer.string(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        if is_serde_json_token(name) {
            return Err(Stop::Unsupported);
        }
        value.serialize(self)
    }

    fn serialize_bool(self, _: bool) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_i8(self, _: i8) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_i16(self, _: i16) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_i32(self, _: i32) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_i64(self, _: i64) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_u8(self, _: u8) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_u16(self, _: u16) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_u32(self, _: u32) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_u64(self, _: u64) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_f32(self, _: f32) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_f64(self, _: f64) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_char(self, _: char) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_bytes(self, _: &[u8]) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_none(self) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_unit(self) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Stop> {
        Err(Stop::Unsupported)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Stop> {
        Err(Stop::Unsupported)
    }
}

#[cfg(test)]
mod tests;
