/*!
Kriegspiel PGN (seed 002, FORMATS.md "Kriegspiel PGN"): games read one at
a time, and each written as one player saw it.

A [`Reader`] takes an input's lines from the shared line scanner, frames
the games and tokenizes each in one pass ([`read`](self)): every move read
as Kriegspiel SAN ([`san`]), every Kriegspiel comment parsed
([`comment`]), every move number checked against the ply. Its tokens go to
a sink as they come: the [`Filter`] writes the game as one player saw it
([`filter`]); the referee ([`Check`], [`check`]) replays it with the
rules of chess and says whether it could have happened. A game holds in
memory only while it is read; a game with anything wrong leaves no output
and is reported at its line. [`filter_reader`] filters one reader into
any writer, [`check_reader`] referees one.
*/

pub mod check;
pub mod comment;
pub mod filter;
mod lex;
mod pos;
pub(crate) mod read;
pub mod san;

use std::io::{self, Write};

use crate::diag::{self, Diagnostic, Failure, Report};
use crate::lines::LineReader;

pub use check::{Check, CheckConfig};
pub use filter::{Config, Filter};
pub use lex::Cuts;
pub use read::{Carry, Reader, OUT_BUFFER};

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

/// Filters every game of one input to `wtr`; true if it held a game.
///
/// A game that cannot be filtered goes to `report` and is left out. A
/// read error ends the input (the game being read is lost) and is
/// reported as an error about the input as a whole (line 0).
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
    let mut filter = Filter::new(config);
    read_whole(&mut filter, rdr, wtr, report)?;
    Ok(filter.any())
}

/// Referees every game of one input: each game that passes (with
/// `config.invert`, each that fails) goes to `wtr` byte for byte, what is
/// wrong with the others to `report`, each naming its game
/// ([`Diagnostic::game`]). Returns how many games passed and failed.
///
/// A read error ends the input (the game being read is lost) and is
/// reported as an error about the input as a whole (line 0).
///
/// # Errors
///
/// A failure to write to `wtr`.
pub fn check_reader(
    config: &CheckConfig,
    rdr: impl io::Read,
    wtr: &mut impl Write,
    report: &mut dyn Report,
) -> io::Result<(u64, u64)> {
    let mut check = Check::check(config);
    read_whole(&mut check, rdr, wtr, report)?;
    Ok(check.counts())
}

/// Reads every game of one input with `reader` into `wtr`; a read error
/// ends the input and is reported about the input as a whole (line 0).
fn read_whole<S: read::Sink>(
    reader: &mut Reader<S>,
    rdr: impl io::Read,
    wtr: &mut impl Write,
    report: &mut dyn Report,
) -> io::Result<()> {
    let mut lines = LineReader::new(rdr);
    let mut out = Vec::with_capacity(OUT_BUFFER);
    match reader.lines(&mut lines, &mut out, Some(wtr), report, true) {
        Ok(()) => Ok(()),
        Err(Failure::Read(err)) => {
            report.report(Diagnostic::error(
                0,
                format!("read error: {}", diag::describe(&err)),
            ));
            Ok(())
        }
        Err(Failure::Write(err)) => Err(err),
    }
}

#[cfg(test)]
mod tests;
