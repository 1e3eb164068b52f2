//! Reading Kriegspiel PGN: games framed and tokenized in one pass, every
//! move read as Kriegspiel SAN, every move number checked against the
//! ply, every Kriegspiel comment parsed, and each token handed, as it
//! comes, to a [`Sink`]: the filter ([`filter`](super::filter)) or the
//! referee ([`check`](super::check)).
//!
//! The input is read in blocks of whole lines into one buffer, which
//! holds the game being read and the lines not read yet: games are
//! tokenized where they lie, with no token list, and a line is looked at
//! as a line only outside games and in tag sections. The game's bytes
//! stay in the buffer until it ends, because a fault anywhere in it means
//! that nothing of it may be written; once it has failed, they go as it
//! is read on to its end.
//!
//! Framing (the rules every reader of the input follows, so that an input
//! cut into parts at [`Cuts`](super::Cuts) reads as a whole):
//!
//! - a game starts at a line of tag pairs, or at a line of movetext that
//!   holds more than comments;
//! - it ends after the line of its termination marker (and the comment
//!   that line opens), at a line whose first byte that is not white space
//!   is `[` (after its tag section; in an open comment only if the line
//!   is tag pairs), or at the end of the input;
//! - if a comment or variation is open where such a line ends it, what
//!   follows is the rest of that game ([`Carry`]), left out with it; so
//!   is what follows such a line in a comment that opens outside games
//!   after a game left open ([`Reader::open`]), which may be its;
//! - blank lines after a game that was written are written after it;
//!   text outside games is left out and never held in memory, comments
//!   with one warning between two games, escape lines (`%`, which PGN
//!   readers are to ignore) without one.
//!
//! Ownership (FORMATS.md, Kriegspiel PGN point 11): what stands between a
//! move number and its move, or after a move up to the next move number,
//! belongs to that move; what stands before the first one belongs to no
//! move.

use std::io::{self, Write};
use std::ops::Range;

use super::comment::{self, Comment, KComment};
use super::lex::{self, Class, CLASS};
use super::{san, Side};
use crate::diag::{shown, Diagnostic, Failure, Report};
use crate::lines::{
    count_line_ends, find_line_end, last_line_end, plain_lf, LineReader,
};
use shakmaty::fen::Fen;
use shakmaty::Color;

/// How much output is gathered before it is written (the tools' output
/// buffer size, so that each write is one buffer's worth).
pub const OUT_BUFFER: usize = 64 * 1024;

/// A line of tag pairs in a comment open outside games after a game left
/// open ([`Reader::open`]).
const IN_OUTSIDE: &str = "a line of tag pairs inside a comment after a game \
     that failed, or that ends without a termination marker: the comment \
     may be that game's, so what follows, up to its '}', is read as part \
     of it and left out";

/// How much input is read at a time.
pub(super) const BLOCK: usize = 64 * 1024;

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// In the tag section (or before it: the game started there).
    Tags,
    /// In the movetext.
    Movetext,
    /// After the line of its termination marker: the game is over.
    Ended,
}

/// How reading a game stopped, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// At the end of the lines given: more are needed.
    More,
    /// After the line of its termination marker, at this offset.
    Ended(usize),
    /// Before this line, which starts the next game.
    Boundary(usize),
}

/// What a movetext item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Item {
    /// A `{...}` comment that is not a Kriegspiel comment.
    Comment,
    /// A `;` comment.
    LineComment,
    /// A `%` escape line.
    Escape,
    /// A NAG, `$12`.
    Nag,
    /// A glyph standing alone, `!?`.
    Glyph,
    /// A termination marker.
    End,
}

/// A fault a sink finds: at this offset of the input, this message.
pub(crate) type Fault = (usize, String);

/// What the tokens of a game go to. Offsets are into the input buffer;
/// `out` is where the tool writes. The reader has checked each token
/// before it comes (its syntax, whose it is); a sink's `Err` is a fault of
/// the game at that offset, which then leaves no output.
pub(crate) trait Sink {
    /// Whether the reader names the game in its diagnostics
    /// ([`Diagnostic::game`]).
    const NAMES_GAMES: bool = false;
    /// Whether the reader reads a `{...}` comment in a function of its
    /// own, not inline in its token loop: for a sink whose work on a
    /// Kriegspiel comment is large (the referee's), which would crowd the
    /// loop.
    const COMMENT_APART: bool = false;
    /// Whether the sink writes the games that pass as they were read
    /// (the referee): then a game without tags that passes is a fault
    /// where, written as read, it would run into the game written before
    /// it ([`Reader::open`]).
    const AS_READ: bool = false;
    /// A game starts at `at`; its output goes to the end of `out`.
    fn start(&mut self, at: usize, out: &[u8]);
    /// The input lost its first `n` bytes: all before the game, or, once
    /// the game failed, all before where the reader reads on (a sink
    /// reads nothing of a game's input once it failed, but the tokens
    /// it is given: [`Game::let_go`]).
    fn rebase(&mut self, n: usize);
    /// The output lost its first `n` bytes (all before the game's).
    fn rebase_out(&mut self, n: usize);
    /// Where the game's output starts in `out`.
    fn mark(&self) -> usize;
    /// A tag pair, its name and value.
    fn tag(
        &mut self,
        game: &Core,
        input: &[u8],
        name: Range<usize>,
        value: Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), Fault>;
    /// The end of a line of the tag section: its content `line` (its
    /// first byte that is not white space at `first`), its line end up to
    /// `next`; `tags` if it held tag pairs.
    fn tag_section_line(
        &mut self,
        input: &[u8],
        line: Range<usize>,
        first: usize,
        next: usize,
        tags: bool,
        out: &mut Vec<u8>,
    );
    /// The movetext starts with the line at `line` (`end` bounds what
    /// was read).
    fn movetext(
        &mut self,
        game: &Core,
        input: &[u8],
        line: usize,
        end: usize,
        out: &mut Vec<u8>,
    );
    /// A move number, before the move it numbers.
    fn number(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    );
    /// A move of `game.to_move` (not yet played), `??` if `hidden`.
    fn a_move(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        hidden: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), Fault>;
    /// The Kriegspiel comment of the move of `owner`.
    fn kcomment(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        k: &KComment,
        owner: Side,
        out: &mut Vec<u8>,
    ) -> Result<(), Fault>;
    /// Another item of the main line, which belongs to the move of
    /// `game.owner` (to no move before the first).
    fn item(
        &mut self,
        game: &Core,
        input: &[u8],
        item: Item,
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), Fault>;
    /// A token of a variation (or its parentheses).
    fn variation(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    );
    /// A line end at `end..next` in the movetext, outside comments.
    fn line_end(
        &mut self,
        game: &Core,
        input: &[u8],
        end: usize,
        next: usize,
        out: &mut Vec<u8>,
    );
    /// The game ended at `end` with no fault found by the reader: whether
    /// it wrote the game (the blank lines after it follow it then).
    fn finish(
        &mut self,
        game: &Core,
        input: &[u8],
        end: usize,
        out: &mut Vec<u8>,
    ) -> Result<bool, Fault>;
    /// The warnings about the game that just ended (which the reader
    /// reports, in order, before what was wrong with it).
    fn warnings(&mut self) -> Vec<Diagnostic> {
        Vec::new()
    }
    /// Whether the sink writes the games that fail, as read, instead of
    /// those that pass (the referee's `-v`).
    fn writes_failing(&self) -> bool {
        false
    }
    /// For a sink that writes the games that fail, the bytes
    /// `input[span]` of a game that failed, which it writes at its end
    /// ([`Sink::drop_game`]): its start, or what follows the part given
    /// before. They are written now, for good ([`Game::let_go`]).
    fn write_failed(
        &mut self,
        _input: &[u8],
        _span: Range<usize>,
        _out: &mut Vec<u8>,
    ) {
    }
    /// The game `input[game]`, which is no game or had `fault`, ended:
    /// its output is dropped (or, for a tool that writes failing games,
    /// written: then true).
    fn drop_game(
        &mut self,
        input: &[u8],
        game: Range<usize>,
        fault: bool,
        out: &mut Vec<u8>,
    ) -> bool;
}

/// The state of reading one game, which sinks look at.
#[derive(Debug)]
pub(crate) struct Core {
    /// Where the game starts, and the number of that line (where reading
    /// went on, once it let its bytes go: [`Game::let_go`]).
    pub start: usize,
    start_line: u64,
    /// The line where it starts, whatever it let go.
    first_line: u64,
    /// The next byte to read is the first of its line.
    at_line_start: bool,
    /// A `;` comment or escape line ended at U+0085 or U+2028, and what
    /// was read after it was blank: the rest of its LF line, which PGN
    /// readers that end lines at LF and CR alone read as part of it, is
    /// checked on from where reading goes on ([`Game::lf_rest`]).
    lf_rest: bool,
    /// A `;` comment or escape line ended at U+0085 or U+2028, and no LF
    /// or CR since: the LF line goes on that such readers read as part of
    /// it ([`Reader::lf_cut`]).
    in_lf_rest: bool,
    pub phase: Phase,
    /// The first thing wrong, which makes the game leave no output.
    pub error: Option<Diagnostic>,
    /// `error` was set: a flag that the paths taken at every ply test
    /// (more cheaply than the `Option`), which stays set when `finish`
    /// takes the error.
    pub failed: bool,
    /// Whether it has a tag pair or a move: text with neither is no game.
    pub is_game: bool,
    /// The Filtered tag's side, when it names one.
    pub filtered: Option<Side>,
    filtered_tag: bool,
    /// An open `{` comment: where it starts, and where to search on for
    /// its `}`.
    brace: Option<(usize, usize)>,
    /// The line where that comment opened, once its `{` was let go
    /// ([`Game::let_go`]).
    brace_line: Option<u64>,
    /// How many variations are open, and where the outermost opened.
    pub depth: u32,
    var_start: usize,
    /// The line where that variation opened, once its `(` was let go
    /// ([`Game::let_go`]).
    var_line: Option<u64>,
    terminated: bool,
    /// The side to move, its move number, and the half-moves read.
    pub to_move: Side,
    pub fullmove: u64,
    pub plies: u64,
    /// Whose move the items being read belong to.
    pub owner: Option<Side>,
    /// A move number was read for the coming move.
    numbered: bool,
    /// Where that number stands.
    number_at: usize,
    /// The owner's move had its Kriegspiel comment.
    kcomment: bool,
    /// Not a game but the rest of one that a line of tag pairs cut while
    /// a comment or variation was open ([`Carry`]): the line where that
    /// was opened.
    carried: Option<u64>,
    /// The FEN tag: where its value starts, its side to move and move
    /// number.
    fen: Option<(usize, Side, u64)>,
    /// Where the value of a `[SetUp "0"]` tag starts.
    setup_zero: Option<usize>,
    /// Whether the game starts with a tag pair, once the bytes of its
    /// start were let go ([`Game::let_go`]).
    tags: Option<bool>,
    /// It starts inside a comment that may quote it ([`Quote`]), opened
    /// at this line: it is not written.
    quoted: Option<u64>,
}

