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
    let mut out = Vec::new();
    let mut any = false;
    let fast = fast::applies(config);
    loop {
        let read = if fast {
            match games.speculate() {
                Ok(Some(game)) => {
                    out.clear();
                    if fast::filter(game, config, &mut out) {
                        any = true;
                        wtr.write_all(&out)?;
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
            Ok(None) => return Ok(any),
            Err(err) => {
                report.report(Diagnostic::error(0, input::describe(&err)));
                return Ok(any);
            }
        };
        if let Some(error) = game.error() {
            any |= game.is_game();
            report.report(error.clone());
        } else if !game.is_game() {
            wtr.write_all(game.bytes())?;
        } else {
            any = true;
            out.clear();
            match filter::filter(game, config, &mut out) {
                Ok(()) => wtr.write_all(&out)?,
                Err(error) => report.report(error),
            }
        }
    }
}
