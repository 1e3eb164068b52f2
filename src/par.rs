/*!
The records of one input on several threads, in order.

The calling thread reads lines through the shared
[`LineReader`](crate::lines::LineReader) and packs them into [`Batch`]es
of about [`BATCH_BYTES`] bytes, copying runs of lines that end with LF,
CR LF or CR in bulk, without looking at each. Each batch goes to one of the
workers in turn (round robin), which reads its lines again (with a line
reader of its own), parses them and fills the batch's output;
the calling thread then takes the batches back **in the order they were
read** and writes them out. So the output and the diagnostics are exactly
those of one thread, line numbers included.

Memory stays flat: at most two batches per worker are in flight, and
batches are reused. The threads live as long as one input; a tool starts
them only for an input with more than one batch of data lines, so small
inputs never pay for them.
*/

use std::collections::VecDeque;
use std::io::{self, Read};
use std::num::NonZeroUsize;
use std::sync::mpsc;
use std::thread;

use crate::input::Failure;
use crate::lines::{Line, LineReader};
use crate::msg::Diagnostic;

/// How many bytes of lines go into one batch (a line is never split, so
/// a batch may hold a little more).
pub const BATCH_BYTES: usize = 256 * 1024;

/// How many batches each worker may hold at a time.
const IN_FLIGHT: usize = 2;

/// The number of worker threads when the user does not say: one per
/// core, at most 8 (beyond that, writing the output in order is the
/// limit).
pub fn default_threads() -> usize {
    thread::available_parallelism().map_or(1, NonZeroUsize::get).min(8)
}

/// Consecutive lines of one input, and what a worker made of them.
#[derive(Debug, Default)]
pub struct Batch {
    /// The lines.
    pub lines: Lines,
    /// The output for these lines, written as is.
    pub out: Vec<u8>,
    /// The diagnostics about these lines, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// How many records were selected (for tools that count).
    pub selected: u64,
}

/// The lines of a [`Batch`], one after the other in one buffer, as read.
///
/// The calling thread only copies them here, most of them in bulk
/// ([`LineReader::take_lines`]); the worker reads them again through a
/// [`LineReader`] of its own, which finds the same lines with the same
/// line ends (each line here is whole, so its end is known) and numbers
/// them as in their input.
#[derive(Debug, Default)]
pub struct Lines {
    /// The lines as read, line ends included.
    bytes: Vec<u8>,
    /// The number of the first line.
    first: u64,
    /// How many lines there are.
    count: u64,
}

impl Lines {
    /// Appends `line`, which must follow the last line pushed.
    pub fn push(&mut self, line: Line<'_>) {
        if self.count == 0 {
            self.first = line.number();
        }
        debug_assert_eq!(line.number(), self.first + self.count);
        self.bytes.extend_from_slice(line.raw());
        self.count += 1;
    }

    /// Appends the next lines of `lines` that it can hand over in bulk,
    /// until this holds `size` bytes or more; returns how many it took
    /// (0: read the next line with `next_line` and push it).
    fn take<R: Read>(
        &mut self,
        lines: &mut LineReader<R>,
        size: usize,
    ) -> io::Result<u64> {
        let first = lines.number() + 1;
        let want = size.saturating_sub(self.bytes.len());
        let n = lines.take_lines(&mut self.bytes, want)?;
        if n > 0 {
            if self.count == 0 {
                self.first = first;
            }
            self.count += n;
        }
        Ok(n)
    }

    /// A reader of the lines, numbered as in their input.
    pub fn reader(&self) -> LineReader<&[u8]> {
        LineReader::continuing(&self.bytes[..], self.first)
    }

    /// The number of bytes of lines held.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether no line is held.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl Batch {
    /// Empties the batch for reuse, keeping its memory.
    fn clear(&mut self) {
        self.lines.bytes.clear();
        self.lines.count = 0;
        self.out.clear();
        self.diagnostics.clear();
        self.selected = 0;
    }
}

