/*!
The records of one input on several threads, in order.

The calling thread fills [`Batch`]es of about [`BATCH_BYTES`] bytes of
whole lines (or up to eight times that, [`batch_bytes`], for a tool
whose lines are cheap to read). For records of one line ([`run_lines`]) it
reads the input straight into each batch and cuts it after its last
whole line, never looking at a line; where a batch may end only before
certain lines ([`run`]), it reads lines through the shared
[`LineReader`], copying runs of lines that end with LF, CR LF or CR in
bulk. Each batch goes to a shared queue, from which the next free worker
takes it, reads its lines where they lie (with a line reader of its
own), parses them and fills the batch's output; the calling thread then
takes the batches back **in the order they were read** and writes them
out. So the output and the diagnostics are exactly those of one thread,
line numbers included.

Memory stays flat: at most two batches per worker, eight in all, are in
flight, and batches are reused. The threads live as long as one input; a
tool starts them only for an input with more than one batch of data
lines, so small inputs never pay for them. With one worker no thread is started: each
batch is worked on and emitted on the calling thread, so that `-j1`
reads in batches as more threads do.
*/

#[cfg(unix)]
use std::cell::Cell;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::num::NonZeroUsize;
use std::ops::Range;
use std::sync::{mpsc, Arc, Mutex};
use std::thread;

use crate::diag::Diagnostic;
use crate::diag::Failure;
use crate::lines::{last_line_end, line_ends, Line, LineEnd, LineReader};

/// How many bytes of lines go into one batch (a line is never split, so
/// a batch may hold a little more).
pub const BATCH_BYTES: usize = 256 * 1024;

/// How many batches each worker may hold at a time.
const IN_FLIGHT: usize = 2;

/// How many batches may be in flight in all, whatever the number of
/// workers: each holds a batch's lines (mapped or copied) and its output,
/// about half a MiB for pbi2csv, so that 8 workers with 2 each took
/// 18 MiB on a 1 GB input, above the 16 MiB the tools keep to. With 8 in
/// flight, every worker of 8 still has a batch to work on.
const MAX_IN_FLIGHT: usize = 8;

/// The size of a batch for `workers` threads, with `budget` bytes of
/// batches in flight at most: [`BATCH_BYTES`] at least, eight times that
/// at most. A batch costs the same to hand over, however large, so a
/// tool whose lines cost little to read (pbi-grep) takes fewer, larger
/// batches where only a few are in flight.
pub fn batch_bytes(workers: usize, budget: usize) -> usize {
    (budget / in_flight(workers)).clamp(BATCH_BYTES, 8 * BATCH_BYTES)
}

/// How many batches `workers` threads hold at most.
fn in_flight(workers: usize) -> usize {
    (IN_FLIGHT * workers).clamp(1, MAX_IN_FLIGHT)
}

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
    /// Whether the input failed to read after these lines: the lines are
    /// whole, but a reader of one input would have lost what they leave
    /// unfinished (a game without its end, say).
    pub cut_short: bool,
    /// The output for these lines, written as is.
    pub out: Vec<u8>,
    /// The diagnostics about these lines, in order.
    pub diagnostics: Vec<Diagnostic>,
    /// How many records were selected (for tools that count).
    pub selected: u64,
    /// Whether the lines held a record at all, selected or not.
    pub read_any: bool,
    /// Whether the batch ended before a line for which the `cut` of
    /// [`run`] was true (not at the end of the input).
    pub cut: bool,
    /// How many records (games) the lines held, passed or failed.
    pub records: u64,
    /// Kriegspiel games: what the batch's last game left open where the
    /// batch ended ([`Carry`](crate::kpgn::Carry)).
    pub carry: Option<crate::kpgn::Carry>,
    /// Kriegspiel games: whether a game without tags would run into the
    /// games the batch passed ([`Reader::open`](crate::kpgn::Reader::open)).
    pub open: bool,
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
    /// The lines as read, line ends included (when not `mapped`).
    bytes: Vec<u8>,
    /// Or the lines where a mapped file holds them: the window and the
    /// range in it ([`run_file_lines`]).
    #[cfg(unix)]
    mapped: Option<(Arc<map::Window>, Range<usize>)>,
    /// The number of the first line.
    first: u64,
    /// Whether every line ends with LF (and so none is without an end).
    lf_only: bool,
    /// Whether the line ends are left for the worker to count
    /// ([`Lines::settle`]), whether it has, and then how many there are.
    deferred: bool,
    counted: bool,
    count: u64,
}

impl Lines {
    /// `bytes`, whole lines, as a worker gets a mapped batch whose line
    /// ends it counts itself ([`Numbers::Worker`]): for the tests of a
    /// worker's reading.
    #[cfg(test)]
    pub(crate) fn uncounted(bytes: Vec<u8>) -> Lines {
        Lines { bytes, deferred: true, ..Lines::default() }
    }

    /// Appends `line`, which must follow the last line pushed.
    pub fn push(&mut self, line: Line<'_>) {
        if self.bytes.is_empty() {
            self.first = line.number();
        }
        self.lf_only = false;
        self.bytes.extend_from_slice(line.raw());
    }

    /// Appends the next lines of `lines` that it can hand over in bulk,
    /// until this holds `size` bytes or more; returns how many it took
    /// (0: read the next line with `next_line` and push it).
    fn take<R: Read>(
        &mut self,
        lines: &mut LineReader<R>,
        size: usize,
    ) -> io::Result<u64> {
        if self.bytes.is_empty() {
            // Before the take, which may copy lines and then fail.
            self.first = lines.number() + 1;
        }
        self.lf_only = false;
        let want = size.saturating_sub(self.bytes.len());
        lines.take_lines(&mut self.bytes, want)
    }

    /// Counts the line ends of lines the reading thread left uncounted
    /// (numbered from 1 until they are emitted, when their diagnostics
    /// are numbered as in the input), on the worker's thread.
    pub fn settle(&mut self) {
        if self.deferred && !self.counted {
            let ends = line_ends(self.bytes());
            let last_lf = self.bytes().last().is_none_or(|&b| b == b'\n');
            self.lf_only = ends.lf_only && last_lf;
            self.count = ends.count;
            self.first = 1;
            self.counted = true;
        }
    }

    /// For a worker that finds the line ends as it reads the lines
    /// ([`Work::finds_line_ends`]): whether to read them by their LF,
    /// with [`scan::each_lf_line`](crate::pbi::scan::each_lf_line) and
    /// then [`Lines::each_from`] from where it stopped. So when every
    /// line is known to end with LF, and when the line ends are not
    /// counted yet: then the lines are numbered from 1, as
    /// [`Lines::settle`] numbers them, and the worker says how many
    /// ended with [`Lines::counted`]. False: call [`Lines::settle`] and
    /// read the lines otherwise.
    pub fn by_lf(&mut self) -> bool {
        if self.deferred && !self.counted {
            self.first = 1;
            return true;
        }
        self.lf_only
    }

    /// Says how many lines ended in a batch read [`Lines::by_lf`], when
    /// their ends were not counted.
    pub fn counted(&mut self, count: u64) {
        if self.deferred && !self.counted {
            self.count = count;
            self.counted = true;
        }
    }

    /// Copies mapped lines into the batch's own buffer, for the readers
    /// that need one (the rare batch of lines that do not all end with
    /// LF).
    fn own(&mut self) {
        #[cfg(unix)]
        if let Some((window, range)) = self.mapped.take() {
            self.bytes.clear();
            self.bytes.extend_from_slice(&window.bytes()[range]);
        }
    }

