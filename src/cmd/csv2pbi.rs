//! A spreadsheet back to a PBI collection: the work of `csv2pbi`.
//!
//! Reads what pbi2csv writes after a person has edited it, CSV or a
//! workbook, and writes one PBI 1.2 collection. Each row becomes a data
//! line through [`pbi::write`], which escapes exactly what reading needs;
//! the line is then checked as the PBI reader checks it (text that is
//! not UTF-8, the position, the status), or with `--raw` read by the
//! reader itself, so that csv2pbi warns about a record exactly as
//! pbi2csv would, at the row's line.
//!
//! The calling thread reads the rows (CSV through the `csv` crate, a
//! sheet through calamine's cell reader) into chunks of about 256 KiB; a
//! second thread makes each chunk's lines and messages; the calling
//! thread writes them out in order.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom, Write};
use std::sync::{mpsc, Arc};
use std::thread;

use calamine::{DataRef, Reader as _, Xlsx};
use csv::ByteRecord;

use crate::board::Board;
use crate::cmd::csv_rows::{RowScan, RowStart, Unclosed, HEADER_MAX};
use crate::cmd::input::Source;
use crate::cmd::msg::Messages;
use crate::cmd::output::BUFFER_SIZE;
use crate::cmd::pbi2csv::Column;
use crate::cmd::xlsx::{COMMENTS, RECORDS};
use crate::diag::{
    describe, house_style, shown, temp_dir_error, Diagnostic, Failure, Report,
    Severity,
};
use crate::gbr::Men;
use crate::lines::LineReader;
use crate::pbi::write::{self, Fields, Notes, Unwritable};
use crate::pbi::{self, Field, Item, Parser};

/// How to read the sheets and write the collection.
#[derive(Clone, Debug)]
pub struct Config {
    /// The CSV field delimiter.
    pub delimiter: u8,
    /// The values were written by `pbi2csv --raw`: they go in as they
    /// stand.
    pub raw: bool,
    /// Every warning is an error: the row is left out.
    pub strict: bool,
    /// The file whose lines are the comment lines of the output.
    pub comments: Option<Source>,
    /// 1: all on the calling thread; more: a second thread makes the
    /// lines while this one reads (more threads would not help: reading
    /// the CSV is the other half of the work).
    pub threads: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            delimiter: b',',
            raw: false,
            strict: false,
            comments: None,
            threads: 2,
        }
    }
}

/// The columns that are PBI fields (the made ones, `file` to `pieces`,
/// come after them in [`Column::ALL`]).
const DATA_COLUMNS: usize = Column::DEFAULT_COUNT;

/// The data columns, by their place in [`Column::ALL`].
mod col {
    pub const AUTHORS: usize = 0;
    pub const POSITION: usize = 1;
    pub const STIPULATION: usize = 2;
    pub const SOURCE_NR: usize = 3;
    pub const REFERENCES: usize = 7;
    pub const AWARDS: usize = 8;
    pub const KEYMOVE: usize = 9;
    pub const STATUS: usize = 10;
    pub const COMMENT: usize = 11;
}

/// The marker line, with a BOM.
const MARKER: &[u8] = b"\xEF\xBB\xBF#PBI 1.2\n";

/// The first bytes of a zip archive, and so of a workbook.
const ZIP: &[u8] = b"PK\x03\x04";

/// A workbook, read from a file.
type Book = Xlsx<BufReader<File>>;

/// One input, opened.
enum Input {
    Csv(Box<dyn Read>),
    Workbook(Box<Book>),
}

/// Writes the collection of all `sources` to `out`, buffered here.
///
/// # Errors
///
/// Only write errors; input problems go to `msgs`.
pub fn run<W: Write>(
    config: &Config,
    sources: &[Source],
    msgs: &mut Messages,
    out: W,
) -> io::Result<()> {
    let mut inputs = Vec::with_capacity(sources.len());
    for source in sources {
        let name = source.name();
        msgs.set_input(&name);
        match open(source) {
            Ok(input) => inputs.push((name, input)),
            Err(e) => msgs.input_error(e),
        }
    }
    let comments = match &config.comments {
        Some(source) => comment_file(source, msgs),
        None => {
            let mut lines = Vec::new();
            for (name, input) in &mut inputs {
                if let Input::Workbook(book) = input {
                    msgs.set_input(name);
                    workbook_comments(book, &mut lines, msgs);
                }
            }
            lines
        }
    };
    let mut out = io::BufWriter::with_capacity(BUFFER_SIZE, out);
    out.write_all(MARKER)?;
    for line in &comments {
        out.write_all(line)?;
        out.write_all(b"\n")?;
    }
    // This thread reads the rows; one more makes them into lines, in
    // order (with -j1, this one does).
    thread::scope(|scope| {
        let mut pipe = Pipe {
            to: None,
            from: None,
            local: None,
            in_flight: 0,
            spare: Vec::new(),
        };
        if config.threads > 1 {
            let (to, rows) = mpsc::sync_channel::<Chunk>(IN_FLIGHT);
            let (made, from) = mpsc::channel::<Chunk>();
            scope.spawn(move || {
                let mut maker = Maker::new(config);
                for mut chunk in rows {
                    maker.make(&mut chunk);
                    if made.send(chunk).is_err() {
                        break;
                    }
                }
            });
            (pipe.to, pipe.from) = (Some(to), Some(from));
        } else {
            pipe.local = Some(Maker::new(config));
        }
        for (name, input) in inputs {
            msgs.set_input(&name);
            let done = match input {
                Input::Csv(rdr) => pipe.csv(config, rdr, msgs, &mut out),
                Input::Workbook(mut book) => {
                    pipe.workbook(&mut book, &name, msgs, &mut out)
                }
            };
            match done {
                Ok(()) => {}
                Err(Failure::Read(e)) => msgs
                    .input_error(format_args!("read error: {}", describe(&e))),
                Err(Failure::Write(e)) => return Err(e),
            }
        }
        pipe.drain(msgs, &mut out)?;
        out.flush()
    })
}

