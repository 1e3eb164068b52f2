//! kpgn-filter: writes Kriegspiel games as one player saw them.
//!
//! Arguments -> configuration -> [`chesspipe::cmd::kpgn_filter::run`] -> exit status;
//! everything else lives in the library.

use std::ffi::OsString;
use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Command, Common, COMMON_HELP};
use chesspipe::cmd::input::Source;
use chesspipe::cmd::kpgn_filter;
use chesspipe::kpgn::{Config, Side};

const TOOL: &str = "kpgn-filter";

const USAGE: &str = "\
kpgn-filter: write Kriegspiel PGN games as one player saw them

Usage: kpgn-filter --player white|black [OPTIONS] [FILE...]

The opponent's moves become ??, their illegal attempts a count, their
comments, NAGs and glyphs disappear; the referee's announcements stay;
variations go; the Filtered tag names the player. Everything else is
copied byte for byte.

Options:
  -p, --player SIDE    The player whose view is written: white or black
  -w                   Same as --player white
  -b                   Same as --player black
      --plies N        Keep only the first N half-moves of each game;
                       Result becomes *
      --keep-comments  Keep the comments of the opponent's moves (their
                       NAGs and glyphs still go)
  -j, --threads NUM    Threads for a large input [default: one per core]";

/// The command line as given, before it is checked.
#[derive(Debug, Default)]
struct Args {
    player: Option<Side>,
    plies: Option<u64>,
    keep_comments: bool,
    threads: Option<String>,
    files: Vec<OsString>,
}

/// What to do: the filter, the threads, the inputs.
struct Run {
    config: Config,
    threads: usize,
    strict: bool,
    sources: Vec<Source>,
}

fn main() -> ExitCode {
    let help = format!("{USAGE}\n\n{COMMON_HELP}");
    cli::main(TOOL, &help, parse, |run, msgs| {
        kpgn_filter::run(
            &run.config,
            run.threads,
            run.strict,
            run.sources,
            msgs,
        )
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
            Short('w') => args.player = Some(Side::White),
            Short('b') => args.player = Some(Side::Black),
            Short('p') | Long("player") => {
                args.player = Some(side(parser.value()?)?);
            }
            Long("plies") => args.plies = Some(parser.value()?.parse()?),
            Long("keep-comments") => args.keep_comments = true,
            Short('j') | Long("threads") => {
                args.threads = Some(parser.value()?.string()?);
            }
            Value(file) => args.files.push(file),
            _ => return Err(arg.unexpected()),
        }
    }
    let player = args.player.ok_or_else(|| {
        cli::usage("missing --player (white or black, or -w, -b)")
    })?;
    let config = Config {
        player,
        plies: args.plies,
        keep_comments: args.keep_comments,
    };
    Ok(Command::Run(Run {
        config,
        threads: cli::threads(args.threads.as_deref())?,
        strict: common.strict,
        sources: Source::from_args(args.files),
    }))
}

fn side(value: OsString) -> Result<Side, lexopt::Error> {
    match value.to_str() {
        Some("white") => Ok(Side::White),
        Some("black") => Ok(Side::Black),
        _ => Err(cli::usage(format!(
            "invalid value {value:?} for --player: white or black"
        ))),
    }
}