impl Core {
    fn new(start: usize, start_line: u64) -> Core {
        Core {
            start,
            start_line,
            first_line: start_line,
            at_line_start: true,
            lf_rest: false,
            in_lf_rest: false,
            phase: Phase::Tags,
            error: None,
            failed: false,
            is_game: false,
            filtered: None,
            filtered_tag: false,
            brace: None,
            brace_line: None,
            depth: 0,
            var_start: 0,
            var_line: None,
            terminated: false,
            to_move: Side::White,
            fullmove: 1,
            plies: 0,
            owner: None,
            numbered: false,
            number_at: 0,
            kcomment: false,
            carried: None,
            fen: None,
            setup_zero: None,
            tags: None,
            quoted: None,
        }
    }

    /// What the game leaves open if it ends here.
    fn open(&self, input: &[u8]) -> Option<Carry> {
        if self.brace.is_none() && self.depth == 0 {
            return None;
        }
        // A comment open in a variation opened after it (no token is read
        // in a comment), on the same line or a later one: the line named
        // is the earliest.
        let line = match self.carried {
            Some(line) => line,
            None => {
                let comment = self.brace.map(|(open, _)| {
                    self.brace_line
                        .unwrap_or_else(|| self.line_of(input, open))
                });
                let variation = (self.depth > 0).then(|| {
                    self.var_line
                        .unwrap_or_else(|| self.line_of(input, self.var_start))
                });
                comment.into_iter().chain(variation).min()?
            }
        };
        Some(Carry {
            from_rest: self.carried.is_some(),
            ..Carry::new(self.brace.is_some(), self.depth, line)
        })
    }

    /// The number of the line of `at`.
    pub fn line_of(&self, input: &[u8], at: usize) -> u64 {
        self.start_line + count_line_ends(&input[self.start..at])
    }

    /// Whether the game has a Filtered tag (naming a side or not).
    pub fn filtered_tag(&self) -> bool {
        self.filtered_tag
    }

    /// A move number that stands before no move (before the termination
    /// marker, or at the end of the game): a game of N half-moves would
    /// read as longer (`--plies N` would cut it), and what stands after
    /// it would go to a move that is not there.
    #[cold]
    fn no_move_after_number(&mut self, input: &[u8]) {
        let message = "a move number that stands before no move";
        self.fail(input, self.number_at, message.into());
    }

    /// Records the first fault, at the line of `at`.
    #[cold]
    pub fn fail(&mut self, input: &[u8], at: usize, message: String) {
        if self.error.is_none() {
            let line = self.line_of(input, at);
            self.error = Some(Diagnostic::error(line, message));
            self.failed = true;
        }
    }

    /// The tag section ends: the game starts from the FEN tag's position
    /// if it has one (FORMATS.md, Kriegspiel PGN point 12, as the referee
    /// replays it), unless `[SetUp "0"]` says otherwise, which is a
    /// fault: whose move comes first would be unclear.
    fn start_movetext(&mut self, input: &[u8]) {
        self.phase = Phase::Movetext;
        let Some((at, side, number)) = self.fen else { return };
        if let Some(zero) = self.setup_zero {
            let message = "a FEN tag with [SetUp \"0\"]: which position the \
                           game starts from is unclear";
            return self.fail(input, zero.min(at), message.into());
        }
        self.to_move = side;
        self.fullmove = number;
    }

    /// Records a sink's fault.
    #[inline]
    fn check(&mut self, input: &[u8], result: Result<(), Fault>) {
        if let Err((at, message)) = result {
            self.fail(input, at, message);
        }
    }
}

/// One game being read, and where its tokens go.
#[derive(Debug)]
struct Game<S> {
    core: Core,
    sink: S,
    /// A comment that may quote games, read beside the game's reading.
    quote: Option<Quote>,
}

impl<S: Sink> Game<S> {
    /// Reads the game from `pos` on, up to `whole` (the end of the whole
    /// lines in `input`).
    fn read(
        &mut self,
        input: &[u8],
        mut pos: usize,
        whole: usize,
        out: &mut Vec<u8>,
    ) -> (usize, Stop) {
        if self.core.lf_rest {
            self.lf_rest(&input[..whole], pos);
        }
        while self.core.phase == Phase::Tags {
            if pos == whole {
                return (pos, Stop::More);
            }
            let (end, next) = line_end(input, pos, whole);
            let first = lex::skip_space(input, pos, end);
            let tags = first < end && input[first] == b'[';
            if tags {
                self.tag_line(input, first, end, out);
            } else if first < end && input[pos] != b'%' {
                self.core.start_movetext(input);
                self.sink.movetext(&self.core, input, pos, whole, out);
                break;
            } else if first < end {
                // An escape line, checked as one in the movetext is.
                self.line_item(&input[..whole], pos..end);
            }
            if next > end && matches!(input[end], b'\n' | b'\r') {
                self.core.in_lf_rest = false;
            }
            // Blank and escape lines stay in the tag section.
            self.sink.tag_section_line(
                input,
                pos..end,
                first,
                next,
                tags,
                out,
            );
            pos = next;
        }
        if self.core.phase == Phase::Movetext {
            return self.movetext(input, pos, whole, out);
        }
        (pos, Stop::Ended(pos))
    }

    /// Ends the game at `end`: whether it was a game (and so the game
    /// itself, passed or failed), what was wrong with it, and whether it
    /// was written.
    fn finish(
        &mut self,
        input: &[u8],
        end: usize,
        cut: bool,
        out: &mut Vec<u8>,
    ) -> (Result<bool, Diagnostic>, bool) {
        let game = &mut self.core;
        let range = game.start..end;
        if game.carried.is_some() {
            // The rest of a game that failed: its fault was reported.
            let wrote = self.sink.drop_game(input, range, false, out);
            return (Ok(false), wrote);
        }
        let cut_line = cut.then(|| game.line_of(input, end));
        let unclosed = |what: &str, closer: char| {
            if let Some(line) = cut_line {
                format!(
                    "{what} not closed before line {line}, which starts \
                     with '[': what follows, up to its '{closer}', is read as \
                     part of it and left out with this game"
                )
            } else {
                format!("unterminated {what}")
            }
        };
        if let Some((open, _)) = game.brace {
            let message = unclosed("comment", '}');
            game.fail(input, open, message);
        }
        if game.depth > 0 {
            let (at, message) = (game.var_start, unclosed("variation", ')'));
            game.fail(input, at, message);
        }
        if game.numbered {
            game.no_move_after_number(input);
        }
        let mut written = false;
        if game.error.is_none() && game.is_game {
            if game.phase == Phase::Tags {
                game.start_movetext(input);
                self.sink.movetext(game, input, end, end, out);
            }
            if !game.at_line_start {
                // The last line has no line end.
                self.sink.line_end(game, input, end, end, out);
            }
            match self.sink.finish(game, input, end, out) {
                Ok(wrote) => written = wrote,
                Err((at, message)) => game.fail(input, at, message),
            }
        }
        let is_game = game.is_game;
        match game.error.take() {
            Some(error) => {
                let wrote = self.sink.drop_game(input, range, true, out);
                (Err(error), wrote)
            }
            None if !is_game => {
                let wrote = self.sink.drop_game(input, range, false, out);
                (Ok(false), wrote)
            }
            None => (Ok(true), written),
        }
    }

    /// The bytes of a game that failed go, up to `pos` where reading
    /// goes on: nothing of it is written (its output is dropped at its
    /// end), and what is left to find is where it ends. Its start moves
    /// there, with its line's number (for the messages about it that come
    /// later), so that however long it runs (a file that is no PGN is one
    /// such game) it keeps no more than a block of the input. Not for any
    /// other game, nor for the rest of a game. A tool that writes the
    /// games that fail (`kpgn-check -v`) writes the bytes first, if the
    /// game is written at its end whatever follows: unless it starts in a
    /// comment that may quote it, or has no tags and comes after a game
    /// left `open` ([`Reader::open`]), which it would run into.
    fn let_go(
        &mut self,
        input: &[u8],
        pos: usize,
        open: bool,
        out: &mut Vec<u8>,
    ) {
        if !self.may_go(pos) {
            return;
        }
        if self.sink.writes_failing() {
            let core = &mut self.core;
            let tags = *core.tags.get_or_insert_with(|| {
                starts_with_tag(&input[..pos], core.start)
            });
            if core.quoted.is_none() && (tags || !open) {
                self.sink.write_failed(input, core.start..pos, out);
            }
        }
        self.go_to(input, pos);
    }

    /// Whether the game failed, and what of it comes before `pos` may
    /// go: not in its tag section, nor in the rest of a game.
    fn may_go(&self, pos: usize) -> bool {
        let core = &self.core;
        core.failed
            && core.carried.is_none()
            && core.phase == Phase::Movetext
            && pos > core.start
    }

    /// The game's start moves to `pos`, its bytes before it gone. The
    /// lines where an open comment or variation opened are kept, for what
    /// the game's rest names ([`Core::open`]).
    fn go_to(&mut self, input: &[u8], pos: usize) {
        let core = &mut self.core;
        if S::AS_READ && core.tags.is_none() {
            core.tags = Some(starts_with_tag(&input[..pos], core.start));
        }
        if let Some((open, from)) = core.brace {
            // A comment open: its line is kept (for what its game's rest
            // names), its bytes go, what they held read
            // ([`Game::brace_in`]).
            if core.brace_line.is_none() {
                core.brace_line = Some(core.line_of(input, open));
            }
            core.brace = Some((pos, from.max(pos)));
        }
        if core.depth > 0 && core.var_line.is_none() {
            core.var_line = Some(core.line_of(input, core.var_start));
        }
        core.var_start = core.var_start.max(pos);
        core.start_line = core.line_of(input, pos);
        core.start = pos;
    }

    /// A `{` in `input[from..upto]`, inside the comment opened at `open`,
    /// is an error ([`Game::brace_inside`]). `from` is where the search
    /// for its `}` started: after the `{` (in a rest, at the comment's
    /// first byte), or where what was read before ended, the bytes before
    /// it searched then.
    #[inline]
    fn brace_in(
        &mut self,
        input: &[u8],
        open: usize,
        from: usize,
        upto: usize,
        rest: bool,
    ) {
        let Some(hay) = input.get(from..upto) else { return };
        if let Some(j) = memchr::memchr(b'{', hay) {
            self.brace_inside(input, open, from + j, rest);
        }
    }

