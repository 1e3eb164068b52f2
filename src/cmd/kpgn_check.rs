//! The work of `kpgn-check`: every game of every input refereed, the
//! games that pass (or, inverted, those that fail) to stdout.

use std::io::{self, Write};

use crate::cmd::cli::Outcome;
use crate::cmd::games;
use crate::cmd::input::Source;
use crate::cmd::msg::Messages;
use crate::cmd::output;
use crate::kpgn::{Check, CheckConfig};

/// Referees every game of `sources`, in order, an input of more than one
/// batch of lines on `threads` threads; with `count`, prints only the
/// number of games that pass (inverted, that fail).
///
/// [`Outcome::NothingSelected`] when the inputs held no game. A game that
/// fails is reported at the line of the first thing wrong.
///
/// # Errors
///
/// A failure to write to stdout (a closed pipe included, which the caller
/// treats as a quiet end).
pub fn run(
    config: &CheckConfig,
    threads: usize,
    count: bool,
    sources: Vec<Source>,
    msgs: &mut Messages,
) -> io::Result<Outcome> {
    let make = || Check::check(config);
    let strict = config.strict;
    let counts = games::run(&make, threads, strict, sources, msgs)?;
    if count {
        let n = if config.invert { counts.failed } else { counts.passed };
        let mut wtr = output::stdout();
        writeln!(wtr, "{n}")?;
        wtr.flush()?;
    }
    Ok(if counts.any() { Outcome::Done } else { Outcome::NothingSelected })
}
