//! Selecting PBI records: the work of `pbi-grep`.
//!
//! A [`Selector`] holds every test the command line asked for, each regex
//! built once. A record is selected when every test passes (the general
//! patterns, each field option, `--status`, `--gbr`, `--pieces`), or,
//! with `-v`, when not. Regexes match the decoded text of a field; a field
//! without `\` is matched where it stands, with no copy.
//!
//! Every line is read as pbi2csv reads it, with the same warnings and
//! errors, whatever the pattern. The speed comes from reading each line
//! fast, not from reading fewer: [`LineScan`] reads a line in one pass,
//! [`Parser::clean`] tells from it that the line gives no diagnostic (as
//! nearly every line does), and when the test is one plain string, the
//! workers search each batch for it at once, as ripgrep searches a
//! buffer, and a clean line is selected by where the string occurs in it.
//! Only a line with something to report, or with an escape where the
//! string may hide, is read the general way ([`Parser::line`], then the
//! record's texts).
//!
//! [`run`] writes the selected records as a PBI file: a BOM, the marker
//! and comment lines of the first PBI input as read, then each selected
//! data line byte for byte with its own line end.

use std::fs::File;
use std::io::{self, Read, Write};
use std::ops::RangeInclusive;

use bstr::ByteSlice;
use memchr::memmem;
use regex::bytes::{Regex, RegexBuilder};

use crate::board::{Color, Kind};
use crate::cmd::input::{self, Source};
use crate::cmd::msg::Messages;
use crate::cmd::par::{self, Batch, Work};
use crate::diag::Failure;
use crate::diag::Report;
use crate::lines::{Line, LineEnd, LineReader, BOM};
use crate::pbi::scan::{self, LineScan};
use crate::pbi::{self, Field, Item, Parser, Record, Subfields};

/// The fields a field option searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `--author`: each name.
    Author,
    /// `--stip`: the stipulation.
    Stipulation,
    /// `--source`: each subfield of the used and the referenced sources.
    Source,
    /// `--award`: each subfield of each award.
    Award,
    /// `--key`: the keymove.
    Keymove,
    /// `--comment`: the comment.
    Comment,
    /// `--position`: the position as written.
    Position,
}

impl Target {
    /// The fields whose texts the target searches.
    fn fields(self) -> &'static [Field] {
        match self {
            Target::Author => &[Field::Names],
            Target::Stipulation => &[Field::Stipulation],
            Target::Source => &[Field::UsedSource, Field::References],
            Target::Award => &[Field::Awards],
            Target::Keymove => &[Field::Keymove],
            Target::Comment => &[Field::Comment],
            Target::Position => &[Field::Position],
        }
    }

    /// The option that names the target.
    pub fn option(self) -> &'static str {
        match self {
            Target::Author => "--author",
            Target::Stipulation => "--stip",
            Target::Source => "--source",
            Target::Award => "--award",
            Target::Keymove => "--key",
            Target::Comment => "--comment",
            Target::Position => "--position",
        }
    }

    /// Every target, in the order `any` text searches them.
    pub const ALL: [Target; 7] = [
        Target::Author,
        Target::Position,
        Target::Stipulation,
        Target::Source,
        Target::Award,
        Target::Keymove,
        Target::Comment,
    ];
}

/// Patterns that do not compile: the first that does not on its own,
/// and what the regex crate says of it, for a message of one line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    /// The pattern at fault; `None` when each compiles on its own but
    /// not all of them together (the size limit).
    pub pattern: Option<String>,
    /// Why, lowercase, with no final period.
    pub reason: String,
}

impl PatternError {
    /// The error of building `patterns` with `opts`, which failed with
    /// `err`.
    fn new(
        patterns: &[String],
        opts: PatternOptions,
        err: &regex::Error,
    ) -> PatternError {
        for p in patterns {
            if let Err(e) = build(std::slice::from_ref(p), opts) {
                let reason = regex_reason(&e);
                return PatternError { pattern: Some(p.clone()), reason };
            }
        }
        PatternError { pattern: None, reason: regex_reason(err) }
    }

    /// The message for the patterns of `option` (`-e`, `--author`):
    /// `--author '[': not a valid regex: unclosed character class`, the
    /// pattern shown with its control characters escaped.
    pub fn message(&self, option: &str) -> String {
        let reason = &self.reason;
        match &self.pattern {
            Some(p) => {
                let p = crate::diag::shown(p.as_bytes(), 80);
                format!("{option} '{p}': not a valid regex: {reason}")
            }
            None => format!("{option}: the patterns together: {reason}"),
        }
    }
}

/// What the regex crate says of a pattern, in one line: the last line of
/// its message (a syntax error shows the pattern, wrapped as [`build`]
/// wraps it, and a caret under the fault above), lowercase, with no
/// final period.
fn regex_reason(err: &regex::Error) -> String {
    let text = err.to_string();
    let last = text.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
    let last = last.trim().trim_start_matches("error: ").trim_end_matches('.');
    let mut chars = last.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => "not a valid regex".to_string(),
    }
}

/// How patterns are read.
#[derive(Clone, Copy, Debug, Default)]
pub struct PatternOptions {
    /// `-i`: case-insensitive, Unicode-aware.
    pub ignore_case: bool,
    /// `-F`: patterns are fixed strings.
    pub fixed_strings: bool,
    /// `-w`: a match must be a whole word: no word character just before
    /// or after it.
    pub word: bool,
    /// `-x`: a match must be the whole text (an author, a subfield, a
    /// field).
    pub whole: bool,
}