    /// A `{` at `at` inside the comment opened at `open` (`rest`: the
    /// comment a game's rest starts in, whose `{` stands before it): the
    /// game fails, and the comment may quote games ([`Quote`]).
    #[cold]
    fn brace_inside(
        &mut self,
        input: &[u8],
        open: usize,
        at: usize,
        rest: bool,
    ) {
        let message = "'{' inside a comment: a '}' may have been lost before \
                       it, and what follows it read as part of the comment";
        self.core.fail(input, at, message.into());
        if !rest {
            self.quote_comment(input, open);
        }
    }

    /// The comment open at `open` may quote games ([`Quote`]).
    fn quote_comment(&mut self, input: &[u8], open: usize) {
        // Once its `{` was let go, `open` is where reading went on, and
        // what went held neither brace.
        let (at, line) = match self.core.brace_line {
            Some(line) => (open, line),
            None => (open + 1, self.core.line_of(input, open)),
        };
        self.quote_from(input, at, 1, false, line);
    }

    /// A comment that may quote games, `depth` of its `{` open before
    /// `at`, opened on the line `line` (`bracket`: the line of `at` starts
    /// with `[`, or the next line does, at a cut): read on to the `}` that
    /// balances it, unless one read already runs past `at`. At a line
    /// start (where reading went on after a failed game let its bytes go,
    /// or the end of an input), that line's first byte says whether it
    /// starts with `[`; inside a line, its first byte does too.
    #[cold]
    fn quote_from(
        &mut self,
        input: &[u8],
        at: usize,
        depth: u32,
        bracket: bool,
        line: u64,
    ) {
        if let Some(quote) = &mut self.quote {
            if quote.read_to(input, at) {
                return;
            }
        }
        let line_start = at == 0 || lex::ends_line(input, at - 1);
        let bracket = bracket || {
            let text = &input[..at];
            lex::starts_with_bracket(&text[lex::line_start(text, 0)..])
        };
        self.quote = Some(Quote { depth, line, at, line_start, bracket });
    }

    /// The line where the comment that may quote games opened, if one is
    /// open at `at`.
    fn quoted_at(&mut self, input: &[u8], at: usize) -> Option<u64> {
        let quote = self.quote.as_mut()?;
        if quote.read_to(input, at) {
            return Some(quote.line);
        }
        self.quote = None;
        None
    }

    // ---- the tag section ----

    /// A line of tag pairs, its first `[` at `first`, its content ending
    /// at `end`.
    fn tag_line(
        &mut self,
        input: &[u8],
        first: usize,
        end: usize,
        out: &mut Vec<u8>,
    ) {
        self.core.is_game = true;
        let mut i = first;
        while i < end {
            let Some((tag, after)) = lex::tag_pair(input, i, end) else {
                self.core.fail(input, i, "malformed tag pair".into());
                break;
            };
            match &input[tag.name.clone()] {
                b"Filtered" => self.filtered(input, tag.value.clone()),
                b"FEN" => self.fen(input, tag.value.clone()),
                b"SetUp" if &input[tag.value.clone()] == b"0" => {
                    self.core.setup_zero = Some(tag.value.start);
                }
                _ => {}
            }
            let result =
                self.sink.tag(&self.core, input, tag.name, tag.value, out);
            self.core.check(input, result);
            i = lex::skip_space(input, after, end);
        }
    }

    /// The Filtered tag: the side it names, if any.
    fn filtered(&mut self, input: &[u8], value: Range<usize>) {
        let game = &mut self.core;
        if std::mem::replace(&mut game.filtered_tag, true) {
            return game.fail(
                input,
                value.start,
                "a second Filtered tag".into(),
            );
        }
        let text = &input[value.clone()];
        game.filtered = if text.eq_ignore_ascii_case(b"white") {
            Some(Side::White)
        } else if text.eq_ignore_ascii_case(b"black") {
            Some(Side::Black)
        } else if text.eq_ignore_ascii_case(b"no") || text.is_empty() {
            None
        } else {
            let message =
                format!("unknown Filtered value '{}'", shown(text, 24));
            return game.fail(input, value.start, message);
        };
    }

    /// The side to move and the move number of a FEN tag, read as the
    /// referee reads it (shakmaty): a FEN it cannot read is a fault, for
    /// whose moves are whose would be a guess.
    fn fen(&mut self, input: &[u8], value: Range<usize>) {
        let game = &mut self.core;
        if game.fen.is_some() {
            return game.fail(input, value.start, "a second FEN tag".into());
        }
        match Fen::from_ascii(&input[value.clone()]) {
            Ok(fen) => {
                let setup = fen.as_setup();
                let side = match setup.turn {
                    Color::White => Side::White,
                    Color::Black => Side::Black,
                };
                let number = u64::from(setup.fullmoves.get());
                game.fen = Some((value.start, side, number));
            }
            Err(err) => {
                let message = format!("the FEN tag cannot be read: {err}");
                game.fail(input, value.start, message);
            }
        }
    }

    // ---- the movetext ----

    /// Tokenizes from `i` to `whole` and hands each token on. A function
    /// of its own: inlined in the referee's reader, its loop costs more.
    #[inline(never)]
    fn movetext(
        &mut self,
        input: &[u8],
        mut i: usize,
        whole: usize,
        out: &mut Vec<u8>,
    ) -> (usize, Stop) {
        // Where a line that starts with `[` ends the movetext.
        let mut limit = lex::bracket_line(input, i, whole).unwrap_or(whole);
        if let Some((open, from)) = self.core.brace {
            match self.close_comment(input, open, from, &mut limit, whole, out)
            {
                Ok(next) => i = next,
                Err(stop) => return (whole, stop),
            }
        }
        // Only whole lines: a token never runs past `whole`.
        let input = &input[..whole];
        if std::mem::take(&mut self.core.at_line_start) && i < limit {
            i = self.escape_line(input, i, out);
        }
        // Up to `limit`, which a token never runs past (it ends at a line
        // end before it), only a comment may (and then moves it on).
        let mut head = &input[..limit];
        while let Some(&(mut b)) = head.get(i) {
            // The one space between two tokens; more white space goes
            // through `Class::Space` below.
            if b == b' ' {
                i += 1;
                let Some(&next) = head.get(i) else { break };
                b = next;
            }
            i = match CLASS[b as usize] {
                Class::Symbol => self.symbol(input, i, out),
                Class::Digit => self.numeral(input, i, out),
                Class::Brace => {
                    match self.brace(input, i, &mut limit, whole, out) {
                        Ok(next) => {
                            head = &input[..limit];
                            next
                        }
                        Err(stop) => return (whole, stop),
                    }
                }
                Class::Space => i + 1,
                Class::LineEnd => {
                    self.core.in_lf_rest = false;
                    let crlf = b == b'\r' && input.get(i + 1) == Some(&b'\n');
                    let next = if crlf { i + 2 } else { i + 1 };
                    if let Some(stop) = self.line_end(input, i, next, out) {
                        return (next, stop);
                    }
                    self.escape_line(input, next, out)
                }
                Class::Semicolon => {
                    let (end, _) = line_end(input, i, whole);
                    self.item(input, Item::LineComment, i..end, out);
                    end
                }
                Class::Open => {
                    if self.core.depth == 0 {
                        self.core.var_start = i;
                        self.core.var_line = None;
                        if self.core.terminated {
                            self.after_end(input, i..i + 1);
                        }
                    }
                    self.core.depth += 1;
                    self.sink.variation(&self.core, input, i..i + 1, out);
                    i + 1
                }
                Class::Close if self.core.depth > 0 => {
                    self.core.depth -= 1;
                    self.sink.variation(&self.core, input, i..i + 1, out);
                    i + 1
                }
                Class::Dollar => self.nag(input, i, out),
                Class::Glyph => self.glyph(input, i, out),
                Class::Star => {
                    self.end_marker(input, i..i + 1, out);
                    i + 1
                }
                _ => match input[i..] {
                    [0xC2, 0xA0, ..] => i + 2,
                    [0xEF, 0xBB, 0xBF, ..] => i + 3,
                    [0xC2, 0x85, ..] | [0xE2, 0x80, 0xA8, ..] => {
                        let next = i + if b == 0xC2 { 2 } else { 3 };
                        if let Some(stop) = self.line_end(input, i, next, out)
                        {
                            return (next, stop);
                        }
                        self.escape_line(input, next, out)
                    }
                    _ => self.unexpected(input, i),
                },
            };
        }
        if limit < whole {
            return (i, Stop::Boundary(i));
        }
        self.core.at_line_start = i > 0 && lex::ends_line(input, i - 1);
        (i, Stop::More)
    }

    /// At the line start `i`: an escape line (`%` in its first column) is
    /// an item to its line end. Where reading goes on.
    #[inline(always)]
    fn escape_line(
        &mut self,
        input: &[u8],
        i: usize,
        out: &mut Vec<u8>,
    ) -> usize {
        if input.get(i) != Some(&b'%') {
            return i;
        }
        let (end, _) = line_end(input, i, input.len());
        self.item(input, Item::Escape, i..end, out);
        end
    }

    /// A line end at `end..next` outside comments; a stop if the game
    /// ended on that line.
    #[inline]
    fn line_end(
        &mut self,
        input: &[u8],
        end: usize,
        next: usize,
        out: &mut Vec<u8>,
    ) -> Option<Stop> {
        self.sink.line_end(&self.core, input, end, next, out);
        if self.core.terminated && self.core.depth == 0 {
            self.core.phase = Phase::Ended;
            return Some(Stop::Ended(next));
        }
        None
    }

