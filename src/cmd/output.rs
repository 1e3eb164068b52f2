//! Output: buffered stdout, CSV rows, and telling a closed pipe from a
//! real error.
//!
//! Rust's stdout is line-buffered (rust-lang/rust#60673), so every tool
//! writes through one 64 KiB buffer. A closed pipe (`| head -1`) is not an
//! error: the tool stops quietly and exits 0, as ripgrep and xsv do.

use std::io::{self, BufWriter, Write};

/// The size of every output buffer.
pub const BUFFER_SIZE: usize = 64 * 1024;

/// Locked stdout behind a 64 KiB buffer.
pub fn stdout() -> BufWriter<io::StdoutLock<'static>> {
    BufWriter::with_capacity(BUFFER_SIZE, io::stdout().lock())
}

/// Whether writing failed because the reader of the pipe went away.
pub fn is_broken_pipe(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe
}

/// Writes CSV rows (RFC 4180) into a 64 KiB buffer.
///
/// The quoting is the `csv` crate's "necessary" style: a field is quoted
/// when it holds the delimiter, `"`, CR or LF, and a `"` inside is
/// doubled; a row of one empty field is written `""`. Rows end with LF.
///
/// Why not `csv::Writer`: pbi2csv writes a dozen short fields per record,
/// and `csv::Writer::write_field` cost about 1,400 instructions per row in
/// its per-field state machine, more than all the PBI parsing. This writer
/// checks a field 8 bytes at a time and copies it whole when it needs no
/// quotes. The tests read its output back with the `csv` crate.
pub struct CsvWriter<W: Write> {
    inner: W,
    buf: Vec<u8>,
    special: [bool; 256],
    delimiter: u8,
    fields: usize,
    row_start: usize,
    /// The buffer is written out at the end of a row that fills it this
    /// far.
    flush_at: usize,
}

impl CsvWriter<io::Sink> {
    /// A writer that keeps its rows until [`CsvWriter::swap_rows`] takes
    /// them: a worker thread's, which hands over a batch of rows with no
    /// copy.
    pub fn in_memory(delimiter: u8) -> CsvWriter<io::Sink> {
        let mut wtr = CsvWriter::new(io::sink(), delimiter);
        wtr.flush_at = usize::MAX;
        wtr
    }
}

impl<W: Write> CsvWriter<W> {
    /// A writer with the given field delimiter.
    pub fn new(inner: W, delimiter: u8) -> CsvWriter<W> {
        let mut special = [false; 256];
        for b in [delimiter, b'"', b'\r', b'\n'] {
            special[b as usize] = true;
        }
        CsvWriter {
            inner,
            buf: Vec::with_capacity(BUFFER_SIZE + 4096),
            special,
            delimiter,
            fields: 0,
            row_start: 0,
            flush_at: BUFFER_SIZE,
        }
    }

    /// Swaps the rows written so far (all of them, for a writer made by
    /// [`CsvWriter::in_memory`]) with `rows`, which is emptied first.
    pub fn swap_rows(&mut self, rows: &mut Vec<u8>) {
        debug_assert!(self.row_is_empty());
        rows.clear();
        std::mem::swap(&mut self.buf, rows);
        self.row_start = 0;
    }

    /// Appends the delimiter before a field, unless it is the row's first,
    /// and counts it; `NEXT` says that the row has a field already, so
    /// that there is nothing to test or count (the one-empty-field rule of
    /// [`CsvWriter::end_row`] only needs to know about a first field).
    #[inline(always)]
    fn separate<const NEXT: bool>(&mut self) {
        if NEXT {
            debug_assert!(self.fields > 0);
            self.buf.push(self.delimiter);
            return;
        }
        if self.fields > 0 {
            self.buf.push(self.delimiter);
        }
        self.fields += 1;
    }

    /// Appends one field to the current row.
    #[inline]
    pub fn field(&mut self, field: &[u8]) {
        self.field_of::<false>(field);
    }

    /// [`CsvWriter::field`], or with `NEXT` for a row that has a field
    /// already: the caller knows, and there is nothing to test or count.
    #[inline(always)]
    pub fn field_of<const NEXT: bool>(&mut self, field: &[u8]) {
        self.separate::<NEXT>();
        if self.needs_quotes(field) {
            self.quoted(field);
        } else {
            self.buf.extend_from_slice(field);
        }
    }

    /// Appends one field that the caller knows needs no quotes.
    #[inline]
    pub fn field_plain(&mut self, field: &[u8]) {
        self.plain_of::<false>(field);
    }

    /// [`CsvWriter::field_plain`], `NEXT` as for [`CsvWriter::field_of`].
    #[inline(always)]
    pub fn plain_of<const NEXT: bool>(&mut self, field: &[u8]) {
        debug_assert!(!self.needs_quotes(field));
        self.separate::<NEXT>();
        self.buf.extend_from_slice(field);
    }

    /// Appends one field that the caller knows needs quotes (it holds the
    /// delimiter) and holds no `"`.
    #[inline]
    pub fn field_quoted(&mut self, field: &[u8]) {
        self.quoted_of::<false>(field);
    }

    /// [`CsvWriter::field_quoted`], `NEXT` as for [`CsvWriter::field_of`].
    #[inline(always)]
    pub fn quoted_of<const NEXT: bool>(&mut self, field: &[u8]) {
        debug_assert!(self.needs_quotes(field) && !field.contains(&b'"'));
        self.separate::<NEXT>();
        self.buf.push(b'"');
        self.buf.extend_from_slice(field);
        self.buf.push(b'"');
    }

