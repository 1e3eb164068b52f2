/*!
The PBI reader: problem collections, one record per line.

[`Parser`] is a push parser. A tool drives the shared
[`LineReader`](crate::lines::LineReader) itself and hands each line to
[`Parser::line`], which gives back the marker line, a comment line or a
[`Record`], or nothing (a blank line, a malformed record, a line of an
input that is not PBI). At the end of an input, [`Parser::finish`] says
whether the input was PBI at all. Diagnostics go to a [`Report`]; the
parser prints nothing.

Everything FORMATS.md says in its PBI section is here: the header (BOM,
versions), comment lines, blank lines, the 9 fields, escapes, lists,
sources and awards, the position, keymove and status, and `--strict`.

```
use chesspipe::lines::LineReader;
use chesspipe::pbi::{Field, Item, Options, Parser};

let input = "\u{feff}#PBI 1.2\n#from a column\nS\\x3at John:8/8/8/8/8/8/8/K1k5:#2:::::!:\n";
let mut lines = LineReader::new(input.as_bytes());
let mut parser = Parser::new(Options::default());
let mut diagnostics = vec![];
let mut authors = vec![];
while let Some(line) = lines.next_line().unwrap() {
    if let Some(Item::Record(rec)) = parser.line(line, &mut diagnostics) {
        authors.push(rec.decoded(Field::Names).into_owned());
    }
}
assert!(parser.finish(&mut diagnostics));
assert_eq!(authors, vec![b"S:t John".to_vec()]);
assert!(diagnostics.is_empty());
```
*/

pub mod escape;
mod record;
pub mod scan;
pub(crate) mod swar;
#[cfg(target_arch = "x86_64")]
mod utf8;
pub mod write;

pub use record::{
    class, list, split, trim, Field, Record, Shape, Split, Subfields,
};

use crate::board::Board;
use crate::diag::{Diagnostic, Report, Severity};
use crate::gbr::Men;
use crate::lines::{Line, LineEnd};
use scan::LineScan;

/// How strictly to read.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Every warning is an error: the record is skipped, and a
    /// file-level warning (BOM, version) skips the whole input.
    pub strict: bool,
}

/// The PBI version of an input, as it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    /// 1.1 (and the obsolete 1.0): keymove and status must be empty.
    V1_1,
    /// 1.2 (and any later digits.digits version).
    V1_2,
}

