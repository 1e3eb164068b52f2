//! Filtering one game for one player (FORMATS.md, Kriegspiel PGN points
//! 5 to 8).
//!
//! The game's bytes are copied as read, except for the items that are
//! hidden or changed:
//!
//! - each opponent move becomes `??`; in its Kriegspiel comment the
//!   illegal attempts become their count and the free text goes;
//! - the opponent's other comments, NAGs and glyphs go, and every
//!   variation;
//! - the `Filtered` tag names the player (added after the rules tag when
//!   missing), and with `--plies` the Result tag becomes `*`.
//!
//! White space around a removed item: the blanks before it on its line go
//! with it; when it is the first item on its line, the indentation stays
//! and the blanks after it go instead; a line left empty by removals goes
//! with its line end. A line that was blank in the input stays.

use super::comment::{self, Illegal, KComment};
use super::game::{Game, LineSpan, Tag};
use super::token::{self, Kind, Token};
use super::Side;
use crate::decimal;
use crate::diag::Diagnostic;

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

/// Writes `game` as `config.player` saw it to the end of `out`.
///
/// # Errors
///
/// What makes the game impossible to filter, at its line: a broken
/// Kriegspiel comment, a move number that contradicts the side to move, a
/// move after the termination marker, a game already filtered for the
/// other player. `out` then holds part of the game.
pub fn filter(
    game: &Game,
    config: &Config,
    out: &mut Vec<u8>,
) -> Result<(), Diagnostic> {
    let hide = !already_filtered(game, config.player)?;
    let cut = config.plies.and_then(|n| cut_at(game.tokens(), n));
    let mut emit = Emitter::new(game, out);
    tags(game, config, hide, cut.is_some(), &mut emit);
    let end = cut.unwrap_or(game.tokens().len());
    // `%` lines may stand before the tag section: they go out with it,
    // and are not items of the movetext (a cut must not end after one).
    if let Some(last) = game.tags().last() {
        if emit.cur < last.span.end {
            emit.copy_to(last.span.end);
        }
    }
    let tokens = &game.tokens()[..end];
    let first = tokens.partition_point(|tok| tok.start < emit.cur);
    let mut walk = Walk::new(game, config, hide);
    for tok in &tokens[first..] {
        walk.token(tok, &mut emit)?;
    }
    match cut {
        Some(at) => emit.cut(&game.tokens()[at]),
        None => emit.finish(),
    }
    Ok(())
}

/// Whether the game is already filtered for `player`. A game filtered
/// for the other player is an error: what was hidden is lost.
pub(super) fn already_filtered(
    game: &Game,
    player: Side,
) -> Result<bool, Diagnostic> {
    let Some(tag) = game.tag("Filtered") else { return Ok(false) };
    let value = game.text(tag.value.clone());
    let line = game.lines()[tag.line].number;
    let side = if value.eq_ignore_ascii_case(b"white") {
        Side::White
    } else if value.eq_ignore_ascii_case(b"black") {
        Side::Black
    } else if value.eq_ignore_ascii_case(b"no") || value.is_empty() {
        return Ok(false);
    } else {
        let shown = String::from_utf8_lossy(value);
        return Err(Diagnostic::error(
            line,
            format!("unknown Filtered value '{shown}'"),
        ));
    };
    if side != player {
        let message = format!("game is already filtered for {}", side.name());
        return Err(Diagnostic::error(line, message));
    }
    Ok(true)
}

/// The index of the first token dropped when only `plies` half-moves are
/// kept: the move number of the next move if it has one, else that move.
/// `None` if the game has no more half-moves than that.
fn cut_at(tokens: &[Token], plies: u64) -> Option<usize> {
    let (mut depth, mut moves, mut number) = (0u32, 0u64, None);
    for (i, tok) in tokens.iter().enumerate() {
        match tok.kind {
            Kind::VarStart => depth += 1,
            Kind::VarEnd => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            Kind::MoveNumber(_) if number.is_none() => number = Some(i),
            Kind::San | Kind::Hidden if moves == plies => {
                return Some(number.unwrap_or(i))
            }
            Kind::San | Kind::Hidden => {
                moves += 1;
                number = None;
            }
            Kind::End => return None,
            _ => {}
        }
    }
    None
}