    /// The comment opened at `open`, its `}` searched for from `from` up
    /// to `whole`: where reading goes on after it. Stops the game when it
    /// does not close in what was read (`More`), or when a line of tag
    /// pairs comes first (`Boundary`: the next game starts there, and
    /// this one has an unterminated comment). `limit` is the next line
    /// that starts with `[`, moved on past the lines of the comment.
    #[inline(always)]
    fn close_comment(
        &mut self,
        input: &[u8],
        open: usize,
        from: usize,
        limit: &mut usize,
        whole: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize, Stop> {
        let close = lex::find(b'}', &input[from..whole]).map(|j| from + j + 1);
        let upto = close.unwrap_or(whole);
        // The end of a comment that the game before left open: from
        // `open` on, with no `{` there.
        let rest = self.core.carried.is_some() && open == self.core.start;
        while *limit < upto {
            let (end, next) = line_end(input, *limit, whole);
            if lex::is_tag_line(&input[*limit..end]) {
                self.brace_in(input, open, from, *limit, rest);
                self.core.brace = Some((open, from));
                return Err(Stop::Boundary(*limit));
            }
            *limit = lex::bracket_line(input, next, whole).unwrap_or(whole);
        }
        let Some(close) = close else {
            // A `{` in what was read is an error now, wherever the
            // comment ends (and a game that failed lets its bytes go).
            self.brace_in(input, open, from, whole, rest);
            self.core.brace = Some((open, whole));
            return Err(Stop::More);
        };
        self.core.brace = None;
        if self.core.in_lf_rest {
            // A line end of LF or CR in it ends the LF line.
            let inside = &input[open..close];
            self.core.in_lf_rest =
                memchr::memchr2(b'\n', b'\r', inside).is_none();
        }
        // PGN comments do not nest: a `{` inside one says that a `}` was
        // lost before it, and what follows, read as part of the comment
        // (the opponent's move, attempts and comment, in one of the
        // player's that is kept), would be written as it is.
        self.brace_in(input, open, from, close - 1, rest);
        // Its `{` let go (in a game that failed): nothing to read of it.
        let gone = self.core.brace_line.take().is_some();
        if rest || gone {
            return Ok(close);
        }
        self.comment(input, open..close, out);
        Ok(close)
    }

    /// The comment that opens at `open`: where reading goes on after it,
    /// as [`Game::close_comment`] says. A Kriegspiel comment of the usual
    /// shape is read where it lies, its `}` looked for after its head
    /// ([`KComment::at`]); anything else, and a comment across a line
    /// that starts with `[`, the general way.
    #[inline(always)]
    fn brace(
        &mut self,
        input: &[u8],
        open: usize,
        limit: &mut usize,
        whole: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize, Stop> {
        let game = &self.core;
        if game.carried.is_none() & !game.in_lf_rest {
            let side = if game.depth > 0 { None } else { game.owner };
            match input.get(open + 1) {
                Some(b'(') => {
                    let read = KComment::at(input, open, open + 1, side);
                    if let Some((next, k)) = read {
                        if next <= *limit {
                            self.kcomment(input, open..next, k, out);
                            return Ok(next);
                        }
                    }
                }
                // `{ (`, as pgn-extract writes it.
                Some(b' ') => {
                    let mut paren = open + 2;
                    while input.get(paren) == Some(&b' ') {
                        paren += 1;
                    }
                    let read = KComment::at(input, open, paren, side);
                    if let Some((next, k)) = read {
                        if next <= *limit {
                            self.kcomment(input, open..next, k, out);
                            return Ok(next);
                        }
                    }
                }
                // Free text (which no white space starts): a plain
                // comment, as `comment::parse` reads it.
                Some(0x21..=0x7E) => {
                    if let Some(j) = lex::braces(&input[open + 1..]) {
                        let next = open + j + 2;
                        if next <= *limit && input[next - 1] == b'}' {
                            self.item(input, Item::Comment, open..next, out);
                            return Ok(next);
                        }
                    }
                }
                _ => {}
            }
        }
        self.close_comment(input, open, open + 1, limit, whole, out)
    }

    /// A run of symbol characters at `start` that starts with a symbol
    /// character other than a digit: a move, read by the SAN automaton
    /// as it is scanned.
    #[inline]
    fn symbol(
        &mut self,
        input: &[u8],
        start: usize,
        out: &mut Vec<u8>,
    ) -> usize {
        let side = (self.core.depth == 0).then_some(self.core.to_move);
        let end = match san::scan_move(input, start, side) {
            Ok(end) if !input.get(end).is_some_and(|&b| token_byte(b)) => end,
            _ => return self.not_a_move(input, start),
        };
        self.a_move(input, start..end, false, out);
        end
    }

    /// A run of symbol characters at `start` that starts with a digit: a
    /// move number, a termination marker or castling with zeros.
    #[inline]
    fn numeral(
        &mut self,
        input: &[u8],
        start: usize,
        out: &mut Vec<u8>,
    ) -> usize {
        // The digits (the first is `input[start]`), and their value (as a
        // move number) as they go: more than 19 digits is more than any
        // move number, and reads as the largest number.
        let mut i = start + 1;
        let mut value = u64::from(input[start] - b'0');
        while let Some(&d) = input.get(i).filter(|d| d.is_ascii_digit()) {
            value = value.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
            i += 1;
        }
        if i - start > 19 {
            value = u64::MAX;
        }
        let digits = i;
        // `N.` or, as often, `N...`: however many dots there are. A dot
        // is no symbol character: after one, the number ends.
        while input.get(i) == Some(&b'.') {
            i += 1;
        }
        if i > digits || !input.get(i).is_some_and(|&b| lex::is_symbol(b)) {
            self.number(input, start..i, value, i - digits, out);
            return i;
        }
        while i < input.len() && lex::is_symbol(input[i]) {
            i += 1;
        }
        if matches!(&input[start..i], b"1-0" | b"0-1" | b"1/2-1/2") {
            self.end_marker(input, start..i, out);
            return i;
        }
        // Castling with zeros.
        let side = (self.core.depth == 0).then_some(self.core.to_move);
        match san::scan_move(input, start, side) {
            Ok(end) if !input.get(end).is_some_and(|&b| token_byte(b)) => {
                self.a_move(input, start..end, false, out);
                end
            }
            _ => self.not_a_move(input, start),
        }
    }

    /// A move number at `span`: its digits' `value` (saturated), then
    /// `dots` dots.
    fn number(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        value: u64,
        dots: usize,
        out: &mut Vec<u8>,
    ) {
        let (start, end) = (span.start, span.end);
        let game = &mut self.core;
        if game.depth > 0 {
            return self.sink.variation(game, input, start..end, out);
        }
        if game.terminated {
            return self.after_end(input, start..end);
        }
        // A number without dots is White's, as `N.`: read as either
        // side's, it would let a SAN that is no move (`1. e4 e5 e5 2 Nf3`)
        // shift every later move to the other side unseen.
        let side = if dots > 1 { Side::Black } else { Side::White };
        if value != game.fullmove || side != game.to_move {
            return self.wrong_number(input, start..end);
        }
        if game.numbered {
            // A number that stands before no move: what stood after it
            // would go, with the next, to a move not its own.
            let message = "a move number after a move number, with no move \
                           between them";
            return game.fail(input, start, message.into());
        }
        game.owner = Some(game.to_move);
        game.numbered = true;
        game.number_at = start;
        game.kcomment = false;
        self.sink.number(game, input, start..end, out);
    }

    #[cold]
    fn wrong_number(&mut self, input: &[u8], span: Range<usize>) {
        let game = &mut self.core;
        let dots = if game.to_move == Side::White { "." } else { "..." };
        let message = format!(
            "move number '{}' where '{}{dots}' belongs",
            shown(&input[span.clone()], 24),
            game.fullmove
        );
        game.fail(input, span.start, message);
    }

    /// A move, `??` if `hidden`, its syntax checked.
    #[inline(always)]
    fn a_move(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        hidden: bool,
        out: &mut Vec<u8>,
    ) {
        let game = &mut self.core;
        if game.depth > 0 {
            return self.sink.variation(game, input, span, out);
        }
        if game.terminated {
            return self.after_end(input, span);
        }
        game.is_game = true;
        let mover = game.to_move;
        if !std::mem::take(&mut game.numbered) {
            // White's move without its number: a ply missing or put in
            // before it (the rest of a game after a termination marker or
            // a line of tags, a move left out) would make it Black's, and
            // nothing after it would tell.
            if mover == Side::White {
                return self.unnumbered(input, span);
            }
            game.owner = Some(mover);
            game.kcomment = false;
        }
        match game.filtered {
            Some(side) if !hidden && side != mover => {
                return self.not_hidden(input, span);
            }
            Some(side) if hidden && side == mover => {
                return self.own_hidden(input, span);
            }
            // A record that does not say it is filtered hides nothing: a
            // `??` read as a hidden move there, put in for a move or a
            // glyph written apart from its move (`e4 ??`), would shift
            // every later move to the other side unseen, and show the
            // opponent's as the player's.
            None if hidden => return self.hidden_unfiltered(input, span),
            _ => {}
        }
        let result = self.sink.a_move(game, input, span, hidden, out);
        game.check(input, result);
        game.plies += 1;
        game.to_move = mover.opponent();
        if mover == Side::Black {
            game.fullmove += 1;
        }
    }

    /// Reports what stands at `start` where a move belongs, to the end of
    /// its symbol characters and glyphs; where reading goes on.
    #[cold]
    fn not_a_move(&mut self, input: &[u8], start: usize) -> usize {
        let mut end = start;
        while end < input.len() && token_byte(input[end]) {
            end += 1;
        }
        let message = format!(
            "expected a move in Kriegspiel SAN, found '{}'",
            shown(&input[start..end], 24)
        );
        self.core.fail(input, start, message);
        end
    }

    /// White's move at `span` without its move number.
    #[cold]
    fn unnumbered(&mut self, input: &[u8], span: Range<usize>) {
        let game = &mut self.core;
        let message = format!(
            "white's move '{}' without its move number '{}.': a move left \
             out or put in before it would make it black's",
            shown(&input[span.clone()], 24),
            game.fullmove
        );
        game.fail(input, span.start, message);
    }

    /// The player's own move hidden (`??`) at `span`, in a record filtered
    /// for the player.
    #[cold]
    fn own_hidden(&mut self, input: &[u8], span: Range<usize>) {
        let game = &mut self.core;
        let mover = game.to_move.name();
        let message = format!(
            "the game is filtered for {mover}, but {mover}'s own move is \
             hidden ('??')"
        );
        game.fail(input, span.start, message);
    }

    /// A hidden move (`??`) at `span` in a record not filtered: its
    /// Filtered tag is missing or says `no`.
    #[cold]
    fn hidden_unfiltered(&mut self, input: &[u8], span: Range<usize>) {
        let game = &mut self.core;
        let message = format!(
            "'??' where {}'s move belongs, but the game is not filtered \
             (no Filtered tag names a player): a hidden move stands only \
             in a filtered record, a glyph right after its move ('e4??')",
            game.to_move.name()
        );
        game.fail(input, span.start, message);
    }

    #[cold]
    fn not_hidden(&mut self, input: &[u8], span: Range<usize>) {
        let game = &mut self.core;
        let message = format!(
            "the game is filtered for {}, but {}'s move '{}' is not hidden",
            game.to_move.opponent().name(),
            game.to_move.name(),
            shown(&input[span.clone()], 24)
        );
        game.fail(input, span.start, message);
    }

    /// A termination marker.
    fn end_marker(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        if self.core.depth > 0 {
            return self.sink.variation(&self.core, input, span, out);
        }
        if self.core.terminated {
            return self.after_end(input, span);
        }
        if self.core.numbered {
            // A fault, but the game ends there all the same.
            self.core.no_move_after_number(input);
        }
        self.item(input, Item::End, span, out);
        self.core.terminated = true;
    }

    /// Reports a token after the termination marker, where only comments
    /// may stand.
    #[cold]
    fn after_end(&mut self, input: &[u8], span: Range<usize>) {
        let message = format!(
            "'{}' after the termination marker",
            shown(&input[span.clone()], 24)
        );
        self.core.fail(input, span.start, message);
    }

    fn nag(&mut self, input: &[u8], start: usize, out: &mut Vec<u8>) -> usize {
        let mut i = start + 1;
        while i < input.len() && input[i].is_ascii_digit() {
            i += 1;
        }
        if i == start + 1 {
            return self.unexpected(input, start);
        }
        self.item(input, Item::Nag, start..i, out);
        i
    }

    /// `!`, `?` and their pairs standing alone; `??` alone is a hidden
    /// move.
    fn glyph(
        &mut self,
        input: &[u8],
        start: usize,
        out: &mut Vec<u8>,
    ) -> usize {
        let mut i = start;
        while i < input.len() && CLASS[input[i] as usize] == Class::Glyph {
            i += 1;
        }
        match &input[start..i] {
            b"??" => self.a_move(input, start..i, true, out),
            b"!" | b"?" | b"!!" | b"!?" | b"?!" => {
                self.item(input, Item::Glyph, start..i, out)
            }
            _ => return self.unexpected(input, start),
        }
        i
    }

    /// A `{...}` comment other than those [`Game::brace`] reads where it
    /// lies.
    #[inline(never)]
    fn comment(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        let game = &mut self.core;
        let side = if game.depth > 0 { None } else { game.owner };
        match comment::parse(&input[span.clone()], side) {
            Comment::Plain => self.item(input, Item::Comment, span, out),
            Comment::Bad => {
                let (at, message) = comment::error(&input[span.clone()], side);
                game.fail(input, span.start + at, message);
            }
            Comment::Kriegspiel(k) => self.kcomment(input, span, k, out),
        }
    }

    /// The Kriegspiel comment `k` at `span`: inline, or apart as the sink
    /// asks ([`Sink::COMMENT_APART`]).
    #[inline(always)]
    fn kcomment(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        k: KComment,
        out: &mut Vec<u8>,
    ) {
        if S::COMMENT_APART {
            self.kcomment_apart(input, span, k, out);
        } else {
            self.kcomment_here(input, span, k, out);
        }
    }

    /// [`Game::kcomment_here`] as a function of its own.
    #[inline(never)]
    fn kcomment_apart(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        k: KComment,
        out: &mut Vec<u8>,
    ) {
        self.kcomment_here(input, span, k, out);
    }

    /// The Kriegspiel comment `k` at `span`, read where the caller is:
    /// whose it is, and whether it may stand there.
    #[inline(always)]
    fn kcomment_here(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        k: KComment,
        out: &mut Vec<u8>,
    ) {
        let game = &mut self.core;
        if game.depth > 0 {
            return self.sink.variation(game, input, span, out);
        }
        let Some(owner) = game.owner else {
            let message = "kriegspiel comment before the first move";
            return game.fail(input, span.start, message.into());
        };
        if game.numbered {
            // A Kriegspiel comment follows its move: one after a move
            // number would go to the move after it, which may be the
            // next side's if a move was left out before it.
            let message = "kriegspiel comment between a move number and \
                           its move (it follows the move)";
            return game.fail(input, span.start, message.into());
        }
        if std::mem::replace(&mut game.kcomment, true) {
            let message = "a second kriegspiel comment for one move";
            return game.fail(input, span.start, message.into());
        }
        let listed = k.listed().is_some_and(|n| n > 0);
        if listed && game.filtered.is_some_and(|s| s != owner) {
            let message = format!(
                "the game is filtered for {}, but {}'s illegal attempts are listed",
                owner.opponent().name(),
                owner.name()
            );
            return game.fail(input, span.start, message);
        }
        let result = self.sink.kcomment(game, input, span, &k, owner, out);
        game.check(input, result);
    }

    /// A movetext item other than a move, a number or a Kriegspiel
    /// comment.
    #[inline(always)]
    fn item(
        &mut self,
        input: &[u8],
        item: Item,
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        if matches!(item, Item::LineComment | Item::Escape) {
            self.line_item(input, span.clone());
        }
        if self.core.depth > 0 {
            return self.sink.variation(&self.core, input, span, out);
        }
        let result = self.sink.item(&self.core, input, item, span, out);
        self.core.check(input, result);
    }

    /// A `;` comment or an escape line at `span` (its line end left
    /// out), which runs to the next line end. A character in it that a
    /// terminal or a program that splits lines may take for a line end
    /// though PGN does not (VT, FF, FS, GS, RS, U+2029, a byte 85 that is
    /// no part of a UTF-8 character: NEL in Latin-1) is a fault: what
    /// follows it would show as movetext, and it is part of the comment
    /// (a damaged record whose line end after the player's `;` comment
    /// became FF would write the opponent's move, attempts and comment
    /// after it as the player's comment, as they are).
    #[inline(never)]
    fn line_item(&mut self, input: &[u8], span: Range<usize>) {
        let text = &input[span.clone()];
        let mut found = None;
        let mut at = 0;
        for chunk in text.utf8_chunks() {
            let seeming = chunk.valid().char_indices().find_map(|(j, c)| {
                let what = match c {
                    '\u{b}' => "a vertical tab (VT)",
                    '\u{c}' => "a form feed (FF)",
                    '\u{1c}'..='\u{1e}' => "a separator control (FS, GS, RS)",
                    '\u{2029}' => "a paragraph separator (U+2029)",
                    _ => return None,
                };
                Some((at + j, what))
            });
            at += chunk.valid().len();
            let nel = chunk.invalid().iter().position(|&b| b == 0x85);
            found = seeming
                .or(nel.map(|j| (at + j, "a byte 85 (NEL in Latin-1)")));
            if found.is_some() {
                break;
            }
            at += chunk.invalid().len();
        }
        // An escape line after a line end that only Unicode knows: a PGN
        // reader that ends lines at LF and CR alone reads it as part of
        // the line before, and its text as movetext (the opponent's moves
        // and comments, kept here as the player's escape line).
        let after = lex::unicode_line_end(&input[..span.start]);
        if let Some(end) = after.filter(|_| text[0] == b'%') {
            let message = format!(
                "an escape line ('%') after a {end} line end, which PGN \
                 readers that end lines at LF and CR alone do not take for \
                 one: they read its text as movetext"
            );
            return self.core.fail(input, span.start, message);
        }
        // Ended there itself: they read what follows it on to the next LF
        // or CR as part of it.
        if matches!(input.get(span.end), Some(0xC2 | 0xE2)) {
            let next = span.end + if input[span.end] == 0xC2 { 2 } else { 3 };
            self.core.in_lf_rest = true;
            // After the termination marker the game ends at that line end:
            // what follows is the next game's, or text outside games
            // ([`Reader::lf_cut`]).
            if !self.core.terminated || self.core.depth > 0 {
                self.lf_rest(input, next);
            }
        }
        if let Some((j, what)) = found {
            let kind = match text[0] {
                b';' => "a ';' comment",
                _ => "an escape line",
            };
            let message = format!(
                "{what} inside {kind}, which may show as a line end: what \
                 follows it is part of the comment"
            );
            self.core.fail(input, span.start + j, message);
        }
    }

    /// The rest of a LF line from `from`, after a `;` comment or escape
    /// line that U+0085 or U+2028 ends, in `input` (what was read): PGN
    /// readers that end lines at LF and CR alone read it as part of that
    /// comment. Anything there but blanks and those line ends is a fault:
    /// what the reader takes for movetext (the opponent's moves, a
    /// comment of the player's over the lines after, a line of tag pairs
    /// that starts a game) they take for the text of the comment, and the
    /// other way round, from there on to the end of the game. Reading
    /// goes on with the rest at the next block when `input` ends first.
    #[cold]
    #[inline(never)]
    fn lf_rest(&mut self, input: &[u8], from: usize) {
        let mut i = from;
        self.core.lf_rest = false;
        loop {
            let n = match input[i.min(input.len())..] {
                [] => {
                    self.core.lf_rest = true;
                    return;
                }
                [b'\n' | b'\r', ..] => return,
                [b' ' | b'\t', ..] => 1,
                [0xC2, 0xA0 | 0x85, ..] => 2,
                [0xE2, 0x80, 0xA8, ..] | [0xEF, 0xBB, 0xBF, ..] => 3,
                _ => break,
            };
            i += n;
        }
        let message = "text after a ';' comment or escape line that U+0085 \
                       or U+2028 ends, on the same line for PGN readers that \
                       end lines at LF and CR alone: they read it as part of \
                       that comment, and what follows it otherwise than here";
        self.core.fail(input, i, message.into());
    }

    /// A byte that starts no token: an error, up to the next white space.
    #[cold]
    fn unexpected(&mut self, input: &[u8], start: usize) -> usize {
        let mut i = start + 1;
        while i < input.len()
            && !matches!(input[i], b' ' | b'\t' | b'\r' | b'\n' | b'{')
            && input[i] < 0x80
        {
            i += 1;
        }
        let message = match input[start] {
            b'}' => "'}' without '{'".to_string(),
            b')' => "')' without '('".to_string(),
            _ => format!(
                "unexpected '{}' in movetext",
                shown(&input[start..i], 24)
            ),
        };
        self.core.fail(input, start, message);
        i
    }
}

/// The number of the line of `input` that `at` starts, counted on from
/// `known` (a line start at or before it, and its number), which moves
/// to `at`.
fn line_at(known: &mut (usize, u64), input: &[u8], at: usize) -> u64 {
    let (from, number) = *known;
    let n = number + count_line_ends(&input[from..at]);
    *known = (at, n);
    n
}

/// Whether the game that starts at `start` in `input` starts with a tag
/// pair.
fn starts_with_tag(input: &[u8], start: usize) -> bool {
    let first = lex::skip_space(input, start, input.len());
    input.get(first) == Some(&b'[')
}

/// Whether `b` may be part of a move token: a symbol character or a
/// glyph.
#[inline(always)]
fn token_byte(b: u8) -> bool {
    matches!(CLASS[b as usize], Class::Symbol | Class::Digit | Class::Glyph)
}

/// The line that starts at `from`: where its line end starts and ends,
/// both `upto` if it has none before it.
#[inline]
pub(super) fn line_end(
    input: &[u8],
    from: usize,
    upto: usize,
) -> (usize, usize) {
    match plain_lf(&input[from..upto]) {
        Some(end) => (from + end, from + end + 1),
        None => any_line_end(input, from, upto),
    }
}

/// [`line_end`] of a line that is not plain ([`plain_lf`]), out of line.
#[inline(never)]
fn any_line_end(input: &[u8], from: usize, upto: usize) -> (usize, usize) {
    match find_line_end(&input[from..upto]) {
        Some((end, next)) => (from + end, from + next),
        None => (upto, upto),
    }
}

/// What a game left open where a line that starts with `[` ended it: a
/// `{` comment, variations. A reader that goes on after that line reads
/// what follows as the rest of that game, not as a new one, up to the
/// comment's `}` and the variations' `)` and on to the end the game would
/// have had (its termination marker's line, or the next line that starts
/// with `[` while nothing is open), and leaves it out with the game.
///
/// So a line of tag pairs inside a comment or variation (a missing `}`,
/// or text that looks like a game) can never make what follows it, the
/// opponent's hidden moves and comments among it, appear as a game of its
/// own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carry {
    brace: bool,
    depth: u32,
    /// The line where what is open was opened.
    line: u64,
    /// It was left open by the rest of a game, not by the game itself.
    from_rest: bool,
    /// It goes on in the next input, from its first line (not after the
    /// line of tag pairs that cut the game).
    next_input: bool,
    /// A comment open outside games after a game left open
    /// ([`Reader::open`]), which may be that game's: a line of tag pairs
    /// in it starts no game.
    outside: bool,
    /// A comment that may quote games ([`Quote`]) open, as many `{` in
    /// it, opened at this line: no game before its `}` is written. With
    /// `Some(bracket)` when the input's last line has no line end: the
    /// next input's first line goes on in it, one that starts with `[` if
    /// `bracket` (a `}` in it closes nothing).
    quote: Option<(u32, u64, Option<bool>)>,
    /// The input's last line, which has no line end, holds a `;` comment
    /// or is an escape line: the next input's first line is its rest (the
    /// opponent's text, maybe), left out; a game that starts right after
    /// it may have lost its first line to it, and is not written.
    line_comment: bool,
}

impl Carry {
    /// A comment open (`brace`) and `depth` variations, the first of them
    /// opened at `line`.
    fn new(brace: bool, depth: u32, line: u64) -> Carry {
        Carry {
            brace,
            depth,
            line,
            from_rest: false,
            next_input: false,
            outside: false,
            quote: None,
            line_comment: false,
        }
    }