    /// Lends each line in turn, numbered as in its input, read where it
    /// is ([`LineReader::in_place`]): the bytes are not copied again.
    pub fn each(&mut self, each: impl FnMut(Line<'_>)) {
        self.each_from(0, self.first, each);
    }

    /// As [`Lines::each`], from byte `at` of [`Lines::bytes`], where a
    /// line starts, numbered `first`. Returns how many of the lines lent
    /// had a line end.
    pub fn each_from(
        &mut self,
        at: usize,
        first: u64,
        mut each: impl FnMut(Line<'_>),
    ) -> u64 {
        self.own();
        let bytes = std::mem::take(&mut self.bytes);
        let mut lines = LineReader::in_place_from(bytes, at, first);
        let mut ended = 0;
        // Reading from memory cannot fail.
        while let Ok(Some(line)) = lines.next_line() {
            ended += u64::from(line.end() != LineEnd::None);
            each(line);
        }
        self.bytes = lines.into_buffer();
        ended
    }

    /// As [`Lines::each`], with the offset of each line in
    /// [`Lines::bytes`].
    pub fn each_at(&mut self, each: impl FnMut(usize, Line<'_>)) {
        self.each_at_from(0, self.first, each);
    }

    /// As [`Lines::each_from`], with the offset of each line in
    /// [`Lines::bytes`].
    pub fn each_at_from(
        &mut self,
        at: usize,
        first: u64,
        mut each: impl FnMut(usize, Line<'_>),
    ) -> u64 {
        self.own();
        // An address only: the buffer moves into the reader, its bytes
        // stay where they are.
        let base = self.bytes.as_ptr() as usize;
        self.each_from(at, first, |line| {
            each(line.raw().as_ptr() as usize - base, line);
        })
    }

    /// The lines as read, line ends included.
    pub fn bytes(&self) -> &[u8] {
        #[cfg(unix)]
        if let Some((window, range)) = &self.mapped {
            return &window.bytes()[range.clone()];
        }
        &self.bytes
    }

    /// The number of the first line.
    pub fn first(&self) -> u64 {
        self.first
    }

    /// Whether the reading thread left the line ends for the worker to
    /// count, which numbered the lines from 1 ([`Numbers::Worker`]).
    pub fn deferred(&self) -> bool {
        self.deferred
    }

    /// Whether every line is known to end with LF (so that a worker may
    /// find the lines by their LF alone). False says nothing.
    pub fn lf_only(&self) -> bool {
        self.lf_only
    }

    /// A reader of the lines, numbered as in their input, and then of
    /// what `then` gives, numbered on.
    pub fn into_reader_then<T: Read>(
        mut self,
        then: T,
    ) -> LineReader<io::Chain<io::Cursor<Vec<u8>>, T>> {
        self.own();
        let first = self.first;
        LineReader::continuing(io::Cursor::new(self.bytes).chain(then), first)
    }

    /// The number of bytes of lines held.
    pub fn len(&self) -> usize {
        self.bytes().len()
    }

    /// Whether no line is held.
    pub fn is_empty(&self) -> bool {
        self.bytes().is_empty()
    }
}

impl Batch {
    /// Empties the batch for reuse, keeping its memory.
    fn clear(&mut self) {
        self.lines.bytes.clear();
        #[cfg(unix)]
        {
            self.lines.mapped = None;
        }
        self.lines.lf_only = false;
        self.lines.deferred = false;
        self.lines.counted = false;
        self.cut_short = false;
        self.out.clear();
        self.diagnostics.clear();
        self.selected = 0;
        self.read_any = false;
        self.cut = false;
        self.records = 0;
        self.carry = None;
        self.open = false;
    }
}

/// What a worker thread does with each batch.
pub trait Work: Send {
    /// Reads the lines of `batch` and fills its output fields.
    fn work(&mut self, batch: &mut Batch);

    /// Whether [`Work::work`] finds the line ends of a batch whose
    /// reading thread left them uncounted ([`Lines::by_lf`]), or counts
    /// them first ([`Lines::settle`]); if not, they are counted before
    /// it is called.
    fn finds_line_ends(&self) -> bool {
        false
    }
}

/// Has `worker` work on `batch`, its line ends counted first if the
/// reading thread left them (and the worker does not find them).
fn work_on<W: Work>(worker: &mut W, batch: &mut Batch) {
    if !worker.finds_line_ends() {
        batch.lines.settle();
    }
    worker.work(batch);
    debug_assert!(!batch.lines.deferred || batch.lines.counted);
}

/// [`run`] for records of one line each, where a batch may end after any
/// line, read in blocks: the calling thread reads the rest of the input
/// straight into each batch's buffer, cuts it after its last whole line
/// (the rest begins the next batch), and counts its line ends, for the
/// next batch's first line number, with one search of the block for each
/// kind. It never looks at a line, and no byte is copied twice.
///
/// # Errors
///
/// As [`run`]: a read error comes after the whole lines read before it.
pub fn run_lines<R, W, E>(
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
    let batch_bytes = batch_bytes.max(1);
    let mut first = lines.number() + 1;
    thread::scope(|scope| {
        let mut pool = Pool { idle: workers, order: None };
        let mut spare: Vec<Batch> = vec![];
        // The start of a line, read into the last batch after its cut.
        let mut carry: Vec<u8> = vec![];
        let mut batch = Batch::default();
        let read = loop {
            let bytes = &mut batch.lines.bytes;
            bytes.append(&mut carry);
            let read = fill_block(lines, bytes, batch_bytes);
            let cut = match read {
                Ok(true) => bytes.len(),
                _ => last_line_end(bytes).unwrap_or(0),
            };
            if read.is_ok() && cut == 0 && !bytes.is_empty() {
                // No line ends in the block yet: read on into it.
                continue;
            }
            carry.extend_from_slice(&bytes[cut..]);
            bytes.truncate(cut);
            (batch.lines.first, batch.lines.lf_only) =
                numbered(bytes, &mut first);
            let ended = !matches!(read, Ok(false));
            if ended {
                break read.map(|_| ());
            }
            let next = spare.pop().unwrap_or_default();
            let full = std::mem::replace(&mut batch, next);
            if !pool.pass(scope, full, &mut spare, &mut emit)? {
                return Ok(());
            }
        };
        if !pool.finish(scope, Some(batch), read.is_err(), &mut emit)? {
            return Ok(());
        }
        read.map_err(Failure::Read)
    })
}

/// [`run_lines`] for an input that is a file, `file`, read by `lines`
/// so far: the rest of the file is mapped into memory a window at a time
/// and each batch is a range of a window, where the page cache holds the
/// bytes, with no copy of them (as ripgrep reads a file). Memory stays
/// flat: a window is unmapped once its last batch is done, and at most
/// the windows of the batches in flight are mapped.
///
/// Falls back to [`run_lines`] where mapping does not work (not a unix
/// system, not a regular file, a mapping refused).
///
/// A file that another program truncates while it is mapped is a read
/// error (where ripgrep dies of SIGBUS): the batches read after that are
/// not emitted (the SIGBUS handler of `map`); one that grows is read up to
/// the size it had.
///
/// # Errors
///
/// As [`run_lines`].
pub fn run_file_lines<R, W, E>(
    lines: &mut LineReader<R>,
    file: Option<&File>,
    numbers: Numbers,
    workers: Vec<W>,
    batch_bytes: usize,
    emit: E,
) -> Result<(), Failure>
where
    R: Read,
    W: Work,
    E: FnMut(&mut Batch) -> io::Result<bool>,
{
    #[cfg(unix)]
    if let Some(file) = file {
        let size =
            file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        let start = lines.consumed();
        if let Some(size) = size.filter(|&size| size > start) {
            let first = lines.number() + 1;
            let mut from = map::Windows::new(file, start, size);
            // The first window mapped, or reading goes the usual way.
            if let Ok(Some(range)) = from.next_batch(batch_bytes.max(1)) {
                let read = Mapped { windows: from, range, first, numbers };
                return run_mapped(read, workers, batch_bytes, emit);
            }
        }
    }
    let _ = file;
    run_lines(lines, workers, batch_bytes, emit)
}

/// Who counts a mapped batch's line ends, which number its lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbers {
    /// The reading thread, before the batch goes to a worker: the worker
    /// sees each line numbered as in its input (for a tool that writes
    /// the numbers out).
    Reader,
    /// The worker: it sees the lines numbered from 1, and the numbers of
    /// the batch's diagnostics are made those of the input as the batch
    /// is emitted. The reading thread then only maps the file.
    Worker,
}

/// How the lines of mapped batches are numbered ([`Numbers`]), by the
/// reading thread as it makes the batches or as they are emitted.
#[cfg(unix)]
struct Numbering {
    numbers: Numbers,
    /// The number of the next batch's first line, as the reading thread
    /// counts them.
    made: Cell<u64>,
    /// The number of the next emitted batch's first line, for batches
    /// whose workers numbered their lines from 1.
    emitted: Cell<u64>,
}

#[cfg(unix)]
impl Numbering {
    /// The numbering of batches whose first line is number `first`.
    fn new(numbers: Numbers, first: u64) -> Numbering {
        let (made, emitted) = (Cell::new(first), Cell::new(first));
        Numbering { numbers, made, emitted }
    }

    /// Makes `batch` (an empty one) the lines of `window` in `range`:
    /// numbered here, or left for its worker to count.
    fn fill(
        &self,
        batch: &mut Batch,
        window: Arc<map::Window>,
        range: Range<usize>,
    ) {
        let lines = &mut batch.lines;
        if self.numbers == Numbers::Reader {
            let mut first = self.made.get();
            (lines.first, lines.lf_only) =
                numbered(&window.bytes()[range.clone()], &mut first);
            self.made.set(first);
        } else {
            lines.first = 1;
            lines.deferred = true;
        }
        lines.mapped = Some((window, range));
    }

    /// Emits `batch` through `emit`, unless the file shrank (its bytes
    /// may then be zeros it never held: nothing more is emitted). If its
    /// worker numbered its lines from 1, its diagnostics and
    /// [`Lines::first`] first take the numbers of the input.
    fn emit(
        &self,
        shrink: &map::Shrink,
        batch: &mut Batch,
        emit: &mut impl FnMut(&mut Batch) -> io::Result<bool>,
    ) -> io::Result<bool> {
        if shrink.shrank() {
            return Ok(false);
        }
        if batch.lines.deferred {
            let base = self.emitted.get();
            for d in &mut batch.diagnostics {
                d.line += base - 1;
            }
            batch.lines.first = base;
            self.emitted.set(base + batch.lines.count);
        }
        emit(batch)
    }

    /// The number, in the input, of the first line of `batch`, made and
    /// not passed on: the next to be emitted.
    fn first_of(&self, batch: &Batch) -> u64 {
        match self.numbers {
            Numbers::Reader => batch.lines.first,
            Numbers::Worker => self.emitted.get(),
        }
    }
}

/// Where [`run_mapped`] starts.
#[cfg(unix)]
struct Mapped<'f> {
    windows: map::Windows<'f>,
    /// The first batch, cut already.
    range: Range<usize>,
    /// The number of its first line.
    first: u64,
    numbers: Numbers,
}

/// The window size: a number of batches of the default size. Each window
/// unmapped costs the other cores a flush of their TLBs: windows of 2 MiB
/// rather than 1 MiB took 3-5% off two threads' time (kpgn-filter,
/// kpgn-check, pbi2csv), for 0.4-2 MiB more peak memory (the pages of the
/// windows in use count as the process's).
#[cfg(unix)]
const WINDOW: usize = 8 * BATCH_BYTES;

/// [`run_file_lines`] once the file is known to be mappable.
#[cfg(unix)]
fn run_mapped<W, E>(
    read: Mapped<'_>,
    workers: Vec<W>,
    batch_bytes: usize,
    mut user_emit: E,
) -> Result<(), Failure>
where
    W: Work,
    E: FnMut(&mut Batch) -> io::Result<bool>,
{
    let Mapped { mut windows, range, first, numbers } = read;
    let numbering = Numbering::new(numbers, first);
    let shrink = windows.shrink();
    let mut emit = |b: &mut Batch| numbering.emit(&shrink, b, &mut user_emit);
    let batch_bytes = batch_bytes.max(1);
    let result = thread::scope(|scope| {
        let mut pool = Pool { idle: workers, order: None };
        let mut spare: Vec<Batch> = vec![];
        let mut batch: Option<Batch> = None;
        let mut next_range = Some(range);
        loop {
            let next = match next_range.take() {
                Some(range) => Ok(Some(range)),
                None => windows.next_batch(batch_bytes),
            };
            let range = match next {
                Ok(Some(range)) => range,
                Ok(None) => break,
                Err(e) => {
                    if !pool.finish(scope, batch.take(), true, &mut emit)? {
                        return Ok(());
                    }
                    return Err(Failure::Read(e));
                }
            };
            let mut next = spare.pop().unwrap_or_default();
            numbering.fill(&mut next, windows.current(), range);
            if let Some(full) = batch.replace(next) {
                if !pool.pass(scope, full, &mut spare, &mut emit)? {
                    return Ok(());
                }
            }
        }
        pool.finish(scope, batch, false, &mut emit)?;
        Ok(())
    });
    shrunk(result, &shrink)
}

/// The end of reading a mapped file, `result`, unless it shrank (and
/// stdout did not fail first): a read error then, the batches read since
/// it did not emitted.
#[cfg(unix)]
fn shrunk<T>(
    result: Result<T, Failure>,
    shrink: &map::Shrink,
) -> Result<T, Failure> {
    match (result, shrink.error()) {
        (Err(Failure::Write(err)), _) => Err(Failure::Write(err)),
        (_, Some(err)) => Err(Failure::Read(err)),
        (result, None) => result,
    }
}

/// Files mapped into memory.
#[cfg(unix)]
mod map {
    /// What a file that shrinks while it is mapped does: a read of a
    /// page past its new end raises SIGBUS, which would end the process
    /// with "Bus error" and no word of which input, and the inputs after
    /// it unread. The handler installed here finds the window that holds
    /// the page, maps a page of zeros in its place, so that the read goes
    /// on, and marks the window's file as shrunk ([`Shrink`]): the
    /// batches read after that are not emitted, and the file ends in a
    /// read error, as any unreadable input does; the next input is read.
    mod bus {
        use std::io;
        use std::ptr;
        use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
        use std::sync::atomic::{
            AtomicBool, AtomicPtr, AtomicU64, AtomicUsize,
        };
        use std::sync::{Arc, Once};

        /// What is said of a file that shrank.
        const SHRANK: &str = "the file shrank while it was read \
                                  (mapped on threads; -j1 reads it as a \
                                  stream)";

        /// Whether a file mapped shrank: one for each file, which each of
        /// its windows holds.
        #[derive(Debug, Default)]
        pub struct Shrink(AtomicBool);

        impl Shrink {
            /// Whether a read of the file's pages found it shrunk: the
            /// bytes read since then may be zeros that it never held.
            pub fn shrank(&self) -> bool {
                self.0.load(Acquire)
            }

            /// The read error for the file, if it shrank.
            pub fn error(&self) -> Option<io::Error> {
                self.shrank().then(|| io::Error::other(SHRANK))
            }
        }

        /// How many windows may be mapped at once: far more than the
        /// batches in flight (at most a few for each thread) ever hold.
        const SLOTS: usize = 1024;

        /// The windows mapped now, each a slot: its first page and its
        /// number of pages, in one word (0: a free slot), and the file's
        /// [`Shrink`]. A slot's word is set once its mapping is made and
        /// cleared before it is unmapped, so a word that holds an address
        /// holds it while it is mapped; its `Shrink` is set before the
        /// word, and lives as long as the window.
        static RANGES: [AtomicU64; SLOTS] =
            [const { AtomicU64::new(0) }; SLOTS];
        static SHRINKS: [AtomicPtr<Shrink>; SLOTS] =
            [const { AtomicPtr::new(ptr::null_mut()) }; SLOTS];

        /// Bits of a slot's word for the number of pages (a window of
        /// up to 64 GiB with pages of 4 KiB), and for the first page
        /// (addresses up to 2^52).
        const COUNT_BITS: u32 = 24;
        const FIRST_BITS: u32 = 40;

        /// The page size, read once before the handler is installed.
        static PAGE: AtomicUsize = AtomicUsize::new(4096);

        /// A window registered with the handler while it is mapped.
        #[derive(Debug)]
        pub struct Slot {
            index: usize,
            _shrink: Arc<Shrink>,
        }

        impl Slot {
            /// Registers the mapping of `len` bytes at `ptr` (a page
            /// boundary) of the file that `shrink` speaks for; `None` if
            /// no slot is free or the mapping is too large for one.
            pub fn new(
                ptr: *const libc::c_void,
                len: usize,
                shrink: &Arc<Shrink>,
            ) -> Option<Slot> {
                let page = page();
                let pages = u64::try_from(len.div_ceil(page)).ok()?;
                let first = (ptr as usize / page) as u64;
                if pages >> COUNT_BITS != 0 || first >> FIRST_BITS != 0 {
                    return None;
                }
                let word = first << COUNT_BITS | pages;
                let shrink = Arc::clone(shrink);
                // A slot is claimed with a mark no address matches (no
                // pages), then given the file's `Shrink`, then the range.
                let claimed = u64::MAX << COUNT_BITS;
                for (index, range) in RANGES.iter().enumerate() {
                    if range
                        .compare_exchange(0, claimed, AcqRel, Acquire)
                        .is_ok()
                    {
                        let raw = Arc::as_ptr(&shrink).cast_mut();
                        SHRINKS[index].store(raw, Release);
                        range.store(word, Release);
                        return Some(Slot { index, _shrink: shrink });
                    }
                }
                None
            }
        }

        impl Drop for Slot {
            /// Before the window is unmapped.
            fn drop(&mut self) {
                SHRINKS[self.index].store(ptr::null_mut(), Release);
                RANGES[self.index].store(0, Release);
            }
        }

        /// The page size (the handler installed first, which reads it).
        pub fn page() -> usize {
            static INSTALL: Once = Once::new();
            INSTALL.call_once(install);
            PAGE.load(Relaxed)
        }

        fn install() {
            // SAFETY: sysconf only reads a system setting.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            PAGE.store(usize::try_from(page).unwrap_or(4096).max(1), Relaxed);
            // SAFETY: a handler that only calls functions that are safe
            // in a signal handler (mmap, as Linux makes it: a system call
            // with no lock; signal, raise), set with a zeroed sigaction
            // whose mask is empty.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_bus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(libc::SIGBUS, &action, ptr::null_mut());
            }
        }

        extern "C" fn on_bus(
            signal: libc::c_int,
            info: *mut libc::siginfo_t,
            _: *mut libc::c_void,
        ) {
            // SAFETY: `info` is the kernel's, for a SIGBUS; the page of
            // zeros replaces one page of a window that a slot holds,
            // which is mapped while the slot holds it, and read only.
            unsafe {
                let addr = (*info).si_addr() as usize;
                let page = PAGE.load(Relaxed);
                let at = (addr / page) as u64;
                for (index, range) in RANGES.iter().enumerate() {
                    let word = range.load(Acquire);
                    let (first, pages) =
                        (word >> COUNT_BITS, word & ((1 << COUNT_BITS) - 1));
                    if at < first || at - first >= pages {
                        continue;
                    }
                    let shrink = SHRINKS[index].load(Acquire);
                    if shrink.is_null() {
                        break;
                    }
                    // Marked first: no thread may read the zeros before
                    // the file is known to have shrunk.
                    (*shrink).0.store(true, Release);
                    let zeros = libc::mmap(
                        (at as usize * page) as *mut libc::c_void,
                        page,
                        libc::PROT_READ,
                        libc::MAP_PRIVATE
                            | libc::MAP_ANONYMOUS
                            | libc::MAP_FIXED,
                        -1,
                        0,
                    );
                    if zeros != libc::MAP_FAILED {
                        return;
                    }
                    break;
                }
                // A SIGBUS that no window raised, or one the page of zeros
                // could not mend: the default action.
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
        }
    }

    use std::fs::File;
    use std::io;
    use std::ops::Range;
    use std::os::unix::io::AsRawFd;
    use std::sync::Arc;

    pub use bus::Shrink;

    use super::{BatchEnd, WINDOW};
    use crate::lines::{find_line_end, last_line_end, LineEnd};

    /// A part of a file mapped into memory, read only; unmapped when the
    /// last batch that holds it is done with it.
    #[derive(Debug)]
    pub struct Window {
        ptr: *mut libc::c_void,
        len: usize,
        /// Its place among the windows the SIGBUS handler knows.
        slot: Option<bus::Slot>,
    }

    // SAFETY: the mapping is read only and nothing changes it through
    // this value; it may be read from any thread, and unmapped from any.
    unsafe impl Send for Window {}
    // SAFETY: as above.
    unsafe impl Sync for Window {}

    impl Window {
        /// Maps `len` bytes (not 0) of `file` from `offset`, a multiple of
        /// the page size; `shrink` says whether the file shrank.
        fn new(
            file: &File,
            offset: u64,
            len: usize,
            shrink: &Arc<Shrink>,
        ) -> io::Result<Window> {
            // Not populated here: the pages are mapped in by the worker
            // that reads them, on its own core. Populating a window on
            // the reading thread made a third busy thread on two cores
            // (pbi2csv and pbi-grep 7-9% slower on two threads, with
            // more memory, and no faster on one).
            let flags = libc::MAP_PRIVATE;
            let offset = libc::off_t::try_from(offset)
                .map_err(|_| io::Error::other("offset too large"))?;
            // SAFETY: a new read-only mapping, placed where the system
            // chooses, of a file descriptor that is open; the result is
            // checked.
            let ptr = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ,
                    flags,
                    file.as_raw_fd(),
                    offset,
                )
            };
            if ptr == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            // Not known to the handler only if no slot is free or the
            // window is too large for one (more than ever happens): a
            // shrinking file then ends the process with SIGBUS.
            let slot = bus::Slot::new(ptr, len, shrink);
            Ok(Window { ptr, len, slot })
        }

        /// The mapped bytes.
        pub fn bytes(&self) -> &[u8] {
            // SAFETY: `ptr` is a mapping of `len` readable bytes, which
            // lives as long as `self`.
            unsafe { std::slice::from_raw_parts(self.ptr.cast(), self.len) }
        }
    }

