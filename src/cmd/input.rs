//! Opening inputs: `-` (or no argument) is stdin, anything else a path.
//!
//! A [`Source`] carries the name that messages use for it: the path as
//! given, or `<stdin>`.
//!
//! An input compressed with gzip, zstd, bzip2 or xz is read through its
//! decoder, as zcat would: it is told by its first bytes, not by its
//! name, so that a compressed stdin is read too (as zstdcat, or ripgrep's
//! `-z`, do). Every decoder reads a stream as it comes, in memory of its
//! own that does not grow with the input (gzip 32 KiB, bzip2 up to
//! 4 MiB, zstd and xz their window: 8 MiB for what `zstd -19` and
//! `xz -6` write), and reads concatenated streams whole.

use std::cell::Cell;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::rc::Rc;

use crate::cmd::msg::Messages;
use crate::diag::{describe, Failure};
use crate::lines::LineReader;
use crate::pbi;

/// The name messages give to standard input.
pub const STDIN_NAME: &str = "<stdin>";

/// One input named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-`, or no file argument at all).
    Stdin,
    /// A file path, kept as the OS gave it.
    Path(OsString),
}

impl Source {
    /// The sources to read for the given file arguments: stdin when there
    /// are none.
    pub fn from_args(files: Vec<OsString>) -> Vec<Source> {
        if files.is_empty() {
            return vec![Source::Stdin];
        }
        files.into_iter().map(Source::from_arg).collect()
    }

    /// `-` is stdin, anything else a path.
    pub fn from_arg(arg: OsString) -> Source {
        if arg == "-" {
            Source::Stdin
        } else {
            Source::Path(arg)
        }
    }

    /// The name to use in messages and in pbi2csv's `file` column.
    pub fn name(&self) -> String {
        match self {
            Source::Stdin => STDIN_NAME.to_string(),
            Source::Path(p) => display(p),
        }
    }

    /// Opens the source for reading, decoded if it is compressed.
    ///
    /// # Errors
    ///
    /// The error of opening the file, e.g. when it does not exist or is a
    /// directory, or of reading its first bytes.
    pub fn open(&self) -> io::Result<Box<dyn Read>> {
        self.open_file().map(|opened| opened.reader)
    }

    /// Opens the source for reading, decoded if it is compressed, and
    /// gives a second handle of the file too when it is a file read as
    /// it is, for a reader that maps it ([`par::run_file_lines`]).
    ///
    /// # Errors
    ///
    /// As [`Source::open`].
    ///
    /// [`par::run_file_lines`]: crate::cmd::par::run_file_lines
    pub fn open_file(&self) -> io::Result<Opened> {
        let (mut rdr, file): (Box<dyn Read>, _) = match self {
            Source::Stdin => (Box::new(io::stdin().lock()), None),
            Source::Path(p) => {
                let file = File::open(p)?;
                if file.metadata()?.is_dir() {
                    return Err(io::Error::other("is a directory"));
                }
                let handle = file.try_clone().ok();
                (Box::new(file), handle)
            }
        };
        let head = read_head(&mut rdr, Compression::HEAD, |head| {
            Compression::sniff(head).is_some()
        })
        .map_err(|e| {
            io::Error::new(e.kind(), format!("read error: {}", describe(&e)))
        })?;
        let compression = Compression::sniff(&head).unwrap_or(None);
        let rdr = io::Cursor::new(head).chain(rdr);
        Ok(match compression {
            None => Opened { reader: Box::new(rdr), file, compression },
            Some(c) => {
                Opened { reader: c.decoder(rdr), file: None, compression }
            }
        })
    }
}

/// A source opened by [`Source::open_file`].
pub struct Opened {
    /// The bytes of the input, decoded if they were compressed.
    pub reader: Box<dyn Read>,
    /// A second handle of the file, when the input is a file read as it
    /// is (not compressed), which may be mapped.
    pub file: Option<File>,
    /// How the input was compressed.
    pub compression: Option<Compression>,
}

/// A kind of compressed input, told by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// gzip (`.gz`), every member of a concatenated file.
    Gzip,
    /// Zstandard (`.zst`), every frame.
    Zstd,
    /// bzip2 (`.bz2`), every stream.
    Bzip2,
    /// xz (`.xz`), every stream.
    Xz,
}

