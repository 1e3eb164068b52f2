//! The filter's fast path: one pass over the movetext of a game of the
//! usual shape, tokenizing and filtering together, without a token list.
//!
//! [`filter::filter`] walks the tokens of [`Game::tokenize`] and handles
//! everything FORMATS.md allows. Nearly every game is simpler than that:
//! a tag section, then lines of move numbers, moves, glyphs, NAGs,
//! termination markers and `{...}` comments that close on their line.
//! For those, filtered with the opponent's moves hidden and without
//! `--plies` or `--keep-comments`, this module does the same work in one
//! pass, which is what makes kpgn-filter fast enough (issue 5): the token
//! list, the second walk over it and the per-token line bookkeeping cost
//! more than the filtering itself.
//!
//! It also checks that a game read by [`GameReader::speculate`] (which
//! does not skim the movetext, as the same work would be done twice) ends
//! where [`GameReader::next_game`] would have ended it.
//!
//! On anything else (a variation, a `;` comment, an escape line, a
//! comment across lines, a line after the termination marker's, any
//! error) [`filter()`] gives up and returns false; the caller then has the
//! game read exactly and tokenized ([`GameReader::frame`]) and runs the
//! general filter, which also reports the error. The output is the same byte for byte: the
//! tag section goes through the general `Emitter`, and the white space
//! rules for removed items are those of the `Emitter` restated for one line
//! at a time. The tests run both paths on the same games.

use super::comment::{self, Illegal, KComment};
use super::filter::{self, Config, Emitter};
use super::game::{Game, LineSpan, Tag};
use super::token;
use super::Side;
use crate::decimal;

#[cfg(doc)]
use super::game::GameReader;

/// Whether [`filter()`] can filter any game for `config`.
pub fn applies(config: &Config) -> bool {
    config.plies.is_none() && !config.keep_comments
}

/// Writes `game` as `config.player` saw it to the end of `out`, as
/// [`filter::filter`] does, if the game is of the usual shape and was
/// read right. Returns false, leaving `out` as it was, if not.
///
/// The game may be read by [`GameReader::speculate`]: it is read right
/// if it ends where [`GameReader::next_game`] would have ended it. As this
/// filter gives up on comments across lines, that is: no line but blank
/// ones after the line of the termination marker. It need not be
/// tokenized.
pub fn filter(game: &Game, config: &Config, out: &mut Vec<u8>) -> bool {
    if !applies(config) || game.error().is_some() {
        return false;
    }
    let Some(last) = game.tags().last() else { return false };
    let (filtered, fen) = find_tags(game);
    // A Filtered value other than `no` or none: the general filter says
    // what it means (filtered already, for whom, or an error).
    let plain = |t: &Tag| {
        let value = game.text(t.value.clone());
        value.is_empty() || value.eq_ignore_ascii_case(b"no")
    };
    if filtered.is_some_and(|t| !plain(t)) {
        return false;
    }
    let (buf, lines) = (game.bytes(), game.lines());
    let first = last.line + 1;
    // Before the movetext: tag pairs and blank lines only (no escapes).
    let blank = |l: &LineSpan| {
        token::skip_space(buf, l.start, l.content_end) == l.content_end
    };
    if !lines[..first].iter().all(|l| l.tags || blank(l)) {
        return false;
    }
    let start = out.len();
    let from = lines.get(first).map_or(buf.len(), |l| l.start);
    match filtered {
        // The tag section as the general filter writes it: nothing
        // changes but the Filtered value.
        Some(tag) => {
            out.extend_from_slice(&buf[..tag.value.start]);
            out.extend_from_slice(config.player.name().as_bytes());
            out.extend_from_slice(&buf[tag.value.end..from]);
        }
        // The tag to add goes through the general filter.
        None => {
            let mut emit = Emitter::new(game, out);
            filter::tags(game, config, true, false, &mut emit);
            emit.copy_to(from);
            emit.flush();
        }
    }
    let mut pass = Pass {
        buf,
        line_out: out.len(),
        out,
        flushed: from,
        kept: false,
        removed: false,
        eat: false,
        last_kept: 0,
        player: config.player,
        to_move: filter::to_move_after(game, fen),
        owner: None,
        kcomment: false,
        ended: false,
        move_end: usize::MAX,
    };
    for line in &lines[first..] {
        if pass.line(line).is_none() {
            pass.out.truncate(start);
            return false;
        }
    }
    pass.out.extend_from_slice(&buf[pass.flushed..]);
    true
}

