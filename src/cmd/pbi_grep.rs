//! Selecting PBI records: the work of `pbi-grep`.
//!
//! A [`Selector`] holds every test the command line asked for, each regex
//! built once. A record is selected when every test passes (the general
//! patterns, each field option, `--status`, `--gbr`, `--pieces`), or,
//! with `-v`, when not. Regexes match the decoded text of a field; a field
//! without `\` is matched where it stands, with no copy.
//!
//! A line that cannot be selected is not read in full, as ripgrep does
//! not look at a line with no hit: when a test is one plain string, the
//! workers search each batch for it (and for `\`) at once, and a line
//! where it does not occur, not even decoded, is only counted for its 9
//! fields, so that every error is still reported (not with `--strict`
//! or `-v`, which read every line).
//!
//! [`run`] writes the selected records as a PBI file: a BOM, the marker
//! and comment lines of the first PBI input as read, then each selected
//! data line byte for byte with its own line end.

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
use crate::lines::{LineEnd, LineReader, BOM};
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

/// How patterns are read.
#[derive(Clone, Copy, Debug, Default)]
pub struct PatternOptions {
    /// `-i`: case-insensitive, Unicode-aware.
    pub ignore_case: bool,
    /// `-F`: patterns are fixed strings.
    pub fixed_strings: bool,
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
            format!("(?:{p})")
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
    /// The regex crate's message for a pattern that does not compile.
    pub fn new(
        patterns: &[String],
        opts: PatternOptions,
    ) -> Result<Pattern, regex::Error> {
        let re = build(patterns, opts)?;
        // `regex::escape` leaves a string alone when it holds no regex
        // syntax: it then matches exactly where it occurs.
        let literal = match patterns {
            [p] if !opts.ignore_case
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

    /// [`Pattern::rules_out`] for the decoded `raw` (decoded in
    /// `scratch`), which `raw` already is when it holds no `\`. Escapes
    /// never cross a `:`, `;` or `|`, so each text of a field, decoded, is
    /// a part of the decoded field.
    fn rules_out_decoded(&self, raw: &[u8], scratch: &mut Vec<u8>) -> bool {
        if memchr::memchr(b'\\', raw).is_none() {
            return true;
        }
        scratch.clear();
        pbi::escape::decode_into(raw, scratch);
        self.rules_out(scratch)
    }

    /// The plain string that [`Pattern::rules_out`] rules texts out by,
    /// if the patterns are one that is not empty (which rules nothing
    /// out).
    fn plain(&self) -> Option<&memmem::Finder<'static>> {
        self.literal.as_ref().filter(|f| !f.needle().is_empty())
    }

    /// Whether [`Pattern::rules_out`] can rule texts out.
    fn is_plain(&self) -> bool {
        self.plain().is_some()
    }
}

/// Men on the board, kings included: `7`, `..7`, `8..12`, `13..`.
///
/// # Errors
///
/// A message saying what is wrong with `spec`.
pub fn parse_range(spec: &str) -> Result<RangeInclusive<u32>, String> {
    let num = |s: &str| {
        s.parse::<u32>()
            .map_err(|_| format!("bad piece count '{s}' in '{spec}'"))
    };
    let range = match spec.split_once("..") {
        None => num(spec).map(|n| n..=n)?,
        Some(("", "")) => return Err(format!("empty range '{spec}'")),
        Some(("", hi)) => 0..=num(hi)?,
        Some((lo, "")) => num(lo)?..=u32::MAX,
        Some((lo, hi)) => num(lo)?..=num(hi)?,
    };
    if range.is_empty() {
        return Err(format!("empty range '{spec}'"));
    }
    Ok(range)
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

    /// Whether some test is a plain string that every selected line must
    /// hold: then [`Selector::passes_over`] can pass over lines unread.
    pub fn can_pass_over(&self) -> bool {
        !self.invert
            && (self.any.as_ref().is_some_and(Pattern::is_plain)
                || self.fields.iter().any(|(_, p)| p.is_plain()))
    }

    /// The plain string that every selected line holds, when no line end
    /// can stand inside it (it holds no LF, CR, or last byte of U+0085 or
    /// U+2028): then each occurrence in a batch of lines lies within one
    /// line, and one search of the whole batch finds the lines that hold
    /// it.
    fn prefilter(&self) -> Option<&memmem::Finder<'static>> {
        if self.invert {
            return None;
        }
        self.any
            .iter()
            .chain(self.fields.iter().map(|(_, p)| p))
            .filter_map(Pattern::plain)
            .find(|f| {
                !f.needle()
                    .iter()
                    .any(|b| matches!(b, b'\n' | b'\r' | 0x85 | 0xa8))
            })
    }

