//! The Kriegspiel comment, `{(<response>:<illegal>) <text>}`.
//!
//! A `{...}` comment whose text starts with `(` (after white space) is a
//! Kriegspiel comment and must have this form (FORMATS.md, Kriegspiel PGN
//! point 4). `<response>` is the referee's announcements, comma-separated,
//! possibly none: `X<square>` a capture there, `C<d>` a check along a file
//! (`F`), rank (`R`), long or short diagonal (`L`, `S`) or by a knight
//! (`N`). `<illegal>` is the illegal attempts in Kriegspiel SAN
//! ([`san`]), comma-separated, or, in a filtered record, their
//! number. White space, line ends included, may stand around every part.
//!
//! Every comment of every game is read, so [`parse`] reads the usual
//! shapes in one pass with no allocation, and leaves anything else, and
//! the wording of what is wrong, to a slower reader.

use std::ops::Range;

use super::{san, Side};

/// What a `{...}` comment is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comment {
    /// A comment of free text.
    Plain,
    /// A Kriegspiel comment.
    Kriegspiel(KComment),
    /// A Kriegspiel comment that does not have its form: [`error`] says
    /// what is wrong.
    Bad,
}

/// Where the parts of a Kriegspiel comment lie in the comment's bytes
/// (braces included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KComment {
    /// The offset of `(`.
    open: u32,
    /// The offset of `:`.
    colon: u32,
    /// The offset of `)`.
    close: u32,
    /// The number of illegal attempts listed, or [`COUNT`].
    attempts: u32,
}

/// [`KComment::attempts`] of a comment that gives a count, not a list.
const COUNT: u32 = u32::MAX;

impl KComment {
    /// The announcements between `(` and `:`, as written.
    pub fn response(&self) -> Range<usize> {
        self.open as usize + 1..self.colon as usize
    }

    /// The illegal attempts (or their count) between `:` and `)`, as
    /// written.
    pub fn illegal(&self) -> Range<usize> {
        self.colon as usize + 1..self.close as usize
    }

    /// The number of attempts listed; `None` for a count (a filtered
    /// record).
    pub fn listed(&self) -> Option<usize> {
        (self.attempts != COUNT).then_some(self.attempts as usize)
    }

    /// The free text after `)` of the comment `c` (braces included),
    /// without the white space before `}`.
    pub fn text(&self, c: &[u8]) -> Range<usize> {
        self.close as usize + 1..self.trail(c)
    }

    /// Where the white space before `}` starts in the comment `c` (braces
    /// included). Found when asked, not as the comment is read: only an
    /// opponent's comment written without its text needs it.
    pub fn trail(&self, c: &[u8]) -> usize {
        let brace = c.len() - 1;
        // The free text usually ends right before `}`, or one space
        // before it (`{ (:) text }`): then the byte before the space is
        // the text's last (or `)`), which no white space ends with.
        match c[brace - 1] {
            b' ' if matches!(c[brace - 2], 0x21..=0x7E) => brace - 1,
            b' ' | b'\t' | b'\r' | b'\n' | 0x85 | 0xA0 | 0xA8 => {
                let after = self.close as usize + 1;
                after + trim_end(&c[after..brace]).len()
            }
            _ => brace,
        }
    }

    /// The announcements, each without the white space around it.
    pub fn announcements<'c>(
        &self,
        c: &'c [u8],
    ) -> impl Iterator<Item = &'c [u8]> {
        items(&c[self.response()])
    }

    /// The illegal attempts (nothing for a count), each without the white
    /// space around it.
    pub fn attempts<'c>(&self, c: &'c [u8]) -> impl Iterator<Item = &'c [u8]> {
        let list = match self.listed() {
            Some(_) => &c[self.illegal()],
            None => &[],
        };
        items(list)
    }
}

