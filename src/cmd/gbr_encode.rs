//! The logic of `gbr-encode`: positions in, GBR codes out, one line each
//! (or, with `--decode`, codes in and what they stand for out).
//!
//! The binary parses its arguments into [`Args`]; [`Args::check`] turns
//! them into a [`Config`]; [`run`] reads every input through the shared
//! [`LineReader`] and writes through one buffered stdout. Each line is
//! encoded into one reused buffer, so nothing is allocated per line.
//!
//! An input whose first line starts with `#PBI` is a PBI collection: its
//! lines go through the PBI reader, and the position of each record is
//! encoded.

use std::ffi::OsString;
use std::io::{self, Read, Write};

use memchr::memchr;

use crate::board::Board;
use crate::cmd::cli::{self, Outcome};
use crate::cmd::input::Source;
use crate::cmd::msg::Messages;
use crate::cmd::output;
use crate::cmd::par::{self, Batch, Work};
use crate::diag::{self, Diagnostic, Failure, Report};
use crate::gbr::{self, Form, Men, ToMove, Verdict};
use crate::lines::{Line, LineReader};
use crate::pbi;

/// The command line as given, before any check.
#[derive(Clone, Debug, Default)]
pub struct Args {
    /// `-f`/`--format`, as given.
    pub format: Option<OsString>,
    /// `--result`, as given.
    pub result: Option<OsString>,
    /// `-p`/`--prefix`.
    pub prefix: bool,
    /// `-d`/`--decode`.
    pub decode: bool,
    /// `--strict`.
    pub strict: bool,
    /// `-j`/`--threads`, as given.
    pub threads: Option<String>,
    /// The FILE arguments.
    pub files: Vec<OsString>,
}

/// What to do, checked.
#[derive(Clone, Debug)]
pub struct Config {
    /// Which form to write when encoding.
    pub form: Form,
    /// The verdict written into the position and study forms.
    pub verdict: Verdict,
    /// Write the code, a tab, then the input line.
    pub prefix: bool,
    /// Read codes and write what they stand for.
    pub decode: bool,
    /// Every warning is an error.
    pub strict: bool,
    /// Worker threads for a large input of positions or codes (1: all on
    /// the calling thread).
    pub threads: usize,
    /// The inputs, in order.
    pub sources: Vec<Source>,
}

impl Args {
    /// Checks the values and the combinations of options.
    ///
    /// `--result` only means something in the position and study forms,
    /// and `--format` and `--result` nothing when decoding: asking for
    /// them anyway is a usage error rather than silently ignored.
    ///
    /// # Errors
    ///
    /// A usage error naming the option.
    pub fn check(self) -> Result<Config, lexopt::Error> {
        let form = match self.format.as_deref().map(|f| f.to_str()) {
            None => Form::Code,
            Some(Some("code")) => Form::Code,
            Some(Some("position")) => Form::Position,
            Some(Some("study")) => Form::Study,
            Some(_) => {
                return Err(invalid("--format", "code, position, study"))
            }
        };
        let verdict = match self.result.as_deref().map(|r| r.to_str()) {
            None => Verdict::None,
            Some(Some("win")) => Verdict::Win,
            Some(Some("draw")) => Verdict::Draw,
            Some(_) => return Err(invalid("--result", "win, draw")),
        };
        if self.decode && (self.format.is_some() || self.result.is_some()) {
            return Err(cli::usage(
                "--format and --result do not go with --decode (it reads \
                 every form)",
            ));
        }
        if verdict != Verdict::None && form == Form::Code {
            return Err(cli::usage(
                "--result needs --format position or --format study (the \
                 material code has no verdict)",
            ));
        }
        Ok(Config {
            form,
            verdict,
            prefix: self.prefix,
            decode: self.decode,
            strict: self.strict,
            threads: cli::threads(self.threads.as_deref())?,
            sources: Source::from_args(self.files),
        })
    }
}

fn invalid(option: &str, valid: &str) -> lexopt::Error {
    cli::usage(format!("invalid value for {option}: expected one of {valid}"))
}

