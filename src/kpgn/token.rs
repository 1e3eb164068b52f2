//! The movetext tokenizer: one line at a time, with the state that a line
//! hands to the next (an open `{` comment, open variations, a termination
//! marker already seen).
//!
//! Tokens are spans into the buffer of the game being read, so a token
//! costs no allocation. White space between tokens is not a token: the
//! filter copies the gaps as they are.

use memchr::memchr;

use super::Side;
use crate::diag::Diagnostic;

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A move number indication, `12.` (White to move), `12...` (Black)
    /// or bare digits (side not said).
    MoveNumber(Option<Side>),
    /// A move in SAN, without any `!`/`?` written after it.
    San,
    /// `??` standing alone where a move may stand: a hidden move.
    Hidden,
    /// `!`, `?`, `!!`, `??`, `!?`, `?!`: attached to a move, or alone.
    Glyph,
    /// A numeric annotation glyph, `$12`.
    Nag,
    /// A `{...}` comment, braces included; it may span lines.
    Comment,
    /// A `;` comment, to the end of its line (line end excluded).
    LineComment,
    /// A `%` escape line (line end excluded).
    Escape,
    /// `(`, the start of a variation.
    VarStart,
    /// `)`, the end of a variation.
    VarEnd,
    /// A termination marker: `1-0`, `0-1`, `1/2-1/2` or `*`.
    End,
}

/// One token: its kind, its byte span in the game and the line it starts
/// on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: Kind,
    /// Offset of its first byte in the game.
    pub start: usize,
    /// Offset just past its last byte.
    pub end: usize,
    /// The number of the line it starts on, in its input.
    pub line: u64,
}

const OTHER: u8 = 0;
const SPACE: u8 = 1;
const SYMBOL: u8 = 2;

/// The class of each byte: PGN white space, a symbol character
/// (`A-Z a-z 0-9 _ + # = : / -`), or something else.
static CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if matches!(c, b' ' | b'\t' | 0x0B | 0x0C) {
            SPACE
        } else if c.is_ascii_alphanumeric()
            || matches!(c, b'_' | b'+' | b'#' | b'=' | b':' | b'/' | b'-')
        {
            SYMBOL
        } else {
            OTHER
        };
        b += 1;
    }
    t
};

/// `SYMBOL_AT[k][b]` is bit `k` if `b` is a symbol character, else 0:
/// OR'ed together, eight lookups make the mask of the symbol characters
/// among eight bytes, two instructions a byte.
pub static SYMBOL_AT: [[u8; 256]; 8] = {
    let mut t = [[0; 256]; 8];
    let mut k = 0;
    while k < 8 {
        let mut b = 0;
        while b < 256 {
            if CLASS[b] == SYMBOL {
                t[k][b] = 1 << k;
            }
            b += 1;
        }
        k += 1;
    }
    t
};

/// Whether `b` is a symbol character: `A-Z a-z 0-9 _ + # = : / -`.
#[inline]
pub fn is_symbol(b: u8) -> bool {
    CLASS[b as usize] == SYMBOL
}

/// The bytes that, outside comments, cannot change the lexer's state
/// between lines: symbol characters but `-` and `/` (termination
/// markers), `.`, `!`, `?`, `$` and ASCII white space. See
/// [`Lexer::skim`].
static SKIM: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = (CLASS[b] != OTHER && c != b'-' && c != b'/')
            || matches!(c, b'.' | b'!' | b'?' | b'$');
        b += 1;
    }
    t
};

/// The length of the white space at `buf[i..end]`, 0 if there is none:
/// space, tab, VT, FF, or U+00A0 (bytes C2 A0), which the seed's own
/// examples indent with.
#[inline]
pub fn space_at(buf: &[u8], i: usize, end: usize) -> usize {
    match buf[i] {
        b if CLASS[b as usize] == SPACE => 1,
        0xC2 if i + 1 < end && buf[i + 1] == 0xA0 => 2,
        _ => 0,
    }
}

/// The offset of the first byte of `buf[i..end]` that is not white space.
#[inline]
pub fn skip_space(buf: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match space_at(buf, i, end) {
            0 => break,
            n => i += n,
        }
    }
    i
}