/// What a line of PBI input is.
// A record carries its board (about 200 bytes) by value: items are
// consumed as soon as they are returned, and boxing would allocate once
// per record.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Item<'a> {
    /// The `#PBI x.y` marker line.
    Marker(Line<'a>),
    /// A comment line, before the first data line.
    Comment(Line<'a>),
    /// A data record.
    Record(Record<'a>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Waiting for the marker line.
    Start,
    /// After the marker, before the first data line.
    Comments,
    /// Reading data lines.
    Data,
    /// Not PBI (or rejected by `--strict`): the rest is ignored.
    Rejected,
}

/// The PBI push parser for one input. Make a new one for each input.
#[derive(Clone, Debug)]
pub struct Parser {
    opts: Options,
    state: State,
    version: Version,
    /// Diagnostics about the current line, before the verdict on it.
    found: Vec<Diagnostic>,
}

const STATUSES: [&[u8]; 6] = [b"", b"!", b"*", b"+", b"$", b"?"];

impl Parser {
    /// A parser for one input.
    pub fn new(opts: Options) -> Parser {
        Parser {
            opts,
            state: State::Start,
            version: Version::V1_2,
            found: Vec::new(),
        }
    }

    /// The version the header gave (1.2 until the header is read).
    pub fn version(&self) -> Version {
        self.version
    }

    /// Whether the input was accepted as PBI so far: the marker was read
    /// and `--strict` did not reject the input.
    pub fn is_pbi(&self) -> bool {
        matches!(self.state, State::Comments | State::Data)
    }

    /// Whether the first data line has been read: from here on, every
    /// line is read alone, so a clone of this parser reads any later line
    /// just as this one would.
    pub fn is_reading_data(&self) -> bool {
        self.state == State::Data
    }

    /// Whether [`Parser::line`] would read `line` as a data record and
    /// say nothing about it ([`Clean`]). `scan` is the line's content read by
    /// [`LineScan::read`] or [`LineScan::read_to_lf`]; `utf8` says that
    /// the caller knows the line to be valid UTF-8 (it checked a batch of
    /// lines at once), for a line whose scan did not check it
    /// ([`LineScan::utf8`]).
    ///
    /// This is the fast way through a line: the checks of
    /// [`Parser::line`] (9 fields, escapes, UTF-8, subfields, position,
    /// keymove and status) at the cost of the scan, with no split and no
    /// record. `None` says only that the line needs [`Parser::line`],
    /// which then tells what is wrong, if anything (it also reads the
    /// rare lines that are fine but not of the usual shape: a blank
    /// item, an escaped status, a line longer than the scan reads).
    // Not inlined: one call per line is little beside its work, and it
    // keeps the checks one stage in a profile (bench/stages.sh).
    #[inline(never)]
    pub fn clean(
        &self,
        line: &Line<'_>,
        scan: &LineScan,
        utf8: bool,
    ) -> Option<Clean> {
        // The pipes are counted with POPCNT where the CPU has it (std
        // caches the answer: the test is a load), not with the dozen
        // instructions a count of bits takes without it.
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT.
            return unsafe { self.clean_popcnt(line, scan, utf8) };
        }
        self.clean_in(line, scan, utf8)
    }

    /// [`Parser::clean`] compiled for a CPU with POPCNT.
    ///
    /// # Safety
    ///
    /// The CPU must have POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn clean_popcnt(
        &self,
        line: &Line<'_>,
        scan: &LineScan,
        utf8: bool,
    ) -> Option<Clean> {
        self.clean_in(line, scan, utf8)
    }

    /// [`Parser::clean`], inlined into each way of calling it.
    #[inline(always)]
    fn clean_in(
        &self,
        line: &Line<'_>,
        scan: &LineScan,
        utf8: bool,
    ) -> Option<Clean> {
        let content = line.content();
        if self.state != State::Data
            || line.end() == LineEnd::None
            || scan.colons() != 8
            || scan.len() != content.len()
        {
            return None;
        }
        let field = |f: Field| {
            let (start, end) = scan.field(f as usize);
            &content[start..end]
        };
        let (start, end) = scan.field(Field::UsedSource as usize);
        let status = field(Field::Status);
        let ok = (start == end || scan.count_pipes(start, end) == 3)
            && items_have_4_subfields(scan, Field::References)
            && items_have_4_subfields(scan, Field::Awards)
            && (status.is_empty()
                || (status.len() == 1 && b"!*+$?".contains(&status[0])))
            && (self.version == Version::V1_2
                || (status.is_empty() && field(Field::Keymove).is_empty()))
            && (!scan.has_backslash() || scan.escapes_valid(content))
            && (!scan.has_high()
                || scan.utf8().unwrap_or_else(|| {
                    utf8 || simdutf8::basic::from_utf8(content).is_ok()
                }));
        if !ok {
            return None;
        }
        // Only checked here: the men are counted for a record that asks.
        let (start, end) = scan.field(Field::Position as usize);
        (start == end || Men::scan_checks_in(content, start, end))
            .then_some(Clean)
    }

    /// The record of a line that [`Parser::clean`] found clean.
    pub fn record_of<'a>(&self, line: Line<'a>, _: &Clean) -> Record<'a> {
        match split(line.content()) {
            Split::Exact(fields, shape) => {
                let position = fields[Field::Position as usize];
                let men = Men::scan(position);
                Record::new(line, &fields, &shape, men)
            }
            // A clean line has exactly 8 colons.
            _ => unreachable!("a clean line has 9 fields"),
        }
    }

    /// Whether the rest of this input can be skipped: it is not PBI.
    pub fn is_rejected(&self) -> bool {
        self.state == State::Rejected
    }

    /// Reads one line. Returns what it is, or `None` when it gives the
    /// tool nothing (it was reported if that was wrong).
    pub fn line<'a>(
        &mut self,
        line: Line<'a>,
        report: &mut dyn Report,
    ) -> Option<Item<'a>> {
        match self.state {
            State::Start => self.marker(line, report),
            State::Rejected => None,
            _ if line.end() == LineEnd::None => {
                self.warn(
                    line.number(),
                    "bytes after the last line end are ignored",
                );
                self.verdict(report);
                None
            }
            _ if is_blank(line.content()) => {
                self.warn(line.number(), "blank line skipped");
                self.verdict(report);
                None
            }
            State::Comments if line.content().first() == Some(&b'#') => {
                Some(Item::Comment(line))
            }
            _ => {
                self.state = State::Data;
                self.record(line, report)
            }
        }
    }

    /// Ends the input. Returns whether it was PBI; an empty input is
    /// reported as not a PBI file.
    pub fn finish(&mut self, report: &mut dyn Report) -> bool {
        if self.state == State::Start {
            report.report(Diagnostic::error(0, "not a PBI file (empty)"));
            self.state = State::Rejected;
        }
        self.is_pbi()
    }

    /// The first line: the marker, or the input is not PBI.
    fn marker<'a>(
        &mut self,
        line: Line<'a>,
        report: &mut dyn Report,
    ) -> Option<Item<'a>> {
        let n = line.number();
        let Some(version) = marker_version(line.content()) else {
            report.report(Diagnostic::error(n, "not a PBI file"));
            self.state = State::Rejected;
            return None;
        };
        self.version = match version {
            b"1.1" | b"1.2" => Version::from_text(version),
            b"1.0" => {
                let msg = self.read_on("PBI version 1.0 is obsolete", |m| {
                    m.push_str(", read as 1.1")
                });
                self.warn(n, msg);
                Version::V1_1
            }
            other => {
                let other = String::from_utf8_lossy(other);
                let msg = self
                    .read_on(format!("unknown PBI version {other}"), |m| {
                        m.push_str(", read as 1.2")
                    });
                self.warn(n, msg);
                Version::V1_2
            }
        };
        if !line.after_bom() {
            self.warn(n, "no byte order mark before #PBI");
        }
        if line.end() == LineEnd::None {
            self.warn(n, "the marker line has no line end");
        }
        let rejected = self.opts.strict && !self.found.is_empty();
        self.verdict(report);
        if rejected {
            report.report(Diagnostic::error(n, "input skipped (--strict)"));
            self.state = State::Rejected;
            return None;
        }
        self.state = State::Comments;
        Some(Item::Marker(line))
    }

    /// A data line: split, checked, and kept unless it is malformed.
    fn record<'a>(
        &mut self,
        line: Line<'a>,
        report: &mut dyn Report,
    ) -> Option<Item<'a>> {
        let n = line.number();
        // The fields are borrowed from the split and copied once, into
        // the record (144 bytes: each move is a call to memcpy).
        let split = split(line.content());
        let (fields, shape) = match &split {
            Split::Exact(fields, shape) => (fields, shape),
            Split::Extra(fields, shape) => {
                let msg = self.read_on("more than 9 fields", |m| {
                    m.push_str(": the rest of the line is the comment")
                });
                self.warn(n, msg);
                (fields, shape)
            }
            &Split::Short(found) => {
                let msg = format!("expected 9 fields, found {found}");
                report.report(Diagnostic::error(n, msg));
                self.found.clear();
                return None;
            }
        };
        self.check_text(n, line.content(), fields, shape);
        self.check_sources(n, fields, shape);
        let men = self.check_position(n, fields[Field::Position as usize]);
        self.check_keymove_status(n, fields);
        if self.verdict(report) {
            Some(Item::Record(Record::new(line, fields, shape, men)))
        } else {
            None
        }
    }

    /// Escapes and UTF-8, both for the whole line.
    fn check_text(
        &mut self,
        n: u64,
        content: &[u8],
        fields: &[&[u8]; 9],
        shape: &Shape,
    ) {
        let all = shape.all();
        if all & class::HIGH != 0
            && simdutf8::basic::from_utf8(content).is_err()
        {
            self.warn(n, invalid_utf8(self.opts.strict));
        }
        if all & class::BACKSLASH == 0 {
            return;
        }
        for (i, field) in fields.iter().enumerate() {
            if shape.bits[i] & class::BACKSLASH == 0 {
                continue;
            }
            if let Some((at, count)) = escape::first_bad(field) {
                let shown = escape_shown(&field[at..]);
                let what = format!(
                    "'{shown}' in the {} field is not an escape (\\xHH)",
                    FIELD_NAMES[i]
                );
                let mut msg =
                    self.read_on(what, |m| m.push_str(", kept as written"));
                if count > 1 {
                    msg.push_str(&format!(" (and {} more)", count - 1));
                }
                self.warn(n, msg);
            }
        }
    }

    /// The subfields of the used source, each reference and each award.
    fn check_sources(&mut self, n: u64, fields: &[&[u8]; 9], shape: &Shape) {
        let used = Field::UsedSource as usize;
        if !fields[used].is_empty() {
            let written = subfields(fields[used], shape.pipes[used]);
            self.check_subfields(n, || "used source".into(), written);
        }
        for (field, what) in [
            (Field::References, "referenced source"),
            (Field::Awards, "award"),
        ] {
            let f = field as usize;
            if shape.bits[f] & class::SEMICOLON == 0 {
                // One item at most: the field's own count will do.
                if !trim(fields[f]).is_empty() {
                    let written = subfields(fields[f], shape.pipes[f]);
                    self.check_subfields(n, || format!("{what} 1"), written);
                }
                continue;
            }
            // Nearly always every item has its 3 `|`: one quick pass
            // says so, and only otherwise are the items counted out.
            let ok = swar::split_counting(fields[f], b';', b'|')
                .all(|(item, pipes)| pipes == 3 || trim(item).is_empty());
            if ok {
                continue;
            }
            // One warning for the list, about its first bad item, as a
            // line with thousands of them would otherwise give thousands.
            let mut bad = list(fields[f])
                .map(|item| Subfields::split(item).written)
                .enumerate()
                .filter(|&(_, written)| written != 4);
            if let Some((i, written)) = bad.next() {
                let more = bad.count();
                let name = || format!("{what} {}", i + 1);
                self.subfields_warning(n, name, written, more);
            }
        }
    }

    /// Warns unless `raw` has 4 subfields. `what` names it; it is only
    /// called for the warning, as this runs for every source of every
    /// record.
    fn check_subfields(
        &mut self,
        n: u64,
        what: impl FnOnce() -> String,
        written: usize,
    ) {
        if written != 4 {
            self.subfields_warning(n, what, written, 0);
        }
    }

    /// The warning that `what` has `written` subfields, not 4, and that
    /// `more` items after it in its list have not either.
    fn subfields_warning(
        &mut self,
        n: u64,
        what: impl FnOnce() -> String,
        written: usize,
        more: usize,
    ) {
        let fix = if written < 4 {
            "the missing ones are empty"
        } else {
            "the rest belongs to the last"
        };
        let what = format!("{} has {written} subfields, expected 4", what());
        let mut msg = self.read_on(what, |m| {
            m.push_str(": ");
            m.push_str(fix);
        });
        if more > 0 {
            msg.push_str(&format!(" (and {more} more)"));
        }
        self.warn(n, msg);
    }

    /// Counts the men of the position; warns if it does not parse, or if
    /// it cannot have a GBR code. The board itself is built only for a
    /// tool that asks for it ([`Record::board`]).
    fn check_position(&mut self, n: u64, position: &[u8]) -> Option<Men> {
        if position.is_empty() {
            return None;
        }
        // Men::scan fails exactly when Board::parse does, which then says
        // why.
        let men = Men::scan(position)
            .ok_or(())
            .or_else(|()| Board::parse(position).map(|board| Men::of(&board)));
        match men {
            Ok(men) => {
                if let Err(e) = men.check() {
                    self.warn(n, format!("position has no GBR code: {e}"));
                }
                Some(men)
            }
            Err(e) => {
                self.warn(n, bad_position(&e, self.opts.strict));
                None
            }
        }
    }

    fn check_keymove_status(&mut self, n: u64, fields: &[&[u8]; 9]) {
        let keymove = fields[Field::Keymove as usize];
        let status = fields[Field::Status as usize];
        if self.version == Version::V1_1 {
            for (name, value) in [("keymove", keymove), ("status", status)] {
                if !value.is_empty() {
                    self.warn(n, format!("{name} must be empty in PBI 1.1"));
                }
            }
        }
        if STATUSES.contains(&status) {
            return;
        }
        let decoded = escape::decode(status);
        if !STATUSES.contains(&&*decoded) {
            self.warn(n, unknown_status(&decoded, self.opts.strict));
        }
    }

    /// The message of a warning, `what` is wrong, with how the reader
    /// reads on (`add` puts it in): not under `--strict`, which leaves
    /// the record or the input out, so that the message does not say
    /// "kept" or "read as" of what is not kept or read.
    fn read_on(
        &self,
        what: impl Into<String>,
        add: impl FnOnce(&mut String),
    ) -> String {
        let mut msg = what.into();
        if !self.opts.strict {
            add(&mut msg);
        }
        msg
    }

    /// Notes a warning about the current line.
    fn warn(&mut self, line: u64, message: impl Into<String>) {
        self.found.push(Diagnostic::warning(line, message));
    }

    /// Reports the current line's warnings (as errors with `--strict`),
    /// and says whether the line is kept.
    fn verdict(&mut self, report: &mut dyn Report) -> bool {
        let keep = !self.opts.strict || self.found.is_empty();
        for mut d in self.found.drain(..) {
            if self.opts.strict {
                d.severity = Severity::Error;
            }
            report.report(d);
        }
        keep
    }
}