/// Runs `config` over its inputs, writing to stdout. Bad lines are
/// reported through `msgs` (which then makes the exit status 2); a file
/// that cannot be opened or read is reported and the next one read.
///
/// # Errors
///
/// An error writing to stdout.
pub fn run(config: Config, msgs: &mut Messages) -> io::Result<Outcome> {
    let mut out = output::stdout();
    let mut job = Job::new(&config);
    for source in &config.sources {
        msgs.set_input(&source.name());
        match source.open() {
            Ok(rdr) => job.input(rdr, msgs, &mut out)?,
            Err(err) => msgs.input_error(diag::describe(&err)),
        }
    }
    out.flush()?;
    Ok(Outcome::Done)
}

/// One run's settings and its reused output buffer.
#[derive(Clone, Debug)]
pub struct Job {
    form: Form,
    verdict: Verdict,
    prefix: bool,
    decode: bool,
    strict: bool,
    threads: usize,
    buf: Vec<u8>,
}

impl Job {
    /// A job doing what `config` says.
    pub fn new(config: &Config) -> Job {
        Job {
            form: config.form,
            verdict: config.verdict,
            prefix: config.prefix,
            decode: config.decode,
            strict: config.strict,
            threads: config.threads,
            buf: Vec::with_capacity(256),
        }
    }

