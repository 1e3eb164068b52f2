//! One game read and filtered for one player in one pass (FORMATS.md,
//! Kriegspiel PGN points 5 to 11).
//!
//! The game is tokenized straight from the input buffer, across its
//! lines, and each token is judged and written as it comes, with no
//! token list and no look at each line but where a line end stands
//! between tokens. The game's bytes stay in the buffer until it ends,
//! because a fault anywhere in it (a word where a move belongs, a move
//! number that disagrees with the ply, an opponent's move in clear in a
//! record that says it is filtered) means that nothing of it may be
//! written.
//!
//! What is written is the game as read, except:
//!
//! - each opponent move becomes `??`; in its Kriegspiel comment the
//!   illegal attempts become their count and the free text goes;
//! - everything else that belongs to an opponent's move goes: its other
//!   comments, NAGs and glyphs; what stands between its move number and
//!   its SAN belongs to it, what stands before that number to the move
//!   before;
//! - every variation goes;
//! - the `Filtered` tag names the player (added after the rules tag when
//!   missing), and with `--plies` the Result tag becomes `*`.
//!
//! White space around a removed item: the blanks before it on its line go
//! with it; when it is the first item on its line, the indentation stays
//! and the blanks after it go instead; a line left empty by removals goes
//! with its line end. A line that was blank in the input stays.

use std::ops::Range;

use super::comment::{self, Comment, KComment};
use super::lex::{self, Class, CLASS};
use super::{san, Side};
use crate::decimal;
use crate::diag::{shown, Diagnostic};
use crate::lines::{count_line_ends, find_line_end};

/// What to do with each game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The player whose view is written.
    pub player: Side,
    /// Keep only this many half-moves.
    pub plies: Option<u64>,
    /// Keep the comments of the opponent's moves.
    pub keep_comments: bool,
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// In the tag section (or before it: the game started there).
    Tags,
    /// In the movetext.
    Movetext,
    /// After the line of its termination marker: the game is over.
    Ended,
}

/// How reading a game stopped, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// At the end of the lines given: more are needed.
    More,
    /// After the line of its termination marker, at this offset.
    Ended(usize),
    /// Before this line, which starts the next game.
    Boundary(usize),
}

/// What a movetext item is, for the rules of who it belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Comment,
    LineComment,
    Escape,
    Nag,
    Glyph,
    End,
}

/// Where the `Filtered` tag goes when the game has none.
#[derive(Clone, Debug)]
struct Insert {
    /// The output offset just after the tag line it follows.
    at: usize,
    /// That line's indentation, in the input.
    indent: Range<usize>,
    /// That line's line end (empty if it has none).
    end: Range<usize>,
}

/// One game being read and filtered. Offsets are into the input buffer,
/// which holds the game from `start`; [`Game::rebase`] follows the
/// buffer when its front is dropped.
#[derive(Debug)]
pub(super) struct Game {
    /// Where the game starts, and the number of that line.
    start: usize,
    start_line: u64,
    /// The next byte to read is the first of its line.
    at_line_start: bool,
    phase: Phase,
    /// The first thing wrong, which makes the game leave no output.
    error: Option<Diagnostic>,
    /// Whether it has a tag pair or a move: text with neither is no game.
    is_game: bool,

    // The tag section.
    /// A Filtered tag was read; it named the player.
    filtered_tag: bool,
    filtered_for_player: bool,
    /// Where the Filtered tag goes if there is none: after the rules tag
    /// line (once `rules` is true), else after the last tag line.
    insert: Option<Insert>,
    rules: bool,
    /// The Result value in the output.
    result: Option<Range<usize>>,
    /// The most recent line end, to end an added line like it.
    last_end: Range<usize>,

    // The movetext.
    /// An open `{` comment: where it starts, and where to search on for
    /// its `}`.
    brace: Option<(usize, usize)>,
    /// How many variations are open, and where the outermost opened.
    depth: u32,
    var_start: usize,
    terminated: bool,
    to_move: Side,
    fullmove: u64,
    plies: u64,
    /// Whose move the items being read belong to.
    owner: Option<Side>,
    /// A move number was read for the coming move.
    numbered: bool,
    /// The owner's move had its Kriegspiel comment.
    kcomment: bool,
    /// The game was cut (`--plies`): nothing more is written.
    cut: bool,

