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
*/

pub mod comment;
pub mod fast;
pub mod filter;
pub mod game;
pub mod token;

use std::io::{self, Write};

use crate::cli::Outcome;
use crate::input::Source;
use crate::msg::{Messages, Report};
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
    let mut out = Vec::new();
    let mut any = false;
    for source in sources {
        msgs.set_input(&source.name());
        match source.open() {
            Ok(rdr) => {
                any |= filter_input(config, rdr, &mut out, &mut wtr, msgs)?
            }
            Err(err) => msgs.input_error(describe(&err)),
        }
    }
    wtr.flush()?;
    Ok(if any { Outcome::Done } else { Outcome::NothingSelected })
}

/// Filters the games of one input; true if it held a game.
fn filter_input(
    config: &Config,
    rdr: impl io::Read,
    out: &mut Vec<u8>,
    wtr: &mut impl Write,
    msgs: &mut Messages,
) -> io::Result<bool> {
    let mut games = game::GameReader::new(rdr);
    let mut any = false;
    let fast = fast::applies(config);
    loop {
        let read = if fast {
            match games.speculate() {
                Ok(Some(game)) => {
                    out.clear();
                    if fast::filter(game, config, out) {
                        any = true;
                        wtr.write_all(out)?;
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
                msgs.input_error(describe(&err));
                return Ok(any);
            }
        };
        if let Some(error) = game.error() {
            any |= game.is_game();
            msgs.report(error.clone());
        } else if !game.is_game() {
            wtr.write_all(game.bytes())?;
        } else {
            any = true;
            out.clear();
            match filter::filter(game, config, out) {
                Ok(()) => wtr.write_all(out)?,
                Err(error) => msgs.report(error),
            }
        }
    }
}

/// An I/O error as a message: lowercase, without the OS error number.
fn describe(err: &io::Error) -> String {
    let text = err.to_string();
    let text = match text.find(" (os error") {
        Some(at) => &text[..at],
        None => &text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}
