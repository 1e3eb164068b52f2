//! PBI records as CSV rows: the work of `pbi2csv`.
//!
//! One row per record, in the columns asked for. Values are written
//! straight from the line when a field needs no decoding; otherwise they
//! are decoded into one reused scratch buffer, so a row allocates nothing.

use std::fmt;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use rust_xlsxwriter::XlsxError;

use crate::board::Board;
use crate::cmd::csv_row;
use crate::cmd::input::{self, Source};
use crate::cmd::json;
use crate::cmd::msg::Messages;
use crate::cmd::output::{self, CsvWriter};
use crate::cmd::par::{self, Batch, Work};
use crate::cmd::read_back::Lists;
use crate::cmd::xlsx::{self, Book, Skip};
use crate::decimal;
use crate::diag::{describe, temp_dir_error, Diagnostic, Failure, Report};
use crate::gbr;
use crate::lines::{Line, LineReader, BOM};
use crate::pbi::scan::{self, LineScan};
use crate::pbi::{
    self, class, escape, swar, trim, Field, Item, Parser, Record, Subfields,
};

/// A column of the CSV output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// The names, decoded, joined with `; `.
    Authors,
    /// The position field as written.
    Position,
    /// The stipulation, decoded.
    Stipulation,
    /// Used source: number.
    SourceNr,
    /// Used source: title.
    SourceTitle,
    /// Used source: date.
    SourceDate,
    /// Used source: page.
    SourcePage,
    /// Referenced sources as `nr|title|date|page`, joined with `; `.
    References,
    /// Awards as `nr|rank|tourney|date`, joined with `; `.
    Awards,
    /// The keymove, decoded.
    Keymove,
    /// The status, decoded.
    Status,
    /// The comment, decoded.
    Comment,
    /// The input's name (`<stdin>` for stdin).
    File,
    /// The record's line number.
    Line,
    /// The position as a FEN board field.
    Fen,
    /// The GBR material code, `0116.00`.
    Gbr,
    /// Men of each side, kings included: `3+3`.
    Pieces,
}

impl Column {
    /// Every column with its name, the default ones first and in order.
    pub const ALL: [(Column, &'static str); 17] = [
        (Column::Authors, "authors"),
        (Column::Position, "position"),
        (Column::Stipulation, "stipulation"),
        (Column::SourceNr, "source_nr"),
        (Column::SourceTitle, "source_title"),
        (Column::SourceDate, "source_date"),
        (Column::SourcePage, "source_page"),
        (Column::References, "references"),
        (Column::Awards, "awards"),
        (Column::Keymove, "keymove"),
        (Column::Status, "status"),
        (Column::Comment, "comment"),
        (Column::File, "file"),
        (Column::Line, "line"),
        (Column::Fen, "fen"),
        (Column::Gbr, "gbr"),
        (Column::Pieces, "pieces"),
    ];

    /// How many of [`Column::ALL`] are the default columns.
    pub const DEFAULT_COUNT: usize = 12;

    /// The default columns, in order.
    pub fn defaults() -> Vec<Column> {
        Column::ALL[..Column::DEFAULT_COUNT].iter().map(|c| c.0).collect()
    }

    /// The column with this name.
    pub fn from_name(name: &str) -> Option<Column> {
        Column::ALL.iter().find(|c| c.1 == name).map(|c| c.0)
    }

    /// The column's name in the header row.
    pub fn name(self) -> &'static str {
        Column::ALL.iter().find(|c| c.0 == self).map_or("", |c| c.1)
    }

    /// The columns of a `-c` list, in the order given: column names,
    /// `default` (the default columns) and `all` (every column).
    ///
    /// # Errors
    ///
    /// An unknown name, with the valid ones.
    pub fn list(list: &str) -> Result<Vec<Column>, String> {
        let mut columns = vec![];
        for name in list.split(',').map(str::trim) {
            match name {
                "default" => columns.extend(Column::defaults()),
                "all" => columns.extend(Column::ALL.iter().map(|c| c.0)),
                _ => {
                    columns.push(Column::from_name(name).ok_or_else(|| {
                        format!(
                            "unknown column '{}' (valid: {}; or default, all)",
                            crate::diag::shown(name.as_bytes(), 40),
                            Column::names()
                        )
                    })?)
                }
            }
        }
        Ok(columns)
    }

    /// All valid names, comma-separated, for a usage message.
    pub fn names() -> String {
        let names: Vec<_> = Column::ALL.iter().map(|c| c.1).collect();
        names.join(",")
    }

    /// The column's width in a workbook, in characters: room for most
    /// values of a real collection without hiding the next column.
    pub fn width(self) -> f64 {
        match self {
            Column::Authors => 26.0,
            Column::Position | Column::Fen => 24.0,
            Column::Stipulation => 10.0,
            Column::SourceNr | Column::SourcePage | Column::Line => 8.0,
            Column::SourceTitle => 28.0,
            Column::SourceDate => 12.0,
            Column::References | Column::Awards => 30.0,
            Column::Keymove => 14.0,
            Column::Status | Column::Pieces => 7.0,
            Column::Comment => 40.0,
            Column::File => 16.0,
            Column::Gbr => 9.0,
        }
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How to write the table.
#[derive(Clone, Debug)]
pub struct Config {
    /// The columns, in order.
    pub columns: Vec<Column>,
    /// The field delimiter.
    pub delimiter: u8,
    /// Write the header row.
    pub header: bool,
    /// Fields exactly as in the file: no decoding, lists untouched.
    pub raw: bool,
    /// Start with a UTF-8 BOM.
    pub bom: bool,
    /// Read PBI strictly.
    pub strict: bool,
    /// Worker threads for a large input (1: all on the calling thread).
    pub threads: usize,
    /// JSON Lines instead of CSV: one object per record.
    pub json: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            columns: Column::defaults(),
            delimiter: b',',
            header: true,
            raw: false,
            bom: false,
            strict: false,
            threads: 1,
            json: false,
        }
    }
}

