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
        None,
        threads,
        batch_bytes,
        rdr,
        None,
        wtr,
        report,
    )?;
    Ok((counts.passed, counts.failed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::par;
    use crate::diag::Diagnostic;
    use crate::kpgn::{filter_reader, Config, Side};
    use crate::testing::Rng;

    /// Games that pass, with tags and without, with their termination
    /// marker and without; games that fail, with tags and without; text
    /// outside games; a comment left open across the next game's tags.
    const PIECES: [&str; 12] = [
        "[Event \"a\"]\n\n1. e4 {(:)} e5 {(:dxe6) B1} 2. Nf3 {(:)} *\n\n",
        "[Event \"b\"]\n\n1. d4 {(:)} d5 {(:)} 2. c4 {(:)}\n",
        "[Event \"c\"]\n\n1. e4 {(:)} e5 {(:d6)} *\n",
        "[Event \"d\"]\n\n1. e4 {(:)} Ke7 {(:)}\n",
        "e4 {(:)} e5 {(:dxe6) B2} Nf3 {(:)} Nc6 {(:) B3} *\n",
        "d4 {(:)} d5 {(:cxd6) B4}\n",
        "e4 {(:)} e5 {(:d6) B5} *\n",
        "{text outside} *\n",
        "{between games}\n\n",
        "[Event \"e\"]\n\n1. e4 {(:)} e5 {(:) B6 open\n",
        "%escape\n",
        "\n",
    ];

    /// What `check_batches` writes and reports, and the counts.
    fn checked(
        threads: usize,
        batch_bytes: usize,
        input: &[u8],
    ) -> (Vec<u8>, Vec<Diagnostic>, (u64, u64)) {
        let config =
            CheckConfig { strict: false, invert: false, quiet: false };
        let (mut out, mut report) = (vec![], vec![]);
        let counts = check_batches(
            &config,
            threads,
            batch_bytes,
            input,
            &mut out,
            &mut report,
        )
        .unwrap();
        (out, report, counts)
    }

    /// A game without tags is refused where, written as read, it would
    /// run into the game written before it: the referee's output reads
    /// as the games that passed, each on its own, so that kpgn-filter
    /// after it hides what it must (`B` words are Black's); and any
    /// number of threads, with any batch size, gives what one does.
    #[test]
    fn what_passes_reads_as_the_same_games_on_any_threads() {
        let mut rng = Rng::new(31);
        for _ in 0..300 {
            let mut input = vec![];
            for _ in 0..rng.below(40) {
                let piece = PIECES[rng.below(PIECES.len())];
                input.extend_from_slice(piece.as_bytes());
            }
            let want = checked(1, par::BATCH_BYTES, &input);
            let threads = 2 + rng.below(3);
            let batch_bytes = 1 + rng.below(300);
            let got = checked(threads, batch_bytes, &input);
            assert!(
                got == want,
                "{threads} threads, batches of {batch_bytes}"
            );
            // Read again, the output passes whole, game by game.
            let again = checked(1, par::BATCH_BYTES, &want.0);
            assert_eq!(again.0, want.0);
            assert_eq!(again.2, (want.2 .0, 0));
            // Filtered for White, none of Black's words shows.
            let config = Config {
                player: Side::White,
                plies: None,
                keep_comments: false,
            };
            let (mut view, mut report) = (vec![], vec![]);
            filter_reader(&config, &want.0[..], &mut view, &mut report)
                .unwrap();
            let view = String::from_utf8(view).unwrap();
            assert!(!view.contains('B'), "{view}");
        }
    }
}