    /// What the last game of an input left open, carried into the next
    /// input, which reads on in it as `cat` would have it (a file cut in
    /// two in a comment: what follows, whatever it looks like, is the
    /// comment's rest); and the error that says so, at its first line,
    /// where anything said of what is open now points.
    pub fn into_next_input(&mut self) -> Diagnostic {
        self.line = 1;
        // An input that holds nothing of it, empty, says nothing more.
        self.from_rest = false;
        self.next_input = true;
        if let Some((_, line, _)) = &mut self.quote {
            *line = 1;
            if !self.brace && self.depth == 0 {
                return Diagnostic::error(
                    1,
                    "the comment that the input before leaves open, which \
                     may quote games, runs on into this one: no game is \
                     written before the '}' that balances it (join the \
                     inputs with cat to read them as one)",
                );
            }
        }
        if self.line_comment && !self.brace && self.depth == 0 {
            return Diagnostic::error(
                1,
                "the input before ends in a ';' comment or an escape line \
                 without a line end (or with U+0085 or U+2028, which PGN \
                 readers that end lines at LF and CR alone do not take for \
                 one): this input's first line is read as its rest and left \
                 out, and a game right after it is not written (join the \
                 inputs with cat to read them as one)",
            );
        }
        let (what, close) =
            if self.brace { ("comment", '}') } else { ("variation", ')') };
        let quote = if self.quote.is_some() {
            ", and no game is written before the '}' that balances the first \
             '{' of a comment that may quote games"
        } else {
            ""
        };
        Diagnostic::error(
            1,
            format!(
                "the {what} that the input before leaves open runs on into \
                 this one: what follows, up to its '{close}', is read as part \
                 of it and left out with its game{quote} (join the inputs \
                 with cat to read them as one)"
            ),
        )
    }