/// The length of the white space at `c[i..]`: PGN white space, U+00A0,
/// and every line end (CR, LF, U+0085, U+2028), since a comment may run
/// across lines.
fn space_at(c: &[u8], i: usize) -> usize {
    match c[i..] {
        [b' ' | b'\t' | 0x0B | 0x0C | b'\r' | b'\n', ..] => 1,
        [0xC2, 0xA0 | 0x85, ..] => 2,
        [0xE2, 0x80, 0xA8, ..] => 3,
        _ => 0,
    }
}

/// `s` without the white space around it.
fn trim(mut s: &[u8]) -> &[u8] {
    while !s.is_empty() && space_at(s, 0) > 0 {
        s = &s[space_at(s, 0)..];
    }
    trim_end(s)
}

/// `s` without its trailing white space.
fn trim_end(mut s: &[u8]) -> &[u8] {
    let ends_in_space = |s: &[u8], n: usize| {
        s.len() >= n && space_at(&s[s.len() - n..], 0) == n
    };
    while let Some(n) = (1..=3).find(|&n| ends_in_space(s, n)) {
        s = &s[..s.len() - n];
    }
    s
}

/// The comma-separated items of `list`, trimmed; none if `list` is blank.
fn items(list: &[u8]) -> impl Iterator<Item = &[u8]> {
    let blank = list.is_empty() || trim(list).is_empty();
    list.split(|&b| b == b',').map(trim_fast).filter(move |_| !blank)
}

/// [`trim`], quick when there is nothing to trim.
#[inline]
fn trim_fast(s: &[u8]) -> &[u8] {
    match (s.first(), s.last()) {
        (Some(a), Some(z))
            if a.is_ascii_alphanumeric() && z.is_ascii_alphanumeric() =>
        {
            s
        }
        _ => trim(s),
    }
}

/// Reads the comment `c` (`{...}`, braces included), the comment of a
/// move by `side` (attempts that reach its last rank must promote).
#[inline]
pub fn parse(c: &[u8], side: Option<Side>) -> Comment {
    let mut open = 1;
    while c[open] == b' ' {
        open += 1;
    }
    if c[open] != b'(' {
        return match c[open] {
            // `}`, or a byte that cannot start white space: free text.
            b'}' | 0x21..=0x7E => Comment::Plain,
            _ => slow(c, side),
        };
    }
    // Spaces inside the parentheses are rare: the reader without them
    // first, which gives the same or nothing.
    match fast::<false>(c, open, side) {
        Some(k) => Comment::Kriegspiel(k),
        None => spaced(c, open, side),
    }
}

/// [`parse`] of a comment that the reader without spaces gave up on.
#[cold]
#[inline(never)]
fn spaced(c: &[u8], open: usize, side: Option<Side>) -> Comment {
    match fast::<true>(c, open, side) {
        Some(k) => Comment::Kriegspiel(k),
        None => slow(c, side),
    }
}

/// [`parse`] in one pass, for the usual shapes: `None` for anything else
/// (white space other than spaces, a fault), which [`slow`] then reads.
/// `c[open]` is `(`; the `}` that ends `c` stops every loop. Without
/// `SPACED`, a space between the parentheses is not read over, and makes
/// the answer `None` (where it stands, nothing else is accepted): so it
/// is the same as with `SPACED`, or `None`.
#[inline]
fn fast<const SPACED: bool>(
    c: &[u8],
    open: usize,
    side: Option<Side>,
) -> Option<KComment> {
    let (colon, close, attempts) = head::<SPACED>(c, open, side)?;
    KComment::new(0, [open, colon, close, c.len() - 1], attempts)
}

impl KComment {
    /// The comment from `at` to `brace` (`{` to `}`) whose head [`head`]
    /// read: `open`, `colon` and `close` are offsets into the bytes read,
    /// those of the comment are from `at`.
    #[inline(always)]
    fn new(
        at: usize,
        [open, colon, close, brace]: [usize; 4],
        attempts: u32,
    ) -> Option<KComment> {
        // Offsets fit: the comment is shorter than 4 GiB.
        u32::try_from(brace + 1 - at).ok()?;
        let offset = |i: usize| (i - at) as u32;
        Some(KComment {
            open: offset(open),
            colon: offset(colon),
            close: offset(close),
            attempts,
        })
    }

