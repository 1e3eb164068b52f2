/*!
Kriegspiel PGN (seed 002, FORMATS.md "Kriegspiel PGN"): reading games one
at a time and filtering them for one player.

The data flows one way: [`game::GameReader`] collects one game's bytes
from the shared line scanner and tokenizes them ([`token`]); the filter
([`filter`]) walks the tokens and copies the game, hiding what the player
must not know; [`Filter`] does this for every game of an input and
reports the games that cannot be filtered. Games of the usual shape take
a shortcut ([`fast`]): read without tokenizing, then one pass over their
bytes that filters them and checks that they were read right.
[`filter_reader`] filters one reader into any writer.
*/

pub mod comment;
pub mod fast;
pub mod filter;
pub mod game;
pub mod token;

use std::io::{self, Write};

use crate::diag::{self, Diagnostic, Failure, Report};
use crate::lines::LineReader;

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

/// How much filtered output is gathered before it is written (the size
/// of the tools' output buffer, so that each write is one buffer's worth).
pub const OUT_BUFFER: usize = 64 * 1024;

/// Filters every game of one input to `wtr`, on one thread; true if it
/// held a game.
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
    let mut filter = Filter::new(config);
    let mut games = game::GameReader::from_lines(LineReader::new(rdr));
    match filter.games(&mut games, &mut Vec::new(), Some(wtr), report, true) {
        Ok(()) => {}
        Err(Failure::Read(err)) => {
            report.report(Diagnostic::error(0, diag::describe(&err)));
        }
        Err(Failure::Write(err)) => return Err(err),
    }
    Ok(filter.any())
}

/// Filtering the games of one input, or of one batch of its lines.
#[derive(Debug)]
pub struct Filter<'c> {
    config: &'c Config,
    /// Whether games of the usual shape take the shortcut ([`fast`]).
    fast: bool,
    /// Whether the input held a game.
    any: bool,
}

/// A game read and filtered: whether it was a game, and what was wrong
/// with it (it then left no output).
type Filtered = (bool, Option<Diagnostic>);

impl<'c> Filter<'c> {
    /// A filter for `config` that has read no game yet.
    pub fn new(config: &'c Config) -> Filter<'c> {
        Filter { config, fast: fast::applies(config), any: false }
    }

    /// Filters the games of `games` to the end of `out`, which goes to
    /// `wtr` a buffer's worth at a time if there is one (one write, and
    /// no copy into the writer's buffer, per 64 KiB rather than per
    /// game); with none, all of it stays in `out`.
    ///
    /// With `last` false the input was cut short after the lines given:
    /// the last game, which a reader of the whole input would have lost,
    /// is left out (from `out`, which must then have no writer).
    ///
    /// # Errors
    ///
    /// A read error ([`Failure::Read`]) ends the input; a write error
    /// ([`Failure::Write`]) ends everything.
    pub fn games<R: io::Read>(
        &mut self,
        games: &mut game::GameReader<R>,
        out: &mut Vec<u8>,
        mut wtr: Option<&mut dyn Write>,
        report: &mut dyn Report,
        last: bool,
    ) -> Result<(), Failure> {
        debug_assert!(last || wtr.is_none());
        // The last game read waits for the next: where its output starts,
        // and what it was.
        let mut held: Option<(usize, Filtered)> = None;
        let read = loop {
            if let Some(wtr) = wtr.as_mut() {
                if out.len() >= OUT_BUFFER {
                    wtr.write_all(out).map_err(Failure::Write)?;
                    out.clear();
                }
            }
            let mark = out.len();
            match self.next(games, out) {
                Ok(Some(game)) => {
                    if let Some((_, game)) = held.replace((mark, game)) {
                        self.keep(game, report);
                    }
                }
                Ok(None) => break Ok(()),
                Err(err) => break Err(Failure::Read(err)),
            }
        };
        match held {
            Some((mark, _)) if !last && read.is_ok() => out.truncate(mark),
            Some((_, game)) => self.keep(game, report),
            None => {}
        }
        if let Some(wtr) = wtr {
            wtr.write_all(out).map_err(Failure::Write)?;
            out.clear();
        }
        read
    }

    /// The configuration it filters with.
    pub fn config(&self) -> &'c Config {
        self.config
    }

    /// Whether a game was read (not only text between games).
    pub fn any(&self) -> bool {
        self.any
    }

    /// Counts a game read and reports what was wrong with it.
    fn keep(&mut self, (is_game, error): Filtered, report: &mut dyn Report) {
        self.any |= is_game;
        if let Some(error) = error {
            report.report(error);
        }
    }

    /// Reads the next game and writes it filtered to the end of `out`;
    /// `None` at the end of the input.
    fn next<R: io::Read>(
        &self,
        games: &mut game::GameReader<R>,
        out: &mut Vec<u8>,
    ) -> io::Result<Option<Filtered>> {
        let read = if self.fast {
            match games.speculate()? {
                Some(game) if fast::filter(game, self.config, out) => {
                    return Ok(Some((true, None)));
                }
                Some(_) => games.frame()?,
                None => None,
            }
        } else {
            games.next_game()?
        };
        let Some(game) = read else { return Ok(None) };
        if let Some(error) = game.error() {
            return Ok(Some((game.is_game(), Some(error.clone()))));
        }
        if !game.is_game() {
            out.extend_from_slice(game.bytes());
            return Ok(Some((false, None)));
        }
        // A game that cannot be filtered leaves no output.
        let mark = out.len();
        match filter::filter(game, self.config, out) {
            Ok(()) => Ok(Some((true, None))),
            Err(error) => {
                out.truncate(mark);
                Ok(Some((true, Some(error))))
            }
        }
    }
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
            assert!(want.len() > 2 * OUT_BUFFER);
            assert!(got == want, "{config:?}");
            let lines = |e: &Vec<Diagnostic>| {
                e.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
            };
            assert_eq!(lines(&errors), lines(&want_errors));
            assert!(!errors.is_empty());
        }
    }
}