/// Opens a source and tells CSV from a workbook by its first bytes (once
/// decoded, for a compressed one). A workbook on stdin or compressed is
/// copied to a temporary file first: a zip archive is read from its end.
fn open(source: &Source) -> Result<Input, String> {
    let opened = source.open_file().map_err(|e| describe(&e))?;
    let compressed = opened.compression.is_some();
    let mut rdr = opened.reader;
    let mut head = Vec::with_capacity(ZIP.len());
    (&mut rdr)
        .take(ZIP.len() as u64)
        .read_to_end(&mut head)
        .map_err(|e| format!("read error: {}", describe(&e)))?;
    let rest = io::Cursor::new(head.clone()).chain(rdr);
    if head != ZIP {
        return Ok(Input::Csv(Box::new(rest)));
    }
    let read_error = |e: io::Error| format!("read error: {}", describe(&e));
    let spool = || -> Result<File, String> {
        let mut file = tempfile::tempfile().map_err(|e| {
            let dir = std::env::temp_dir();
            format!(
                "a workbook is read from a copy: {}",
                temp_dir_error(&dir, &e)
            )
        })?;
        io::copy(&mut { rest }, &mut file).map_err(read_error)?;
        file.seek(SeekFrom::Start(0)).map_err(read_error)?;
        Ok(file)
    };
    let file = match source {
        Source::Path(path) if !compressed => {
            File::open(path).map_err(read_error)
        }
        _ => spool(),
    }?;
    let book = Xlsx::new(BufReader::with_capacity(BUFFER_SIZE, file))
        .map_err(|e| {
            format!(
                "not a workbook that can be read: {}",
                house_style(&e.to_string())
            )
        })?;
    Ok(Input::Workbook(Box::new(book)))
}

/// The comment lines of `--comments FILE`: the comment lines of a PBI
/// file, or every non-blank line of any other file, with `# ` put
/// before a line that does not start with `#`.
fn comment_file(source: &Source, msgs: &mut Messages) -> Vec<Vec<u8>> {
    let name = source.name();
    msgs.set_input(&name);
    let mut out = Vec::new();
    let rdr = match source.open() {
        Ok(rdr) => rdr,
        Err(e) => {
            msgs.input_error(describe(&e));
            return out;
        }
    };
    let mut lines = LineReader::new(rdr);
    let mut parser: Option<Parser> = None;
    loop {
        let line = match lines.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                msgs.input_error(format_args!("read error: {}", describe(&e)));
                break;
            }
        };
        if line.number() == 1 && line.content().starts_with(b"#PBI ") {
            parser = Some(Parser::new(pbi::Options::default()));
        }
        let Some(parser) = &mut parser else {
            comment_lines(line.content(), &mut out);
            continue;
        };
        // Only the comment lines: the parser's warnings are about the
        // records, which are not read.
        let mut ignored = Vec::new();
        match parser.line(line, &mut ignored) {
            Some(Item::Comment(line)) => out.push(line.content().to_vec()),
            _ if parser.is_reading_data() => break,
            _ => {}
        }
    }
    out
}

/// Appends the comment lines in `text`: one for each of its lines that
/// is not blank, with `# ` put before one that does not start with `#`.
fn comment_lines(text: &[u8], out: &mut Vec<Vec<u8>>) {
    let mut lines = LineReader::new(text);
    while let Ok(Some(line)) = lines.next_line() {
        let content = line.content();
        if content.iter().all(|&b| b == b' ' || b == b'\t') {
            continue;
        }
        let mut comment = Vec::with_capacity(content.len() + 2);
        if content.first() != Some(&b'#') {
            comment.extend_from_slice(b"# ");
        }
        comment.extend_from_slice(content);
        out.push(comment);
    }
}

/// Appends the comment lines of a workbook's `comments` sheet: the
/// cells of its `comment` column.
fn workbook_comments(
    book: &mut Book,
    out: &mut Vec<Vec<u8>>,
    msgs: &mut Messages,
) {
    if !book.sheet_names().iter().any(|s| s == COMMENTS) {
        return;
    }
    let mut cells = match book.worksheet_cells_reader(COMMENTS) {
        Ok(cells) => cells,
        Err(e) => {
            let e = house_style(&e.to_string());
            msgs.input_error(format_args!("sheet '{COMMENTS}': {e}"));
            return;
        }
    };
    let mut column = None;
    let mut text = Vec::new();
    loop {
        let cell = match cells.next_cell() {
            Ok(Some(cell)) => cell,
            Ok(None) => break,
            Err(e) => {
                let e = house_style(&e.to_string());
                msgs.input_error(format_args!("sheet '{COMMENTS}': {e}"));
                break;
            }
        };
        let (row, col) = cell.get_position();
        text.clear();
        if cell_text(cell.get_value(), &mut text).is_err() {
            continue;
        }
        if row == 0 && text == b"comment" {
            column = Some(col);
        } else if row > 0 && Some(col) == column {
            comment_lines(&text, out);
        }
    }
}

