//! One PBI data line split into its 9 fields.
//!
//! Fields borrow from the line. Splitting comes first and decoding after
//! (FORMATS.md, PBI 5), so an escaped `:`, `;` or `|` never splits
//! anything; a field is decoded, and so copied, only when it holds `\`.

use std::borrow::Cow;
use std::cell::OnceCell;

use super::escape;
use crate::board::Board;
use crate::gbr::Men;
use crate::lines::Line;

/// The nine fields of a data line, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Author names, a `;` list.
    Names = 0,
    /// The Forsyth string.
    Position = 1,
    /// The stipulation.
    Stipulation = 2,
    /// The used source, `nr|title|date|page`.
    UsedSource = 3,
    /// Referenced sources, a `;` list of sources.
    References = 4,
    /// Awards, a `;` list of `nr|rank|tourney|date`.
    Awards = 5,
    /// The keymove.
    Keymove = 6,
    /// The status.
    Status = 7,
    /// The comment; everything after the eighth `:`.
    Comment = 8,
}

/// The special bytes a field holds, as bits of [`Shape::bits`].
pub mod class {
    /// `;`, the list separator.
    pub const SEMICOLON: u8 = 1;
    /// `|`, the subfield separator.
    pub const PIPE: u8 = 2;
    /// `\`, which starts an escape.
    pub const BACKSLASH: u8 = 4;
    /// `"`, which CSV must quote.
    pub const QUOTE: u8 = 8;
    /// `,`, the usual CSV delimiter.
    pub const COMMA: u8 = 16;
    /// A tab, the TSV delimiter.
    pub const TAB: u8 = 32;
    /// A byte of 0x80 or more: not ASCII. Noted for the whole line, in
    /// [`Shape::high`](super::Shape::high), not per field.
    pub const HIGH: u8 = 64;
    /// `:` (only the comment can hold one).
    pub const COLON: u8 = 128;
}

/// What one pass over a line learned about each of its 9 fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// For each field, the [`class`] bits of the special bytes in it.
    pub bits: [u8; 9],
    /// For each field, how many `|` it holds (at most 255).
    pub pipes: [u8; 9],
    /// Whether the line holds a byte of 0x80 or more.
    pub high: bool,
}

impl Shape {
    /// The bits of all fields together, with [`class::HIGH`] when the
    /// line is not all ASCII.
    pub fn all(&self) -> u8 {
        let high = if self.high { class::HIGH } else { 0 };
        self.bits.iter().fold(high, |acc, b| acc | b)
    }
}

/// The class of every byte, 0 for the ordinary ones.
static CLASS: [u8; 256] = classes();

const fn classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    t[b';' as usize] = class::SEMICOLON;
    t[b'|' as usize] = class::PIPE;
    t[b'\\' as usize] = class::BACKSLASH;
    t[b'"' as usize] = class::QUOTE;
    t[b',' as usize] = class::COMMA;
    t[b'\t' as usize] = class::TAB;
    t[b':' as usize] = class::COLON;
    t
}