/// Builds one regex matching any of `patterns`.
///
/// # Errors
///
/// The regex crate's message for a pattern that does not compile.
pub fn build(
    patterns: &[String],
    opts: PatternOptions,
) -> Result<Regex, regex::Error> {
    let parts: Vec<String> = patterns
        .iter()
        .map(|p| {
            let p =
                if opts.fixed_strings { regex::escape(p) } else { p.clone() };
            // As ripgrep's -w and -x; -x wins when both are given.
            if opts.whole {
                format!("^(?:{p})$")
            } else if opts.word {
                format!(r"\b{{start-half}}(?:{p})\b{{end-half}}")
            } else {
                format!("(?:{p})")
            }
        })
        .collect();
    RegexBuilder::new(&parts.join("|"))
        .case_insensitive(opts.ignore_case)
        .build()
}

/// Patterns built once: the regex matching any of them, and, when they
/// are one plain string matched with case, that string's searcher.
///
/// A plain string is searched for with `memmem`, faster than the regex
/// on the short texts of a record. And since every text of a record is a
/// part of its line (when the line holds no escape), a line or field
/// that does not hold the string has no text that matches: one search
/// rules it out, as ripgrep rules out a buffer.
#[derive(Clone, Debug)]
pub struct Pattern {
    re: Regex,
    literal: Option<memmem::Finder<'static>>,
}

impl Pattern {
    /// Builds the patterns.
    ///
    /// # Errors
    ///
    /// The pattern that does not compile, and why.
    pub fn new(
        patterns: &[String],
        opts: PatternOptions,
    ) -> Result<Pattern, PatternError> {
        let re = build(patterns, opts)
            .map_err(|e| PatternError::new(patterns, opts, &e))?;
        // `regex::escape` leaves a string alone when it holds no regex
        // syntax: it then matches exactly where it occurs.
        let literal = match patterns {
            [p] if !opts.ignore_case
                && !opts.word
                && !opts.whole
                && (opts.fixed_strings || regex::escape(p) == *p) =>
            {
                Some(memmem::Finder::new(p.as_bytes()).into_owned())
            }
            _ => None,
        };
        Ok(Pattern { re, literal })
    }

    /// Whether the patterns match `text`.
    pub fn is_match(&self, text: &[u8]) -> bool {
        match &self.literal {
            Some(finder) => finder.find(text).is_some(),
            None => self.re.is_match(text),
        }
    }

    /// Whether no part of `hay` can match: `hay` does not hold the plain
    /// string. Always false for a regex.
    fn rules_out(&self, hay: &[u8]) -> bool {
        self.literal.as_ref().is_some_and(|f| f.find(hay).is_none())
    }

    /// The plain string that [`Pattern::rules_out`] rules texts out by,
    /// if the patterns are one that is not empty (which rules nothing
    /// out).
    fn plain(&self) -> Option<&memmem::Finder<'static>> {
        self.literal.as_ref().filter(|f| !f.needle().is_empty())
    }
}

/// Men on the board, kings included: `7`, `..7`, `8..12`, `13..`.
///
/// # Errors
///
/// A message saying what was expected, with the range meant when `spec`
/// looks like one written otherwise (`7-9`, `12..8`).
pub fn parse_range(spec: &str) -> Result<RangeInclusive<u32>, String> {
    let num = |s: &str| s.parse::<u32>().ok();
    let range = match spec.split_once("..") {
        None => num(spec).map(|n| n..=n),
        Some(("", "")) => None,
        Some(("", hi)) => num(hi).map(|hi| 0..=hi),
        Some((lo, "")) => num(lo).map(|lo| lo..=u32::MAX),
        Some((lo, hi)) => num(lo).zip(num(hi)).map(|(lo, hi)| lo..=hi),
    };
    let shown = crate::diag::shown(spec.as_bytes(), 40);
    match range {
        Some(range) if range.is_empty() => Err(format!(
            "empty range '{shown}' (use {}..{})",
            range.end(),
            range.start()
        )),
        Some(range) => Ok(range),
        None => {
            let mut message = format!(
                "expected a number of men or a range of them (7, ..7, \
                 8..12, 13..), got '{shown}'"
            );
            // `7-9`, `7 - 9`, `7..=9`, `7...9`: the range meant.
            let ends: Vec<&str> = spec
                .split(['-', '.', '=', ' '])
                .filter(|s| !s.is_empty())
                .collect();
            if let [lo, hi] = ends[..] {
                if let (Some(lo), Some(hi)) = (num(lo), num(hi)) {
                    message.push_str(&format!(" (use {lo}..{hi})"));
                }
            }
            Err(message)
        }
    }
}

/// A GBR code or the start of one: up to 4 digits, then `.` and up to
/// 2 (`0023`, `4888.88`).
///
/// # Errors
///
/// A message saying what was expected.
pub fn gbr_prefix(code: &str) -> Result<Vec<u8>, String> {
    let (pieces, pawns) = code.split_once('.').unwrap_or((code, ""));
    let digits = |s: &str, max: usize| {
        s.len() <= max && s.bytes().all(|b| b.is_ascii_digit())
    };
    let dot_ok = !code.contains('.') || pieces.len() == 4;
    if code.is_empty() || !digits(pieces, 4) || !digits(pawns, 2) || !dot_ok {
        return Err(format!(
            "'{}' is not a GBR code or the start of one: expected up to 4 \
             digits, then a point and up to 2 (like 0023 or 4888.88)",
            crate::diag::shown(code.as_bytes(), 40)
        ));
    }
    Ok(code.as_bytes().to_vec())
}

/// Every test a record must pass.
#[derive(Clone, Debug, Default)]
pub struct Selector {
    /// `PATTERN` and `-e`: must match some text of the record.
    pub any: Option<Pattern>,
    /// Field options, each must match one of its field's texts.
    pub fields: Vec<(Target, Pattern)>,
    /// `--status`: the allowed values; `Some("")` means empty only.
    pub status: Option<String>,
    /// `--gbr`: the material code must start with this.
    pub gbr: Option<Vec<u8>>,
    /// `--pieces`: total men on the board, kings included.
    pub pieces: Option<RangeInclusive<u32>>,
    /// `-v`: select the records that do not pass.
    pub invert: bool,
}