/// The text of a cell as a spreadsheet shows it. Numbers and dates (in
/// a sheet made elsewhere, or typed where the column is not text) are
/// written as the spreadsheet's general format would; a date is its
/// serial number, which the caller warns about (`Ok(true)`).
///
/// # Errors
///
/// A cell holding a spreadsheet error (`#N/A`), as text.
fn cell_text(value: &DataRef<'_>, out: &mut Vec<u8>) -> Result<bool, String> {
    use std::io::Write as _;
    match value {
        DataRef::String(s)
        | DataRef::DateTimeIso(s)
        | DataRef::DurationIso(s) => out.extend_from_slice(s.as_bytes()),
        DataRef::SharedString(s) => out.extend_from_slice(s.as_bytes()),
        DataRef::Int(i) => {
            let _ = write!(out, "{i}");
        }
        DataRef::Float(f) => number(*f, out),
        DataRef::Bool(b) => {
            out.extend_from_slice(if *b { b"TRUE" } else { b"FALSE" })
        }
        DataRef::DateTime(d) => {
            number(d.as_f64(), out);
            return Ok(true);
        }
        DataRef::Error(e) => return Err(format!("the spreadsheet error {e}")),
        DataRef::Empty => {}
    }
    Ok(false)
}

/// A number as a spreadsheet's general format shows it: a whole number
/// without a decimal point.
fn number(f: f64, out: &mut Vec<u8>) {
    use std::io::Write as _;
    let _ = if f.fract() == 0.0 && f.abs() < 1e15 {
        write!(out, "{}", f as i64)
    } else {
        write!(out, "{f}")
    };
}

/// How many characters of the input a message quotes.
const EXCERPT: usize = 40;

/// Where each data column is in a table's rows.
struct Header {
    /// For each data column, its field in a row, if the header has it.
    slots: [Option<usize>; DATA_COLUMNS],
    /// How many fields the header has.
    width: usize,
    /// The header's names, for messages.
    names: Vec<String>,
}

impl Header {
    /// Reads the header row `rec`, at line `n`. An unknown or repeated
    /// column is an error, and is ignored; a header with no data column
    /// at all is not a table of pbi2csv's, and `None`.
    fn new(
        rec: &ByteRecord,
        n: u64,
        report: &mut dyn Report,
    ) -> Option<Header> {
        let mut slots = [None; DATA_COLUMNS];
        let mut seen: Vec<(Column, usize)> = Vec::new();
        let names: Vec<String> = rec
            .iter()
            .map(|name| String::from_utf8_lossy(name).trim().to_string())
            .collect();
        // Reported once it is known that this is a header at all.
        let mut found = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let Some(column) = Column::from_name(name) else {
                found.push(format!(
                    "unknown column '{}' (valid: {}), ignored",
                    shown(name.as_bytes(), EXCERPT),
                    Column::names()
                ));
                continue;
            };
            if let Some(&(_, first)) = seen.iter().find(|s| s.0 == column) {
                found.push(format!(
                    "column '{name}' twice, as field {} and {}: the second \
                     is ignored",
                    first + 1,
                    i + 1
                ));
                continue;
            }
            seen.push((column, i));
            let place = Column::ALL.iter().position(|c| c.0 == column);
            if let Some(slot) = place.and_then(|p| slots.get_mut(p)) {
                *slot = Some(i);
            }
        }
        if slots.iter().all(Option::is_none) {
            let first = names.first().map_or("", String::as_str);
            report.report(Diagnostic::error(
                n,
                format!(
                    "no column of pbi2csv's in the first row (it starts \
                     '{}'; a table written with --no-header cannot be \
                     read): input skipped",
                    shown(first.as_bytes(), EXCERPT)
                ),
            ));
            return None;
        }
        for msg in found {
            report.report(Diagnostic::error(n, msg));
        }
        Some(Header { slots, width: rec.len(), names })
    }

    /// The value of data column `c` in row `rec` (empty when the header
    /// does not have it).
    fn get<'r>(&self, rec: &'r ByteRecord, c: usize) -> &'r [u8] {
        self.slots[c].and_then(|i| rec.get(i)).unwrap_or(b"")
    }

    /// Field `i` of a row, for a message: the column's name, or its
    /// number when it has none.
    fn column(&self, i: usize) -> String {
        match self.names.get(i) {
            Some(name) if !name.is_empty() => format!("the {name} cell"),
            _ => format!("column {}", i + 1),
        }
    }
}

/// About how many bytes of rows go into one [`Chunk`].
const CHUNK_BYTES: usize = 256 * 1024;

/// How many chunks may be on their way to the maker and back.
const IN_FLIGHT: usize = 2;

/// Consecutive rows of one table, as the calling thread read them, and
/// what the maker thread made of them.
#[derive(Default)]
struct Chunk {
    /// The header the rows go by.
    header: Option<Arc<Header>>,
    /// The rows; the first `len` are this chunk's, the rest kept for
    /// reuse.
    records: Vec<ByteRecord>,
    len: usize,
    /// Each row's line (CSV) or row (sheet), for messages.
    numbers: Vec<u64>,
    /// Rows the reader found wrong: reported, not made into lines.
    skip: Vec<bool>,
    /// What the reader found about a row, by its index.
    early: Vec<(usize, Diagnostic)>,
    /// How many bytes the rows hold.
    bytes: usize,
    /// The data lines made, as written out.
    out: Vec<u8>,
    /// The diagnostics of all the rows, in order.
    diagnostics: Vec<Diagnostic>,
}

impl Chunk {
    /// The record to read the next row into.
    fn next(&mut self) -> &mut ByteRecord {
        if self.len == self.records.len() {
            self.records.push(ByteRecord::new());
        }
        &mut self.records[self.len]
    }

    /// Takes the record [`Chunk::next`] lent as row `n`, with the error
    /// that leaves it out, if any.
    fn push(&mut self, n: u64, problem: Option<Diagnostic>) {
        let i = self.len;
        self.bytes += self.records[i].as_slice().len() + 16;
        self.numbers.push(n);
        self.skip.push(problem.is_some());
        if let Some(d) = problem {
            self.early.push((i, d));
        }
        self.len += 1;
    }

