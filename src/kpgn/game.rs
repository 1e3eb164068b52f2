//! Reading PGN one game at a time.
//!
//! [`GameReader`] pulls lines from the shared [`LineReader`] and collects
//! one game's bytes, line ends included, in a buffer that is reused for
//! the next game: it never holds more than one game. As each line comes
//! in it is sorted (tag pairs or movetext) and skimmed by the tokenizer
//! ([`Lexer::skim`]), so that the reader knows where the game ends:
//!
//! - after its termination marker: the blank lines that follow the
//!   marker's line (or the line where a `{` comment opened after the
//!   marker closes) still belong to it, the next line that is not blank
//!   starts the next game;
//! - where the next tag section starts: a line whose first non-blank
//!   byte is `[`, after movetext;
//! - at the end of the input.
//!
//! So a game owns the blank lines that separate it from the next one,
//! with or without a marker, and a game left out for an error takes them
//! with it.
//!
//! A `{` comment never runs across a line that parses as tag pairs: such
//! a line starts the next game, and the comment is reported as
//! unterminated, so that one missing `}` costs one game, not the rest of
//! the file.
//!
//! The movetext is tokenized once the game is read. A filter that reads
//! the movetext itself may also have the game read without skimming
//! ([`GameReader::speculate`]) and check that it was read right.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::ops::Range;

use super::token::{self, Kind, Lexer, Sink, Token};
use crate::diag::Diagnostic;
use crate::lines::{Line, LineReader};

/// One line of a game: where it and its line end lie in the game's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineSpan {
    /// Offset of the line's first byte.
    pub start: usize,
    /// Offset of its line end (the end of its content).
    pub content_end: usize,
    /// Offset just past its line end.
    pub end: usize,
    /// Its number in its input, counted from 1.
    pub number: u64,
    /// Whether it is a line of tag pairs, which is not tokenized.
    pub tags: bool,
}

/// A tag pair, `[Name "value"]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    /// Span of the whole tag pair, brackets included.
    pub span: Range<usize>,
    /// Span of the name.
    pub name: Range<usize>,
    /// Span of the value between the quotes, escapes left as written.
    pub value: Range<usize>,
    /// Index of its line in [`Game::lines`].
    pub line: usize,
}

/// One game as read: its bytes, lines, tag pairs and movetext tokens.
///
/// A game may also be text between games that holds no tag pair and no
/// move (blank lines, a stray comment): [`Game::is_game`] tells.
#[derive(Debug, Default)]
pub struct Game {
    buf: Vec<u8>,
    lines: Vec<LineSpan>,
    tags: Vec<Tag>,
    tokens: Vec<Token>,
    error: Option<Diagnostic>,
    /// Whether [`Game::tokenize`] has run.
    tokenized: bool,
}

impl Game {
    /// The game's bytes exactly as read, line ends included.
    pub fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The game's lines in order.
    pub fn lines(&self) -> &[LineSpan] {
        &self.lines
    }

    /// The tag pairs in order.
    pub fn tags(&self) -> &[Tag] {
        &self.tags
    }

    /// The movetext tokens in order; none before [`Game::tokenize`].
    pub fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    /// The first thing wrong with the game, if any: an error for the
    /// whole game. Before [`Game::tokenize`], only a malformed tag pair.
    pub fn error(&self) -> Option<&Diagnostic> {
        self.error.as_ref()
    }

    /// Tokenizes the movetext (every line that is not tag pairs), if not
    /// done yet, reporting what is wrong with it in [`Game::error`].
    ///
    /// The errors come in line order after those of the tag pairs, as if
    /// each line had been tokenized as it was read: tag pairs that are
    /// not the game's first lines end the game when movetext came before.
    pub fn tokenize(&mut self) {
        if self.tokenized {
            return;
        }
        self.tokenized = true;
        let mut lexer = Lexer::new();
        let mut sink =
            Sink { tokens: &mut self.tokens, error: &mut self.error };
        for line in self.lines.iter().filter(|l| !l.tags) {
            let (start, end) = (line.start, line.content_end);
            lexer.line(&self.buf, start, end, line.number, &mut sink);
        }
        lexer.finish(&mut sink);
    }