/// The first Filtered tag and the first FEN tag (ASCII case ignored, as
/// [`Game::tag`]), found in one pass over the tags.
fn find_tags(game: &Game) -> (Option<&Tag>, Option<&Tag>) {
    let (mut filtered, mut fen) = (None, None);
    for tag in game.tags() {
        let name = game.text(tag.name.clone());
        if filtered.is_none() && name.eq_ignore_ascii_case(b"Filtered") {
            filtered = Some(tag);
        } else if fen.is_none() && name.eq_ignore_ascii_case(b"FEN") {
            fen = Some(tag);
        }
    }
    (filtered, fen)
}

/// The state of one pass: where the output stands (as in the `Emitter`)
/// and whose move it is (as in the general filter's walk).
struct Pass<'a> {
    buf: &'a [u8],
    out: &'a mut Vec<u8>,
    /// The input before this is written or skipped; from here to the
    /// current position it is pending, to be copied as it is.
    flushed: usize,
    /// Where the current output line starts in `out`, pending included.
    line_out: usize,
    /// Something was kept on the current line.
    kept: bool,
    /// Something was removed on the current line.
    removed: bool,
    /// Skip the white space at the start of the next gap.
    eat: bool,
    /// The end in `out` of the last item kept, pending included.
    last_kept: usize,
    player: Side,
    to_move: Side,
    /// Whose move the comments, NAGs and glyphs being read belong to.
    owner: Option<Side>,
    /// Whether the last move already had its Kriegspiel comment.
    kcomment: bool,
    /// A termination marker was read.
    ended: bool,
    /// The end of the last move, to tell `e4??` from `e4 ??`.
    move_end: usize,
}