/// Writes the tag section: the Filtered value set or its tag added, the
/// Result value `*` when the game is cut.
pub(super) fn tags(
    game: &Game,
    config: &Config,
    hide: bool,
    cut: bool,
    emit: &mut Emitter<'_>,
) {
    let filtered = game.tag("Filtered");
    let result = game.tag("Result");
    let player = config.player.name().as_bytes();
    let rules = game.tag("Rules").or_else(|| game.tag("Variant"));
    let mut insert_after = match (hide, filtered) {
        (true, None) => rules.or(game.tags().last()).map(|t| t.line),
        _ => None,
    };
    for tag in game.tags() {
        if let Some(line) = insert_after.filter(|&l| l < tag.line) {
            emit.insert_line_after(line, player);
            insert_after = None;
        }
        if hide && Some(tag) == filtered {
            emit.replace_span(tag.value.clone(), player);
        } else if cut && Some(tag) == result {
            emit.replace_span(tag.value.clone(), b"*");
        }
    }
    if let Some(line) = insert_after {
        emit.insert_line_after(line, player);
    } else if hide && game.tags().is_empty() {
        if let Some(first) = game.tokens().first() {
            emit.insert_before_movetext(first, player);
        }
    }
}

/// The state of the walk through the movetext.
struct Walk<'g> {
    game: &'g Game,
    player: Side,
    keep_comments: bool,
    hide: bool,
    to_move: Side,
    /// Whose move the comments, NAGs and glyphs being read belong to.
    owner: Option<Side>,
    /// Whether the last move already had its Kriegspiel comment.
    kcomment: bool,
    depth: u32,
    ended: bool,
}

