//! What the Kriegspiel tools share: every game of every input read into
//! a sink (the filter, the referee), an input of more than one batch of
//! lines on several threads.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};

use crate::cmd::input::Source;
use crate::cmd::msg::Messages;
use crate::cmd::output;
use crate::cmd::par::{self, Batch, End, Numbers, Work};
use crate::diag::{self, Diagnostic, Failure, Report, Severity};
use crate::kpgn::read::Sink;
use crate::kpgn::{Carry, Cuts, Reader, OUT_BUFFER};
use crate::lines::{self, LineEnd, LineReader};

/// Reads every game of `sources`, in order, with readers that `make`
/// makes, to stdout; an input of more than one batch of lines on
/// `threads` threads (see [`par`]). Every warning is an error with
/// `strict`.
///
/// Returns how many games passed (were written, or found right) and
/// failed. Inputs that cannot be opened or read are reported through
/// `msgs` and skipped.
///
/// # Errors
///
/// A failure to write to stdout (a closed pipe included, which the caller
/// treats as a quiet end).
pub(crate) fn run<S, F>(
    make: &F,
    threads: usize,
    strict: bool,
    sources: Vec<Source>,
    msgs: &mut Messages,
) -> io::Result<Counts>
where
    S: Sink + Send,
    F: Fn() -> Reader<S> + Sync,
{
    let mut wtr = Ended::new(output::stdout());
    let mut counts = Counts::default();
    // What the last game of the input before left open: the inputs are
    // one stream, as `cat` would make them, so a comment or variation
    // open at the end of one runs on into the next (a file cut in two
    // inside a comment: what follows is the comment's rest, whatever it
    // looks like, and is left out with its game).
    let mut carry: Option<Carry> = None;
    for source in sources {
        // The last line of the input before may have had no line end:
        // the next game must not run into it.
        wtr.end_line();
        msgs.set_input(&source.name());
        match source.open_file() {
            Ok(opened) => {
                let mut report = Strict { strict, report: &mut *msgs };
                let batches = par::BATCH_BYTES;
                // One stream of games: a game without tags that starts
                // this input must not run into the last one written.
                let open = counts.open;
                let make = || {
                    let mut reader = make();
                    reader.after_open(open);
                    reader
                };
                if let Some(carry) = carry.as_mut() {
                    report.report(carry.into_next_input());
                }
                let read = read_input(
                    &make,
                    carry,
                    threads,
                    batches,
                    opened.reader,
                    opened.file.as_ref(),
                    &mut wtr,
                    &mut report,
                )?;
                counts.passed += read.passed;
                counts.failed += read.failed;
                counts.open = read.open;
                carry = read.carry;
            }
            Err(err) => {
                msgs.input_error(diag::describe(&err));
                // What it held is lost: it may have been the start of a
                // game whose rest follows.
                counts.open = true;
            }
        }
    }
    wtr.flush()?;
    Ok(counts)
}

/// A writer that knows whether what it wrote ends with a line end, and
/// if not, ends the line before anything more is written, when asked
/// ([`Ended::end_line`]): the last line of one input may lack a line end,
/// and the first game of the next must not run into it (`*[Event ...`,
/// which a reader of the output takes for movetext). The line end added
/// is the last one written (LF if none was).
struct Ended<W> {
    inner: W,
    /// The last line end written.
    ending: LineEnd,
    /// What was written does not end with a line end.
    unended: bool,
    /// A line end is to be written before the next bytes.
    pending: bool,
}

impl<W: Write> Ended<W> {
    fn new(inner: W) -> Ended<W> {
        Ended { inner, ending: LineEnd::Lf, unended: false, pending: false }
    }

    /// Ends the line written last, if it has no line end, before the
    /// next bytes written (none if nothing more is).
    fn end_line(&mut self) {
        self.pending = self.unended;
    }
}

/// The line end that `bytes` ends with, if one does.
fn ending(bytes: &[u8]) -> Option<LineEnd> {
    [LineEnd::CrLf, LineEnd::Lf, LineEnd::Cr, LineEnd::Nel, LineEnd::Ls]
        .into_iter()
        .find(|end| bytes.ends_with(end.as_bytes()))
}