    /// The Kriegspiel comment `{(...)...}` that starts at `bytes[at]`, its
    /// `(` at `bytes[open]` (after `{` and spaces), in its usual shape (no
    /// white space inside the parentheses): the
    /// offset just after its `}`, and the comment, whose offsets are from
    /// `at`. `None` for anything else, and for a comment not closed in
    /// `bytes`: [`parse`] reads those once their `}` is found. Read where
    /// it lies, without first looking for the `}`, which no part of the
    /// head can be.
    #[inline(always)]
    pub(super) fn at(
        bytes: &[u8],
        at: usize,
        open: usize,
        side: Option<Side>,
    ) -> Option<(usize, KComment)> {
        let (colon, close, attempts) = head::<false>(bytes, open, side)?;
        // Looked for (with `{`, an error before it) in the 64 bytes after
        // `)` even when `}` follows it: whether free text comes first is
        // as likely as not, a test of `)}` a branch the processor cannot
        // foresee.
        let brace = close + 1 + super::lex::brace_near(&bytes[close + 1..])?;
        if bytes[brace] == b'{' {
            // An error, which the slower reading tells.
            return None;
        }
        let k = KComment::new(at, [open, colon, close, brace], attempts)?;
        Some((brace + 1, k))
    }
}

/// The head `(<response>:<illegal>)` at `bytes[open]`, `(`, in one pass:
/// where its `:` and `)` are, and the number of attempts listed (or
/// [`COUNT`]); `None` for a shape [`fast`] does not read. A byte past
/// the end of `bytes` reads as 0, which stops every loop, as a `}` does.
#[inline(always)]
fn head<const SPACED: bool>(
    bytes: &[u8],
    open: usize,
    side: Option<Side>,
) -> Option<(usize, usize, u32)> {
    let c = |i: usize| bytes.get(i).copied().unwrap_or(0);
    if c(open) != b'(' {
        return None;
    }
    let spaces = |mut i: usize| {
        while SPACED && c(i) == b' ' {
            i += 1;
        }
        i
    };
    let mut i = spaces(open + 1);
    if c(i) != b':' {
        loop {
            match c(i) {
                b'X' if matches!(c(i + 1), b'a'..=b'h')
                    && matches!(c(i + 2), b'1'..=b'8') =>
                {
                    i += 3
                }
                b'C' if matches!(
                    c(i + 1),
                    b'F' | b'R' | b'L' | b'S' | b'N'
                ) =>
                {
                    i += 2
                }
                _ => return None,
            }
            i = spaces(i);
            match c(i) {
                b',' => i = spaces(i + 1),
                b':' => break,
                _ => return None,
            }
        }
    }
    let colon = i;
    i = spaces(i + 1);
    let attempts = if c(i) == b')' {
        0
    } else if c(i).is_ascii_digit() && c(i + 1) != b'-' {
        while c(i).is_ascii_digit() {
            i += 1;
        }
        i = spaces(i);
        COUNT
    } else {
        let mut n = 0;
        loop {
            i = san::scan_attempt(bytes, i, side).ok()?;
            n += 1;
            i = spaces(i);
            if c(i) != b',' {
                break n;
            }
            i = spaces(i + 1);
        }
    };
    (c(i) == b')').then_some((colon, i, attempts))
}

/// [`parse`] for every shape, by parts.
#[cold]
#[inline(never)]
fn slow(c: &[u8], side: Option<Side>) -> Comment {
    match parse_by_parts(c, side) {
        None => Comment::Plain,
        Some(Ok(k)) => Comment::Kriegspiel(k),
        Some(Err(_)) => Comment::Bad,
    }
}

/// What is wrong with the comment `c`, for which [`parse`] gave
/// [`Comment::Bad`], and where in `c`: the announcement or attempt at
/// fault (so that a comment across lines is reported at the line of what
/// is wrong), else its `(`.
#[cold]
pub fn error(c: &[u8], side: Option<Side>) -> (usize, String) {
    match parse_by_parts(c, side) {
        Some(Err(fault)) => fault,
        _ => (0, "malformed kriegspiel comment".into()),
    }
}

