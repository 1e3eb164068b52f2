//! The bytes of PGN: white space, symbol characters, tag pairs, and the
//! lines where a game certainly starts.

use std::ops::Range;

use memchr::memchr;

use crate::lines::{mask64, short_search, LineEnd};

/// What each byte is to the tokenizer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Class {
    /// Anything not below: a byte that starts no token.
    Other,
    /// Space, tab, VT, FF (U+00A0 is found by [`space_at`]).
    Space,
    /// `A-Z a-z _ + # = : / -`: moves (symbol characters but digits).
    Symbol,
    /// `0-9`: move numbers, termination markers, castling with zeros.
    Digit,
    /// `{`
    Brace,
    /// `;`
    Semicolon,
    /// `(`
    Open,
    /// `)`
    Close,
    /// `$`
    Dollar,
    /// `!` or `?`
    Glyph,
    /// `*`
    Star,
    /// CR or LF (U+0085 and U+2028 are found among `Other`).
    LineEnd,
}

/// The class of every byte.
pub(super) const CLASS: [Class; 256] = {
    let mut t = [Class::Other; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = match c {
            b' ' | b'\t' | 0x0B | 0x0C => Class::Space,
            b'{' => Class::Brace,
            b';' => Class::Semicolon,
            b'(' => Class::Open,
            b')' => Class::Close,
            b'$' => Class::Dollar,
            b'!' | b'?' => Class::Glyph,
            b'*' => Class::Star,
            b'\r' | b'\n' => Class::LineEnd,
            b'0'..=b'9' => Class::Digit,
            b'_' | b'+' | b'#' | b'=' | b':' | b'/' | b'-' => Class::Symbol,
            _ if c.is_ascii_alphanumeric() => Class::Symbol,
            _ => Class::Other,
        };
        b += 1;
    }
    t
};

/// Whether `b` is a symbol character: `A-Z a-z 0-9 _ + # = : / -`.
#[inline(always)]
pub(super) fn is_symbol(b: u8) -> bool {
    matches!(CLASS[b as usize], Class::Symbol | Class::Digit)
}

/// The length of the white space at `buf[i..end]`, 0 if there is none:
/// space, tab, VT, FF, U+00A0 (bytes C2 A0), which the seed's own
/// examples indent with, or U+FEFF (EF BB BF): the BOM of a file that
/// `cat` put after another, which starts its first line.
#[inline(always)]
pub(super) fn space_at(buf: &[u8], i: usize, end: usize) -> usize {
    match buf[i] {
        b' ' | b'\t' | 0x0B | 0x0C => 1,
        0xC2 if i + 1 < end && buf[i + 1] == 0xA0 => 2,
        0xEF if i + 2 < end && buf[i + 1..i + 3] == [0xBB, 0xBF] => 3,
        _ => 0,
    }
}

/// The offset of the first byte of `buf[i..end]` that is not white space.
#[inline]
pub(super) fn skip_space(buf: &[u8], mut i: usize, end: usize) -> usize {
    while i < end {
        match space_at(buf, i, end) {
            0 => break,
            n => i += n,
        }
    }
    i
}

/// The offset of the first `needle` in `hay`. Comments are found with
/// it, most of them a few dozen bytes long: too short for memchr, whose
/// set-up costs more than the search, so the shared scanner's short
/// search first ([`short_search`]), memchr beyond.
#[inline]
pub(super) fn find(needle: u8, hay: &[u8]) -> Option<usize> {
    match short_search(hay, [needle], Some) {
        Ok(at) => Some(at),
        Err(n) => memchr(needle, &hay[n..]).map(|i| i + n),
    }
}

/// The first `{` or `}` in `hay`, most often found in its first 64 bytes
/// (the `}` after the head of a Kriegspiel comment, whose free text is a
/// few dozen bytes): those are searched as one block ([`mask64`]),
/// inline, and the rest by [`braces`], out of line. A `{` before the `}`
/// makes the comment an error (the reader's `close_comment` says which).
#[inline(always)]
pub(super) fn brace_near(hay: &[u8]) -> Option<usize> {
    let Some(block) = hay.first_chunk::<64>() else {
        return braces_from(hay, 0);
    };
    match mask64(block, [b'{', b'}']) {
        0 => braces_from(hay, 64),
        mask => Some(mask.trailing_zeros() as usize),
    }
}

