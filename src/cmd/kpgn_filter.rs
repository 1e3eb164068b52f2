//! The work of `kpgn-filter`: every game of every input, filtered for one
//! player, to stdout (see [`games`](crate::cmd::games) for inputs read
//! on several threads).

use std::fs::File;
use std::io::{self, Write};

use crate::cmd::cli::Outcome;
use crate::cmd::games;
use crate::cmd::input::Source;
use crate::cmd::msg::Messages;
use crate::diag::Report;
use crate::kpgn::{Config, Filter};

/// Filters every game of `sources`, in order, to stdout, an input of
/// more than one batch of lines on `threads` threads.
///
/// A game that cannot be filtered is reported and left out; text outside
/// games is left out with a warning (an error with `strict`).
/// [`Outcome::NothingSelected`] when the inputs held no game.
///
/// # Errors
///
/// A failure to write to stdout (a closed pipe included, which the caller
/// treats as a quiet end). Inputs that cannot be opened or read are
/// reported through `msgs` and skipped.
pub fn run(
    config: &Config,
    threads: usize,
    strict: bool,
    sources: Vec<Source>,
    msgs: &mut Messages,
) -> io::Result<Outcome> {
    let make = || Filter::new(config);
    let any = games::run(&make, threads, strict, sources, msgs)?.any();
    Ok(if any { Outcome::Done } else { Outcome::NothingSelected })
}

/// [`filter_reader`](crate::kpgn::filter_reader) on `threads` threads, in
/// batches of `batch_bytes` (small batches put the cuts between batches
/// to the test); true if the input held a game. The output and the
/// reports are the same whatever the number of threads.
///
/// # Errors
///
/// A failure to write to `wtr`.
pub fn filter_batches(
    config: &Config,
    threads: usize,
    batch_bytes: usize,
    rdr: impl io::Read,
    wtr: &mut impl Write,
    report: &mut dyn Report,
) -> io::Result<bool> {
    let input = (rdr, None);
    filter_input(config, threads, batch_bytes, input, wtr, report)
}

/// [`filter_batches`] of a file, its batches mapped from it, as
/// kpgn-filter reads a file named on its command line.
///
/// # Errors
///
/// A failure to write to `wtr`.
pub fn filter_file_batches(
    config: &Config,
    threads: usize,
    batch_bytes: usize,
    file: &File,
    wtr: &mut impl Write,
    report: &mut dyn Report,
) -> io::Result<bool> {
    let input = (file, Some(file));
    filter_input(config, threads, batch_bytes, input, wtr, report)
}