    /// Reads one input to its end. A read error is reported (as an error
    /// about the whole input) and ends this input. Past its first batch
    /// of lines, an input of positions or codes is read in batches that
    /// `threads` workers encode ([`par`]).
    ///
    /// # Errors
    ///
    /// An error writing to `out`.
    pub fn input<R: Read, W: Write>(
        &mut self,
        rdr: R,
        report: &mut impl Report,
        out: &mut W,
    ) -> io::Result<()> {
        let mut lines = LineReader::new(rdr);
        let mut pbi: Option<pbi::Parser> = None;
        // Bytes of lines read on this thread: past one batch, the rest
        // goes to the workers.
        let mut read = 0;
        loop {
            let line = match lines.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(err) => {
                    report.report(Diagnostic::error(
                        0,
                        format!("read error: {}", diag::describe(&err)),
                    ));
                    return Ok(());
                }
            };
            let content = line.content();
            if line.number() == 1 && !self.decode && content.starts_with(PBI) {
                let opts = pbi::Options { strict: self.strict };
                pbi = Some(pbi::Parser::new(opts));
            }
            read += line.raw().len();
            match pbi.as_mut() {
                Some(parser) => self.record(parser, line, report, out)?,
                None => {
                    self.line(
                        content,
                        0,
                        content.len(),
                        line.number(),
                        report,
                        out,
                    )?;
                    if read >= par::BATCH_BYTES {
                        return self.parallel(&mut lines, report, out);
                    }
                }
            }
        }
        if let Some(parser) = pbi.as_mut() {
            parser.finish(&mut PositionErrors(report));
        }
        Ok(())
    }

    /// Encodes the rest of an input of positions or codes with [`par`]
    /// workers (on this thread for one).
    fn parallel<R: Read, W: Write>(
        &mut self,
        lines: &mut LineReader<R>,
        report: &mut impl Report,
        out: &mut W,
    ) -> io::Result<()> {
        let workers =
            (0..self.threads).map(|_| Encoding(self.clone())).collect();
        let done = par::run_lines(lines, workers, par::BATCH_BYTES, |batch| {
            for d in batch.diagnostics.drain(..) {
                report.report(d);
            }
            out.write_all(&batch.out)?;
            Ok(true)
        });
        match done {
            Ok(()) => Ok(()),
            Err(Failure::Read(err)) => {
                report.report(Diagnostic::error(
                    0,
                    format!("read error: {}", diag::describe(&err)),
                ));
                Ok(())
            }
            Err(Failure::Write(err)) => Err(err),
        }
    }

    /// Hands one line of a PBI input to `parser`, and encodes the
    /// position of the record it makes. Empty positions are skipped; a
    /// position that does not parse, or cannot have a code, has been
    /// reported as an error by [`PositionErrors`].
    fn record<W: Write>(
        &mut self,
        parser: &mut pbi::Parser,
        line: Line<'_>,
        report: &mut impl Report,
        out: &mut W,
    ) -> io::Result<()> {
        let item = parser.line(line, &mut PositionErrors(report));
        let Some(pbi::Item::Record(rec)) = item else {
            return Ok(());
        };
        let Some(men) = rec.men() else {
            return Ok(());
        };
        if men.check().is_err() {
            return Ok(());
        }
        self.buf.clear();
        let done = if self.form == Form::Code {
            men.write_code(&mut self.buf);
            true
        } else if let Some(board) = rec.board() {
            self.encode_board(&board, ToMove::Unknown, rec.number(), report)
        } else {
            // Men were counted, so the board parses: not reached.
            false
        };
        if done {
            self.write(rec.line().content(), out)?;
        }
        Ok(())
    }

    /// Encodes or decodes one input line, `hay[start..end]`, number
    /// `number`; blank lines are skipped. The bytes of `hay` after the
    /// line may be read (not written), to read a board faster.
    fn line<W: Write>(
        &mut self,
        hay: &[u8],
        start: usize,
        end: usize,
        number: u64,
        report: &mut impl Report,
        out: &mut W,
    ) -> io::Result<()> {
        let text = &hay[start..end];
        let trimmed = gbr::trim(text);
        if trimmed.is_empty() {
            return Ok(());
        }
        self.buf.clear();
        let done = if self.decode {
            self.decode_line(trimmed, number, report)
        } else {
            let (field, rest) = gbr::split_field(trimmed);
            if self.form == Form::Code {
                // Where the board is in `hay`.
                let at = field.as_ptr() as usize - hay.as_ptr() as usize;
                self.encode_code(hay, at, at + field.len(), number, report)
            } else {
                self.encode(field, rest, number, report)
            }
        };
        if done {
            self.write(text, out)?;
        }
        Ok(())
    }

    /// Writes the buffer, then (with `--prefix`) a tab and `text`, then
    /// LF, in one call.
    fn write<W: Write>(&mut self, text: &[u8], out: &mut W) -> io::Result<()> {
        if self.prefix {
            self.buf.push(b'\t');
            self.buf.extend_from_slice(text);
        }
        self.buf.push(b'\n');
        out.write_all(&self.buf)
    }

    /// Encodes one board field into the buffer, the side to move taken
    /// from the first of the `fields` that follow it; false (after
    /// reporting why) when nothing is to be written for it.
    pub fn encode(
        &mut self,
        field: &[u8],
        fields: &[u8],
        number: u64,
        report: &mut impl Report,
    ) -> bool {
        if self.form == Form::Code {
            return self.encode_code(field, 0, field.len(), number, report);
        }
        let to_move = ToMove::from_fen(gbr::split_field(fields).0);
        let board = match Board::parse(field) {
            Ok(board) => board,
            Err(err) => return error(report, number, err),
        };
        if let Err(err) = board.check_material() {
            return error(report, number, err);
        }
        self.encode_board(&board, to_move, number, report)
    }

    /// Encodes a board that passed [`Board::check_material`] into the
    /// buffer; false (after reporting why) when nothing is to be written.
    fn encode_board(
        &mut self,
        board: &Board,
        to_move: ToMove,
        number: u64,
        report: &mut impl Report,
    ) -> bool {
        let (form, verdict) = (self.form, self.verdict);
        let nine = gbr::encode(board, form, verdict, to_move, &mut self.buf);
        if nine && form == Form::Position {
            let message = "digit 9 in the code: the position form cannot be \
                           decoded";
            if self.strict {
                return error(report, number, message);
            }
            report.report(Diagnostic::warning(number, message));
        }
        true
    }

    /// The material code alone needs only the counts of the men, which
    /// [`Men::scan_in`] gets several times faster than building the
    /// board: of the board `hay[start..end]`, read in place.
    fn encode_code(
        &mut self,
        hay: &[u8],
        start: usize,
        end: usize,
        number: u64,
        report: &mut impl Report,
    ) -> bool {
        let men = match Men::scan_in(hay, start, end) {
            Some(men) => men,
            None => match Board::parse(&hay[start..end]) {
                Ok(board) => Men::of(&board),
                Err(err) => return error(report, number, err),
            },
        };
        if let Err(err) = men.check() {
            return error(report, number, err);
        }
        men.write_code(&mut self.buf);
        true
    }

    fn decode_line(
        &mut self,
        text: &[u8],
        number: u64,
        report: &mut impl Report,
    ) -> bool {
        match gbr::decode(text, &mut self.buf) {
            Ok(()) => true,
            Err(err) => error(report, number, err),
        }
    }
}

/// A worker thread of [`Job::parallel`]: its own job and buffer.
struct Encoding(Job);