    /// The error when the input ends with `self` open after the rest of a
    /// game (the game itself was reported where it was cut).
    pub fn at_end(&self) -> Option<Diagnostic> {
        let what = if self.brace { "comment" } else { "variation" };
        self.from_rest.then(|| {
            Diagnostic::error(
                self.line,
                format!(
                    "the {what} open at this line is never closed in this \
                     input: the rest of the input was read as part of it and \
                     left out"
                ),
            )
        })
    }
}

/// A comment that may quote games: one that holds a `{`, or that a line
/// of tag pairs cuts, in a game or outside games.
///
/// PGN ends a comment at its first `}`, and so does the reader; but such
/// a comment may quote braces or whole games of its own (`{(:) my plan
/// {see below} then`, a line of tag pairs, a game, `}`), and a game read
/// from it would show the opponent's text as tags and moves. So it is
/// read a second time, beside the first, on to the `}` that balances its
/// first `{` ([`lex::balance`]: every `{` counts, a `}` in a line that
/// starts with `[` closes nothing), and no game that starts before that
/// `}` is written. Where the games start and end is what it was: this
/// reading only leaves games out, so it can show nothing that the first
/// did not. The player's own comments too: after one that ends early, a
/// game that the next line of tag pairs starts could hold the opponent's
/// real moves in a comment before its first move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Quote {
    /// How many `{` are open.
    depth: u32,
    /// The line where the comment opened.
    line: u64,
    /// Where reading goes on, and whether that is a line start.
    at: usize,
    line_start: bool,
    /// The line of `at` starts with `[`.
    bracket: bool,
}

impl Quote {
    /// Reads on up to `upto` (a line start, or the end of the input):
    /// false once the comment closed.
    fn read_to(&mut self, input: &[u8], upto: usize) -> bool {
        let upto = upto.min(input.len());
        while self.at < upto {
            if self.line_start {
                let first = lex::skip_space(input, self.at, upto);
                self.bracket = input.get(first) == Some(&b'[') && first < upto;
            }
            let (end, next) = line_end(input, self.at, upto);
            let text = &input[self.at..end];
            match lex::balance(text, self.depth, self.bracket) {
                Ok(_) => return false,
                Err(depth) => self.depth = depth,
            }
            (self.at, self.line_start) = (next, next > end);
        }
        true
    }

    /// The input lost its first `n` bytes, which were read.
    fn rebase(&mut self, n: usize) {
        self.at -= n;
    }
}

/// Reading the games of one input, or of one batch of its lines, into a
/// sink.
#[derive(Debug)]
pub struct Reader<S> {
    /// The input read up to `end`: whole lines up to `whole`, then part
    /// of a line.
    pub(super) input: Vec<u8>,
    end: usize,
    /// The next byte to read.
    pos: usize,
    whole: usize,
    /// A line start in `input` whose number is known.
    known: (usize, u64),
    game: Game<S>,
    /// A game is open.
    in_game: bool,
    /// How many games passed (were written) and failed.
    passed: u64,
    failed: u64,
    /// The last game was written: blank lines after it follow it.
    written: bool,
    /// Text outside games was reported since the last game.
    warned: bool,
    /// A `{` comment is open in text outside games, and the line where it
    /// opened.
    brace: bool,
    brace_line: u64,
    /// What the last game left open, if it did.
    carry: Option<Carry>,
    /// The lines end before a line that starts with `[`, where the input
    /// was cut into batches.
    cut_end: bool,
    /// How many games came before the lines, in their input.
    before: u64,
    /// A game without tags now would be read as part of what was written
    /// before it, or may be the rest of the game before it
    /// ([`Reader::open`]).
    open: bool,
    /// A game that a comment may quote ([`Quote`]) was left out since the
    /// last game written: a game without tags now would be read as part
    /// of the one written before it.
    quoted_out: bool,
    /// What is read now is in the LF line of a `;` comment or escape line
    /// that U+0085 or U+2028 ended, in the game before
    /// ([`Core::in_lf_rest`]) or outside games: to PGN readers that end
    /// lines at LF and CR alone it is part of that comment, so a game
    /// that starts here fails (no batch is cut here, see [`lex::Cuts`]).
    lf_cut: bool,
    /// Where the rest of a `;` comment or escape line that ends the input
    /// before ([`Carry::line_comment`]) stands.
    rest: LineRest,
}

/// The rest of a `;` comment or escape line that ends an input without a
/// line end, in the next input ([`Carry::line_comment`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum LineRest {
    /// None.
    #[default]
    None,
    /// It is the first line to read: it is left out.
    Next,
    /// It was just left out: a game that starts now may have lost its
    /// first line to it, and fails.
    Read,
}

// The sinks are the crate's own (the filter, the referee): the trait is
// not for other crates to implement, so it stays private.
#[allow(private_bounds)]
impl<S: Sink> Reader<S> {
    /// A reader into `sink` that has read nothing yet.
    pub(super) fn with_sink(sink: S) -> Reader<S> {
        Reader {
            input: Vec::new(),
            end: 0,
            pos: 0,
            whole: 0,
            known: (0, 1),
            game: Game { core: Core::new(0, 1), sink, quote: None },
            in_game: false,
            passed: 0,
            failed: 0,
            written: false,
            warned: false,
            brace: false,
            brace_line: 0,
            carry: None,
            cut_end: false,
            before: 0,
            open: false,
            quoted_out: false,
            lf_cut: false,
            rest: LineRest::None,
        }
    }

    /// What the last game read left open, if it did: a reader of the
    /// lines that follow needs it ([`Reader::carry_on`]).
    pub fn carry(&self) -> Option<Carry> {
        self.carry
    }

    /// The lines to read end where the input was cut into batches, before
    /// a line that starts with `[`: a game open there ends as it would
    /// at that line.
    pub fn ends_at_cut(&mut self, cut: bool) {
        self.cut_end = cut;
    }

    /// The games to read come after `n` others in their input (for the
    /// numbers that name them).
    pub fn number_from(&mut self, n: u64) {
        self.before = n;
    }

    /// Whether a game without tags that passed now would, written as read
    /// after the games that passed so far, be read as part of the last of
    /// them (for a sink that writes the games as read, as kpgn-check's
    /// does): that game has no termination marker (it ended where a line
    /// of tag pairs or its input did), or no line end after it, or a game
    /// with tags that failed came after it (which may follow a game
    /// without its marker in an earlier batch of lines: so that every
    /// batch reads alike, the reader does not look past it). Such a game
    /// is then a fault: `kpgn-check | kpgn-filter` read it as the moves
    /// that follow the game before, and the opponent's moves as the
    /// player's.
    ///
    /// For the other sinks: whether the last game has no termination
    /// marker, and so may have been cut short by the end of its input,
    /// or failed (one that ends in a comment or variation left open
    /// does), and so may have ended where it did not: a `}` put in too
    /// early or lost ends a comment early, and a termination marker in
    /// its text ends the game. A game without tags after it, in the same
    /// input or at the start of the next, is then a fault: it may be that
    /// game's rest (the opponent's comment read as moves, the first of
    /// them Black's).
    ///
    /// For either: also whether a comment is open in text outside games
    /// (its rest, in the next input, may look like a game without tags).
    pub fn open(&self) -> bool {
        self.open || self.brace || self.quoted_out
    }