    /// Empties the chunk for rows that go by `header`, keeping its
    /// memory.
    fn reset(&mut self, header: &Arc<Header>) {
        self.header = Some(Arc::clone(header));
        self.len = 0;
        self.numbers.clear();
        self.skip.clear();
        self.early.clear();
        self.bytes = 0;
        self.out.clear();
        self.diagnostics.clear();
    }
}

/// The calling thread's end of the maker thread: chunks go there and
/// come back in order (there is one maker), then are written out.
struct Pipe<'c> {
    /// The maker thread's ends, or the maker itself on this thread.
    to: Option<mpsc::SyncSender<Chunk>>,
    from: Option<mpsc::Receiver<Chunk>>,
    local: Option<Maker<'c>>,
    in_flight: usize,
    spare: Vec<Chunk>,
}

impl Pipe<'_> {
    /// An empty chunk for rows that go by `header`.
    fn chunk(&mut self, header: &Arc<Header>) -> Chunk {
        let mut chunk = self.spare.pop().unwrap_or_default();
        chunk.reset(header);
        chunk
    }

    /// Sends `chunk` to the maker; writes out the oldest chunk when too
    /// many are on their way.
    fn send<W: Write>(
        &mut self,
        chunk: Chunk,
        msgs: &mut Messages,
        out: &mut W,
    ) -> io::Result<()> {
        if chunk.len == 0 {
            self.spare.push(chunk);
            return Ok(());
        }
        if let Some(maker) = &mut self.local {
            let mut chunk = chunk;
            maker.make(&mut chunk);
            return self.emit(chunk, msgs, out);
        }
        // The maker stops only when this end is dropped.
        if self.to.as_ref().is_some_and(|to| to.send(chunk).is_ok()) {
            self.in_flight += 1;
        }
        while self.in_flight > IN_FLIGHT {
            self.receive(msgs, out)?;
        }
        Ok(())
    }

    /// Writes out every chunk on its way.
    fn drain<W: Write>(
        &mut self,
        msgs: &mut Messages,
        out: &mut W,
    ) -> io::Result<()> {
        while self.in_flight > 0 {
            self.receive(msgs, out)?;
        }
        Ok(())
    }

    fn receive<W: Write>(
        &mut self,
        msgs: &mut Messages,
        out: &mut W,
    ) -> io::Result<()> {
        let Some(Ok(chunk)) = self.from.as_ref().map(|from| from.recv())
        else {
            return Err(io::Error::other("the maker thread stopped"));
        };
        self.in_flight -= 1;
        self.emit(chunk, msgs, out)
    }

    /// Writes out a chunk made.
    fn emit<W: Write>(
        &mut self,
        mut chunk: Chunk,
        msgs: &mut Messages,
        out: &mut W,
    ) -> io::Result<()> {
        for d in chunk.diagnostics.drain(..) {
            msgs.report(d);
        }
        out.write_all(&chunk.out)?;
        self.spare.push(chunk);
        Ok(())
    }

    /// Reads the rows of a CSV input and has them written.
    fn csv<W: Write>(
        &mut self,
        config: &Config,
        rdr: Box<dyn Read>,
        msgs: &mut Messages,
        out: &mut W,
    ) -> Result<(), Failure> {
        // The scan knows the line each row starts on; the csv reader
        // does not (see `csv_rows`).
        let mut csv = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(config.delimiter)
            .buffer_capacity(BUFFER_SIZE)
            .from_reader(RowScan::new(rdr, config.delimiter));
        let mut rec = ByteRecord::new();
        let first = csv.read_byte_record(&mut rec);
        if let Some((line, head)) = csv.get_ref().too_long() {
            let msg = format!(
                "no header: the first row runs past {} KiB (it starts '{}'; \
                 a table written with --no-header cannot be read): input \
                 skipped",
                HEADER_MAX / 1024,
                shown(head, EXCERPT)
            );
            msgs.report(Diagnostic::error(line, msg));
            return Ok(());
        }
        if !first.map_err(read_failure)? {
            msgs.report(Diagnostic::error(0, "empty: no header row"));
            return Ok(());
        }
        let row = next_row(&mut csv);
        if let Some(open) = row.unclosed {
            let msg = unclosed(open, "the header row", "input skipped");
            msgs.report(Diagnostic::error(open.quote, msg));
            return Ok(());
        }
        let Some(header) = Header::new(&rec, row.line, msgs) else {
            return Ok(());
        };
        let header = Arc::new(header);
        let mut chunk = self.chunk(&header);
        let read = loop {
            match csv.read_byte_record(chunk.next()) {
                Ok(true) => {}
                Ok(false) => break Ok(()),
                Err(e) => break Err(read_failure(e)),
            }
            let row = next_row(&mut csv);
            let rec = &chunk.records[chunk.len];
            let problem = match row.unclosed {
                // Its last field holds the rest of the input, rows and
                // all: not a record, whatever its fields.
                Some(open) => Some(Diagnostic::error(
                    open.quote,
                    unclosed(open, "its row", "row left out"),
                )),
                None => (rec.len() != header.width).then(|| {
                    Diagnostic::error(
                        row.line,
                        format!(
                            "expected {} fields, as in the header row, \
                             found {}",
                            header.width,
                            rec.len()
                        ),
                    )
                }),
            };
            chunk.push(row.line, problem);
            if chunk.bytes >= CHUNK_BYTES {
                let next = self.chunk(&header);
                let full = std::mem::replace(&mut chunk, next);
                self.send(full, msgs, out).map_err(Failure::Write)?;
            }
        };
        self.send(chunk, msgs, out).map_err(Failure::Write)?;
        self.drain(msgs, out).map_err(Failure::Write)?;
        read
    }

    /// Reads the rows of a workbook and has them written: its first
    /// sheet, then the continuation sheets pbi2csv adds after 1,048,576
    /// rows (`records 2`, ...). Messages about a continuation sheet name
    /// it after the file: `book.xlsx[records 2]:17`.
    fn workbook<W: Write>(
        &mut self,
        book: &mut Book,
        name: &str,
        msgs: &mut Messages,
        out: &mut W,
    ) -> Result<(), Failure> {
        let names = book.sheet_names();
        let first = match names.first() {
            Some(first) if first == COMMENTS && names.len() > 1 => &names[1],
            Some(first) => first,
            None => {
                msgs.report(Diagnostic::error(0, "the workbook has no sheet"));
                return Ok(());
            }
        };
        let mut sheets = vec![first.clone()];
        // pbi2csv's continuation sheets follow `records`; any other first
        // sheet is read alone.
        if first == RECORDS {
            while names.contains(&format!("{first} {}", sheets.len() + 1)) {
                sheets.push(format!("{first} {}", sheets.len() + 1));
            }
        }
        for (i, sheet) in sheets.iter().enumerate() {
            if i > 0 {
                msgs.set_input(&format!("{name}[{sheet}]"));
            }
            let read = self.sheet(book, sheet, msgs, out);
            self.drain(msgs, out).map_err(Failure::Write)?;
            read?;
        }
        msgs.set_input(name);
        Ok(())
    }

    /// Reads the rows of one sheet, the first being the header, and has
    /// them written.
    fn sheet<W: Write>(
        &mut self,
        book: &mut Book,
        sheet: &str,
        msgs: &mut Messages,
        out: &mut W,
    ) -> Result<(), Failure> {
        let failed = |e: calamine::XlsxError| {
            let e = house_style(&e.to_string());
            Failure::Read(io::Error::other(format!("sheet '{sheet}': {e}")))
        };
        let mut cells = book.worksheet_cells_reader(sheet).map_err(failed)?;
        let mut row = Row::default();
        let mut header: Option<Arc<Header>> = None;
        let mut chunk: Option<Chunk> = None;
        loop {
            let cell = cells.next_cell().map_err(failed)?;
            let at = cell.as_ref().map(|c| c.get_position().0);
            if row.number.is_some() && at != row.number {
                // The row is complete.
                let n = u64::from(row.number.unwrap_or(0)) + 1;
                match (&header, &mut chunk) {
                    (Some(header), Some(chunk)) => {
                        row.finish(header, chunk, n);
                        if chunk.bytes >= CHUNK_BYTES {
                            let next = self.chunk(header);
                            let full = std::mem::replace(chunk, next);
                            self.send(full, msgs, out)
                                .map_err(Failure::Write)?;
                        }
                    }
                    _ => {
                        let Some(h) = Header::new(&row.fields, n, msgs) else {
                            return Ok(());
                        };
                        let h = Arc::new(h);
                        chunk = Some(self.chunk(&h));
                        header = Some(h);
                    }
                }
                row.clear();
            }
            let Some(cell) = cell else { break };
            let (r, c) = cell.get_position();
            row.number = Some(r);
            row.cell(c as usize, cell.get_value(), header.as_deref());
        }
        match chunk {
            Some(chunk) => self.send(chunk, msgs, out).map_err(Failure::Write),
            None => {
                let msg = format!("sheet '{sheet}' is empty: no header row");
                msgs.report(Diagnostic::error(0, msg));
                Ok(())
            }
        }
    }
}