impl Selector {
    /// Whether `rec` is selected.
    pub fn selects(&self, rec: &Record<'_>) -> bool {
        self.passes(rec) != self.invert
    }

    /// The selector's one test, when it is a plain string searched for
    /// in whole fields that no separator or blank can stand inside: then
    /// a clean line is selected by where the string occurs in it
    /// ([`Literal`]).
    fn literal(&self) -> Option<Literal> {
        if self.status.is_some() || self.gbr.is_some() || self.pieces.is_some()
        {
            return None;
        }
        let (pattern, fields) = match (&self.any, &self.fields[..]) {
            (Some(p), []) => (p, 0x1ff),
            (None, [(target, p)]) => {
                (p, target.fields().iter().fold(0, |m, &f| m | 1 << f as u16))
            }
            _ => return None,
        };
        let finder = pattern.plain()?;
        // Items are split at `;` and `|` and trimmed of blanks; a line
        // end is not in a line: a string without these is wholly in one
        // text or in none.
        let needle = finder.needle();
        if needle.iter().any(|b| b":;|\\ \t\n\r\x85\xa8".contains(b)) {
            return None;
        }
        let mut bytes = [false; 256];
        for &b in needle {
            bytes[usize::from(b)] = true;
        }
        Some(Literal {
            finder: finder.clone(),
            fields,
            bytes,
            invert: self.invert,
        })
    }

    fn passes(&self, rec: &Record<'_>) -> bool {
        // Without escapes, every text of the record is a part of its line
        // and of its field, as written.
        let plain = !rec.has_escapes();
        if let Some(p) = &self.any {
            if plain && p.rules_out(rec.line().content())
                || !Target::ALL
                    .iter()
                    .any(|&t| texts(rec, t, |s| p.is_match(s)))
            {
                return false;
            }
        }
        let fields_pass = self.fields.iter().all(|(target, p)| {
            let ruled_out = plain
                && target.fields().iter().all(|&f| p.rules_out(rec.raw(f)));
            !ruled_out && texts(rec, *target, |s| p.is_match(s))
        });
        fields_pass
            && self.status.as_ref().is_none_or(|s| status_in(rec, s))
            && self.gbr.as_ref().is_none_or(|code| gbr_starts(rec, code))
            && self.pieces.as_ref().is_none_or(|range| {
                rec.men().is_some_and(|men| {
                    let total =
                        men.counts.iter().flatten().map(|&n| u32::from(n));
                    range.contains(&total.sum())
                })
            })
    }
}

/// Whether `test` holds for one of the texts of `target` in `rec`.
fn texts(
    rec: &Record<'_>,
    target: Target,
    mut test: impl FnMut(&[u8]) -> bool,
) -> bool {
    let mut subfields =
        |s: Subfields<'_>| s.raw.iter().any(|r| test(&rec.text(r)));
    match target {
        Target::Author => rec.names().any(|name| test(&rec.text(name))),
        Target::Position => test(rec.position()),
        Target::Stipulation => test(&rec.decoded(Field::Stipulation)),
        Target::Keymove => test(&rec.decoded(Field::Keymove)),
        Target::Comment => test(&rec.decoded(Field::Comment)),
        Target::Source => {
            let used = rec.raw(Field::UsedSource);
            (!used.is_empty() && subfields(rec.used_source()))
                || rec.references().any(&mut subfields)
        }
        Target::Award => rec.awards().any(subfields),
    }
}

/// Whether the decoded status is one of the characters of `allowed`, or
/// empty when `allowed` is.
fn status_in(rec: &Record<'_>, allowed: &str) -> bool {
    let status = rec.decoded(Field::Status);
    if allowed.is_empty() {
        return status.is_empty();
    }
    let mut chars = status.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => c != '\u{FFFD}' && allowed.contains(c),
        _ => false,
    }
}

/// Whether the material code of `rec`'s position starts with `code`.
fn gbr_starts(rec: &Record<'_>, code: &[u8]) -> bool {
    let Some(men) = rec.men() else { return false };
    if men.check().is_err() {
        return false;
    }
    // `QRBN.PP` on the stack: this runs for every record.
    let mut full = [b'.'; 7];
    for (i, kind) in Kind::PIECES.into_iter().enumerate() {
        full[i] = b'0' + men.digit(kind);
    }
    full[5] = b'0' + men.count(Color::White, Kind::Pawn);
    full[6] = b'0' + men.count(Color::Black, Kind::Pawn);
    full.starts_with(code)
}

/// What to do with the selected records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Write them as a PBI file.
    Print,
    /// `-c`: print how many there are.
    Count,
    /// `-q`: print nothing, stop at the first.
    Quiet,
    /// `-l`: print the name of each input with a selected record, and
    /// read no further in it.
    FilesWith,
    /// `-L`: print the name of each PBI input without one.
    FilesWithout,
}

/// How [`run`] runs.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// What to write.
    pub mode: Mode,
    /// `-m`: stop after this many selected records, over all inputs.
    pub max: Option<u64>,
    /// Read PBI strictly.
    pub strict: bool,
    /// Worker threads for a large input (1: all on the calling thread).
    pub threads: usize,
}