/// Writes every record of every source as CSV to `out`, which should
/// not be buffered: the CSV writer buffers.
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
    if config.json {
        return run_json(config, sources, msgs, out);
    }
    let mut wtr = CsvWriter::new(out, config.delimiter);
    if config.bom {
        wtr.write_raw(BOM);
    }
    let mut table = Table::new(config, wtr);
    if config.header {
        table.header()?;
    }
    input::read_all(sources, msgs, |name, lines, file, msgs| {
        table.input(name, lines, file, msgs)
    })?;
    table.wtr.flush()
}

/// Writes every record of every source as JSON Lines (`--json`): one
/// object per record, the columns its keys, in order (a column named
/// twice is written once). Nothing is joined: `authors` is an array of
/// strings, `references` and `awards` arrays of objects with their four
/// subfields (`nr`, `title`, `date`, `page`; `nr`, `rank`, `tourney`,
/// `date`), `line` a number, and `fen`, `gbr` and `pieces` are `null`
/// when the position has none. Bytes that are not UTF-8 are written as
/// U+FFFD (the reader warns about such a line). One thread reads and
/// writes.
fn run_json<W: Write>(
    config: &Config,
    sources: &[Source],
    msgs: &mut Messages,
    out: W,
) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(output::BUFFER_SIZE, out);
    let mut columns = Vec::with_capacity(config.columns.len());
    for &column in &config.columns {
        if !columns.contains(&column) {
            columns.push(column);
        }
    }
    let (mut object, mut scratch) = (Vec::new(), Vec::new());
    input::read_all(sources, msgs, |name, lines, _file, msgs| {
        let mut parser = Parser::new(pbi::Options { strict: config.strict });
        while let Some(line) = lines.next_line().map_err(Failure::Read)? {
            match parser.line(line, msgs) {
                Some(Item::Record(ref rec)) => {
                    object.clear();
                    json_object(
                        rec,
                        name,
                        &columns,
                        &mut object,
                        &mut scratch,
                    );
                    out.write_all(&object).map_err(Failure::Write)?;
                }
                _ if parser.is_rejected() => return Ok(()),
                _ => {}
            }
        }
        parser.finish(msgs);
        Ok(())
    })?;
    out.flush()
}

/// Appends the JSON object of one record, and a line end.
fn json_object(
    rec: &Record<'_>,
    name: &str,
    columns: &[Column],
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) {
    const SOURCE: [&str; 4] = ["nr", "title", "date", "page"];
    const AWARD: [&str; 4] = ["nr", "rank", "tourney", "date"];
    let row = Row {
        rec,
        name,
        raw: false,
        used: rec.used_source(),
        quote_bits: None,
    };
    out.push(b'{');
    for (i, &column) in columns.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        json::push_string(out, column.name().as_bytes());
        out.push(b':');
        match column {
            Column::Authors => {
                out.push(b'[');
                for (i, author) in rec.names().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    json::push_string(out, &rec.text(author));
                }
                out.push(b']');
            }
            Column::References => {
                json_items(rec, rec.references(), SOURCE, out);
            }
            Column::Awards => json_items(rec, rec.awards(), AWARD, out),
            Column::Line => decimal::push(out, rec.number()),
            _ => {
                scratch.clear();
                let value = match row.value(column, scratch) {
                    Cell::Plain(b) | Cell::Check(b) | Cell::Quoted(b) => b,
                    _ => &scratch[..],
                };
                let made = matches!(
                    column,
                    Column::Fen | Column::Gbr | Column::Pieces
                );
                if made && value.is_empty() {
                    out.extend_from_slice(b"null");
                } else {
                    json::push_string(out, value);
                }
            }
        }
    }
    out.extend_from_slice(b"}\n");
}

/// Appends sources or awards as an array of objects, each with its four
/// subfields under `keys`, decoded.
fn json_items<'a>(
    rec: &Record<'a>,
    items: impl Iterator<Item = Subfields<'a>>,
    keys: [&str; 4],
    out: &mut Vec<u8>,
) {
    out.push(b'[');
    for (n, item) in items.enumerate() {
        out.extend_from_slice(if n > 0 { b",{" } else { b"{" });
        for (i, key) in keys.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            json::push_string(out, key.as_bytes());
            out.push(b':');
            json::push_string(out, &rec.text(item.raw[i]));
        }
        out.push(b'}');
    }
    out.push(b']');
}