/// The tokenizer's state between lines of one game.
#[derive(Clone, Debug, Default)]
pub struct Lexer {
    /// An open `{`: its offset and line.
    brace: Option<(usize, u64)>,
    /// How many variations are open.
    depth: u32,
    /// The line of the outermost open `(`.
    var_line: u64,
    /// Whether a termination marker was read outside variations.
    terminated: bool,
}

/// Where a line's tokens go.
pub struct Sink<'a> {
    /// The tokens of the game so far.
    pub tokens: &'a mut Vec<Token>,
    /// The first error in the game, if any.
    pub error: &'a mut Option<Diagnostic>,
}

impl Sink<'_> {
    fn push(&mut self, kind: Kind, start: usize, end: usize, line: u64) {
        self.tokens.push(Token { kind, start, end, line });
    }

    fn fail(&mut self, line: u64, message: String) {
        if self.error.is_none() {
            *self.error = Some(Diagnostic::error(line, message));
        }
    }
}

impl Lexer {
    /// A lexer at the start of a game.
    pub fn new() -> Lexer {
        Lexer::default()
    }

    /// Whether a `{` comment is open at the end of the lines read.
    pub fn in_comment(&self) -> bool {
        self.brace.is_some()
    }

    /// Whether a termination marker has been read, outside variations.
    pub fn terminated(&self) -> bool {
        self.terminated
    }

    /// Reports what is still open when the game ends: a `{` comment or a
    /// variation.
    pub fn finish(&mut self, sink: &mut Sink<'_>) {
        if let Some((_, line)) = self.brace.take() {
            sink.fail(line, "unterminated comment".into());
        }
        if self.depth > 0 {
            sink.fail(self.var_line, "unterminated variation".into());
        }
    }

    /// Tokenizes the line `buf[start..end]` (its content, line end
    /// excluded), numbered `line`.
    pub fn line(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        line: u64,
        sink: &mut Sink<'_>,
    ) {
        let mut i = start;
        if let Some((open, open_line)) = self.brace {
            let Some(j) = find(b'}', &buf[i..end]) else { return };
            i += j + 1;
            sink.push(Kind::Comment, open, i, open_line);
            self.brace = None;
        } else if buf.get(start) == Some(&b'%') && start < end {
            sink.push(Kind::Escape, start, end, line);
            return;
        }
        while i < end {
            i = match space_at(buf, i, end) {
                0 => self.token(buf, i, end, line, sink),
                n => i + n,
            };
        }
    }

    /// Brings the state up to date with the line `buf[start..end]` as
    /// [`Lexer::line`] does, without making tokens: all the game reader
    /// needs to find where a game ends.
    ///
    /// Most lines hold only moves, move numbers, glyphs, NAGs and
    /// comments that close on the line; only a `{` can change the state
    /// there, so those lines are skimmed for it. A line with anything
    /// else (a `(`, `)`, `;`, `*`, `-` or `/` outside comments, which
    /// variations and termination markers need; any other byte, which
    /// may be an error) goes through [`Lexer::line`], with `scratch`
    /// taking its tokens and errors. The caller clears `scratch`.
    pub fn skim(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        line: u64,
        scratch: &mut Sink<'_>,
    ) {
        if self.brace.is_some() || buf.get(start) == Some(&b'%') {
            self.line(buf, start, end, line, scratch);
            return;
        }
        let mut i = start;
        while i < end {
            let b = buf[i];
            if SKIM[b as usize] {
                i += 1;
            } else if b == b'{' {
                match find(b'}', &buf[i + 1..end]) {
                    Some(j) => i += j + 2,
                    None => {
                        self.brace = Some((i, line));
                        return;
                    }
                }
            } else {
                self.line(buf, start, end, line, scratch);
                return;
            }
        }
    }