    /// Ends the current row, writing the buffer out when it is full.
    ///
    /// # Errors
    ///
    /// The error of writing to the inner writer.
    #[inline]
    pub fn end_row(&mut self) -> io::Result<()> {
        if self.fields == 1 && self.row_is_empty() {
            self.buf.extend_from_slice(b"\"\"");
        }
        self.buf.push(b'\n');
        self.fields = 0;
        self.row_start = self.buf.len();
        if self.buf.len() >= self.flush_at {
            self.inner.write_all(&self.buf)?;
            self.buf.clear();
            self.row_start = 0;
        }
        Ok(())
    }

    /// Writes a whole row.
    ///
    /// # Errors
    ///
    /// The error of writing to the inner writer.
    pub fn row<'a>(
        &mut self,
        fields: impl IntoIterator<Item = &'a [u8]>,
    ) -> io::Result<()> {
        for field in fields {
            self.field(field);
        }
        self.end_row()
    }

    /// Writes out everything buffered and flushes the inner writer.
    ///
    /// # Errors
    ///
    /// The error of writing to or flushing the inner writer.
    pub fn flush(&mut self) -> io::Result<()> {
        self.inner.write_all(&self.buf)?;
        self.buf.clear();
        self.row_start = 0;
        self.inner.flush()
    }

    /// Writes `bytes` (whole rows made elsewhere) after what is buffered,
    /// straight to the inner writer.
    ///
    /// # Errors
    ///
    /// The error of writing to the inner writer.
    pub fn write_through(&mut self, bytes: &[u8]) -> io::Result<()> {
        debug_assert!(self.row_is_empty());
        if self.buf.len() + bytes.len() <= self.buf.capacity() {
            self.buf.extend_from_slice(bytes);
            self.row_start = self.buf.len();
            return Ok(());
        }
        self.inner.write_all(&self.buf)?;
        self.buf.clear();
        self.row_start = 0;
        self.inner.write_all(bytes)
    }

    /// The inner writer.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// Writes raw bytes (a BOM) between rows.
    pub fn write_raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        self.row_start = self.buf.len();
    }

    fn row_is_empty(&self) -> bool {
        self.buf.len() == self.row_start
    }

    #[inline]
    fn needs_quotes(&self, field: &[u8]) -> bool {
        let special = |b: &u8| self.special[*b as usize];
        let mut chunks = field.chunks_exact(8);
        for chunk in chunks.by_ref() {
            if chunk.iter().any(special) {
                return true;
            }
        }
        chunks.remainder().iter().any(special)
    }

    fn quoted(&mut self, field: &[u8]) {
        self.buf.push(b'"');
        for part in field.split_inclusive(|&b| b == b'"') {
            self.buf.extend_from_slice(part);
            if part.last() == Some(&b'"') {
                self.buf.push(b'"');
            }
        }
        self.buf.push(b'"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the `csv` crate writes for the same rows.
    fn reference(rows: &[Vec<Vec<u8>>], delimiter: u8) -> Vec<u8> {
        let mut wtr = csv::WriterBuilder::new()
            .delimiter(delimiter)
            .terminator(csv::Terminator::Any(b'\n'))
            .flexible(true)
            .from_writer(vec![]);
        for row in rows {
            wtr.write_record(row).unwrap();
        }
        wtr.into_inner().unwrap()
    }

    fn ours(rows: &[Vec<Vec<u8>>], delimiter: u8) -> Vec<u8> {
        let mut out = vec![];
        let mut wtr = CsvWriter::new(&mut out, delimiter);
        for row in rows {
            wtr.row(row.iter().map(|f| &f[..])).unwrap();
        }
        wtr.flush().unwrap();
        out
    }

    #[test]
    fn quotes_like_the_csv_crate() {
        const BYTES: &[u8] = b"ab ,;\t\"\r\n:|\xc3\xa9#'";
        let mut rng = crate::testing::Rng::new(7);
        let mut next = |n: usize| rng.below(n);
        for delimiter in [b',', b'\t', b';', b'|'] {
            let rows: Vec<Vec<Vec<u8>>> = (0..2000)
                .map(|_| {
                    (0..1 + next(4))
                        .map(|_| {
                            (0..next(20))
                                .map(|_| BYTES[next(BYTES.len())])
                                .collect()
                        })
                        .collect()
                })
                .collect();
            assert_eq!(ours(&rows, delimiter), reference(&rows, delimiter));
        }
    }

    #[test]
    fn a_field_known_to_need_quotes() {
        let mut out = vec![];
        let mut wtr = CsvWriter::new(&mut out, b',');
        wtr.field_quoted(b"Loyd, Samuel");
        wtr.field_plain(b"#2");
        wtr.end_row().unwrap();
        wtr.flush().unwrap();
        let row = vec![b"Loyd, Samuel".to_vec(), b"#2".to_vec()];
        assert_eq!(out, reference(&[row], b','));
    }

    #[test]
    fn a_row_of_one_empty_field_is_quoted() {
        let rows = vec![vec![b"".to_vec()], vec![b"".to_vec(), b"".to_vec()]];
        assert_eq!(ours(&rows, b','), b"\"\"\n,\n");
        assert_eq!(ours(&rows, b','), reference(&rows, b','));
    }
}