impl<'g> Walk<'g> {
    fn new(game: &'g Game, config: &Config, hide: bool) -> Walk<'g> {
        Walk {
            game,
            player: config.player,
            keep_comments: config.keep_comments,
            hide,
            to_move: first_to_move(game),
            owner: None,
            kcomment: false,
            depth: 0,
            ended: false,
        }
    }

    fn token(
        &mut self,
        tok: &Token,
        emit: &mut Emitter<'_>,
    ) -> Result<(), Diagnostic> {
        if !self.hide {
            emit.keep(tok);
            return Ok(());
        }
        let theirs = self.owner == Some(self.player.opponent());
        match tok.kind {
            Kind::VarStart => self.depth += 1,
            Kind::VarEnd => self.depth -= 1,
            _ if self.depth > 0 => {}
            Kind::MoveNumber(side) => return self.number(tok, side, emit),
            Kind::San | Kind::Hidden => return self.a_move(tok, emit),
            Kind::Glyph | Kind::Nag if theirs => {}
            Kind::Comment => return self.comment(tok, theirs, emit),
            Kind::LineComment | Kind::Escape
                if theirs && !self.keep_comments => {}
            Kind::End => {
                self.ended = true;
                emit.keep(tok);
                return Ok(());
            }
            _ => {
                emit.keep(tok);
                return Ok(());
            }
        }
        emit.remove(tok);
        Ok(())
    }

    fn number(
        &mut self,
        tok: &Token,
        side: Option<Side>,
        emit: &mut Emitter<'_>,
    ) -> Result<(), Diagnostic> {
        if side.is_some_and(|s| s != self.to_move) {
            let shown =
                String::from_utf8_lossy(self.game.text(tok.start..tok.end));
            let message = format!(
                "move number '{shown}' but {} is to move",
                self.to_move.name()
            );
            return Err(Diagnostic::error(tok.line, message));
        }
        emit.keep(tok);
        Ok(())
    }

    fn a_move(
        &mut self,
        tok: &Token,
        emit: &mut Emitter<'_>,
    ) -> Result<(), Diagnostic> {
        if self.ended {
            let message = "move after the termination marker";
            return Err(Diagnostic::error(tok.line, message));
        }
        let side = self.to_move;
        self.to_move = side.opponent();
        self.owner = Some(side);
        self.kcomment = false;
        if side == self.player || tok.kind == Kind::Hidden {
            emit.keep(tok);
        } else {
            emit.replace(tok, b"??");
        }
        Ok(())
    }

    fn comment(
        &mut self,
        tok: &Token,
        theirs: bool,
        emit: &mut Emitter<'_>,
    ) -> Result<(), Diagnostic> {
        let text = self.game.text(tok.start..tok.end);
        let k = match comment::parse(text) {
            None if theirs && !self.keep_comments => {
                emit.remove(tok);
                return Ok(());
            }
            None => {
                emit.keep(tok);
                return Ok(());
            }
            Some(parsed) => {
                parsed.map_err(|m| Diagnostic::error(tok.line, m))?
            }
        };
        let fail = |m: &str| Err(Diagnostic::error(tok.line, m));
        if self.owner.is_none() {
            return fail("kriegspiel comment before the first move");
        }
        if self.kcomment {
            return fail("second kriegspiel comment for one move");
        }
        self.kcomment = true;
        if theirs {
            emit.kcomment(tok, &k, self.keep_comments);
        } else {
            emit.keep(tok);
        }
        Ok(())
    }
}

/// The side to move first: Black if the FEN tag says so, else White.
pub(super) fn first_to_move(game: &Game) -> Side {
    to_move_after(game, game.tag("FEN"))
}

/// The side to move first after the FEN tag `fen`: Black if it says
/// so, else White (also without a FEN tag).
pub(super) fn to_move_after(game: &Game, fen: Option<&Tag>) -> Side {
    let Some(tag) = fen else { return Side::White };
    let fen = game.text(tag.value.clone());
    let mut fields = fen.split(|&b| b == b' ').filter(|f| !f.is_empty());
    match fields.nth(1) {
        Some(b"b") => Side::Black,
        _ => Side::White,
    }
}

/// Writes a game's bytes to `out`, copying what is kept as read and
/// handling the white space around what is removed.
///
/// What is kept is not copied item by item: the input from `flushed` to
/// `cur` is pending, and goes to `out` in one piece when something is
/// changed or removed. Offsets into the output (`line_out`, `last_kept`)
/// count the pending bytes as written.
pub(super) struct Emitter<'a> {
    buf: &'a [u8],
    lines: &'a [LineSpan],
    out: &'a mut Vec<u8>,
    /// Input copied, pending or skipped up to here.
    cur: usize,
    /// Input from here to `cur` is pending: to be copied as it is.
    flushed: usize,
    /// The line holding `cur`.
    li: usize,
    /// Where the current output line starts in `out`.
    line_out: usize,
    /// Something was kept on the current output line.
    kept: bool,
    /// Something was removed on the current output line.
    removed: bool,
    /// Skip the white space at the start of the next gap.
    eat: bool,
    /// The end in `out` of the last movetext item kept, and the line
    /// it ended on.
    last_kept: Option<(usize, usize)>,
    /// Whether that item runs to the end of its line (a `;` comment or a
    /// `%` line), so that nothing may follow it on that line.
    last_to_eol: bool,
}