    /// Reads the token at `buf[i]` (not white space) and returns the
    /// offset after it.
    fn token(
        &mut self,
        buf: &[u8],
        i: usize,
        end: usize,
        line: u64,
        sink: &mut Sink<'_>,
    ) -> usize {
        let b = buf[i];
        if CLASS[b as usize] == SYMBOL {
            return self.symbol(buf, i, end, line, sink);
        }
        match b {
            b'{' => match find(b'}', &buf[i + 1..end]) {
                Some(j) => {
                    sink.push(Kind::Comment, i, i + j + 2, line);
                    i + j + 2
                }
                None => {
                    self.brace = Some((i, line));
                    end
                }
            },
            b';' => {
                sink.push(Kind::LineComment, i, end, line);
                end
            }
            b'(' => {
                if self.depth == 0 {
                    self.var_line = line;
                }
                self.depth += 1;
                sink.push(Kind::VarStart, i, i + 1, line);
                i + 1
            }
            b')' if self.depth > 0 => {
                self.depth -= 1;
                sink.push(Kind::VarEnd, i, i + 1, line);
                i + 1
            }
            b'$' => self.nag(buf, i, end, line, sink),
            b'!' | b'?' => glyph(buf, i, end, line, sink),
            b'*' => {
                self.end_marker(i, i + 1, line, sink);
                i + 1
            }
            _ => unexpected(buf, i, end, line, sink),
        }
    }

    /// A move number, a move or a termination marker made of symbol
    /// characters.
    fn symbol(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        line: u64,
        sink: &mut Sink<'_>,
    ) -> usize {
        let mut i = start;
        while i < end && CLASS[buf[i] as usize] == SYMBOL {
            i += 1;
        }
        let sym = &buf[start..i];
        if sym.iter().all(u8::is_ascii_digit) {
            let digits = i;
            while i < end && buf[i] == b'.' {
                i += 1;
            }
            let side = match i - digits {
                0 => None,
                1 => Some(Side::White),
                _ => Some(Side::Black),
            };
            sink.push(Kind::MoveNumber(side), start, i, line);
        } else if matches!(sym, b"1-0" | b"0-1" | b"1/2-1/2") {
            self.end_marker(start, i, line, sink);
        } else if sym[0].is_ascii_alphabetic() || sym.starts_with(b"0-0") {
            sink.push(Kind::San, start, i, line);
        } else {
            return unexpected(buf, start, end, line, sink);
        }
        i
    }

    fn nag(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        line: u64,
        sink: &mut Sink<'_>,
    ) -> usize {
        let mut i = start + 1;
        while i < end && buf[i].is_ascii_digit() {
            i += 1;
        }
        if i == start + 1 {
            return unexpected(buf, start, end, line, sink);
        }
        sink.push(Kind::Nag, start, i, line);
        i
    }

    fn end_marker(
        &mut self,
        start: usize,
        end: usize,
        line: u64,
        sink: &mut Sink<'_>,
    ) {
        if self.depth == 0 {
            self.terminated = true;
        }
        sink.push(Kind::End, start, end, line);
    }
}

/// The first `needle` in `hay`. Most comments are a few dozen bytes
/// long, where setting up a vector search costs more than it saves: the
/// first bytes are searched eight at a time in a `u64` (the zero-byte
/// trick), the rest with memchr.
#[inline]
pub fn find(needle: u8, hay: &[u8]) -> Option<usize> {
    const SHORT: usize = 64;
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let pattern = ONES * u64::from(needle);
    let head = &hay[..hay.len().min(SHORT)];
    let mut chunks = head.chunks_exact(8);
    for (k, chunk) in chunks.by_ref().enumerate() {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(chunk);
        let x = u64::from_le_bytes(bytes) ^ pattern;
        // The lowest byte flagged is the first zero byte of `x`: the
        // borrow can only flag bytes above a true zero.
        let zero = x.wrapping_sub(ONES) & !x & HIGHS;
        if zero != 0 {
            return Some(8 * k + zero.trailing_zeros() as usize / 8);
        }
    }
    let done = head.len() - chunks.remainder().len();
    if let Some(i) = chunks.remainder().iter().position(|&b| b == needle) {
        return Some(done + i);
    }
    if hay.len() > SHORT {
        return memchr(needle, &hay[SHORT..]).map(|i| i + SHORT);
    }
    None
}

