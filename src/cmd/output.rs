//! Output: buffered stdout, CSV rows, and telling a closed pipe from a
//! real error.
//!
//! Rust's stdout is line-buffered (rust-lang/rust#60673), so every tool
//! writes through one 64 KiB buffer. A closed pipe (`| head -1`) is not an
//! error: the tool stops quietly and exits 0, as ripgrep and xsv do.

use std::io::{self, BufWriter, Write};

/// The size of every output buffer.
pub const BUFFER_SIZE: usize = 64 * 1024;

/// Locked stdout behind a 64 KiB buffer; its errors name it.
pub fn stdout() -> BufWriter<Named<io::StdoutLock<'static>>> {
    BufWriter::with_capacity(BUFFER_SIZE, stdout_unbuffered())
}

/// Locked stdout, for a writer that buffers on its own; its errors name
/// it.
pub fn stdout_unbuffered() -> Named<io::StdoutLock<'static>> {
    Named::new(io::stdout().lock(), "stdout")
}

/// A writer whose errors say what failed: `stdout: no space left on
/// device`, `out.csv: ...`. An error keeps its kind, so that a closed
/// pipe is still told from a real error.
#[derive(Debug)]
pub struct Named<W> {
    inner: W,
    name: String,
}

impl<W: Write> Named<W> {
    /// `inner`, whose errors are named `name` (a file name, or `stdout`).
    pub fn new(inner: W, name: impl Into<String>) -> Named<W> {
        Named { inner, name: name.into() }
    }

    fn named(&self, e: io::Error) -> io::Error {
        let text = format!("{}: {}", self.name, crate::diag::describe(&e));
        io::Error::new(e.kind(), text)
    }
}

impl<W: Write> Write for Named<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).map_err(|e| self.named(e))
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.inner.write_all(buf).map_err(|e| self.named(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().map_err(|e| self.named(e))
    }
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

    /// The buffer, to write one whole row of at most `max` bytes into
    /// with the [`RowBuf`] it gives: for a caller that knows its fields'
    /// quoting and writes delimiters and the final LF itself;
    /// [`CsvWriter::end_raw_row`] then ends the row. The room for the row
    /// is made here, once, so that no write into it checks it again.
    #[inline(always)]
    pub fn raw_row(&mut self, max: usize) -> RowBuf<'_> {
        debug_assert!(self.row_is_empty() && self.fields == 0);
        let len = self.buf.len();
        if self.buf.capacity() - len < max + SLACK {
            self.grow(max + SLACK);
        }
        let ptr = self.buf.as_mut_ptr();
        RowBuf { buf: &mut self.buf, len, ptr, end: len + max }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, n: usize) {
        self.buf.reserve(n + 4096);
    }

    /// Ends a row written with [`CsvWriter::raw_row`], writing the
    /// buffer out when it is full.
    ///
    /// # Errors
    ///
    /// The error of writing to the inner writer.
    #[inline]
    pub fn end_raw_row(&mut self) -> io::Result<()> {
        debug_assert!(self.buf.last() == Some(&b'\n'));
        self.row_start = self.buf.len();
        if self.buf.len() >= self.flush_at {
            self.inner.write_all(&self.buf)?;
            self.buf.clear();
            self.row_start = 0;
        }
        Ok(())
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

/// One row being written straight into a [`CsvWriter`]'s buffer
/// ([`CsvWriter::raw_row`]), which made room for it once: no write
/// checks the room left, nor calls `memcpy` for a short piece. A span
/// of 64 bytes or fewer is copied as 64, when the bytes after it may be
/// read (the rest of the line's batch) and written (spare room kept in
/// the buffer), and the row's length then set to where the span ends.
///
/// The writes are `unsafe`: their caller keeps the row within the
/// `max` bytes it asked for.
pub struct RowBuf<'a> {
    buf: &'a mut Vec<u8>,
    /// The length of what is written: the buffer's own length lags
    /// behind it until the row is done.
    len: usize,
    /// The buffer's bytes, whose capacity holds the row's `max` bytes
    /// and [`SLACK`] more: the `RowBuf` holds the buffer borrowed, so
    /// that nothing moves them.
    ptr: *mut u8,
    /// Where the row's room ends (checked in debug builds only).
    end: usize,
}

/// The room kept past a row's `max` bytes, for the 64-byte copies of
/// its spans.
const SLACK: usize = 64;