    impl Drop for Window {
        fn drop(&mut self) {
            // No longer known to the handler, then unmapped.
            drop(self.slot.take());
            // SAFETY: the mapping made by `new`, unmapped once.
            unsafe { libc::munmap(self.ptr, self.len) };
        }
    }

    /// A file's bytes from an offset to a size, mapped a window at a
    /// time and cut into batches of whole lines.
    pub struct Windows<'f> {
        file: &'f File,
        /// Where the next batch starts in the file.
        pos: u64,
        size: u64,
        page: u64,
        window: Option<(u64, Arc<Window>)>,
        shrink: Arc<Shrink>,
    }

    impl<'f> Windows<'f> {
        /// The bytes of `file` from `start` to `size`.
        pub fn new(file: &'f File, start: u64, size: u64) -> Windows<'f> {
            let page = bus::page() as u64;
            let shrink = Arc::default();
            Windows { file, pos: start, size, page, window: None, shrink }
        }

        /// Whether the file shrank while it was read: once it has, the
        /// batches read may hold zeros for its bytes.
        pub fn shrink(&self) -> Arc<Shrink> {
            Arc::clone(&self.shrink)
        }

        /// The window of the last batch.
        pub fn current(&self) -> Arc<Window> {
            let (_, window) = self.window.as_ref().expect("a batch was cut");
            Arc::clone(window)
        }

        /// The range, in the current window, of the next batch: whole
        /// lines of about `size` bytes (the last batch: up to the end of
        /// the file); `None` at the end.
        pub fn next_batch(
            &mut self,
            size: usize,
        ) -> io::Result<Option<Range<usize>>> {
            if self.pos >= self.size {
                return Ok(None);
            }
            let mut want = size;
            loop {
                let (window, Range { start: from, end: to }, end_of_file) =
                    self.cover(want)?;
                let cut = match end_of_file {
                    true => Some(to),
                    false => last_line_end(&window.bytes()[from..to])
                        .map(|cut| from + cut),
                };
                if let Some(cut) = cut {
                    self.advance(cut - from);
                    return Ok(Some(from..cut));
                }
                // No line ends in the batch: a longer one, in a larger
                // window if need be.
                want = want.saturating_mul(2);
            }
        }

        /// The range, in the current window, of the next batch of
        /// records that run over lines (games): whole lines of `size`
        /// bytes or more, up to the first line after them that `cut` says
        /// starts a record (it sees the line and its line end), which starts
        /// the next batch; `None` at the end. `cut` sees each line after
        /// the first `size` bytes once, in order, until it says yes. With
        /// [`BatchEnd::Uncut`], no such line came within `max` bytes: the
        /// batch ends after the line that passed them.
        pub fn next_cut_batch(
            &mut self,
            size: usize,
            max: usize,
            cut: &mut impl FnMut(&[u8], LineEnd) -> bool,
        ) -> io::Result<Option<(Range<usize>, BatchEnd)>> {
            if self.pos >= self.size {
                return Ok(None);
            }
            let mut want = size;
            // Where the lines after the first `size` bytes start, once
            // known, from the batch's start; then the next line to show.
            let mut at = None;
            loop {
                let (window, Range { start: from, end: to }, end_of_file) =
                    self.cover(want)?;
                let bytes = &window.bytes()[from..to];
                let mut next = match at {
                    Some(at) => at,
                    None if end_of_file && bytes.len() <= want => {
                        self.advance(bytes.len());
                        return Ok(Some((from..to, BatchEnd::Eof)));
                    }
                    // Whole lines of `size` bytes, or the first line if
                    // it is longer.
                    None => match last_line_end(&bytes[..want]) {
                        Some(end) => end,
                        None => {
                            want = want.saturating_mul(2);
                            continue;
                        }
                    },
                };
                loop {
                    let rest = &bytes[next..];
                    if rest.is_empty() && end_of_file {
                        self.advance(bytes.len());
                        return Ok(Some((from..to, BatchEnd::Eof)));
                    }
                    // A line whose end lies in what is mapped (a CR at
                    // its end may be half a CR LF), or the last line.
                    let line = match find_line_end(rest) {
                        Some((end, after))
                            if end_of_file || after < rest.len() =>
                        {
                            Some((end, after))
                        }
                        None if end_of_file => Some((rest.len(), rest.len())),
                        _ => None,
                    };
                    let Some((end, after)) = line else { break };
                    if cut(&rest[..end], LineEnd::of(&rest[end..after])) {
                        self.advance(next);
                        return Ok(Some((from..from + next, BatchEnd::Cut)));
                    }
                    next += after;
                    if next > max {
                        self.advance(next);
                        return Ok(Some((from..from + next, BatchEnd::Uncut)));
                    }
                }
                at = Some(next);
                // The rest of the line is not mapped yet: a batch more
                // (a quarter of a window at least), not twice as much, so
                // that what a batch with no cut maps stays near its most.
                want = want.max(next).saturating_add(size.max(WINDOW / 4));
            }
        }

        /// The next batch starts `n` bytes further on.
        fn advance(&mut self, n: usize) {
            self.pos += n as u64;
        }

        /// The file's bytes from where the next batch starts, `want` of
        /// them or up to the end of the file, in the window that holds
        /// them (mapped if no window does): the window, their range in
        /// it, and whether they run to the end of the file.
        fn cover(
            &mut self,
            want: usize,
        ) -> io::Result<(Arc<Window>, Range<usize>, bool)> {
            let (start, window) = match &self.window {
                Some((start, w))
                    if self.pos + (want as u64).min(self.size - self.pos)
                        <= start + w.len as u64 =>
                {
                    (*start, Arc::clone(w))
                }
                _ => {
                    let start = self.pos / self.page * self.page;
                    let len = (want + (self.pos - start) as usize)
                        .max(WINDOW)
                        .min((self.size - start) as usize);
                    let w = Window::new(self.file, start, len, &self.shrink);
                    let w = Arc::new(w?);
                    self.window = Some((start, Arc::clone(&w)));
                    (start, w)
                }
            };
            let from = (self.pos - start) as usize;
            let to = (from + want).min(window.len);
            let end_of_file = start + to as u64 == self.size;
            Ok((window, from..to, end_of_file))
        }

        /// Where the next batch starts in the file.
        pub fn pos(&self) -> u64 {
            self.pos
        }

        /// Maps the first window: whether mapping works.
        pub fn probe(&mut self) -> io::Result<()> {
            self.cover(1).map(|_| ())
        }
    }
}