/// [`braces`] in `hay` from `from` on, as an offset into `hay`.
#[inline(never)]
fn braces_from(hay: &[u8], from: usize) -> Option<usize> {
    braces(&hay[from..]).map(|i| from + i)
}

/// The first `{` or `}` in `hay`: where a comment that starts before it
/// ends, or the `{` that makes it an error.
#[inline]
pub(super) fn braces(hay: &[u8]) -> Option<usize> {
    find2(b'{', b'}', hay)
}

/// The offset of the first `a` or `b` in `hay`: [`find`] for two bytes.
#[inline]
fn find2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    match short_search(hay, [a, b], Some) {
        Ok(at) => Some(at),
        Err(n) => memchr::memchr2(a, b, &hay[n..]).map(|i| i + n),
    }
}

/// The bytes of a tag name: `A-Z a-z 0-9 _`.
const NAME: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    t
};

/// Where the tag name ([`NAME`] bytes) that starts at `line[j]` ends,
/// not past `end`: 16 bytes at a time with SSE2 where 16 are left (a
/// name is a few bytes long: one look at them, most often), else one at
/// a time.
#[inline(always)]
fn name_end(line: &[u8], mut j: usize, end: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    if let Some(chunk) = line.get(j..).and_then(<[u8]>::first_chunk::<16>) {
        use std::arch::x86_64::{
            _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_loadu_si128,
            _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of x86-64, and the load reads the 16 bytes
        // of `chunk`, unaligned loads being allowed.
        let name = unsafe {
            let b = _mm_loadu_si128(chunk.as_ptr().cast());
            // Signed comparisons: bytes from 0x80 on, negative, are no
            // digits and no letters.
            let within = |v, lo: u8, hi: u8| {
                _mm_and_si128(
                    _mm_cmpgt_epi8(v, _mm_set1_epi8(lo as i8 - 1)),
                    _mm_cmpgt_epi8(_mm_set1_epi8(hi as i8 + 1), v),
                )
            };
            // Letters of either case as lower case.
            let lower = _mm_or_si128(b, _mm_set1_epi8(0x20));
            let alnum =
                _mm_or_si128(within(b, b'0', b'9'), within(lower, b'a', b'z'));
            let under = _mm_cmpeq_epi8(b, _mm_set1_epi8(b'_' as i8));
            _mm_movemask_epi8(_mm_or_si128(alnum, under)) as u32
        };
        let n = (!name).trailing_zeros() as usize;
        if n < 16 {
            return (j + n).min(end);
        }
        j += 16;
    }
    while j < end && NAME[line[j] as usize] {
        j += 1;
    }
    j.min(end)
}

/// A tag pair, `[Name "value"]`, as spans into the line that holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Tag {
    /// The name.
    pub name: Range<usize>,
    /// The value between the quotes, escapes left as written.
    pub value: Range<usize>,
}

/// The tag pairs of `line` (from `i` on), each handed to `each`; false if
/// the line is not only tag pairs and white space.
pub(super) fn tag_pairs(
    line: &[u8],
    i: usize,
    mut each: impl FnMut(Tag),
) -> bool {
    let end = line.len();
    let mut i = skip_space(line, i, end);
    while i < end {
        let Some((tag, next)) = tag_pair(line, i, end) else {
            return false;
        };
        each(tag);
        i = skip_space(line, next, end);
    }
    true
}

/// One `[Name "value"]` at `line[i]`, in the line that ends at `end`
/// (`line` may hold more bytes after it, which are not read as part of
/// it), and the offset after its `]`.
pub(super) fn tag_pair(
    line: &[u8],
    i: usize,
    end: usize,
) -> Option<(Tag, usize)> {
    if i >= end || line[i] != b'[' {
        return None;
    }
    let name_start = skip_space(line, i + 1, end);
    let mut j = name_end(line, name_start, end);
    let name = name_start..j;
    j = skip_space(line, j, end);
    if name.is_empty() || j >= end || line[j] != b'"' {
        return None;
    }
    let value_start = j + 1;
    j = value_start;
    // To the closing `"`, past `\\` and the byte it escapes, 16 bytes at
    // a time (a value is a few bytes long, too short for memchr), over
    // the bytes after the line too: one found there is not in the line.
    loop {
        if j >= end {
            return None;
        }
        j += find2(b'"', b'\\', &line[j..])?;
        if j >= end {
            return None;
        }
        if line[j] == b'"' {
            break;
        }
        j += 2;
    }
    let value = value_start..j;
    j = skip_space(line, j + 1, end);
    if j >= end || line[j] != b']' {
        return None;
    }
    Some((Tag { name, value }, j + 1))
}