    /// Whether this is a game: it has a tag pair or a move. Text between
    /// games (blank lines, comments) is not.
    pub fn is_game(&self) -> bool {
        !self.tags.is_empty()
            || self.tokens.iter().any(|t| {
                !matches!(
                    t.kind,
                    Kind::Comment | Kind::LineComment | Kind::Escape
                )
            })
    }

    /// The bytes of `span`.
    pub fn text(&self, span: Range<usize>) -> &[u8] {
        &self.buf[span]
    }

    /// The first tag pair named `name` (ASCII case ignored).
    pub fn tag(&self, name: &str) -> Option<&Tag> {
        let name = name.as_bytes();
        self.tags
            .iter()
            .find(|t| self.buf[t.name.clone()].eq_ignore_ascii_case(name))
    }

    fn clear(&mut self) {
        self.buf.clear();
        self.lines.clear();
        self.tags.clear();
        self.tokens.clear();
        self.error = None;
        self.tokenized = false;
    }

    fn fail(&mut self, line: u64, message: &str) {
        if self.error.is_none() {
            self.error = Some(Diagnostic::error(line, message));
        }
    }
}

/// Where the reader is in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the first tag pair or movetext (blank lines).
    Prefix,
    /// In the tag section.
    Tags,
    /// In the movetext.
    Movetext,
}

/// What a line does to the game being read.
enum Step {
    /// The line was added; the game goes on.
    Continue,
    /// The line starts the next game and was not added.
    Boundary,
}

/// The game being collected, and the state of reading it.
#[derive(Debug)]
struct Builder {
    game: Game,
    lexer: Lexer,
    /// Where [`Lexer::skim`] puts what it tokenizes; cleared every line.
    scratch: Vec<Token>,
    phase: Phase,
    /// The termination marker has been read: only blank lines follow.
    ended: bool,
    /// Whether the movetext is skimmed: false while reading a game
    /// speculatively ([`GameReader::speculate`]).
    exact: bool,
}

impl Builder {
    fn reset(&mut self, exact: bool) {
        self.game.clear();
        self.lexer = Lexer::new();
        self.phase = Phase::Prefix;
        self.ended = false;
        self.exact = exact;
    }

    /// Adds the line `raw`, whose content is its first `len` bytes.
    ///
    /// Always inlined: it runs once a line, and a call of its own (with
    /// its six saved registers) cost a tenth of reading a game.
    #[inline(always)]
    fn add(&mut self, raw: &[u8], len: usize, number: u64) -> Step {
        let first = token::skip_space(raw, 0, len);
        if self.ended && first < len {
            return Step::Boundary;
        }
        let tag_line = first < len && raw[first] == b'[';
        if tag_line && self.phase == Phase::Movetext {
            if !self.lexer.in_comment() {
                return Step::Boundary;
            }
            let mark = self.game.tags.len();
            let tags = parse_tags(&raw[..len], 0, 0, &mut self.game.tags);
            self.game.tags.truncate(mark);
            if tags {
                return Step::Boundary;
            }
        }
        let start = self.game.buf.len();
        self.game.buf.extend_from_slice(raw);
        let index = self.game.lines.len();
        self.game.lines.push(LineSpan {
            start,
            content_end: start + len,
            end: start + raw.len(),
            number,
            tags: false,
        });
        if tag_line && self.phase != Phase::Movetext {
            self.game.lines[index].tags = true;
            self.phase = Phase::Tags;
            let game = &mut self.game;
            if !parse_tags(
                &game.buf[start..start + len],
                start,
                index,
                &mut game.tags,
            ) {
                game.fail(number, "malformed tag pair");
            }
            return Step::Continue;
        }
        if first < len && raw[0] != b'%' {
            self.phase = Phase::Movetext;
        }
        if !self.exact {
            return Step::Continue;
        }
        // Errors are found again when the game is tokenized.
        let mut error = None;
        let mut sink = Sink { tokens: &mut self.scratch, error: &mut error };
        let buf = &self.game.buf;
        self.lexer.skim(buf, start, start + len, number, &mut sink);
        self.scratch.clear();
        self.ended = self.lexer.terminated() && !self.lexer.in_comment();
        Step::Continue
    }
}