impl Pass<'_> {
    /// Filters one line; `None` to give up.
    fn line(&mut self, line: &LineSpan) -> Option<()> {
        let buf = self.buf;
        let end = line.content_end;
        let mut i = line.start;
        if i < end && buf[i] == b'%' {
            return None;
        }
        if self.ended && token::skip_space(buf, i, end) < end {
            // The game ended with the line before (GameReader::speculate).
            return None;
        }
        // The line's content, at the game's offsets.
        let text = &buf[..end];
        loop {
            let gap = i;
            // Most gaps are one space, before a byte that is not white
            // space (nor the first byte of U+00A0).
            i = match text.get(i..i + 2) {
                Some(&[b' ', next]) if next > b' ' && next != 0xC2 => i + 1,
                _ => token::skip_space(text, i, end),
            };
            if self.eat && i > gap {
                self.out.extend_from_slice(&buf[self.flushed..gap]);
                self.flushed = i;
                self.eat = false;
            }
            let Some(&first) = text.get(i) else { break };
            i = self.token(first, i, end)?;
        }
        self.end_line(line);
        Some(())
    }

    /// Passes the line end of `line`, or drops the line if removals left
    /// it empty (the `end_line` of the `Emitter`; the last line of a game without
    /// a line end is left as it is, as there).
    fn end_line(&mut self, line: &LineSpan) {
        if self.removed && !self.kept && line.end > line.content_end {
            let (buf, out) = (self.buf, &mut *self.out);
            out.extend_from_slice(&buf[self.flushed..line.content_end]);
            self.flushed = line.content_end;
            let rest = &out[self.line_out..];
            if token::skip_space(rest, 0, rest.len()) == rest.len() {
                out.truncate(self.line_out);
                self.flushed = line.end;
            }
        }
        self.line_out = self.out.len() + (line.end - self.flushed);
        self.kept = false;
        self.removed = false;
        self.eat = false;
    }

    /// Filters the token at `buf[i]`, which is `first` (not white space),
    /// and returns the offset after it; `None` to give up.
    fn token(&mut self, first: u8, i: usize, end: usize) -> Option<usize> {
        let buf = self.buf;
        let theirs = self.owner == Some(self.player.opponent());
        match first {
            b if token::is_symbol(b) => self.symbol(i, end),
            b'{' => self.comment(i, end, theirs),
            b'!' | b'?' => {
                let mut j = i;
                while j < end && matches!(buf[j], b'!' | b'?') {
                    j += 1;
                }
                if self.move_end != i && &buf[i..j] == b"??" {
                    self.a_move(i, j, true)?;
                } else {
                    self.annotation(i, j, theirs);
                }
                Some(j)
            }
            b'$' => {
                let mut j = i + 1;
                while j < end && buf[j].is_ascii_digit() {
                    j += 1;
                }
                if j == i + 1 {
                    return None;
                }
                self.annotation(i, j, theirs);
                Some(j)
            }
            b'*' => {
                self.ended = true;
                self.keep(i + 1);
                Some(i + 1)
            }
            _ => None,
        }
    }

    /// A move number, a move or a termination marker.
    fn symbol(&mut self, i: usize, end: usize) -> Option<usize> {
        let buf = self.buf;
        let n = short_symbol_len(buf.get(i..i + 8));
        let mut j = i + n;
        // Fewer than eight: the byte at `j` is known not to be one.
        if n == 0 || n == 8 {
            while j < end && token::is_symbol(buf[j]) {
                j += 1;
            }
        }
        let sym = &buf[i..j];
        // Moves first: half the tokens of a game.
        let letter = sym[0].is_ascii_alphabetic();
        if !letter && sym.iter().all(u8::is_ascii_digit) {
            let digits = j;
            while j < end && buf[j] == b'.' {
                j += 1;
            }
            let side = match j - digits {
                0 => None,
                1 => Some(Side::White),
                _ => Some(Side::Black),
            };
            if side.is_some_and(|s| s != self.to_move) {
                return None;
            }
            self.keep(j);
        } else if !letter && matches!(sym, b"1-0" | b"0-1" | b"1/2-1/2") {
            self.ended = true;
            self.keep(j);
        } else if letter || sym.starts_with(b"0-0") {
            self.a_move(i, j, false)?;
        } else {
            return None;
        }
        Some(j)
    }

    /// The move at `buf[i..j]`, `??` if `hidden`.
    fn a_move(&mut self, i: usize, j: usize, hidden: bool) -> Option<()> {
        if self.ended {
            return None;
        }
        let side = self.to_move;
        self.to_move = side.opponent();
        self.owner = Some(side);
        self.kcomment = false;
        if side == self.player || hidden {
            self.keep(j);
        } else {
            self.replace(i, j, b"??");
        }
        self.move_end = j;
        Some(())
    }

    /// A glyph or NAG: the opponent's go.
    fn annotation(&mut self, i: usize, j: usize, theirs: bool) {
        if theirs {
            self.remove(i, j);
        } else {
            self.keep(j);
        }
    }

    /// The comment at `buf[i]`, which must close before `end`.
    fn comment(
        &mut self,
        i: usize,
        end: usize,
        theirs: bool,
    ) -> Option<usize> {
        let buf = self.buf;
        let (j, parsed) = match comment::parse_usual(&buf[i..end]) {
            Some((len, k)) => (i + len, Some(Ok(k))),
            None => {
                let j = i + 2 + token::find(b'}', &buf[i + 1..end])?;
                (j, comment::parse(&buf[i..j]))
            }
        };
        match parsed {
            None if theirs => self.remove(i, j),
            None => self.keep(j),
            Some(Err(_)) => return None,
            Some(Ok(k)) => {
                if self.owner.is_none() || self.kcomment {
                    return None;
                }
                self.kcomment = true;
                if theirs {
                    self.kcomment_out(i, j, &k);
                } else {
                    self.keep(j);
                }
            }
        }
        Some(j)
    }

    /// Keeps the input up to `j`, the end of an item: it is pending.
    #[inline]
    fn keep(&mut self, j: usize) {
        // The blanks after a removed item go only up to the next item.
        self.eat = false;
        self.kept = true;
        self.last_kept = self.out.len() + (j - self.flushed);
    }

    /// Writes `with` for the item `buf[i..j]`, apart from the items
    /// around it (as the `Emitter`'s `replace`).
    fn replace(&mut self, i: usize, j: usize, with: &[u8]) {
        append(self.out, self.buf, self.flushed, i);
        self.separate(with.first());
        self.out.extend_from_slice(with);
        self.flushed = j;
        self.eat = false;
        self.kept = true;
        self.last_kept = self.out.len();
        self.separate(self.buf.get(j));
    }

    /// Writes a space if `next` would run into the last byte written (as
    /// the `Emitter`'s `separate`: `e4!e5` must not become `??e5`).
    #[inline]
    fn separate(&mut self, next: Option<&u8>) {
        let graphic = |b: Option<&u8>| b.is_some_and(u8::is_ascii_graphic);
        if graphic(self.out.last()) && graphic(next) {
            self.out.push(b' ');
        }
    }

    /// Removes the item `buf[i..j]` with the blanks before it, or, first
    /// on its line, with the blanks after it.
    fn remove(&mut self, i: usize, j: usize) {
        self.out.extend_from_slice(&self.buf[self.flushed..i]);
        self.flushed = j;
        if self.kept {
            let floor = self.last_kept.max(self.line_out);
            let keep = floor + filter::trim_end(&self.out[floor..]);
            self.out.truncate(keep);
        } else {
            self.eat = true;
        }
        self.removed = true;
        self.separate(self.buf.get(j));
    }

    /// Writes the opponent's Kriegspiel comment `buf[i..j]`: the
    /// announcements kept, the attempts counted, the free text dropped.
    fn kcomment_out(&mut self, i: usize, j: usize, k: &KComment) {
        let c = &self.buf[i..j];
        let out = &mut *self.out;
        append(out, self.buf, self.flushed, i + k.illegal.start);
        // Nearly always: a count of one digit, and `}` right after `)`;
        // written without a call.
        match k.attempts {
            Illegal::Attempts(n) if n < 10 => out.push(b'0' + n as u8),
            Illegal::Attempts(n) => decimal::push(out, n as u64),
            Illegal::Count => out.extend_from_slice(&c[k.illegal.clone()]),
        }
        match &c[k.trail.start..] {
            b"}" => out.extend_from_slice(b")}"),
            trail => {
                out.push(b')');
                out.extend_from_slice(trail);
            }
        }
        self.flushed = j;
        self.eat = false;
        self.kept = true;
        self.last_kept = out.len();
    }
}

