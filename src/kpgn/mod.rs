/*!
Kriegspiel PGN (seed 002, FORMATS.md "Kriegspiel PGN"): reading games one
at a time and filtering them for one player.

The data flows one way: [`game::GameReader`] collects one game's bytes
from the shared line scanner and tokenizes them ([`token`]); the filter
([`filter`]) walks the tokens and copies the game, hiding what the player
must not know; [`run`] does this for every game of every input and
reports the games that cannot be filtered. Games of the usual shape take
a shortcut ([`fast`]): read without tokenizing, then one pass over their
bytes that filters them and checks that they were read right.
[`filter_reader`] does it for one reader and any writer, for callers that
are not the tool (the fuzz targets in `fuzz/`).
*/

pub mod comment;
pub mod fast;
pub mod filter;
pub mod game;
pub mod token;

use std::io::{self, Write};

use crate::cli::Outcome;
use crate::input::{self, Source};
use crate::msg::{Diagnostic, Messages, Report};
use crate::output;

pub use filter::Config;

/// A side in a game of chess.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// White, who moves first unless a FEN tag says otherwise.
    White,
    /// Black.
    Black,
}

impl Side {
    /// The other side.
    pub fn opponent(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    /// `white` or `black`, as the Filtered tag writes it.
    pub fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }
}

/// Filters every game of `sources`, in order, to stdout.
///
/// A game that cannot be filtered is reported and left out; text between
/// games is copied. [`Outcome::NothingSelected`] when the inputs held no
/// game.
///
/// # Errors
///
/// A failure to write to stdout (a closed pipe included, which the caller
/// treats as a quiet end). Inputs that cannot be opened or read are
/// reported through `msgs` and skipped.
pub fn run(
    config: &Config,
    sources: Vec<Source>,
    msgs: &mut Messages,
) -> io::Result<Outcome> {
    let mut wtr = output::stdout();
    let mut any = false;
    for source in sources {
        msgs.set_input(&source.name());
        match source.open() {
            Ok(rdr) => any |= filter_reader(config, rdr, &mut wtr, msgs)?,
            Err(err) => msgs.input_error(input::describe(&err)),
        }
    }
    wtr.flush()?;
    Ok(if any { Outcome::Done } else { Outcome::NothingSelected })
}

/// Filters every game of one input to `wtr`; true if it held a game.
///
/// A game that cannot be filtered goes to `report` and is left out; text
/// between games is copied. A read error ends the input and is reported
/// as an error about the input as a whole (line 0).
///
/// # Errors
///
/// A failure to write to `wtr`.
pub fn filter_reader(
    config: &Config,
    rdr: impl io::Read,
    wtr: &mut impl Write,
    report: &mut dyn Report,
) -> io::Result<bool> {
    let mut games = game::GameReader::new(rdr);
    // The output of many games, written once it fills a buffer's worth:
    // one write (and no copy into the writer's buffer) per 64 KiB rather
    // than one per game.
    let mut out = Vec::new();
    let mut any = false;
    let fast = fast::applies(config);
    loop {
        if out.len() >= output::BUFFER_SIZE {
            wtr.write_all(&out)?;
            out.clear();
        }
        let read = if fast {
            match games.speculate() {
                Ok(Some(game)) => {
                    if fast::filter(game, config, &mut out) {
                        any = true;
                        continue;
                    }
                    games.frame()
                }
                other => other,
            }
        } else {
            games.next_game()
        };
        let game = match read {
            Ok(Some(game)) => game,
            Ok(None) => break,
            Err(err) => {
                report.report(Diagnostic::error(0, input::describe(&err)));
                break;
            }
        };
        if let Some(error) = game.error() {
            any |= game.is_game();
            report.report(error.clone());
        } else if !game.is_game() {
            out.extend_from_slice(game.bytes());
        } else {
            any = true;
            // A game that cannot be filtered leaves no output.
            let mark = out.len();
            if let Err(error) = filter::filter(game, config, &mut out) {
                out.truncate(mark);
                report.report(error);
            }
        }
    }
    wtr.write_all(&out)?;
    Ok(any)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The output is written a buffer's worth at a time: across those
    /// writes, a game that cannot be filtered (here after part of it was
    /// written out) leaves nothing, and every other game is as filtered
    /// on its own.
    #[test]
    fn batched_output_is_each_game_filtered_alone() {
        let games = [
            "[A \"1\"]\n\n1. e4 {(:)} e5 {(Xe4:d5) x} 2. d4 *\n\n",
            "{between}\n\n",
            "[B \"2\"]\n1. e4 e5\n{(:)} {(:)} 2. d4 *\n\n",
            "[C \"3\"]\n1. d4 (1. c4) d5 ; y\n2. c4 *\n\n",
            "[Filtered \"black\"]\n1. ?? e5 *\n\n",
        ];
        for config in [
            Config { player: Side::White, plies: None, keep_comments: false },
            Config {
                player: Side::Black,
                plies: Some(3),
                keep_comments: true,
            },
        ] {
            let (mut want, mut want_errors) = (vec![], vec![]);
            let mut input = String::new();
            for k in 0..6000 {
                let game = games[k % games.len()];
                input.push_str(game);
                let (mut alone, mut errors) = (vec![], vec![]);
                filter_reader(
                    &config,
                    game.as_bytes(),
                    &mut alone,
                    &mut errors,
                )
                .unwrap();
                if errors.is_empty() {
                    want.extend_from_slice(&alone);
                }
                want_errors.extend(errors);
            }
            let (mut got, mut errors) = (vec![], vec![]);
            assert!(filter_reader(
                &config,
                input.as_bytes(),
                &mut got,
                &mut errors
            )
            .unwrap());
            assert!(want.len() > 2 * output::BUFFER_SIZE);
            assert!(got == want, "{config:?}");
            let lines = |e: &Vec<Diagnostic>| {
                e.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
            };
            assert_eq!(lines(&errors), lines(&want_errors));
            assert!(!errors.is_empty());
        }
    }
}