/// Writes every record of every source into the workbook `path`
/// (`-o FILE.xlsx`): the records in the first sheet, each input's name
/// and comment lines in the second, `comments`.
///
/// # Errors
///
/// Creating or writing the workbook; input problems go to `msgs`.
pub fn run_workbook(
    config: &Config,
    sources: &[Source],
    msgs: &mut Messages,
    path: &Path,
) -> io::Result<()> {
    let columns = config.columns.iter().map(|&c| (c.name(), c.width()));
    let failed = |e| workbook_error(path, e);
    let mut book =
        Book::new(path, columns.collect(), config.header).map_err(failed)?;
    let mut scratch = Vec::with_capacity(256);
    let mut values = Vec::with_capacity(1024);
    let mut ends = Vec::with_capacity(config.columns.len());
    let mut lists = Lists::new(config);
    input::read_all(sources, msgs, |name, lines, _file, msgs| {
        let opts = pbi::Options { strict: config.strict };
        let mut parser = Parser::new(opts);
        let mut comments = 0;
        let to_book = |e| Failure::Write(workbook_error(path, e));
        while let Some(line) = lines.next_line().map_err(Failure::Read)? {
            let n = line.number();
            match parser.line(line, msgs) {
                Some(Item::Comment(line)) => {
                    comments += 1;
                    let whole = book
                        .comment(name, Some(line.content()))
                        .map_err(to_book)?;
                    if !whole {
                        msgs.report(Diagnostic::warning(
                            n,
                            "comment line not all UTF-8 or longer than a \
                             cell holds: not all of it is in the workbook",
                        ));
                    }
                }
                Some(Item::Record(ref rec))
                    if lists.keep(rec, config.strict, msgs) =>
                {
                    let row = Row {
                        rec,
                        name,
                        raw: config.raw,
                        used: rec.used_source(),
                        quote_bits: None,
                    };
                    values.clear();
                    ends.clear();
                    for &column in &config.columns {
                        scratch.clear();
                        match row.value(column, &mut scratch) {
                            Cell::Plain(b)
                            | Cell::Check(b)
                            | Cell::Quoted(b) => values.extend_from_slice(b),
                            _ => values.extend_from_slice(&scratch),
                        }
                        ends.push(values.len());
                    }
                    let cells = ends.iter().scan(0, |start, &end| {
                        let cell = &values[*start..end];
                        *start = end;
                        Some(cell)
                    });
                    match book.check(cells) {
                        Ok(lossy) => {
                            if lossy {
                                msgs.report(Diagnostic::warning(
                                    n,
                                    "a workbook holds only UTF-8: the bytes \
                                     that are not are written as U+FFFD",
                                ));
                            }
                            book.row().map_err(to_book)?;
                        }
                        Err(Skip::TooLong(col, units)) => {
                            msgs.report(Diagnostic::error(
                                n,
                                format!(
                                    "the {} value has {units} characters, \
                                     more than the {} a spreadsheet cell \
                                     holds: record left out",
                                    config.columns[col],
                                    xlsx::MAX_CELL
                                ),
                            ));
                        }
                    }
                }
                _ if parser.is_rejected() => return Ok(()),
                _ => {}
            }
        }
        if parser.finish(msgs) && comments == 0 {
            book.comment(name, None).map_err(to_book)?;
        }
        Ok(())
    })?;
    book.finish().map_err(failed)
}

/// A workbook error as an I/O error that names the workbook.
fn workbook_error(path: &Path, e: XlsxError) -> io::Error {
    let text = match e {
        XlsxError::IoError(e) => describe(&e),
        XlsxError::TempFileError(dir, e) => temp_dir_error(&dir, &e),
        other => other.to_string(),
    };
    io::Error::other(format!("{}: {text}", path.display()))
}

/// The writer and its scratch space.
struct Table<'c, W: Write> {
    config: &'c Config,
    wtr: CsvWriter<W>,
    scratch: Vec<u8>,
    quote_bits: Option<u8>,
    /// The check that csv2pbi reads the lists back.
    lists: Lists,
    /// Whether the columns are the default ones, in order.
    defaults: bool,
    /// Whether a clean line's row is written straight from its scan
    /// ([`csv_row`]): the default columns, decoded, with commas.
    fast: bool,
    scan: LineScan,
}

impl<'c, W: Write> Table<'c, W> {
    fn new(config: &'c Config, wtr: CsvWriter<W>) -> Table<'c, W> {
        Table {
            config,
            wtr,
            scratch: Vec::with_capacity(256),
            quote_bits: quote_bits(config.delimiter),
            lists: Lists::new(config),
            defaults: config.columns == Column::defaults(),
            fast: config.columns == Column::defaults()
                && config.delimiter == b','
                && !config.raw,
            scan: LineScan::new(),
        }
    }

    fn header(&mut self) -> io::Result<()> {
        let names = self.config.columns.iter().map(|c| c.name().as_bytes());
        self.wtr.row(names)
    }

    /// Writes the records of one input.
    fn input(
        &mut self,
        name: &str,
        lines: &mut LineReader<Box<dyn Read>>,
        file: Option<&File>,
        msgs: &mut Messages,
    ) -> Result<(), Failure> {
        let opts = pbi::Options { strict: self.config.strict };
        let mut parser = Parser::new(opts);
        // Data lines read on this thread: past one batch, the rest goes
        // to the workers.
        let mut data = 0;
        while let Some(line) = lines.next_line().map_err(Failure::Read)? {
            let len = line.raw().len();
            self.line(name, &mut parser, line, false, msgs)
                .map_err(Failure::Write)?;
            if parser.is_rejected() {
                return Ok(());
            }
            if parser.is_reading_data() {
                data += len;
                if data >= par::BATCH_BYTES {
                    return self.parallel(name, &parser, lines, file, msgs);
                }
            }
        }
        parser.finish(msgs);
        Ok(())
    }

    /// Writes the row of one line, if it is a record. `utf8` says that
    /// the line is known to be valid UTF-8.
    #[inline]
    fn line(
        &mut self,
        name: &str,
        parser: &mut Parser,
        line: Line<'_>,
        utf8: bool,
        report: &mut dyn Report,
    ) -> io::Result<()> {
        let mut scan = std::mem::take(&mut self.scan);
        let read = self.fast && scan.read(line.content(), Some(b','));
        let src = line.content();
        let done =
            self.scanned(name, parser, line, src, &scan, read, utf8, report);
        self.scan = scan;
        done
    }

    /// [`Table::line`] for a line that `scan` has read if `read`; `src`
    /// starts with the line's content (and may go on past it).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn scanned(
        &mut self,
        name: &str,
        parser: &mut Parser,
        line: Line<'_>,
        src: &[u8],
        scan: &LineScan,
        read: bool,
        utf8: bool,
        report: &mut dyn Report,
    ) -> io::Result<()> {
        if read {
            if let Some(clean) = parser.clean(&line, scan, utf8) {
                if csv_row::can_write(scan)
                    && !self.lists.may_change(src, scan)
                {
                    let scratch = &mut self.scratch;
                    return csv_row::write(&mut self.wtr, src, scan, scratch);
                }
                let rec = parser.record_of(line, &clean);
                return self.checked_row(name, &rec, report);
            }
        }
        // By reference: moving the record out would copy it.
        if let Some(Item::Record(ref rec)) = parser.line(line, report) {
            self.checked_row(name, rec, report)?;
        }
        Ok(())
    }