/// What splitting a line into fields found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split<'a> {
    /// Exactly 9 fields.
    Exact([&'a [u8]; 9], Shape),
    /// More than 8 `:`: the rest of the line went into the comment.
    Extra([&'a [u8]; 9], Shape),
    /// Fewer than 8 `:`; how many fields there were.
    Short(usize),
}

/// Splits `line` at its first 8 `:`, noting on the way which special
/// bytes each field holds.
///
/// The later steps (validation, decoding, CSV quoting) then skip every
/// field that has nothing for them. On x86_64 the special bytes are found
/// 16 at a time with SSE2; elsewhere one table look-up per byte.
pub fn split(line: &[u8]) -> Split<'_> {
    let mut state = SplitState::new();
    #[cfg(not(target_arch = "x86_64"))]
    let rest = 0;
    #[cfg(target_arch = "x86_64")]
    let rest = {
        let mut chunks = line.chunks_exact(16);
        let mut high = 0;
        let mut base = 0;
        for chunk in chunks.by_ref() {
            let (mask, h) = sse2::special(chunk);
            high |= h;
            state.bytes(line, base, mask);
            base += 16;
        }
        // The last bytes, padded with zeros, which are not special.
        let tail = chunks.remainder();
        if !tail.is_empty() {
            let mut last = [0u8; 16];
            last[..tail.len()].copy_from_slice(tail);
            let (mask, h) = sse2::special(&last);
            high |= h;
            state.bytes(line, base, mask);
        }
        state.shape.high = high != 0;
        line.len()
    };
    for (at, &b) in line.iter().enumerate().skip(rest) {
        state.shape.high |= b >= 0x80;
        if CLASS[usize::from(b)] != 0 {
            state.byte(line, at);
        }
    }
    state.finish(line)
}

/// The scalar split, one table look-up per byte: the reference the SSE2
/// split is tested against.
#[cfg(test)]
pub(crate) fn split_scalar(line: &[u8]) -> Split<'_> {
    let mut state = SplitState::new();
    for (at, &b) in line.iter().enumerate() {
        state.shape.high |= b >= 0x80;
        if CLASS[usize::from(b)] != 0 {
            state.byte(line, at);
        }
    }
    state.finish(line)
}

/// Where [`split`] is in a line.
///
/// The arrays have 16 entries, of which 9 are used, so that indexing
/// them with `field & 15` needs no bounds check.
struct SplitState {
    /// `ends[f]` is where field `f` ends: the last special byte seen in
    /// it, which for fields 0-7 is the colon that closes them.
    ends: [usize; 16],
    bits: [u8; 16],
    /// Pipes per field, counted past 255 (a line can be long).
    pipes: [u32; 16],
    shape: Shape,
    field: usize,
}

impl SplitState {
    fn new() -> SplitState {
        SplitState {
            ends: [0; 16],
            bits: [0; 16],
            pipes: [0; 16],
            shape: Shape::default(),
            field: 0,
        }
    }

    /// Takes the special bytes at `base` plus each bit of `mask`.
    #[inline(always)]
    fn bytes(&mut self, line: &[u8], base: usize, mut mask: u32) {
        while mask != 0 {
            let at = base + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            self.byte(line, at);
        }
    }

    /// Takes the special byte at `at`. No branch: which special bytes
    /// are colons is not predictable.
    #[inline(always)]
    fn byte(&mut self, line: &[u8], at: usize) {
        let b = line[at];
        let f = self.field & 15;
        let colon = (b == b':') & (f < 8);
        self.ends[f] = at;
        // A colon that ends a field is not part of it.
        self.bits[f] |=
            CLASS[usize::from(b)] & u8::from(colon).wrapping_sub(1);
        self.pipes[f] += u32::from(b == b'|');
        self.field = f + usize::from(colon);
    }

    fn finish(mut self, line: &[u8]) -> Split<'_> {
        if self.field < 8 {
            return Split::Short(self.field + 1);
        }
        for f in 0..9 {
            self.shape.bits[f] = self.bits[f];
            self.shape.pipes[f] = self.pipes[f].min(255) as u8;
        }
        let mut fields: [&[u8]; 9] = [b""; 9];
        let mut start = 0;
        for (field, &end) in fields.iter_mut().zip(&self.ends[..8]) {
            *field = &line[start..end];
            start = end + 1;
        }
        fields[8] = &line[start..];
        if self.shape.bits[8] & class::COLON != 0 {
            Split::Extra(fields, self.shape)
        } else {
            Split::Exact(fields, self.shape)
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8,
    };

    /// A bit for each of the 16 bytes of `chunk` that is special (one of
    /// `: ; | \ " ,` and tab), and a bit for each that is not ASCII.
    ///
    /// # Panics
    ///
    /// If `chunk` is shorter than 16 bytes.
    #[inline(always)]
    pub(super) fn special(chunk: &[u8]) -> (u32, u32) {
        assert!(chunk.len() >= 16);
        // SAFETY: SSE2 is part of every x86_64 CPU, so these intrinsics
        // are always available; `_mm_loadu_si128` reads 16 bytes with no
        // alignment requirement, and the assert above guarantees them.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
            let m = _mm_or_si128(
                _mm_or_si128(
                    _mm_or_si128(eq(b':'), eq(b';')),
                    _mm_or_si128(eq(b'|'), eq(b'\\')),
                ),
                _mm_or_si128(_mm_or_si128(eq(b'"'), eq(b',')), eq(b'\t')),
            );
            // The movemask of `v` itself marks the bytes of 0x80 or more.
            (_mm_movemask_epi8(m) as u32, _mm_movemask_epi8(v) as u32)
        }
    }
}

/// The four `|`-separated subfields of a source or an award.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subfields<'a> {
    /// The subfields as written (undecoded).
    pub raw: [&'a [u8]; 4],
    /// How many subfields were written (1 for an empty field); 4 is right.
    pub written: usize,
}