impl Compression {
    /// The first bytes of each kind. gzip's say deflate (the only method
    /// there is). bzip2's are `BZh`, the block size (1 to 9, compared as
    /// 9) and the first block's magic, or the end of an empty stream's:
    /// no text is likely to begin so, as one might with `BZh` alone.
    /// zstd's are a frame's, or a skippable frame's (`50` to `5F`, compared
    /// as `50`, then `2A 4D 18`), which zstd(1) reads past, as its decoder
    /// does.
    const MAGIC: [(Compression, &'static [u8]); 6] = [
        (Compression::Gzip, b"\x1f\x8b\x08"),
        (Compression::Zstd, b"\x28\xb5\x2f\xfd"),
        (Compression::Zstd, b"\x50\x2a\x4d\x18"),
        (Compression::Bzip2, b"BZh91AY&SY"),
        (Compression::Bzip2, b"BZh9\x17\x72\x45\x38\x50\x90"),
        (Compression::Xz, b"\xfd7zXZ\x00"),
    ];

    /// The most bytes [`Compression::sniff`] looks at.
    const HEAD: usize = 10;

    /// What the first bytes of an input, `head`, say: `Some(None)` not
    /// compressed, `Some(Some(kind))` compressed, `None` that more bytes
    /// are needed to tell (when there are: an input that ends sooner is
    /// not compressed).
    fn sniff(head: &[u8]) -> Option<Option<Compression>> {
        let mut bytes = [0; Compression::HEAD];
        let n = head.len().min(Compression::HEAD);
        bytes[..n].copy_from_slice(&head[..n]);
        if n > 3 && (b'1'..=b'9').contains(&bytes[3]) {
            bytes[3] = b'9';
        }
        if n > 0 && (0x50..=0x5F).contains(&bytes[0]) {
            bytes[0] = 0x50;
        }
        let head = &bytes[..n];
        let mut undecided = false;
        for (kind, magic) in Compression::MAGIC {
            let n = n.min(magic.len());
            if head[..n] == magic[..n] {
                if n == magic.len() {
                    return Some(Some(kind));
                }
                undecided = true;
            }
        }
        (!undecided).then_some(None)
    }

    /// The name of the format, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
        }
    }

    /// A reader of what `rdr` holds compressed in this format.
    fn decoder<R: Read + 'static>(self, rdr: R) -> Box<dyn Read> {
        let failed = Rc::new(Cell::new(false));
        let rdr = Raw { rdr, failed: Rc::clone(&failed) };
        let inner: Box<dyn Read> = match self {
            Compression::Gzip => Box::new(Gzip::new(rdr)),
            Compression::Zstd => match zstd::stream::read::Decoder::new(rdr) {
                Ok(decoder) => Box::new(decoder),
                Err(e) => Box::new(Failed(Some(e))),
            },
            Compression::Bzip2 => {
                Box::new(bzip2::read::MultiBzDecoder::new(rdr))
            }
            Compression::Xz => Box::new(Xz::new(rdr)),
        };
        Box::new(Decoding { kind: self, inner, failed })
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A decoder whose errors say that the data were compressed, and how;
/// an error of reading the compressed data is passed on as it is.
struct Decoding {
    kind: Compression,
    inner: Box<dyn Read>,
    /// Whether reading the compressed data failed.
    failed: Rc<Cell<bool>>,
}

impl Read for Decoding {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if self.failed.get() {
                return e;
            }
            let kind = self.kind;
            let text = match e.kind() {
                io::ErrorKind::UnexpectedEof => {
                    format!("truncated {kind} input")
                }
                _ => {
                    let text = describe(&e);
                    let prefix = format!("{kind}: ");
                    let text = text.strip_prefix(&prefix).unwrap_or(&text);
                    format!("corrupt {kind} input: {text}")
                }
            };
            io::Error::new(e.kind(), text)
        })
    }
}

/// gzip's decoder of every member, as `flate2`'s `MultiGzDecoder`, that
/// reads past zero bytes after the last member as gzip(1) does: tape
/// archives and some block devices pad a file with them. Anything else
/// after a member must be one (or is an error, as before).
struct Gzip<R> {
    member: Option<flate2::bufread::GzDecoder<io::BufReader<R>>>,
}