/// The first `a` or `b` in `hay`, searched as [`find`] searches for one.
#[inline]
pub fn find2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    const SHORT: usize = 64;
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    let (pa, pb) = (ONES * u64::from(a), ONES * u64::from(b));
    let head = &hay[..hay.len().min(SHORT)];
    let mut chunks = head.chunks_exact(8);
    for (k, chunk) in chunks.by_ref().enumerate() {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(chunk);
        let x = u64::from_le_bytes(bytes);
        let (xa, xb) = (x ^ pa, x ^ pb);
        // As in `find`: the lowest byte flagged is a true zero.
        let zero = (xa.wrapping_sub(ONES) & !xa & HIGHS)
            | (xb.wrapping_sub(ONES) & !xb & HIGHS);
        if zero != 0 {
            return Some(8 * k + zero.trailing_zeros() as usize / 8);
        }
    }
    let done = head.len() - chunks.remainder().len();
    let rest = chunks.remainder().iter().position(|&c| c == a || c == b);
    if let Some(i) = rest {
        return Some(done + i);
    }
    if hay.len() > SHORT {
        return memchr::memchr2(a, b, &hay[SHORT..]).map(|i| i + SHORT);
    }
    None
}

/// A run of `!` and `?`. Written apart from a move, `??` is the hidden
/// move of a filtered record; attached to a move (`e4??`) it is a glyph.
fn glyph(
    buf: &[u8],
    start: usize,
    end: usize,
    line: u64,
    sink: &mut Sink<'_>,
) -> usize {
    let mut i = start;
    while i < end && matches!(buf[i], b'!' | b'?') {
        i += 1;
    }
    let attached = sink.tokens.last().is_some_and(|t| {
        t.end == start && matches!(t.kind, Kind::San | Kind::Hidden)
    });
    let kind = if !attached && &buf[start..i] == b"??" {
        Kind::Hidden
    } else {
        Kind::Glyph
    };
    sink.push(kind, start, i, line);
    i
}

