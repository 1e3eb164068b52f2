//! pbi2csv's fast way: the row of the default columns written straight
//! from a data line that [`Parser::clean`](crate::pbi::Parser::clean)
//! found clean, with the spans and special bytes its
//! [`LineScan`] gives.
//!
//! A column whose text needs no decoding is copied from the line, quoted
//! when its span holds a comma: the scan says so, with no look at its
//! bytes. Lists are copied item by item, each trimmed, with `; ` between.
//! A span with an escape is decoded as it is copied, and quoted as its
//! escapes say. The row is what the general way (`Table::row` on the
//! line's record) writes, byte for byte.
//!
//! What makes it cheap: room for the whole row is made once (a row is at
//! most about twice its line), so that no write checks it; a span of up
//! to 64 bytes is one copy of 64; the fields are written one after the
//! other, each with its own tests, which a CPU predicts better than one
//! loop over the fields whose shapes vary from line to line.

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

/// The most bytes the row of a clean line of `len` bytes takes: each
/// byte at most twice (a `;` of a list is written `; `, a `"` made by an
/// escape is doubled, an escape is at most two bytes for its four), and
/// per column two quotes and a delimiter, the empty used source's three
/// and the LF.
fn max_row(len: usize) -> usize {
    2 * len + 3 * 12 + 4
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
    let len = scan.len();
    assert!(len <= src.len());
    let out = wtr.raw_row(max_row(len));
    let mut row = Row { out, src, scan, scratch };
    // Field by field, each with its own tests: a field's shape varies
    // less from line to line than the shapes of a run of fields.
    macro_rules! fields {
        ($($how:ident $f:expr),*) => {$(
            row.$how($f);
            row.put(b',');
        )*};
    }
    fields!(list 0, text 1, text 2, used_source USED, list 4, list 5);
    fields!(text 6, text 7);
    row.text(8);
    row.put(b'\n');
    drop(row);
    wtr.end_raw_row()
}

/// The used source's field number.
const USED: usize = Field::UsedSource as usize;

/// The value of a hex digit (either case; a clean line's escapes hold
/// nothing else).
#[inline(always)]
fn hex(b: u8) -> u8 {
    (b & 0xF) + 9 * (b >> 6)
}

/// The code of the escape `\xHH` at `at` in `src`.
#[inline(always)]
fn code_at(src: &[u8], at: usize) -> u8 {
    hex(src[at + 2]) << 4 | hex(src[at + 3])
}

/// One row being written. Every write keeps it within [`max_row`] of the
/// line's length, the room its [`RowBuf`] made: the row is the line's
/// bytes, each written once, or a `;` of a list as `; `, or an escape
/// (four bytes) as its one or two (a `"` doubled), with two quotes and
/// a delimiter per column at most, and `,,,` for an empty used source.
struct Row<'r> {
    out: RowBuf<'r>,
    src: &'r [u8],
    scan: &'r LineScan,
    scratch: &'r mut Vec<u8>,
}