    /// The lines to read follow an input whose games end as
    /// [`Reader::open`] says.
    pub fn after_open(&mut self, open: bool) {
        self.open = open;
    }

    /// Reads the next lines given as what follows a game that left
    /// `carry` open: their first line is the one that ended it.
    pub fn carry_on(&mut self, carry: Option<Carry>) {
        self.carry = carry;
        // A rest read at the end of the input before still fails the game
        // that starts this one.
        self.rest = match self.rest {
            _ if carry.is_some_and(|c| c.line_comment) => LineRest::Next,
            LineRest::Read => LineRest::Read,
            _ => LineRest::None,
        };
        self.game.quote =
            carry.and_then(|c| c.quote).map(|(depth, line, on)| {
                let (line_start, bracket) = match on {
                    Some(bracket) => (false, bracket),
                    None => (true, false),
                };
                Quote { depth, line, at: 0, line_start, bracket }
            });
    }

    /// The sink.
    pub(super) fn sink(&self) -> &S {
        &self.game.sink
    }

    /// Whether a game was read (not only text outside games).
    pub fn any(&self) -> bool {
        self.passed + self.failed > 0
    }

    /// How many games passed (were written, or found right) and failed.
    pub fn counts(&self) -> (u64, u64) {
        (self.passed, self.failed)
    }