    // The output.
    /// Where the game's output starts in `out`.
    mark: usize,
    /// Where the movetext's output starts in `out`.
    movetext_out: usize,
    /// The input is written or skipped up to here; what follows, up to
    /// where reading stands, is written as it is at the next change.
    flushed: usize,
    /// Something was removed on the current output line.
    removed: bool,
    /// Skip the white space at the start of what is pending (after a
    /// removed item that was first on its line).
    eat: bool,
    /// With `--plies`: where in `out` the last `;` or `%` item kept ends,
    /// after which a cut puts `*` on a line of its own.
    eol_out: Option<usize>,
}

impl Game {
    pub(super) fn new() -> Game {
        Game {
            start: 0,
            start_line: 0,
            at_line_start: true,
            phase: Phase::Tags,
            error: None,
            is_game: false,
            filtered_tag: false,
            filtered_for_player: false,
            insert: None,
            rules: false,
            result: None,
            last_end: 0..0,
            brace: None,
            depth: 0,
            var_start: 0,
            terminated: false,
            to_move: Side::White,
            fullmove: 1,
            plies: 0,
            owner: None,
            numbered: false,
            kcomment: false,
            cut: false,
            mark: 0,
            movetext_out: 0,
            flushed: 0,
            removed: false,
            eat: false,
            eol_out: None,
        }
    }

    /// Starts a game at `at`, line `line` of its input, whose output goes
    /// to the end of `out`. `skip` bytes of its first line are not the
    /// game's (the end of a comment outside games): they are neither read
    /// nor written. Returns where reading starts.
    pub(super) fn start(
        &mut self,
        at: usize,
        skip: usize,
        line: u64,
        out: &[u8],
    ) -> usize {
        *self = Game::new();
        self.start = at;
        self.start_line = line;
        self.flushed = at + skip;
        self.mark = out.len();
        self.movetext_out = out.len();
        if skip > 0 {
            // A game that starts after a comment starts with movetext.
            self.phase = Phase::Movetext;
            self.at_line_start = false;
        }
        at + skip
    }

    /// Where the game starts in the input.
    pub(super) fn begin(&self) -> usize {
        self.start
    }

    /// Whether it has a tag pair or a move: text with neither is no game.
    pub(super) fn is_game(&self) -> bool {
        self.is_game
    }

    /// Where its output starts in `out`.
    pub(super) fn mark(&self) -> usize {
        self.mark
    }

    /// The input lost its first `n` bytes (all before the game). Offsets
    /// that are not in use (0) stay 0.
    pub(super) fn rebase(&mut self, n: usize) {
        let at = |at: &mut usize| *at = at.saturating_sub(n);
        let range = |r: &mut Range<usize>| {
            *r = r.start.saturating_sub(n)..r.end.saturating_sub(n)
        };
        for offset in [&mut self.start, &mut self.flushed] {
            at(offset);
        }
        at(&mut self.var_start);
        range(&mut self.last_end);
        if let Some(insert) = &mut self.insert {
            range(&mut insert.indent);
            range(&mut insert.end);
        }
        if let Some((open, from)) = &mut self.brace {
            at(open);
            at(from);
        }
    }

    /// The output lost its first `n` bytes (all before the game's): they
    /// were written.
    pub(super) fn rebase_out(&mut self, n: usize) {
        self.mark -= n;
        self.movetext_out = self.movetext_out.saturating_sub(n);
        if let Some(r) = &mut self.result {
            *r = r.start - n..r.end - n;
        }
        if let Some(insert) = &mut self.insert {
            insert.at -= n;
        }
        if let Some(at) = &mut self.eol_out {
            *at -= n;
        }
    }

    /// Reads and filters the game from `pos` on, up to `whole` (the end
    /// of the whole lines in `input`; with `eof`, the end of the input).
    pub(super) fn read(
        &mut self,
        config: &Config,
        input: &[u8],
        mut pos: usize,
        whole: usize,
        out: &mut Vec<u8>,
    ) -> (usize, Stop) {
        while self.phase == Phase::Tags {
            if pos == whole {
                return (pos, Stop::More);
            }
            let (end, next) = line_end(input, pos, whole);
            let first = lex::skip_space(input, pos, end);
            if first < end && input[first] == b'[' {
                self.tag_line(config, input, pos..end, first, next, out);
            } else if first == end || input[pos] == b'%' {
                // Blank and escape lines stay in the tag section.
            } else {
                self.movetext_starts(config, input, pos, whole, out);
                break;
            }
            if next > end {
                self.last_end = end..next;
            }
            pos = next;
        }
        if self.phase == Phase::Movetext {
            return self.movetext(config, input, pos, whole, out);
        }
        (pos, Stop::Ended(pos))
    }