/// Numbers the whole lines `bytes` on the reading thread: the number of
/// their first line, `first`, which moves on past them, and whether every
/// one ends with LF ([`Lines::lf_only`]).
fn numbered(bytes: &[u8], first: &mut u64) -> (u64, bool) {
    let number = *first;
    let ends = line_ends(bytes);
    *first += ends.count;
    (number, ends.lf_only && bytes.last().is_none_or(|&b| b == b'\n'))
}

/// Reads the rest of `lines` into `bytes` until it holds `size` bytes
/// more than it did, or the input ends; returns whether it ended.
fn fill_block<R: Read>(
    lines: &mut LineReader<R>,
    bytes: &mut Vec<u8>,
    size: usize,
) -> io::Result<bool> {
    let goal = bytes.len() + size;
    while bytes.len() < goal {
        if lines.read_rest(bytes, goal - bytes.len())? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// How many batch sizes of lines [`run`] holds in one batch at most while
/// no line where a batch may end comes.
pub const MAX_UNCUT: usize = 16;

/// How [`run`] ended.
#[derive(Debug)]
pub enum End {
    /// Every line was read and every batch emitted, or `emit` stopped.
    Done,
    /// No line where a batch may end came within [`MAX_UNCUT`] batch
    /// sizes: every batch before these lines was emitted, and the caller
    /// reads these lines, then the rest of the input, on its own.
    Uncut(Lines),
    /// As `Uncut`, for a file that was mapped ([`run_file`]): the lines
    /// not read yet are the rest of the file from this offset, the first
    /// of them numbered so (none is held in memory).
    UncutAt { at: u64, first: u64 },
}

/// Where a batch of [`map::Windows::next_cut_batch`] ends.
#[cfg(unix)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BatchEnd {
    /// Before a line where the next batch may start.
    Cut,
    /// At the end of the file.
    Eof,
    /// Nowhere a batch may end came within the most bytes a batch holds.
    Uncut,
}

/// Reads the rest of `lines` in batches, has `workers` (one thread each)
/// work on them, and hands every batch to `emit` in input order.
///
/// A batch of `batch_bytes` or more ends before the next line for which
/// `cut` is true: `cut` sees, in order, each line read after a batch
/// has filled, until it says yes (then the next batch fills, without it,
/// before it sees the next lines). So a batch may end only where a worker
/// with no knowledge of the lines before can take over (between games,
/// say); for records of one line each, [`run_lines`]. A batch that grows
/// to [`MAX_UNCUT`] times `batch_bytes` with no such line ends the
/// parallel reading ([`End::Uncut`]), so that memory stays bounded.
///
/// The threads start with the second batch: an input of one batch is
/// worked on by the calling thread, with the first worker.
///
/// `emit` returns whether to go on; `Ok(false)` stops reading (`-q` has
/// its answer).
///
/// # Errors
///
/// A read error ([`Failure::Read`]) comes after every batch before it was
/// emitted, the lines read before the error included (in a batch marked
/// [`Batch::cut_short`]); an error of `emit` ([`Failure::Write`]) stops
/// at once.
pub fn run<R, W, C, E>(
    lines: &mut LineReader<R>,
    workers: Vec<W>,
    batch_bytes: usize,
    mut cut: C,
    mut emit: E,
) -> Result<End, Failure>
where
    R: Read,
    W: Work,
    C: FnMut(&Line<'_>) -> bool,
    E: FnMut(&mut Batch) -> io::Result<bool>,
{
    let max = batch_bytes.saturating_mul(MAX_UNCUT);
    thread::scope(|scope| {
        let mut pool = Pool { idle: workers, order: None };
        let mut spare: Vec<Batch> = vec![];
        let mut batch = Batch::default();
        let read = loop {
            let full = batch.lines.len() >= batch_bytes;
            if !full {
                match batch.lines.take(lines, batch_bytes) {
                    Ok(0) => {}
                    Ok(_) => continue,
                    Err(e) => break Err(e),
                }
            }
            let line = match lines.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            };
            if !full {
                batch.lines.push(line);
                continue;
            }
            if !cut(&line) {
                batch.lines.push(line);
                if batch.lines.len() > max {
                    if !pool.drain(&mut emit)? {
                        return Ok(End::Done);
                    }
                    return Ok(End::Uncut(batch.lines));
                }
                continue;
            }
            let mut next = spare.pop().unwrap_or_default();
            next.lines.push(line);
            let mut full = std::mem::replace(&mut batch, next);
            full.cut = true;
            if !pool.pass(scope, full, &mut spare, &mut emit)? {
                return Ok(End::Done);
            }
        };
        if !pool.finish(scope, Some(batch), read.is_err(), &mut emit)? {
            return Ok(End::Done);
        }
        read.map(|()| End::Done).map_err(Failure::Read)
    })
}

/// [`run`] for an input that is a file, `file`, read by `lines` so far:
/// the rest of the file is mapped into memory a window at a time, and
/// each batch is a range of a window, as [`run_file_lines`] reads one,
/// with no copy of its bytes. `cut` sees each line (without its line
/// end) and its line end after a batch has filled, as in [`run`]. A batch
/// that finds no cut ends the parallel reading with
/// [`End::UncutAt`].
///
/// Falls back to [`run`] where mapping does not work (not a unix
/// system, not a regular file, a mapping refused).
///
/// # Errors
///
/// As [`run`].
pub fn run_file<R, W, C, E>(
    lines: &mut LineReader<R>,
    file: Option<&File>,
    numbers: Numbers,
    workers: Vec<W>,
    batch_bytes: usize,
    mut cut: C,
    emit: E,
) -> Result<End, Failure>
where
    R: Read,
    W: Work,
    C: FnMut(&[u8], LineEnd) -> bool,
    E: FnMut(&mut Batch) -> io::Result<bool>,
{
    #[cfg(unix)]
    if let Some(file) = file {
        let size =
            file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
        // A BOM that starts the input is no part of its first line.
        lines.skip_start().map_err(Failure::Read)?;
        let start = lines.consumed();
        if let Some(size) = size.filter(|&size| size > start) {
            let first = lines.number() + 1;
            let mut windows = map::Windows::new(file, start, size);
            // The first window mapped, or reading goes the usual way.
            if windows.probe().is_ok() {
                let read = (windows, first, numbers);
                return run_mapped_cut(read, workers, batch_bytes, cut, emit);
            }
        }
    }
    let _ = file;
    let cut = |line: &Line<'_>| cut(line.content(), line.end());
    run(lines, workers, batch_bytes, cut, emit)
}

/// [`run_file`] once the file is known to be mappable: its windows from
/// where reading starts, the number of the first line there, and who
/// numbers the lines.
///
/// With [`Numbers::Worker`], the worker counts its batch's line ends as
/// it reads it and says how many with [`Lines::counted`] (its lines
/// numbered from 1); before `emit` sees a batch, its diagnostics are
/// numbered as in the input, and [`Lines::first`] is its first line's
/// number in the input (for reading it again there).
#[cfg(unix)]
fn run_mapped_cut<W, C, E>(
    read: (map::Windows<'_>, u64, Numbers),
    workers: Vec<W>,
    batch_bytes: usize,
    mut cut: C,
    mut user_emit: E,
) -> Result<End, Failure>
where
    W: Work,
    C: FnMut(&[u8], LineEnd) -> bool,
    E: FnMut(&mut Batch) -> io::Result<bool>,
{
    let (mut windows, first, numbers) = read;
    let numbering = Numbering::new(numbers, first);
    let shrink = windows.shrink();
    let mut emit = |b: &mut Batch| numbering.emit(&shrink, b, &mut user_emit);
    let batch_bytes = batch_bytes.max(1);
    // What a batch may hold: as for `run`, but no more than a window past
    // its size, which is mapped whole (and counts in the memory used)
    // while the batches before it hold theirs.
    let max = batch_bytes
        .saturating_mul(MAX_UNCUT)
        .min(batch_bytes.saturating_add(WINDOW));
    let result = thread::scope(|scope| {
        let mut pool = Pool { idle: workers, order: None };
        let mut spare: Vec<Batch> = vec![];
        let mut batch: Option<Batch> = None;
        loop {
            let (range, how) =
                match windows.next_cut_batch(batch_bytes, max, &mut cut) {
                    Ok(Some(next)) => next,
                    Ok(None) => break,
                    Err(e) => {
                        let batch = batch.take();
                        if !pool.finish(scope, batch, true, &mut emit)? {
                            return Ok(End::Done);
                        }
                        return Err(Failure::Read(e));
                    }
                };
            let mut next = spare.pop().unwrap_or_default();
            numbering.fill(&mut next, windows.current(), range);
            next.cut = how == BatchEnd::Cut;
            if let Some(full) = batch.take() {
                if !pool.pass(scope, full, &mut spare, &mut emit)? {
                    return Ok(End::Done);
                }
            }
            if how == BatchEnd::Uncut {
                if !pool.drain(&mut emit)? {
                    return Ok(End::Done);
                }
                let at = windows.pos() - next.lines.len() as u64;
                let first = numbering.first_of(&next);
                return Ok(End::UncutAt { at, first });
            }
            batch = Some(next);
        }
        pool.finish(scope, batch, false, &mut emit)?;
        Ok(End::Done)
    });
    shrunk(result, &shrink)
}

/// The workers: idle until the second batch, then on threads of their own.
struct Pool<W> {
    idle: Vec<W>,
    order: Option<Order<W>>,
}

impl<W: Work> Pool<W> {
    /// Sends the full `batch` to a worker, and emits the oldest batch if
    /// it came back, keeping it in `spare` for reuse; false if `emit`
    /// stopped.
    fn pass<'scope, E>(
        &mut self,
        scope: &'scope thread::Scope<'scope, '_>,
        batch: Batch,
        spare: &mut Vec<Batch>,
        emit: &mut E,
    ) -> Result<bool, Failure>
    where
        W: 'scope,
        E: FnMut(&mut Batch) -> io::Result<bool>,
    {
        if let (None, [worker]) = (&self.order, &mut self.idle[..]) {
            // One worker: no thread, the batch is worked on here.
            let mut batch = batch;
            work_on(worker, &mut batch);
            if !emit(&mut batch).map_err(Failure::Write)? {
                return Ok(false);
            }
            batch.clear();
            spare.push(batch);
            return Ok(true);
        }
        if let Some(mut done) = self.send(scope, batch) {
            if !emit(&mut done).map_err(Failure::Write)? {
                return Ok(false);
            }
            done.clear();
            spare.push(done);
        }
        Ok(true)
    }

    /// Has the last `batch`, if any, worked on (cut short if the input
    /// failed after it) and emits every batch still in flight; false if
    /// `emit` stopped.
    fn finish<'scope, E>(
        &mut self,
        scope: &'scope thread::Scope<'scope, '_>,
        batch: Option<Batch>,
        failed: bool,
        emit: &mut E,
    ) -> Result<bool, Failure>
    where
        W: 'scope,
        E: FnMut(&mut Batch) -> io::Result<bool>,
    {
        if let Some(mut batch) = batch.filter(|b| !b.lines.is_empty()) {
            batch.cut_short = failed;
            if let Some(mut done) = self.last(scope, batch) {
                if !emit(&mut done).map_err(Failure::Write)? {
                    return Ok(false);
                }
            }
        }
        self.drain(emit)
    }

    /// Sends `batch` to a worker thread, starting the threads the first
    /// time; returns the oldest batch if it had to be taken back first.
    fn send<'scope>(
        &mut self,
        scope: &'scope thread::Scope<'scope, '_>,
        batch: Batch,
    ) -> Option<Batch>
    where
        W: 'scope,
    {
        let order = match &mut self.order {
            Some(order) => order,
            None => {
                let workers = std::mem::take(&mut self.idle);
                self.order.insert(Order::start(scope, workers))
            }
        };
        order.send(batch)
    }

    /// Has the last batch worked on: on this thread with the first worker
    /// if no thread was started, so that a small input starts none.
    fn last<'scope>(
        &mut self,
        scope: &'scope thread::Scope<'scope, '_>,
        mut batch: Batch,
    ) -> Option<Batch>
    where
        W: 'scope,
    {
        match (&self.order, self.idle.first_mut()) {
            (None, Some(worker)) => {
                work_on(worker, &mut batch);
                Some(batch)
            }
            _ => self.send(scope, batch),
        }
    }

    /// Emits every batch in flight, in order; false if `emit` stopped.
    fn drain<E>(&mut self, emit: &mut E) -> Result<bool, Failure>
    where
        E: FnMut(&mut Batch) -> io::Result<bool>,
    {
        let Some(order) = &mut self.order else { return Ok(true) };
        while let Some(mut done) = order.take() {
            if !emit(&mut done).map_err(Failure::Write)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The channels to and from the workers, and the batches in flight.
///
/// The workers share one queue: whichever is free takes the next batch,
/// so that one slow batch (or a worker the system gave its core to the
/// reading thread for a while) holds up no other worker. Batches come
/// back in any order and are put back in input order here.
///
/// The reading thread is one of the workers: it starts a thread for each
/// of the others, and while the oldest batch in flight is not back, it
/// works on the next queued batch itself rather than wait. So `n`
/// workers are `n` busy threads, not `n` and a reading thread that wakes
/// for each batch, to take it back and send the next, on a core that a
/// worker then gives up (on two cores, a third of the time of a batch of
/// pbi2csv went so).
struct Order<W> {
    /// The queue of batches to work on, each with its place in the input.
    to: mpsc::SyncSender<(u64, Batch)>,
    /// The same queue, as the worker threads take from it.
    queue: Arc<Mutex<mpsc::Receiver<(u64, Batch)>>>,
    /// The batches worked on, in the order they were finished.
    from: mpsc::Receiver<(u64, Batch)>,
    /// The batches in flight from the oldest on: those back already.
    back: VecDeque<Option<Batch>>,
    /// The place in the input of the oldest batch in flight.
    oldest: u64,
    /// How many batches may be in flight.
    limit: usize,
    /// The reading thread's own worker.
    mine: W,
}

impl<W: Work> Order<W> {
    /// Starts a thread for each of `workers` but one (at least two), kept
    /// for the reading thread.
    fn start<'scope>(
        scope: &'scope thread::Scope<'scope, '_>,
        mut workers: Vec<W>,
    ) -> Order<W>
    where
        W: 'scope,
    {
        let limit = in_flight(workers.len());
        let mine = workers.pop().expect("two workers or more");
        let (to, queue) = mpsc::sync_channel::<(u64, Batch)>(limit);
        let queue = Arc::new(Mutex::new(queue));
        let (done, from) = mpsc::channel();
        for mut worker in workers {
            let (queue, done) = (Arc::clone(&queue), done.clone());
            scope.spawn(move || loop {
                // The lock is held while waiting: the other workers wait
                // for it instead of for the queue.
                let next = queue.lock().map(|queue| queue.recv());
                let Ok(Ok((place, mut batch))) = next else { break };
                work_on(&mut worker, &mut batch);
                if done.send((place, batch)).is_err() {
                    break;
                }
            });
        }
        let back = VecDeque::new();
        Order { to, queue, from, back, oldest: 0, limit, mine }
    }

    /// Sends `batch` to the workers; first takes back the oldest batch if
    /// as many as may be are in flight, and returns it.
    fn send(&mut self, batch: Batch) -> Option<Batch> {
        let done =
            if self.back.len() == self.limit { self.take() } else { None };
        let place = self.oldest + self.back.len() as u64;
        self.to.send((place, batch)).expect("a worker thread stopped early");
        self.back.push_back(None);
        done
    }

    /// The oldest batch in flight, once a worker is done with it: until
    /// then, this thread works on queued batches, and waits only when
    /// none is left.
    fn take(&mut self) -> Option<Batch> {
        while self.back.front().is_some_and(Option::is_none) {
            let (place, batch) = match self.from.try_recv() {
                Ok(done) => done,
                Err(_) => match self.queued() {
                    Some((place, mut batch)) => {
                        work_on(&mut self.mine, &mut batch);
                        (place, batch)
                    }
                    None => self
                        .from
                        .recv()
                        .expect("a worker thread stopped early"),
                },
            };
            self.back[(place - self.oldest) as usize] = Some(batch);
        }
        self.oldest += 1;
        self.back.pop_front().flatten()
    }

    /// The next queued batch, if there is one. A worker thread that
    /// waits for the queue holds its lock, and then the queue is empty.
    fn queued(&self) -> Option<(u64, Batch)> {
        self.queue.try_lock().ok()?.try_recv().ok()
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
            batch.lines.each(|line| {
                let upper = line.raw().iter().map(u8::to_ascii_uppercase);
                batch.out.extend(upper);
                batch.selected += u64::from(line.content().contains(&b'x'));
                if line.content().contains(&b'!') {
                    let d = Diagnostic::warning(line.number(), "!");
                    batch.diagnostics.push(d);
                }
            });
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

    /// Gives `.0` in pieces of 1 to `.1` bytes.
    struct Pieces<'a>(&'a [u8], usize, Rng);

    impl Read for Pieces<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n =
                (1 + self.2.below(self.1)).min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn parallel(
        input: &[u8],
        threads: usize,
        batch_bytes: usize,
    ) -> (Vec<u8>, Vec<Diagnostic>, u64) {
        let pieces =
            Pieces(input, 1 + batch_bytes % 50, Rng::new(batch_bytes as u64));
        let mut lines = LineReader::with_capacity(7, pieces);
        let (mut out, mut diagnostics, mut selected) = (vec![], vec![], 0);
        let workers = (0..threads).map(|_| Upper).collect();
        run_lines(&mut lines, workers, batch_bytes, |b| {
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
        const BYTES: &[&[u8]] = &[
            b"a",
            b"x",
            b"!",
            b"b",
            b" ",
            b"\n",
            b"\r",
            b"\r\n",
            b"\xc2",
            b"\x85",
            b"\xe2",
            b"\x80",
            b"\xa8",
            b"\xc2\x85",
            b"\xe2\x80\xa8",
        ];
        let mut rng = Rng::new(3);
        for _ in 0..300 {
            let len = rng.below(2000);
            let input: Vec<u8> = (0..len)
                .flat_map(|_| BYTES[rng.below(BYTES.len())])
                .copied()
                .collect();
            let threads = 1 + rng.below(4);
            let batch_bytes = 1 + rng.below(200);
            assert_eq!(
                parallel(&input, threads, batch_bytes),
                sequential(&input),
                "{threads} threads, batches of {batch_bytes}"
            );
        }
    }

    /// A tool's batches in flight keep within its budget wherever a
    /// batch larger than the default fits in it, and are never smaller
    /// than the default nor larger than eight times it.
    #[test]
    fn batch_size_keeps_the_budget() {
        const MIB: usize = 1 << 20;
        let sizes: Vec<usize> =
            [1, 2, 3, 4, 8, 64].map(|w| batch_bytes(w, 8 * MIB)).into();
        assert_eq!(sizes, [2 * MIB, 2 * MIB, 8 * MIB / 6, MIB, MIB, MIB]);
        for workers in 1..=16 {
            for budget in [0, MIB / 2, 2 * MIB, 8 * MIB, 64 * MIB] {
                let size = batch_bytes(workers, budget);
                assert!((BATCH_BYTES..=8 * BATCH_BYTES).contains(&size));
                if size > BATCH_BYTES {
                    assert!(size * in_flight(workers) <= budget);
                }
            }
        }
    }

    /// However many workers, at most [`MAX_IN_FLIGHT`] batches are out at
    /// once, so that memory does not grow with the threads: 16 workers
    /// that each hold their batch a while are never more than 8 at work.
    #[test]
    fn batches_in_flight_are_bounded_whatever_the_workers() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::time::Duration;

        struct Slow<'a> {
            now: &'a AtomicUsize,
            most: &'a AtomicUsize,
        }
        impl Work for Slow<'_> {
            fn work(&mut self, _: &mut Batch) {
                let now = self.now.fetch_add(1, Ordering::SeqCst) + 1;
                self.most.fetch_max(now, Ordering::SeqCst);
                thread::sleep(Duration::from_millis(2));
                self.now.fetch_sub(1, Ordering::SeqCst);
            }
        }
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let input = b"a line\n".repeat(400);
        let mut lines = LineReader::new(&input[..]);
        let workers =
            (0..16).map(|_| Slow { now: &now, most: &most }).collect();
        let mut batches = 0;
        run_lines(&mut lines, workers, 8, |_| {
            batches += 1;
            Ok(true)
        })
        .unwrap();
        assert!(batches > 100, "{batches} batches");
        let most = most.load(Ordering::SeqCst);
        assert!((2..=MAX_IN_FLIGHT).contains(&most), "{most} at work");
    }

    /// A file mapped a window at a time gives the batches that reading
    /// it gives: with every line end, after a first part read line by
    /// line (so from any offset), with lines across windows and a line
    /// longer than a window, and the last line without a line end.
    #[cfg(unix)]
    #[test]
    fn mapped_files_are_read_as_read_files() {
        const BYTES: &[&[u8]] = &[
            b"a",
            b"x",
            b"!",
            b" ",
            b"\n",
            b"\n",
            b"\r",
            b"\r\n",
            b"\xc2",
            b"\x85",
            b"\xe2\x80",
            b"\xc2\x85",
            b"\xe2\x80\xa8",
        ];
        let mut rng = Rng::new(9);
        let dir = std::env::temp_dir()
            .join(format!("chesspipe-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for round in 0..18 {
            let len = [100, 3000, 600_000][round % 3];
            let mut input: Vec<u8> = (0..len)
                .flat_map(|_| BYTES[rng.below(BYTES.len())])
                .copied()
                .collect();
            if round == 5 {
                // A line longer than a window.
                let at = input.len() / 2;
                input.splice(at..at, std::iter::repeat_n(b'x', 2 * WINDOW));
            }
            let path = dir.join(format!("{round}.txt"));
            std::fs::write(&path, &input).unwrap();
            let file = File::open(&path).unwrap();
            let mut lines =
                LineReader::with_capacity(64, File::open(&path).unwrap());
            // Some lines read first, as the tools read a first batch.
            let mut head = Batch::default();
            for _ in 0..rng.below(20) {
                match lines.next_line().unwrap() {
                    Some(line) => head.lines.push(line),
                    None => break,
                }
            }
            Upper.work(&mut head);
            let (mut out, mut diagnostics, mut selected) =
                (head.out, head.diagnostics, head.selected);
            let threads = 1 + round % 3;
            let workers = (0..threads).map(|_| Upper).collect();
            let batch_bytes = [1, 100, 70_000][round % 3];
            // Numbered by the reading thread or by the workers.
            let numbers = [Numbers::Reader, Numbers::Worker][round % 2];
            run_file_lines(
                &mut lines,
                Some(&file),
                numbers,
                workers,
                batch_bytes,
                |b| {
                    out.extend_from_slice(&b.out);
                    diagnostics.append(&mut b.diagnostics);
                    selected += b.selected;
                    Ok(true)
                },
            )
            .unwrap();
            assert!(
                (out, diagnostics, selected) == sequential(&input),
                "round {round}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// [`Upper`], slow on some batches, so that later ones come back
    /// first.
    struct Uneven;

    impl Work for Uneven {
        fn work(&mut self, batch: &mut Batch) {
            if batch.lines.first % 3 == 1 {
                thread::sleep(std::time::Duration::from_millis(3));
            }
            Upper.work(batch);
        }
    }

    #[test]
    fn batches_finished_out_of_order_are_emitted_in_order() {
        let input: String = (0..3000)
            .map(|i| format!("line {i}{}\n", "!".repeat(i % 2)))
            .collect();
        let want = sequential(input.as_bytes());
        for threads in [2, 3, 5] {
            let mut lines = LineReader::new(input.as_bytes());
            let (mut out, mut diags, mut selected) = (vec![], vec![], 0);
            let workers = (0..threads).map(|_| Uneven).collect();
            run_lines(&mut lines, workers, 500, |b| {
                out.extend_from_slice(&b.out);
                diags.append(&mut b.diagnostics);
                selected += b.selected;
                Ok(true)
            })
            .unwrap();
            assert!((out, diags, selected) == want, "{threads} threads");
        }
    }

    #[test]
    fn emit_can_stop_early() {
        let input = "a\n".repeat(10_000);
        let mut lines = LineReader::new(input.as_bytes());
        let mut batches = 0;
        let workers = vec![Upper, Upper];
        run_lines(&mut lines, workers, 100, |_| {
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
        let result = run_lines(&mut lines, workers, 64, |b| {
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
        let result = run_lines(&mut lines, workers, 100, |_| {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        });
        assert!(matches!(result, Err(Failure::Write(_))));
    }

    /// Numbers each line within its group (a group starts at a line
    /// beginning with `[`); a batch cut short leaves out its last group.
    /// Right only if batches start where groups do.
    struct Groups;

    impl Work for Groups {
        fn work(&mut self, batch: &mut Batch) {
            groups(batch, false);
        }
    }

    /// [`Groups`] with each line's number too, if `numbered`.
    fn groups(batch: &mut Batch, numbered: bool) {
        let (mut group, mut k) = (vec![], 0);
        batch.lines.each(|line| {
            if line.content().first() == Some(&b'[') {
                batch.out.append(&mut group);
                k = 0;
            }
            k += 1;
            let label = match numbered {
                true => format!("{}:{k} ", line.number()),
                false => format!("{k} "),
            };
            group.extend_from_slice(label.as_bytes());
            group.extend_from_slice(line.raw());
        });
        if !batch.cut_short {
            batch.out.append(&mut group);
        }
    }

    fn starts_group(line: &Line<'_>) -> bool {
        line.content().first() == Some(&b'[')
    }

    /// Random lines, a tenth of them starting groups.
    fn grouped(rng: &mut Rng, lines: usize) -> Vec<u8> {
        let mut input = vec![];
        for _ in 0..lines {
            if rng.below(10) == 0 {
                input.push(b'[');
            }
            input.extend(std::iter::repeat_n(b'x', rng.below(20)));
            input
                .extend_from_slice([&b"\n"[..], b"\r\n", b"\r"][rng.below(3)]);
        }
        input
    }

    #[test]
    fn batches_start_only_where_cut_allows() {
        let mut rng = Rng::new(5);
        for _ in 0..200 {
            let n = rng.below(400);
            let input = grouped(&mut rng, n);
            let mut want = Batch::default();
            let mut lines = LineReader::new(&input[..]);
            while let Some(line) = lines.next_line().unwrap() {
                want.lines.push(line);
            }
            Groups.work(&mut want);
            let threads = 1 + rng.below(3);
            let batch_bytes = 1 + rng.below(100);
            let mut lines = LineReader::with_capacity(7, &input[..]);
            let mut out = vec![];
            let workers = (0..threads).map(|_| Groups).collect();
            let end =
                run(&mut lines, workers, batch_bytes, starts_group, |b| {
                    out.extend_from_slice(&b.out);
                    Ok(true)
                });
            match end.unwrap() {
                End::Done => assert!(out == want.out),
                // Past MAX_UNCUT batch sizes with no group starting.
                End::Uncut(rest) => {
                    let mut batch = Batch { lines: rest, ..Batch::default() };
                    assert!(batch.lines.len() > batch_bytes * MAX_UNCUT);
                    let mut tail = lines.into_rest();
                    tail.read_to_end(&mut batch.lines.bytes).unwrap();
                    Groups.work(&mut batch);
                    out.extend_from_slice(&batch.out);
                    assert!(out == want.out);
                }
                End::UncutAt { .. } => panic!("only a file is mapped"),
            }
        }
    }

    /// [`Groups`] with each line's number.
    struct NumberedGroups;

    impl Work for NumberedGroups {
        fn work(&mut self, batch: &mut Batch) {
            groups(batch, true);
        }
    }

    /// A file cut into mapped batches where `cut` allows reads as the
    /// lines read one by one, whatever the line ends (CR LF, NEL and LS
    /// across the end of what is mapped included), the lines longer than
    /// a window, the last line without an end, a BOM, and the batches
    /// with no cut (the rest read from the file on this thread).
    #[test]
    fn mapped_batches_start_only_where_cut_allows() {
        use std::io::Seek;

        const ENDS: &[&[u8]] =
            &[b"\n", b"\r\n", b"\r", b"\xc2\x85", b"\xe2\x80\xa8"];
        let mut rng = Rng::new(11);
        let dir = std::env::temp_dir()
            .join(format!("chesspipe-mapped-cut-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for round in 0..60 {
            let n = [0, 3, 300, 3000, 40_000][round % 5];
            let mut input = vec![];
            for _ in 0..n {
                if rng.below(10) == 0 {
                    input.push(b'[');
                }
                let long = rng.below(2000) == 0;
                let len = if long { 2 * WINDOW } else { rng.below(40) };
                input.extend(std::iter::repeat_n(b'x', len));
                input.extend_from_slice(ENDS[rng.below(ENDS.len())]);
            }
            if round % 4 == 1 {
                // The last line without its end.
                input.extend_from_slice(b"[last");
            }
            if round % 7 == 2 {
                // A BOM, which is no part of the first line.
                input.splice(0..0, crate::lines::BOM.iter().copied());
            }
            let want = {
                let mut batch = Batch::default();
                let mut lines = LineReader::new(&input[..]);
                while let Some(line) = lines.next_line().unwrap() {
                    batch.lines.push(line);
                }
                NumberedGroups.work(&mut batch);
                batch.out
            };
            let path = dir.join(format!("{round}.txt"));
            std::fs::write(&path, &input).unwrap();
            let file = File::open(&path).unwrap();
            let mut lines =
                LineReader::with_capacity(64, File::open(&path).unwrap());
            let threads = 1 + rng.below(3);
            let batch_bytes = [1, 100, 5000, 70_000][rng.below(4)];
            // As Cuts does: a cut needs a line shown just before, which
            // was not a cut.
            let mut shown = false;
            let cut = |line: &[u8], _: LineEnd| {
                let yes = shown && line.first() == Some(&b'[');
                shown = !yes;
                yes
            };
            let mut out = vec![];
            let workers = (0..threads).map(|_| NumberedGroups).collect();
            let end = run_file(
                &mut lines,
                Some(&file),
                Numbers::Reader,
                workers,
                batch_bytes,
                cut,
                |b| {
                    out.extend_from_slice(&b.out);
                    Ok(true)
                },
            );
            match end.unwrap() {
                End::Done => {}
                End::Uncut(_) => panic!("a file that maps is read mapped"),
                End::UncutAt { at, first } => {
                    let mut rest = &file;
                    rest.seek(io::SeekFrom::Start(at)).unwrap();
                    let mut rdr = LineReader::continuing(rest, first);
                    let mut batch = Batch::default();
                    while let Some(line) = rdr.next_line().unwrap() {
                        batch.lines.push(line);
                    }
                    NumberedGroups.work(&mut batch);
                    out.extend_from_slice(&batch.out);
                }
            }
            assert!(
                out == want,
                "round {round}: {threads} threads, batches of {batch_bytes}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// With no line where a batch may end, reading stops once a batch
    /// holds [`MAX_UNCUT`] batch sizes, after emitting every batch before;
    /// the lines held and the rest of the input are all the caller needs.
    #[test]
    fn a_batch_with_no_cut_ends_the_parallel_reading() {
        let mut input = b"[a\nb\n[c\n".to_vec();
        let long = "y\n".repeat(5000);
        input.extend_from_slice(long.as_bytes());
        input.extend_from_slice(b"[z\nw\n");
        let mut lines = LineReader::new(&input[..]);
        let mut out = vec![];
        let workers = vec![Groups, Groups];
        let end = run(&mut lines, workers, 4, starts_group, |b| {
            out.extend_from_slice(&b.out);
            Ok(true)
        });
        let End::Uncut(rest) = end.unwrap() else { panic!("no cut") };
        assert_eq!(out, b"1 [a\n2 b\n");
        let mut rdr = rest.into_reader_then(lines.into_rest());
        let (mut n, mut read) = (3, vec![]);
        while let Some(line) = rdr.next_line().unwrap() {
            assert_eq!(line.number(), n);
            read.extend_from_slice(line.raw());
            n += 1;
        }
        assert_eq!(n, 5006);
        assert!(read == input[5..]);
    }

    /// A read error: the lines read before it are worked on, in a batch
    /// marked cut short, and the error comes after.
    #[test]
    fn a_read_error_cuts_the_last_batch_short() {
        /// `[g` and a line of `x`s, repeated, then an error.
        struct Failing(Vec<u8>, usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.1 == self.0.len() {
                    return Err(io::Error::other("disk on fire"));
                }
                let n = buf.len().min(self.0.len() - self.1).min(5);
                buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
                self.1 += n;
                Ok(n)
            }
        }
        let input = "[g\nxxxx\n".repeat(100) + "[g\nxx";
        for threads in [1, 2] {
            let failing = Failing(input.as_bytes().to_vec(), 0);
            let mut lines = LineReader::new(failing);
            let mut out = vec![];
            let mut short = vec![];
            let workers = (0..threads).map(|_| Groups).collect();
            let result = run(&mut lines, workers, 50, starts_group, |b| {
                out.extend_from_slice(&b.out);
                short.push(b.cut_short);
                Ok(true)
            });
            assert!(matches!(result, Err(Failure::Read(_))));
            // The last group (`[g`, whose next line was not read whole)
            // is unfinished: left out, as a reader of one input would.
            assert!(out == "1 [g\n2 xxxx\n".repeat(100).as_bytes());
            assert_eq!(short.iter().filter(|&&s| s).count(), 1);
            assert_eq!(short.last(), Some(&true));
        }
    }

    /// An input of one batch is worked on by the calling thread.
    #[test]
    fn one_batch_starts_no_thread() {
        struct Here(thread::ThreadId);
        impl Work for Here {
            fn work(&mut self, batch: &mut Batch) {
                assert_eq!(thread::current().id(), self.0);
                batch.selected = 1;
            }
        }
        let mut lines = LineReader::new(&b"a\nb\n"[..]);
        let here = || Here(thread::current().id());
        let mut batches = 0;
        run_lines(&mut lines, vec![here(), here()], 100, |b| {
            batches += b.selected;
            Ok(true)
        })
        .unwrap();
        assert_eq!(batches, 1);
    }
}