impl<'a> Emitter<'a> {
    pub(super) fn new(game: &'a Game, out: &'a mut Vec<u8>) -> Emitter<'a> {
        let line_out = out.len();
        Emitter {
            buf: game.bytes(),
            lines: game.lines(),
            out,
            cur: 0,
            flushed: 0,
            li: 0,
            line_out,
            kept: false,
            removed: false,
            eat: false,
            last_kept: None,
            last_to_eol: false,
        }
    }

    /// Writes the pending input to `out`.
    #[inline]
    pub(super) fn flush(&mut self) {
        self.out.extend_from_slice(&self.buf[self.flushed..self.cur]);
        self.flushed = self.cur;
    }

    /// The length of the output, pending input included.
    #[inline(always)]
    fn len(&self) -> usize {
        self.out.len() + (self.cur - self.flushed)
    }

    /// Copies the input up to `pos`, line ends included, dropping a line
    /// that removals left empty.
    #[inline(always)]
    pub(super) fn copy_to(&mut self, pos: usize) {
        // Most gaps are a space or two inside one line: pending.
        if !self.eat && pos <= self.lines[self.li].content_end {
            self.cur = pos;
            return;
        }
        self.copy_lines_to(pos);
    }

    /// [`Emitter::copy_to`] across line ends, or eating white space.
    fn copy_lines_to(&mut self, pos: usize) {
        while self.cur < pos {
            let line = self.lines[self.li];
            if self.cur < line.content_end {
                let stop = pos.min(line.content_end);
                if self.eat {
                    self.flush();
                    self.flushed = token::skip_space(self.buf, self.cur, stop);
                    self.eat = false;
                }
                self.cur = stop;
            } else {
                self.end_line(line);
                // Past the end of the last line is the end of the game:
                // `li` stays a valid index.
                if self.li + 1 < self.lines.len() {
                    self.li += 1;
                }
            }
        }
    }

    /// Passes the line end of `line` (at `cur`), or drops the line if
    /// removals left it empty.
    fn end_line(&mut self, line: LineSpan) {
        let drop = self.removed && !self.kept && {
            self.flush();
            let rest = &self.out[self.line_out..];
            token::skip_space(rest, 0, rest.len()) == rest.len()
        };
        if drop {
            self.out.truncate(self.line_out);
        }
        self.cur = line.end;
        if drop {
            self.flushed = line.end;
        }
        self.line_out = self.len();
        self.kept = false;
        self.removed = false;
        self.eat = false;
    }

    /// Copies the rest of the game.
    fn finish(&mut self) {
        self.copy_to(self.buf.len());
        self.flush();
    }

    /// Moves past the input up to `end`, the end of an item.
    #[inline(always)]
    fn skip_to(&mut self, end: usize) {
        self.cur = end;
        while self.lines[self.li].content_end < end {
            self.li += 1;
        }
    }

    #[inline(always)]
    fn keep(&mut self, tok: &Token) {
        self.copy_to(tok.start);
        let start_line = self.li;
        self.skip_to(tok.end);
        if self.li != start_line {
            let line_start = self.lines[self.li].start;
            self.line_out = self.len() - (tok.end - line_start);
        }
        self.kept_item();
        self.last_to_eol =
            matches!(tok.kind, Kind::LineComment | Kind::Escape);
    }

    /// Writes `with` for the input up to `end`, which is skipped.
    fn put(&mut self, with: &[u8], end: usize) {
        self.flush();
        self.out.extend_from_slice(with);
        self.skip_to(end);
        self.flushed = end;
    }

    /// Writes `with` for the item `tok`, apart from the items around it.
    fn replace(&mut self, tok: &Token, with: &[u8]) {
        self.copy_to(tok.start);
        self.flush();
        self.separate(with.first());
        self.put(with, tok.end);
        self.kept_item();
        self.separate(self.buf.get(tok.end));
    }

    /// Writes a space if `next` would run into the last byte written:
    /// the lexer reads `e4!e5` as three items, but `e4` and `e5` with
    /// nothing between them would be one (`out` must be flushed).
    fn separate(&mut self, next: Option<&u8>) {
        let graphic = |b: Option<&u8>| b.is_some_and(u8::is_ascii_graphic);
        if graphic(self.out.last()) && graphic(next) {
            self.out.push(b' ');
        }
    }

    #[inline(always)]
    fn kept_item(&mut self) {
        // The blanks after a removed item go only up to the next item.
        self.eat = false;
        self.kept = true;
        self.last_kept = Some((self.len(), self.li));
        self.last_to_eol = false;
    }

    fn remove(&mut self, tok: &Token) {
        self.copy_to(tok.start);
        self.flush();
        if self.kept {
            let floor = self.last_kept.map_or(0, |k| k.0).max(self.line_out);
            let keep = trim_end(&self.out[floor..]) + floor;
            self.out.truncate(keep);
        } else {
            self.eat = true;
        }
        self.removed = true;
        self.skip_to(tok.end);
        self.flushed = tok.end;
        self.separate(self.buf.get(tok.end));
    }

    /// Writes an opponent's Kriegspiel comment: announcements kept,
    /// attempts counted, free text dropped unless `keep_text`.
    fn kcomment(&mut self, tok: &Token, k: &KComment, keep_text: bool) {
        self.copy_to(tok.start);
        // `{`, the white space, `(`, the announcements and `:` are kept as
        // read, with the pending input.
        self.cur = tok.start + k.illegal.start;
        self.flush();
        let c = &self.buf[tok.start..tok.end];
        let out = &mut *self.out;
        match k.attempts {
            Illegal::Attempts(n) => decimal::push(out, n as u64),
            Illegal::Count => out.extend_from_slice(&c[k.illegal.clone()]),
        }
        if keep_text {
            out.extend_from_slice(&c[k.illegal.end..]);
        } else {
            out.push(b')');
            out.extend_from_slice(&c[k.trail.start..]);
        }
        self.skip_to(tok.end);
        self.flushed = tok.end;
        self.kept_item();
    }

    /// Replaces the value at `span` (in the tag section).
    fn replace_span(&mut self, span: std::ops::Range<usize>, with: &[u8]) {
        self.copy_to(span.start);
        self.put(with, span.end);
    }

    /// Adds `[Filtered "<player>"]` after line `li`, indented and ended
    /// like it.
    fn insert_line_after(&mut self, li: usize, player: &[u8]) {
        let line = self.lines[li];
        self.copy_to(line.end);
        self.flush();
        let mut end = &self.buf[line.content_end..line.end];
        if end.is_empty() {
            // The line before has no line end (the input ends there):
            // give it one, like the nearest line that has one.
            end = self.any_line_end(li);
            self.out.extend_from_slice(end);
        }
        let indent = token::skip_space(self.buf, line.start, line.content_end);
        self.out.extend_from_slice(&self.buf[line.start..indent]);
        self.filtered_tag(player);
        if line.end != line.content_end {
            self.out.extend_from_slice(end);
        }
        self.line_out = self.out.len();
    }

    /// A game without tag pairs gets `[Filtered "<player>"]` and a blank
    /// line before its movetext.
    fn insert_before_movetext(&mut self, first: &Token, player: &[u8]) {
        let li =
            self.lines.iter().position(|l| l.end > first.start).unwrap_or(0);
        let line = self.lines[li];
        self.copy_to(line.start);
        self.flush();
        let end = self.any_line_end(li);
        self.filtered_tag(player);
        self.out.extend_from_slice(end);
        self.out.extend_from_slice(end);
        self.line_out = self.out.len();
    }

    fn filtered_tag(&mut self, player: &[u8]) {
        self.out.extend_from_slice(b"[Filtered \"");
        self.out.extend_from_slice(player);
        self.out.extend_from_slice(b"\"]");
    }

    /// The line end of line `li`, or of the nearest line before it that
    /// has one, or LF.
    fn any_line_end(&self, li: usize) -> &'a [u8] {
        self.lines[..=li]
            .iter()
            .rev()
            .map(|l| &self.buf[l.content_end..l.end])
            .find(|e| !e.is_empty())
            .unwrap_or(b"\n")
    }

    /// Ends a game cut before `next`: ` *` after the last item kept, the
    /// line end of its line, then the blank lines that end the game.
    fn cut(&mut self, next: &Token) {
        self.flush();
        let li = match self.last_kept {
            Some((at, li)) if self.last_to_eol => {
                // ` *` would be part of the comment: the marker goes on a
                // line of its own.
                self.out.truncate(at);
                let line = self.lines[li];
                self.out
                    .extend_from_slice(&self.buf[line.content_end..line.end]);
                self.out.push(b'*');
                li
            }
            Some((at, li)) => {
                self.out.truncate(at);
                self.out.extend_from_slice(b" *");
                li
            }
            None => {
                let li = self.lines.iter().position(|l| l.end > next.start);
                let li = li.unwrap_or(0);
                self.copy_to(self.lines[li].start);
                self.flush();
                self.out.push(b'*');
                li
            }
        };
        let line = self.lines[li];
        self.out.extend_from_slice(&self.buf[line.content_end..line.end]);
        let blank = |l: &&LineSpan| {
            token::skip_space(self.buf, l.start, l.content_end)
                == l.content_end
        };
        let trailing = self.lines[li + 1..].iter().rev().take_while(blank);
        if let Some(first) = trailing.last() {
            self.out.extend_from_slice(&self.buf[first.start..]);
        }
    }
}

