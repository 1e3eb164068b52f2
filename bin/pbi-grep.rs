//! pbi-grep: select records of PBI collections; the output is still PBI.

use std::ffi::OsString;
use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Command, Common, Outcome};
use chesspipe::cmd::input::Source;
use chesspipe::cmd::output;
use chesspipe::cmd::pbi_grep::{
    self, Mode, Pattern, PatternOptions, Selector, Target,
};

const HELP: &str = "\
pbi-grep: select records of PBI collections, output still PBI

Usage: pbi-grep [OPTIONS] PATTERN [FILE...]
       pbi-grep [OPTIONS] (-e PATTERN | FIELD OPTION)... [FILE...]

Regexes match the decoded text of each field; each author, and each
subfield of a source or award, is a text of its own. Different options
must all match; the same option given twice: either may match.

Selection:
  -e, --regexp PATTERN  Match any text of the record (repeatable)
      --author REGEX    Match an author name
      --stip REGEX      Match the stipulation
      --source REGEX    Match a subfield of the used or a referenced source
      --award REGEX     Match a subfield of an award
      --key REGEX       Match the keymove
      --comment REGEX   Match the comment
      --position REGEX  Match the position as written
      --status CHARS    Status is one of CHARS ('' selects an empty status)
      --gbr CODE        The GBR material code starts with CODE
      --pieces RANGE    Men on the board, kings included: 7, ..7, 8..12, 13..
  -i, --ignore-case     Match case-insensitively
  -F, --fixed-strings   Patterns are plain strings, not regexes
  -v, --invert-match    Select the records that do not match

Output:
  -c, --count           Print only the number of selected records
  -q, --quiet           Print nothing; the exit status tells
  -j, --threads NUM     Threads for a large input [default: one per core]

Exit status: 0 records selected, 1 none, 2 an error.
";

/// The command line as given, before it is checked.
#[derive(Default)]
struct Args {
    common: Common,
    regexps: Vec<String>,
    fields: Vec<(Target, String)>,
    status: Option<String>,
    gbr: Option<String>,
    pieces: Option<String>,
    pattern_opts: PatternOptions,
    invert: bool,
    count: bool,
    quiet: bool,
    threads: Option<String>,
    positional: Vec<OsString>,
}

fn parse(mut parser: lexopt::Parser) -> Result<Command<Args>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut args = Args::default();
    while let Some(arg) = parser.next()? {
        let arg = match args.common.take(arg) {
            Ok(None) => continue,
            Ok(Some(Command::Help)) => return Ok(Command::Help),
            Ok(Some(_)) => return Ok(Command::Version),
            Err(arg) => arg,
        };
        let target = match arg {
            Long("author") => Some(Target::Author),
            Long("stip") => Some(Target::Stipulation),
            Long("source") => Some(Target::Source),
            Long("award") => Some(Target::Award),
            Long("key") => Some(Target::Keymove),
            Long("comment") => Some(Target::Comment),
            Long("position") => Some(Target::Position),
            _ => None,
        };
        if let Some(target) = target {
            args.fields.push((target, parser.value()?.string()?));
            continue;
        }
        match arg {
            Short('e') | Long("regexp") => {
                args.regexps.push(parser.value()?.string()?);
            }
            Long("status") => args.status = Some(parser.value()?.string()?),
            Long("gbr") => args.gbr = Some(parser.value()?.string()?),
            Long("pieces") => args.pieces = Some(parser.value()?.string()?),
            Short('i') | Long("ignore-case") => {
                args.pattern_opts.ignore_case = true;
            }
            Short('F') | Long("fixed-strings") => {
                args.pattern_opts.fixed_strings = true;
            }
            Short('v') | Long("invert-match") => args.invert = true,
            Short('c') | Long("count") => args.count = true,
            Short('q') | Long("quiet") => args.quiet = true,
            Short('j') | Long("threads") => {
                args.threads = Some(parser.value()?.string()?);
            }
            Value(v) => args.positional.push(v),
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(Command::Run(args))
}

/// What the checked command line runs.
struct Config {
    selector: Selector,
    mode: Mode,
    strict: bool,
    threads: usize,
    files: Vec<OsString>,
}

fn config(mut args: Args) -> Result<Config, lexopt::Error> {
    let selecting = !args.regexps.is_empty()
        || !args.fields.is_empty()
        || args.status.is_some()
        || args.gbr.is_some()
        || args.pieces.is_some();
    if !selecting {
        if args.positional.is_empty() {
            return Err(cli::usage(
                "a PATTERN or a selection option is needed",
            ));
        }
        let pattern = args.positional.remove(0);
        let pattern = pattern
            .into_string()
            .map_err(|_| cli::usage("the PATTERN is not valid UTF-8"))?;
        args.regexps.push(pattern);
    }
    let opts = args.pattern_opts;
    let regex = |patterns: &[String], option: &str| {
        Pattern::new(patterns, opts).map_err(|e| cli::usage(e.message(option)))
    };
    let mut selector = Selector { invert: args.invert, ..Selector::default() };
    if !args.regexps.is_empty() {
        let option = if selecting { "-e" } else { "PATTERN" };
        selector.any = Some(regex(&args.regexps, option)?);
    }
    for target in Target::ALL {
        let patterns: Vec<String> = args
            .fields
            .iter()
            .filter(|(t, _)| *t == target)
            .map(|(_, p)| p.clone())
            .collect();
        if !patterns.is_empty() {
            selector.fields.push((target, regex(&patterns, target.option())?));
        }
    }
    selector.status = args.status;
    if let Some(code) = args.gbr {
        selector.gbr = Some(gbr_prefix(&code)?);
    }
    if let Some(range) = args.pieces {
        selector.pieces =
            Some(pbi_grep::parse_range(&range).map_err(cli::usage)?);
    }
    let mode = match (args.quiet, args.count) {
        (true, _) => Mode::Quiet,
        (false, true) => Mode::Count,
        (false, false) => Mode::Print,
    };
    Ok(Config {
        selector,
        mode,
        strict: args.common.strict,
        threads: cli::threads(args.threads.as_deref())?,
        files: args.positional,
    })
}

/// A GBR code or a prefix of one: up to 4 digits, then `.` and up to 2.
fn gbr_prefix(code: &str) -> Result<Vec<u8>, lexopt::Error> {
    let (pieces, pawns) = code.split_once('.').unwrap_or((code, ""));
    let digits = |s: &str, max: usize| {
        s.len() <= max && s.bytes().all(|b| b.is_ascii_digit())
    };
    let dot_ok = !code.contains('.') || pieces.len() == 4;
    if code.is_empty() || !digits(pieces, 4) || !digits(pawns, 2) || !dot_ok {
        return Err(cli::usage(format!(
            "'{code}' is not a GBR code or the start of one (like 0023 or 4888.88)"
        )));
    }
    Ok(code.as_bytes().to_vec())
}

fn main() -> ExitCode {
    cli::main(
        "pbi-grep",
        &format!("{HELP}\n{}", cli::COMMON_HELP),
        |parser| match parse(parser)? {
            Command::Run(args) => config(args).map(Command::Run),
            Command::Help => Ok(Command::Help),
            Command::Version => Ok(Command::Version),
        },
        |config, msgs| {
            let sources = Source::from_args(config.files);
            let selected = pbi_grep::run(
                &config.selector,
                config.mode,
                config.strict,
                config.threads,
                &sources,
                msgs,
                output::stdout(),
            )?;
            Ok(if selected > 0 {
                Outcome::Done
            } else {
                Outcome::NothingSelected
            })
        },
    )
}
