//! Where each row of a CSV input starts, and a quoted field that is
//! never closed: what csv2pbi's messages need and the `csv` crate does
//! not tell.
//!
//! csv-core counts LF alone as a line end, and a record's position is
//! where reading stopped after the record before it: between the CR and
//! the LF of a CR LF, and before the blank lines it then skips. So a row
//! after a CR LF row was numbered a line early, a CR alone was not counted
//! at all, nor were blank lines. And a quote that is never closed takes
//! the rest of the input into its field, rows and all, with no error
//! (csv-core "prefers *a* parse over *no* parse").
//!
//! [`RowScan`] stands between the input and the csv reader and follows
//! the bytes on their way with csv-core's rules for csv2pbi's settings:
//! `"` opens a quoted field only where a field starts, `""` inside one is
//! a `"`, and any other `"` is text; outside quotes CR, LF and CR LF end
//! a row, and the line ends before a row are skipped; a BOM that starts
//! the first read is skipped. It notes the line each row starts on,
//! counting every line end that FORMATS.md names (LF, CR, CR LF, U+0085,
//! U+2028), inside quoted fields too: the csv reader's n-th record is the
//! n-th row noted. At the end of the input it notes a quote still open.
//! And it stops a first row longer than a header can be
//! ([`HEADER_MAX`]), which the csv reader would hold whole, however long
//! (`/dev/zero`), copied twice more as the headers it keeps.
//!
//! It costs little beside csv-core: `memchr3` finds the next `"`, CR or
//! LF, and two `memmem` finders the U+0085 and U+2028 of each read.

use std::collections::VecDeque;
use std::io::{self, Read};

use memchr::{memchr3, memmem};

use crate::lines::BOM;

/// The most bytes the first row may take: far more than pbi2csv's header
/// (about 150 bytes with every column) and any names a person adds. A
/// longer first row is no header; it is not read to its end.
pub const HEADER_MAX: u64 = 64 * 1024;

/// How many bytes of the first row are kept, to quote in a message.
const HEAD: usize = 160;

/// A quoted field open at the end of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unclosed {
    /// The line of the `"` that opened it.
    pub quote: u64,
    /// The last line of the input, where the field ends.
    pub last: u64,
}

/// Where a row starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowStart {
    /// The line of its first byte, from 1.
    pub line: u64,
    /// It is the last row, and a quoted field in it is never closed: its
    /// last field holds the rest of the input.
    pub unclosed: Option<Unclosed>,
}

/// A reader that notes where the rows of the CSV read through it start
/// (see the module's docs).
pub struct RowScan<R> {
    inner: R,
    delimiter: u8,
    /// Bytes read before the current read.
    offset: u64,
    /// Between rows (csv-core's `StartRecord`): line ends are skipped.
    between: bool,
    /// Inside a quoted field.
    quoted: bool,
    /// The last byte read was a `"` inside a quoted field: the next byte
    /// says whether it closes the field or is the first of a `""`.
    pending: bool,
    /// The line of the `"` that opened the current quoted field.
    quote_line: u64,
    /// The line the next line end ends: 1 + the line ends counted.
    line: u64,
    /// The last two bytes read, for a line end split between reads.
    tail: [u8; 2],
    /// The last byte read ended a line.
    ended: bool,
    /// Where the U+0085 and U+2028 of the current read end (their last
    /// byte), in order, and how many of them [`RowScan::line`] counts.
    uni: Vec<usize>,
    uni_counted: usize,
    nel: memmem::Finder<'static>,
    ls: memmem::Finder<'static>,
    /// The lines where rows start that the csv reader has not yet taken.
    starts: VecDeque<u64>,
    /// Rows started.
    rows: u64,
    /// Where the first row starts, and its first bytes.
    first_at: u64,
    head: Vec<u8>,
    unclosed: Option<Unclosed>,
    too_long: bool,
    done: bool,
}

impl<R: Read> RowScan<R> {
    /// Scans the CSV of `inner`, whose fields are separated by
    /// `delimiter` (not `"`, CR or LF).
    pub fn new(inner: R, delimiter: u8) -> RowScan<R> {
        RowScan {
            inner,
            delimiter,
            offset: 0,
            between: true,
            quoted: false,
            pending: false,
            quote_line: 0,
            line: 1,
            tail: [0; 2],
            ended: false,
            uni: Vec::new(),
            uni_counted: 0,
            nel: memmem::Finder::new(b"\xC2\x85").into_owned(),
            ls: memmem::Finder::new(b"\xE2\x80\xA8").into_owned(),
            starts: VecDeque::new(),
            rows: 0,
            first_at: 0,
            head: Vec::new(),
            unclosed: None,
            too_long: false,
            done: false,
        }
    }

