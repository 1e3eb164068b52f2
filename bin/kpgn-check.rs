//! kpgn-check: referees Kriegspiel records; writes those that could have
//! happened.
//!
//! Arguments -> configuration -> [`chesspipe::cmd::kpgn_check::run`] ->
//! exit status; everything else lives in the library.

use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Common};
use chesspipe::cmd::flags::kpgn_check::{Args, SPEC};
use chesspipe::cmd::input::Source;
use chesspipe::cmd::kpgn_check;
use chesspipe::kpgn::CheckConfig;

/// What to do: the referee, the threads, the inputs.
struct Run {
    config: CheckConfig,
    threads: usize,
    count: bool,
    sources: Vec<Source>,
}

fn main() -> ExitCode {
    cli::main(&SPEC, config, |run, msgs| {
        kpgn_check::run(&run.config, run.threads, run.count, run.sources, msgs)
    })
}

fn config(args: Args, common: Common) -> Result<Run, lexopt::Error> {
    let config = CheckConfig {
        strict: common.strict,
        invert: args.invert,
        quiet: args.quiet || args.count,
    };
    Ok(Run {
        config,
        threads: cli::threads(args.threads.as_deref())?,
        count: args.count && !args.quiet,
        sources: Source::from_args(args.files),
    })
}