/// A sheet's row being read, cell by cell.
#[derive(Default)]
struct Row {
    /// The row's index in the sheet, from 0.
    number: Option<u32>,
    fields: ByteRecord,
    /// An error found in a cell: the row is left out.
    problem: Option<String>,
    /// The date cells, for a warning.
    dates: Vec<String>,
    text: Vec<u8>,
}

impl Row {
    fn clear(&mut self) {
        self.number = None;
        self.fields.clear();
        self.problem = None;
        self.dates.clear();
    }

    /// Takes the cell in column `c` (from 0); `header` is `None` while
    /// this is the header row.
    fn cell(
        &mut self,
        c: usize,
        value: &DataRef<'_>,
        header: Option<&Header>,
    ) {
        if self.problem.is_some() {
            return;
        }
        let column = || match header {
            Some(h) => h.column(c),
            None => format!("column {}", c + 1),
        };
        self.text.clear();
        match cell_text(value, &mut self.text) {
            Err(e) => {
                self.problem = Some(format!("{} holds {e}", column()));
                return;
            }
            Ok(true) => self.dates.push(column()),
            Ok(false) => {}
        }
        if header.is_some_and(|h| c >= h.width) {
            if !self.text.is_empty() {
                self.problem = Some(format!(
                    "a value in {}, right of the header's last column",
                    column()
                ));
            }
            return;
        }
        while self.fields.len() < c {
            self.fields.push_field(b"");
        }
        self.fields.push_field(&self.text);
    }

