//! One PBI data line split into its 9 fields.
//!
//! Fields borrow from the line. Splitting comes first and decoding after
//! (FORMATS.md, PBI 5), so an escaped `:`, `;` or `|` never splits
//! anything; a field is decoded, and so copied, only when it holds `\`.

use std::borrow::Cow;

use memchr::{memchr, memchr_iter};

use super::escape;
use crate::board::Board;
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

/// What splitting a line into fields found, besides the fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split<'a> {
    /// Exactly 9 fields.
    Exact([&'a [u8]; 9]),
    /// More than 8 `:`: the rest of the line went into the comment.
    Extra([&'a [u8]; 9]),
    /// Fewer than 8 `:`; how many fields there were.
    Short(usize),
}

/// Splits `line` at its first 8 `:`.
pub fn split(line: &[u8]) -> Split<'_> {
    let mut fields: [&[u8]; 9] = [b""; 9];
    let mut start = 0;
    let mut n = 0;
    for colon in memchr_iter(b':', line) {
        fields[n] = &line[start..colon];
        start = colon + 1;
        n += 1;
        if n == 8 {
            break;
        }
    }
    if n < 8 {
        return Split::Short(n + 1);
    }
    fields[8] = &line[start..];
    if memchr(b':', fields[8]).is_some() {
        Split::Extra(fields)
    } else {
        Split::Exact(fields)
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
        let mut raw: [&[u8]; 4] = [b""; 4];
        let mut start = 0;
        let mut n = 0;
        let mut pipes = memchr_iter(b'|', field);
        for bar in pipes.by_ref() {
            raw[n] = &field[start..bar];
            start = bar + 1;
            n += 1;
            if n == 3 {
                break;
            }
        }
        raw[n] = &field[start..];
        let written = if n == 3 { 4 + pipes.count() } else { n + 1 };
        Subfields { raw, written }
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
    board: Option<Board>,
}

impl<'a> Record<'a> {
    /// A record of already split fields and the board its position gave
    /// (`None` when empty or unparsable).
    pub(crate) fn new(
        line: Line<'a>,
        fields: [&'a [u8]; 9],
        board: Option<Board>,
    ) -> Record<'a> {
        Record { line, fields, board }
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
        escape::decode(self.raw(field))
    }

    /// The author names, undecoded, trimmed, empty ones dropped.
    pub fn names(&self) -> impl Iterator<Item = &'a [u8]> {
        list(self.raw(Field::Names))
    }

    /// The position field as written (never decoded or trimmed).
    pub fn position(&self) -> &'a [u8] {
        self.raw(Field::Position)
    }

    /// The board of the position, when it is not empty and parses.
    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref()
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
        assert!(matches!(split(b"a:b:c:d:e:f:g:h:i"), Split::Exact(_)));
        assert_eq!(split(b"a:b:c"), Split::Short(3));
        assert_eq!(split(b""), Split::Short(1));
        match split(b"a:b:c:d:e:f:g:h:i:j:k") {
            Split::Extra(f) => assert_eq!(f[8], b"i:j:k"),
            other => panic!("{other:?}"),
        }
        match split(br"S\x3at:p:::::::") {
            Split::Exact(f) => assert_eq!(f[0], br"S\x3at"),
            other => panic!("{other:?}"),
        }
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