impl Work for Encoding {
    fn work(&mut self, batch: &mut Batch) {
        let Batch { lines, out, diagnostics, .. } = batch;
        let job = &mut self.0;
        // Writing into a Vec cannot fail.
        if lines.lf_only() {
            // Each line found by its LF; a board is read in place, with
            // the lines after it; the usual line of a material code in
            // one pass ([`gbr::code_line`]).
            let bytes = lines.bytes();
            let code = job.form == Form::Code && !job.decode;
            let (mut start, mut number) = (0, lines.first());
            while start < bytes.len() {
                match gbr::code_line(bytes, start).filter(|_| code) {
                    Some((end, men)) if men.check().is_ok() => {
                        if job.prefix {
                            job.buf.clear();
                            men.write_code(&mut job.buf);
                            let _ = job.write(&bytes[start..end], out);
                        } else {
                            let mut code = [b'\n'; 8];
                            men.code_into(&mut code);
                            out.extend_from_slice(&code);
                        }
                        start = end + 1;
                    }
                    _ => {
                        let Some(at) = memchr(b'\n', &bytes[start..]) else {
                            break;
                        };
                        let end = start + at;
                        let _ = job.line(
                            bytes,
                            start,
                            end,
                            number,
                            diagnostics,
                            out,
                        );
                        start = end + 1;
                    }
                }
                number += 1;
            }
        } else {
            lines.each(|line| {
                let content = line.content();
                let (n, len) = (line.number(), content.len());
                let _ = job.line(content, 0, len, n, diagnostics, out);
            });
        }
    }
}

/// How a PBI input starts (after an optional BOM).
const PBI: &[u8] = b"#PBI";

/// The PBI reader's messages, except that its warnings about the
/// position become errors: a position without a code is an error for
/// gbr-encode (FORMATS.md, GBR 7), while pbi2csv only warns. The
/// message is then worded as for a line of FEN input.
struct PositionErrors<'r, R>(&'r mut R);

/// The PBI reader's prefixes of the position warnings (the second under
/// `--strict`).
const POSITION_WARNINGS: [&str; 3] = [
    "position kept as text: ",
    "position does not parse: ",
    "position has no GBR code: ",
];

impl<R: Report> Report for PositionErrors<'_, R> {
    fn report(&mut self, mut d: Diagnostic) {
        for prefix in POSITION_WARNINGS {
            if let Some(rest) = d.message.strip_prefix(prefix) {
                d = Diagnostic::error(d.line, rest);
                break;
            }
        }
        self.0.report(d);
    }
}