    /// Where the next row starts: the row the csv reader has just read.
    /// `None` only if it read a row this scan did not see start, which
    /// would be a bug.
    pub fn next_row(&mut self) -> Option<RowStart> {
        let line = self.starts.pop_front()?;
        // A quote open at the end is in the last row started.
        let unclosed = match self.starts.is_empty() {
            true => self.unclosed.take(),
            false => None,
        };
        Some(RowStart { line, unclosed })
    }

    /// When the first row ran past [`HEADER_MAX`] bytes, and reading was
    /// stopped there: its line and its first bytes.
    pub fn too_long(&self) -> Option<(u64, &[u8])> {
        let line = self.starts.front().copied().unwrap_or(1);
        self.too_long.then_some((line, &self.head[..]))
    }

    /// The line of position `at` of the current read `buf`: the line ends
    /// before it counted, CR and LF as the scan meets them, U+0085 and
    /// U+2028 here.
    fn line_at(&mut self, at: usize) -> u64 {
        while self.uni.get(self.uni_counted).is_some_and(|&end| end < at) {
            self.uni_counted += 1;
            self.line += 1;
        }
        self.line
    }

    /// Counts the CR or LF at `at`: one line end, or the end of a CR LF
    /// whose CR was counted.
    fn cr_lf(&mut self, buf: &[u8], at: usize) {
        let before = if at > 0 { buf[at - 1] } else { self.tail[1] };
        if !(buf[at] == b'\n' && before == b'\r') {
            self.line_at(at);
            self.line += 1;
        }
    }

    /// Finds the U+0085 and U+2028 that end in `buf`, also one begun in
    /// the read before.
    fn find_uni(&mut self, buf: &[u8]) {
        self.uni.clear();
        self.uni_counted = 0;
        let [t0, t1] = self.tail;
        let b = |i: usize| buf.get(i).copied();
        if (t1 == 0xC2 && b(0) == Some(0x85))
            || (t0 == 0xE2 && t1 == 0x80 && b(0) == Some(0xA8))
        {
            self.uni.push(0);
        } else if t1 == 0xE2 && b(0) == Some(0x80) && b(1) == Some(0xA8) {
            self.uni.push(1);
        }
        let nel = self.nel.find_iter(buf).map(|at| at + 1);
        let ls = self.ls.find_iter(buf).map(|at| at + 2);
        let at = self.uni.len();
        self.uni.extend(nel);
        let nels = self.uni.len();
        self.uni.extend(ls);
        if nels > at && self.uni.len() > nels {
            self.uni[at..].sort_unstable();
        }
    }

    /// Follows the bytes of one read.
    fn scan(&mut self, buf: &[u8]) {
        self.find_uni(buf);
        if self.rows == 1 && !self.between && self.head.len() < HEAD {
            // The first row goes on: more of its first bytes.
            let more = buf.len().min(HEAD - self.head.len());
            self.head.extend_from_slice(&buf[..more]);
        }
        let mut i = 0;
        if self.offset == 0 && buf.starts_with(BOM) {
            // csv-core skips a BOM that starts its first input, and only
            // then.
            i = BOM.len();
        }
        if self.pending && !buf.is_empty() {
            self.pending = false;
            match buf[0] {
                // `""`: a quote inside the field.
                b'"' => i = 1,
                _ => self.quoted = false,
            }
        }
        while i < buf.len() {
            if self.between {
                let b = buf[i];
                if b == b'\r' || b == b'\n' {
                    self.cr_lf(buf, i);
                    i += 1;
                    continue;
                }
                self.between = false;
                self.row_starts(buf, i);
                if b == b'"' {
                    self.quote_opens(i);
                    i += 1;
                    continue;
                }
            }
            i = match self.quoted {
                true => self.quoted_to(buf, i),
                false => self.unquoted_to(buf, i),
            };
        }
        let len = buf.len();
        self.line_at(len);
        if len > 0 {
            self.ended = matches!(buf[len - 1], b'\r' | b'\n')
                || self.uni.last() == Some(&(len - 1));
            self.tail = match len {
                1 => [self.tail[1], buf[0]],
                _ => [buf[len - 2], buf[len - 1]],
            };
        }
        if self.rows == 1 && !self.between {
            let end = self.offset + len as u64;
            self.too_long = end - self.first_at > HEADER_MAX;
        }
    }

    /// A row starts at `at`.
    fn row_starts(&mut self, buf: &[u8], at: usize) {
        let line = self.line_at(at);
        self.starts.push_back(line);
        self.rows += 1;
        if self.rows == 1 {
            self.first_at = self.offset + at as u64;
            let end = buf.len().min(at + HEAD);
            self.head.extend_from_slice(&buf[at..end]);
        }
    }