/// The length of `s` without its trailing blanks (space, tab, VT, FF,
/// U+00A0).
pub(super) fn trim_end(s: &[u8]) -> usize {
    let mut n = s.len();
    loop {
        match s[..n] {
            [.., b' ' | b'\t' | 0x0B | 0x0C] => n -= 1,
            [.., 0xC2, 0xA0] => n -= 2,
            _ => return n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kpgn::game::GameReader;

    fn config(player: Side, plies: Option<u64>, keep: bool) -> Config {
        Config { player, plies, keep_comments: keep }
    }

    fn run(input: &str, config: &Config) -> Result<String, Diagnostic> {
        let mut rdr = GameReader::new(input.as_bytes());
        let mut out = vec![];
        while let Some(game) = rdr.next_game().unwrap() {
            if let Some(error) = game.error() {
                return Err(error.clone());
            }
            if game.is_game() {
                filter(game, config, &mut out)?;
            } else {
                out.extend_from_slice(game.bytes());
            }
        }
        Ok(String::from_utf8(out).unwrap())
    }

    fn white(input: &str) -> String {
        run(input, &config(Side::White, None, false)).unwrap()
    }

    fn error(input: &str, config: &Config) -> (u64, String) {
        let d = run(input, config).unwrap_err();
        (d.line, d.message)
    }

    #[test]
    fn removed_items_take_the_blanks_before_them() {
        let input = "[A \"1\"]\n1. e4 e5 $1 {free} 2. d4 d5!? \
                     (2... c5 3. c4) ; note\n";
        let want = "[A \"1\"]\n[Filtered \"white\"]\n1. e4 ?? 2. d4 ??\n";
        assert_eq!(white(input), want);
    }

    #[test]
    fn first_items_on_a_line_take_the_blanks_after_them() {
        let input = "[A \"1\"]\n1. e4 e5\n  {free\ncomment}\n  $2 2. d4\n\n";
        let want = "[A \"1\"]\n[Filtered \"white\"]\n1. e4 ??\n  2. d4\n\n";
        assert_eq!(white(input), want);
    }

    #[test]
    fn variations_go_for_both_sides() {
        let input = "[A \"1\"]\n1. e4 (1. d4\n  d5) e5 (1... c5) 2. d4 *\n";
        let want = "[A \"1\"]\n[Filtered \"white\"]\n1. e4\n  ?? 2. d4 *\n";
        assert_eq!(white(input), want);
    }

    #[test]
    fn own_moves_stay_exactly() {
        let input = "[A \"1\"]\n1. e4!? $3 {(CF:Ke2,Qh5) my note} ; mine\n\
                     1... e5?? $4 {(Xe4:f6) theirs} {more} ; theirs\n";
        let want = "[A \"1\"]\n[Filtered \"white\"]\n\
                    1. e4!? $3 {(CF:Ke2,Qh5) my note} ; mine\n\
                    1... ?? {(Xe4:1)}\n";
        assert_eq!(white(input), want);
        let kept = run(input, &config(Side::White, None, true)).unwrap();
        let want = "[A \"1\"]\n[Filtered \"white\"]\n\
                    1. e4!? $3 {(CF:Ke2,Qh5) my note} ; mine\n\
                    1... ?? {(Xe4:1) theirs} {more} ; theirs\n";
        assert_eq!(kept, want);
    }

    #[test]
    fn space_inside_kriegspiel_comments_stays() {
        let input = "[A \"1\"]\n1. e4 { (:) } e5 { (CS:d6,d5) hm }\n";
        let want =
            "[A \"1\"]\n[Filtered \"white\"]\n1. e4 { (:) } ?? { (CS:2) }\n";
        assert_eq!(white(input), want);
    }

    #[test]
    fn filtered_tag_replaced_or_added_after_the_rules_tag() {
        let input = "[Filtered \"no\"]\n1. e4 *\n";
        assert_eq!(white(input), "[Filtered \"white\"]\n1. e4 *\n");
        let input =
            "\u{a0} [Rules \"Kriegspiel (Berkeley)\"]\r\n[X \"y\"]\r\n\
                     \r\n1. e4 *\r\n";
        let want = "\u{a0} [Rules \"Kriegspiel (Berkeley)\"]\r\n\
                    \u{a0} [Filtered \"white\"]\r\n\
                    [X \"y\"]\r\n\r\n1. e4 *\r\n";
        assert_eq!(white(input), want);
        let input = "[A \"1\"] [Variant \"Kriegspiel\"] [B \"2\"]\u{2028}*";
        let want = "[A \"1\"] [Variant \"Kriegspiel\"] [B \"2\"]\u{2028}\
                    [Filtered \"white\"]\u{2028}*";
        assert_eq!(white(input), want);
    }

    #[test]
    fn filtered_tag_for_games_without_tags_or_line_ends() {
        assert_eq!(white("[A \"1\"]"), "[A \"1\"]\n[Filtered \"white\"]");
        assert_eq!(
            white("\n1. e4 e5 *\r"),
            "\n[Filtered \"white\"]\r\r1. e4 ?? *\r"
        );
    }

    /// Found by the fuzz target `kpgn`: a Filtered tag added after the
    /// last line of a game that ends with a line end made the filter
    /// index past its last line.
    #[test]
    fn issue6_fuzz_kpgn_tags_only_game_with_line_end() {
        let black = config(Side::Black, None, false);
        let got = run("[h\"\"]\n", &black).unwrap();
        assert_eq!(got, "[h\"\"]\n[Filtered \"black\"]\n");
        let got = run("[A \"1\"]\r\n\r\n[B \"2\"]\r\n", &black).unwrap();
        assert_eq!(
            got,
            "[A \"1\"]\r\n\r\n[B \"2\"]\r\n[Filtered \"black\"]\r\n"
        );
    }

    /// Found by the fuzz target `kpgn`: a `%` line before the tag section
    /// was copied with the tags, then walked again as a token, and the
    /// filter went back in its input.
    #[test]
    fn issue6_fuzz_kpgn_escape_line_before_the_tags() {
        let white = config(Side::White, None, true);
        let got = run("%\n[B\"\"]", &white).unwrap();
        assert_eq!(got, "%\n[B\"\"]\n[Filtered \"white\"]");
        let input = "%x\n[Filtered \"no\"]\n1. e4 e5 *\n";
        let want = "%x\n[Filtered \"white\"]\n1. e4 ?? *\n";
        assert_eq!(run(input, &white).unwrap(), want);
        let input = "%x\n[Filtered \"white\"]\n1. e4 ?? 2. d4 *\n";
        let want = "%x\n[Filtered \"white\"]\n*\n";
        let cut = run(input, &config(Side::White, Some(0), false));
        assert_eq!(cut.unwrap(), want);
    }

    /// Found by the fuzz target `kpgn`: items written without white
    /// space between them ran together when one was removed or became
    /// `??` (`e4!e5` gave `??e5`), and the output did not read again.
    #[test]
    fn issue6_fuzz_kpgn_items_without_space_stay_apart() {
        let (white, black) = (Side::White, Side::Black);
        let got = |input, side| run(input, &config(side, None, false));
        let tagged = |s: &str, side: Side| {
            format!("[Filtered \"{}\"]\n\n{s}", side.name())
        };
        assert_eq!(got("B!1!S", black).unwrap(), tagged("?? 1 S", black));
        assert_eq!(got("e4!e5", black).unwrap(), tagged("?? e5", black));
        assert_eq!(got("e4!e5", white).unwrap(), tagged("e4! ??", white));
        let input = "1. e4{x}e5{y}d4 *";
        let want = tagged("1. e4{x} ?? d4 *", white);
        assert_eq!(got(input, white).unwrap(), want);
        let want = tagged("1. ?? e5{y} ?? *", black);
        assert_eq!(got(input, black).unwrap(), want);
    }

    /// Found by the fuzz target `kpgn`: after a removed first item of a
    /// line, the blanks after the next item went too (`?1  e5` gave
    /// `1e5`).
    #[test]
    fn issue6_fuzz_kpgn_blanks_go_only_up_to_the_next_item() {
        let black = config(Side::Black, None, false);
        let got = run("1. e4\n?1  e5 *\n", &black).unwrap();
        assert_eq!(got, "[Filtered \"black\"]\n\n1. ??\n1  e5 *\n");
    }

    #[test]
    fn plies_cut_the_game_and_set_the_result() {
        let input = "[Result \"1-0\"]\n\n1. e4 e5\n2. d4 {x} 1-0\n";
        let cut =
            |n| run(input, &config(Side::White, Some(n), false)).unwrap();
        let head = "[Result \"*\"]\n[Filtered \"white\"]\n\n";
        assert_eq!(cut(0), format!("{head}*\n"));
        assert_eq!(cut(1), format!("{head}1. e4 *\n"));
        assert_eq!(cut(2), format!("{head}1. e4 ?? *\n"));
        assert_eq!(cut(3), white(input));
        assert!(cut(3).contains("[Result \"1-0\"]"));
    }

    #[test]
    fn issue6_plies_after_a_line_comment_puts_the_marker_on_its_own_line() {
        let input = "[A \"1\"]\n1. e4 ; x\ne5 *\n";
        let out = run(input, &config(Side::White, Some(1), false)).unwrap();
        assert_eq!(out, "[A \"1\"]\n[Filtered \"white\"]\n1. e4 ; x\n*\n");
        // A `%` line likewise.
        let input = "[A \"1\"]\n1. e4\n%x\ne5 *\n";
        let out = run(input, &config(Side::White, Some(1), false)).unwrap();
        assert_eq!(out, "[A \"1\"]\n[Filtered \"white\"]\n1. e4\n%x\n*\n");
    }

    #[test]
    fn plies_keep_the_blank_lines_that_end_a_game() {
        let input = "[A \"1\"]\n1. e4 e5 2. d4\n\n\n[B \"2\"]\n1. c4 *\n";
        let got = run(input, &config(Side::Black, Some(1), false)).unwrap();
        let want = "[A \"1\"]\n[Filtered \"black\"]\n1. ?? *\n\n\n\
                    [B \"2\"]\n[Filtered \"black\"]\n1. ?? *\n";
        assert_eq!(got, want);
    }

    #[test]
    fn black_may_move_first() {
        let input =
            "[FEN \"8/8/8/8/8/8/8/k6K b - - 0 1\"]\n1... Ka2 2. Kg2 *\n";
        assert!(white(input).ends_with("\n1... ?? 2. Kg2 *\n"));
    }

    #[test]
    fn hidden_moves_and_counts_stay() {
        let input = "[Filtered \"no\"]\n1. ?? {(:3)} e5 {(:)}\n";
        let got = run(input, &config(Side::Black, None, false)).unwrap();
        assert_eq!(got, "[Filtered \"black\"]\n1. ?? {(:3)} e5 {(:)}\n");
    }

    #[test]
    fn filtered_games() {
        let input = "[Filtered \"White\"]\n1. e4 {(:)} e5!! {x} *\n";
        assert_eq!(white(input), input);
        let black = config(Side::Black, None, false);
        let want = (1, "game is already filtered for white".to_string());
        assert_eq!(error(input, &black), want);
        let input = "[Filtered \"maybe\"]\n*\n";
        let want = (1, "unknown Filtered value 'maybe'".to_string());
        assert_eq!(error(input, &black), want);
    }

    #[test]
    fn errors_name_the_line() {
        let w = config(Side::White, None, false);
        let cases = [
            (
                "[A \"1\"]\n{(:)} 1. e4",
                2,
                "kriegspiel comment before the first move",
            ),
            (
                "[A \"1\"]\n1. e4\n{(:)} {(:)}",
                3,
                "second kriegspiel comment for one move",
            ),
            (
                "[A \"1\"]\n1. e4 {(:)} e5\n{(Xe4)}",
                3,
                "kriegspiel comment without ':'",
            ),
            (
                "[A \"1\"]\n1. e4 e5\n2... d5",
                3,
                "move number '2...' but white is to move",
            ),
            (
                "[A \"1\"]\n1. e4 1-0 e5",
                2,
                "move after the termination marker",
            ),
        ];
        for (input, line, message) in cases {
            assert_eq!(
                error(input, &w),
                (line, message.to_string()),
                "{input}"
            );
        }
    }

    #[test]
    fn trim_end_stops_at_text() {
        assert_eq!(trim_end(b"ab \t\xC2\xA0 "), 2);
        assert_eq!(trim_end(b"\xA0"), 1);
        assert_eq!(trim_end(b""), 0);
    }
}