/// What a worker thread does with each batch.
pub trait Work: Send {
    /// Reads the lines of `batch` and fills its output fields.
    fn work(&mut self, batch: &mut Batch);
}

/// Reads the rest of `lines` in batches, has `workers` (one thread each)
/// work on them, and hands every batch to `emit` in input order.
///
/// `emit` returns whether to go on; `Ok(false)` stops reading (`-q` has
/// its answer).
///
/// # Errors
///
/// A read error ([`Failure::Read`]) comes after every batch before it was
/// emitted; an error of `emit` ([`Failure::Write`]) stops at once.
pub fn run<R, W, E>(
    lines: &mut LineReader<R>,
    workers: Vec<W>,
    batch_bytes: usize,
    mut emit: E,
) -> Result<(), Failure>
where
    R: Read,
    W: Work,
    E: FnMut(&mut Batch) -> io::Result<bool>,
{
    thread::scope(|scope| {
        let mut to: Vec<mpsc::SyncSender<Batch>> = vec![];
        let mut from: Vec<mpsc::Receiver<Batch>> = vec![];
        for mut worker in workers {
            let (send_work, take_work) =
                mpsc::sync_channel::<Batch>(IN_FLIGHT);
            let (send_done, take_done) = mpsc::sync_channel(IN_FLIGHT);
            scope.spawn(move || {
                for mut batch in take_work {
                    worker.work(&mut batch);
                    if send_done.send(batch).is_err() {
                        break;
                    }
                }
            });
            to.push(send_work);
            from.push(take_done);
        }
        let mut order = Order { to, from, pending: VecDeque::new(), next: 0 };
        let mut spare: Vec<Batch> = vec![];
        let mut batch = Batch::default();
        let read = loop {
            match batch.lines.take(lines, batch_bytes) {
                Ok(0) => match lines.next_line() {
                    Ok(Some(line)) => batch.lines.push(line),
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(Failure::Read(e)),
                },
                Ok(_) => {}
                Err(e) => break Err(Failure::Read(e)),
            }
            if batch.lines.len() < batch_bytes {
                continue;
            }
            let full =
                std::mem::replace(&mut batch, spare.pop().unwrap_or_default());
            if let Some(mut done) = order.send(full) {
                if !emit(&mut done).map_err(Failure::Write)? {
                    return Ok(());
                }
                done.clear();
                spare.push(done);
            }
        };
        if !batch.lines.is_empty() {
            if let Some(mut done) = order.send(batch) {
                if !emit(&mut done).map_err(Failure::Write)? {
                    return Ok(());
                }
            }
        }
        while let Some(mut done) = order.take() {
            if !emit(&mut done).map_err(Failure::Write)? {
                return Ok(());
            }
        }
        read
    })
}

/// The channels to the workers, and which worker holds each batch in
/// flight, oldest first.
struct Order {
    to: Vec<mpsc::SyncSender<Batch>>,
    from: Vec<mpsc::Receiver<Batch>>,
    pending: VecDeque<usize>,
    next: usize,
}

impl Order {
    /// Sends `batch` to the next worker; first takes back the oldest batch
    /// if every worker's hands are full, and returns it.
    fn send(&mut self, batch: Batch) -> Option<Batch> {
        let done = if self.pending.len() == IN_FLIGHT * self.to.len() {
            self.take()
        } else {
            None
        };
        let w = self.next;
        self.next = (w + 1) % self.to.len();
        self.to[w].send(batch).expect("a worker thread stopped early");
        self.pending.push_back(w);
        done
    }