    /// Puts the row, row `n` of the sheet, into `chunk`.
    fn finish(&mut self, header: &Header, chunk: &mut Chunk, n: u64) {
        let i = chunk.len;
        // One warning for the row, however many of its cells are dates.
        if let Some(column) = self.dates.first() {
            let more = match self.dates.len() - 1 {
                0 => String::new(),
                more => format!(" (and {more} more)"),
            };
            chunk.early.push((
                i,
                Diagnostic::warning(
                    n,
                    format!(
                        "{column} is a date: written as its serial number \
                         (format the column as text){more}"
                    ),
                ),
            ));
            self.dates.clear();
        }
        let rec = chunk.next();
        rec.clear();
        for field in &self.fields {
            rec.push_field(field);
        }
        while rec.len() < header.width {
            rec.push_field(b"");
        }
        let problem = self.problem.take();
        chunk.push(n, problem.map(|msg| Diagnostic::error(n, msg)));
    }
}

/// The maker thread's work: rows into data lines, with the PBI reader's
/// warnings about each.
struct Maker<'c> {
    config: &'c Config,
    /// Reads each line made of raw values, as pbi2csv would.
    parser: Parser,
    /// Data lines written so far.
    written: u64,
    /// The lines made of a chunk, each with its LF, and the row of each.
    lines: Vec<u8>,
    rows: Vec<usize>,
    /// What making the lines found, by row, in order.
    notes: Vec<(usize, Diagnostic)>,
    /// A row's diagnostics, while it is made.
    found: Vec<Diagnostic>,
}