/// Parses a line of tag pairs, `line[..]` lying at offset `base` of the
/// game, into `tags`. Returns false if the line is not only tag pairs and
/// white space.
fn parse_tags(
    line: &[u8],
    base: usize,
    index: usize,
    tags: &mut Vec<Tag>,
) -> bool {
    let end = line.len();
    let mut i = token::skip_space(line, 0, end);
    while i < end {
        let Some((tag, next)) = parse_tag(line, i) else { return false };
        tags.push(Tag {
            span: base + i..base + next,
            name: base + tag.0.start..base + tag.0.end,
            value: base + tag.1.start..base + tag.1.end,
            line: index,
        });
        i = token::skip_space(line, next, end);
    }
    true
}

/// The spans of a tag pair's name and value, and the offset after it.
type Parsed = ((Range<usize>, Range<usize>), usize);

/// One `[Name "value"]` at `line[i]`: the spans of name and value, and
/// the offset after the `]`.
fn parse_tag(line: &[u8], i: usize) -> Option<Parsed> {
    let end = line.len();
    if line.get(i) != Some(&b'[') {
        return None;
    }
    let name_start = token::skip_space(line, i + 1, end);
    let mut j = name_start;
    while j < end && NAME[line[j] as usize] {
        j += 1;
    }
    let name = name_start..j;
    j = token::skip_space(line, j, end);
    if name.is_empty() || line.get(j) != Some(&b'"') {
        return None;
    }
    let value_start = j + 1;
    j = value_start;
    // To the closing `"`, past `\\` and the byte it escapes.
    loop {
        j += token::find2(b'"', b'\\', line.get(j..)?)?;
        if line[j] == b'"' {
            break;
        }
        j += 2;
    }
    let value = value_start..j;
    j = token::skip_space(line, j + 1, end);
    if line.get(j) != Some(&b']') {
        return None;
    }
    Some(((name, value), j + 1))
}

/// The bytes of a tag name: ASCII letters, digits and `_`.
static NAME: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    t
};

/// Where a game starts for certain, told from the lines just before it:
/// for reading an input in parts (on several threads) that are each read
/// as the whole input would be.
///
/// A line that parses as tag pairs starts a game if the nearest line
/// before it that is not blank is movetext: not blank, not an escape line
/// (`%` as its first byte), and its first byte that is not white space is
/// not `[`. Why, from [`GameReader`]'s rules: such a line always puts the
/// game it falls in into its movetext, whatever came before; blank lines
/// end no game and change nothing; and a line of tag pairs that comes
/// after movetext ends the game, after a termination marker or not, in an
/// open comment or not. The game it starts is read from a fresh state, as
/// a reader that starts at that line reads it.
///
/// Anything else (tag pairs after an escape line, or after a `[` line that
/// is not tag pairs) may or may not start a game, and is not used.
#[derive(Debug, Default)]
pub struct Cuts {
    /// The nearest line that was not blank was movetext.
    after_movetext: bool,
    /// The tag pairs parsed (not used, but parse_tags fills it).
    scratch: Vec<Tag>,
}

impl Cuts {
    /// Whether the line whose content is `line` certainly starts a game,
    /// the lines given since the last `true` being the lines just before
    /// it (as a reader that cuts an input into batches gives them).
    pub fn starts_game(&mut self, line: &[u8]) -> bool {
        let len = line.len();
        let first = token::skip_space(line, 0, len);
        if first == len {
            return false;
        }
        let after_movetext = std::mem::take(&mut self.after_movetext);
        if line[first] == b'[' {
            let tags =
                after_movetext && parse_tags(line, 0, 0, &mut self.scratch);
            self.scratch.clear();
            return tags;
        }
        self.after_movetext = line[0] != b'%';
        false
    }
}

/// How much of a game [`GameReader::speculate`] reads before it falls
/// back to exact reading, so that memory stays flat on input without tag
/// pairs.
const SPECULATE_LIMIT: usize = 1 << 20;

/// A line read but not yet used, in [`GameReader`]'s `replay` buffer.
#[derive(Clone, Debug)]
struct Pending {
    raw: Range<usize>,
    len: usize,
    number: u64,
}

/// Reads games one at a time from one input.
pub struct GameReader<R> {
    lines: LineReader<R>,
    builder: Builder,
    /// Lines read but belonging to the next games: the first line of the
    /// next game, read while looking for the end of the current one, and
    /// the lines a speculative read took too many. Read before any new
    /// line; their bytes are in `replay`.
    queue: VecDeque<Pending>,
    replay: Vec<u8>,
    /// The queue holds lines a speculative read took too many: they are
    /// read exactly, so that they are not read a third time.
    backlog: bool,
    /// A read error that comes back once the games read before it are
    /// read exactly (see [`next_line`]).
    failed: Option<io::Error>,
}

