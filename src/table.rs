//! PBI records as CSV rows: the work of `pbi2csv`.
//!
//! One row per record, in the columns asked for. Values are written
//! straight from the line when a field needs no decoding; otherwise they
//! are decoded into one reused scratch buffer, so a row allocates nothing.

use std::fmt;
use std::io::{self, Read, Write};

use crate::input::{self, Failure, Source};
use crate::lines::{LineReader, BOM};
use crate::msg::Messages;
use crate::output;
use crate::pbi::{self, escape, Field, Item, Parser, Record};

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
    /// Men of each side, kings included: `3+3`.
    Pieces,
}

impl Column {
    /// Every column with its name, the default ones first and in order.
    pub const ALL: [(Column, &'static str); 16] = [
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

    /// All valid names, comma-separated, for a usage message.
    pub fn names() -> String {
        let names: Vec<_> = Column::ALL.iter().map(|c| c.1).collect();
        names.join(",")
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
    mut out: W,
) -> io::Result<()> {
    if config.bom {
        out.write_all(BOM)?;
    }
    let wtr = output::csv_writer(out, config.delimiter);
    let mut table = Table { config, wtr, scratch: Vec::with_capacity(256) };
    if config.header {
        table.header()?;
    }
    input::read_all(sources, msgs, |name, lines, msgs| {
        table.input(name, lines, msgs)
    })?;
    table.wtr.flush()
}

/// The writer and its scratch space.
struct Table<'c, W: Write> {
    config: &'c Config,
    wtr: csv::Writer<W>,
    scratch: Vec<u8>,
}

impl<W: Write> Table<'_, W> {
    fn header(&mut self) -> io::Result<()> {
        let names = self.config.columns.iter().map(|c| c.name());
        self.wtr.write_record(names).map_err(output::csv_io_error)
    }

    /// Writes the records of one input.
    fn input(
        &mut self,
        name: &str,
        lines: &mut LineReader<Box<dyn Read>>,
        msgs: &mut Messages,
    ) -> Result<(), Failure> {
        let opts = pbi::Options { strict: self.config.strict };
        let mut parser = Parser::new(opts);
        while let Some(line) = lines.next_line().map_err(Failure::Read)? {
            if let Some(Item::Record(rec)) = parser.line(line, msgs) {
                self.row(name, &rec).map_err(Failure::Write)?;
            } else if parser.is_rejected() {
                return Ok(());
            }
        }
        parser.finish(msgs);
        Ok(())
    }

    /// Writes one record as a row.
    fn row(&mut self, name: &str, rec: &Record<'_>) -> io::Result<()> {
        for &column in &self.config.columns {
            self.scratch.clear();
            let value =
                value(column, rec, name, self.config.raw, &mut self.scratch);
            let field = match value {
                Value::Raw(bytes) => bytes,
                Value::Scratch => &self.scratch[..],
            };
            self.wtr.write_field(field).map_err(output::csv_io_error)?;
        }
        self.wtr.write_record(None::<&[u8]>).map_err(output::csv_io_error)
    }
}

/// Where a column's value is: in the line itself, or in the scratch
/// buffer.
enum Value<'a> {
    Raw(&'a [u8]),
    Scratch,
}

/// A field decoded, borrowing it when it has no escape.
fn text<'a>(
    raw: &'a [u8],
    keep_raw: bool,
    scratch: &mut Vec<u8>,
) -> Value<'a> {
    if keep_raw || memchr::memchr(b'\\', raw).is_none() {
        Value::Raw(raw)
    } else {
        escape::decode_into(raw, scratch);
        Value::Scratch
    }
}

/// The value of `column` for `rec`, written into `scratch` when it is not
/// a slice of the line.
fn value<'a>(
    column: Column,
    rec: &Record<'a>,
    name: &'a str,
    raw: bool,
    scratch: &mut Vec<u8>,
) -> Value<'a> {
    let field = |f: Field| rec.raw(f);
    match column {
        Column::Position => Value::Raw(rec.position()),
        Column::Stipulation => text(field(Field::Stipulation), raw, scratch),
        Column::Keymove => text(field(Field::Keymove), raw, scratch),
        Column::Status => text(field(Field::Status), raw, scratch),
        Column::Comment => text(field(Field::Comment), raw, scratch),
        Column::SourceNr => text(rec.used_source().raw[0], raw, scratch),
        Column::SourceTitle => text(rec.used_source().raw[1], raw, scratch),
        Column::SourceDate => text(rec.used_source().raw[2], raw, scratch),
        Column::SourcePage => text(rec.used_source().raw[3], raw, scratch),
        Column::Authors if raw => Value::Raw(field(Field::Names)),
        Column::References if raw => Value::Raw(field(Field::References)),
        Column::Awards if raw => Value::Raw(field(Field::Awards)),
        Column::Authors => {
            join(rec.names(), scratch, |name, out| {
                escape::decode_into(name, out)
            });
            Value::Scratch
        }
        Column::References => {
            join(rec.references(), scratch, |s, out| s.write_decoded(out));
            Value::Scratch
        }
        Column::Awards => {
            join(rec.awards(), scratch, |s, out| s.write_decoded(out));
            Value::Scratch
        }
        Column::File => Value::Raw(name.as_bytes()),
        Column::Line => {
            scratch.extend_from_slice(rec.number().to_string().as_bytes());
            Value::Scratch
        }
        Column::Fen => {
            if let Some(board) = rec.board() {
                board.write_fen(scratch);
            }
            Value::Scratch
        }
        Column::Pieces => {
            if let Some(board) = rec.board() {
                write_pieces(board, scratch);
            }
            Value::Scratch
        }
    }
}

/// Appends `w+b`, the men of each side, kings included.
fn write_pieces(board: &crate::board::Board, out: &mut Vec<u8>) {
    use crate::board::Color;
    let (w, b) = (board.men(Color::White), board.men(Color::Black));
    out.extend_from_slice(format!("{w}+{b}").as_bytes());
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
}