impl<'a> Subfields<'a> {
    /// Splits at the first 3 `|`: missing subfields are empty, extra text
    /// belongs to the last (FORMATS.md, PBI 7).
    pub fn split(field: &'a [u8]) -> Subfields<'a> {
        // Subfields are short: a plain search beats memchr's set-up here.
        let mut raw: [&[u8]; 4] = [b""; 4];
        let mut rest = field;
        let mut n = 0;
        while n < 3 {
            let Some(i) = rest.iter().position(|&b| b == b'|') else {
                break;
            };
            raw[n] = &rest[..i];
            rest = &rest[i + 1..];
            n += 1;
        }
        raw[n] = rest;
        if n == 3 {
            n += rest.iter().filter(|&&b| b == b'|').count();
        }
        Subfields { raw, written: n + 1 }
    }

    /// Subfield `i` (0-3) decoded.
    pub fn get(&self, i: usize) -> Cow<'a, [u8]> {
        escape::decode(self.raw[i])
    }

    /// Appends the subfields decoded and joined with `|`.
    pub fn write_decoded(&self, out: &mut Vec<u8>) {
        for (i, raw) in self.raw.iter().enumerate() {
            if i > 0 {
                out.push(b'|');
            }
            escape::decode_into(raw, out);
        }
    }

    /// Appends the subfields joined with `|`, undecoded.
    pub fn write_raw(&self, out: &mut Vec<u8>) {
        for (i, raw) in self.raw.iter().enumerate() {
            if i > 0 {
                out.push(b'|');
            }
            out.extend_from_slice(raw);
        }
    }
}

/// The items of a `;` list: each trimmed of spaces and tabs (before
/// decoding, so an escaped space stays), empty items dropped.
pub fn list(field: &[u8]) -> impl Iterator<Item = &[u8]> {
    field.split(|&b| b == b';').map(trim).filter(|item| !item.is_empty())
}