impl Row<'_> {
    /// Appends one byte.
    #[inline(always)]
    fn put(&mut self, b: u8) {
        // SAFETY: within the row's room (see `Row`).
        unsafe { self.out.byte(b) }
    }

    /// Appends bytes `start..end` of the line.
    #[inline(always)]
    fn span(&mut self, start: usize, end: usize) {
        // SAFETY: within the row's room (see `Row`).
        unsafe { self.out.span(self.src, start, end) }
    }

    /// Appends the scratch buffer (a value decoded from part of the
    /// line) as a CSV field, quoted if need be.
    #[inline(always)]
    fn checked(&mut self) {
        // SAFETY: within the row's room (see `Row`): the value holds no
        // more bytes than the part of the line it was decoded from, and
        // at most as many `"` as that part held escapes.
        unsafe { self.out.checked(self.scratch, b',') }
    }

    /// Field `f`, a text: decoded, quoted if need be.
    #[inline(always)]
    fn text(&mut self, f: usize) {
        let (start, end) = self.scan.field(f);
        let (quoted, escaped) = self.marks(f);
        self.span_text(quoted, escaped, start, end);
    }

    /// Whether field `f` holds a comma, and an escape, as the scan noted.
    #[inline(always)]
    fn marks(&self, f: usize) -> (bool, bool) {
        let (quotes, backs) =
            (self.scan.quote_fields(), self.scan.back_fields());
        (quotes & 1 << f != 0, backs & 1 << f != 0)
    }

    /// Writes the scratch buffer, `start..end` of the line decoded:
    /// quoted when the span holds a comma (`quoted`) or an escape of a
    /// byte to quote (`\x2c`, `\x22`, `\x0a`, `\x0d`), which is known
    /// without a look at the decoded bytes; only a `"` made by an escape
    /// sends them to the byte by byte check, which doubles it.
    #[inline(always)]
    fn decoded(&mut self, mut quoted: bool, start: usize, end: usize) {
        for at in self.scan.backs(start, end) {
            match code_at(self.src, at) {
                b'"' => return self.checked(),
                b',' | b'\n' | b'\r' => quoted = true,
                _ => {}
            }
        }
        if quoted {
            self.put(b'"');
        }
        // SAFETY: within the row's room (see `Row`): the decoded value
        // is no longer than `start..end`.
        unsafe { self.out.bytes(self.scratch) };
        if quoted {
            self.put(b'"');
        }
    }

    /// `start..end` of the line, decoded, quoted when `quoted` (it holds
    /// a comma) or as its escapes say; `escaped` when it may hold an
    /// escape.
    #[inline(always)]
    fn span_text(
        &mut self,
        quoted: bool,
        escaped: bool,
        start: usize,
        end: usize,
    ) {
        if escaped {
            self.escaped(quoted, start, end);
        } else if quoted {
            self.put(b'"');
            self.span(start, end);
            self.put(b'"');
        } else {
            self.span(start, end);
        }
    }

    /// `start..end` of the line, which may hold escapes, decoded as it is
    /// copied: the spans between the escapes as they stand, each escape
    /// as its character (the scan says where they are, and a clean
    /// line's are all `\xHH`). Quoted as [`Row::decoded`] says; an escape
    /// of `"` goes that way too.
    #[inline(always)]
    fn escaped(&mut self, mut quoted: bool, start: usize, end: usize) {
        for at in self.scan.backs(start, end) {
            match code_at(self.src, at) {
                b'"' => {
                    self.scratch.clear();
                    escape::decode_into(&self.src[start..end], self.scratch);
                    return self.checked();
                }
                b',' | b'\n' | b'\r' => quoted = true,
                _ => {}
            }
        }
        if quoted {
            self.put(b'"');
        }
        let mut from = start;
        for at in self.scan.backs(start, end) {
            self.span(from, at);
            let code = code_at(self.src, at);
            if code < 0x80 {
                self.put(code);
            } else {
                self.put(0xC0 | code >> 6);
                self.put(0x80 | (code & 0x3F));
            }
            from = at + 4;
        }
        self.span(from, end);
        if quoted {
            self.put(b'"');
        }
    }

    /// A list (names, references, awards; field `f`): its items trimmed,
    /// decoded, joined with `; `. Every item of a clean line's references
    /// and awards has its 3 pipes, so an item is written as it stands.
    #[inline(always)]
    fn list(&mut self, f: usize) {
        let (start, end) = self.scan.field(f);
        let (quoted, escaped) = self.marks(f);
        if escaped {
            self.scratch.clear();
            let mut first = true;
            self.items(start, end, |src, (a, b), out| {
                if !first {
                    out.extend_from_slice(b"; ");
                }
                first = false;
                escape::decode_into(&src[a..b], out);
            });
            return self.decoded(quoted, start, end);
        }
        // Trimming takes no comma away, and joining adds none.
        if quoted {
            self.put(b'"');
        }
        if self.scan.semi_fields() & 1 << f == 0 {
            // One item, or none.
            let (a, b) = trim(self.src, start, end);
            self.span(a, b);
        } else {
            let mut first = true;
            let mut from = start;
            for at in self.scan.semis(start, end).chain([end]) {
                let (a, b) = trim(self.src, from, at);
                from = at + 1;
                if a == b {
                    continue;
                }
                if !first {
                    self.put(b';');
                    self.put(b' ');
                }
                first = false;
                self.span(a, b);
            }
        }
        if quoted {
            self.put(b'"');
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
    fn used_source(&mut self, f: usize) {
        debug_assert_eq!(f, USED);
        let (start, end) = self.scan.field(USED);
        if start == end {
            self.put(b',');
            self.put(b',');
            self.put(b',');
            return;
        }
        let (quotes, backs) = self.marks(USED);
        if !quotes && !backs {
            // As it stands, its pipes made delimiters.
            // SAFETY: within the row's room (see `Row`).
            unsafe {
                self.out.span_replacing(self.src, start, end, b'|', b',')
            };
            return;
        }
        let mut from = start;
        for at in self.scan.pipes(start, end).chain([end]) {
            let quoted = quotes && self.scan.any_quote(from, at);
            let escaped = backs && self.scan.any_back(from, at);
            self.span_text(quoted, escaped, from, at);
            if at < end {
                self.put(b',');
            }
            from = at + 1;
        }
    }
}

/// `start..end` of `src` without leading and trailing spaces and tabs,
/// as [`crate::pbi::trim`] trims.
#[inline(always)]
fn trim(src: &[u8], start: usize, end: usize) -> (usize, usize) {
    if start < end && (blank(src[start]) || blank(src[end - 1])) {
        return trim_blanks(src, start, end);
    }
    (start, end)
}

/// Whether `b` is a blank that [`trim`] takes off: a space or a tab.
#[inline(always)]
fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// [`trim`] of a span that starts or ends with a blank: rare.
#[cold]
#[inline(never)]
fn trim_blanks(
    src: &[u8],
    mut start: usize,
    mut end: usize,
) -> (usize, usize) {
    while start < end && blank(src[start]) {
        start += 1;
    }
    while end > start && blank(src[end - 1]) {
        end -= 1;
    }
    (start, end)
}
