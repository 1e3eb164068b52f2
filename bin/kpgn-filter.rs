//! kpgn-filter: writes Kriegspiel games as one player saw them.
//!
//! Arguments -> configuration -> [`chesspipe::cmd::kpgn_filter::run`] -> exit status;
//! everything else lives in the library.

use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Common};
use chesspipe::cmd::flags::kpgn_filter::{Args, SPEC};
use chesspipe::cmd::input::Source;
use chesspipe::cmd::kpgn_filter;
use chesspipe::kpgn::Config;

/// What to do: the filter, the threads, the inputs.
struct Run {
    config: Config,
    threads: usize,
    strict: bool,
    sources: Vec<Source>,
}

fn main() -> ExitCode {
    cli::main(&SPEC, config, |run, msgs| {
        kpgn_filter::run(
            &run.config,
            run.threads,
            run.strict,
            run.sources,
            msgs,
        )
    })
}

fn config(args: Args, common: Common) -> Result<Run, lexopt::Error> {
    let Some(&(player, named)) = args.players.first() else {
        return Err(cli::usage(
            "missing --player (white or black, or -w, -b)",
        ));
    };
    if let Some((_, other)) = args.players.iter().find(|p| p.0 != player) {
        return Err(cli::usage(format!(
            "{named} and {other} do not go together: a game is written as \
             one player saw it"
        )));
    }
    let config = Config {
        player,
        plies: args.plies,
        keep_comments: args.keep_comments,
    };
    Ok(Run {
        config,
        threads: cli::threads(args.threads.as_deref())?,
        strict: common.strict,
        sources: Source::from_args(args.files),
    })
}