/// The first line at or after `from` (a line start), up to `upto`, whose
/// first byte that is not white space is `[`: such a line ends a game's
/// movetext (and, if it is tag pairs, even an open comment).
pub(super) fn bracket_line(
    input: &[u8],
    from: usize,
    upto: usize,
) -> Option<usize> {
    let mut at = from;
    while let Some(j) = memchr(b'[', &input[at..upto]) {
        let bracket = at + j;
        at = bracket + 1;
        // Back over the blanks to the line start.
        let mut start = bracket;
        loop {
            if start > from
                && matches!(input[start - 1], b' ' | b'\t' | 0x0B | 0x0C)
            {
                start -= 1;
            } else if start >= from + 2
                && input[start - 2..start] == [0xC2, 0xA0]
            {
                start -= 2;
            } else if start >= from + 3
                && input[start - 3..start] == [0xEF, 0xBB, 0xBF]
            {
                start -= 3;
            } else {
                break;
            }
        }
        if start == from || ends_line(input, start - 1) {
            return Some(start);
        }
    }
    None
}

/// Whether the byte at `i` is the last byte of a line end.
#[inline]
pub(super) fn ends_line(input: &[u8], i: usize) -> bool {
    match input[i] {
        b'\n' | b'\r' => true,
        0x85 => i >= 1 && input[i - 1] == 0xC2,
        0xA8 => i >= 2 && input[i - 2..i] == [0xE2, 0x80],
        _ => false,
    }
}

/// The line end that `bytes` ends in if it is one that only Unicode
/// knows (U+0085 or U+2028), where PGN readers that end lines at LF and
/// CR alone go on in the same line: its name.
pub(super) fn unicode_line_end(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [.., 0xC2, 0x85] => Some("U+0085"),
        [.., 0xE2, 0x80, 0xA8] => Some("U+2028"),
        _ => None,
    }
}

/// Where the line that `bytes` ends in starts: just after its last line
/// end, or at `floor` if there is none after it.
pub(super) fn line_start(bytes: &[u8], floor: usize) -> usize {
    (floor..bytes.len())
        .rev()
        .find(|&i| ends_line(bytes, i))
        .map_or(floor, |i| i + 1)
}

/// Whether `line` (one line, without its line end) is an escape line or
/// holds a `;` comment: a `;` outside the `{...}` comments that open in
/// it. Read as if no comment were open at its start, so a `;` in the
/// rest of one counts too.
pub(super) fn holds_line_comment(line: &[u8]) -> bool {
    if is_escape_line(line) {
        return true;
    }
    let mut brace = false;
    for &b in line {
        match b {
            b'{' => brace = true,
            b'}' => brace = false,
            b';' if !brace => return true,
            _ => {}
        }
    }
    false
}

/// Whether the line `line`, outside games, is an escape line: `%` in its
/// first column, or after a BOM that starts it (the start of a file that
/// `cat` put after another, which a game's first line leaves out too).
pub(super) fn is_escape_line(line: &[u8]) -> bool {
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line).first() == Some(&b'%')
}

/// Whether the first byte of `line` that is not white space is `[`.
pub(super) fn starts_with_bracket(line: &[u8]) -> bool {
    line.get(skip_space(line, 0, line.len())) == Some(&b'[')
}

/// Reads on, in `text` (one line or the end of one), in a comment that is
/// read to the `}` that balances its `{` (one that holds a `{`, or that a
/// line of tag pairs cut), `depth` of them open: where that `}` ends, or
/// the depth at the end of `text`. On a line that starts with `[`
/// (`bracket`) a `}` closes nothing, for such a line in a comment is
/// quoted PGN (`[Event "q"]}` must not end it) while its `{` still
/// counts: whatever may make the comment longer counts, nothing that is
/// not sure ends it early.
pub(super) fn balance(
    text: &[u8],
    mut depth: u32,
    bracket: bool,
) -> Result<usize, u32> {
    for j in memchr::memchr2_iter(b'{', b'}', text) {
        if text[j] == b'{' {
            depth = depth.saturating_add(1);
        } else if !bracket {
            depth -= 1;
            if depth == 0 {
                return Ok(j + 1);
            }
        }
    }
    Err(depth)
}