    /// A `"` at `at` of the current read opens a quoted field.
    fn quote_opens(&mut self, at: usize) {
        self.quoted = true;
        self.quote_line = self.line_at(at);
    }

    /// Follows the bytes of an unquoted field from `i` to the next event;
    /// the position after it.
    fn unquoted_to(&mut self, buf: &[u8], i: usize) -> usize {
        let Some(k) = memchr3(b'"', b'\r', b'\n', &buf[i..]) else {
            return buf.len();
        };
        let at = i + k;
        if buf[at] == b'"' {
            // A quote opens a field only where the field starts: a row's
            // start is seen in `scan`, the other fields start after a
            // delimiter.
            let before = if at > 0 { buf[at - 1] } else { self.tail[1] };
            if before == self.delimiter {
                self.quote_opens(at);
            }
        } else {
            self.cr_lf(buf, at);
            self.between = true;
        }
        at + 1
    }

    /// Follows the bytes of a quoted field from `i` to the next event;
    /// the position after it.
    fn quoted_to(&mut self, buf: &[u8], i: usize) -> usize {
        let Some(k) = memchr3(b'"', b'\r', b'\n', &buf[i..]) else {
            return buf.len();
        };
        let at = i + k;
        if buf[at] != b'"' {
            self.cr_lf(buf, at);
            return at + 1;
        }
        match buf.get(at + 1) {
            None => {
                self.pending = true;
                at + 1
            }
            Some(b'"') => at + 2,
            Some(_) => {
                self.quoted = false;
                at + 1
            }
        }
    }

    /// The end of the input: a quoted field still open is noted.
    fn finish(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        if self.quoted && !self.pending {
            let last = self.line - u64::from(self.ended);
            self.unclosed = Some(Unclosed { quote: self.quote_line, last });
        }
    }
}