impl RowBuf<'_> {
    /// Appends one byte.
    ///
    /// # Safety
    ///
    /// The row, with it, is at most the `max` bytes asked for.
    #[inline(always)]
    pub unsafe fn byte(&mut self, b: u8) {
        debug_assert!(self.len < self.end);
        // SAFETY: within the room made (the caller's promise).
        unsafe { self.ptr.add(self.len).write(b) };
        self.len += 1;
    }

    /// Appends `bytes`.
    ///
    /// # Safety
    ///
    /// As for [`RowBuf::byte`].
    #[inline(always)]
    pub unsafe fn bytes(&mut self, bytes: &[u8]) {
        debug_assert!(self.len + bytes.len() <= self.end);
        // SAFETY: within the room made (the caller's promise); a Vec's
        // bytes do not overlap a slice the caller holds.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.ptr.add(self.len),
                bytes.len(),
            );
        }
        self.len += bytes.len();
    }

    /// Appends `src[start..end]` (`start <= end <= src.len()`), reading
    /// up to 64 bytes past `start` (but not past the end of `src`): a
    /// span of 64 bytes or fewer, as most are, is one copy of 64 bytes,
    /// with no call and no branch on its length.
    ///
    /// # Safety
    ///
    /// As for [`RowBuf::byte`].
    #[inline(always)]
    pub unsafe fn span(&mut self, src: &[u8], start: usize, end: usize) {
        debug_assert!(start <= end && end <= src.len());
        let n = end - start;
        debug_assert!(self.len + n <= self.end);
        if n <= 64 && src.len() - start >= 64 {
            // SAFETY: `start + 64 <= src.len()`, and the 64 bytes written
            // end before `len + n + SLACK`, within the capacity.
            unsafe {
                copy_64(src.as_ptr().add(start), self.ptr.add(self.len))
            };
            self.len += n;
            return;
        }
        // SAFETY: as the caller promised; the bounds are checked here.
        unsafe { self.bytes(&src[start..end]) };
    }

    /// [`RowBuf::span`] with every `from` byte of the span written as
    /// `to`: 16 bytes at a time, compared and changed in a vector.
    ///
    /// # Safety
    ///
    /// As for [`RowBuf::byte`].
    #[inline(always)]
    pub unsafe fn span_replacing(
        &mut self,
        src: &[u8],
        start: usize,
        end: usize,
        from: u8,
        to: u8,
    ) {
        debug_assert!(start <= end && end <= src.len());
        let n = end - start;
        debug_assert!(self.len + n <= self.end);
        #[cfg(target_arch = "x86_64")]
        if n <= 64 && src.len() - start >= 64 {
            use std::arch::x86_64::{
                _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_set1_epi8,
                _mm_storeu_si128, _mm_xor_si128,
            };
            // SAFETY: SSE2 is part of x86-64; `start + 64 <= src.len()`,
            // and the 64 bytes written end before `len + n + SLACK`,
            // within the capacity.
            unsafe {
                let from_v = _mm_set1_epi8(from as i8);
                let flip = _mm_set1_epi8((from ^ to) as i8);
                for i in 0..4 {
                    let at = src.as_ptr().add(start + 16 * i);
                    let v = _mm_loadu_si128(at.cast());
                    let hit = _mm_cmpeq_epi8(v, from_v);
                    let v = _mm_xor_si128(v, _mm_and_si128(hit, flip));
                    _mm_storeu_si128(
                        self.ptr.add(self.len + 16 * i).cast(),
                        v,
                    );
                }
            }
            self.len += n;
            return;
        }
        for &b in &src[start..end] {
            // SAFETY: as the caller promised.
            unsafe { self.byte(if b == from { to } else { b }) };
        }
    }

    /// Appends `value` as a CSV field with delimiter `delimiter`: quoted
    /// when it holds the delimiter, `"`, CR or LF, with `"` doubled.
    ///
    /// # Safety
    ///
    /// The row, with `value` quoted and every `"` in it doubled, is at
    /// most the `max` bytes asked for.
    pub unsafe fn checked(&mut self, value: &[u8], delimiter: u8) {
        let special =
            |&b: &u8| b == delimiter || b == b'"' || b == b'\r' || b == b'\n';
        // SAFETY (of each write): the caller's promise.
        unsafe {
            if !value.iter().any(special) {
                return self.bytes(value);
            }
            self.byte(b'"');
            for part in value.split_inclusive(|&b| b == b'"') {
                self.bytes(part);
                if part.last() == Some(&b'"') {
                    self.byte(b'"');
                }
            }
            self.byte(b'"');
        }
    }
}

/// Copies 64 bytes from `from` to `to`, in vectors: not as a call to
/// `memcpy`, which the compiler made of a copy of 64 bytes and the copy
/// of any length beside it, with the length chosen.
///
/// # Safety
///
/// 64 bytes may be read from `from` and written to `to`, which do not
/// overlap.
#[inline(always)]
unsafe fn copy_64(from: *const u8, to: *mut u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_loadu_si128, _mm_storeu_si128};
        // SAFETY: SSE2 is part of x86-64; the caller's promise.
        unsafe {
            for i in 0..4 {
                let v = _mm_loadu_si128(from.add(16 * i).cast());
                _mm_storeu_si128(to.add(16 * i).cast(), v);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's promise.
    unsafe {
        std::ptr::copy_nonoverlapping(from, to, 64)
    };
}

impl Drop for RowBuf<'_> {
    fn drop(&mut self) {
        // SAFETY: bytes up to `self.len` were written, within the
        // capacity.
        unsafe { self.buf.set_len(self.len) };
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
    fn raw_rows_quote_like_the_csv_crate() {
        const BYTES: &[u8] = b"ab ,\"\r\n\xc3\xa9";
        let mut rng = crate::testing::Rng::new(9);
        let mut raw = CsvWriter::new(vec![], b',');
        let mut want = vec![];
        for _ in 0..3000 {
            let src: Vec<u8> = (0..rng.below(80))
                .map(|_| BYTES[rng.below(BYTES.len())])
                .collect();
            let a = rng.below(src.len() + 1);
            let b = a + rng.below(src.len() + 1 - a);
            // At most: the span, the value quoted with every byte a `"`
            // doubled, and 4 more bytes.
            let mut row = raw.raw_row(3 * src.len() + 6);
            // SAFETY: within that.
            unsafe {
                row.span(&src, a, b);
                row.byte(b',');
                row.checked(&src, b',');
                row.bytes(b",x\n");
            }
            drop(row);
            raw.end_raw_row().unwrap();
            want.extend_from_slice(&src[a..b]);
            want.push(b',');
            let fields = vec![src.clone(), b"x".to_vec()];
            want.extend(reference(&[fields], b','));
        }
        raw.flush().unwrap();
        assert!(raw.get_mut() == &want);
    }

    #[test]
    fn a_row_of_one_empty_field_is_quoted() {
        let rows = vec![vec![b"".to_vec()], vec![b"".to_vec(), b"".to_vec()]];
        assert_eq!(ours(&rows, b','), b"\"\"\n,\n");
        assert_eq!(ours(&rows, b','), reference(&rows, b','));
    }
}