    /// Writes one record as a row, unless csv2pbi would read a list of
    /// it back changed under `--strict` ([`Lists::keep`] reports it).
    #[inline(always)]
    fn checked_row(
        &mut self,
        name: &str,
        rec: &Record<'_>,
        report: &mut dyn Report,
    ) -> io::Result<()> {
        if self.lists.keep(rec, self.config.strict, report) {
            return self.row(name, rec);
        }
        Ok(())
    }

    /// Writes the rest of an input's records, made into rows by
    /// [`par`] workers (on this thread for one).
    fn parallel(
        &mut self,
        name: &str,
        parser: &Parser,
        lines: &mut LineReader<Box<dyn Read>>,
        file: Option<&File>,
        msgs: &mut Messages,
    ) -> Result<(), Failure> {
        let workers = (0..self.config.threads)
            .map(|_| Rows {
                table: Table::new(
                    self.config,
                    CsvWriter::in_memory(self.config.delimiter),
                ),
                parser: parser.clone(),
                name,
            })
            .collect();
        // The `line` column writes the lines' numbers out: the reading
        // thread must know them; else the workers count.
        let numbers = match self.config.columns.contains(&Column::Line) {
            true => par::Numbers::Reader,
            false => par::Numbers::Worker,
        };
        // A batch's CSV is larger than its lines: 2 MiB of lines in
        // flight, with their rows, keep to the tools' memory.
        let size = par::batch_bytes(self.config.threads, 2 << 20);
        par::run_file_lines(lines, file, numbers, workers, size, |batch| {
            for d in batch.diagnostics.drain(..) {
                msgs.report(d);
            }
            self.wtr.write_through(&batch.out)?;
            Ok(true)
        })
    }

    /// Writes one record as a row.
    fn row(&mut self, name: &str, rec: &Record<'_>) -> io::Result<()> {
        let row = Row {
            rec,
            name,
            raw: self.config.raw,
            used: rec.used_source(),
            quote_bits: self.quote_bits,
        };
        if self.defaults {
            // The usual case, written out column by column: each value is
            // then known at compile time, with no dispatch per column.
            // Only the first needs to ask whether it is the first.
            self.cell::<false>(&row, Column::Authors);
            self.cell::<true>(&row, Column::Position);
            self.cell::<true>(&row, Column::Stipulation);
            self.cell::<true>(&row, Column::SourceNr);
            self.cell::<true>(&row, Column::SourceTitle);
            self.cell::<true>(&row, Column::SourceDate);
            self.cell::<true>(&row, Column::SourcePage);
            self.cell::<true>(&row, Column::References);
            self.cell::<true>(&row, Column::Awards);
            self.cell::<true>(&row, Column::Keymove);
            self.cell::<true>(&row, Column::Status);
            self.cell::<true>(&row, Column::Comment);
        } else if let Some((&first, rest)) = self.config.columns.split_first()
        {
            self.cell::<false>(&row, first);
            for &column in rest {
                self.cell::<true>(&row, column);
            }
        }
        self.wtr.end_row()
    }

    /// Writes the value of one column; `NEXT` when the row has a field
    /// already.
    #[inline(always)]
    fn cell<const NEXT: bool>(&mut self, row: &Row<'_, '_>, column: Column) {
        self.scratch.clear();
        match row.value(column, &mut self.scratch) {
            Cell::Plain(bytes) => self.wtr.plain_of::<NEXT>(bytes),
            Cell::Check(bytes) => self.wtr.field_of::<NEXT>(bytes),
            Cell::Scratch => self.wtr.field_of::<NEXT>(&self.scratch),
            Cell::ScratchPlain => self.wtr.plain_of::<NEXT>(&self.scratch),
            Cell::Quoted(bytes) => self.wtr.quoted_of::<NEXT>(bytes),
            Cell::ScratchQuoted => self.wtr.quoted_of::<NEXT>(&self.scratch),
        }
    }
}

/// A worker thread of [`Table::parallel`]: its own parser and rows.
struct Rows<'c> {
    table: Table<'c, io::Sink>,
    parser: Parser,
    name: &'c str,
}