/// Reads the sources in turn, writes what the mode asks for to `out`,
/// and returns how many records were selected, or, for
/// [`Mode::FilesWithout`], how many names were written: the exit status
/// is 0 when it is not 0, as grep's.
///
/// `-q` and `-m` stop reading as soon as they are satisfied: the inputs
/// after are not even opened, so that a missing one is no error, as in
/// `grep -q`.
///
/// # Errors
///
/// Only write errors; input problems go to `msgs`.
pub fn run<W: Write>(
    selector: &Selector,
    opts: Options,
    sources: &[Source],
    msgs: &mut Messages,
    out: W,
) -> io::Result<u64> {
    let versions = match (opts.mode, sources.len()) {
        (Mode::Print, 2..) => versions(sources, opts.strict),
        _ => vec![],
    };
    let mut grep = Grep {
        selector,
        opts,
        out,
        header: false,
        data: false,
        selected: 0,
        in_input: 0,
        pbi_input: false,
        versions,
        current: 0,
        names: 0,
    };
    for (i, source) in sources.iter().enumerate() {
        if grep.done() && !grep.header_wanted() {
            break;
        }
        (grep.current, grep.in_input, grep.pbi_input) = (i, 0, false);
        input::read_all(
            std::slice::from_ref(source),
            msgs,
            |_, lines, file, msgs| grep.input(lines, file, msgs),
        )?;
        let listed = match opts.mode {
            Mode::FilesWith => grep.in_input > 0,
            Mode::FilesWithout => grep.pbi_input && grep.in_input == 0,
            _ => false,
        };
        if listed {
            grep.names += 1;
            grep.out.write_all(&name_bytes(source))?;
            grep.out.write_all(b"\n")?;
        }
    }
    if opts.mode == Mode::Count {
        writeln!(grep.out, "{}", grep.selected)?;
    }
    grep.out.flush()?;
    Ok(match opts.mode {
        Mode::FilesWithout => grep.names,
        _ => grep.selected,
    })
}

/// Whether `line`, read after the marker of a PBI input and before its
/// data, is its first data line: neither blank nor a comment line.
fn starts_data(line: &Line<'_>) -> bool {
    let content = line.content();
    content.first() != Some(&b'#')
        && !content.iter().all(|&b| b == b' ' || b == b'\t')
}

/// The name `-l` and `-L` write: the path as given, byte for byte (so
/// that `xargs` gets it back), or `<stdin>`.
fn name_bytes(source: &Source) -> Vec<u8> {
    match source {
        Source::Stdin => input::STDIN_NAME.as_bytes().to_vec(),
        Source::Path(path) => path.as_encoded_bytes().to_vec(),
    }
}

/// What the marker of an input says, read ahead of the run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ahead {
    /// A PBI input of this version.
    Pbi(pbi::Version),
    /// Not PBI, or not there: it adds no record.
    None,
    /// Not a file (a pipe, standard input), which cannot be read twice:
    /// it may be of either version.
    Unknown,
}

/// The versions of the sources, read from their marker lines before the
/// run, so that the marker written is one every selected record is valid
/// under: a 1.2 record may have a keymove and a status, which a 1.1 file
/// may not, while a 1.1 record is a valid 1.2 record. A regular file is
/// opened and its first line read; a pipe or standard input cannot be
/// read ahead without losing what is read, so its version is unknown.
fn versions(sources: &[Source], strict: bool) -> Vec<Ahead> {
    sources
        .iter()
        .map(|source| {
            let Source::Path(path) = source else { return Ahead::Unknown };
            match std::fs::metadata(path) {
                Ok(meta) if meta.is_file() => {}
                Ok(_) => return Ahead::Unknown,
                Err(_) => return Ahead::None,
            }
            let Ok(rdr) = source.open() else { return Ahead::None };
            let mut lines = LineReader::new(rdr);
            let Ok(Some(line)) = lines.next_line() else { return Ahead::None };
            let mut parser = Parser::new(pbi::Options { strict });
            match parser.line(line, &mut Vec::new()) {
                Some(Item::Marker(_)) => Ahead::Pbi(parser.version()),
                _ => Ahead::None,
            }
        })
        .collect()
}

struct Grep<'s, W> {
    selector: &'s Selector,
    opts: Options,
    out: W,
    /// Whether the header of a first PBI input was written.
    header: bool,
    /// Whether a data line was written.
    data: bool,
    /// Records selected, over all inputs.
    selected: u64,
    /// Records selected in the current input.
    in_input: u64,
    /// Whether the current input is PBI.
    pbi_input: bool,
    /// The versions of the inputs, read ahead when several are merged
    /// into one PBI file; empty otherwise.
    versions: Vec<Ahead>,
    /// The index of the current input.
    current: usize,
    /// Names written by `-l` or `-L`.
    names: u64,
}