impl<R: Read> Read for RowScan<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.too_long {
            return Err(io::Error::other("the first row is too long"));
        }
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.finish();
        }
        self.scan(&buf[..n]);
        self.offset += n as u64;
        if self.too_long {
            return Err(io::Error::other("the first row is too long"));
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::sample::select;

    use super::*;
    use crate::testing::Chunked;

    /// The line of every byte, by the words of FORMATS.md, one byte at a
    /// time.
    fn lines_of(input: &[u8]) -> Vec<u64> {
        let mut line = 1;
        let mut lines = Vec::with_capacity(input.len());
        for (i, &b) in input.iter().enumerate() {
            lines.push(line);
            let ends = match b {
                // A CR LF ends its line at its LF.
                b'\r' => input.get(i + 1) != Some(&b'\n'),
                b'\n' => true,
                0x85 => i >= 1 && input[i - 1] == 0xC2,
                0xA8 => i >= 2 && input[i - 2..i] == [0xE2, 0x80],
                _ => false,
            };
            line += u64::from(ends);
        }
        lines
    }

    /// The rows' lines and an open quote, as csv-core's automaton reads
    /// `input` (its `transition_nfa` for csv2pbi's settings), a byte at a
    /// time.
    fn naive(input: &[u8], bom: bool, delim: u8) -> Vec<RowStart> {
        #[derive(PartialEq)]
        enum S {
            StartRecord,
            StartField,
            InField,
            Quoted,
            QuoteSeen,
        }
        let lines = lines_of(input);
        let mut rows: Vec<RowStart> = Vec::new();
        let mut state = S::StartRecord;
        let mut quote = 0;
        let term = |b: u8| b == b'\r' || b == b'\n';
        for (i, &b) in input.iter().enumerate().skip(if bom { 3 } else { 0 }) {
            if state == S::StartRecord {
                if term(b) {
                    continue;
                }
                rows.push(RowStart { line: lines[i], unclosed: None });
                state = S::StartField;
            }
            state = match state {
                S::StartField if b == b'"' => {
                    quote = lines[i];
                    S::Quoted
                }
                S::Quoted if b == b'"' => S::QuoteSeen,
                S::Quoted => S::Quoted,
                S::QuoteSeen if b == b'"' => S::Quoted,
                _ if b == delim => S::StartField,
                _ if term(b) => S::StartRecord,
                _ => S::InField,
            };
        }
        if state == S::Quoted {
            let last = *lines.last().unwrap();
            rows.last_mut().unwrap().unclosed = Some(Unclosed { quote, last });
        }
        rows
    }

    /// The rows as the csv reader reads them through a scan, in reads of
    /// `sizes`: each with its line and open quote.
    fn scanned(input: &[u8], sizes: Vec<usize>, delim: u8) -> Vec<RowStart> {
        let chunks = Chunked { data: input, sizes, next: 0 };
        let mut csv = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delim)
            .buffer_capacity(64)
            .from_reader(RowScan::new(chunks, delim));
        let mut rec = csv::ByteRecord::new();
        let mut rows = Vec::new();
        while csv.read_byte_record(&mut rec).unwrap() {
            rows.push(csv.get_mut().next_row().expect("a row not seen"));
        }
        assert_eq!(csv.get_mut().next_row(), None);
        rows
    }

    #[test]
    fn rows_start_where_their_lines_do() {
        let row = |line| RowStart { line, unclosed: None };
        for (input, want) in [
            ("h\r\na\r\nb\r\n", vec![row(1), row(2), row(3)]),
            ("h\ra\rb", vec![row(1), row(2), row(3)]),
            ("h\n\n\r\n\ra\n", vec![row(1), row(5)]),
            ("h\u{2028}x\u{85}\na", vec![row(1), row(4)]),
            ("h,\"a\r\nb\rc\"\nd", vec![row(1), row(4)]),
            ("\u{feff}\"a\nb\",x\n", vec![row(1)]),
            ("a,b\"\nc\n", vec![row(1), row(2)]),
        ] {
            let got = scanned(input.as_bytes(), vec![1 << 20], b',');
            assert_eq!(got, want, "{input:?}");
        }
    }

    #[test]
    fn a_quote_never_closed_is_noted_with_its_row() {
        let input = "h\nA,x,\"oops\nB,ok\r\nC,ok\n";
        let got = scanned(input.as_bytes(), vec![3], b',');
        let open = Unclosed { quote: 2, last: 4 };
        assert_eq!(got[1], RowStart { line: 2, unclosed: Some(open) });
        // Closed at the very end, or by a `""` then the end: not open.
        for input in ["h\n\"a\nb\"", "h\n\"a\"\"\"", "h\n\"\""] {
            let got = scanned(input.as_bytes(), vec![1, 2], b',');
            assert!(got.iter().all(|r| r.unclosed.is_none()), "{input:?}");
        }
        let got = scanned(b"h\n\"a\"\"", vec![1], b',');
        assert_eq!(got[1].unclosed, Some(Unclosed { quote: 2, last: 2 }));
    }

    #[test]
    fn a_first_row_too_long_for_a_header_is_not_read_to_its_end() {
        let input = vec![0u8; 3 * HEADER_MAX as usize];
        let mut scan = RowScan::new(&input[..], b',');
        let mut buf = vec![0; 8192];
        let mut read = 0;
        let e = loop {
            match scan.read(&mut buf) {
                Ok(n) => read += n,
                Err(e) => break e,
            }
        };
        assert_eq!(e.kind(), io::ErrorKind::Other);
        assert!(read as u64 <= HEADER_MAX + 8192);
        let (line, head) = scan.too_long().unwrap();
        assert_eq!((line, head.len()), (1, HEAD));
        // A long row after the first is no business of the scan's.
        let mut input = b"h\n".to_vec();
        input.extend(vec![b'x'; 3 * HEADER_MAX as usize]);
        assert_eq!(scanned(&input, vec![8192], b',').len(), 2);
    }

    const PIECES: &[&str] = &[
        "a", "bc", ",", ";", "\"", "\"\"", "\r", "\n", "\r\n", "\u{85}",
        "\u{2028}", "\u{feff}", "\u{e9}", "\u{2029}", "\x0b",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The scan agrees with csv-core about the rows (as many, each
        /// read by the csv reader as one), and with a byte at a time
        /// reading of FORMATS.md and of csv-core's rules about their
        /// lines and an open quote, however the input is cut into reads.
        #[test]
        fn the_scan_agrees_with_a_naive_reading(
            pieces in proptest::collection::vec(select(PIECES), 0..40),
            sizes in proptest::collection::vec(1usize..9, 1..5),
            semicolon in any::<bool>(),
        ) {
            let input = pieces.concat();
            let input = input.as_bytes();
            let delim = if semicolon { b';' } else { b',' };
            let bom = sizes[0].min(input.len()) >= 3
                && input.starts_with(b"\xEF\xBB\xBF");
            // csv-core takes a first input that is a BOM alone, once
            // skipped, for the end of the input. csv2pbi's first read is
            // never that: it is the 4 bytes read to tell CSV from a
            // workbook (or the whole input, when shorter).
            prop_assume!(!(bom && sizes[0] == 3 && input.len() > 3));
            let want = naive(input, bom, delim);
            prop_assert_eq!(scanned(input, sizes, delim), want);
        }
    }
}