impl Work for Rows<'_> {
    fn work(&mut self, batch: &mut Batch) {
        let diagnostics = &mut batch.diagnostics;
        let (table, parser, name) =
            (&mut self.table, &mut self.parser, self.name);
        let lines = &mut batch.lines;
        let by_lf = table.fast && lines.by_lf();
        let utf8 = scan::block_utf8(lines.bytes(), by_lf);
        if by_lf {
            // The lines are found as they are read, up to one that does
            // not end with LF alone; the rest are read the usual way.
            let (bytes, first) = (lines.bytes(), lines.first());
            let mut scan = std::mem::take(&mut table.scan);
            let (stop, next) = scan::each_lf_line(
                bytes,
                first,
                &mut scan,
                Some(b','),
                |at, line, scan, read| {
                    // Writing into a Vec cannot fail.
                    let src = &bytes[at..];
                    let _ = table.scanned(
                        name,
                        parser,
                        line,
                        src,
                        scan,
                        read,
                        utf8,
                        diagnostics,
                    );
                },
            );
            table.scan = scan;
            let mut ended = next - first;
            if stop < bytes.len() {
                let utf8 = utf8 || scan::block_utf8(&bytes[stop..], false);
                ended += lines.each_from(stop, next, |line| {
                    let _ = table.line(name, parser, line, utf8, diagnostics);
                });
            }
            lines.counted(ended);
        } else {
            lines.settle();
            lines.each(|line| {
                let _ = table.line(name, parser, line, utf8, diagnostics);
            });
        }
        table.wtr.swap_rows(&mut batch.out);
    }

    fn finds_line_ends(&self) -> bool {
        true
    }
}

