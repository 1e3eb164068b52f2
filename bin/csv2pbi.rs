//! csv2pbi: a spreadsheet (CSV or .xlsx) back to a PBI problem collection.

use std::process::ExitCode;

use chesspipe::cmd::cli::{self, Common, Outcome};
use chesspipe::cmd::csv2pbi;
use chesspipe::cmd::flags::csv2pbi::{Args, SPEC};
use chesspipe::cmd::input::Source;
use chesspipe::cmd::output;

/// Checks the arguments and makes the configuration.
fn config(
    args: Args,
    common: Common,
) -> Result<(csv2pbi::Config, Vec<Source>), lexopt::Error> {
    let delimiter = match &args.delimiter {
        Some(d) => cli::delimiter(d)?,
        None => b',',
    };
    let config = csv2pbi::Config {
        delimiter,
        raw: args.raw,
        strict: common.strict,
        comments: args.comments.map(Source::from_arg),
        threads: cli::threads(args.threads.as_deref())?,
    };
    Ok((config, Source::from_args(args.files)))
}

fn main() -> ExitCode {
    cli::main(&SPEC, config, |(config, sources), msgs| {
        csv2pbi::run(&config, &sources, msgs, output::stdout_unbuffered())?;
        Ok(Outcome::Done)
    })
}