/// Reads `c` by its parts, for any white space: `None` if it is not a
/// Kriegspiel comment, else the comment or what is wrong with it.
fn parse_by_parts(
    c: &[u8],
    side: Option<Side>,
) -> Option<Result<KComment, (usize, String)>> {
    let end = c.len() - 1;
    let mut open = 1;
    while open < end && space_at(c, open) > 0 {
        open += space_at(c, open);
    }
    // Other Unicode white space and invisible characters before a `(`
    // leave a comment that reads as a Kriegspiel comment to a person: a
    // fault, not free text (which would keep its attempts in clear with
    // --keep-comments). Those [`odd_space`] knows, whatever follows the
    // `(`; any other character that is not ASCII (no list of what a
    // terminal shows as nothing is complete), when a well-formed head
    // follows it: `{— (see round 3)}` stays free text.
    let (mut after, mut other) = (open, false);
    while after < end {
        match (odd_space(&c[after..end]), space_at(c, after), c[after]) {
            (0, 0, 0x21..=0x7E) => break,
            (0, 0, _) => (after, other) = (after + 1, true),
            (0, n, _) | (n, _, _) => after += n,
        }
    }
    if after > open
        && c[after] == b'('
        && (!other || by_parts(c, after, end, side).is_ok())
    {
        let message = "unusual white space or an invisible character \
                       before the '(' of a kriegspiel comment";
        return Some(Err((open, message.into())));
    }
    (c[open] == b'(').then(|| by_parts(c, open, end, side))
}

/// The length of the Unicode white space, invisible (format, default
/// ignorable) or control character that `s` starts with, other than
/// those [`space_at`] knows; 0 if none: the C0 controls but white space,
/// DEL, the C1 controls but U+0085, U+00AD, U+034F, U+061C, U+115F,
/// U+1160, U+1680, U+17B4, U+17B5, U+180B to U+180F, U+2000 to U+200F,
/// U+2029 to U+202F, U+205F to U+206F, U+2800, U+3000, U+3164, U+FE00 to
/// U+FE0F, U+FEFF, U+FFA0, U+FFF0 to U+FFFB, U+1BCA0 to U+1BCA3, U+1D173
/// to U+1D17A and U+E0000 to U+E0FFF; the combining marks (U+0300 to
/// U+036F, U+1AB0 to U+1AFF, U+1DC0 to U+1DFF, U+20D0 to U+20FF, U+FE20
/// to U+FE2F), which a terminal puts on the `{`; and an ANSI control
/// sequence (ESC `[`, a colour or a cursor move). A terminal shows none
/// of them (or only as blank, or as a mark on the brace), so a comment
/// that starts with them and then `(` reads as a Kriegspiel comment to a
/// person.
fn odd_space(s: &[u8]) -> usize {
    match s {
        [0x1B, b'[', rest @ ..] => {
            let params =
                rest.iter().take_while(|b| (0x20..=0x3F).contains(*b)).count();
            match rest.get(params) {
                Some(0x40..=0x7E) => 3 + params,
                _ => 1,
            }
        }
        [0xC2, 0xAD, ..] => 2,
        [0xCC, 0x80..=0xBF, ..] | [0xCD, 0x80..=0xAF, ..] => 2,
        [0xD8, 0x9C, ..] => 2,
        [0xE1, 0xAA, 0xB0..=0xBF, ..] | [0xE1, 0xAB, 0x80..=0xBF, ..] => 3,
        [0xE1, 0xB7, 0x80..=0xBF, ..] | [0xE2, 0x83, 0x90..=0xBF, ..] => 3,
        [0xEF, 0xB8, 0xA0..=0xAF, ..] | [0xEF, 0xBF, 0xB0..=0xBB, ..] => 3,
        [0xE1, 0x85, 0x9F | 0xA0, ..] | [0xE1, 0x9E, 0xB4 | 0xB5, ..] => 3,
        [0xE1, 0x9A, 0x80, ..] | [0xE1, 0xA0, 0x8B..=0x8F, ..] => 3,
        [0xE2, 0x80, 0x80..=0x8F | 0xA9..=0xAF, ..] => 3,
        [0xE2, 0x81, 0x9F..=0xAF, ..] | [0xE2, 0xA0, 0x80, ..] => 3,
        [0xE3, 0x80, 0x80, ..] | [0xE3, 0x85, 0xA4, ..] => 3,
        [0xEF, 0xB8, 0x80..=0x8F, ..] | [0xEF, 0xBB, 0xBF, ..] => 3,
        [0xEF, 0xBE, 0xA0, ..] => 3,
        [0xF0, 0x9B, 0xB2, 0xA0..=0xA3, ..] => 4,
        [0xF0, 0x9D, 0x85, 0xB3..=0xBA, ..] => 4,
        [0xF3, 0xA0, 0x80..=0xBF, 0x80..=0xBF, ..] => 4,
        _ => control_at(s),
    }
}