/// Where a column's value is, and whether it may need CSV quotes.
enum Cell<'a> {
    /// A slice of the line that holds no byte CSV must quote.
    Plain(&'a [u8]),
    /// A slice that may need quotes.
    Check(&'a [u8]),
    /// A slice that holds the delimiter and no `"`: quoted as it is.
    Quoted(&'a [u8]),
    /// In the scratch buffer; may need quotes.
    Scratch,
    /// In the scratch buffer, made of bytes of the line that need no
    /// quotes and of `; ` and `|`, which need none with this delimiter.
    ScratchPlain,
    /// In the scratch buffer, made of a field with a comma (the
    /// delimiter) and no `"` or escape.
    ScratchQuoted,
}

/// The [`class`] bits that make a field of the line need CSV quotes with
/// this delimiter; `None` when the delimiter has no class, so that every
/// field is checked. A line never holds CR or LF, which ended it.
fn quote_bits(delimiter: u8) -> Option<u8> {
    let delimiter = match delimiter {
        b',' => class::COMMA,
        b'\t' => class::TAB,
        b';' => class::SEMICOLON,
        b'|' => class::PIPE,
        b':' => class::COLON,
        _ => return None,
    };
    Some(class::QUOTE | delimiter)
}

/// One record being written, with what its columns share.
struct Row<'r, 'a> {
    rec: &'r Record<'a>,
    name: &'r str,
    raw: bool,
    used: Subfields<'a>,
    quote_bits: Option<u8>,
}

impl<'r, 'a: 'r> Row<'r, 'a> {
    /// The value of `column`.
    #[inline(always)]
    fn value(&self, column: Column, scratch: &mut Vec<u8>) -> Cell<'r> {
        let rec = self.rec;
        match column {
            // As written: a position is never decoded (FORMATS.md, PBI 8).
            Column::Position => self.slice(Field::Position, rec.position()),
            Column::Stipulation
            | Column::Keymove
            | Column::Status
            | Column::Comment => {
                let field = match column {
                    Column::Stipulation => Field::Stipulation,
                    Column::Keymove => Field::Keymove,
                    Column::Status => Field::Status,
                    _ => Field::Comment,
                };
                self.text(field, rec.raw(field), scratch)
            }
            Column::SourceNr => {
                self.text(Field::UsedSource, self.used.raw[0], scratch)
            }
            Column::SourceTitle => {
                self.text(Field::UsedSource, self.used.raw[1], scratch)
            }
            Column::SourceDate => {
                self.text(Field::UsedSource, self.used.raw[2], scratch)
            }
            Column::SourcePage => {
                self.text(Field::UsedSource, self.used.raw[3], scratch)
            }
            Column::Authors => self.names(scratch),
            Column::References => self.sources(Field::References, scratch),
            Column::Awards => self.sources(Field::Awards, scratch),
            Column::File => Cell::Check(self.name.as_bytes()),
            Column::Line => {
                decimal::push(scratch, rec.number());
                self.made()
            }
            Column::Fen => {
                // The men are there exactly when the position parses:
                // its FEN is then written from the string itself.
                if rec.men().is_some() {
                    Board::write_fen_of(rec.position(), scratch);
                }
                self.made()
            }
            Column::Gbr => {
                // Only a board with one king a side and at most 8 pawns a
                // side has a code (the reader warned about the others).
                if let Some(men) = rec.men() {
                    if men.check().is_ok() {
                        men.write_code(scratch);
                    }
                }
                self.made()
            }
            Column::Pieces => {
                if let Some(men) = rec.men() {
                    write_pieces(men, scratch);
                }
                self.made()
            }
        }
    }

    /// A value made in the scratch buffer of letters, digits, `/`, `.`
    /// and `+` (a FEN, a GBR code, a count, a line number): plain unless
    /// the delimiter is one of those, which it is not when it has a
    /// [`class`].
    fn made(&self) -> Cell<'r> {
        if self.quote_bits.is_some() {
            Cell::ScratchPlain
        } else {
            Cell::Scratch
        }
    }

    /// A slice of `field` as it stands, when its bits allow.
    fn slice(&self, field: Field, bytes: &'a [u8]) -> Cell<'r> {
        let bits = self.rec.bits(field);
        match self.quote_bits {
            Some(q) if bits & q == 0 => Cell::Plain(bytes),
            // The delimiter is in the field; if `bytes` is all of it, it
            // is in `bytes`.
            Some(_)
                if bits & class::QUOTE == 0
                    && bytes.len() == self.rec.raw(field).len() =>
            {
                Cell::Quoted(bytes)
            }
            _ => Cell::Check(bytes),
        }
    }

    /// A (sub)field of `field` decoded: as it stands unless it holds an
    /// escape.
    fn text(
        &self,
        field: Field,
        raw: &'a [u8],
        scratch: &mut Vec<u8>,
    ) -> Cell<'r> {
        let escaped = self.rec.bits(field) & class::BACKSLASH != 0;
        if self.raw || !escaped || swar::find(raw, b'\\', 0).is_none() {
            return self.slice(field, raw);
        }
        escape::decode_into(raw, scratch);
        Cell::Scratch
    }

    /// The names joined with `; `; the field itself when it is one name
    /// with nothing to trim or decode.
    fn names(&self, scratch: &mut Vec<u8>) -> Cell<'r> {
        let raw = self.rec.raw(Field::Names);
        let special = class::SEMICOLON | class::BACKSLASH;
        if self.raw
            || (self.rec.bits(Field::Names) & special == 0 && trim(raw) == raw)
        {
            return self.slice(Field::Names, raw);
        }
        let rec = self.rec;
        join(rec.names(), scratch, |name, out| rec.decode_into(name, out));
        self.joined(Field::Names)
    }

    /// References or awards, each as `a|b|c|d`, joined with `; `; the
    /// field itself when it is one item of 4 subfields with nothing to
    /// trim or decode.
    fn sources(&self, field: Field, scratch: &mut Vec<u8>) -> Cell<'r> {
        let raw = self.rec.raw(field);
        let special = class::SEMICOLON | class::BACKSLASH;
        let whole = self.rec.bits(field) & special == 0
            && self.rec.pipes(field) >= 3
            && trim(raw) == raw;
        if self.raw || raw.is_empty() || whole {
            return self.slice(field, raw);
        }
        // Each item's four subfields, decoded and joined with `|`, are
        // the item decoded with the missing `|` added: splitting and
        // rejoining at the first three `|` gives the item back, and no
        // escape holds a raw `|`.
        let rec = self.rec;
        // The items as `list` gives them, with their pipes (which
        // trimming keeps).
        let items = swar::split_counting(raw, b';', b'|')
            .map(|(item, pipes)| (trim(item), pipes))
            .filter(|(item, _)| !item.is_empty());
        join(items, scratch, |(item, pipes), out| {
            rec.decode_into(item, out);
            for _ in pipes..3 {
                out.push(b'|');
            }
        });
        self.joined(field)
    }

    /// A list field joined in the scratch buffer: plain when the field
    /// held nothing to decode or quote, and the delimiter is neither `;`,
    /// space nor `|`, which the joining adds.
    fn joined(&self, field: Field) -> Cell<'r> {
        match self.quote_bits {
            Some(q)
                if q & (class::COMMA | class::TAB) != 0
                    && self.rec.bits(field) & (q | class::BACKSLASH) == 0 =>
            {
                Cell::ScratchPlain
            }
            // Trimming never takes a comma away.
            Some(q)
                if q & class::COMMA != 0
                    && self.rec.bits(field)
                        & (class::QUOTE | class::BACKSLASH)
                        == 0 =>
            {
                Cell::ScratchQuoted
            }
            _ => Cell::Scratch,
        }
    }
}

/// Appends the men of each side, kings included: `3+3`.
fn write_pieces(men: &gbr::Men, out: &mut Vec<u8>) {
    let [white, black] = men.counts.map(|side| side.iter().sum::<u8>());
    decimal::push(out, u64::from(white));
    out.push(b'+');
    decimal::push(out, u64::from(black));
}