/// Reports the text at `buf[start..]` up to the next white space as
/// unexpected, and skips it.
fn unexpected(
    buf: &[u8],
    start: usize,
    end: usize,
    line: u64,
    sink: &mut Sink<'_>,
) -> usize {
    let mut i = start + 1;
    while i < end && space_at(buf, i, end) == 0 && buf[i] != b'{' {
        i += 1;
    }
    let shown = String::from_utf8_lossy(&buf[start..i.min(start + 24)]);
    let message = match buf[start] {
        b'}' => "'}' without '{'".to_string(),
        b')' => "')' without '('".to_string(),
        _ => format!("unexpected '{shown}' in movetext"),
    };
    sink.fail(line, message);
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(text: &str) -> (Vec<(Kind, String)>, Option<Diagnostic>) {
        let buf = text.as_bytes();
        let mut lexer = Lexer::new();
        let (mut tokens, mut error) = (vec![], None);
        let mut sink = Sink { tokens: &mut tokens, error: &mut error };
        let mut start = 0;
        for (n, l) in text.split('\n').enumerate() {
            lexer.line(buf, start, start + l.len(), n as u64 + 1, &mut sink);
            start += l.len() + 1;
        }
        lexer.finish(&mut sink);
        let shown = tokens
            .iter()
            .map(|t| (t.kind, text[t.start..t.end].to_string()))
            .collect();
        (shown, error)
    }

    fn kinds(text: &str) -> Vec<Kind> {
        let (tokens, error) = lex(text);
        assert_eq!(error, None, "{text}");
        tokens.into_iter().map(|(k, _)| k).collect()
    }

    #[test]
    fn moves_numbers_and_markers() {
        use Kind::*;
        let w = MoveNumber(Some(Side::White));
        let b = MoveNumber(Some(Side::Black));
        assert_eq!(
            kinds("1. e4 1... e5 2.Nf3 0-0-0 O-O e8=Q+ 1-0"),
            [w, San, b, San, w, San, San, San, San, End]
        );
        assert_eq!(
            kinds("0-1 1/2-1/2 * 12"),
            [End, End, End, MoveNumber(None)]
        );
    }

    #[test]
    fn hidden_moves_and_glyphs() {
        use Kind::*;
        assert_eq!(
            kinds("?? e4?? e4 ?? e4!? !"),
            [Hidden, San, Glyph, San, Hidden, San, Glyph, Glyph]
        );
        assert_eq!(kinds("?? ??!"), [Hidden, Glyph]);
        assert_eq!(kinds("e4$1 $22"), [San, Nag, Nag]);
    }

    #[test]
    fn comments_span_lines() {
        let (tokens, error) = lex("e4 {a\nb\n} e5 ; x } {\n%esc\n;y");
        assert_eq!(error, None);
        let texts: Vec<&str> = tokens.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(texts, ["e4", "{a\nb\n}", "e5", "; x } {", "%esc", ";y"]);
        let (_, error) = lex("  %no");
        assert!(error.is_some());
    }

    #[test]
    fn no_break_space_separates() {
        use Kind::*;
        assert_eq!(
            kinds("\u{a0}1.\u{a0}e4\u{a0} {(:)}"),
            [MoveNumber(Some(Side::White)), San, Comment]
        );
    }

    #[test]
    fn find2_agrees_with_position() {
        let mut hay = vec![];
        for len in 0..150 {
            hay.clear();
            hay.extend((0..len).map(|i| [b'a', b'"' ^ 1, 0xdc, 0x01][i % 4]));
            for at in 0..=len {
                for needle in [b'"', b'\\'] {
                    let mut h = hay.clone();
                    if at < len {
                        h[at] = needle;
                        h.push(b'"');
                        h.push(b'\\');
                    }
                    let want = h.iter().position(|&b| b == b'"' || b == b'\\');
                    assert_eq!(find2(b'"', b'\\', &h), want, "{len} {at}");
                }
            }
        }
    }

    #[test]
    fn find_agrees_with_position() {
        let mut hay = vec![];
        for len in 0..200 {
            hay.clear();
            hay.extend((0..len).map(|i| [b'a', 0x7d ^ 1, 0xfd, 0x01][i % 4]));
            for at in 0..=len {
                let mut h = hay.clone();
                if at < len {
                    h[at] = b'}';
                    h.push(b'}');
                }
                let want = h.iter().position(|&b| b == b'}');
                assert_eq!(find(b'}', &h), want, "len {len} at {at}");
            }
        }
    }

    #[test]
    fn variations_nest() {
        use Kind::*;
        assert_eq!(
            kinds("e4 (d4 (c4)) e5"),
            [San, VarStart, San, VarStart, San, VarEnd, VarEnd, San]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("e4\n}", 2, "'}' without '{'"),
            ("e4\n\n)", 3, "')' without '('"),
            ("e4 {open\n\n", 1, "unterminated comment"),
            ("e4 (d4\n", 1, "unterminated variation"),
            ("e4\n<x>", 2, "unexpected '<x>' in movetext"),
            ("e4 $x", 1, "unexpected '$x' in movetext"),
            ("e4 ½-½", 1, "unexpected '½-½' in movetext"),
        ];
        for (text, line, message) in cases {
            let (_, error) = lex(text);
            assert_eq!(
                error,
                Some(Diagnostic::error(line, message)),
                "{text}"
            );
        }
    }

    #[test]
    fn spans_and_lines() {
        let mut lexer = Lexer::new();
        let (mut tokens, mut error) = (vec![], None);
        let mut sink = Sink { tokens: &mut tokens, error: &mut error };
        let buf = b"1. e4\n {x\ny}";
        lexer.line(buf, 0, 5, 7, &mut sink);
        lexer.line(buf, 6, 9, 8, &mut sink);
        assert!(lexer.in_comment());
        lexer.line(buf, 10, 12, 9, &mut sink);
        assert_eq!(
            tokens[2],
            Token { kind: Kind::Comment, start: 7, end: 12, line: 8 }
        );
        assert_eq!(tokens[1].line, 7);
    }
}