/// A data line that [`Parser::clean`] found to need no diagnostic.
#[derive(Clone, Copy, Debug)]
pub struct Clean;

/// Whether each item of the list `field` of a scanned line has exactly
/// 3 pipes (4 subfields), as nearly every item has: then reading the
/// field gives no warning. False does not say that it would.
#[inline(always)]
fn items_have_4_subfields(scan: &LineScan, field: Field) -> bool {
    let (start, end) = scan.field(field as usize);
    start == end || scan.items_hold_3_pipes(start, end)
}

impl Version {
    fn from_text(v: &[u8]) -> Version {
        if v == b"1.1" {
            Version::V1_1
        } else {
            Version::V1_2
        }
    }
}

/// The names of the fields in messages.
const FIELD_NAMES: [&str; 9] = [
    "names",
    "position",
    "stipulation",
    "used source",
    "referenced sources",
    "awards",
    "keymove",
    "status",
    "comment",
];

/// How many subfields a source or award written `field` has, given the
/// count of its pipes in its line's [`Shape`], which stops at 255.
fn subfields(field: &[u8], pipes: u8) -> usize {
    match pipes {
        u8::MAX => memchr::memchr_iter(b'|', field).count() + 1,
        pipes => usize::from(pipes) + 1,
    }
}

/// What the first bytes of an input, `head`, say of its first line:
/// `Some(false)` that it cannot be a marker line, so that the input is
/// not PBI whatever follows; `Some(true)` that it may be (its line may
/// have ended: [`Parser::line`] tells); `None` that they do not tell
/// yet. A reader can so reject an input whose first line never ends
/// (`/dev/zero`) as soon as its first bytes say so, instead of reading
/// that line to its end, which the parser needs.
///
/// It never says `Some(false)` of a first line that the parser takes
/// for a marker. It says `None` of any number of version digits: a
/// marker line whose version never ends is read as any long line is.
///
/// ```
/// use chesspipe::pbi::may_begin_with_marker as may;
///
/// assert_eq!(may(b"\0\0\0"), Some(false));
/// assert_eq!(may(b"Loyd, Samuel:"), Some(false));
/// assert_eq!(may(b"#PBI 1.2\n"), Some(true));
/// assert_eq!(may(b"\xEF\xBB\xBF#PBI 1."), None);
/// assert_eq!(may(b"#PBI 1.2 and more"), Some(false));
/// ```
pub fn may_begin_with_marker(head: &[u8]) -> Option<bool> {
    const BOM: &[u8] = crate::lines::BOM;
    const PREFIX: &[u8] = b"#PBI ";
    let head = match head.strip_prefix(BOM) {
        Some(rest) => rest,
        None if BOM.starts_with(head) => return None,
        None => head,
    };
    let n = head.len().min(PREFIX.len());
    if head[..n] != PREFIX[..n] {
        return Some(false);
    }
    // Where the version is: in its major digits, after its dot, in its
    // minor digits.
    #[derive(PartialEq)]
    enum At {
        Start,
        Major,
        Dot,
        Minor,
    }
    let mut at = At::Start;
    for &b in head.get(PREFIX.len()..).unwrap_or_default() {
        at = match (at, b) {
            (At::Start | At::Major, b'0'..=b'9') => At::Major,
            (At::Major, b'.') => At::Dot,
            (At::Dot | At::Minor, b'0'..=b'9') => At::Minor,
            // The first byte of every line end: LF, CR, NEL, LS.
            (At::Minor, b'\n' | b'\r' | 0xC2 | 0xE2) => return Some(true),
            _ => return Some(false),
        };
    }
    None
}

