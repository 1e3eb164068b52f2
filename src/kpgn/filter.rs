//! The filter: a Kriegspiel game as one player saw it (FORMATS.md,
//! Kriegspiel PGN points 5 to 11), written as its tokens come from the
//! reader (`read.rs`).
//!
//! What is written is the game as read, except:
//!
//! - each opponent move becomes `??`; in its Kriegspiel comment the
//!   illegal attempts become their count and the free text goes;
//! - everything else that belongs to an opponent's move goes: its other
//!   comments, NAGs and glyphs;
//! - every variation goes;
//! - the `Filtered` tag names the player (added after the rules tag when
//!   missing), and with `--plies` the Result tag becomes `*`.
//!
//! What is kept costs nothing: the input from the last change on is
//! pending, and goes out in one piece at the next change. White space
//! around a removed item: the blanks before it on its line go with it;
//! when it is the first item on its line, the indentation stays and the
//! blanks after it go instead; a line left empty by removals goes with
//! its line end. A line that was blank in the input stays.

use std::ops::Range;

use super::comment::{self, KComment};
use super::read::{line_end, Core, Fault, Item, Reader, Sink};
use super::{lex, Side};
use crate::decimal;
use crate::lines::find_line_end;

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

/// Filtering the games of one input, or of one batch of its lines.
pub type Filter<'c> = Reader<Output<'c>>;

impl<'c> Reader<Output<'c>> {
    /// A filter for `config` that has read nothing yet.
    pub fn new(config: &'c Config) -> Filter<'c> {
        Reader::with_sink(Output::new(config))
    }

    /// The configuration it filters with.
    pub fn config(&self) -> &'c Config {
        self.sink().config
    }
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

/// The filter's state in one game: where its output stands.
#[derive(Debug)]
pub struct Output<'c> {
    config: &'c Config,
    /// Where the game starts in the input.
    start: usize,
    /// Where the Filtered tag goes if there is none: after the rules tag
    /// line (once `rules` is true), else after the last tag line.
    insert: Option<Insert>,
    rules: bool,
    /// The Result value in the output.
    result: Option<Range<usize>>,
    /// The most recent line end, to end an added line like it.
    last_end: Range<usize>,
    /// The game was cut (`--plies`): nothing more is written.
    cut: bool,
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
    /// The last token was removed, and nothing but blanks came after it
    /// on its line: the length `out` had before the space written to
    /// keep it apart from what follows ([`Output::remove`]).
    chain: Option<usize>,
}

