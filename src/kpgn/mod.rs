/*!
Kriegspiel PGN (seed 002, FORMATS.md "Kriegspiel PGN"): games read one at
a time, and each written as one player saw it.

[`Filter`] takes an input's lines from the shared line scanner. It frames
the games, and filters each in the same pass in which it tokenizes it
([`filter`]): every move read as Kriegspiel SAN ([`san`]), every
Kriegspiel comment parsed ([`comment`]), every move number checked
against the ply. A game holds in memory only while it is read; a game
with anything wrong leaves no output and is reported at its line.
[`filter_reader`] does it for one reader and any writer.

Framing (the rules every reader of the input follows, so that an input
cut into parts at [`Cuts`] reads as a whole):

- a game starts at a line of tag pairs, or at a line of movetext that
  holds more than comments;
- it ends after the line of its termination marker (and the comment
  that line opens), at a line whose first byte that is not white space
  is `[` (after its tag section; in an open comment only if the line is
  tag pairs), or at the end of the input;
- blank lines after a game that was written are written after it; text
  outside games is left out and never held in memory, comments with one
  warning between two games, escape lines (`%`, which PGN readers are
  to ignore) without one.
*/

pub mod comment;
pub mod filter;
mod lex;
pub mod san;

use std::io::{self, Write};

use crate::diag::{self, Diagnostic, Failure, Report};
use crate::lines::{
    count_line_ends, find_line_end, last_line_end, LineReader,
};
use filter::{Game, Stop};

pub use filter::Config;
pub use lex::Cuts;

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

/// How much output is gathered before it is written (the tools' output
/// buffer size, so that each write is one buffer's worth).
pub const OUT_BUFFER: usize = 64 * 1024;

/// How much input is read at a time.
const BLOCK: usize = 64 * 1024;

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
    let mut lines = LineReader::new(rdr);
    let mut out = Vec::with_capacity(OUT_BUFFER);
    match filter.lines(&mut lines, &mut out, Some(wtr), report, true) {
        Ok(()) => {}
        Err(Failure::Read(err)) => {
            report.report(Diagnostic::error(0, diag::describe(&err)));
        }
        Err(Failure::Write(err)) => return Err(err),
    }
    Ok(filter.any())
}

/// Filtering the games of one input, or of one batch of its lines.
///
/// The input is read in blocks of whole lines into one buffer, which
/// holds the game being read and the lines not read yet: games are
/// tokenized where they lie, and a line is looked at as a line only
/// outside games and in tag sections.
#[derive(Debug)]
pub struct Filter<'c> {
    config: &'c Config,
    /// The input read: whole lines up to `whole`, then part of a line.
    input: Vec<u8>,
    /// The next byte to read.
    pos: usize,
    whole: usize,
    /// A line start in `input` whose number is known.
    known: (usize, u64),
    game: Game,
    /// A game is open.
    in_game: bool,
    /// A game was read.
    any: bool,
    /// The last game was written: blank lines after it follow it.
    written: bool,
    /// Text outside games was reported since the last game.
    warned: bool,
    /// A `{` comment is open in text outside games.
    brace: bool,
}

impl<'c> Filter<'c> {
    /// A filter for `config` that has read nothing yet.
    pub fn new(config: &'c Config) -> Filter<'c> {
        Filter {
            config,
            input: Vec::new(),
            pos: 0,
            whole: 0,
            known: (0, 1),
            game: Game::new(),
            in_game: false,
            any: false,
            written: false,
            warned: false,
            brace: false,
        }
    }

    /// The configuration it filters with.
    pub fn config(&self) -> &'c Config {
        self.config
    }

    /// Whether a game was read (not only text outside games).
    pub fn any(&self) -> bool {
        self.any
    }

    /// Filters the rest of the lines of `lines` to the end of `out`, which
    /// goes to `wtr` a buffer's worth at a time if there is one (with
    /// none, all of it stays in `out`).
    ///
    /// With `last` false the input was cut short after these lines: the
    /// game still open, which a reader of the whole input would have lost
    /// to the read error, is left out.
    ///
    /// # Errors
    ///
    /// A read error ([`Failure::Read`]) ends the input, losing the open
    /// game; a write error ([`Failure::Write`]) ends everything.
    pub fn lines<R: io::Read>(
        &mut self,
        lines: &mut LineReader<R>,
        out: &mut Vec<u8>,
        mut wtr: Option<&mut dyn Write>,
        report: &mut dyn Report,
        last: bool,
    ) -> Result<(), Failure> {
        self.input.clear();
        (self.pos, self.whole) = (0, 0);
        self.known = (0, lines.number() + 1);
        let read = loop {
            let eof = match self.read(lines) {
                Ok(eof) => eof,
                Err(err) => {
                    // The whole lines read before the error are read.
                    self.filter(out, report);
                    break Err(Failure::Read(err));
                }
            };
            self.filter(out, report);
            // What is before the open game is final.
            let settled =
                if self.in_game { self.game.mark() } else { out.len() };
            if settled >= OUT_BUFFER {
                if let Some(wtr) = wtr.as_mut() {
                    wtr.write_all(&out[..settled]).map_err(Failure::Write)?;
                    out.drain(..settled);
                    if self.in_game {
                        self.game.rebase_out(settled);
                    }
                }
            }
            if eof {
                break Ok(());
            }
        };
        if read.is_ok() && last {
            self.finish(out, report);
        } else if self.in_game {
            out.truncate(self.game.mark());
            self.in_game = false;
        }
        if let Some(wtr) = wtr {
            wtr.write_all(out).map_err(Failure::Write)?;
            out.clear();
        }
        read
    }