impl<W: Write> Grep<'_, W> {
    /// Whether the run has all it asked for: `-q` a record, `-m NUM`
    /// NUM records.
    fn done(&self) -> bool {
        self.opts.mode == Mode::Quiet && self.selected > 0
            || self.opts.max.is_some_and(|max| self.selected >= max)
    }

    /// Whether the output still lacks its header, which it has even with
    /// nothing selected (`-m 0`: done before it starts): the first PBI
    /// input is then read up to its first data line.
    fn header_wanted(&self) -> bool {
        self.opts.mode == Mode::Print && !self.header
    }

    /// Whether to read no further in the current input: the run is done,
    /// or `-l` and `-L` know their answer.
    fn input_done(&self) -> bool {
        let listing =
            matches!(self.opts.mode, Mode::FilesWith | Mode::FilesWithout);
        self.done() || listing && self.in_input > 0
    }

    fn input(
        &mut self,
        lines: &mut LineReader<Box<dyn Read>>,
        file: Option<&File>,
        msgs: &mut Messages,
    ) -> Result<(), Failure> {
        // Only the first PBI input's header is written.
        let first = !self.header;
        let mut reading = Reading::new(
            self.selector,
            Parser::new(pbi::Options { strict: self.opts.strict }),
        );
        let mut scan = LineScan::new();
        // Data lines read on this thread: past one batch, the rest goes
        // to the workers, unless -m must stop at a line.
        let mut data = 0;
        while let Some(line) = lines.next_line().map_err(Failure::Read)? {
            if self.done() && reading.parser.is_pbi() && starts_data(&line) {
                // `-m 0`, the header written.
                return Ok(());
            }
            let len = line.raw().len();
            let mut selected = false;
            let write = if reading.parser.is_reading_data() {
                let raw = line.raw();
                let read = scan.read(line.content(), None);
                selected =
                    reading.select(line, &scan, read, None, false, msgs);
                if selected {
                    self.print_data(raw)
                } else {
                    Ok(())
                }
            } else {
                match reading.parser.line(line, msgs) {
                    Some(Item::Marker(line)) => {
                        self.pbi_input = true;
                        if first {
                            self.header = true;
                            self.marker(line, reading.parser.version())
                        } else {
                            Ok(())
                        }
                    }
                    Some(Item::Comment(line)) if first => {
                        self.print(line.raw())
                    }
                    Some(Item::Record(rec)) if self.selector.selects(&rec) => {
                        selected = true;
                        self.print_data(rec.line().raw())
                    }
                    _ if reading.parser.is_rejected() => {
                        self.pbi_input = false;
                        return Ok(());
                    }
                    _ => Ok(()),
                }
            };
            write.map_err(Failure::Write)?;
            if selected {
                self.selected += 1;
                self.in_input += 1;
                if self.input_done() {
                    return Ok(());
                }
            }
            if reading.parser.is_reading_data() && self.opts.max.is_none() {
                data += len;
                if data >= par::BATCH_BYTES {
                    return self.parallel(&reading.parser, lines, file, msgs);
                }
            }
        }
        reading.parser.finish(msgs);
        Ok(())
    }

    /// Selects from the rest of an input with [`par`] workers (on this
    /// thread for one).
    fn parallel(
        &mut self,
        parser: &Parser,
        lines: &mut LineReader<Box<dyn Read>>,
        file: Option<&File>,
        msgs: &mut Messages,
    ) -> Result<(), Failure> {
        let workers = (0..self.opts.threads)
            .map(|_| Selecting {
                // A clone of a regex has its own pool of caches, which
                // its first thread then takes without a lock.
                reading: Reading::new(self.selector, parser.clone()),
                mode: self.opts.mode,
                hits: Hits::default(),
                scan: LineScan::new(),
            })
            .collect();
        // Reading a line costs little here, so larger batches, handed
        // over (and mapped) less often, pay: 2 MiB with two workers when
        // no record is written (8 MiB of lines in flight, whatever the
        // threads), 512 KiB when the selected lines are (a batch's output
        // is up to its lines again).
        let budget = match self.opts.mode {
            Mode::Print => 2 << 20,
            _ => 8 << 20,
        };
        let size = par::batch_bytes(self.opts.threads, budget);
        let numbers = par::Numbers::Worker;
        par::run_file_lines(lines, file, numbers, workers, size, |batch| {
            for d in batch.diagnostics.drain(..) {
                msgs.report(d);
            }
            self.selected += batch.selected;
            self.in_input += batch.selected;
            // Not for -m, which reads on one thread: only modes that
            // write no record stop here.
            if self.input_done() {
                return Ok(false);
            }
            self.print_data(&batch.out)?;
            Ok(true)
        })
    }

    /// The BOM and the marker line of the first PBI input, of `version`;
    /// LF for a marker without a line end. When other inputs are merged
    /// into it, `#PBI 1.2` replaces a 1.1 (or 1.0) marker if one of them
    /// is 1.2 or may be ([`versions`]).
    fn marker(
        &mut self,
        line: Line<'_>,
        version: pbi::Version,
    ) -> io::Result<()> {
        if self.opts.mode != Mode::Print {
            return Ok(());
        }
        self.out.write_all(BOM)?;
        let current = self.current;
        let newer = self.versions.iter().enumerate().any(|(i, v)| {
            i != current
                && matches!(v, Ahead::Pbi(pbi::Version::V1_2) | Ahead::Unknown)
        });
        let raw = line.raw();
        if version == pbi::Version::V1_1 && newer {
            self.out.write_all(b"#PBI 1.2")?;
            self.out.write_all(&raw[line.content().len()..])?;
        } else {
            self.out.write_all(raw)?;
        }
        if line.end() == LineEnd::None {
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    fn print(&mut self, raw: &[u8]) -> io::Result<()> {
        if self.opts.mode == Mode::Print {
            self.out.write_all(raw)?;
        }
        Ok(())
    }

    /// Prints selected data lines, `raw`. The first data line of the
    /// output, right after the marker and comment lines, would read as a
    /// comment line if it started with `#` (a data line after others in
    /// its input, or after lines left out): that `#` is written `\x23`,
    /// which reads as the same record.
    fn print_data(&mut self, raw: &[u8]) -> io::Result<()> {
        let first = !self.data;
        self.data |= !raw.is_empty();
        match raw {
            [b'#', rest @ ..] if first && self.opts.mode == Mode::Print => {
                self.out.write_all(b"\\x23")?;
                self.out.write_all(rest)
            }
            _ => self.print(raw),
        }
    }
}

/// A selector's one test when it is a plain string, searched for in
/// whole fields ([`Selector::literal`]).
///
/// Every text of a field is a part of the field as written (items and
/// subfields are cut at `;` and `|` and trimmed of blanks, which the
/// string does not hold), and the field is its decoded text where it
/// holds no escape: so in a line with no escape in the fields searched,
/// the test passes exactly when the string occurs in them. An escape can
/// make the string only if it decodes to one of its bytes: with none such,
/// and the string nowhere in the fields as written, the test fails.
/// Otherwise the record's texts decide.
#[derive(Clone, Debug)]
struct Literal {
    finder: memmem::Finder<'static>,
    /// A bit for each field searched.
    fields: u16,
    /// The string's bytes.
    bytes: [bool; 256],
    invert: bool,
}

impl Literal {
    /// Whether the clean line `content`, read by `scan`, is selected:
    /// `None` when its record's texts must say. `found(start, end)` says
    /// whether the string occurs in `content[start..end]`.
    #[inline]
    fn selects(
        &self,
        scan: &LineScan,
        content: &[u8],
        mut found: impl FnMut(usize, usize) -> bool,
    ) -> Option<bool> {
        let mut hit = false;
        let mut fields = self.fields;
        while fields != 0 && !hit {
            let f = fields.trailing_zeros() as usize;
            let (start, end) = scan.field(f);
            hit = found(start, end);
            fields &= fields - 1;
        }
        if scan.back_fields() & self.fields == 0 {
            return Some(hit != self.invert);
        }
        if hit {
            return None;
        }
        // The escapes of a clean line are all valid: `\xHH`.
        for at in scan.backslashes() {
            if self.fields & 1 << scan.field_at(at) == 0 {
                continue;
            }
            let hex = std::str::from_utf8(&content[at + 2..at + 4]).ok()?;
            let cp = char::from(u8::from_str_radix(hex, 16).ok()?);
            let mut utf8 = [0; 2];
            if cp
                .encode_utf8(&mut utf8)
                .bytes()
                .any(|b| self.bytes[usize::from(b)])
            {
                return None;
            }
        }
        Some(self.invert)
    }
}

/// What reading data lines needs: the selector, its plain string, the
/// parser.
struct Reading<'s> {
    selector: &'s Selector,
    literal: Option<Literal>,
    parser: Parser,
}