    /// Whether the data line `content` cannot be selected, told without
    /// reading its fields: it holds no escape, and it does not hold the
    /// plain string of the general pattern or of a field option (each
    /// field, and so each text, is a part of the line as written).
    ///
    /// This is what makes a search for a name as fast as a search of the
    /// bytes: most lines are ruled out by one `memmem` search, as
    /// ripgrep rules out a buffer. Always false with `-v`. A line with
    /// an escape is decoded into `scratch`.
    pub fn passes_over(&self, content: &[u8], scratch: &mut Vec<u8>) -> bool {
        if self.invert {
            return false;
        }
        self.any.as_ref().is_some_and(|p| {
            // The position is searched as written, the rest decoded.
            p.rules_out(content) && p.rules_out_decoded(content, scratch)
        }) || self.fields.iter().any(|(target, p)| {
            p.is_plain()
                && target.fields().iter().all(|&f| {
                    pbi::field_of(content, f).is_none_or(|raw| {
                        p.rules_out(raw)
                            && (f == Field::Position
                                || p.rules_out_decoded(raw, scratch))
                    })
                })
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
}

/// Reads every source, writes what `mode` asks for to `out`, and returns
/// how many records were selected.
///
/// # Errors
///
/// Only write errors; input problems go to `msgs`.
pub fn run<W: Write>(
    selector: &Selector,
    mode: Mode,
    strict: bool,
    threads: usize,
    sources: &[Source],
    msgs: &mut Messages,
    out: W,
) -> io::Result<u64> {
    let mut grep = Grep {
        selector,
        mode,
        strict,
        threads,
        out,
        header: false,
        selected: 0,
    };
    input::read_all(sources, msgs, |_, lines, msgs| grep.input(lines, msgs))?;
    if mode == Mode::Count {
        writeln!(grep.out, "{}", grep.selected)?;
    }
    grep.out.flush()?;
    Ok(grep.selected)
}

struct Grep<'s, W> {
    selector: &'s Selector,
    mode: Mode,
    strict: bool,
    threads: usize,
    out: W,
    /// Whether the header of a first PBI input was written.
    header: bool,
    selected: u64,
}

impl<W: Write> Grep<'_, W> {
    fn input(
        &mut self,
        lines: &mut LineReader<Box<dyn Read>>,
        msgs: &mut Messages,
    ) -> Result<(), Failure> {
        let mut parser = Parser::new(pbi::Options { strict: self.strict });
        // Only the first PBI input's header is written.
        let first = !self.header;
        // Data lines read on this thread: past one batch, the rest goes
        // to the workers.
        let mut data = 0;
        let pass_over = self.selector.can_pass_over();
        let mut scratch = vec![];
        while let Some(line) = lines.next_line().map_err(Failure::Read)? {
            let len = line.raw().len();
            let passed = pass_over
                && self.selector.passes_over(line.content(), &mut scratch)
                && parser.could_only_warn(&line);
            let item = if passed { None } else { parser.line(line, msgs) };
            let write = match item {
                Some(Item::Marker(line)) if first => {
                    self.header = true;
                    self.marker(line.raw(), line.end())
                }
                Some(Item::Comment(line)) if first => self.print(line.raw()),
                Some(Item::Record(rec)) if self.selector.selects(&rec) => {
                    self.selected += 1;
                    if self.mode == Mode::Quiet {
                        return Ok(());
                    }
                    self.print(rec.line().raw())
                }
                _ if parser.is_rejected() => return Ok(()),
                _ => Ok(()),
            };
            write.map_err(Failure::Write)?;
            if parser.is_reading_data() && self.threads > 1 {
                data += len;
                if data >= par::BATCH_BYTES {
                    return self.parallel(&parser, lines, msgs);
                }
            }
        }
        parser.finish(msgs);
        Ok(())
    }

    /// Selects from the rest of an input with [`par`] workers.
    fn parallel(
        &mut self,
        parser: &Parser,
        lines: &mut LineReader<Box<dyn Read>>,
        msgs: &mut Messages,
    ) -> Result<(), Failure> {
        let workers = (0..self.threads)
            .map(|_| Selecting {
                // A clone of a regex has its own pool of caches, which
                // its first thread then takes without a lock.
                selector: self.selector.clone(),
                parser: parser.clone(),
                mode: self.mode,
                hits: Hits::default(),
                scratch: vec![],
            })
            .collect();
        par::run_lines(lines, workers, par::BATCH_BYTES, |batch| {
            for d in batch.diagnostics.drain(..) {
                msgs.report(d);
            }
            self.selected += batch.selected;
            if self.mode == Mode::Quiet && self.selected > 0 {
                return Ok(false);
            }
            self.print(&batch.out)?;
            Ok(true)
        })
    }

    /// The BOM and the marker line; LF for a marker without a line end.
    fn marker(&mut self, raw: &[u8], end: LineEnd) -> io::Result<()> {
        if self.mode != Mode::Print {
            return Ok(());
        }
        self.out.write_all(BOM)?;
        self.out.write_all(raw)?;
        if end == LineEnd::None {
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    fn print(&mut self, raw: &[u8]) -> io::Result<()> {
        if self.mode == Mode::Print {
            self.out.write_all(raw)?;
        }
        Ok(())
    }
}

/// Where the prefilter's string and `\` occur in a batch of lines, each
/// found by one search of the whole batch, as ripgrep searches a buffer:
/// a line that holds neither cannot be selected.
///
/// At most [`Hits::MAX`] of each are kept, so that memory stays small
/// however often they occur; a line past the last one kept is taken to
/// hold one (and is looked at on its own).
#[derive(Debug, Default)]
struct Hits {
    /// Offsets of the string, in order.
    strings: Vec<usize>,
    /// Offsets of `\`, in order.
    escapes: Vec<usize>,
    /// The string's length.
    len: usize,
    /// Up to where each list holds every offset.
    known: (usize, usize),
    /// The first string and `\` not before the last line asked about.
    next: (usize, usize),
}

impl Hits {
    const MAX: usize = 4096;

    /// Finds the string of `finder` and `\` in `bytes`.
    fn find(&mut self, finder: &memmem::Finder<'_>, bytes: &[u8]) {
        let all = |list: &mut Vec<usize>,
                   found: &mut dyn Iterator<Item = usize>| {
            list.clear();
            list.extend(found.take(Hits::MAX));
            match list.len() {
                Hits::MAX => list[Hits::MAX - 1],
                _ => usize::MAX,
            }
        };
        self.known = (
            all(&mut self.strings, &mut finder.find_iter(bytes)),
            all(&mut self.escapes, &mut memchr::memchr_iter(b'\\', bytes)),
        );
        self.len = finder.needle().len();
        self.next = (0, 0);
    }

    /// Whether the bytes `start..end` hold the string or a `\`, or may;
    /// asked of lines in order.
    fn in_line(&mut self, start: usize, end: usize) -> bool {
        let (s, e) = &mut self.next;
        while self.strings.get(*s).is_some_and(|&at| at < start) {
            *s += 1;
        }
        while self.escapes.get(*e).is_some_and(|&at| at < start) {
            *e += 1;
        }
        end > self.known.0
            || end > self.known.1
            || self.strings.get(*s).is_some_and(|&at| at + self.len <= end)
            || self.escapes.get(*e).is_some_and(|&at| at < end)
    }
}

/// A worker thread of [`Grep::parallel`]: its own parser; the selected
/// lines go into the batch's output.
struct Selecting {
    selector: Selector,
    parser: Parser,
    mode: Mode,
    hits: Hits,
    /// Lines with escapes, decoded to be searched.
    scratch: Vec<u8>,
}

impl Work for Selecting {
    fn work(&mut self, batch: &mut Batch) {
        let pass_over = self.selector.can_pass_over();
        let prefilter = self.selector.prefilter();
        if let Some(finder) = prefilter {
            self.hits.find(finder, batch.lines.bytes());
        }
        batch.lines.each_at(|at, line| {
            // A line is passed over unread when the selector rules it out
            // (for most lines, the batch's search already has) and reading
            // it could give only warnings: errors are still reported for
            // every line, warnings only for the lines that could be
            // selected.
            let content = line.content();
            let ruled_out = (prefilter.is_some()
                && !self.hits.in_line(at, at + content.len()))
                || (pass_over
                    && self.selector.passes_over(content, &mut self.scratch));
            if ruled_out && self.parser.could_only_warn(&line) {
                return;
            }
            let item = self.parser.line(line, &mut batch.diagnostics);
            if let Some(Item::Record(rec)) = item {
                if self.selector.selects(&rec) {
                    batch.selected += 1;
                    if self.mode == Mode::Print {
                        batch.out.extend_from_slice(line.raw());
                    }
                }
            }
        });
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
        assert!(parse_range("12..8").is_err());
        assert!(parse_range("x").is_err());
        assert!(parse_range("1..x").is_err());
    }

    #[test]
    fn fixed_strings_and_case() {
        let opts = PatternOptions { ignore_case: true, fixed_strings: true };
        let re = build(&["A.B".into(), "ÖRN".into()], opts).unwrap();
        assert!(re.is_match(b"xa.by"));
        assert!(!re.is_match(b"xaxby"));
        assert!(re.is_match("Björn Örnberg".as_bytes()));
        let re =
            build(&["^Sam Loyd$".into()], PatternOptions::default()).unwrap();
        assert!(re.is_match(b"Sam Loyd"));
        assert!(!re.is_match(b"Sam Loyd Jr"));
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
        // Nor does the empty string, and a batch is searched only for a
        // string that no line end can stand inside.
        assert!(!pattern(&[""], plain).is_plain());
        let prefilter = |p: &str, invert| {
            let any = Some(pattern(&[p], plain));
            let selector = Selector { any, invert, ..Selector::default() };
            selector.prefilter().map(|f| f.needle().to_vec())
        };
        assert_eq!(prefilter("Loyd", false), Some(b"Loyd".to_vec()));
        assert_eq!(prefilter("Loyd", true), None);
        for p in ["", "a\nb", "a\rb", "a\u{85}b", "a\u{2028}b"] {
            assert_eq!(prefilter(p, false), None, "{p:?}");
        }
    }

    #[test]
    fn hits_tell_the_lines_that_hold_the_string_or_an_escape() {
        let bytes = b"Kling:1\nLoyd:2\r\nKubbel\\x41:3\nLoy\nd\nxLoydLoyd\n";
        let finder = memmem::Finder::new("Loyd");
        let mut hits = Hits::default();
        hits.find(&finder, bytes);
        let mut found = Vec::new();
        let mut start = 0;
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            let content =
                line.len() - 1 - usize::from(line.ends_with(b"\r\n"));
            found.push(hits.in_line(start, start + content));
            start += line.len();
        }
        assert_eq!(found, [false, true, true, false, false, true]);
        // Past the last hit kept, every line may hold one.
        let bytes = "Loyd\nKling\n".repeat(Hits::MAX + 10);
        hits.find(&finder, bytes.as_bytes());
        let (mut start, mut holds) = (0, vec![]);
        for line in bytes.lines() {
            holds.push(hits.in_line(start, start + line.len()));
            start += line.len() + 1;
        }
        assert_eq!(holds.iter().filter(|&&h| !h).count(), Hits::MAX - 1);
        assert!(holds[..2 * Hits::MAX - 1].iter().step_by(2).all(|&h| h));
        assert!(holds[2 * Hits::MAX..].iter().all(|&h| h));
    }

    #[test]
    fn a_line_passed_over_could_not_have_been_selected() {
        use crate::lines::LineReader;
        use crate::testing::Rng;
        const BYTES: &[&[u8]] = &[
            b":", b":", b":", b"\\", b"x", b"3a", b"\\x4c", b"\\x4C",
            b"\\x79", b"L", b"o", b"y", b"d", b"Loyd", b"Lo", b"|", b";",
            b" ", b"8/8", b"#",
        ];
        let mut rng = Rng::new(11);
        let plain = PatternOptions::default();
        let pattern = |p: &str| Pattern::new(&[p.to_string()], plain).unwrap();
        let mut passed = 0;
        for _ in 0..20_000 {
            let mut line =
                b"#PBI 1.2\nLoyd:8/8/8/8/8/8/8/8:#2::::::\n".to_vec();
            for field in 0..7 + rng.below(4) {
                if field > 0 {
                    line.push(b':');
                }
                for _ in 0..rng.below(5) {
                    line.extend_from_slice(BYTES[rng.below(BYTES.len())]);
                }
            }
            line.push(b'\n');
            let literal =
                ["Loyd", "o:y", ":", "L", "\\x3a", "Lo|"][rng.below(6)];
            let mut selector = Selector::default();
            match rng.below(3) {
                0 => selector.any = Some(pattern(literal)),
                _ => {
                    let target = Target::ALL[rng.below(Target::ALL.len())];
                    selector.fields.push((target, pattern(literal)));
                }
            }
            let mut parser = Parser::new(pbi::Options { strict: false });
            let mut lines = LineReader::new(&line[..]);
            let mut diags = vec![];
            for _ in 0..2 {
                let l = lines.next_line().unwrap().unwrap();
                parser.line(l, &mut diags);
            }
            let l = lines.next_line().unwrap().unwrap();
            if !(selector.passes_over(l.content(), &mut vec![])
                && parser.could_only_warn(&l))
            {
                continue;
            }
            passed += 1;
            let mut diags = vec![];
            if let Some(Item::Record(rec)) = parser.line(l, &mut diags) {
                assert!(
                    !selector.selects(&rec),
                    "{literal:?} {}",
                    line.as_bstr()
                );
            }
            assert!(
                diags
                    .iter()
                    .all(|d| d.severity != crate::diag::Severity::Error),
                "{}",
                line.as_bstr()
            );
        }
        assert!(passed > 5_000, "{passed}");
    }
}