/// The version of a marker line `#PBI <digits>.<digits>`.
fn marker_version(content: &[u8]) -> Option<&[u8]> {
    let version = content.strip_prefix(b"#PBI ")?;
    let dot = version.iter().position(|&b| b == b'.')?;
    let (major, minor) = (&version[..dot], &version[dot + 1..]);
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    (digits(major) && digits(minor)).then_some(version)
}

/// Empty, or only spaces and tabs.
fn is_blank(content: &[u8]) -> bool {
    content.iter().all(|&b| b == b' ' || b == b'\t')
}

/// The warning about a status, decoded, that is none of the six: quoted
/// as messages quote input, its first 24 characters at most
/// ([`crate::diag::shown`]); with `--strict`, which leaves the record
/// out, without "kept".
pub(crate) fn unknown_status(decoded: &[u8], strict: bool) -> String {
    let shown = crate::diag::shown(decoded, 24);
    match strict {
        true => format!("unknown status '{shown}'"),
        false => format!("unknown status '{shown}' kept"),
    }
}

/// The warning about a line that is not all UTF-8; with `--strict`,
/// which leaves the record out, without "carried through".
pub(crate) fn invalid_utf8(strict: bool) -> &'static str {
    match strict {
        true => "invalid UTF-8",
        false => "invalid UTF-8, carried through unchanged",
    }
}

/// The warning about a position that does not parse, `e` saying why;
/// with `--strict`, which leaves the record out, not "kept as text".
pub(crate) fn bad_position(e: &dyn std::fmt::Display, strict: bool) -> String {
    match strict {
        true => format!("position does not parse: {e}"),
        false => format!("position kept as text: {e}"),
    }
}

/// A bad escape as it stands, up to 4 bytes, for a message.
fn escape_shown(s: &[u8]) -> String {
    String::from_utf8_lossy(&s[..s.len().min(4)]).into_owned()
}

#[cfg(test)]
mod tests;