    /// Reads the rest of the lines of `lines` to the end of `out`, which
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
        (self.end, self.pos, self.whole) = (0, 0, 0);
        self.known = (0, lines.number() + 1);
        let read = loop {
            let eof = match self.read(lines) {
                Ok(eof) => eof,
                Err(err) => {
                    // The whole lines read before the error are read.
                    self.process_own(out, report);
                    break Err(Failure::Read(err));
                }
            };
            self.process_own(out, report);
            if self.in_game {
                let (input, pos, open) = (&self.input, self.pos, self.open);
                self.game.let_go(input, pos, open, out);
            }
            // What is before the open game is final.
            let settled =
                if self.in_game { self.game.sink.mark() } else { out.len() };
            if settled >= OUT_BUFFER {
                if let Some(wtr) = wtr.as_mut() {
                    wtr.write_all(&out[..settled]).map_err(Failure::Write)?;
                    out.drain(..settled);
                    if self.in_game {
                        self.game.sink.rebase_out(settled);
                    }
                }
            }
            if eof {
                break Ok(());
            }
        };
        let input = std::mem::take(&mut self.input);
        self.end_lines(&input, read.is_ok() && last, out, report);
        self.input = input;
        if let Some(wtr) = wtr {
            wtr.write_all(out).map_err(Failure::Write)?;
            out.clear();
        }
        read
    }

    /// As [`Reader::lines`] for lines that are all in memory already,
    /// whole (a batch of an input cut into batches, a mapped file's
    /// included), numbered from `first`: read where they lie, with no
    /// copy. All the output stays in `out`. Returns how many line ends
    /// they hold (counted as the games are read: the lines' numbers need
    /// no pass of their own).
    pub fn lines_in(
        &mut self,
        bytes: &[u8],
        first: u64,
        out: &mut Vec<u8>,
        report: &mut dyn Report,
        last: bool,
    ) -> u64 {
        let n = bytes.len();
        (self.end, self.pos, self.whole) = (n, 0, n);
        self.known = (0, first);
        self.process(bytes, out, report);
        self.end_lines(bytes, last, out, report);
        (self.end, self.pos, self.whole) = (0, 0, 0);
        line_at(&mut self.known, bytes, n) - first
    }

    /// The lines given end: with `last`, so does the input (the open game
    /// ends); else the input was cut short after them, and the open game,
    /// which a reader of the whole input would have lost, is left out.
    fn end_lines(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut Vec<u8>,
        report: &mut dyn Report,
    ) {
        if last {
            self.finish(input, out, report);
            if !self.cut_end {
                if let Some(error) = self.carry.and_then(|c| c.at_end()) {
                    report.report(error);
                }
            }
        } else if self.in_game {
            out.truncate(self.game.sink.mark());
            self.in_game = false;
        }
    }

    /// Reads a block: drops what no longer needs keeping, then reads what
    /// the input has, up to a block; true at its end, where the last
    /// line counts as whole.
    fn read<R: io::Read>(
        &mut self,
        lines: &mut LineReader<R>,
    ) -> io::Result<bool> {
        // What a game that failed let go is before its start.
        let keep = if self.in_game { self.game.core.start } else { self.pos };
        if keep > 0 {
            if let Some(quote) = &mut self.game.quote {
                if quote.read_to(&self.input, keep) {
                    quote.rebase(keep);
                } else {
                    self.game.quote = None;
                }
            }
            line_at(&mut self.known, &self.input, keep);
            self.input.copy_within(keep..self.end, 0);
            self.end -= keep;
            self.pos -= keep;
            self.whole -= keep;
            self.known.0 -= keep;
            if self.in_game {
                let core = &mut self.game.core;
                core.start -= keep;
                core.var_start = core.var_start.saturating_sub(keep);
                core.number_at = core.number_at.saturating_sub(keep);
                if let Some((open, from)) = &mut core.brace {
                    *open -= keep;
                    *from -= keep;
                }
                // A game that failed may have let its tags go.
                if let Some((at, ..)) = &mut core.fen {
                    *at = at.saturating_sub(keep);
                }
                if let Some(zero) = &mut core.setup_zero {
                    *zero = zero.saturating_sub(keep);
                }
                self.game.sink.rebase(keep);
            }
        }
        // Room for a block, zeroed once: the buffer keeps its size.
        if self.input.len() < self.end + BLOCK {
            self.input.resize(self.end + BLOCK, 0);
        }
        let mut eof = false;
        let goal = self.end + BLOCK;
        let read = loop {
            match lines.read_into(&mut self.input[self.end..goal]) {
                Ok(0) => {
                    eof = true;
                    break Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    if self.end == goal {
                        break Ok(());
                    }
                }
                Err(err) => break Err(err),
            }
        };
        self.whole = if eof {
            self.end
        } else {
            let tail = &self.input[self.whole..self.end];
            self.whole + last_line_end(tail).unwrap_or(0)
        };
        read.map(|()| eof)
    }

    /// The number of the line that `at` (a line start at or after the
    /// last one asked for) starts.
    fn line_of(&mut self, input: &[u8], at: usize) -> u64 {
        line_at(&mut self.known, input, at)
    }

    /// [`Reader::process`] of the reader's own buffer.
    fn process_own(&mut self, out: &mut Vec<u8>, report: &mut dyn Report) {
        let input = std::mem::take(&mut self.input);
        self.process(&input, out, report);
        self.input = input;
    }

    /// Reads the whole lines of `input` (the reader's own buffer, or the
    /// lines lent to it).
    fn process(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        report: &mut dyn Report,
    ) {
        while self.pos < self.whole {
            if self.in_game {
                let (pos, stop) =
                    self.game.read(input, self.pos, self.whole, out);
                self.pos = pos;
                match stop {
                    Stop::More => return,
                    Stop::Ended(at) => {
                        self.end_game(input, at, false, out, report);
                        self.pos = at;
                    }
                    Stop::Boundary(at) => {
                        self.end_game(input, at, true, out, report);
                        self.pos = at;
                    }
                }
            } else {
                self.outside(input, out, report);
            }
        }
    }

    /// Ends the input: the open game ends.
    fn finish(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        report: &mut dyn Report,
    ) {
        if self.in_game {
            self.end_game(input, self.end, self.cut_end, out, report);
        } else if self.brace {
            // The next batch starts with a line of tag pairs, which cuts
            // the comment, as in one stream; so may the next input (whose
            // lines the comment's rest goes on in, whether the game before
            // it passed or not).
            let line = self.brace_line;
            self.game.quote_from(input, self.end, 1, self.cut_end, line);
            if self.open && self.carry.is_none() {
                // What follows these lines (the next batch, or input) goes
                // on in the comment, as one stream would.
                self.carry = Some(self.outside_carry());
            }
        }
        // So does a comment that may quote games.
        if let Some(quote) = &mut self.game.quote {
            if quote.read_to(input, self.end) {
                let carry =
                    self.carry.get_or_insert(Carry::new(false, 0, quote.line));
                let on = (!quote.line_start).then_some(quote.bracket);
                carry.quote = Some((quote.depth, quote.line, on));
            } else {
                self.game.quote = None;
            }
        }
        // And a `;` comment or escape line that the input's last line, with
        // no line end, holds: as one stream, the next input's first line
        // would be its rest. So with a last line end of U+0085 or U+2028,
        // to PGN readers that end lines at LF and CR alone, for the LF
        // line it ends.
        let last = &input[..self.end];
        let unicode = lex::unicode_line_end(last).is_some();
        if !self.cut_end
            && self.end > 0
            && (unicode || !lex::ends_line(input, self.end - 1))
        {
            let from = if unicode {
                memchr::memrchr2(b'\n', b'\r', last).map_or(0, |i| i + 1)
            } else {
                lex::line_start(last, 0)
            };
            if lex::holds_line_comment(&last[from..]) {
                // Its line is the next input's first.
                let carry = self.carry.get_or_insert(Carry::new(false, 0, 1));
                carry.line_comment = true;
            }
        }
    }

    /// The comment open outside games after a game left open, as what
    /// that game left open: it may be its comment (a file cut between
    /// Black's move and its comment, a `}` put in too early in a game
    /// that failed), whose text a line of tag pairs must not start a
    /// game in.
    fn outside_carry(&mut self) -> Carry {
        self.brace = false;
        Carry { outside: true, ..Carry::new(true, 0, self.brace_line) }
    }

    /// A line while no game is open: a blank line, text outside games, or
    /// the first line of a game.
    fn outside(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        report: &mut dyn Report,
    ) {
        let start = self.pos;
        let (end, next) = line_end(input, start, self.whole);
        let first_line = self.rest == LineRest::Next;
        if first_line {
            self.rest = LineRest::None;
        }
        let carry = self.carry.take();
        // Only a comment that may quote games: its reading goes on.
        if let Some(carry) = carry.filter(|c| c.brace || c.depth > 0) {
            // The line that cut a game with something open: it is part of
            // what was open, and the rest of the game follows it. In the
            // next input, what the last one left open goes on from its
            // first line.
            let next = if carry.next_input { start } else { next };
            if carry.outside && !carry.next_input {
                let line = self.line_of(input, start);
                report.report(Diagnostic::error(line, IN_OUTSIDE));
            }
            self.written = false;
            // Text after the rest is text after a game (a reader of the
            // lines after a cut, on another thread, starts so).
            self.warned = false;
            self.in_game = true;
            let line = self.line_of(input, next);
            let game = &mut self.game;
            game.core = Core::new(next, line);
            let core = &mut game.core;
            core.phase = Phase::Movetext;
            core.carried = Some(carry.line);
            core.brace = carry.brace.then_some((next, next));
            core.depth = carry.depth;
            core.var_start = next;
            game.sink.start(next, out);
            self.pos = next;
            return;
        }
        if first_line {
            // Reported with the carry ([`Carry::into_next_input`]).
            self.rest = LineRest::Read;
            self.pos = next;
            return;
        }
        let after_rest = std::mem::take(&mut self.rest) == LineRest::Read;
        let content = &input[start..end];
        // The LF line that such readers read as a comment goes on after
        // this line only if U+0085 or U+2028 ends it; a `;` comment or an
        // escape line outside games that one ends starts one.
        let lf_cut = self.lf_cut;
        self.lf_cut = lex::unicode_line_end(&input[..next]).is_some()
            && next > end
            && (lf_cut || lex::holds_line_comment(content));
        let first = lex::skip_space(content, 0, content.len());
        if first == content.len() && !self.brace {
            if self.written {
                out.extend_from_slice(&input[start..next]);
            }
            self.pos = next;
            return;
        }
        let line = self.line_of(input, start);
        // Escape lines are there to be ignored (PGN 6): no warning.
        let escape = !self.brace && lex::is_escape_line(content);
        let tags = content.get(first) == Some(&b'[')
            && (!self.brace || lex::is_tag_line(content));
        if tags && self.brace {
            // A comment that a line of tag pairs cuts may quote games.
            let comment = self.brace_line;
            self.game.quote_from(input, start, 1, true, comment);
        }
        if tags && self.brace && self.open {
            // Read again as what follows the game left open.
            self.carry = Some(self.outside_carry());
            return;
        }
        let skip = if tags {
            self.brace = false;
            Some(0)
        } else {
            self.game_in(input, start..end, line)
        };
        let Some(skip) = skip else {
            self.written = false;
            if !escape {
                self.text_outside(line, report);
            }
            self.pos = next;
            return;
        };
        // A BOM that starts a game's first line (of a file that `cat` put
        // after another) is left out, as at the start of an input: copied,
        // a second filtering (which drops it there) would not give the
        // same bytes.
        let bom = skip == 0 && input[start..end].starts_with(b"\xEF\xBB\xBF");
        let start = if bom { start + 3 } else { start };
        self.in_game = true;
        self.warned = false;
        self.written = false;
        let quoted = self.game.quoted_at(input, start);
        let game = &mut self.game;
        game.core = Core::new(start, line);
        game.core.quoted = quoted;
        game.sink.start(start + skip, out);
        if skip > 0 {
            // A game that starts after a comment starts with movetext (and
            // gets its Filtered tag there).
            game.core.phase = Phase::Movetext;
            game.core.at_line_start = false;
            let whole = self.whole;
            game.sink.movetext(&game.core, input, start + skip, whole, out);
        }
        if !S::AS_READ && (self.open || self.quoted_out) && !tags {
            self.rest_after_open(input, start);
        }
        if lf_cut {
            let message = "a game that starts after a ';' comment or escape \
                           line that U+0085 or U+2028 ends, on the same line \
                           for PGN readers that end lines at LF and CR alone: \
                           they read its start as part of that comment, and \
                           what follows otherwise than here";
            self.game.core.fail(input, start, message.into());
            self.lf_cut = false;
        }
        if after_rest {
            let message = "a game right after the rest of the ';' comment or \
                           escape line that ends the input before without a \
                           line end: its first line may have been read as \
                           part of it, so it is not written (join the inputs \
                           with cat to read them as one)";
            self.game.core.fail(input, start, message.into());
        }
        self.pos = start + skip;
    }

    /// Where a game starts in the line `content` of text outside games:
    /// after the end of a comment open from earlier lines, if something
    /// other than comments follows; `None` if the line holds only
    /// comments (or an escape line, or a `;` comment). `line` is its
    /// number, where a comment that it leaves open opened.
    fn game_in(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        line: u64,
    ) -> Option<usize> {
        let content = &input[span.clone()];
        let mut i = 0;
        if self.brace {
            let close = lex::find(b'}', content);
            let inside = &content[..close.unwrap_or(content.len())];
            if let Some(k) = memchr::memchr(b'{', inside) {
                // With the comment's `{` and this one open.
                let bracket = lex::starts_with_bracket(content);
                let at = span.start + k + 1;
                self.game.quote_from(input, at, 2, bracket, self.brace_line);
            }
            i = close? + 1;
            self.brace = false;
        } else if lex::is_escape_line(content) {
            return None;
        }
        let skip = i;
        loop {
            i = lex::skip_space(content, i, content.len());
            match content.get(i) {
                None | Some(b';') => return None,
                Some(b'{') => {
                    let text = &content[i + 1..];
                    let close = lex::find(b'}', text);
                    let inside = &text[..close.unwrap_or(text.len())];
                    if memchr::memchr(b'{', inside).is_some() {
                        let bracket = lex::starts_with_bracket(content);
                        let at = span.start + i + 1;
                        self.game.quote_from(input, at, 1, bracket, line);
                    }
                    match close {
                        Some(j) => i += j + 2,
                        None => {
                            self.brace = true;
                            self.brace_line = line;
                            return None;
                        }
                    }
                }
                Some(_) => return Some(skip),
            }
        }
    }

    /// For a sink that writes games as read ([`Sink::AS_READ`]), before
    /// the game that ends at `end` finishes: whether it has tags, and if
    /// it has none but would run into what was written before it
    /// ([`Reader::open`]), the fault that makes it fail.
    fn tags_then_open(&mut self, input: &[u8], end: usize) -> bool {
        let invert = self.game.sink.writes_failing();
        let core = &mut self.game.core;
        let tags = core
            .tags
            .unwrap_or_else(|| starts_with_tag(&input[..end], core.start));
        let runs_in = (self.open || self.quoted_out) && !tags && core.is_game;
        if runs_in && !invert && core.carried.is_none() {
            let message = "a game without tags after a game without a \
                           termination marker, after one that failed, or \
                           after a read error: written as read, it would be \
                           read as part of the game before it";
            core.fail(input, core.start, message.into());
        }
        tags
    }

    /// For the other sinks, a game without tags that starts at `start`
    /// after a game left open ([`Reader::open`]), in this input or at the
    /// end of the one before: it may be that game's rest, whose first
    /// move, read as White's, may be Black's, and whose moves may be the
    /// text of the opponent's comment.
    #[cold]
    fn rest_after_open(&mut self, input: &[u8], start: usize) {
        let message = "a game without tags after a game that failed, ended \
                       the input before without a termination marker, or \
                       was cut short by a read error: it may be the rest \
                       of that game (after a '}' put in too early, or a \
                       file cut in two: join such inputs with cat to read \
                       them as one)";
        self.game.core.fail(input, start, message.into());
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
        input: &[u8],
        end: usize,
        cut: bool,
        out: &mut Vec<u8>,
        report: &mut dyn Report,
    ) {
        self.in_game = false;
        self.lf_cut = self.game.core.in_lf_rest;
        let input = &input[..end];
        self.carry = self.game.core.open(input);
        let rest = self.game.core.carried.is_some();
        if let Some((open, _)) = self.game.core.brace {
            // A comment that a line of tag pairs (or the input's end) cut
            // may quote games; that of a rest is the game's, which was.
            let first = rest && open == self.game.core.start;
            if !first {
                self.game.quote_comment(input, open);
            }
        }
        let tags = S::AS_READ && self.tags_then_open(input, end);
        let (mut result, mut written) = self.game.finish(input, end, cut, out);
        let mut left_out = None;
        if S::AS_READ {
            let core = &self.game.core;
            let ended =
                core.terminated && end > 0 && lex::ends_line(input, end - 1);
            if self.game.sink.writes_failing() {
                // The games written are those that fail: a failing game
                // without tags is not written after one that it would run
                // into; one with tags that passes may stand (not written)
                // after one that did not end, in an earlier batch.
                if written && self.open && !tags && !rest {
                    out.truncate(self.game.sink.mark());
                    written = false;
                    left_out = Some(self.game.core.first_line);
                }
                match result {
                    Err(_) if written => self.open = !ended,
                    Ok(true) if tags => self.open = true,
                    Ok(false) if rest => self.open = true,
                    _ => {}
                }
            } else {
                match result {
                    Ok(true) => self.open = !ended,
                    Err(_) if tags => self.open = true,
                    Ok(false) if rest => self.open = true,
                    _ => {}
                }
            }
        } else if self.game.core.is_game || rest {
            // A game without a termination marker may have been cut short
            // by the end of its input; one that failed (one that ends in
            // an open comment or variation fails, and so does the game
            // whose rest this is) may have ended where it did not; and the
            // last line of an input without a line end (a `;` comment on
            // the marker's line, say) goes on in the next input's first.
            let failed = result.is_err() || rest;
            let ended = end > 0 && lex::ends_line(input, end - 1);
            self.open = !self.game.core.terminated || failed || !ended;
        }
        if let Some(line) = self.game.core.quoted {
            // Left out, wherever it ended: where the games start and end
            // is as if it were not.
            if written {
                out.truncate(self.game.sink.mark());
                written = false;
            }
            if result == Ok(true) {
                let at = self.line_of(input, self.game.core.start);
                result = Err(Diagnostic::error(
                    at,
                    format!(
                        "a game inside a comment that may quote it, opened \
                         at line {line} (one that holds a '{{' or a line of \
                         tag pairs is read on to the '}}' that balances its \
                         first '{{'): left out"
                    ),
                ));
            }
            self.quoted_out = true;
        } else if written {
            self.quoted_out = false;
        }
        self.written = written;
        // The game's number, when it is one.
        let number = self.before + self.passed + self.failed + 1;
        let named = |mut d: Diagnostic| {
            if S::NAMES_GAMES {
                d.game = Some(number);
            }
            d
        };
        for warning in self.game.sink.warnings() {
            report.report(named(warning));
        }
        match result {
            Ok(true) => self.passed += 1,
            Ok(false) if rest => {}
            Ok(false) => {
                let line = self.line_of(input, self.game.core.start);
                self.text_outside(line, report)
            }
            Err(error) => {
                self.failed += 1;
                report.report(named(error))
            }
        }
        if let Some(line) = left_out {
            let message = "not written: a game without tags after a game \
                           without a termination marker, or after one that \
                           passed, would be read as part of the game before \
                           it";
            report.report(named(Diagnostic::error(line, message)));
        }
    }
}