/// Reports an error at `line`; false, for the caller to return.
fn error(report: &mut impl Report, line: u64, message: impl ToString) -> bool {
    report.report(Diagnostic::error(line, message.to_string()));
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Severity;

    fn args(format: Option<&str>, result: Option<&str>, decode: bool) -> Args {
        Args {
            format: format.map(OsString::from),
            result: result.map(OsString::from),
            decode,
            ..Args::default()
        }
    }

    #[test]
    fn option_combinations() {
        let ok = |a: Args| a.check().unwrap();
        let c = ok(args(None, None, false));
        assert_eq!((c.form, c.verdict), (Form::Code, Verdict::None));
        assert_eq!(c.sources, vec![Source::Stdin]);
        let c = ok(args(Some("study"), Some("draw"), false));
        assert_eq!((c.form, c.verdict), (Form::Study, Verdict::Draw));
        let c = ok(args(Some("position"), Some("win"), false));
        assert_eq!((c.form, c.verdict), (Form::Position, Verdict::Win));
        assert!(ok(args(None, None, true)).decode);
        for bad in [
            args(Some("fen"), None, false),
            args(Some("position"), Some("lose"), false),
            args(None, Some("win"), false),
            args(Some("code"), Some("win"), false),
            args(Some("code"), None, true),
            args(None, Some("draw"), true),
        ] {
            assert!(bad.clone().check().is_err(), "{bad:?}");
        }
    }

    fn config(form: Form, prefix: bool) -> Config {
        Config {
            form,
            verdict: Verdict::None,
            prefix,
            decode: false,
            strict: false,
            threads: 1,
            sources: vec![],
        }
    }

    fn run_job(config: &Config, input: &[u8]) -> (String, Vec<Diagnostic>) {
        let (mut out, mut report) = (vec![], vec![]);
        Job::new(config).input(input, &mut report, &mut out).unwrap();
        (String::from_utf8(out).unwrap(), report)
    }

    #[test]
    fn lines_and_their_errors() {
        let input = b"8/K7/2nn4/8/8/1B1k4/1R6/8 b\n\n8/8\n  k7/8/8/8/8/8/8/K7";
        let (out, report) = run_job(&config(Form::Position, false), input);
        assert_eq!(out, "a7d3 0116.00 b2b3c6d6 3/3 BTM.\na1a8 0000.00 1/1.\n");
        assert_eq!(report.len(), 1);
        assert_eq!(report[0].line, 3);
        assert_eq!(report[0].severity, Severity::Error);
        assert_eq!(report[0].message, "2 ranks in the position, expected 8");
    }

    #[test]
    fn read_errors_end_the_input_with_an_error() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("Disk on fire (os error 5)"))
            }
        }
        let (mut out, mut report) = (vec![], vec![]);
        let mut job = Job::new(&config(Form::Code, false));
        job.input(Failing, &mut report, &mut out).unwrap();
        assert!(out.is_empty());
        assert_eq!(
            report,
            vec![Diagnostic::error(0, "read error: disk on fire")]
        );
    }

    #[test]
    fn pbi_position_warnings_become_errors() {
        let input = "\u{feff}#PBI 1.2\nA:8/8/8/8/8/8/8/K7:#2:::::!:\n\
                     B:8/K7/2nn4/8/8/1B1k4/1R6/8:#2:::::!:\n";
        let (out, report) =
            run_job(&config(Form::Code, true), input.as_bytes());
        assert_eq!(out, "0116.00\tB:8/K7/2nn4/8/8/1B1k4/1R6/8:#2:::::!:\n");
        assert_eq!(report, vec![Diagnostic::error(2, "no black king")]);
    }

    /// Lines encoded in batches, most of them the fast way, give what
    /// lines encoded one by one give: codes, prefixes and errors.
    #[test]
    fn batches_encode_as_lines_do() {
        let mut rng = crate::testing::Rng::new(51);
        const LINES: &[&str] = &[
            "8/K7/2nn4/8/8/1B1k4/1R6/8 b - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 opening",
            "8/8/8/8/8/8/8/K1k5",
            "  8/8/8/8/8/8/8/K1k5 w",
            "8/8/8/8/8/8/8/K1k5\tw - - 1 2",
            "",
            "   ",
            "8/8",
            "8/8/8/8/8/8/8/8 w",
            "KK6/8/8/8/8/8/8/7k",
            "PPPPPPPPP/8/8/8/8/8/K7/k7",
            "11111111/11111111/11111111/11111111/11111111/11111111/11111111/K1k11111 w",
            "8/8/8/8/8/8/8/K1k5 b - - 0 1 ; a long comment that goes on and on past sixty-four bytes",
            "qqqqqqqq/qqqqqqqq/8/8/8/8/K7/k7",
        ];
        let mut input = vec![];
        for _ in 0..20_000 {
            input.extend_from_slice(LINES[rng.below(LINES.len())].as_bytes());
            input.push(b'\n');
        }
        for prefix in [false, true] {
            let config = Config { prefix, ..config(Form::Code, prefix) };
            let (mut want, mut want_diags) = (vec![], vec![]);
            let mut job = Job::new(&config);
            let mut start = 0;
            for (i, line) in input.split(|&b| b == b'\n').enumerate() {
                if start >= input.len() {
                    break;
                }
                let end = start + line.len();
                job.line(
                    &input,
                    start,
                    end,
                    i as u64 + 1,
                    &mut want_diags,
                    &mut want,
                )
                .unwrap();
                start = end + 1;
            }
            let (mut got, mut got_diags) = (vec![], vec![]);
            let mut lines = LineReader::new(&input[..]);
            let workers = vec![Encoding(Job::new(&config))];
            par::run_lines(&mut lines, workers, 4096, |batch| {
                assert!(batch.lines.lf_only());
                got_diags.append(&mut batch.diagnostics);
                got.extend_from_slice(&batch.out);
                Ok(true)
            })
            .unwrap();
            assert!(got == want, "prefix {prefix}");
            assert_eq!(got_diags, want_diags);
            assert!(want_diags.len() > 1000);
        }
    }
}