/// [`filter_batches`] of the input `rdr` reads, which is the file
/// `file` when there is one, to be mapped.
fn filter_input(
    config: &Config,
    threads: usize,
    batch_bytes: usize,
    (rdr, file): (impl io::Read, Option<&File>),
    wtr: &mut impl Write,
    report: &mut dyn Report,
) -> io::Result<bool> {
    let make = || Filter::new(config);
    let counts = games::read_input(
        &make,
        None,
        threads,
        batch_bytes,
        rdr,
        file,
        wtr,
        report,
    )?;
    Ok(counts.any())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmd::par;
    use crate::diag::Diagnostic;
    use crate::kpgn::Side;
    use crate::testing::Rng;

    /// Pieces of Kriegspiel PGN that make every way a game can start and
    /// end: blank lines or none between games, games without a marker,
    /// escape lines, `[` lines in comments (tag pairs or not), comments
    /// across lines, text between games, broken games, games filtered
    /// already, indented tag pairs, every line end.
    const PIECES: [&str; 18] = [
        "[Event \"a\"]\n[Site \"x\"]\n\n1. e4 {(:)} e5 {(Xe4:d5) hm} 2. d4 *\n\n",
        "[Event \"b\"]\n1. d4 {(:)} d5 {(:c5)}\n",
        "[Event \"c\"]\r\n\r\n1. c4 {(:)} c5 {(:) a\r\nlong note} 1-0\r\n",
        "%escape\n",
        "[Event \"d\"]\n1. e4 {a comment\n[x] is no tag\n} e5 *\n",
        "[Event \"e\"]\n1. e4 {unclosed\n",
        "{between games}\n\n",
        "[Event \"f\n1. e4 *\n\n",
        "[Filtered \"black\"]\n1. ?? {(:0)} e5 {(:)} *\n\n",
        "\u{a0} [Event \"g\"]\u{85}1. Nf3 {(:)} Nf6 {(:)} *\u{85}\u{85}",
        "[Event \"h\"]\u{2028}1. e4 (1. d4 d5) e5 ; line\u{2028}2. f4 0-1\u{2028}",
        "[Event \"i\"]\r1. g3 {(:)} g6 {(:) \r[Event \"j\"]\r} *\r\r",
        "\n",
        "[Event \"k\"]\n\n1. e4 {(:)} e5 {(Xe4:d5)} 2. d4 1/2-1/2 {after\nthe end}\n",
        "[Event \"l\"]\n1. e4 {(:)}\n%escape in movetext\ne5 {(:)} *\n\n",
        "[Event \"m\"] [Round \"2\"]\n1. h4 {(:)} h5 {(:,}\n*\n",
        "[Event \"n\"]\n1. e4 {(:)} e5 (1... d5 {(:)}\n",
        "[Event \"o\"]\n1. e4 {(:)} e5 {(:) a ( b\n[Event \"p\"]\n) } *\n",
    ];

    fn pieces(rng: &mut Rng, n: usize) -> Vec<u8> {
        let mut input = vec![];
        for _ in 0..n {
            input
                .extend_from_slice(PIECES[rng.below(PIECES.len())].as_bytes());
        }
        input
    }

    /// What `filter_batches` writes and reports, and whether a game was
    /// read.
    fn filtered(
        config: &Config,
        threads: usize,
        batch_bytes: usize,
        rdr: impl io::Read,
    ) -> (Vec<u8>, Vec<Diagnostic>, bool) {
        let (mut out, mut report) = (vec![], vec![]);
        let any = filter_batches(
            config,
            threads,
            batch_bytes,
            rdr,
            &mut out,
            &mut report,
        )
        .unwrap();
        (out, report, any)
    }

    fn configs() -> [Config; 3] {
        [
            Config { player: Side::White, plies: None, keep_comments: false },
            Config { player: Side::Black, plies: None, keep_comments: false },
            Config {
                player: Side::White,
                plies: Some(2),
                keep_comments: true,
            },
        ]
    }

    /// Batches are cut only where a game certainly starts: any number of
    /// threads, with any batch size, writes and reports what one thread
    /// does.
    #[test]
    fn threads_give_what_one_thread_gives() {
        let mut rng = Rng::new(17);
        for round in 0..150 {
            let n = rng.below(120);
            let input = pieces(&mut rng, n);
            let config = &configs()[round % 3];
            let want = filtered(config, 1, par::BATCH_BYTES, &input[..]);
            let threads = 2 + rng.below(3);
            let batch_bytes = 1 + rng.below(400);
            let got = filtered(config, threads, batch_bytes, &input[..]);
            assert!(
                got == want,
                "{threads} threads, batches of {batch_bytes}"
            );
        }
    }

    /// A file is read in batches mapped from it: the same output and
    /// reports as one thread gives, whatever the threads and the batch
    /// size, the batches that find no cut included.
    #[test]
    fn a_mapped_file_gives_what_one_thread_gives() {
        let mut rng = Rng::new(23);
        let dir = std::env::temp_dir()
            .join(format!("chesspipe-kpgn-mapped-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for round in 0..60 {
            let n = rng.below(150);
            let mut input = pieces(&mut rng, n);
            if round % 10 == 3 {
                // A long stretch where no batch may end.
                let game = "%e\n[Event \"e\"]\n1. e4 {(:)} e5 {(:)} *\n\n";
                input.extend_from_slice(game.repeat(300).as_bytes());
                input.extend_from_slice(&pieces(&mut rng, 20));
            }
            if round % 7 == 2 {
                // A BOM, which no reader sees.
                input.splice(0..0, crate::lines::BOM.iter().copied());
            }
            let config = &configs()[round % 3];
            let want = filtered(config, 1, par::BATCH_BYTES, &input[..]);
            let path = dir.join(format!("{round}.kpgn"));
            std::fs::write(&path, &input).unwrap();
            let file = File::open(&path).unwrap();
            let threads = 2 + rng.below(3);
            let batch_bytes = 1 + rng.below(400);
            let (mut out, mut report) = (vec![], vec![]);
            let any = filter_file_batches(
                config,
                threads,
                batch_bytes,
                &file,
                &mut out,
                &mut report,
            )
            .unwrap();
            assert!(
                (out, report, any) == want,
                "round {round}: {threads} threads, batches of {batch_bytes}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Games behind escape lines are never certain starts: past
    /// `MAX_UNCUT` batch sizes, the rest of the input is read on the
    /// calling thread, with the same result.
    #[test]
    fn an_input_that_cannot_be_cut_is_read_on_one_thread() {
        let game = "%escape\n[Event \"e\"]\n1. e4 {(:)} e5 {(Xe4:d5)} *\n\n";
        let input = format!("{}{}", PIECES[0].repeat(40), game.repeat(400));
        for config in &configs() {
            let want = filtered(config, 1, par::BATCH_BYTES, input.as_bytes());
            let got = filtered(config, 2, 64, input.as_bytes());
            assert!(got == want);
            assert!(input.len() > 64 * par::MAX_UNCUT * 4);
        }
    }

    /// A read error: what is written and reported before it is the same
    /// on any number of threads (the game being read when it came is
    /// lost), and the error comes last.
    #[test]
    fn a_read_error_loses_the_same_game_on_any_threads() {
        /// Gives `data` up to `fail`, a few bytes a read, then fails.
        struct Failing<'a>(&'a [u8], usize);
        impl io::Read for Failing<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.1 == 0 {
                    return Err(io::Error::other("disk on fire"));
                }
                let n = buf.len().min(self.1).min(7).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                self.1 -= n;
                Ok(n)
            }
        }
        let mut rng = Rng::new(23);
        for round in 0..150 {
            let input = pieces(&mut rng, 60);
            let fail = rng.below(input.len());
            let config = &configs()[round % 3];
            let rdr = Failing(&input, fail);
            let want = filtered(config, 1, par::BATCH_BYTES, rdr);
            assert_eq!(want.1.last().map(|d| d.line), Some(0));
            let batch_bytes = 1 + rng.below(300);
            let got = filtered(config, 2, batch_bytes, Failing(&input, fail));
            assert_eq!(
                (String::from_utf8_lossy(&got.0), &got.1, got.2),
                (String::from_utf8_lossy(&want.0), &want.1, want.2),
                "fail at {fail}, batches of {batch_bytes}"
            );
        }
    }
}