/// Whether `line` is a line of tag pairs: its first byte that is not
/// white space is `[`, and it parses as tag pairs.
pub(super) fn is_tag_line(line: &[u8]) -> bool {
    let first = skip_space(line, 0, line.len());
    line.get(first) == Some(&b'[') && tag_pairs(line, first, |_| ())
}

/// Where a game starts for certain, told from the lines just before it:
/// for reading an input in parts (on several threads), each part read as
/// the whole input would be.
///
/// A line of tag pairs starts a game if the nearest line before it that
/// is not blank is neither an escape line (`%` first) nor a line whose
/// first byte that is not white space is `[`. Why, from the rules of
/// [`Filter`](super::Filter): after such a line the reader is in a
/// game's movetext, after a game, or in text outside games, and in each a
/// line of tag pairs starts a game, in an open comment or not; blank
/// lines change none of that. The game it starts is read from a fresh
/// state, as a reader that starts at that line reads it. After a `%` or
/// `[` line the reader may be in a tag section, which the line would
/// continue; so it may after a line in which a `[` follows a `}` (a game
/// starts at that `[` after a comment outside games: found by the kpgn
/// fuzz target, `{x` and `}[` then `[t""]`).
#[derive(Debug, Default)]
pub struct Cuts {
    /// The nearest line that was not blank allows a cut after it.
    after_movetext: bool,
}