impl<'c> Maker<'c> {
    fn new(config: &'c Config) -> Maker<'c> {
        let mut parser = Parser::new(pbi::Options { strict: config.strict });
        let mut marker = LineReader::new(MARKER);
        if let Ok(Some(line)) = marker.next_line() {
            parser.line(line, &mut Vec::new());
        }
        Maker {
            config,
            parser,
            written: 0,
            lines: Vec::with_capacity(CHUNK_BYTES * 2),
            rows: Vec::new(),
            notes: Vec::new(),
            found: Vec::new(),
        }
    }

    /// Makes the rows of `chunk` into data lines in its output, with its
    /// diagnostics in order.
    fn make(&mut self, chunk: &mut Chunk) {
        if self.config.raw {
            self.make_raw(chunk);
        } else {
            self.make_decoded(chunk);
        }
    }

    /// [`Maker::make`] for decoded values: each line is made straight
    /// into the output, and checked as the reader checks a line (which
    /// is all it could find to warn about in a line made so).
    fn make_decoded(&mut self, chunk: &mut Chunk) {
        let Some(header) = chunk.header.clone() else { return };
        let strict = self.config.strict;
        let mut early = chunk.early.drain(..).peekable();
        for i in 0..chunk.len {
            let n = chunk.numbers[i];
            self.found.clear();
            let mut skip = chunk.skip[i];
            while let Some((_, d)) = early.next_if(|e| e.0 == i) {
                skip |= strict;
                self.found.push(d);
            }
            if !skip {
                let rec = &chunk.records[i];
                let start = chunk.out.len();
                let values = std::array::from_fn(|c| header.get(rec, c));
                let fields = Fields::new(rec.as_slice());
                let made = line_of(
                    &values,
                    fields,
                    (n, strict),
                    &mut chunk.out,
                    &mut self.found,
                );
                let failed = made.is_err();
                match made {
                    Ok(()) => {
                        let line = &chunk.out[start..];
                        let (position, status) =
                            (values[col::POSITION], values[col::STATUS]);
                        let found = &mut self.found;
                        check(line, position, status, n, strict, found);
                    }
                    Err(msg) => self.found.push(Diagnostic::error(n, msg)),
                }
                if failed || (strict && !self.found.is_empty()) {
                    chunk.out.truncate(start);
                } else {
                    chunk.out.push(b'\n');
                }
            }
            for mut d in self.found.drain(..) {
                if strict {
                    d.severity = Severity::Error;
                }
                chunk.diagnostics.push(d);
            }
        }
    }

    /// [`Maker::make`] for raw values: the lines are read back by the
    /// PBI reader, which finds whatever pbi2csv would.
    fn make_raw(&mut self, chunk: &mut Chunk) {
        let Some(header) = chunk.header.clone() else { return };
        self.lines.clear();
        self.rows.clear();
        self.notes.clear();
        if self.config.strict {
            // A warning of the reader's (a date cell) leaves the row out.
            for (i, _) in &chunk.early {
                chunk.skip[*i] = true;
            }
        }
        // First every row into a line of its own, then all the lines
        // through one line reader (a reader per line would cost more than
        // the line).
        for i in 0..chunk.len {
            if !chunk.skip[i] {
                self.line(&header, &chunk.records[i], chunk.numbers[i], i);
            }
        }
        let strict = self.config.strict;
        let mut early = chunk.early.drain(..).peekable();
        let mut notes = self.notes.drain(..).peekable();
        let diagnostics = &mut chunk.diagnostics;
        // Reports what the reader and the making found about the rows up
        // to row `last`.
        let mut upto = |last: usize, diagnostics: &mut Vec<Diagnostic>| loop {
            let d = match (early.peek(), notes.peek()) {
                (Some(e), Some(n)) if e.0 <= last && e.0 <= n.0 => {
                    early.next()
                }
                (Some(e), None) if e.0 <= last => early.next(),
                (_, Some(n)) if n.0 <= last => notes.next(),
                _ => break,
            };
            if let Some((_, mut d)) = d {
                if strict {
                    d.severity = Severity::Error;
                }
                diagnostics.push(d);
            }
        };
        let mut lines =
            LineReader::in_place(std::mem::take(&mut self.lines), 1);
        // Reading from memory cannot fail.
        while let Ok(Some(line)) = lines.next_line() {
            let k = (line.number() - 1) as usize;
            let Some(&i) = self.rows.get(k) else { break };
            upto(i, diagnostics);
            let n = chunk.numbers[i];
            if self.written == 0 && line.content().first() == Some(&b'#') {
                let msg = "the first data line would start with '#', which \
                           makes it a comment line (write it as \\x23)";
                diagnostics.push(Diagnostic::error(n, msg));
                continue;
            }
            let start = diagnostics.len();
            if let Some(Item::Record(rec)) =
                self.parser.line(line, diagnostics)
            {
                chunk.out.extend_from_slice(rec.line().raw());
                self.written += 1;
            }
            for d in &mut diagnostics[start..] {
                d.line = n;
            }
        }
        upto(usize::MAX, diagnostics);
        self.lines = lines.into_buffer();
    }

    /// Makes row `i` (`rec`, at line `n`) into a raw data line in
    /// [`Maker::lines`], or notes why it cannot be one.
    fn line(&mut self, header: &Header, rec: &ByteRecord, n: u64, i: usize) {
        let start = self.lines.len();
        self.found.clear();
        let made = raw_line(header, rec, &mut self.lines);
        let keep = match made {
            Ok(()) => !self.config.strict || self.found.is_empty(),
            Err(msg) => {
                self.found.push(Diagnostic::error(n, msg));
                false
            }
        };
        self.notes.extend(self.found.drain(..).map(|d| (i, d)));
        if keep {
            self.lines.push(b'\n');
            self.rows.push(i);
        } else {
            self.lines.truncate(start);
        }
    }
}

/// What the PBI reader checks in a data line made of decoded values, in
/// its order and with its words (FORMATS.md, PBI 5, 8 and 9): text that
/// is not UTF-8, the position, the status. Escapes, fields, lists and
/// subfields need no check: this module wrote them. A test holds these
/// warnings to pbi2csv's on the same records. `strict`: they are errors,
/// and the row is left out.
fn check(
    line: &[u8],
    position: &[u8],
    status: &[u8],
    n: u64,
    strict: bool,
    found: &mut Vec<Diagnostic>,
) {
    if !line.is_ascii() && simdutf8::basic::from_utf8(line).is_err() {
        found.push(Diagnostic::warning(n, pbi::invalid_utf8(strict)));
    }
    if !position.is_empty() {
        let men = Men::scan(position)
            .ok_or(())
            .or_else(|()| Board::parse(position).map(|b| Men::of(&b)));
        let msg = match men {
            Ok(men) => men
                .check()
                .err()
                .map(|e| format!("position has no GBR code: {e}")),
            Err(e) => Some(pbi::bad_position(&e, strict)),
        };
        found.extend(msg.map(|m| Diagnostic::warning(n, m)));
    }
    if !matches!(status, b"" | b"!" | b"*" | b"+" | b"$" | b"?") {
        let msg = pbi::unknown_status(status, strict);
        found.push(Diagnostic::warning(n, msg));
    }
}

/// Appends the data line of a row of decoded values, the data columns'
/// `values`; `fields` has looked at the whole row (most rows need no
/// escape at all). The warnings about line `n` are worded for `strict`.
fn line_of(
    values: &[&[u8]; DATA_COLUMNS],
    fields: Fields,
    (n, strict): (u64, bool),
    line: &mut Vec<u8>,
    found: &mut Vec<Diagnostic>,
) -> Result<(), String> {
    let get = |c: usize| values[c];
    let notes = fields
        .names(get(col::AUTHORS), line)
        .map_err(|e| unwritable(col::AUTHORS, e))?;
    note(col::AUTHORS, notes, (n, strict), found);
    line.push(b':');
    write::raw(Field::Position, get(col::POSITION), line)
        .map_err(|e| unwritable(col::POSITION, e))?;
    line.push(b':');
    fields
        .text(get(col::STIPULATION), line)
        .map_err(|e| unwritable(col::STIPULATION, e))?;
    line.push(b':');
    let used = std::array::from_fn(|i| get(col::SOURCE_NR + i));
    fields
        .source(used, line)
        .map_err(|(i, e)| unwritable(col::SOURCE_NR + i, e))?;
    for c in [col::REFERENCES, col::AWARDS] {
        line.push(b':');
        let notes =
            fields.sources(get(c), line).map_err(|e| unwritable(c, e))?;
        note(c, notes, (n, strict), found);
    }
    for c in [col::KEYMOVE, col::STATUS, col::COMMENT] {
        line.push(b':');
        fields.text(get(c), line).map_err(|e| unwritable(c, e))?;
    }
    Ok(())
}

/// Appends the data line of a row written by `pbi2csv --raw`.
fn raw_line(
    header: &Header,
    rec: &ByteRecord,
    line: &mut Vec<u8>,
) -> Result<(), String> {
    let get =
        |c: usize| header.slots[c].and_then(|i| rec.get(i)).unwrap_or(b"");
    let fields = [
        (col::AUTHORS, Field::Names),
        (col::POSITION, Field::Position),
        (col::STIPULATION, Field::Stipulation),
    ];
    for (c, field) in fields {
        write::raw(field, get(c), line).map_err(|e| raw_unwritable(c, e))?;
        line.push(b':');
    }
    let used = std::array::from_fn(|i| get(col::SOURCE_NR + i));
    write::raw_source(used, line)
        .map_err(|(i, e)| raw_unwritable(col::SOURCE_NR + i, e))?;
    let fields = [
        (col::REFERENCES, Field::References),
        (col::AWARDS, Field::Awards),
        (col::KEYMOVE, Field::Keymove),
        (col::STATUS, Field::Status),
        (col::COMMENT, Field::Comment),
    ];
    for (c, field) in fields {
        line.push(b':');
        write::raw(field, get(c), line).map_err(|e| raw_unwritable(c, e))?;
    }
    Ok(())
}

/// The name of data column `c`.
fn name(c: usize) -> &'static str {
    Column::ALL[c].1
}

