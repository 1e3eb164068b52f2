//! The work of `kpgn-check`: every game of every input refereed, the
//! games that pass (or, inverted, those that fail) to stdout.

use std::io::{self, Write};

use crate::cmd::cli::Outcome;
use crate::cmd::games;
use crate::cmd::input::Source;
use crate::cmd::msg::Messages;
use crate::cmd::output;
use crate::diag::Report;
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

/// Referees one input on `threads` threads, in batches of `batch_bytes`
/// (small batches put the cuts between batches to the test): how many
/// games passed and failed. The output and the reports are the same
/// whatever the number of threads (the fuzz target checks it).
///
/// # Errors
///
/// A failure to write to `wtr`.
pub fn check_batches(
    config: &CheckConfig,
    threads: usize,
    batch_bytes: usize,
    rdr: impl io::Read,
    wtr: &mut impl Write,
    report: &mut dyn Report,
) -> io::Result<(u64, u64)> {
    let make = || Check::check(config);
    let counts = games::read_input(
        &make,
        threads,
        batch_bytes,
        rdr,
        None,
        wtr,
        report,
    )?;
    Ok((counts.passed, counts.failed))
}