impl<R: Read> GameReader<R> {
    /// A reader of the games in `rdr`.
    pub fn new(rdr: R) -> GameReader<R> {
        GameReader::from_lines(LineReader::new(rdr))
    }

    /// A reader of the games in the lines of `lines`, from the next on.
    pub fn from_lines(lines: LineReader<R>) -> GameReader<R> {
        GameReader {
            lines,
            builder: Builder {
                game: Game::default(),
                lexer: Lexer::new(),
                scratch: Vec::new(),
                phase: Phase::Prefix,
                ended: false,
                exact: true,
            },
            queue: VecDeque::new(),
            replay: Vec::new(),
            backlog: false,
            failed: None,
        }
    }

    /// The next game, tokenized, or `None` at the end of the input. The
    /// game is lent until the next call.
    ///
    /// # Errors
    ///
    /// A read error of the input. What was read of the current game is
    /// lost; the reader should not be used after it.
    pub fn next_game(&mut self) -> io::Result<Option<&Game>> {
        self.read(true)?;
        Ok(self.current().map(|game| {
            game.tokenize();
            &*game
        }))
    }

    /// The next game as it may be: read up to the next line of tag pairs
    /// after movetext, or the end of the input, without skimming the
    /// movetext for the state that may end it earlier (a termination
    /// marker followed by more than blank lines; an open comment, across
    /// which the next tag section must parse). Nor is it tokenized.
    ///
    /// Skimming costs about as much as filtering, and a filter that reads
    /// the movetext anyway can tell whether the game read is the game
    /// ([`fast::filter`](super::fast::filter) does). If it cannot,
    /// [`GameReader::frame`] gives the game as [`GameReader::next_game`]
    /// would have, and puts back the lines that belong to the next games.
    ///
    /// # Errors
    ///
    /// As [`GameReader::next_game`].
    pub fn speculate(&mut self) -> io::Result<Option<&Game>> {
        self.read(false)?;
        Ok(self.current().map(|game| &*game))
    }

    /// The game just read, read exactly (see [`GameReader::speculate`])
    /// and tokenized; `None` at the end of the input.
    ///
    /// # Errors
    ///
    /// As [`GameReader::next_game`]: the game may go on after where it
    /// was thought to end (a comment open across a line of tag pairs).
    pub fn frame(&mut self) -> io::Result<Option<&Game>> {
        if !self.builder.exact && !self.reread() {
            self.fill()?;
        }
        Ok(self.current().map(|game| {
            game.tokenize();
            &*game
        }))
    }

    fn current(&mut self) -> Option<&mut Game> {
        match self.builder.game.lines.is_empty() {
            true => None,
            false => Some(&mut self.builder.game),
        }
    }

    /// Reads the lines of the next game, exactly or speculatively.
    fn read(&mut self, exact: bool) -> io::Result<()> {
        self.backlog &= self.queue.len() > 1;
        self.builder.reset(exact || self.backlog);
        self.fill()
    }

    /// Reads lines into the game until it ends.
    fn fill(&mut self) -> io::Result<()> {
        loop {
            let step = if let Some(p) = self.queue.pop_front() {
                let raw = &self.replay[p.raw.clone()];
                let step = self.builder.add(raw, p.len, p.number);
                if let Step::Boundary = step {
                    self.queue.push_front(p);
                }
                step
            } else if let Some(line) = next_line(
                &mut self.lines,
                &mut self.failed,
                self.builder.exact,
            )? {
                let len = line.content().len();
                let step = self.builder.add(line.raw(), len, line.number());
                if let Step::Boundary = step {
                    self.replay.clear();
                    self.replay.extend_from_slice(line.raw());
                    let raw = 0..self.replay.len();
                    let number = line.number();
                    self.queue.push_front(Pending { raw, len, number });
                }
                step
            } else if self.failed.is_some() && !self.reread() {
                // The game was open when the input failed: lost.
                return Err(self.failed.take().expect("a read error"));
            } else {
                return Ok(());
            };
            match step {
                Step::Boundary => return Ok(()),
                Step::Continue => {}
            }
            if !self.builder.exact
                && self.builder.game.buf.len() > SPECULATE_LIMIT
                && self.reread()
            {
                return Ok(());
            }
        }
    }