    /// Ends the game at `end`: its output left in `out` (nothing if it was
    /// no game), or what was wrong with it, its output removed.
    pub(super) fn finish(
        &mut self,
        config: &Config,
        input: &[u8],
        end: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), Diagnostic> {
        if let Some((open, _)) = self.brace {
            self.fail(input, open, "unterminated comment".into());
        }
        if self.depth > 0 {
            let at = self.var_start;
            self.fail(input, at, "unterminated variation".into());
        }
        if let Some(error) = self.error.take() {
            out.truncate(self.mark);
            return Err(error);
        }
        if !self.is_game {
            out.truncate(self.mark);
            return Ok(());
        }
        if self.phase == Phase::Tags {
            self.movetext_starts(config, input, end, end, out);
        }
        if !self.at_line_start && !self.cut {
            // The last line has no line end.
            self.end_line(input, end, end, out);
        }
        if self.cut {
            // The blank lines that end the game.
            let from = blank_tail(input, self.start, end);
            out.extend_from_slice(&input[from..end]);
            if let Some(value) = self.result.take() {
                out.splice(value, *b"*");
            }
        } else {
            self.flush_to(input, end, out);
        }
        Ok(())
    }

    /// Records the first fault, at the line of `at`.
    #[cold]
    fn fail(&mut self, input: &[u8], at: usize, message: String) {
        if self.error.is_none() {
            let line =
                self.start_line + count_line_ends(&input[self.start..at]);
            self.error = Some(Diagnostic::error(line, message));
        }
    }

    /// Whether tokens are still written: the game has no fault, and was
    /// not cut.
    #[inline(always)]
    fn writing(&self) -> bool {
        self.error.is_none() && !self.cut
    }

    // ---- the tag section ----

    /// A line of tag pairs at `line`, its first byte that is not white
    /// space at `first`, its line end at `line.end..next`.
    fn tag_line(
        &mut self,
        config: &Config,
        input: &[u8],
        line: Range<usize>,
        first: usize,
        next: usize,
        out: &mut Vec<u8>,
    ) {
        self.is_game = true;
        let end = line.end;
        let mut i = first;
        while i < end {
            let Some((tag, after)) = lex::tag_pair(&input[..end], i) else {
                self.fail(input, i, "malformed tag pair".into());
                break;
            };
            self.tag(config, input, tag.name, tag.value, out);
            i = lex::skip_space(input, after, end);
        }
        if !self.rules || self.insert.is_none() {
            let at = out.len() + (next - self.flushed);
            self.insert =
                Some(Insert { at, indent: line.start..first, end: end..next });
        }
    }

    fn tag(
        &mut self,
        config: &Config,
        input: &[u8],
        name: Range<usize>,
        value: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        match &input[name] {
            b"Filtered" => self.filtered(config, input, value, out),
            b"Result" => {
                let at = out.len() + (value.start - self.flushed);
                self.result = Some(at..at + value.len());
            }
            b"Rules" | b"Variant" if !self.rules => {
                // The Filtered tag goes after this line.
                self.rules = true;
                self.insert = None;
            }
            b"FEN" => self.fen(&input[value]),
            _ => {}
        }
    }

    /// The Filtered tag: the player's name replaces `no`; a record
    /// filtered for the player is filtered again (which changes nothing
    /// in a clean one), one filtered for the other player is an error.
    fn filtered(
        &mut self,
        config: &Config,
        input: &[u8],
        value: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        if std::mem::replace(&mut self.filtered_tag, true) {
            let message = "a second Filtered tag".into();
            return self.fail(input, value.start, message);
        }
        let text = &input[value.clone()];
        let side = if text.eq_ignore_ascii_case(b"white") {
            Side::White
        } else if text.eq_ignore_ascii_case(b"black") {
            Side::Black
        } else if text.eq_ignore_ascii_case(b"no") || text.is_empty() {
            if self.writing() {
                self.flush_to(input, value.start, out);
                out.extend_from_slice(config.player.name().as_bytes());
                self.flushed = value.end;
            }
            return;
        } else {
            let message =
                format!("unknown Filtered value '{}'", shown(text, 24));
            return self.fail(input, value.start, message);
        };
        if side != config.player {
            let message =
                format!("game is already filtered for {}", side.name());
            return self.fail(input, value.start, message);
        }
        self.filtered_for_player = true;
    }