/// Appends `buf[from..to]` to `out`. Most pieces are short: one of at
/// most 32 bytes is appended as a fixed 32 bytes and cut back, which is
/// a few moves where a copy of any length is a call of `memcpy`.
#[inline(always)]
fn append(out: &mut Vec<u8>, buf: &[u8], from: usize, to: usize) {
    const FIXED: usize = 32;
    let window = buf.get(from..from + FIXED);
    match window.and_then(|w| <&[u8; FIXED]>::try_from(w).ok()) {
        Some(w) if to - from <= FIXED => {
            let len = out.len();
            out.extend_from_slice(w);
            out.truncate(len + (to - from));
        }
        _ => out.extend_from_slice(&buf[from..to]),
    }
}

/// The number of symbol characters that `window` (the next eight bytes,
/// if there are eight) starts with, counted without a branch: moves and
/// move numbers are a few bytes long, and a loop that stops at their end
/// mispredicts that end nearly every time.
#[inline]
fn short_symbol_len(window: Option<&[u8]>) -> usize {
    let Some(window) = window.and_then(|w| <&[u8; 8]>::try_from(w).ok())
    else {
        return 0;
    };
    let mut mask = 0u8;
    for (k, &b) in window.iter().enumerate() {
        mask |= token::SYMBOL_AT[k][b as usize];
    }
    (!mask).trailing_zeros() as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kpgn::game::GameReader;

    type Errors = Vec<(u64, String)>;

    /// What `run` writes and reports for `input`, with the fast path or
    /// without it, and how many games took it.
    fn run(
        input: &[u8],
        config: &Config,
        fast: bool,
    ) -> (String, Errors, u32) {
        let mut rdr = GameReader::new(input);
        let (mut all, mut errors, mut out, mut n) =
            (vec![], vec![], vec![], 0);
        loop {
            let game = if fast {
                let Some(game) = rdr.speculate().unwrap() else { break };
                out.clear();
                if filter(game, config, &mut out) {
                    all.extend_from_slice(&out);
                    n += 1;
                    continue;
                }
                rdr.frame().unwrap()
            } else {
                rdr.next_game().unwrap()
            };
            let Some(game) = game else { break };
            if let Some(e) = game.error() {
                errors.push((e.line, e.message.clone()));
            } else if !game.is_game() {
                all.extend_from_slice(game.bytes());
            } else {
                out.clear();
                match filter::filter(game, config, &mut out) {
                    Ok(()) => all.extend_from_slice(&out),
                    Err(e) => errors.push((e.line, e.message)),
                }
            }
        }
        (String::from_utf8_lossy(&all).into_owned(), errors, n)
    }

    /// Checks that both paths agree on `input` for both players; the
    /// number of games that took the fast path for White.
    fn agree(input: &str) -> u32 {
        let mut taken = 0;
        for player in [Side::White, Side::Black] {
            let config = Config { player, plies: None, keep_comments: false };
            let (text, errors, n) = run(input.as_bytes(), &config, true);
            let (want, want_errors, _) = run(input.as_bytes(), &config, false);
            assert_eq!(text, want, "{player:?}: {input:?}");
            assert_eq!(errors, want_errors, "{player:?}: {input:?}");
            if player == Side::White {
                taken = n;
            }
        }
        taken
    }

    const SEED: &str =
        include_str!("../../tests/data/kpgn/seed-unfiltered.pgn");

    #[test]
    fn the_seed_takes_the_fast_path() {
        assert_eq!(agree(SEED), 1);
        let two = format!("{SEED}\n{SEED}");
        assert_eq!(agree(&two), 2);
        for end in ["\r\n", "\r", "\u{85}", "\u{2028}"] {
            assert_eq!(agree(&two.replace('\n', end)), 2, "{end:?}");
        }
    }

    #[test]
    fn both_paths_agree() {
        let head = "[Event \"e\"]\n[Result \"*\"]\n\n";
        let movetexts = [
            "1. e4 {(:)} e5 {(:Qh4)} 2. Nf3 {(Xe5,CF:)} *\n",
            "1. e4 e5?? 2. d4 $1 {free} d5!? {(:)} {more}\n  $2 3. c4\n",
            "1. e4 e5\n  $3\n  {gone}\n2. d4 ?? ??! 1-0\n\n\n",
            "1. e4 e5 {(CS:d6,d5) hm } 2. d4 { (:) } *",
            "1. e4 e5 {(:a,b,c,d,e,f,g,h,a1,b1)} 2. d4 {(:a1,2)\t} d5 {(:12)}",
            "1. e4 e5 $1",
            "1. e4 e5\n  $1",
            "1. e4\u{a0}e5\u{a0}{x}\u{a0}2.\u{a0}d4 *\n",
            "1. e4 2... e5 *\n",
            "1. e4 {(:)} {(:)} *\n",
            "{(:)} 1. e4 *\n",
            "1. e4 {(Xe9:)} *\n",
            "1. e4 1-0 e5\n",
            "1. e4 1-0\n\n{after}\n\n1. d4 *\n",
            "1. e4 1-0\n1. d4 0-1\n2. c4 *\n",
            "1. e4 *\n  e5\n",
            "1. e4 e5 {a\ncomment} 2. d4 *\n",
            "1. e4 {open\n[Event \"not a game\"] x}\n",
            "1. e4 {open\n[Event \"a game\"]\n1. d4 *\n",
            "1. e4 (1. d4 d5) e5 ; note\n%escape\n2. d4 *\n",
            "1. e4 e5 4e 2. d4\n",
            "1. e4 e5 } 2. d4\n",
            "1. O-O-O 0-0 e8=Q+ 1/2-1/2\n",
            "1. e4 $ e5\n",
        ];
        for movetext in movetexts {
            agree(&format!("{head}{movetext}"));
            agree(&format!("{head}{movetext}\n{head}{movetext}"));
            agree(&format!("\n{movetext}"));
        }
        // The inputs the fuzz target found bugs with (filter.rs, issue6_*).
        for input in [
            "B!1!S",
            "e4!e5",
            "1. e4{x}e5{y}d4 *",
            "1. e4\n?1  e5 *\n",
            "1. e4!e5 2.d4?d5 *\n",
            "[h\"\"]\n",
            "[A \"1\"]\r\n\r\n[B \"2\"]\r\n",
            "%\n[B\"\"]",
            "%x\n[Filtered \"no\"]\n1. e4 e5 *\n",
        ] {
            agree(input);
            agree(&format!("{head}{input}"));
        }
        agree("[A \"1\"] [B \"2\"]\n%x\n1. e4 e5 *\n");
        agree("[FEN \"8/8/8/8/8/8/8/k6K b - - 0 1\"]\n1... Ka2 2. Kg2 *\n");
        agree("[Filtered \"white\"]\n1. e4 e5 *\n");
        // The Filtered value is written in place by the fast path.
        let white = "1. Kb1 {(:)} Ka2 2. Kc1 *\n";
        let black = "1... Ka2 2. Kg2 {(:)} 2... Kb2 *\n";
        for (tags, movetext, fast) in [
            ("[Filtered \"\"]", white, 1),
            ("[A \"1\"]\r\n  [filtered \"No\"] [B \"2\"]", white, 1),
            ("[Filtered \"no\"]\n[Filtered \"black\"]", white, 1),
            ("[Filtered \"x\"]\n[Filtered \"no\"]", white, 0),
            (
                "[FEN \"8/8/8/8/8/8/8/k6K b - - 0 1\"]\n[Filtered \"no\"]",
                black,
                1,
            ),
            ("[Fen \"8/8/8/8/8/8/8/k6K b - - 0 1\"] [FEN \"8 w\"]", black, 1),
            ("[Fen \"8/8/8/8/8/8/8/k6K w - - 0 1\"] [FEN \"8 b\"]", black, 0),
        ] {
            assert_eq!(
                agree(&format!("{tags}\n\n{movetext}")),
                fast,
                "{tags}"
            );
        }
        agree("[Filtered \"no\"]\n1. ?? {(:3)} e5 {(:)}\n");
        agree("[A \"1\"]\n[Bad\n1. e4 e5 *\n");
        assert_eq!(
            agree(&format!("{head}1. e4 e5 2. d4 $4 d5! {{(:)}} *\n")),
            1
        );
    }

    /// Both paths on random movetext made of the items real games hold,
    /// with and without white space between them.
    #[test]
    fn both_paths_agree_on_random_movetext() {
        const ITEMS: [&str; 34] = [
            "1.",
            "1...",
            "2.",
            "12.",
            " ",
            " ",
            " ",
            "  ",
            "\n",
            "\r\n",
            "\u{a0}",
            "e4",
            "Nf3",
            "exd5",
            "O-O",
            "e8=Q+",
            "??",
            "!",
            "?",
            "!?",
            "$1",
            "$12",
            "{x}",
            "{(:)}",
            "{(Xe5:e7)}",
            "{ (:) }",
            "{(CS:d6,d5) hm }",
            "*",
            "1-0",
            "{a\nb}",
            "(",
            ")",
            ";c\n",
            "%e\n",
        ];
        let head = "[Event \"e\"]\n[Result \"*\"]\n\n";
        let mut rng = crate::testing::Rng::new(5);
        let mut next = |n: usize| rng.below(n);
        let mut fast = 0;
        for _ in 0..4000 {
            let len = 1 + next(16);
            let movetext: String =
                (0..len).map(|_| ITEMS[next(ITEMS.len())]).collect();
            fast += agree(&format!("{head}{movetext}"));
            fast += agree(&format!("{head}{movetext}\n{head}1. e4 e5 *\n"));
        }
        // The comparison means something only if the fast path ran.
        assert!(fast > 2000, "the fast path took only {fast} games");
    }

    #[test]
    fn short_symbol_len_counts_the_leading_symbol_characters() {
        let naive =
            |w: &[u8]| w.iter().take_while(|&&b| token::is_symbol(b)).count();
        let mut rng = crate::testing::Rng::new(9);
        let alphabet = b"aZ09_+#=:/-. !?{}$\n\r\xC2\xA0\x80\xFF";
        for round in 0..20_000 {
            let mut w = [0u8; 8];
            for b in w.iter_mut() {
                *b = match round % 2 {
                    0 => alphabet[rng.below(alphabet.len())],
                    _ => rng.next() as u8,
                };
            }
            assert_eq!(short_symbol_len(Some(&w[..])), naive(&w), "{w:?}");
        }
        for b in 0..=255u8 {
            for k in 0..8 {
                let mut w = *b"Nbxd8=Q+";
                w[k] = b;
                assert_eq!(short_symbol_len(Some(&w[..])), naive(&w));
            }
        }
        assert_eq!(short_symbol_len(None), 0);
    }

    #[test]
    fn append_copies_exactly_the_piece() {
        let buf: Vec<u8> = (0..100u8).collect();
        for from in 0..=buf.len() {
            for to in from..=buf.len() {
                let mut out = b"head".to_vec();
                append(&mut out, &buf, from, to);
                assert_eq!(&out[..4], b"head");
                assert_eq!(&out[4..], &buf[from..to], "{from}..{to}");
            }
        }
    }

    #[test]
    fn a_long_input_without_tags_stays_within_the_limit() {
        let game = format!("1. e4 e5 1-0\n{{{}}}\n", "x".repeat(1000));
        let input = game.repeat(1100);
        assert!(input.len() > 1 << 20);
        assert_eq!(agree(&input), 0);
    }
}