/// Writes the items with `write`, separated by `; `.
fn join<T>(
    items: impl Iterator<Item = T>,
    out: &mut Vec<u8>,
    mut write: impl FnMut(T, &mut Vec<u8>),
) {
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.extend_from_slice(b"; ");
        }
        write(item, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names_round_trip() {
        for (column, name) in Column::ALL {
            assert_eq!(Column::from_name(name), Some(column));
            assert_eq!(column.name(), name);
        }
        assert_eq!(Column::from_name("author"), None);
        assert_eq!(Column::defaults().len(), 12);
        assert_eq!(Column::defaults()[11], Column::Comment);
    }

    /// The shortcuts that write a value without looking for bytes to
    /// quote (`Plain`, `Quoted` and their scratch forms) write what the
    /// `csv` crate writes for the same values.
    #[test]
    fn quoting_shortcuts_agree_with_the_csv_crate() {
        use crate::lines::LineReader;
        const BYTES: &[&str] = &[
            "a", "b", " ", "\t", ",", ";", "|", ":", "\"", "\\x3a", "\\x2c",
            "\\x22", "\\q", "é", "8/8", "K",
        ];
        let mut rng = crate::testing::Rng::new(5);
        let mut input = String::from("#PBI 1.2\n");
        for _ in 0..3000 {
            for _ in 0..rng.below(60) {
                input.push_str(BYTES[rng.below(BYTES.len())]);
            }
            // At least 8 colons: a record, not an error.
            input.push_str("::::::::\n");
        }
        for delimiter in [b',', b'\t', b';', b'|', b' ', b':'] {
            for raw in [false, true] {
                let config = Config {
                    columns: Column::ALL.iter().map(|&(c, _)| c).collect(),
                    delimiter,
                    raw,
                    ..Config::default()
                };
                let mut table =
                    Table::new(&config, CsvWriter::new(vec![], delimiter));
                let mut want = csv::WriterBuilder::new()
                    .delimiter(delimiter)
                    .terminator(csv::Terminator::Any(b'\n'))
                    .from_writer(vec![]);
                let mut lines = LineReader::new(input.as_bytes());
                let mut parser = Parser::new(pbi::Options::default());
                let mut diagnostics = vec![];
                let mut scratch = vec![];
                while let Some(line) = lines.next_line().unwrap() {
                    let Some(Item::Record(rec)) =
                        parser.line(line, &mut diagnostics)
                    else {
                        continue;
                    };
                    table.row("in.pbi", &rec).unwrap();
                    let row = Row {
                        rec: &rec,
                        name: "in.pbi",
                        raw,
                        used: rec.used_source(),
                        quote_bits: table.quote_bits,
                    };
                    let mut values: Vec<Vec<u8>> = vec![];
                    for &column in &config.columns {
                        scratch.clear();
                        let value = match row.value(column, &mut scratch) {
                            Cell::Plain(b)
                            | Cell::Check(b)
                            | Cell::Quoted(b) => b.to_vec(),
                            _ => scratch.clone(),
                        };
                        values.push(value);
                    }
                    want.write_record(&values).unwrap();
                }
                table.wtr.flush().unwrap();
                let got = std::mem::take(table.wtr.get_mut());
                let want = want.into_inner().unwrap();
                assert!(got.len() > 100_000);
                assert!(
                    got == want,
                    "delimiter {:?}, raw {raw}",
                    delimiter as char
                );
            }
        }
    }

    /// Lines the fast way must get right, or leave to the general way:
    /// escapes of bytes to quote (`\x2c`, `\x22`, `\x0a`, `\x0D`) and of
    /// a colon, commas and quotes, a `|` in a stipulation and a comment,
    /// a status of `??` and others, a digit 9 in a position, blank and
    /// empty list items, a line too long for the scan, a line of two
    /// fields, non-ASCII text with an en dash (E2 80 93, the start of an
    /// LS) and a no-break space (C2 A0, of a NEL); with every line end,
    /// mixed, and cut into batches at random lines: each batch worked on
    /// as a worker does (lines read by their LF up to the first that ends
    /// otherwise, the rest by a line reader, numbered from 1), its rows
    /// and diagnostics are those of the general way.
    #[test]
    fn awkward_lines_in_batches_are_written_as_the_general_way_writes_them() {
        use crate::cmd::par::{Batch, Lines, Work};
        let long =
            format!("Loyd:8/8/8/8/8/8/8/K1k5:#2::::::{}", "x, y".repeat(300));
        let lines: &[&str] = &[
            "Loyd, Samuel:8/8/8/8/8/8/8/K1k5:#2:1|T|1900|:::::",
            "S\\x3at John;Kling:8/8/8/8/8/8/8/K1k5:#2:|Ti\\x2c tle|1900|3::::!:a, b",
            "a\"b:8/8/8/8/8/8/8/K1k5:#2:::::??:x",
            "Kling:8/8/8/8/8/8/8/K1k5:#2:::::??:x",
            "Havel:9/8/8/8/8/8/8/K1k5:h#3::::::",
            "Havel:8/8/8/8/8/8/8/K1k9:h#3::::::",
            " Havel ; ;Kling :3R3B/Q7/5sK1/3s4/3SkSR1/2p2p2/2P2P2/8:s#2:v 3|\u{160}achy|1|2:|A|1900|; 1|B|2|3:1|2|3|4:Qa7-h7:+:x\\x0ay",
            "Havel;;Kling;:8/8/8/8/8/8/8/K1k5:#2::|A|1|;;|B|2|3::::",
            "x\\x22y:8/8/8/8/8/8/8/K1k5:\\x22q\\x22:|\\x22Q\\x22|1|::::$:cr\\x0D",
            "Loyd\\x2c S.:kN6/8/8/8/8/8/8/6nK:#2::|\u{416}, \u{436}|1|:::*:after S. Loyd; Loyd\\x3a 1859",
            "Bl\\xe1thy:8/8/8/8/8/8/8/K1k5::::::?:\u{e9}, \u{2013} dash\u{a0}x",
            "Kling:8/8/8/8/8/8/8/K1k5:#2:1|T|1900|::::!!:bad status",
            "Smith\\x3b John;K:8/8/8/8/8/8/8/K1k5:#2::1|A\\x7cB|2|3:|Pr|T\\x3bU|1::!:a",
            "Smith\\x3bJohn:8/8/8/8/8/8/8/K1k5:#2::1|A|2|3\\x7c4:::!:a",
            "Kling:8/8/8/8/8/8/8/K1k5:a|b:1|T|1900|::::+:c|d",
            "short:line",
            &long,
        ];
        const ENDS: &[&str] = &["\n", "\r\n", "\r", "\u{85}", "\u{2028}"];
        let mut rng = crate::testing::Rng::new(43);
        let mut body = String::new();
        for _ in 0..4000 {
            body.push_str(lines[rng.below(lines.len())]);
            // Mostly LF, as in a real collection.
            let end =
                if rng.below(4) == 0 { rng.below(ENDS.len()) } else { 0 };
            body.push_str(ENDS[end]);
        }
        let body = body.into_bytes();
        let config = Config::default();
        let head = b"\xEF\xBB\xBF#PBI 1.2\nLoyd:8/8/8/8/8/8/8/K1k5:#2::::::\n";
        let start = |fast: bool| {
            let mut table = Table::new(&config, CsvWriter::new(vec![], b','));
            table.fast = fast;
            let mut parser = Parser::new(pbi::Options::default());
            let mut lines = LineReader::new(&head[..]);
            while let Some(line) = lines.next_line().unwrap() {
                parser.line(line, &mut vec![]);
            }
            (table, parser)
        };
        let (mut general, mut p) = start(false);
        let mut want = vec![];
        let mut all = LineReader::continuing(&body[..], 3);
        let mut ends = vec![0];
        while let Some(line) = all.next_line().unwrap() {
            let end = ends.last().unwrap() + line.raw().len();
            ends.push(end);
            general.line("f", &mut p, line, false, &mut want).unwrap();
        }
        general.wtr.flush().unwrap();
        let want_out = std::mem::take(general.wtr.get_mut());
        let read_back = "csv2pbi would read the authors column back changed";
        assert!(want.iter().any(|d| d.message.contains(read_back)));
        for round in 0..8 {
            let (table, parser) = start(true);
            let mut worker = Rows {
                table: Table::new(&config, CsvWriter::in_memory(b',')),
                parser,
                name: "f",
            };
            drop(table);
            let (mut got, mut got_out) = (vec![], vec![]);
            // Cut after random lines (or none: one batch).
            let mut line = 0;
            while line + 1 < ends.len() {
                let n =
                    1 + rng.below(if round == 0 { ends.len() } else { 600 });
                let next = (line + n).min(ends.len() - 1);
                let bytes = body[ends[line]..ends[next]].to_vec();
                let mut batch = Batch {
                    lines: Lines::uncounted(bytes),
                    ..Batch::default()
                };
                worker.work(&mut batch);
                for mut d in batch.diagnostics.drain(..) {
                    // Numbered from 1 in the batch; line 3 starts the body.
                    d.line += 3 + line as u64 - 1;
                    got.push(d);
                }
                got_out.extend_from_slice(&batch.out);
                line = next;
            }
            assert!(got_out == want_out, "round {round}");
            assert_eq!(got, want, "round {round}");
        }
    }

    /// The fast way (rows straight from the scan, lines found by their
    /// LF) writes what the general way writes, and reports the same.
    #[test]
    fn fast_rows_are_the_general_rows() {
        use crate::lines::LineEnd;
        let mut rng = crate::testing::Rng::new(41);
        let mut bytes = vec![];
        for _ in 0..20_000 {
            bytes.extend(crate::testing::pbi_line(&mut rng));
            bytes.push(b'\n');
        }
        let config = Config::default();
        let start = |fast: bool| {
            let mut table = Table::new(&config, CsvWriter::new(vec![], b','));
            table.fast = fast;
            let mut parser = Parser::new(pbi::Options::default());
            let first = b"#PBI 1.2\nLoyd:8/8/8/8/8/8/8/K1k5:#2::::::\n";
            let mut lines = LineReader::new(&first[..]);
            while let Some(line) = lines.next_line().unwrap() {
                parser.line(line, &mut vec![]);
            }
            (table, parser, Vec::new())
        };
        let (mut general, mut p, mut want) = start(false);
        let mut lines = LineReader::continuing(&bytes[..], 3);
        while let Some(line) = lines.next_line().unwrap() {
            general.line("f", &mut p, line, false, &mut want).unwrap();
        }
        let (mut one, mut p, mut got) = start(true);
        let mut lines = LineReader::continuing(&bytes[..], 3);
        while let Some(line) = lines.next_line().unwrap() {
            one.line("f", &mut p, line, false, &mut got).unwrap();
        }
        let (mut batch, mut p, mut got_batch) = start(true);
        let mut scan = LineScan::new();
        scan::each_lf_line(
            &bytes,
            3,
            &mut scan,
            Some(b','),
            |at, line, scan, read| {
                assert_eq!(line.end(), LineEnd::Lf);
                let src = &bytes[at..];
                let utf8 = std::str::from_utf8(line.content()).is_ok();
                batch
                    .scanned(
                        "f",
                        &mut p,
                        line,
                        src,
                        scan,
                        read,
                        utf8,
                        &mut got_batch,
                    )
                    .unwrap();
            },
        );
        let output = |t: &mut Table<'_, Vec<u8>>| {
            t.wtr.flush().unwrap();
            std::mem::take(t.wtr.get_mut())
        };
        let want_out = output(&mut general);
        assert!(want_out.len() > 1_000_000);
        assert!(output(&mut one) == want_out);
        assert!(output(&mut batch) == want_out);
        assert_eq!(got, want);
        assert_eq!(got_batch, want);
        let read_back = "csv2pbi would read the references column back";
        assert!(want.iter().any(|d| d.message.contains(read_back)));
    }
}