impl<W: Write> Write for Ended<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.pending {
            self.inner.write_all(self.ending.as_bytes())?;
            self.pending = false;
        }
        let n = self.inner.write(buf)?;
        let written = &buf[..n];
        let last = ending(written);
        self.unended = last.is_none();
        // Else the last line end inside, found from the end.
        let last = last
            .or_else(|| ending(&written[..lines::last_line_end(written)?]));
        if let Some(end) = last {
            self.ending = end;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// How many games passed (were written, or found right) and failed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    /// A game without tags written next would run into the last game
    /// written ([`Reader::open`]).
    pub open: bool,
    /// What the last game left open at the input's end.
    pub carry: Option<Carry>,
}

impl Counts {
    /// Whether a game was read.
    pub fn any(&self) -> bool {
        self.passed + self.failed > 0
    }
}

/// Diagnostics on their way to `report`, every warning made an error if
/// `strict`.
struct Strict<'a> {
    strict: bool,
    report: &'a mut dyn Report,
}

impl Report for Strict<'_> {
    fn report(&mut self, mut diagnostic: Diagnostic) {
        if self.strict {
            diagnostic.severity = Severity::Error;
        }
        self.report.report(diagnostic);
    }
}

/// Reads one input, `rdr`, on `threads` threads, in batches of
/// `batch_bytes` (small batches put the cuts between batches to the
/// test): how many games passed and failed. The output and the reports
/// are the same whatever the number of threads. When `rdr` reads a file
/// as it is, `file` is a handle of it, and the batches are mapped from it
/// ([`par::run_file`]). `carry` is what the input before left open, which
/// goes on here from the first line ([`Carry::into_next_input`]); what
/// this one leaves open is in the counts returned.
///
/// The reading thread cuts the input into batches only before a line that
/// starts a game for a reader that has nothing open there ([`Cuts`]), so
/// that each worker reads its games as one reader of the whole input
/// would. Where the game before the cut left a comment or variation open
/// ([`Carry`]), which a malformed input can do, the batch after it is
/// read again on this thread, carrying on; in the rare input where no cut
/// comes for long, the rest is read on this thread. A read error ends the
/// input (the game being read is lost) and is reported as an error about
/// the input as a whole (line 0); the input then counts as ending in a
/// game left open ([`Counts::open`]).
///
/// # Errors
///
/// A failure to write to `wtr`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_input<S, F>(
    make: &F,
    carry: Option<Carry>,
    threads: usize,
    batch_bytes: usize,
    rdr: impl io::Read,
    file: Option<&File>,
    wtr: &mut impl Write,
    report: &mut dyn Report,
) -> io::Result<Counts>
where
    S: Sink + Send,
    F: Fn() -> Reader<S> + Sync,
{
    let mut reader = make();
    let mut tally = Tally::default();
    let mut lines = LineReader::new(rdr);
    let result = if threads > 1 {
        parallel(
            make,
            carry,
            threads,
            batch_bytes,
            &mut reader,
            (lines, file),
            wtr,
            report,
            &mut tally,
        )
    } else {
        let mut out = Vec::with_capacity(OUT_BUFFER);
        reader.carry_on(carry);
        reader.lines(&mut lines, &mut out, Some(wtr), report, true)
    };
    // A read error cuts the input short, perhaps in a game: a game
    // without tags that starts the next input may be that game's rest,
    // as after an input that ends in a game without its marker.
    let cut_short = match result {
        Ok(()) => false,
        Err(Failure::Read(err)) => {
            report.report(Diagnostic::error(
                0,
                format!("read error: {}", diag::describe(&err)),
            ));
            true
        }
        Err(Failure::Write(err)) => return Err(err),
    };
    let (passed, failed) = reader.counts();
    Ok(Counts {
        passed: tally.passed + passed,
        failed: tally.games - tally.passed + failed,
        open: cut_short || reader.open(),
        carry: reader.carry(),
    })
}

/// What the batches read on worker threads held: how many games passed,
/// and how many in all.
#[derive(Default)]
struct Tally {
    passed: u64,
    games: u64,
}