/// `s` without leading and trailing spaces and tabs.
pub fn trim(s: &[u8]) -> &[u8] {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = s.iter().position(|b| !blank(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|b| !blank(b)).map_or(start, |e| e + 1);
    &s[start..end]
}

/// One data record.
#[derive(Clone, Debug)]
pub struct Record<'a> {
    line: Line<'a>,
    fields: [&'a [u8]; 9],
    shape: Shape,
    men: Option<Men>,
    /// Built on first use: most tools need only the men.
    board: OnceCell<Option<Board>>,
    escapes: bool,
}

impl<'a> Record<'a> {
    /// A record of already split fields and the board its position gave
    /// (`None` when empty or unparsable).
    pub(crate) fn new(
        line: Line<'a>,
        fields: [&'a [u8]; 9],
        shape: Shape,
        men: Option<Men>,
    ) -> Record<'a> {
        let escapes = shape.all() & class::BACKSLASH != 0;
        let board = OnceCell::new();
        Record { line, fields, shape, men, board, escapes }
    }

    /// The [`class`] bits of the special bytes in `field`.
    pub fn bits(&self, field: Field) -> u8 {
        self.shape.bits[field as usize]
    }

    /// How many `|` `field` holds (at most 255).
    pub fn pipes(&self, field: Field) -> u8 {
        self.shape.pipes[field as usize]
    }

    /// Whether the line holds a `\` at all; when it does not, no field
    /// needs decoding.
    pub fn has_escapes(&self) -> bool {
        self.escapes
    }

    /// `raw`, a slice of this record, decoded; borrowed when the record
    /// has no escapes, without looking at `raw` again.
    pub fn text(&self, raw: &'a [u8]) -> Cow<'a, [u8]> {
        if self.escapes {
            escape::decode(raw)
        } else {
            Cow::Borrowed(raw)
        }
    }

    /// Appends `raw`, a slice of this record, decoded.
    pub fn decode_into(&self, raw: &[u8], out: &mut Vec<u8>) {
        if self.escapes {
            escape::decode_into(raw, out);
        } else {
            out.extend_from_slice(raw);
        }
    }

    /// The whole data line, as read, with its line end.
    pub fn line(&self) -> Line<'a> {
        self.line
    }

    /// The record's line number.
    pub fn number(&self) -> u64 {
        self.line.number()
    }

    /// A field exactly as written.
    pub fn raw(&self, field: Field) -> &'a [u8] {
        self.fields[field as usize]
    }

    /// A field decoded (for the list and source fields, the whole field
    /// with its separators; use the accessors below for their items).
    pub fn decoded(&self, field: Field) -> Cow<'a, [u8]> {
        self.text(self.raw(field))
    }

    /// The author names, undecoded, trimmed, empty ones dropped.
    pub fn names(&self) -> impl Iterator<Item = &'a [u8]> {
        list(self.raw(Field::Names))
    }

    /// The position field as written (never decoded or trimmed).
    pub fn position(&self) -> &'a [u8] {
        self.raw(Field::Position)
    }

    /// The men of the position, when it is not empty and parses.
    pub fn men(&self) -> Option<&Men> {
        self.men.as_ref()
    }

    /// The board of the position, when it is not empty and parses. It is
    /// parsed on the first call.
    pub fn board(&self) -> Option<&Board> {
        let parse =
            || self.men.and_then(|_| Board::parse(self.position()).ok());
        self.board.get_or_init(parse).as_ref()
    }

    /// The used source's four subfields.
    pub fn used_source(&self) -> Subfields<'a> {
        Subfields::split(self.raw(Field::UsedSource))
    }

    /// The referenced sources.
    pub fn references(&self) -> impl Iterator<Item = Subfields<'a>> {
        list(self.raw(Field::References)).map(Subfields::split)
    }

    /// The awards (`nr|rank|tourney|date`).
    pub fn awards(&self) -> impl Iterator<Item = Subfields<'a>> {
        list(self.raw(Field::Awards)).map(Subfields::split)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_counts_fields() {
        assert!(matches!(split(b"a:b:c:d:e:f:g:h:i"), Split::Exact(..)));
        assert_eq!(split(b"a:b:c"), Split::Short(3));
        assert_eq!(split(b""), Split::Short(1));
        match split(b"a:b:c:d:e:f:g:h:i:j:k") {
            Split::Extra(f, _) => assert_eq!(f[8], b"i:j:k"),
            other => panic!("{other:?}"),
        }
        match split(br"S\x3at:p:::::::") {
            Split::Exact(f, _) => assert_eq!(f[0], br"S\x3at"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sse2_split_agrees_with_the_scalar_split() {
        const ALPHABET: &[u8] = b"ab :;|\\\",\t\xc3\xa9\x80\xff#/8";
        let mut rng = crate::testing::Rng::new(1);
        for round in 0..40_000 {
            let len = match round % 3 {
                0 => rng.below(90),
                1 => rng.below(400),
                // Mostly pipes: more than 255 in a field.
                _ => 250 + rng.below(300),
            };
            let pipes = round % 3 == 2;
            let line: Vec<u8> = (0..len)
                .map(|_| match rng.below(10) {
                    0..=7 if pipes => b'|',
                    _ => ALPHABET[rng.below(ALPHABET.len())],
                })
                .collect();
            assert_eq!(split(&line), split_scalar(&line), "{line:?}");
        }
    }

    #[test]
    fn split_notes_special_bytes_per_field() {
        let line = "Loyd, S;X:8/8:#2:1|T|y|::1|\"Pr\"|T|y:é\\x3a:\t:c: d";
        let Split::Extra(_, shape) = split(line.as_bytes()) else {
            panic!("9 fields and a colon in the comment");
        };
        use class::*;
        assert_eq!(shape.bits[0], COMMA | SEMICOLON);
        assert_eq!(shape.bits[1], 0);
        assert_eq!(shape.bits[3], PIPE);
        assert_eq!(shape.pipes[3], 3);
        assert_eq!(shape.bits[5], PIPE | QUOTE);
        assert_eq!(shape.bits[6], BACKSLASH);
        assert!(shape.high);
        assert_eq!(shape.bits[7], TAB);
        assert_eq!(shape.bits[8], COLON);
        assert_eq!(shape.all() & BACKSLASH, BACKSLASH);
    }

    #[test]
    fn subfields() {
        let s = Subfields::split(b"68|White|1962|");
        assert_eq!(s.raw, [&b"68"[..], b"White", b"1962", b""]);
        assert_eq!(s.written, 4);
        let s = Subfields::split(b"");
        assert_eq!(s.raw, [&b""[..]; 4]);
        assert_eq!(s.written, 1);
        let s = Subfields::split(b"1|Pr");
        assert_eq!(s.raw, [&b"1"[..], b"Pr", b"", b""]);
        assert_eq!(s.written, 2);
        let s = Subfields::split(b"a|b|c|d|e|f");
        assert_eq!(s.raw, [&b"a"[..], b"b", b"c", b"d|e|f"]);
        assert_eq!(s.written, 6);
        let s = Subfields::split(br"A|Russ\x3a\x7cx||");
        assert_eq!(&*s.get(1), b"Russ:|x");
        let mut out = vec![];
        s.write_decoded(&mut out);
        assert_eq!(out, b"A|Russ:|x||");
    }

    #[test]
    fn lists_trim_before_decoding() {
        let items: Vec<_> = list(b" Loyd ;\t;;S\\x20 ; x").collect();
        assert_eq!(items, vec![&b"Loyd"[..], b"S\\x20", b"x"]);
        assert_eq!(list(b"").count(), 0);
        assert_eq!(list(b" ; ").count(), 0);
        assert_eq!(trim(b" \t a b \t"), b"a b");
        assert_eq!(trim(b"   "), b"");
    }
}
