//! pbi2csv's fast way: the row of the default columns written straight
//! from a data line that [`Parser::clean`](crate::pbi::Parser::clean)
//! found clean, with the spans and special bytes its
//! [`LineScan`] gives.
//!
//! A column whose text needs no decoding is copied from the line, quoted
//! when its span holds a comma: the scan says so, with no look at its
//! bytes. Lists are copied item by item, each trimmed, with `; ` between.
//! Only a span with an escape is decoded (into a scratch buffer) and then
//! checked for quotes as any field is. The row is what the general way
//! (`Table::row` on the line's record) writes, byte for byte.

use std::io::{self, Write};

use crate::cmd::output::{CsvWriter, RowBuf};
use crate::pbi::scan::LineScan;
use crate::pbi::{escape, Field};

/// Whether [`write`] writes the row of `scan`'s line: it holds no `"`
/// (which a quoted field would double).
#[inline]
pub fn can_write(scan: &LineScan) -> bool {
    !scan.has_dquote()
}

/// Writes the default columns of a clean data line as one row, with `,`
/// as the delimiter. The line is `src[..scan.len()]`, read by `scan`
/// with `,` among its quote bytes; the rest of `src` (the lines after
/// it in a batch) may be read, not written, to copy short spans faster.
/// `scratch` holds a decoded value.
///
/// The caller asked [`can_write`] first.
///
/// # Errors
///
/// The error of writing out the writer's full buffer.
// Not inlined: it keeps the row one stage in a profile (bench/stages.sh).
#[inline(never)]
pub fn write<W: Write>(
    wtr: &mut CsvWriter<W>,
    src: &[u8],
    scan: &LineScan,
    scratch: &mut Vec<u8>,
) -> io::Result<()> {
    debug_assert!(scan.len() <= src.len());
    // Which fields hold a comma or an escape, as the scan noted.
    let (quotes, backs) = (scan.quote_fields(), scan.back_fields());
    let out = wtr.raw_row();
    let mut row = Row { out, src, scan, scratch, quotes, backs };
    let plain = row.plain();
    let mut f = 0;
    while f < 9 {
        if plain & 1 << f == 0 {
            row.field(f);
            if f < 8 {
                row.out.byte(b',');
            }
            f += 1;
            continue;
        }
        // A run of plain fields is copied at once with the colon after
        // it, and the colons (and the used source's pipes) become
        // commas.
        let last = f + (plain >> f).trailing_ones() as usize - 1;
        let start = scan.field(f).0;
        let end = scan.field(last).1 + usize::from(last < 8);
        let at = row.out.len();
        row.out.span(src, start, end);
        for g in f..last.min(7) + 1 {
            row.out.set(at + scan.field(g).1 - start, b',');
        }
        if (f..=last).contains(&USED) {
            let (s, e) = scan.field(USED);
            for pipe in scan.pipes(s, e) {
                row.out.set(at + pipe - start, b',');
            }
        }
        f = last + 1;
    }
    row.out.byte(b'\n');
    drop(row);
    wtr.end_raw_row()
}

/// The used source's field number.
const USED: usize = Field::UsedSource as usize;

struct Row<'r> {
    out: RowBuf<'r>,
    src: &'r [u8],
    scan: &'r LineScan,
    scratch: &'r mut Vec<u8>,
    /// A bit for each field that holds a comma.
    quotes: u16,
    /// A bit for each field that holds a `\`.
    backs: u16,
}