impl<'s> Reading<'s> {
    fn new(selector: &'s Selector, parser: Parser) -> Reading<'s> {
        Reading { selector, literal: selector.literal(), parser }
    }

    /// Reads a data line (reporting what [`Parser::line`] would), and
    /// says whether it is selected. `scan` has read the line if `read`;
    /// `hits` says where the string of [`Selector::literal`] occurs in
    /// the line (offsets from its start), when known; `utf8`, that the
    /// line is known to be valid UTF-8.
    #[inline]
    fn select(
        &mut self,
        line: Line<'_>,
        scan: &LineScan,
        read: bool,
        hits: Option<&[usize]>,
        utf8: bool,
        report: &mut dyn Report,
    ) -> bool {
        let content = line.content();
        if read {
            if let Some(clean) = self.parser.clean(&line, scan, utf8) {
                if let Some(lit) = &self.literal {
                    let n = lit.finder.needle().len();
                    let found = |start: usize, end: usize| match hits {
                        Some(hits) => {
                            hits.iter().any(|&h| h >= start && h + n <= end)
                        }
                        None => {
                            lit.finder.find(&content[start..end]).is_some()
                        }
                    };
                    if let Some(selected) = lit.selects(scan, content, found) {
                        return selected;
                    }
                }
                let rec = self.parser.record_of(line, &clean);
                return self.selector.selects(&rec);
            }
        }
        match self.parser.line(line, report) {
            Some(Item::Record(rec)) => self.selector.selects(&rec),
            _ => false,
        }
    }
}

/// Where the string of [`Selector::literal`] occurs in a batch of lines,
/// found by one search of the whole batch, as ripgrep searches a buffer.
///
/// At most [`Hits::MAX`] are kept, so that memory stays small however
/// often it occurs; for the lines past the last one kept, the lines are
/// searched one by one.
#[derive(Debug, Default)]
struct Hits {
    /// Offsets of the string, in order.
    at: Vec<usize>,
    /// Up to where the list holds every offset: a line that ends there
    /// or before has all of its hits in it.
    known: usize,
    /// The first offset not before the last line asked about.
    next: usize,
    /// The offsets in the last line asked about, from its start.
    line: Vec<usize>,
}

impl Hits {
    const MAX: usize = 4096;

    /// Finds the string of `finder` in `bytes`.
    fn find(&mut self, finder: &memmem::Finder<'_>, bytes: &[u8]) {
        self.at.clear();
        self.at.extend(finder.find_iter(bytes).take(Hits::MAX));
        // Every hit that starts before the end of the last one kept is
        // kept (they do not overlap).
        self.known = match self.at.len() {
            Hits::MAX => self.at[Hits::MAX - 1] + finder.needle().len(),
            _ => usize::MAX,
        };
        self.next = 0;
    }

    /// Where the string occurs in the line at `start..end`, from its
    /// start, if known; asked of lines in order.
    #[inline]
    fn in_line(&mut self, start: usize, end: usize) -> Option<&[usize]> {
        if end > self.known {
            return None;
        }
        while self.at.get(self.next).is_some_and(|&at| at < start) {
            self.next += 1;
        }
        self.line.clear();
        let mut i = self.next;
        while let Some(&at) = self.at.get(i).filter(|&&at| at < end) {
            self.line.push(at - start);
            i += 1;
        }
        Some(&self.line)
    }
}

/// A worker thread of [`Grep::parallel`]: its own parser; the selected
/// lines go into the batch's output.
struct Selecting<'s> {
    reading: Reading<'s>,
    mode: Mode,
    hits: Hits,
    scan: LineScan,
}