    /// Reads a block: drops what no longer needs keeping, then appends
    /// what the input has; true at its end, where the last line counts
    /// as whole.
    fn read<R: io::Read>(
        &mut self,
        lines: &mut LineReader<R>,
    ) -> io::Result<bool> {
        let keep = if self.in_game { self.game.begin() } else { self.pos };
        if keep > 0 {
            self.line_of(keep);
            self.input.drain(..keep);
            self.pos -= keep;
            self.whole -= keep;
            self.known.0 -= keep;
            if self.in_game {
                self.game.rebase(keep);
            }
        }
        let read = lines.read_rest(&mut self.input, BLOCK);
        self.whole = if read.as_ref().is_ok_and(|&eof| eof) {
            self.input.len()
        } else {
            let tail = &self.input[self.whole..];
            self.whole + last_line_end(tail).unwrap_or(0)
        };
        read
    }

    /// The number of the line that `at` (a line start at or after the
    /// last one asked for) starts.
    fn line_of(&mut self, at: usize) -> u64 {
        let (from, number) = self.known;
        let n = number + count_line_ends(&self.input[from..at]);
        self.known = (at, n);
        n
    }

    /// Filters the whole lines read.
    fn filter(&mut self, out: &mut Vec<u8>, report: &mut dyn Report) {
        while self.pos < self.whole {
            if self.in_game {
                let input = &self.input;
                let (pos, stop) = self.game.read(
                    self.config,
                    input,
                    self.pos,
                    self.whole,
                    out,
                );
                self.pos = pos;
                match stop {
                    Stop::More => return,
                    Stop::Ended(at) | Stop::Boundary(at) => {
                        self.end_game(at, out, report);
                        self.pos = at;
                    }
                }
            } else {
                self.outside(out, report);
            }
        }
    }

    /// Ends the input: the open game ends.
    pub fn finish(&mut self, out: &mut Vec<u8>, report: &mut dyn Report) {
        if self.in_game {
            self.end_game(self.input.len(), out, report);
        }
    }

    /// A line while no game is open: a blank line, text outside games, or
    /// the first line of a game.
    fn outside(&mut self, out: &mut Vec<u8>, report: &mut dyn Report) {
        let start = self.pos;
        let (end, next) = match find_line_end(&self.input[start..self.whole]) {
            Some((end, next)) => (start + end, start + next),
            None => (self.whole, self.whole),
        };
        let content = &self.input[start..end];
        let first = lex::skip_space(content, 0, content.len());
        if first == content.len() && !self.brace {
            if self.written {
                out.extend_from_slice(&self.input[start..next]);
            }
            self.pos = next;
            return;
        }
        // Escape lines are there to be ignored (PGN 6): no warning.
        let escape = !self.brace && content.first() == Some(&b'%');
        let tags = content.get(first) == Some(&b'[')
            && (!self.brace || lex::is_tag_line(content));
        let skip = if tags {
            self.brace = false;
            Some(0)
        } else {
            self.game_in(start, end)
        };
        let Some(skip) = skip else {
            self.written = false;
            if !escape {
                let line = self.line_of(start);
                self.text_outside(line, report);
            }
            self.pos = next;
            return;
        };
        self.in_game = true;
        self.warned = false;
        self.written = false;
        let line = self.line_of(start);
        self.pos = self.game.start(start, skip, line, out);
    }

    /// Where a game starts in the line `start..end` of text outside games:
    /// after the end of a comment open from earlier lines, if something
    /// other than comments follows; `None` if the line holds only
    /// comments (or an escape line, or a `;` comment).
    fn game_in(&mut self, start: usize, end: usize) -> Option<usize> {
        let content = &self.input[start..end];
        let mut i = 0;
        if self.brace {
            i = lex::find(b'}', content)? + 1;
            self.brace = false;
        } else if content.first() == Some(&b'%') {
            return None;
        }
        let skip = i;
        loop {
            i = lex::skip_space(content, i, content.len());
            match content.get(i) {
                None | Some(b';') => return None,
                Some(b'{') => match lex::find(b'}', &content[i + 1..]) {
                    Some(j) => i += j + 2,
                    None => {
                        self.brace = true;
                        return None;
                    }
                },
                Some(_) => return Some(skip),
            }
        }
    }

    /// Warns once for text outside games between two games.
    fn text_outside(&mut self, line: u64, report: &mut dyn Report) {
        if !std::mem::replace(&mut self.warned, true) {
            let message = "text outside a game is left out";
            report.report(Diagnostic::warning(line, message));
        }
    }

    /// Ends the open game at `end`.
    fn end_game(
        &mut self,
        end: usize,
        out: &mut Vec<u8>,
        report: &mut dyn Report,
    ) {
        self.in_game = false;
        let is_game = self.game.is_game();
        self.any |= is_game;
        match self.game.finish(self.config, &self.input[..end], end, out) {
            Ok(()) if is_game => self.written = true,
            Ok(()) => {
                let line = self.line_of(self.game.begin());
                self.text_outside(line, report)
            }
            Err(error) => report.report(error),
        }
    }
}

#[cfg(test)]
mod tests;
