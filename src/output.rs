//! Output: buffered stdout, and telling a closed pipe from a real error.
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

/// Any writer behind a 64 KiB buffer; [`stdout`] for tests.
pub fn buffered<W: Write>(w: W) -> BufWriter<W> {
    BufWriter::with_capacity(BUFFER_SIZE, w)
}

/// A CSV writer with a 64 KiB buffer and LF row ends. It buffers on its
/// own, so it must not be wrapped in another `BufWriter`.
pub fn csv_writer<W: Write>(w: W, delimiter: u8) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .buffer_capacity(BUFFER_SIZE)
        .delimiter(delimiter)
        .terminator(csv::Terminator::Any(b'\n'))
        .flexible(false)
        .from_writer(w)
}

/// Whether writing failed because the reader of the pipe went away.
pub fn is_broken_pipe(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe
}

/// A `csv::Error` as an `io::Error`, keeping the kind of an I/O error
/// inside it (the plain conversion makes every kind `Other`, hiding a
/// broken pipe).
pub fn csv_io_error(err: csv::Error) -> io::Error {
    match err.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}