    /// Reads the lines of the game read speculatively again, exactly.
    /// The lines after where the game ends go back to the queue, in
    /// front; true if there were any. If not, the game may go on.
    fn reread(&mut self) -> bool {
        let buf = std::mem::take(&mut self.builder.game.buf);
        let lines = std::mem::take(&mut self.builder.game.lines);
        self.builder.reset(true);
        let mut rest = lines.len();
        for (k, l) in lines.iter().enumerate() {
            let raw = &buf[l.start..l.end];
            let len = l.content_end - l.start;
            if let Step::Boundary = self.builder.add(raw, len, l.number) {
                rest = k;
                break;
            }
        }
        if self.queue.is_empty() {
            self.replay.clear();
        }
        self.backlog = rest < lines.len();
        for l in lines[rest..].iter().rev() {
            let start = self.replay.len();
            self.replay.extend_from_slice(&buf[l.start..l.end]);
            self.queue.push_front(Pending {
                raw: start..self.replay.len(),
                len: l.content_end - l.start,
                number: l.number,
            });
        }
        rest < lines.len()
    }
}

/// The next line of `lines`.
///
/// A read error while a game is read speculatively (not `exact`) is kept
/// in `failed` and the input ends there for now, so that the games read
/// before it are read exactly ([`GameReader::reread`]): it loses only the
/// game that was open when it came, as in exact reading. It comes back
/// when more lines are needed.
fn next_line<'a, R: Read>(
    lines: &'a mut LineReader<R>,
    failed: &mut Option<io::Error>,
    exact: bool,
) -> io::Result<Option<Line<'a>>> {
    if let Some(err) = failed.take() {
        return Err(err);
    }
    match lines.next_line() {
        Err(err) if !exact => {
            *failed = Some(err);
            Ok(None)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each game's bytes as text and its first error's line.
    fn games(input: &str) -> Vec<(String, Option<u64>)> {
        let mut rdr = GameReader::new(input.as_bytes());
        let mut out = vec![];
        while let Some(game) = rdr.next_game().unwrap() {
            let text = String::from_utf8(game.bytes().to_vec()).unwrap();
            out.push((text, game.error().map(|d| d.line)));
        }
        out
    }

    fn texts(input: &str) -> Vec<String> {
        games(input).into_iter().map(|g| g.0).collect()
    }

    #[test]
    fn games_end_at_markers_and_tag_sections() {
        let input = "[A \"1\"]\n\n1. e4 e5 1-0\n\n[B \"2\"]\n1. d4\n\
                     [C \"3\"]\n\n1. c4 *";
        assert_eq!(
            texts(input),
            [
                "[A \"1\"]\n\n1. e4 e5 1-0\n\n",
                "[B \"2\"]\n1. d4\n",
                "[C \"3\"]\n\n1. c4 *",
            ]
        );
    }

    #[test]
    fn markers_in_comments_and_variations_do_not_end_games() {
        let input = "[A \"1\"]\n1. e4 {1-0\n*} (1. d4 *) e5 ; 1-0\n0-1\n";
        assert_eq!(texts(input), [input]);
    }

    #[test]
    fn a_comment_after_the_marker_is_part_of_the_game() {
        let input = "[A \"1\"]\n1. e4 1-0 {a\nb}\n[B \"2\"]\n";
        assert_eq!(texts(input).len(), 2);
        assert_eq!(texts(input)[0], "[A \"1\"]\n1. e4 1-0 {a\nb}\n");
    }

    #[test]
    fn tags_after_movetext_start_a_game_even_indented() {
        let input = "\u{a0} [A \"1\"]\n e4\n\u{a0} [B \"2\"]\n e4\n";
        assert_eq!(
            texts(input),
            ["\u{a0} [A \"1\"]\n e4\n", "\u{a0} [B \"2\"]\n e4\n"]
        );
    }

    #[test]
    fn an_unclosed_comment_stops_at_the_next_tag_section() {
        let input = "[A \"1\"]\n1. e4 {oops\n[x] is not a tag\n\n\
                     [B \"2\"]\n1. d4 *\n";
        let got = games(input);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].1, Some(2));
        assert_eq!(got[1], ("[B \"2\"]\n1. d4 *\n".to_string(), None));
    }

    #[test]
    fn tag_pairs_are_parsed() {
        let input = "[A \"x\\\"y\"] [ B  \"\" ]\n[Bad]\n";
        let mut rdr = GameReader::new(input.as_bytes());
        let game = rdr.next_game().unwrap().unwrap();
        let names: Vec<&[u8]> =
            game.tags().iter().map(|t| game.text(t.name.clone())).collect();
        assert_eq!(names, [&b"A"[..], b"B"]);
        assert_eq!(game.text(game.tags()[0].value.clone()), b"x\\\"y");
        assert_eq!(game.tag("b").map(|t| t.value.is_empty()), Some(true));
        assert_eq!(
            game.error(),
            Some(&Diagnostic::error(2, "malformed tag pair"))
        );
    }

    #[test]
    fn tag_values_end_at_the_first_unescaped_quote() {
        fn value(line: &str) -> Option<(&[u8], usize)> {
            let line = line.as_bytes();
            parse_tag(line, 0).map(|((_, v), next)| (&line[v], next))
        }
        assert_eq!(value(r#"[A "\\"]"#), Some((&br"\\"[..], 8)));
        assert_eq!(value(r#"[A "x\"y\\" ]"#), Some((&br#"x\"y\\"#[..], 13)));
        let long = format!(r#"[A "{}\"{}"]"#, "x".repeat(70), "y".repeat(70));
        assert_eq!(value(&long).map(|v| v.0.len()), Some(142));
        for bad in [r#"[A "x\"]"#, r#"[A "x\"#, r#"[A "x"#, r#"[A ""#] {
            assert_eq!(value(bad), None, "{bad}");
        }
    }

    #[test]
    fn text_between_games_is_not_a_game() {
        let mut rdr = GameReader::new(&b"\n{note}\n[A \"1\"]\n*\n\n"[..]);
        let mut seen = vec![];
        while let Some(game) = rdr.next_game().unwrap() {
            seen.push(game.is_game());
        }
        assert_eq!(seen, [false, true]);
    }

    #[test]
    fn every_line_end_and_none() {
        for end in ["\n", "\r", "\r\n", "\u{85}", "\u{2028}"] {
            let input = format!("[A \"1\"]{end}1. e4 e5{end}[B \"2\"]{end}*");
            let got = texts(&input);
            assert_eq!(
                got,
                [
                    format!("[A \"1\"]{end}1. e4 e5{end}"),
                    format!("[B \"2\"]{end}*")
                ]
            );
        }
    }

    #[test]
    fn memory_holds_one_game() {
        let game = "[Event \"x\"]\n\n1. e4 {(:)} e5 {(:)} 1-0\n\n";
        let input = game.repeat(20_000);
        let mut rdr = GameReader::new(input.as_bytes());
        let mut n = 0;
        while rdr.next_game().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, 20_000);
        assert!(rdr.builder.game.buf.capacity() < 1024);
    }

    /// A read error loses the game open when it came, and only that,
    /// whether games are read exactly or speculatively first.
    #[test]
    fn a_read_error_loses_the_open_game_only() {
        /// Gives `.0` a few bytes at a time, then fails.
        struct Failing<'a>(&'a [u8]);
        impl Read for Failing<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() {
                    return Err(io::Error::other("disk on fire"));
                }
                let n = buf.len().min(3).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let input = "[A \"1\"]\n1. e4 *\n\n%x\n{note}\n\n[B \"2\"]\n1. d4\n\
                     [C \"3\"]\n1. c4 {a\n[x]\n} *\n%y\n\n[D \"4\"]\n*\n";
        for fail in 0..input.len() {
            let failing = || Failing(&input.as_bytes()[..fail]);
            let (mut exact, mut speculated) = (vec![], vec![]);
            let mut rdr = GameReader::new(failing());
            while let Ok(Some(game)) = rdr.next_game() {
                exact.push(game.bytes().to_vec());
            }
            let mut rdr = GameReader::new(failing());
            while let Ok(Some(_)) = rdr.speculate() {
                match rdr.frame() {
                    Ok(Some(game)) => speculated.push(game.bytes().to_vec()),
                    _ => break,
                }
            }
            assert_eq!(speculated, exact, "failing after {fail} bytes");
        }
    }
}