impl<'c> Output<'c> {
    fn new(config: &'c Config) -> Output<'c> {
        Output {
            config,
            start: 0,
            insert: None,
            rules: false,
            result: None,
            last_end: 0..0,
            cut: false,
            mark: 0,
            movetext_out: 0,
            flushed: 0,
            removed: false,
            eat: false,
            eol_out: None,
            chain: None,
        }
    }

    /// Whether tokens are still written: the game has no fault, and was
    /// not cut.
    #[inline(always)]
    fn writing(&self, game: &Core) -> bool {
        !game.failed && !self.cut
    }

    /// The most recent line end of the game, or LF.
    fn any_line_end<'i>(&self, input: &'i [u8]) -> &'i [u8] {
        match &input[self.last_end.clone()] {
            [] => b"\n",
            end => end,
        }
    }

    /// Cuts the game (`--plies`) before the token at `next` when the
    /// half-moves to keep have been read.
    #[inline]
    fn cut_before(
        &mut self,
        game: &Core,
        input: &[u8],
        next: usize,
        out: &mut Vec<u8>,
    ) {
        if self.config.plies == Some(game.plies) {
            self.cut(game, input, next, out);
        }
    }

    /// Writes the pending input up to `pos`, without the white space at
    /// its start after a removed item that was first on its line.
    #[inline(always)]
    fn flush_to(&mut self, input: &[u8], pos: usize, out: &mut Vec<u8>) {
        self.flush_then(input, pos, [], out);
    }

    /// [`Output::flush_to`], then the bytes `then` ([`append_then`]).
    #[inline(always)]
    fn flush_then<const N: usize>(
        &mut self,
        input: &[u8],
        pos: usize,
        then: [u8; N],
        out: &mut Vec<u8>,
    ) {
        let mut from = self.flushed;
        if std::mem::take(&mut self.eat) {
            from = lex::skip_space(input, from, pos);
        }
        append_then(out, input, from, pos, then);
        self.flushed = pos;
    }

    /// The line end at `end..next`: drops the line if removals left it
    /// empty, and the white space that ends it if the last item on it was
    /// removed (`after_removed`): what stood after that item on its line.
    #[inline(never)]
    fn end_line(
        &mut self,
        game: &Core,
        input: &[u8],
        end: usize,
        next: usize,
        after_removed: bool,
        out: &mut Vec<u8>,
    ) {
        if std::mem::take(&mut self.removed) && self.writing(game) {
            self.flush_to(input, end, out);
            let blank = blank_end(out, self.mark);
            if blank_at_line_start(out, blank, self.mark) {
                out.truncate(blank);
                self.flushed = next;
            } else if after_removed {
                out.truncate(blank);
            }
        }
        self.eat = false;
    }

    /// Keeps the item ending at `end`, as read: it is pending, so only
    /// the end of a `;` or `%` item is noted, for a cut (`--plies`).
    #[inline(always)]
    fn keep(
        &mut self,
        game: &Core,
        input: &[u8],
        end: usize,
        to_eol: bool,
        out: &mut Vec<u8>,
    ) {
        if to_eol && self.config.plies.is_some() && self.writing(game) {
            self.flush_to(input, end, out);
            self.eol_out = Some(out.len());
        }
    }

    /// Removes the item at `span` and the white space on one side of it:
    /// before it if something stands before it on its output line, else
    /// after it.
    #[inline(always)]
    fn remove(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        match self.chain {
            Some(len) if self.writing(game) => {
                // Only blanks stand between the token removed last and
                // this one: removing this one too would write them and
                // take them back, with the space after the last one, and
                // leave `eat` as it is (what stands before both on the
                // line is the same). So only the space that keeps it
                // apart changes.
                out.truncate(len);
                self.flushed = span.end;
                separate(input.get(span.end).copied(), out);
            }
            _ => self.remove_first(game, input, span, out),
        }
    }

    /// [`Output::remove`] of a token that does not follow a removed one.
    #[inline(never)]
    fn remove_first(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        if !self.writing(game) {
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
        self.chain = Some(out.len());
        self.flushed = span.end;
        separate(input.get(span.end).copied(), out);
    }

    /// Writes `??` for the opponent's move at `span`, apart from the
    /// items around it.
    #[inline(always)]
    fn hide(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        if !self.writing(game) {
            return;
        }
        self.flush_to(input, span.start, out);
        separate(Some(b'?'), out);
        out.extend_from_slice(b"??");
        self.flushed = span.end;
        separate(input.get(span.end).copied(), out);
    }

    /// A move that is `??`, or any with `--plies` (which may cut before
    /// it).
    #[inline(never)]
    fn any_move(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        hidden: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        let player = self.config.player;
        if hidden && game.to_move == player {
            // A view of the player's shows the player's moves: written as
            // filtered for the player, this would be refused when read
            // again.
            let message = format!(
                "{0}'s own move is hidden ('??'): the game cannot be \
                 filtered for {0}",
                player.name()
            );
            return Err((span.start, message));
        }
        self.cut_before(game, input, span.start, out);
        if game.to_move != player && !hidden {
            self.hide(game, input, span, out);
        }
        Ok(())
    }

    /// Writes an opponent's Kriegspiel comment: announcements kept,
    /// attempts counted, free text dropped unless `keep_text`.
    #[inline(never)]
    fn kcomment_out(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        k: &KComment,
        keep_text: bool,
        out: &mut Vec<u8>,
    ) {
        // `{`, the white space, `(`, the announcements and `:` are kept
        // as read, with the pending input. The parts kept are short runs
        // of the input: [`append`] copies them without a call to
        // `memcpy`.
        let illegal = k.illegal();
        let (from, to) =
            (span.start + illegal.start, span.start + illegal.end);
        let trail = span.start + k.trail(&input[span.clone()]);
        match k.listed() {
            // The usual shape, a count of one digit and no text kept:
            // written with the pending input in one piece.
            Some(n @ 0..=9) if !keep_text => {
                let digit = b'0' + n as u8;
                if trail + 1 == span.end {
                    self.flush_then(input, from, [digit, b')', b'}'], out);
                } else {
                    self.flush_then(input, from, [digit, b')'], out);
                    append(out, input, trail, span.end);
                }
            }
            listed => {
                self.flush_to(input, from, out);
                match listed {
                    Some(n) => decimal::push(out, n as u64),
                    None => append(out, input, from, to),
                }
                if keep_text {
                    append(out, input, to, span.end);
                } else {
                    out.push(b')');
                    append(out, input, trail, span.end);
                }
            }
        }
        self.flushed = span.end;
    }

    /// Ends a game cut before the token at `next` (a move number or a
    /// move): ` *` after the last item kept and the line end of its line,
    /// or `*` at the start of the line of `next` if nothing was kept.
    fn cut(
        &mut self,
        game: &Core,
        input: &[u8],
        next: usize,
        out: &mut Vec<u8>,
    ) {
        if !self.writing(game) {
            return;
        }
        self.flush_to(input, next, out);
        self.cut = true;
        // Back over the white space and line ends after the last item
        // kept, not into a `;` comment or escape line that ends with
        // blanks (which are its own).
        let line_item = self.eol_out.filter(|&at| at <= out.len());
        let floor = self.movetext_out.max(line_item.unwrap_or(0));
        let mut kept = out.len();
        while kept > floor {
            kept -= match out[..kept] {
                [.., b' ' | b'\t' | 0x0B | 0x0C | b'\r' | b'\n'] => 1,
                [.., 0xC2, 0xA0 | 0x85] => 2,
                [.., 0xE2, 0x80, 0xA8] | [.., 0xEF, 0xBB, 0xBF] => 3,
                _ => break,
            };
        }
        // The line end after it, or that of the line of `next`.
        let (end, after) = line_end(input, next, input.len());
        let own_end = input[end..after].to_vec();
        if kept == floor {
            let line = floor.max(lex::line_start(out, floor));
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

/// Whether the text of the opponent's comment at `span`, which
/// `--keep-comments` writes, shows as it reads: a control character
/// ([`comment::control_at`], as before a comment's `(`) may make a
/// terminal show something else (`ESC 7`, a backspace, `ESC ]`...: the
/// attempts of a Kriegspiel comment disguised as free text, say), and is
/// a fault at its place.
fn shown_as_read(
    input: &[u8],
    span: Range<usize>,
    owner: Side,
) -> Result<(), Fault> {
    let text = &input[span.clone()];
    match (0..text.len()).find(|&i| comment::control_at(&text[i..]) > 0) {
        None => Ok(()),
        Some(at) => Err((
            span.start + at,
            format!(
                "a control character in a comment of {}'s, which \
                 --keep-comments would write as it is: a terminal may show \
                 it as other text",
                owner.name()
            ),
        )),
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
            [.., 0xEF, 0xBB, 0xBF] => 3,
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

impl Sink for Output<'_> {
    fn start(&mut self, at: usize, out: &[u8]) {
        *self = Output {
            start: at,
            flushed: at,
            mark: out.len(),
            movetext_out: out.len(),
            ..Output::new(self.config)
        };
    }

    fn rebase(&mut self, n: usize) {
        let range = |r: &mut Range<usize>| {
            *r = r.start.saturating_sub(n)..r.end.saturating_sub(n)
        };
        self.chain = None;
        // Once the game failed, what was written of it is not looked at
        // again, and its bytes may go (`Game::let_go`).
        self.start = self.start.saturating_sub(n);
        self.flushed = self.flushed.saturating_sub(n);
        range(&mut self.last_end);
        if let Some(insert) = &mut self.insert {
            range(&mut insert.indent);
            range(&mut insert.end);
        }
    }

    fn rebase_out(&mut self, n: usize) {
        // Where the output stood after the token removed last, moved with
        // the rest (cleared, the blanks after a removed last item were
        // kept on one thread where the game's output before was written
        // out, and dropped in batches).
        self.chain = self.chain.and_then(|at| at.checked_sub(n));
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

    fn mark(&self) -> usize {
        self.mark
    }

    fn tag(
        &mut self,
        game: &Core,
        input: &[u8],
        name: Range<usize>,
        value: Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        self.chain = None;
        let player = self.config.player;
        match &input[name] {
            // The player's name replaces `no`; a record filtered for the
            // player is filtered again (which changes nothing in a clean
            // one); one filtered for the other player is an error.
            b"Filtered" => match game.filtered {
                Some(side) if side != player => {
                    let message = format!(
                        "game is already filtered for {}",
                        side.name()
                    );
                    return Err((value.start, message));
                }
                None if self.writing(game) => {
                    self.flush_to(input, value.start, out);
                    out.extend_from_slice(player.name().as_bytes());
                    self.flushed = value.end;
                }
                _ => {}
            },
            b"Result" => {
                if self.config.plies.is_some() && self.result.is_some() {
                    // Only one would be set to `*`: the other would show
                    // how the game ended.
                    let message = "a second Result tag, which --plies \
                                   would leave as it is";
                    return Err((value.start, message.into()));
                }
                let at = out.len() + (value.start - self.flushed);
                self.result = Some(at..at + value.len());
            }
            b"Rules" | b"Variant" if !self.rules => {
                // The Filtered tag goes after this line.
                self.rules = true;
                self.insert = None;
            }
            _ => {}
        }
        Ok(())
    }

    fn tag_section_line(
        &mut self,
        _input: &[u8],
        line: Range<usize>,
        first: usize,
        next: usize,
        tags: bool,
        out: &mut Vec<u8>,
    ) {
        if tags && (!self.rules || self.insert.is_none()) {
            let at = out.len() + (next - self.flushed);
            let (indent, end) = (line.start..first, line.end..next);
            self.insert = Some(Insert { at, indent, end });
        }
        if next > line.end {
            self.last_end = line.end..next;
        }
    }

    /// The tag section ends: the Filtered tag is added if missing.
    fn movetext(
        &mut self,
        game: &Core,
        input: &[u8],
        line: usize,
        end: usize,
        out: &mut Vec<u8>,
    ) {
        self.chain = None;
        if !self.writing(game) {
            return;
        }
        self.flush_to(input, line, out);
        self.movetext_out = out.len();
        if game.filtered_tag() {
            return;
        }
        let mut tag = Vec::new();
        let (at, ending, blank) = match self.insert.take() {
            Some(insert) => {
                let mut ending = &input[insert.end.clone()];
                if ending.is_empty() {
                    // The tag line has no line end (the input ends there):
                    // it gets one like the nearest line's.
                    ending = self.any_line_end(input);
                    tag.extend_from_slice(ending);
                }
                tag.extend_from_slice(&input[insert.indent]);
                (insert.at, ending, false)
            }
            // No tag pairs: the tag and a blank line before the movetext,
            // ended like its first line.
            None => {
                let (content, next) = line_end(input, line, end);
                self.last_end =
                    if next > content { content..next } else { 0..0 };
                (self.mark, self.any_line_end(input), true)
            }
        };
        tag.extend_from_slice(b"[Filtered \"");
        tag.extend_from_slice(self.config.player.name().as_bytes());
        tag.extend_from_slice(b"\"]");
        tag.extend_from_slice(ending);
        if blank {
            tag.extend_from_slice(ending);
        }
        let n = tag.len();
        out.splice(at..at, tag);
        self.movetext_out += n;
        if let Some(r) = self.result.as_mut().filter(|r| r.start >= at) {
            *r = r.start + n..r.end + n;
        }
    }

    #[inline]
    fn number(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        self.chain = None;
        self.cut_before(game, input, span.start, out);
    }

    #[inline(always)]
    fn a_move(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        hidden: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        self.chain = None;
        if !hidden && self.config.plies.is_none() {
            // The player's own move is kept as read (pending).
            if game.to_move != self.config.player {
                self.hide(game, input, span, out);
            }
            return Ok(());
        }
        self.any_move(game, input, span, hidden, out)
    }

    #[inline(always)]
    fn line_end(
        &mut self,
        game: &Core,
        input: &[u8],
        end: usize,
        next: usize,
        out: &mut Vec<u8>,
    ) {
        let after_removed = self.chain.take().is_some();
        if self.removed {
            self.end_line(game, input, end, next, after_removed, out);
        } else {
            self.eat = false;
        }
    }

    #[inline(always)]
    fn kcomment(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        k: &KComment,
        owner: Side,
        out: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        self.chain = None;
        if owner != self.config.player && self.writing(game) {
            let keep_text = self.config.keep_comments;
            if keep_text {
                let text = span.start + k.illegal().end..span.end;
                shown_as_read(input, text, owner)?;
            }
            self.kcomment_out(input, span, k, keep_text, out);
        }
        Ok(())
    }

    #[inline]
    fn item(
        &mut self,
        game: &Core,
        input: &[u8],
        item: Item,
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        let theirs = game.owner == Some(self.config.player.opponent());
        let comment =
            matches!(item, Item::Comment | Item::LineComment | Item::Escape);
        let remove = theirs
            && match item {
                Item::Nag | Item::Glyph => true,
                _ => comment && !self.config.keep_comments,
            };
        if remove {
            self.remove(game, input, span, out);
        } else {
            if theirs && comment {
                shown_as_read(
                    input,
                    span.clone(),
                    self.config.player.opponent(),
                )?;
            }
            self.chain = None;
            let to_eol = matches!(item, Item::LineComment | Item::Escape);
            self.keep(game, input, span.end, to_eol, out);
        }
        Ok(())
    }

    #[inline]
    fn variation(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        self.remove(game, input, span, out);
    }

    fn finish(
        &mut self,
        _game: &Core,
        input: &[u8],
        end: usize,
        out: &mut Vec<u8>,
    ) -> Result<bool, Fault> {
        self.chain = None;
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
        Ok(true)
    }

    fn drop_game(
        &mut self,
        _input: &[u8],
        _game: Range<usize>,
        _fault: bool,
        out: &mut Vec<u8>,
    ) -> bool {
        out.truncate(self.mark);
        false
    }
}

/// Appends `input[from..to]` to `out` ([`append_then`] with nothing
/// after it).
#[inline(always)]
fn append(out: &mut Vec<u8>, input: &[u8], from: usize, to: usize) {
    append_then(out, input, from, to, []);
}

/// Appends `input[from..to]` to `out`, then the `N` bytes `then`. Most
/// runs of pending input are a few dozen bytes: such a run is copied as
/// one block of `RUN` bytes, without a call to `memcpy`, when `input`
/// has that many from `from` on (what the block holds after `to` lands
/// past the end of `out`, and is no part of it, or is overwritten by
/// `then`).
#[inline(always)]
fn append_then<const N: usize>(
    out: &mut Vec<u8>,
    input: &[u8],
    from: usize,
    to: usize,
    then: [u8; N],
) {
    const RUN: usize = 64;
    let n = to.wrapping_sub(from);
    if n <= RUN && input.len().saturating_sub(from) >= RUN {
        out.reserve(RUN + N);
        // SAFETY: `input[from..from + RUN]` is in bounds (checked above),
        // and so is `input[from..to]`, as `to - from <= RUN`; `out` has
        // room for `RUN + N` more bytes after its length (reserved), into
        // which the block is copied, and `then` after the `n` bytes of
        // the run (`n + N <= RUN + N`); only those `n + N` bytes, which
        // are now initialized, become part of it.
        unsafe {
            let len = out.len();
            let dst = out.as_mut_ptr().add(len);
            std::ptr::copy_nonoverlapping(input.as_ptr().add(from), dst, RUN);
            std::ptr::copy_nonoverlapping(then.as_ptr(), dst.add(n), N);
            out.set_len(len + n + N);
        }
    } else {
        out.extend_from_slice(&input[from..to]);
        out.extend_from_slice(&then);
    }
}

/// Writes a space if `next` would run into the last byte written:
/// `e4!e5` is three items, but `??` and `e5` with nothing between them
/// would be one.
#[inline(always)]
fn separate(next: Option<u8>, out: &mut Vec<u8>) {
    let graphic = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_graphic());
    // `next` first: most often it is white space, and `out` is not
    // looked at.
    if graphic(next) && graphic(out.last().copied()) {
        out.push(b' ');
    }
}

/// Where the blank lines that end `input[from..end]` start: just after
/// the line end of its last line that is not blank.
fn blank_tail(input: &[u8], from: usize, end: usize) -> usize {
    let mut p = end;
    while p > from {
        p -= match input[..p] {
            [.., b' ' | b'\t' | 0x0B | 0x0C | b'\r' | b'\n'] => 1,
            [.., 0xC2, 0xA0 | 0x85] => 2,
            [.., 0xE2, 0x80, 0xA8] | [.., 0xEF, 0xBB, 0xBF] => 3,
            _ => break,
        };
    }
    line_end(input, p, end).1
}