/// The length of the control character that `s` starts with, 0 if none:
/// a C0 control but tab, the line ends, VT and FF; DEL; a C1 control but
/// U+0085. A terminal does not show it as it reads (it may move the
/// cursor, erase, or start a sequence of its own).
pub(super) fn control_at(s: &[u8]) -> usize {
    match s {
        [0x00..=0x08 | 0x0E..=0x1F | 0x7F, ..] => 1,
        [0xC2, 0x80..=0x84 | 0x86..=0x9F, ..] => 2,
        _ => 0,
    }
}

fn by_parts(
    c: &[u8],
    open: usize,
    end: usize,
    side: Option<Side>,
) -> Result<KComment, (usize, String)> {
    let shown = |s: &[u8]| crate::diag::shown(s, 24);
    // Where `part`, a slice of `c`, starts in it.
    let at = |part: &[u8]| part.as_ptr() as usize - c.as_ptr() as usize;
    let whole = |message: &str| (open, message.to_string());
    let close = super::lex::find(b')', &c[open..end])
        .map(|i| open + i)
        .ok_or_else(|| whole("kriegspiel comment without ')'"))?;
    let colon = super::lex::find(b':', &c[open..close])
        .map(|i| open + i)
        .ok_or_else(|| whole("kriegspiel comment without ':'"))?;
    for code in items(&c[open + 1..colon]) {
        let ok = match code {
            [b'X', b'a'..=b'h', b'1'..=b'8'] => true,
            [b'C', d] => matches!(d, b'F' | b'R' | b'L' | b'S' | b'N'),
            _ => false,
        };
        if !ok {
            let message =
                format!("unknown referee announcement '{}'", shown(code));
            return Err((at(code), message));
        }
    }
    let list = trim(&c[colon + 1..close]);
    let attempts = if !list.is_empty() && list.iter().all(u8::is_ascii_digit) {
        COUNT
    } else {
        let mut n = 0;
        for item in items(list) {
            if !san::is_attempt(item, side) {
                let what = if item.is_empty() {
                    "empty"
                } else {
                    "not Kriegspiel SAN"
                };
                let message =
                    format!("illegal attempt '{}' is {what}", shown(item));
                return Err((at(item), message));
            }
            n += 1;
        }
        n
    };
    let u = |n: usize| u32::try_from(n).map_err(|_| whole("comment too long"));
    Ok(KComment {
        open: u(open)?,
        colon: u(colon)?,
        close: u(close)?,
        attempts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parts of `c` as text: response, illegal, listed, text, trail.
    fn parts(c: &str) -> (&str, &str, Option<usize>, &str, &str) {
        let Comment::Kriegspiel(k) = parse(c.as_bytes(), None) else {
            panic!("{c}: not a kriegspiel comment");
        };
        // The slow reader reads it the same.
        assert_eq!(parse_by_parts(c.as_bytes(), None), Some(Ok(k)), "{c}");
        let end = c.len() - 1;
        (
            &c[k.response()],
            &c[k.illegal()],
            k.listed(),
            &c[k.text(c.as_bytes())],
            &c[k.trail(c.as_bytes())..end],
        )
    }

    #[test]
    fn the_seed_examples() {
        assert_eq!(parts("{(:)}"), ("", "", Some(0), "", ""));
        assert_eq!(parts("{(Xe5:e7)}"), ("Xe5", "e7", Some(1), "", ""));
        assert_eq!(
            parts("{(Xe7,CF:dxe3,dxc3)}"),
            ("Xe7,CF", "dxe3,dxc3", Some(2), "", "")
        );
        assert_eq!(parts("{(Xh5:2)}"), ("Xh5", "2", None, "", ""));
        assert_eq!(parts("{(:0)}"), ("", "0", None, "", ""));
        assert_eq!(parts("{ (:) }"), ("", "", Some(0), "", " "));
        assert_eq!(
            parts("{ ( Xe5 , CS : Nc3 , O-O ) text }"),
            (" Xe5 , CS ", " Nc3 , O-O ", Some(2), " text", " ")
        );
    }

    #[test]
    fn line_ends_inside_and_free_text() {
        let c = "{ (Xe5 , CS :\r\n Nc3 ,Qh5\u{85}) a long\nnote \u{a0}}";
        let (r, i, n, t, tr) = parts(c);
        assert_eq!((r, n), ("Xe5 , CS ", Some(2)));
        assert_eq!(i, "\r\n Nc3 ,Qh5\u{85}");
        assert_eq!((t, tr), (" a long\nnote", " \u{a0}"));
        let Comment::Kriegspiel(k) = parse(c.as_bytes(), None) else {
            panic!()
        };
        let a: Vec<&[u8]> = k.attempts(c.as_bytes()).collect();
        assert_eq!(a, [&b"Nc3"[..], b"Qh5"]);
        let r: Vec<&[u8]> = k.announcements(c.as_bytes()).collect();
        assert_eq!(r, [&b"Xe5"[..], b"CS"]);
    }

    #[test]
    fn the_reader_without_spaces_agrees_or_gives_up() {
        let comments = [
            "{(:)}",
            "{(Xe5:e7)}",
            "{(Xe7,CF:dxe3,dxc3)}",
            "{(Xh5:2)}",
            "{ (:) }",
            "{( Xe5:)}",
            "{(Xe5 :)}",
            "{(Xe5, CF:)}",
            "{(: e4)}",
            "{(:e4 )}",
            "{(:e4, d4)}",
            "{(:12 )}",
            "{(CS:Nc3,O-O) text }",
            "{ ( Xe5 , CS : Nc3 , O-O ) text }",
            "{(:e8)}",
            "{(: 1-0)}",
        ];
        for c in comments {
            let b = c.as_bytes();
            let open = b.iter().position(|&x| x == b'(').unwrap();
            for side in [None, Some(Side::White), Some(Side::Black)] {
                let spaced = fast::<true>(b, open, side);
                let tight = fast::<false>(b, open, side);
                assert!(tight.is_none() || tight == spaced, "{c}");
                assert_eq!(
                    tight.is_some(),
                    spaced.is_some()
                        && !c[open..].split(')').next().unwrap().contains(' '),
                    "{c}"
                );
            }
        }
    }

    /// Pieces of comments, good and bad, that the reader must read alike
    /// in place and once its `}` is found.
    const PIECES: &[&str] = &[
        "{", "(", ")", "}", ":", ",", " ", "\n", "\u{a0}", "X", "Xe5", "Xz9",
        "CF", "CS", "CQ", "e4", "e8", "e1=Q", "exd5", "Nbd7", "O-O", "Qf7+",
        "2", "12", "1-0", "draw?", " text", "}x", "{(", "(:", ":)", ")}",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(
            4000
        ))]

        /// [`KComment::at`], which reads a comment where it lies without
        /// its `}` first, gives what [`parse`] gives once the `}` is found,
        /// or nothing: never another reading, and nothing only where the
        /// comment has a space inside its parentheses, has no `}` in the
        /// bytes, has a `{` inside (an error the reader tells), or is no
        /// Kriegspiel comment of the usual shape.
        #[test]
        fn read_in_place_as_parse_reads(
            parts in proptest::collection::vec(
                proptest::sample::select(PIECES), 0..12),
            side in proptest::sample::select(
                &[None, Some(Side::White), Some(Side::Black)][..]),
        ) {
            let text = format!("{{({}", parts.concat());
            let b = text.as_bytes();
            let open = b[1..].iter().position(|&x| x != b' ').map_or(1, |i| i + 1);
            let at = KComment::at(b, 0, open, side);
            let Some(brace) = b.iter().position(|&x| x == b'}') else {
                proptest::prop_assert!(at.is_none());
                return Ok(());
            };
            let c = &b[..=brace];
            match (at, parse(c, side)) {
                (Some((next, k)), Comment::Kriegspiel(p)) => {
                    proptest::prop_assert_eq!(next, brace + 1);
                    proptest::prop_assert_eq!(k, p);
                }
                (Some(_), other) => {
                    proptest::prop_assert!(false, "{:?} for {}", other, text)
                }
                (None, Comment::Kriegspiel(p)) => {
                    // Only the readers of white space read it, and the
                    // reader's look for a `{` inside.
                    let head = &c[..p.illegal().end];
                    let space = |&x: &u8| matches!(x, b' ' | b'\n' | 0xA0);
                    let nested = c[1..].contains(&b'{');
                    proptest::prop_assert!(
                        head.iter().any(space) || nested,
                        "{}",
                        text
                    );
                }
                (None, _) => {}
            }
        }
    }

    #[test]
    fn not_kriegspiel_comments() {
        for c in ["{}", "{ }", "{text (x:y)}", "{\n}", "{\u{a0}x}"] {
            assert_eq!(parse(c.as_bytes(), None), Comment::Plain, "{c}");
        }
    }

    #[test]
    fn broken_kriegspiel_comments() {
        let error = |c: &str| {
            assert_eq!(parse(c.as_bytes(), None), Comment::Bad, "{c}");
            error(c.as_bytes(), None).1
        };
        assert_eq!(error("{(Xe5}"), "kriegspiel comment without ')'");
        assert_eq!(error("{(Xe5)}"), "kriegspiel comment without ':'");
        assert_eq!(error("{(Xz9:)}"), "unknown referee announcement 'Xz9'");
        assert_eq!(error("{\n(CQ:)}"), "unknown referee announcement 'CQ'");
        assert_eq!(error("{(Xe5,:)}"), "unknown referee announcement ''");
        assert_eq!(error("{(:Nc3,,e4)}"), "illegal attempt '' is empty");
        assert_eq!(
            error("{(:draw?)}"),
            "illegal attempt 'draw?' is not Kriegspiel SAN"
        );
        assert_eq!(
            error("{(:Qf7+)}"),
            "illegal attempt 'Qf7+' is not Kriegspiel SAN"
        );
        assert_eq!(
            error("{(:2,3)}"),
            "illegal attempt '2' is not Kriegspiel SAN"
        );
        assert_eq!(
            error("{(:2 3)}"),
            "illegal attempt '2 3' is not Kriegspiel SAN"
        );
        // Where: the item at fault, else the `(`.
        let at = |c: &str| super::error(c.as_bytes(), None).0;
        assert_eq!(at("{(:Nc3,\n  draw?)}"), 10);
        assert_eq!(at("{(Xe5,\r\nCQ:)}"), 8);
        assert_eq!(at("{(:Nc3,,e4)}"), 7);
        assert_eq!(at("{ (Xe5 }"), 2);
        // A promotion is needed on the mover's last rank.
        assert_eq!(parse(b"{(:e8)}", Some(Side::White)), Comment::Bad);
        assert!(matches!(
            parse(b"{(:e8)}", Some(Side::Black)),
            Comment::Kriegspiel(_)
        ));
    }
}