impl Row<'_> {
    /// A bit for each field written as it stands, with nothing to
    /// quote, decode, trim or join, and (the used source, when not empty)
    /// its pipes made into delimiters.
    #[inline(always)]
    fn plain(&self) -> u16 {
        const LISTS: u16 = 1 | 1 << 4 | 1 << 5;
        let blank = |b: u8| b == b' ' || b == b'\t';
        let semis = self.scan.semi_fields() & LISTS;
        let mut plain = !(self.quotes | self.backs | semis);
        let (start, end) = self.scan.field(USED);
        if start == end {
            plain &= !(1 << USED);
        }
        // A list item with a blank to trim: at either end of the field
        // (with no `;`, the field is its one item).
        let mut lists = plain & LISTS;
        while lists != 0 {
            let f = lists.trailing_zeros() as usize;
            lists &= lists - 1;
            let (start, end) = self.scan.field(f);
            if start < end
                && (blank(self.src[start]) || blank(self.src[end - 1]))
            {
                plain &= !(1 << f);
            }
        }
        plain & 0x1ff
    }

    /// Field `f`, not plain, written as its columns.
    #[inline(always)]
    fn field(&mut self, f: usize) {
        match f {
            0 => self.list(Field::Names),
            USED => self.used_source(),
            4 => self.list(Field::References),
            5 => self.list(Field::Awards),
            _ => self.text(Field::ALL[f], self.scan.field(f)),
        }
    }

    /// Whether `start..end`, in `field`, holds a `\`.
    #[inline(always)]
    fn back(&self, field: Field, start: usize, end: usize) -> bool {
        self.backs & 1 << field as u16 != 0 && self.scan.any_back(start, end)
    }

    /// Whether `start..end`, in `field`, holds a comma.
    #[inline(always)]
    fn quote(&self, field: Field, start: usize, end: usize) -> bool {
        self.quotes & 1 << field as u16 != 0 && self.scan.any_quote(start, end)
    }

    /// Writes the scratch buffer, `start..end` of `field` decoded: quoted
    /// when the span holds a comma or an escape of a byte to quote
    /// (`\x2c`, `\x22`, `\x0a`, `\x0d`), which is known without a look
    /// at the decoded bytes; only a `"` made by an escape sends them to
    /// the byte by byte check, which doubles it.
    #[inline(always)]
    fn decoded(&mut self, field: Field, start: usize, end: usize) {
        let mut quoted = self.quote(field, start, end);
        for at in self.scan.backs(start, end) {
            // A clean line's escapes are all `\xHH`.
            let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
            let code = hex(self.src[at + 2]) << 4 | hex(self.src[at + 3]);
            match code {
                b'"' => return self.out.checked(self.scratch, b','),
                b',' | b'\n' | b'\r' => quoted = true,
                _ => {}
            }
        }
        if quoted {
            self.out.byte(b'"');
        }
        self.out.bytes(self.scratch);
        if quoted {
            self.out.byte(b'"');
        }
    }

    /// Text of `field` (a subfield's span in it), decoded.
    #[inline(always)]
    fn text(&mut self, field: Field, (start, end): (usize, usize)) {
        if self.back(field, start, end) {
            self.escaped(field, start, end);
        } else if self.quote(field, start, end) {
            self.out.byte(b'"');
            self.out.span(self.src, start, end);
            self.out.byte(b'"');
        } else {
            self.out.span(self.src, start, end);
        }
    }

    /// `start..end` of `field`, which holds escapes, decoded as it is
    /// copied: the spans between the escapes as they stand, each escape
    /// as its character (the scan says where they are, and a clean
    /// line's are all `\xHH`). Quoted as [`Row::decoded`] says; an escape
    /// of `"` goes that way too.
    #[inline(always)]
    fn escaped(&mut self, field: Field, start: usize, end: usize) {
        let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
        let mut quoted = self.quote(field, start, end);
        for at in self.scan.backs(start, end) {
            match hex(self.src[at + 2]) << 4 | hex(self.src[at + 3]) {
                b'"' => {
                    self.scratch.clear();
                    escape::decode_into(&self.src[start..end], self.scratch);
                    return self.out.checked(self.scratch, b',');
                }
                b',' | b'\n' | b'\r' => quoted = true,
                _ => {}
            }
        }
        if quoted {
            self.out.byte(b'"');
        }
        let mut from = start;
        for at in self.scan.backs(start, end) {
            self.out.span(self.src, from, at);
            let code = hex(self.src[at + 2]) << 4 | hex(self.src[at + 3]);
            if code < 0x80 {
                self.out.byte(code);
            } else {
                self.out.byte(0xC0 | code >> 6);
                self.out.byte(0x80 | (code & 0x3F));
            }
            from = at + 4;
        }
        self.out.span(self.src, from, end);
        if quoted {
            self.out.byte(b'"');
        }
    }

    /// A list (names, references, awards): its items trimmed, decoded,
    /// joined with `; `. Every item of a clean line's references and
    /// awards has its 3 pipes, so an item is written as it stands.
    #[inline(always)]
    fn list(&mut self, field: Field) {
        let (start, end) = self.scan.field(field as usize);
        if self.back(field, start, end) {
            self.scratch.clear();
            let mut first = true;
            self.items(start, end, |src, (a, b), out| {
                if !first {
                    out.extend_from_slice(b"; ");
                }
                first = false;
                escape::decode_into(&src[a..b], out);
            });
            self.decoded(field, start, end);
            return;
        }
        // Trimming takes no comma away, and joining adds none.
        let quoted = self.quote(field, start, end);
        if quoted {
            self.out.byte(b'"');
        }
        let mut first = true;
        let mut from = start;
        for at in self.scan.semis(start, end).chain([end]) {
            let (a, b) = trim(self.src, from, at);
            from = at + 1;
            if a == b {
                continue;
            }
            if !first {
                self.out.bytes(b"; ");
            }
            first = false;
            self.out.span(self.src, a, b);
        }
        if quoted {
            self.out.byte(b'"');
        }
    }

    /// Hands `each` the span of every item of `start..end`, trimmed,
    /// empty ones dropped, with the scratch buffer.
    fn items(
        &mut self,
        start: usize,
        end: usize,
        mut each: impl FnMut(&[u8], (usize, usize), &mut Vec<u8>),
    ) {
        let mut from = start;
        for at in self.scan.semis(start, end).chain([end]) {
            let (a, b) = trim(self.src, from, at);
            from = at + 1;
            if a < b {
                each(self.src, (a, b), self.scratch);
            }
        }
    }

    /// The used source's four subfields: empty for an empty field, else
    /// cut at its 3 pipes (a clean line has exactly 3).
    #[inline(always)]
    fn used_source(&mut self) {
        let (start, end) = self.scan.field(Field::UsedSource as usize);
        if start == end {
            self.out.bytes(b",,,");
            return;
        }
        let mut from = start;
        for at in self.scan.pipes(start, end) {
            self.text(Field::UsedSource, (from, at));
            self.out.byte(b',');
            from = at + 1;
        }
        self.text(Field::UsedSource, (from, end));
    }
}

/// `start..end` of `src` without leading and trailing spaces and tabs,
/// as [`crate::pbi::trim`] trims.
#[inline(always)]
fn trim(src: &[u8], mut start: usize, mut end: usize) -> (usize, usize) {
    let blank = |b: u8| b == b' ' || b == b'\t';
    while start < end && blank(src[start]) {
        start += 1;
    }
    while end > start && blank(src[end - 1]) {
        end -= 1;
    }
    (start, end)
}