/// Reads the lines of `lines` on worker threads, then, if the input could
/// not be cut into batches, the rest on this one with `reader`, which
/// takes over what the batches left open. `tally` counts the batches'
/// games.
#[allow(clippy::too_many_arguments)]
fn parallel<S, F, R>(
    make: &F,
    mut carry: Option<Carry>,
    threads: usize,
    batch_bytes: usize,
    reader: &mut Reader<S>,
    (mut lines, file): (LineReader<R>, Option<&File>),
    wtr: &mut dyn Write,
    report: &mut dyn Report,
    tally: &mut Tally,
) -> Result<(), Failure>
where
    S: Sink + Send,
    F: Fn() -> Reader<S> + Sync,
    R: io::Read,
{
    let workers = (0..threads).map(|_| Worker { make }).collect();
    let mut cuts = Cuts::default();
    let cut = |line: &[u8], end| cuts.starts_game(line, end);
    let mut open = reader.open();
    let numbers = Numbers::Worker;
    let end = par::run_file(
        &mut lines,
        file,
        numbers,
        workers,
        batch_bytes,
        cut,
        |b| {
            // Read again here: a batch that the worker read as if nothing
            // were open before it, and one with something to report, whose
            // worker numbered its lines from 1 (a message may name a line,
            // and what it left open names where that was opened). Here
            // its lines have their numbers in the input.
            let relative = b.lines.deferred()
                && (!b.diagnostics.is_empty() || b.carry.is_some());
            if carry.is_some() || relative {
                let mut again = make();
                again.carry_on(carry);
                b.out.clear();
                b.diagnostics.clear();
                read_batch(&mut again, b);
            }
            carry = b.carry;
            open = b.open;
            for mut d in b.diagnostics.drain(..) {
                d.game = d.game.map(|n| n + tally.games);
                report.report(d);
            }
            tally.passed += b.selected;
            tally.games += b.records;
            wtr.write_all(&b.out)?;
            Ok(true)
        },
    )?;
    reader.carry_on(carry);
    reader.after_open(open);
    let mut out = Vec::with_capacity(OUT_BUFFER);
    reader.number_from(tally.games);
    match end {
        End::Done => Ok(()),
        End::Uncut(held) => {
            let mut rest = held.into_reader_then(lines.into_rest());
            reader.lines(&mut rest, &mut out, Some(wtr), report, true)
        }
        End::UncutAt { at, first } => {
            // A mapped file: its rest from where the batches stopped.
            let mut file = file.expect("only a file is mapped");
            file.seek(SeekFrom::Start(at)).map_err(Failure::Read)?;
            let mut rest = LineReader::continuing(file, first);
            reader.lines(&mut rest, &mut out, Some(wtr), report, true)
        }
    }
}

/// Reads the games of `batch` with `reader` (a new one, or one carrying
/// on from the batch before).
fn read_batch<S: Sink>(reader: &mut Reader<S>, batch: &mut Batch) {
    let last = !batch.cut_short;
    reader.ends_at_cut(batch.cut);
    let first = batch.lines.first();
    let (out, report) = (&mut batch.out, &mut batch.diagnostics);
    let ends = reader.lines_in(batch.lines.bytes(), first, out, report, last);
    batch.lines.counted(ends);
    let (passed, failed) = reader.counts();
    batch.selected = passed;
    batch.records = passed + failed;
    batch.read_any = reader.any();
    batch.carry = reader.carry();
    batch.open = reader.open();
}

/// A worker thread's part: reads the games of a batch.
struct Worker<'f, F> {
    make: &'f F,
}

impl<S, F> Work for Worker<'_, F>
where
    S: Sink + Send,
    F: Fn() -> Reader<S> + Sync,
{
    fn work(&mut self, batch: &mut Batch) {
        read_batch(&mut (self.make)(), batch);
    }

    /// The reader counts the line ends as it reads the games.
    fn finds_line_ends(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_end_added_is_the_last_one_written() {
        let cases: [(&[u8], &[u8]); 7] = [
            (b"a\nb", b"\n"),
            (b"a\r\nb\r\nc", b"\r\n"),
            (b"a\nb\rc", b"\r"),
            ("a\nb\u{85}c".as_bytes(), "\u{85}".as_bytes()),
            ("a\u{2028}b".as_bytes(), "\u{2028}".as_bytes()),
            // U+0145 ends in byte 85, U+0128 in A8: no line end.
            ("a\r\nb\u{145}\u{128}c".as_bytes(), b"\r\n"),
            (b"no line end", b"\n"),
        ];
        for (first, ending) in cases {
            let mut w = Ended::new(Vec::new());
            w.write_all(first).unwrap();
            w.end_line();
            w.write_all(b"next").unwrap();
            let want = [first, ending, b"next"].concat();
            assert_eq!(w.inner, want, "{:?}", String::from_utf8_lossy(first));
        }
        // Ended already, or nothing written after: nothing is added.
        let mut w = Ended::new(Vec::new());
        w.write_all(b"a\n").unwrap();
        w.end_line();
        w.write_all(b"b").unwrap();
        w.end_line();
        assert_eq!(w.inner, b"a\nb");
    }
}