    /// The oldest batch in flight, once its worker is done with it.
    fn take(&mut self) -> Option<Batch> {
        let w = self.pending.pop_front()?;
        Some(self.from[w].recv().expect("a worker thread stopped early"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// Upper-cases every line, counts the lines holding `x`, and reports
    /// each line holding `!`.
    struct Upper;

    impl Work for Upper {
        fn work(&mut self, batch: &mut Batch) {
            let mut lines = batch.lines.reader();
            while let Some(line) = lines.next_line().unwrap() {
                let upper = line.raw().iter().map(u8::to_ascii_uppercase);
                batch.out.extend(upper);
                batch.selected += u64::from(line.content().contains(&b'x'));
                if line.content().contains(&b'!') {
                    let d = Diagnostic::warning(line.number(), "!");
                    batch.diagnostics.push(d);
                }
            }
        }
    }

    /// What one thread makes of `input`.
    fn sequential(input: &[u8]) -> (Vec<u8>, Vec<Diagnostic>, u64) {
        let mut lines = LineReader::new(input);
        let mut batch = Batch::default();
        while let Some(line) = lines.next_line().unwrap() {
            batch.lines.push(line);
        }
        Upper.work(&mut batch);
        (batch.out, batch.diagnostics, batch.selected)
    }

    fn parallel(
        input: &[u8],
        threads: usize,
        batch_bytes: usize,
    ) -> (Vec<u8>, Vec<Diagnostic>, u64) {
        let mut lines = LineReader::with_capacity(7, input);
        let (mut out, mut diagnostics, mut selected) = (vec![], vec![], 0);
        let workers = (0..threads).map(|_| Upper).collect();
        run(&mut lines, workers, batch_bytes, |b| {
            out.extend_from_slice(&b.out);
            diagnostics.append(&mut b.diagnostics);
            selected += b.selected;
            Ok(true)
        })
        .unwrap();
        (out, diagnostics, selected)
    }

    #[test]
    fn batches_come_back_in_input_order() {
        const BYTES: &[u8] = b"ax!b \n\r\n\r\xc2\x85\xe2\x80\xa8";
        let mut rng = Rng::new(3);
        for _ in 0..300 {
            let len = rng.below(3000);
            let input: Vec<u8> =
                (0..len).map(|_| BYTES[rng.below(BYTES.len())]).collect();
            let threads = 1 + rng.below(4);
            let batch_bytes = 1 + rng.below(200);
            assert_eq!(
                parallel(&input, threads, batch_bytes),
                sequential(&input),
                "{threads} threads, batches of {batch_bytes}"
            );
        }
    }

    #[test]
    fn emit_can_stop_early() {
        let input = "a\n".repeat(10_000);
        let mut lines = LineReader::new(input.as_bytes());
        let mut batches = 0;
        let workers = vec![Upper, Upper];
        run(&mut lines, workers, 100, |_| {
            batches += 1;
            Ok(batches < 3)
        })
        .unwrap();
        assert_eq!(batches, 3);
    }

    #[test]
    fn a_read_error_comes_after_the_lines_before_it() {
        /// Gives `ab\n` a byte at a time, then fails after `.1` bytes.
        struct Failing(usize, usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 == self.1 {
                    return Err(io::Error::other("disk on fire"));
                }
                buf[0] = b"ab\n"[self.0 % 3];
                self.0 += 1;
                Ok(1)
            }
        }
        let mut lines = LineReader::new(Failing(0, 3001));
        let mut out = vec![];
        let workers = vec![Upper, Upper, Upper];
        let result = run(&mut lines, workers, 64, |b| {
            out.extend_from_slice(&b.out);
            Ok(true)
        });
        assert!(matches!(result, Err(Failure::Read(_))));
        assert!(out == "AB\n".repeat(1000).as_bytes(), "{} bytes", out.len());
    }

    #[test]
    fn a_write_error_stops_at_once() {
        let input = "a\n".repeat(10_000);
        let mut lines = LineReader::new(input.as_bytes());
        let workers = vec![Upper, Upper];
        let result = run(&mut lines, workers, 100, |_| {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        });
        assert!(matches!(result, Err(Failure::Write(_))));
    }
}