    /// The side to move and the move number of a FEN tag.
    fn fen(&mut self, value: &[u8]) {
        let mut fields = value.split(|&b| b == b' ').filter(|f| !f.is_empty());
        self.to_move = match fields.nth(1) {
            Some(b"b") => Side::Black,
            _ => Side::White,
        };
        let number = fields
            .nth(3)
            .and_then(|n| std::str::from_utf8(n).ok()?.parse::<u64>().ok());
        self.fullmove = number.filter(|&n| n > 0).unwrap_or(1);
    }

    /// The tag section ends at the line starting at `line` (`whole`
    /// bounds the input read): the Filtered tag is added if missing.
    fn movetext_starts(
        &mut self,
        config: &Config,
        input: &[u8],
        line: usize,
        whole: usize,
        out: &mut Vec<u8>,
    ) {
        self.phase = Phase::Movetext;
        if !self.writing() {
            return;
        }
        self.flush_to(input, line, out);
        self.movetext_out = out.len();
        if self.filtered_tag {
            return;
        }
        let mut tag = Vec::new();
        let (at, end, blank) = match self.insert.take() {
            Some(insert) => {
                let mut end = &input[insert.end.clone()];
                if end.is_empty() {
                    // The tag line has no line end (the input ends there):
                    // it gets one like the nearest line's.
                    end = self.any_line_end(input);
                    tag.extend_from_slice(end);
                }
                tag.extend_from_slice(&input[insert.indent]);
                (insert.at, end, false)
            }
            // No tag pairs: the tag and a blank line before the movetext,
            // ended like its first line.
            None => {
                let (end, next) = line_end(input, line, whole);
                self.last_end = if next > end { end..next } else { 0..0 };
                (self.mark, self.any_line_end(input), true)
            }
        };
        tag.extend_from_slice(b"[Filtered \"");
        tag.extend_from_slice(config.player.name().as_bytes());
        tag.extend_from_slice(b"\"]");
        tag.extend_from_slice(end);
        if blank {
            tag.extend_from_slice(end);
        }
        let n = tag.len();
        out.splice(at..at, tag);
        self.movetext_out += n;
        if let Some(r) = self.result.as_mut().filter(|r| r.start >= at) {
            *r = r.start + n..r.end + n;
        }
    }