impl Work for Selecting<'_> {
    fn work(&mut self, batch: &mut Batch) {
        let by_lf = batch.lines.by_lf();
        if !by_lf {
            batch.lines.settle();
        }
        let bytes = batch.lines.bytes();
        let utf8 = scan::block_utf8(bytes, by_lf);
        let literal = self.reading.literal.is_some();
        if let Some(lit) = &self.reading.literal {
            self.hits.find(&lit.finder, bytes);
        }
        let (hits, reading) = (&mut self.hits, &mut self.reading);
        let (mut selected, out) = (0, &mut batch.out);
        let print = self.mode == Mode::Print;
        let diagnostics = &mut batch.diagnostics;
        let mut each = |at, line: Line<'_>, scan: &LineScan, read, utf8| {
            let found = match literal {
                true => hits.in_line(at, at + line.content().len()),
                false => None,
            };
            let raw = line.raw();
            if reading.select(line, scan, read, found, utf8, diagnostics) {
                selected += 1;
                if print {
                    out.extend_from_slice(raw);
                }
            }
        };
        let scan = &mut self.scan;
        if by_lf {
            // The lines are found as they are read, up to one that does
            // not end with LF alone; the rest are read the usual way.
            let (first, len) = (batch.lines.first(), bytes.len());
            let (stop, next) = scan::each_lf_line(
                bytes,
                first,
                scan,
                None,
                |at, line, s, read| {
                    each(at, line, s, read, utf8);
                },
            );
            // The rest, read the usual way, as a whole.
            let utf8 = utf8 || scan::block_utf8(&bytes[stop..], false);
            let lines = &mut batch.lines;
            let mut ended = next - first;
            if stop < len {
                ended += lines.each_at_from(stop, next, |at, line| {
                    let read = scan.read(line.content(), None);
                    each(at, line, scan, read, utf8);
                });
            }
            lines.counted(ended);
        } else {
            batch.lines.each_at(|at, line| {
                let read = scan.read(line.content(), None);
                each(at, line, scan, read, utf8);
            });
        }
        batch.selected = selected;
    }

    fn finds_line_ends(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("7"), Ok(7..=7));
        assert_eq!(parse_range("..7"), Ok(0..=7));
        assert_eq!(parse_range("8..12"), Ok(8..=12));
        assert_eq!(parse_range("13.."), Ok(13..=u32::MAX));
        assert!(parse_range("..").is_err());
        assert!(parse_range("x").is_err());
        assert!(parse_range("1..x").is_err());
        let said = |spec| parse_range(spec).unwrap_err();
        assert_eq!(said("12..8"), "empty range '12..8' (use 8..12)");
        assert_eq!(
            said("7-9"),
            "expected a number of men or a range of them (7, ..7, 8..12, \
             13..), got '7-9' (use 7..9)"
        );
        assert!(said("7..=9").ends_with("got '7..=9' (use 7..9)"));
        assert!(said("7...9").ends_with("(use 7..9)"));
        assert!(said("-7").ends_with("got '-7'"));
        assert!(said("\x1b[2J").ends_with("got '\\x1b[2J'"));
    }

    #[test]
    fn fixed_strings_and_case() {
        let opts = PatternOptions {
            ignore_case: true,
            fixed_strings: true,
            ..PatternOptions::default()
        };
        let re = build(&["A.B".into(), "ÖRN".into()], opts).unwrap();
        assert!(re.is_match(b"xa.by"));
        assert!(!re.is_match(b"xaxby"));
        assert!(re.is_match("Björn Örnberg".as_bytes()));
        let re =
            build(&["^Sam Loyd$".into()], PatternOptions::default()).unwrap();
        assert!(re.is_match(b"Sam Loyd"));
        assert!(!re.is_match(b"Sam Loyd Jr"));
    }

    /// `-w`: no word character on either side, in any script; `-x`:
    /// the whole text; neither is searched as a plain string.
    #[test]
    fn whole_words_and_whole_texts() {
        let word = PatternOptions { word: true, ..PatternOptions::default() };
        let whole = PatternOptions { whole: true, ..word };
        let pattern = |p: &str, opts| Pattern::new(&[p.into()], opts).unwrap();
        let sam = pattern("Sam", word);
        assert!(sam.literal.is_none());
        assert!(sam.is_match(b"Sam Loyd") && sam.is_match(b"Loyd, Sam"));
        assert!(!sam.is_match(b"Samuel") && !sam.is_match(b"Sam_"));
        assert!(!sam.is_match("Samé".as_bytes()));
        assert!(pattern("Loyd,", word).is_match(b"Loyd, Sam"));
        let loyd = pattern("Loyd|Kling", whole);
        assert!(loyd.literal.is_none());
        assert!(loyd.is_match(b"Loyd") && loyd.is_match(b"Kling"));
        assert!(!loyd.is_match(b"Sam Loyd") && !loyd.is_match(b"Loyd\n"));
    }

    #[test]
    fn plain_strings_are_searched_without_the_regex() {
        let plain = PatternOptions::default();
        let fixed = PatternOptions { fixed_strings: true, ..plain };
        let nocase = PatternOptions { ignore_case: true, ..plain };
        let pattern = |p: &[&str], opts| {
            let p: Vec<String> = p.iter().map(|s| s.to_string()).collect();
            Pattern::new(&p, opts).unwrap()
        };
        for (p, opts, literal) in [
            (&["Loyd"][..], plain, true),
            (&["Sam Loyd: Jr"], plain, true),
            (&["Lo.d"], plain, false),
            (&["Lo.d"], fixed, true),
            (&["^Loyd$"], plain, false),
            (&["Loyd"], nocase, false),
            (&["Loyd", "Kling"], plain, false),
        ] {
            let pat = pattern(p, opts);
            assert_eq!(pat.literal.is_some(), literal, "{p:?}");
        }
        let pat = pattern(&["Loyd"], plain);
        assert!(pat.is_match(b"Sam Loyd") && !pat.is_match(b"Sam Lloyd"));
        assert!(pat.rules_out(b"Kling, Josef;Kubbel, Leonid"));
        assert!(!pat.rules_out(b"Kling, Josef;Loyd, Samuel"));
        let pat = pattern(&["Lo.d"], fixed);
        assert!(pat.is_match(b"Lo.d") && !pat.is_match(b"Loyd"));
        // A regex never rules anything out.
        assert!(!pattern(&["Lo.d"], plain).rules_out(b"Kling"));
        // Nor does the empty string; a clean line is selected by where
        // the string occurs only for a string that no separator, blank,
        // line end or escape can stand inside, tested alone.
        assert!(pattern(&[""], plain).plain().is_none());
        let literal = |p: &str, invert| {
            let any = Some(pattern(&[p], plain));
            let selector = Selector { any, invert, ..Selector::default() };
            selector.literal().map(|l| (l.finder.needle().to_vec(), l.fields))
        };
        assert_eq!(literal("Loyd", false), Some((b"Loyd".to_vec(), 0x1ff)));
        assert_eq!(literal("Loyd", true), Some((b"Loyd".to_vec(), 0x1ff)));
        for p in [
            "",
            "a\nb",
            "a\rb",
            "a\u{85}b",
            "a\u{2028}b",
            "a b",
            "a;b",
            "a|b",
            "a:b",
            "a\\x41",
        ] {
            assert_eq!(literal(p, false), None, "{p:?}");
        }
        let selector = Selector {
            fields: vec![(Target::Source, pattern(&["Loyd"], plain))],
            ..Selector::default()
        };
        assert_eq!(selector.literal().map(|l| l.fields), Some(0b11000));
        let selector = Selector {
            fields: vec![(Target::Author, pattern(&["Loyd"], plain))],
            status: Some("!".into()),
            ..Selector::default()
        };
        assert!(selector.literal().is_none());
    }

    #[test]
    fn hits_tell_where_the_string_is_in_each_line() {
        let bytes = b"Kling:1\nLoyd:2\r\nKubbel:3\nLoy\nd\nxLoydLoyd\n";
        let finder = memmem::Finder::new("Loyd");
        let mut hits = Hits::default();
        hits.find(&finder, bytes);
        let mut found = Vec::new();
        let mut start = 0;
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            let content =
                line.len() - 1 - usize::from(line.ends_with(b"\r\n"));
            found.push(hits.in_line(start, start + content).unwrap().to_vec());
            start += line.len();
        }
        let none: Vec<usize> = vec![];
        assert_eq!(
            found,
            [
                none.clone(),
                vec![0],
                none.clone(),
                none.clone(),
                none,
                vec![1, 5]
            ]
        );
        // Past the last hit kept, a line's hits are not known.
        let bytes = "Loyd\nKling\n".repeat(Hits::MAX + 10);
        hits.find(&finder, bytes.as_bytes());
        let (mut start, mut known) = (0, vec![]);
        for line in bytes.lines() {
            known.push(hits.in_line(start, start + line.len()).is_some());
            start += line.len() + 1;
        }
        assert!(known[..2 * Hits::MAX - 1].iter().all(|&k| k));
        assert!(known[2 * Hits::MAX..].iter().all(|&k| !k));
    }

    /// A line selected by where the plain string is in it is one that
    /// the record's texts select: every target, plain strings that
    /// escapes may make (`Loyd` from `L\x6fyd`, `:` ...), `-v`; and the
    /// batch's hits give what a search of each field gives.
    #[test]
    fn lines_selected_by_the_string_are_those_the_texts_select() {
        use crate::lines::LineEnd;
        use crate::testing::Rng;
        let mut rng = Rng::new(43);
        let plain = PatternOptions::default();
        let pattern = |p: &str| Pattern::new(&[p.to_string()], plain).unwrap();
        let mut bytes = vec![];
        for _ in 0..20_000 {
            bytes.extend(crate::testing::pbi_line(&mut rng));
            bytes.push(b'\n');
        }
        let mut decided = 0;
        for (round, needle) in
            ["Loyd", "o", "x3a", "T", "Q", "8", "K", ",", "\u{e9}", "Ж"]
                .iter()
                .enumerate()
        {
            let mut selector = Selector::default();
            match round % 3 {
                0 => selector.any = Some(pattern(needle)),
                _ => {
                    let target = Target::ALL[round % Target::ALL.len()];
                    selector.fields.push((target, pattern(needle)));
                }
            }
            selector.invert = round % 4 == 1;
            let lit = selector.literal().unwrap();
            let mut hits = Hits::default();
            hits.find(&lit.finder, &bytes);
            let mut parser = Parser::new(pbi::Options::default());
            let first = Line::new(b"#PBI 1.2\n", LineEnd::Lf, 1);
            parser.line(first, &mut vec![]);
            let second = Line::new(b"A:::::::::\n", LineEnd::Lf, 2);
            parser.line(second, &mut vec![]);
            let mut scan = LineScan::new();
            scan::each_lf_line(
                &bytes,
                3,
                &mut scan,
                None,
                |at, line, scan, read| {
                    let content = line.content();
                    let Some(clean) = read
                        .then(|| parser.clean(&line, scan, false))
                        .flatten()
                    else {
                        return;
                    };
                    let by_search = lit.selects(scan, content, |s, e| {
                        lit.finder.find(&content[s..e]).is_some()
                    });
                    let n = needle.len();
                    if let Some(in_line) = hits.in_line(at, at + content.len())
                    {
                        let by_hits = lit.selects(scan, content, |s, e| {
                            in_line.iter().any(|&h| h >= s && h + n <= e)
                        });
                        assert_eq!(by_hits, by_search);
                    }
                    let by_hits = by_search;
                    let want =
                        selector.selects(&parser.record_of(line, &clean));
                    if let Some(got) = by_hits {
                        decided += 1;
                        assert_eq!(
                            got,
                            want,
                            "{needle:?} {}",
                            content.as_bstr()
                        );
                    }
                },
            );
        }
        assert!(decided > 50_000, "{decided}");
    }
}