impl Cuts {
    /// Whether the line `line` (without its line end, which is `end`)
    /// certainly starts a game, the lines given since the last `true`
    /// being the lines just before it (as a reader that cuts an input
    /// into batches gives them).
    pub fn starts_game(&mut self, line: &[u8], end: LineEnd) -> bool {
        let unicode = end.is_unicode();
        let first = skip_space(line, 0, line.len());
        if first == line.len() {
            // Nor after U+0085 or U+2028 (see below).
            self.after_movetext &= !unicode;
            return false;
        }
        let after_movetext = std::mem::take(&mut self.after_movetext);
        if line[first] == b'[' {
            return after_movetext && is_tag_line(line);
        }
        // A `[` after a `}` may start a game there, outside games after a
        // comment, whose tag section the next line goes on with.
        let bracket_after_brace = memchr(b'}', line)
            .is_some_and(|j| memchr(b'[', &line[j..]).is_some());
        // Nor after a line that U+0085 or U+2028 ends: where it holds a
        // `;` comment, or follows one, PGN readers that end lines at LF and
        // CR alone read on in that comment, and a game that starts there
        // fails, which the reader of the lines before it must see
        // ([`super::read::Reader`]).
        self.after_movetext =
            !is_escape_line(line) && !bracket_after_brace && !unicode;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_values_end_at_the_first_unescaped_quote() {
        let value = |line: &str| {
            let mut got = vec![];
            let ok = tag_pairs(line.as_bytes(), 0, |t| {
                got.push((line[t.name].to_string(), line[t.value].to_string()))
            });
            ok.then_some(got)
        };
        let pair = |n: &str, v: &str| (n.to_string(), v.to_string());
        assert_eq!(value(r#"[Event "a"]"#), Some(vec![pair("Event", "a")]));
        assert_eq!(
            value(r#" [ White  "say \"hi\" \\" ] [Black ""]  "#),
            Some(vec![pair("White", r#"say \"hi\" \\"#), pair("Black", "")])
        );
        for bad in [
            r#"[Event "a""#,
            r#"[Event a]"#,
            r#"[ "a"]"#,
            r#"[Event "a"] x"#,
            r#"[Event "a\"]"#,
            "[Event \"a\"",
        ] {
            assert_eq!(value(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_tag_pair_ends_in_its_line() {
        for (text, line) in [
            ("[Event \"a]\n\"]", 10),
            ("[Event \"a\\\n\"]", 10),
            ("[Event \"a\"\n]", 10),
            ("[Event \n\"a\"]", 7),
            ("[Event\n", 6),
            ("[\n", 1),
        ] {
            let t = text.as_bytes();
            assert_eq!(&t[line..=line], b"\n", "{text}");
            assert_eq!(tag_pair(t, 0, line), None, "{text}");
            assert_eq!(tag_pair(&t[..line], 0, line), None, "{text}");
        }
        let t = b"[Event \"a\\\"b\"] [x \"\"]\n[";
        let (tag, next) = tag_pair(t, 0, 21).unwrap();
        assert_eq!(
            (&t[tag.name], &t[tag.value], next),
            (&b"Event"[..], &br#"a\"b"#[..], 14)
        );
    }

    #[test]
    fn a_cut_needs_movetext_before_a_tag_line() {
        let cuts = |lines: &[&str]| {
            let mut c = Cuts::default();
            lines
                .iter()
                .map(|l| c.starts_game(l.as_bytes(), LineEnd::Lf))
                .collect::<Vec<_>>()
        };
        let t = "[Event \"x\"]";
        assert_eq!(cuts(&[t, "", t]), [false, false, false]);
        assert_eq!(
            cuts(&["1. e4 *", "", "  ", t]),
            [false, false, false, true]
        );
        assert_eq!(cuts(&["{c}", t]), [false, true]);
        assert_eq!(cuts(&["1. e4", "%x", t]), [false, false, false]);
        assert_eq!(cuts(&["1. e4", "[x] no tag", t]), [false, false, false]);
        assert_eq!(cuts(&["1. e4", " %x", t]), [false, false, true]);
        // A game may start at a `[` after a comment outside games.
        assert_eq!(cuts(&["{x", "}[", t]), [false, false, false]);
        assert_eq!(cuts(&["{x} {y}  [Event", t]), [false, false]);
        assert_eq!(cuts(&["[a] 1. e4 {x} *", t]), [false, false]);
        assert_eq!(cuts(&["1. e4 {x} *", t]), [false, true]);
        // Nor after a line that U+0085 or U+2028 ends, blank or not: to a
        // reader that ends lines at LF and CR alone it goes on.
        let ended = |lines: &[(&str, LineEnd)]| {
            let mut c = Cuts::default();
            let starts =
                lines.iter().map(|&(l, end)| c.starts_game(l.as_bytes(), end));
            starts.collect::<Vec<_>>()
        };
        use LineEnd::{Cr, CrLf, Lf, Ls, Nel};
        assert_eq!(ended(&[("1. e4 *", Ls), (t, Lf)]), [false, false]);
        assert_eq!(ended(&[("1. e4 *", Lf), ("", Nel), (t, Lf)]), [false; 3]);
        assert_eq!(
            ended(&[("1. e4 *", CrLf), ("", Cr), (t, Lf)]),
            [false, false, true]
        );
    }

    #[test]
    fn name_end_agrees_with_the_name_bytes() {
        // Every byte after names of 0 to 20 bytes, with and without 16
        // bytes after them, and an end before, at and after the name's.
        let names = b"aZ09_Event_WhiteElo_x";
        for len in 0..=20 {
            for b in 0..=255u8 {
                for tail in [1, 16, 30] {
                    let mut line = names[..len].to_vec();
                    line.push(b);
                    line.resize(len + tail, b'_');
                    for end in [len / 2, len, len + 1, line.len()] {
                        let mut want = 0;
                        while want < end && NAME[line[want] as usize] {
                            want += 1;
                        }
                        assert_eq!(name_end(&line, 0, end), want, "{line:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn find_agrees_with_position() {
        let hay: Vec<u8> = (0..200u8).map(|i| b'a' + i % 23).collect();
        for n in 0..hay.len() {
            for needle in [b'a', b'k', b'w', b'}'] {
                let want = hay[..n].iter().position(|&b| b == needle);
                assert_eq!(find(needle, &hay[..n]), want);
            }
        }
    }

    #[test]
    fn brace_near_agrees_with_position() {
        // One `}` or `{` at each offset, in and past the first block, then
        // the other one after it; and none.
        for n in [0, 1, 63, 64, 65, 130, 400] {
            for at in (0..n).chain([n]) {
                for (first, then) in [(b'}', b'{'), (b'{', b'}')] {
                    let mut hay = vec![b'x'; n];
                    if at < n {
                        hay[at] = first;
                        hay[(at + 1).min(n - 1)..].fill(then);
                    }
                    let want =
                        hay.iter().position(|&b| b == b'}' || b == b'{');
                    assert_eq!(brace_near(&hay), want, "{n} {at}");
                    assert_eq!(braces(&hay), want, "{n} {at}");
                }
            }
        }
    }
}
