//! kpgn-check: referees Kriegspiel records; writes those that could have
//! happened.
//!
//! Arguments -> configuration -> [`chesspipe::cmd::kpgn_check::run`] ->
//! exit status; everything else lives in the library.

use std::ffi::OsString;
use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Command, Common, COMMON_HELP};
use chesspipe::cmd::input::Source;
use chesspipe::cmd::kpgn_check;
use chesspipe::kpgn::CheckConfig;

const TOOL: &str = "kpgn-check";

const USAGE: &str = "\
kpgn-check: referee Kriegspiel PGN records; write those that could have happened

Usage: kpgn-check [OPTIONS] [FILE...]

Replays every game, unfiltered or filtered, with the rules of chess: each
move must be legal and marked + or # as it checks or mates, each illegal
attempt illegal, each announcement what the move produced. The games that
pass are written byte for byte; a game that fails is reported at the line
of the first thing wrong. An attempt impossible even on the mover's own
men is a warning.

Options:
  -v, --invert-match   Write the games that fail instead
  -c, --count          Print only the number of games that pass
  -q, --quiet          Print nothing; the exit status tells
  -j, --threads NUM    Threads for a large input [default: one per core]";

/// The command line as given, before it is checked.
#[derive(Debug, Default)]
struct Args {
    invert: bool,
    count: bool,
    quiet: bool,
    threads: Option<String>,
    files: Vec<OsString>,
}

/// What to do: the referee, the threads, the inputs.
struct Run {
    config: CheckConfig,
    threads: usize,
    count: bool,
    sources: Vec<Source>,
}

fn main() -> ExitCode {
    let help = format!("{USAGE}\n\n{COMMON_HELP}");
    cli::main(TOOL, &help, parse, |run, msgs| {
        kpgn_check::run(&run.config, run.threads, run.count, run.sources, msgs)
    })
}

fn parse(mut parser: lexopt::Parser) -> Result<Command<Run>, lexopt::Error> {
    use lexopt::prelude::*;
    let mut common = Common::default();
    let mut args = Args::default();
    while let Some(arg) = parser.next()? {
        let arg = match common.take(arg) {
            Ok(Some(Command::Help)) => return Ok(Command::Help),
            Ok(Some(Command::Version)) => return Ok(Command::Version),
            Ok(Some(Command::Run(()))) | Ok(None) => continue,
            Err(arg) => arg,
        };
        match arg {
            Short('v') | Long("invert-match") => args.invert = true,
            Short('c') | Long("count") => args.count = true,
            Short('q') | Long("quiet") => args.quiet = true,
            Short('j') | Long("threads") => {
                args.threads = Some(parser.value()?.string()?);
            }
            Value(file) => args.files.push(file),
            _ => return Err(arg.unexpected()),
        }
    }
    let config = CheckConfig {
        strict: common.strict,
        invert: args.invert,
        quiet: args.quiet || args.count,
    };
    Ok(Command::Run(Run {
        config,
        threads: cli::threads(args.threads.as_deref())?,
        count: args.count && !args.quiet,
        sources: Source::from_args(args.files),
    }))
}