impl<R: Read> Gzip<R> {
    fn new(rdr: R) -> Gzip<R> {
        let rdr = io::BufReader::new(rdr);
        Gzip { member: Some(flate2::bufread::GzDecoder::new(rdr)) }
    }
}

impl<R: Read> Read for Gzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use std::io::BufRead;
        loop {
            let Some(member) = self.member.as_mut() else { return Ok(0) };
            let n = member.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            // The member ended: the next, or zeros to the end.
            let rdr = member.get_mut();
            let mut zeros = false;
            let next = loop {
                let bytes = rdr.fill_buf()?;
                let run = bytes.iter().take_while(|&&b| b == 0).count();
                match bytes.get(run) {
                    None if bytes.is_empty() => break false,
                    None => {
                        zeros = true;
                        rdr.consume(run);
                    }
                    Some(&0x1f) if run == 0 && !zeros => break true,
                    Some(_) => {
                        let kind = io::ErrorKind::InvalidData;
                        let text = if zeros || run > 0 {
                            "bytes after the zeros that pad it"
                        } else {
                            "bytes after a member that start none"
                        };
                        return Err(io::Error::new(kind, text));
                    }
                }
            };
            let member = self.member.take().expect("a member was read");
            if next {
                let rdr = member.into_inner();
                self.member = Some(flate2::bufread::GzDecoder::new(rdr));
            }
        }
    }
}

/// xz's decoder of every stream, which hands out what it decoded before
/// an error and reports the error at the next read, as the decoders of
/// gzip, zstd and bzip2 do. liblzma's own reader drops what the read that
/// fails decoded: junk after the last stream lost the end of the data
/// before it (30 games of 238 in a test), which the other formats write.
struct Xz<R> {
    rdr: io::BufReader<R>,
    stream: liblzma::stream::Stream,
    error: Option<io::Error>,
}

impl<R: Read> Xz<R> {
    fn new(rdr: R) -> Xz<R> {
        use liblzma::stream::{Stream, CONCATENATED};
        let stream = Stream::new_auto_decoder(u64::MAX, CONCATENATED)
            .expect("liblzma makes a decoder with no memory limit");
        Xz { rdr: io::BufReader::new(rdr), stream, error: None }
    }
}

impl<R: Read> Read for Xz<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use liblzma::stream::{Action, Status};
        use std::io::BufRead;
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let input = self.rdr.fill_buf()?;
            let eof = input.is_empty();
            let action = if eof { Action::Finish } else { Action::Run };
            let (was_in, was_out) =
                (self.stream.total_in(), self.stream.total_out());
            let status = self.stream.process(input, buf, action);
            let consumed = (self.stream.total_in() - was_in) as usize;
            let read = (self.stream.total_out() - was_out) as usize;
            self.rdr.consume(consumed);
            match status {
                Ok(Status::StreamEnd) => return Ok(read),
                Ok(_) if read > 0 => return Ok(read),
                Ok(_) if eof => {
                    let kind = io::ErrorKind::UnexpectedEof;
                    return Err(io::Error::new(kind, "premature eof"));
                }
                Ok(_) if consumed == 0 => {
                    let kind = io::ErrorKind::InvalidData;
                    return Err(io::Error::new(kind, "corrupt xz stream"));
                }
                Ok(_) => {}
                Err(error) if read > 0 => {
                    self.error = Some(error.into());
                    return Ok(read);
                }
                Err(error) => return Err(error.into()),
            }
        }
    }
}

/// The compressed data under a decoder: notes that reading them failed,
/// so that the error is not taken for one of the data.
struct Raw<R> {
    rdr: R,
    failed: Rc<Cell<bool>>,
}

impl<R: Read> Read for Raw<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.rdr.read(buf);
        if read.as_ref().is_err_and(|e| e.kind() != io::ErrorKind::Interrupted)
        {
            self.failed.set(true);
        }
        read
    }
}

/// A reader that fails once with the error it holds.
struct Failed(Option<io::Error>);

impl Read for Failed {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        self.0.take().map_or(Ok(0), Err)
    }
}