fn unwritable(c: usize, e: Unwritable) -> String {
    format!("the {} value {e}", name(c))
}

fn raw_unwritable(c: usize, e: Unwritable) -> String {
    match e {
        Unwritable::Colon | Unwritable::Pipe if c != col::POSITION => {
            format!("the {} value {e} (--raw: escape it as \\xHH)", name(c))
        }
        _ => unwritable(c, e),
    }
}

/// Warns about what writing list column `c` found.
#[inline]
fn note(
    c: usize,
    notes: Notes,
    (n, strict): (u64, bool),
    found: &mut Vec<Diagnostic>,
) {
    if notes != Notes::default() {
        note_found(c, notes, n, strict, found);
    }
}

#[cold]
fn note_found(
    c: usize,
    notes: Notes,
    n: u64,
    strict: bool,
    found: &mut Vec<Diagnostic>,
) {
    let column = name(c);
    // How the text is written: not under --strict, which leaves the row
    // out.
    let how = |how: &str| if strict { String::new() } else { how.to_string() };
    let (items, subfields) = match c {
        col::AUTHORS => ("names", ""),
        col::REFERENCES => ("items", "nr|title|date|page"),
        _ => ("items", "nr|rank|tourney|date"),
    };
    if notes.bare_semicolon {
        found.push(Diagnostic::warning(
            n,
            format!(
                "{column}: a ';' with no space after it{} ({items} are \
                 separated by '; ')",
                how(" is kept as text")
            ),
        ));
    }
    if notes.appended {
        found.push(Diagnostic::warning(
            n,
            format!(
                "{column}: text after '; ' without 3 '|' of its own{}",
                how(" is kept in the last subfield before it")
            ),
        ));
    }
    if let Some(written) = notes.padded {
        found.push(Diagnostic::warning(
            n,
            format!(
                "{column}: {written} subfields, expected 4 ({subfields}){}",
                how(": the missing ones are empty")
            ),
        ));
    }
}

/// Where the row the csv reader has just read starts.
fn next_row<R: Read>(csv: &mut csv::Reader<RowScan<R>>) -> RowStart {
    // Every row is seen starting before the csv reader can give it.
    let unseen = RowStart { line: 0, unclosed: None };
    csv.get_mut().next_row().unwrap_or(unseen)
}

/// The error of a quoted field never closed, in `row`, which is then
/// `done` with.
fn unclosed(open: Unclosed, row: &str, done: &str) -> String {
    format!(
        "a quoted field opened here is never closed: {row} runs to the end \
         of the input (line {}): {done}",
        open.last
    )
}

/// A CSV reading error: the input's, not the output's.
fn read_failure(e: csv::Error) -> Failure {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => Failure::Read(e),
        other => Failure::Read(io::Error::other(format!("{other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use rust_xlsxwriter::{ExcelDateTime, Format, Workbook};

    use super::*;
    use crate::cmd::xlsx::Book as WorkbookOut;

    fn temp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir()
            .join(format!("chesspipe-csv2pbi-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn convert(path: &std::path::Path) -> Vec<u8> {
        let mut out = vec![];
        let sources = [Source::Path(path.into())];
        let mut msgs = Messages::new("csv2pbi");
        run(&Config::default(), &sources, &mut msgs, &mut out).unwrap();
        out
    }

    /// A workbook made elsewhere: numbers and booleans as a spreadsheet
    /// shows them, a date as its serial number, a row with a value right
    /// of the header left out, rows with no cell skipped.
    #[test]
    fn cells_that_are_not_text() {
        let dir = temp("cells");
        let path = dir.join("other.xlsx");
        let mut book = Workbook::new();
        let sheet = book.add_worksheet();
        for (c, name) in ["authors", "source_nr", "source_date", "status"]
            .into_iter()
            .enumerate()
        {
            sheet.write_string(0, c as u16, name).unwrap();
        }
        sheet.write_string(1, 0, "Loyd").unwrap();
        sheet.write_number(1, 1, 7.0).unwrap();
        sheet.write_number(1, 2, 1.5).unwrap();
        sheet.write_boolean(1, 3, true).unwrap();
        let date = Format::new().set_num_format("yyyy-mm-dd");
        let day = ExcelDateTime::from_ymd(1966, 8, 11).unwrap();
        sheet.write_string(3, 0, "Kling").unwrap();
        sheet.write_datetime_with_format(3, 2, &day, &date).unwrap();
        sheet.write_string(4, 0, "Healey").unwrap();
        sheet.write_string(4, 6, "a note").unwrap();
        book.save(&path).unwrap();
        let out = convert(&path);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "\u{feff}#PBI 1.2\nLoyd:::7||1.5|::::TRUE:\nKling:::||24330|:::::\n"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Continuation sheets are read after the first, in order.
    #[test]
    fn continuation_sheets_are_read_in_order() {
        let dir = temp("continuation");
        let path = dir.join("c.xlsx");
        let columns = vec![("authors", 20.0), ("stipulation", 10.0)];
        let mut book =
            WorkbookOut::with_max_rows(&path, columns, true, 3).unwrap();
        for i in 0..5 {
            let a = format!("A{i}");
            book.check([a.as_bytes(), b"#2"].into_iter()).unwrap();
            book.row().unwrap();
        }
        book.comment("c.pbi", Some(b"# kept")).unwrap();
        book.finish().unwrap();
        let out = String::from_utf8(convert(&path)).unwrap();
        let want: String =
            (0..5).map(|i| format!("A{i}::#2::::::\n")).collect();
        assert_eq!(out, format!("\u{feff}#PBI 1.2\n# kept\n{want}"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