    /// The most recent line end of the game, or LF.
    fn any_line_end<'i>(&self, input: &'i [u8]) -> &'i [u8] {
        match &input[self.last_end.clone()] {
            [] => b"\n",
            end => end,
        }
    }

    // ---- the movetext ----

    /// Tokenizes from `i` to `whole` and filters each token.
    fn movetext(
        &mut self,
        config: &Config,
        input: &[u8],
        mut i: usize,
        whole: usize,
        out: &mut Vec<u8>,
    ) -> (usize, Stop) {
        // Where a line that starts with `[` ends the movetext.
        let mut limit = lex::bracket_line(input, i, whole).unwrap_or(whole);
        if let Some((open, from)) = self.brace {
            match self.close_comment(
                config, input, open, from, &mut limit, whole, out,
            ) {
                Ok(next) => i = next,
                Err(stop) => return (whole, stop),
            }
        }
        // Only whole lines: a token never runs past `whole`.
        let input = &input[..whole];
        if std::mem::take(&mut self.at_line_start) && i < limit {
            i = self.escape_line(config, input, i, out);
        }
        loop {
            while i < limit && input[i] == b' ' {
                i += 1;
            }
            if i == limit {
                if limit < whole {
                    return (i, Stop::Boundary(i));
                }
                self.at_line_start = i > 0 && lex::ends_line(input, i - 1);
                return (i, Stop::More);
            }
            let b = input[i];
            i = match CLASS[b as usize] {
                Class::Symbol => self.symbol(config, input, i, out),
                Class::Brace => {
                    match self.close_comment(
                        config,
                        input,
                        i,
                        i + 1,
                        &mut limit,
                        whole,
                        out,
                    ) {
                        Ok(next) => next,
                        Err(stop) => return (whole, stop),
                    }
                }
                Class::Space => i + 1,
                Class::LineEnd => {
                    let next = if input[i..].starts_with(b"\r\n") {
                        i + 2
                    } else {
                        i + 1
                    };
                    if let Some(stop) = self.line_end(input, i, next, out) {
                        return (next, stop);
                    }
                    self.escape_line(config, input, next, out)
                }
                Class::Semicolon => {
                    let (end, _) = line_end(input, i, whole);
                    self.item(config, input, Item::LineComment, i..end, out);
                    end
                }
                Class::Open => {
                    if self.depth == 0 {
                        self.var_start = i;
                        if self.terminated {
                            self.after_end(input, i..i + 1);
                        }
                    }
                    self.depth += 1;
                    self.remove(input, i..i + 1, out);
                    i + 1
                }
                Class::Close if self.depth > 0 => {
                    self.depth -= 1;
                    self.remove(input, i..i + 1, out);
                    i + 1
                }
                Class::Dollar => self.nag(config, input, i, out),
                Class::Glyph => self.glyph(config, input, i, out),
                Class::Star => {
                    self.end_marker(config, input, i..i + 1, out);
                    i + 1
                }
                _ => match input[i..] {
                    [0xC2, 0xA0, ..] => i + 2,
                    [0xC2, 0x85, ..] | [0xE2, 0x80, 0xA8, ..] => {
                        let next = i + if b == 0xC2 { 2 } else { 3 };
                        if let Some(stop) = self.line_end(input, i, next, out)
                        {
                            return (next, stop);
                        }
                        self.escape_line(config, input, next, out)
                    }
                    _ => self.unexpected(input, i),
                },
            };
        }
    }

    /// At the line start `i`: an escape line (`%` in its first column) is
    /// an item to its line end. Where reading goes on.
    #[inline]
    fn escape_line(
        &mut self,
        config: &Config,
        input: &[u8],
        i: usize,
        out: &mut Vec<u8>,
    ) -> usize {
        if input.get(i) != Some(&b'%') {
            return i;
        }
        let (end, _) = line_end(input, i, input.len());
        self.item(config, input, Item::Escape, i..end, out);
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
        self.end_line(input, end, next, out);
        if self.terminated && self.depth == 0 {
            self.phase = Phase::Ended;
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
    #[allow(clippy::too_many_arguments)]
    fn close_comment(
        &mut self,
        config: &Config,
        input: &[u8],
        open: usize,
        from: usize,
        limit: &mut usize,
        whole: usize,
        out: &mut Vec<u8>,
    ) -> Result<usize, Stop> {
        let close = lex::find(b'}', &input[from..whole]).map(|j| from + j + 1);
        let upto = close.unwrap_or(whole);
        while *limit < upto {
            let (end, next) = line_end(input, *limit, whole);
            if lex::is_tag_line(&input[*limit..end]) {
                self.brace = Some((open, from));
                return Err(Stop::Boundary(*limit));
            }
            *limit = lex::bracket_line(input, next, whole).unwrap_or(whole);
        }
        let Some(close) = close else {
            self.brace = Some((open, whole));
            return Err(Stop::More);
        };
        self.brace = None;
        self.comment(config, input, open..close, out);
        Ok(close)
    }

    /// A run of symbol characters at `start`: a move number, a
    /// termination marker or a move.
    #[inline]
    fn symbol(
        &mut self,
        config: &Config,
        input: &[u8],
        start: usize,
        out: &mut Vec<u8>,
    ) -> usize {
        if !input[start].is_ascii_digit() {
            // A move: read by the SAN automaton as it is scanned.
            let side = (self.depth == 0).then_some(self.to_move);
            let end = match san::scan_move(input, start, side) {
                Ok(end) if !input.get(end).is_some_and(|&b| token_byte(b)) => {
                    end
                }
                _ => return self.not_a_move(input, start),
            };
            self.a_move(config, input, start..end, out);
            return end;
        }
        let mut i = start;
        while i < input.len() && input[i].is_ascii_digit() {
            i += 1;
        }
        if !input.get(i).is_some_and(|&b| lex::is_symbol(b)) {
            let digits = i;
            while i < input.len() && input[i] == b'.' {
                i += 1;
            }
            self.number(config, input, start, digits, i, out);
            return i;
        }
        while i < input.len() && lex::is_symbol(input[i]) {
            i += 1;
        }
        if matches!(&input[start..i], b"1-0" | b"0-1" | b"1/2-1/2") {
            self.end_marker(config, input, start..i, out);
            return i;
        }
        // Castling with zeros.
        let side = (self.depth == 0).then_some(self.to_move);
        match san::scan_move(input, start, side) {
            Ok(end) if !input.get(end).is_some_and(|&b| token_byte(b)) => {
                self.a_move(config, input, start..end, out);
                end
            }
            _ => self.not_a_move(input, start),
        }
    }

    /// A move number, `digits` ending its digits and `end` its dots.
    fn number(
        &mut self,
        config: &Config,
        input: &[u8],
        start: usize,
        digits: usize,
        end: usize,
        out: &mut Vec<u8>,
    ) {
        if self.depth > 0 {
            return self.remove(input, start..end, out);
        }
        if self.terminated {
            return self.after_end(input, start..end);
        }
        let value = input[start..digits].iter().fold(0u64, |n, d| {
            n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
        });
        let side = match end - digits {
            0 => None,
            1 => Some(Side::White),
            _ => Some(Side::Black),
        };
        if value != self.fullmove || side.is_some_and(|s| s != self.to_move) {
            return self.wrong_number(input, start..end);
        }
        if config.plies == Some(self.plies) {
            self.cut(input, start, out);
        }
        self.owner = Some(self.to_move);
        self.numbered = true;
        self.kcomment = false;
    }

    #[cold]
    fn wrong_number(&mut self, input: &[u8], span: Range<usize>) {
        let dots = if self.to_move == Side::White { "." } else { "..." };
        let message = format!(
            "move number '{}' where '{}{dots}' belongs",
            shown(&input[span.clone()], 24),
            self.fullmove
        );
        self.fail(input, span.start, message);
    }

    /// A move, `??` included, read as Kriegspiel SAN.
    #[inline]
    fn a_move(
        &mut self,
        config: &Config,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        if self.depth > 0 {
            return self.remove(input, span, out);
        }
        if self.terminated {
            return self.after_end(input, span);
        }
        self.is_game = true;
        if config.plies == Some(self.plies) {
            self.cut(input, span.start, out);
        }
        let mover = self.to_move;
        if !std::mem::take(&mut self.numbered) {
            self.owner = Some(mover);
            self.kcomment = false;
        }
        if mover == config.player || input[span.start] == b'?' {
            // Kept as read.
        } else if self.filtered_for_player {
            return self.not_hidden(config, input, span);
        } else {
            self.hide(input, span, out);
        }
        self.plies += 1;
        self.to_move = mover.opponent();
        if mover == Side::Black {
            self.fullmove += 1;
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
        self.fail(input, start, message);
        end
    }

    #[cold]
    fn not_hidden(
        &mut self,
        config: &Config,
        input: &[u8],
        span: Range<usize>,
    ) {
        let message = format!(
            "the game is filtered for {}, but {}'s move '{}' is not hidden",
            config.player.name(),
            self.to_move.name(),
            shown(&input[span.clone()], 24)
        );
        self.fail(input, span.start, message);
    }

    /// A termination marker.
    fn end_marker(
        &mut self,
        config: &Config,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        if self.depth > 0 {
            return self.remove(input, span, out);
        }
        if self.terminated {
            return self.after_end(input, span);
        }
        self.item(config, input, Item::End, span, out);
        self.terminated = true;
    }

    /// Reports a token after the termination marker, where only comments
    /// may stand.
    #[cold]
    fn after_end(&mut self, input: &[u8], span: Range<usize>) {
        let message = format!(
            "'{}' after the termination marker",
            shown(&input[span.clone()], 24)
        );
        self.fail(input, span.start, message);
    }

    fn nag(
        &mut self,
        config: &Config,
        input: &[u8],
        start: usize,
        out: &mut Vec<u8>,
    ) -> usize {
        let mut i = start + 1;
        while input[i].is_ascii_digit() {
            i += 1;
        }
        if i == start + 1 {
            return self.unexpected(input, start);
        }
        self.item(config, input, Item::Nag, start..i, out);
        i
    }

    /// `!`, `?` and their pairs standing alone; `??` alone is a hidden
    /// move.
    fn glyph(
        &mut self,
        config: &Config,
        input: &[u8],
        start: usize,
        out: &mut Vec<u8>,
    ) -> usize {
        let mut i = start;
        while CLASS[input[i] as usize] == Class::Glyph {
            i += 1;
        }
        match &input[start..i] {
            b"??" => self.a_move(config, input, start..i, out),
            b"!" | b"?" | b"!!" | b"!?" | b"?!" => {
                self.item(config, input, Item::Glyph, start..i, out)
            }
            _ => return self.unexpected(input, start),
        }
        i
    }

    /// A `{...}` comment.
    fn comment(
        &mut self,
        config: &Config,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        let side = if self.depth > 0 { None } else { self.owner };
        let k = match comment::parse(&input[span.clone()], side) {
            Comment::Plain => {
                return self.item(config, input, Item::Comment, span, out)
            }
            Comment::Bad => {
                let message = comment::error(&input[span.clone()], side);
                return self.fail(input, span.start, message);
            }
            Comment::Kriegspiel(k) => k,
        };
        if self.depth > 0 {
            return self.remove(input, span, out);
        }
        let Some(owner) = self.owner else {
            let message = "kriegspiel comment before the first move";
            return self.fail(input, span.start, message.into());
        };
        if std::mem::replace(&mut self.kcomment, true) {
            let message = "a second kriegspiel comment for one move";
            return self.fail(input, span.start, message.into());
        }
        if owner == config.player {
            return;
        }
        if self.filtered_for_player && k.listed().is_some_and(|n| n > 0) {
            let message = format!(
                "the game is filtered for {}, but {}'s illegal attempts are listed",
                config.player.name(),
                owner.name()
            );
            return self.fail(input, span.start, message);
        }
        if self.writing() {
            self.kcomment_out(input, span, &k, config.keep_comments, out);
        }
    }

    /// A movetext item other than a move, a number or a Kriegspiel
    /// comment: kept or removed by whose move it belongs to.
    fn item(
        &mut self,
        config: &Config,
        input: &[u8],
        item: Item,
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        if self.depth > 0 {
            return self.remove(input, span, out);
        }
        let theirs = self.owner == Some(config.player.opponent());
        let remove = theirs
            && match item {
                Item::Nag | Item::Glyph => true,
                Item::Comment | Item::LineComment | Item::Escape => {
                    !config.keep_comments
                }
                Item::End => false,
            };
        if remove {
            self.remove(input, span, out);
        } else {
            let to_eol = matches!(item, Item::LineComment | Item::Escape);
            self.keep(config, input, span.end, to_eol, out);
        }
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
        self.fail(input, start, message);
        i
    }

    // ---- writing ----

    /// Writes the pending input up to `pos`, without the white space at
    /// its start after a removed item that was first on its line.
    #[inline]
    fn flush_to(&mut self, input: &[u8], pos: usize, out: &mut Vec<u8>) {
        let mut from = self.flushed;
        if std::mem::take(&mut self.eat) {
            from = lex::skip_space(input, from, pos);
        }
        out.extend_from_slice(&input[from..pos]);
        self.flushed = pos;
    }

    /// The line end at `end..next`: drops the line if removals left it
    /// empty.
    #[inline]
    fn end_line(
        &mut self,
        input: &[u8],
        end: usize,
        next: usize,
        out: &mut Vec<u8>,
    ) {
        if std::mem::take(&mut self.removed) && self.writing() {
            self.flush_to(input, end, out);
            let blank = blank_end(out, self.mark);
            if blank_at_line_start(out, blank, self.mark) {
                out.truncate(blank);
                self.flushed = next;
            }
        }
        self.eat = false;
    }

    /// Keeps the item ending at `end`, as read: it is pending, so only
    /// the end of a `;` or `%` item is noted, for a cut (`--plies`).
    #[inline(always)]
    fn keep(
        &mut self,
        config: &Config,
        input: &[u8],
        end: usize,
        to_eol: bool,
        out: &mut Vec<u8>,
    ) {
        if to_eol && config.plies.is_some() && self.writing() {
            self.flush_to(input, end, out);
            self.eol_out = Some(out.len());
        }
    }

    /// Removes the item at `span` and the white space on one side of it:
    /// before it if something stands before it on its output line, else
    /// after it.
    fn remove(&mut self, input: &[u8], span: Range<usize>, out: &mut Vec<u8>) {
        if !self.writing() {
            return;
        }
        self.flush_to(input, span.start, out);
        let blank = blank_end(out, self.mark);
        if blank_at_line_start(out, blank, self.mark) {
            self.eat = true;
        } else {
            out.truncate(blank);
        }
        self.removed = true;
        self.flushed = span.end;
        separate(input.get(span.end).copied(), out);
    }

    /// Writes `??` for the opponent's move at `span`, apart from the
    /// items around it.
    #[inline]
    fn hide(&mut self, input: &[u8], span: Range<usize>, out: &mut Vec<u8>) {
        if !self.writing() {
            return;
        }
        self.flush_to(input, span.start, out);
        separate(Some(b'?'), out);
        out.extend_from_slice(b"??");
        self.flushed = span.end;
        separate(input.get(span.end).copied(), out);
    }

    /// Writes an opponent's Kriegspiel comment: announcements kept,
    /// attempts counted, free text dropped unless `keep_text`.
    fn kcomment_out(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        k: &KComment,
        keep_text: bool,
        out: &mut Vec<u8>,
    ) {
        // `{`, the white space, `(`, the announcements and `:` are kept
        // as read, with the pending input.
        let illegal = k.illegal();
        self.flush_to(input, span.start + illegal.start, out);
        let c = &input[span.clone()];
        match k.listed() {
            Some(n) => decimal::push(out, n as u64),
            None => out.extend_from_slice(&c[illegal.clone()]),
        }
        if keep_text {
            out.extend_from_slice(&c[illegal.end..]);
        } else if k.trail() + 1 == c.len() {
            out.extend_from_slice(b")}");
        } else {
            out.push(b')');
            out.extend_from_slice(&c[k.trail()..]);
        }
        self.flushed = span.end;
    }

    /// Ends a game cut before the token at `next` (a move number or a
    /// move): ` *` after the last item kept and the line end of its line,
    /// or `*` at the start of the line of `next` if nothing was kept.
    fn cut(&mut self, input: &[u8], next: usize, out: &mut Vec<u8>) {
        if !self.writing() {
            return;
        }
        self.flush_to(input, next, out);
        self.cut = true;
        // Back over the white space and line ends after the last item
        // kept.
        let floor = self.movetext_out;
        let mut kept = out.len();
        while kept > floor {
            kept -= match out[..kept] {
                [.., b' ' | b'\t' | 0x0B | 0x0C | b'\r' | b'\n'] => 1,
                [.., 0xC2, 0xA0 | 0x85] => 2,
                [.., 0xE2, 0x80, 0xA8] => 3,
                _ => break,
            };
        }
        // The line end after it, or that of the line of `next`.
        let (end, after) = line_end(input, next, input.len());
        let own_end = input[end..after].to_vec();
        if kept == floor {
            let line = floor.max(line_start(out, floor));
            out.truncate(line);
            out.push(b'*');
            out.extend_from_slice(&own_end);
            return;
        }
        let end = match find_line_end(&out[kept..]) {
            Some((end, after)) => out[kept + end..kept + after].to_vec(),
            None => own_end,
        };
        let eol = self.eol_out == Some(kept);
        out.truncate(kept);
        if eol {
            // ` *` would be part of the comment: the marker goes on a
            // line of its own.
            out.extend_from_slice(&end);
            out.push(b'*');
        } else {
            out.extend_from_slice(b" *");
        }
        out.extend_from_slice(&end);
    }
}

/// Where the white space (not line ends) that ends `out` starts, not
/// before `floor`.
#[inline]
fn blank_end(out: &[u8], floor: usize) -> usize {
    let mut end = out.len();
    while end > floor {
        end -= match out[..end] {
            [.., b' ' | b'\t' | 0x0B | 0x0C] => 1,
            [.., 0xC2, 0xA0] => 2,
            _ => break,
        };
    }
    end
}

/// Whether `at` (where the white space that ends `out` starts) is at the
/// start of its output line: nothing stands before it on that line.
#[inline]
fn blank_at_line_start(out: &[u8], at: usize, floor: usize) -> bool {
    at == floor || lex::ends_line(out, at - 1)
}

/// Whether `b` may be part of a move token: a symbol character or a
/// glyph.
#[inline(always)]
fn token_byte(b: u8) -> bool {
    matches!(CLASS[b as usize], Class::Symbol | Class::Glyph)
}

/// Writes a space if `next` would run into the last byte written:
/// `e4!e5` is three items, but `??` and `e5` with nothing between them
/// would be one.
#[inline(always)]
fn separate(next: Option<u8>, out: &mut Vec<u8>) {
    let graphic = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_graphic());
    if graphic(out.last().copied()) && graphic(next) {
        out.push(b' ');
    }
}

/// The line that starts at `from`: where its line end starts and ends,
/// both `upto` if it has none before it.
#[inline]
fn line_end(input: &[u8], from: usize, upto: usize) -> (usize, usize) {
    match find_line_end(&input[from..upto]) {
        Some((end, next)) => (from + end, from + next),
        None => (upto, upto),
    }
}

/// Where the line that `bytes` ends in starts: just after its last line
/// end, or at `floor` if there is none after it.
fn line_start(bytes: &[u8], floor: usize) -> usize {
    (floor..bytes.len())
        .rev()
        .find(|&i| lex::ends_line(bytes, i))
        .map_or(floor, |i| i + 1)
}

/// Where the blank lines that end `input[from..end]` start: just after
/// the line end of its last line that is not blank.
fn blank_tail(input: &[u8], from: usize, end: usize) -> usize {
    let mut p = end;
    while p > from {
        p -= match input[..p] {
            [.., b' ' | b'\t' | 0x0B | 0x0C | b'\r' | b'\n'] => 1,
            [.., 0xC2, 0xA0 | 0x85] => 2,
            [.., 0xE2, 0x80, 0xA8] => 3,
            _ => break,
        };
    }
    line_end(input, p, end).1
}