/// Reads the first bytes of `rdr` until `decided` says they are enough,
/// `max` bytes are read, or the input ends. It reads no further than it
/// must, so that it does not wait for more of a terminal or a pipe than
/// the first line.
fn read_head(
    rdr: &mut dyn Read,
    max: usize,
    decided: impl Fn(&[u8]) -> bool,
) -> io::Result<Vec<u8>> {
    let mut head = vec![0; max];
    let mut len = 0;
    while len < max && !decided(&head[..len]) {
        match rdr.read(&mut head[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(len);
    Ok(head)
}

/// A path as text for messages; bytes that are not UTF-8 are shown as
/// U+FFFD.
fn display(p: &OsStr) -> String {
    p.to_string_lossy().into_owned()
}

/// Reads every PBI source in turn through a fresh [`LineReader`]. A
/// source that cannot be opened or read is reported and skipped; a write
/// error ends the run and is returned.
///
/// `each` gets the input's name (for messages and columns), its lines,
/// the file when it is one (to be mapped), and the messages (already
/// naming the input). An input whose first bytes cannot begin a PBI
/// marker line is cut there (see `pbi_lines`).
pub fn read_all<F>(
    sources: &[Source],
    msgs: &mut Messages,
    mut each: F,
) -> io::Result<()>
where
    F: FnMut(
        &str,
        &mut BoxedLines,
        Option<&File>,
        &mut Messages,
    ) -> Result<(), Failure>,
{
    for source in sources {
        let name = source.name();
        msgs.set_input(&name);
        let opened = source.open_file().and_then(pbi_lines);
        let (mut lines, file) = match opened {
            Ok(opened) => opened,
            Err(e) => {
                msgs.input_error(describe(&e));
                continue;
            }
        };
        match each(&name, &mut lines, file.as_ref(), msgs) {
            Ok(()) => {}
            Err(Failure::Read(e)) => {
                msgs.input_error(format_args!("read error: {}", describe(&e)))
            }
            Err(Failure::Write(e)) => return Err(e),
        }
    }
    Ok(())
}

/// The most first bytes of an input [`pbi_lines`] reads to tell whether
/// they may begin a marker line: far more than `#PBI 1.2` and a line
/// end, and a BOM.
const MARKER_HEAD: usize = 64;

/// Lines of an input of any kind: a file, stdin, a decoder.
type BoxedLines = LineReader<Box<dyn Read>>;

/// The lines of an opened PBI input. When its first bytes cannot begin
/// a marker line ([`pbi::may_begin_with_marker`]), the lines are those
/// bytes alone, which the parser then rejects at once ("not a PBI
/// file"), instead of a first line read to its end however long, or
/// forever (`/dev/zero`); the rest is not read.
///
/// # Errors
///
/// An error reading the first bytes, as a read error.
fn pbi_lines(opened: Opened) -> io::Result<(BoxedLines, Option<File>)> {
    let Opened { reader: mut rdr, file, .. } = opened;
    let head = read_head(&mut rdr, MARKER_HEAD, |head| {
        pbi::may_begin_with_marker(head).is_some()
    })
    .map_err(|e| {
        io::Error::new(e.kind(), format!("read error: {}", describe(&e)))
    })?;
    if pbi::may_begin_with_marker(&head) == Some(false) {
        let lines: Box<dyn Read> = Box::new(io::Cursor::new(head));
        return Ok((LineReader::new(lines), None));
    }
    let rdr: Box<dyn Read> = Box::new(io::Cursor::new(head).chain(rdr));
    Ok((LineReader::new(rdr), file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniffed(head: &[u8]) -> Option<Option<Compression>> {
        Compression::sniff(head)
    }

    #[test]
    fn the_first_bytes_tell_the_compression() {
        use Compression::*;
        assert_eq!(sniffed(b"\x1f\x8b\x08\x00"), Some(Some(Gzip)));
        assert_eq!(sniffed(b"\x28\xb5\x2f\xfd\x04"), Some(Some(Zstd)));
        assert_eq!(sniffed(b"BZh91AY&SY"), Some(Some(Bzip2)));
        assert_eq!(sniffed(b"BZh11AY&SY"), Some(Some(Bzip2)));
        assert_eq!(
            sniffed(b"BZh9\x17\x72\x45\x38\x50\x90"),
            Some(Some(Bzip2))
        );
        assert_eq!(sniffed(b"\xfd7zXZ\x00\x00"), Some(Some(Xz)));
        // A zstd skippable frame, any of the sixteen.
        assert_eq!(sniffed(b"\x50\x2a\x4d\x18\x04"), Some(Some(Zstd)));
        assert_eq!(sniffed(b"\x5f\x2a\x4d\x18\x04"), Some(Some(Zstd)));
        assert_eq!(sniffed(b"[Event \"x\"]"), Some(None));
        assert_eq!(sniffed(b"Q*M!"), Some(None));
        // Text, and what only begins as a magic does.
        assert_eq!(sniffed(b"#PBI 1.2"), Some(None));
        assert_eq!(sniffed(b"\xEF\xBB\xBF#PBI"), Some(None));
        assert_eq!(sniffed(b"BZh9 is not bzip2"), Some(None));
        assert_eq!(sniffed(b"BZh0"), Some(None));
        assert_eq!(sniffed(b"\x1f\x8b\x07"), Some(None));
        assert_eq!(sniffed(b"PK\x03\x04"), Some(None));
        // Too short to tell.
        assert_eq!(sniffed(b""), None);
        assert_eq!(sniffed(b"\x1f"), None);
        assert_eq!(sniffed(b"BZh91AY"), None);
        assert_eq!(sniffed(b"\xfd7zX"), None);
    }

    /// Reads one byte at a time, as a terminal may give a line.
    struct Trickle<'a>(&'a [u8]);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(buf.len()).min(1);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn the_head_is_read_no_further_than_it_must() {
        let decided = |h: &[u8]| Compression::sniff(h).is_some();
        let head = |bytes| read_head(&mut Trickle(bytes), 10, decided);
        assert_eq!(head(b"ab\ncdefghijkl").unwrap(), b"a");
        assert_eq!(head(b"\x1f\x8b\x08\x00rest").unwrap(), b"\x1f\x8b\x08");
        assert_eq!(head(b"BZh9").unwrap(), b"BZh9");
        assert_eq!(head(b"BZh91AY&SYxx").unwrap(), b"BZh91AY&SY");
        // A reader that gives more at once keeps all it gave.
        let mut all = &b"abcdefghijkl"[..];
        assert_eq!(read_head(&mut all, 10, decided).unwrap(), b"abcdefghij");
    }

    /// A stream of zero bytes that never ends.
    struct Zeros;

    impl Read for Zeros {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            buf.fill(0);
            Ok(buf.len())
        }
    }

    fn opened(reader: impl Read + 'static) -> Opened {
        Opened { reader: Box::new(reader), file: None, compression: None }
    }

    /// `pbi2csv /dev/zero` held 4 GB after 4 s (issue 16): the first
    /// bytes now say that no marker line can begin so, and the parser
    /// rejects the input with none of the rest read.
    #[test]
    fn an_endless_first_line_that_is_no_marker_is_cut() {
        let (mut lines, file) = pbi_lines(opened(Zeros)).unwrap();
        assert!(file.is_none());
        let mut parser = pbi::Parser::new(pbi::Options::default());
        let mut diags = vec![];
        let line = lines.next_line().unwrap().unwrap();
        assert!(line.content().len() <= MARKER_HEAD);
        assert_eq!(parser.line(line, &mut diags).map(|_| ()), None);
        assert!(parser.is_rejected());
        assert_eq!(diags[0].message, "not a PBI file");
        assert!(lines.next_line().unwrap().is_none());
        // A marker, or what may yet be one, is read on as it is.
        for input in ["\u{feff}#PBI 1.2\r\nx:y\n", "#PBI 1.2", "#PBI 1", ""] {
            let (mut lines, _) = pbi_lines(opened(input.as_bytes())).unwrap();
            let mut all = vec![];
            while let Some(line) = lines.next_line().unwrap() {
                all.extend_from_slice(line.raw());
            }
            let want = input.strip_prefix('\u{feff}').unwrap_or(input);
            assert_eq!(all, want.as_bytes());
        }
    }
}
