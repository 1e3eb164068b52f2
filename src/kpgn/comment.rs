//! The Kriegspiel comment, `{(<response>:<illegal>) <text>}`.
//!
//! A `{...}` comment whose text starts with `(` (after white space) is a
//! Kriegspiel comment and must have this form (FORMATS.md, Kriegspiel PGN
//! point 4). `<response>` is the referee's announcements, comma-separated,
//! possibly none: `X<square>` a capture there, `C<d>` a check along a file
//! (`F`), rank (`R`), long or short diagonal (`L`, `S`) or by a knight
//! (`N`). `<illegal>` is the illegal attempts in Kriegspiel SAN,
//! comma-separated, or, in a filtered record, their number.

use std::ops::Range;

use super::token;

/// The illegal attempts of a move, as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// A list of this many attempts (unfiltered).
    Attempts(usize),
    /// A decimal count (filtered).
    Count,
}

/// The parts of a Kriegspiel comment, as spans into the comment's bytes
/// (braces included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KComment {
    /// White space between `{` and `(`.
    pub lead: Range<usize>,
    /// The announcements between `(` and `:`.
    pub response: Range<usize>,
    /// The illegal attempts (or their count) between `:` and `)`.
    pub illegal: Range<usize>,
    /// What `illegal` holds.
    pub attempts: Illegal,
    /// The free text after `)`, without the white space before `}`.
    pub text: Range<usize>,
    /// The white space before `}`.
    pub trail: Range<usize>,
}

/// White space inside a comment: PGN white space, U+00A0 and line ends.
fn space_at(c: &[u8], i: usize, end: usize) -> usize {
    match c[i] {
        b'\r' | b'\n' => 1,
        _ => token::space_at(c, i, end),
    }
}

fn trim(c: &[u8], mut r: Range<usize>) -> Range<usize> {
    while r.start < r.end && c[r.start] == b' ' {
        r.start += 1;
    }
    while r.end > r.start && c[r.end - 1] == b' ' {
        r.end -= 1;
    }
    r
}

/// Parses the comment `c` (`{...}`, braces included). `None` if it is not
/// a Kriegspiel comment (its text does not start with `(`).
///
/// # Errors
///
/// A message saying what is wrong with a comment that starts like a
/// Kriegspiel comment but does not have its form.
pub fn parse(c: &[u8]) -> Option<Result<KComment, String>> {
    let end = c.len() - 1;
    let mut open = 1;
    while open < end {
        match space_at(c, open, end) {
            0 => break,
            n => open += n,
        }
    }
    if c.get(open) != Some(&b'(') {
        return None;
    }
    Some(parse_from(c, open, end))
}

fn parse_from(c: &[u8], open: usize, end: usize) -> Result<KComment, String> {
    match parse_plain(c, open, end) {
        Some(k) => Ok(k),
        None => parse_slowly(c, open, end),
    }
}

/// One pass over a comment whose parentheses hold no spaces, the way
/// nearly every record writes them; `None` for anything else, which
/// [`parse_slowly`] then reads (and reports).
#[inline]
fn parse_plain(c: &[u8], open: usize, end: usize) -> Option<KComment> {
    let c = &c[..end];
    let mut i = open + 1;
    if *c.get(i)? != b':' {
        loop {
            i += match c[i..] {
                [b'X', f, n, ..]
                    if (b'a'..=b'h').contains(&f)
                        && (b'1'..=b'8').contains(&n) =>
                {
                    3
                }
                [b'C', b'F' | b'R' | b'L' | b'S' | b'N', ..] => 2,
                _ => return None,
            };
            match *c.get(i)? {
                b',' => i += 1,
                b':' => break,
                _ => return None,
            }
        }
    }
    let colon = i;
    let (mut n, mut after_comma, mut digits) = (1, true, true);
    loop {
        i += 1;
        match *c.get(i)? {
            b')' => break,
            b',' if !after_comma => {
                (n, after_comma, digits) = (n + 1, true, false);
            }
            b if SAN[b as usize] => {
                after_comma = false;
                digits &= b.is_ascii_digit();
            }
            _ => return None,
        }
    }
    let close = i;
    let attempts = match (close - colon, after_comma, digits) {
        (1, _, _) => Illegal::Attempts(0),
        (_, true, _) => return None,
        (_, false, true) => Illegal::Count,
        (_, false, false) => Illegal::Attempts(n),
    };
    let text_end = text_end(c, close, end);
    Some(KComment {
        lead: 1..open,
        response: open + 1..colon,
        illegal: colon + 1..close,
        attempts,
        text: close + 1..text_end,
        trail: text_end..end,
    })
}

/// [`parse`] for a comment in the shape nearly every record writes,
/// `{(` with no space between and no space inside the parentheses,
/// starting at `rest[0]` and closing within `rest`: the length of the
/// comment and its parts. `None` for anything else, which [`parse`]
/// then reads (and reports). It agrees with [`parse`] where it answers;
/// the tests check that.
///
/// This is the filter's fast path (one comment per move): it reads the
/// parentheses byte by byte once, where finding the `}` first and then
/// parsing would read them twice.
#[inline]
pub fn parse_usual(rest: &[u8]) -> Option<(usize, KComment)> {
    if rest.get(..2) != Some(b"{(") {
        return None;
    }
    let mut i = 2;
    if *rest.get(i)? != b':' {
        loop {
            i += match rest.get(i..i + 3)? {
                [b'X', f, n]
                    if SQUARE[*f as usize] & 1 != 0
                        && SQUARE[*n as usize] & 2 != 0 =>
                {
                    3
                }
                [b'C', b'F' | b'R' | b'L' | b'S' | b'N', _] => 2,
                _ => return None,
            };
            match *rest.get(i)? {
                b',' => i += 1,
                b':' => break,
                _ => return None,
            }
        }
    }
    let colon = i;
    let close = colon + 1 + token::find(b')', &rest[colon + 1..])?;
    // The list is checked without a branch per byte: which byte comes
    // next in a list of moves is anybody's guess, and a mispredicted
    // branch costs more than the few instructions that avoid it. Each
    // byte's class is a set of bits, so that one OR gathers what the
    // list holds and one AND with the class before finds two commas in
    // a row (or a comma first: the class before the list is COMMA).
    let (mut seen, mut pairs, mut before, mut commas) = (0, 0, COMMA, 0);
    for &b in &rest[colon + 1..close] {
        let class = ILLEGAL[b as usize];
        seen |= class;
        pairs |= class & before;
        before = class;
        commas += usize::from(class >> 2);
    }
    let bad = (seen & OTHER) | ((pairs | before) & COMMA) != 0;
    let attempts = match (close - colon, bad) {
        (1, _) => Illegal::Attempts(0),
        (_, true) => return None,
        _ if seen & LETTER == 0 && commas == 0 => Illegal::Count,
        _ => Illegal::Attempts(commas + 1),
    };
    let end = match rest.get(close + 1) {
        Some(b'}') => close + 1,
        _ => close + 1 + token::find(b'}', &rest[close + 1..])?,
    };
    let text_end = text_end(rest, close, end);
    let k = KComment {
        lead: 1..1,
        response: 2..colon,
        illegal: colon + 1..close,
        attempts,
        text: close + 1..text_end,
        trail: text_end..end,
    };
    Some((end + 1, k))
}

/// Bit 1: a file letter, `a-h`; bit 2: a rank digit, `1-8`.
static SQUARE: [u8; 256] = {
    let mut t = [0; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c >= b'a' && c <= b'h' {
            1
        } else if c >= b'1' && c <= b'8' {
            2
        } else {
            0
        };
        b += 1;
    }
    t
};

/// The classes of [`ILLEGAL`], one bit each (a digit has none).
const DIGIT: u8 = 0;
const OTHER: u8 = 1;
const LETTER: u8 = 2;
/// Must be the highest bit: [`parse_usual`] counts commas by shifting.
const COMMA: u8 = 4;

/// The bytes of the illegal attempts of [`parse_usual`]: the SAN bytes
/// split into digits and the rest, and `,`.
static ILLEGAL: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = if c.is_ascii_digit() {
            DIGIT
        } else if SAN[b] {
            LETTER
        } else if c == b',' {
            COMMA
        } else {
            OTHER
        };
        b += 1;
    }
    t
};

/// Where the free text after `)` at `close` ends: before the white space
/// that precedes `}` at `end`.
#[inline]
fn text_end(c: &[u8], close: usize, end: usize) -> usize {
    let mut text_end = end;
    while text_end > close + 1 {
        let i = text_end - 1;
        let nbsp = i > close + 1 && c[i - 1] == 0xC2 && c[i] == 0xA0;
        if nbsp {
            text_end -= 2;
        } else if matches!(c[i], b' ' | b'\t' | b'\r' | b'\n') {
            text_end -= 1;
        } else {
            break;
        }
    }
    text_end
}

/// [`parse_from`] for comments with spaces inside the parentheses, or
/// errors.
fn parse_slowly(
    c: &[u8],
    open: usize,
    end: usize,
) -> Result<KComment, String> {
    let close = token::find(b')', &c[open..end])
        .map(|i| open + i)
        .ok_or("kriegspiel comment without ')'")?;
    let colon = token::find(b':', &c[open..close])
        .map(|i| open + i)
        .ok_or("kriegspiel comment without ':'")?;
    let response = open + 1..colon;
    check_response(c, response.clone())?;
    let illegal = colon + 1..close;
    let attempts = count_attempts(c, illegal.clone())?;
    let text_end = text_end(c, close, end);
    Ok(KComment {
        lead: 1..open,
        response,
        illegal,
        attempts,
        text: close + 1..text_end,
        trail: text_end..end,
    })
}

/// Checks each announcement: `X` and a square, or `C` and a direction.
fn check_response(c: &[u8], response: Range<usize>) -> Result<(), String> {
    if plain_response(&c[response.clone()]) {
        return Ok(());
    }
    if trim(c, response.clone()).is_empty() {
        return Ok(());
    }
    for code in c[response].split(|&b| b == b',') {
        let code = &code[trim(code, 0..code.len())];
        let ok = match code {
            [b'X', f, r] => {
                (b'a'..=b'h').contains(f) && (b'1'..=b'8').contains(r)
            }
            [b'C', d] => matches!(d, b'F' | b'R' | b'L' | b'S' | b'N'),
            _ => false,
        };
        if !ok {
            let shown = String::from_utf8_lossy(code);
            return Err(format!("unknown referee announcement '{shown}'"));
        }
    }
    Ok(())
}

/// Whether `r` is valid announcements written without spaces, the way
/// nearly every record writes them: the fast path of [`check_response`].
fn plain_response(r: &[u8]) -> bool {
    let mut i = 0;
    while i < r.len() {
        let len = match r[i..] {
            [b'X', f, n, ..]
                if (b'a'..=b'h').contains(&f)
                    && (b'1'..=b'8').contains(&n) =>
            {
                3
            }
            [b'C', b'F' | b'R' | b'L' | b'S' | b'N', ..] => 2,
            _ => return false,
        };
        i += len;
        match r.get(i) {
            None => return true,
            Some(b',') if i + 1 < r.len() => i += 1,
            Some(_) => return false,
        }
    }
    true
}

/// The bytes of Kriegspiel SAN: letters, digits and `+ # = - /`.
static SAN: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric()
            || matches!(c, b'+' | b'#' | b'=' | b'-' | b'/');
        b += 1;
    }
    t
};

/// The number of attempts listed in `illegal`, or that it is a count.
fn count_attempts(c: &[u8], illegal: Range<usize>) -> Result<Illegal, String> {
    // The fast path: items of SAN bytes, commas between them, no spaces.
    let list = &c[illegal.clone()];
    let (mut n, mut after_comma, mut digits) = (1, true, true);
    for &b in list {
        if b == b',' && !after_comma {
            (n, after_comma, digits) = (n + 1, true, false);
        } else if SAN[b as usize] {
            after_comma = false;
            digits &= b.is_ascii_digit();
        } else {
            return count_attempts_slowly(c, illegal);
        }
    }
    match (list.is_empty(), after_comma, digits) {
        (true, _, _) => Ok(Illegal::Attempts(0)),
        (false, true, _) => count_attempts_slowly(c, illegal),
        (false, false, true) => Ok(Illegal::Count),
        (false, false, false) => Ok(Illegal::Attempts(n)),
    }
}

/// [`count_attempts`] for lists with spaces or errors.
fn count_attempts_slowly(
    c: &[u8],
    illegal: Range<usize>,
) -> Result<Illegal, String> {
    let list = &c[trim(c, illegal)];
    if list.is_empty() {
        return Ok(Illegal::Attempts(0));
    }
    if list.iter().all(u8::is_ascii_digit) {
        return Ok(Illegal::Count);
    }
    let mut n = 0;
    for item in list.split(|&b| b == b',') {
        let item = &item[trim(item, 0..item.len())];
        if item.is_empty() || !item.iter().all(|&b| SAN[b as usize]) {
            let shown = String::from_utf8_lossy(item);
            return Err(format!("malformed illegal attempt '{shown}'"));
        }
        n += 1;
    }
    Ok(Illegal::Attempts(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(c: &str) -> (String, String, Illegal, String, String) {
        let k = parse(c.as_bytes()).unwrap().unwrap();
        let s = |r: Range<usize>| c[r].to_string();
        (s(k.response), s(k.illegal), k.attempts, s(k.text), s(k.trail))
    }

    #[test]
    fn the_seed_examples() {
        assert_eq!(
            parts("{(Xe7,CF:dxe3,dxc3)}"),
            (
                "Xe7,CF".into(),
                "dxe3,dxc3".into(),
                Illegal::Attempts(2),
                "".into(),
                "".into()
            )
        );
        assert_eq!(parts("{(Xe7,CF:2)}").2, Illegal::Count);
        assert_eq!(parts("{(:)}").2, Illegal::Attempts(0));
        assert_eq!(parts("{(Xh5:exf4,h5)}").2, Illegal::Attempts(2));
    }

    #[test]
    fn space_inside_braces_and_free_text() {
        let k = parse(b"{ (:) }").unwrap().unwrap();
        assert_eq!((k.lead, k.text, k.trail), (1..2, 5..5, 5..6));
        assert_eq!(
            parts("{(CS,CN:Qh4) a nice \u{a0}try \u{a0}}"),
            (
                "CS,CN".into(),
                "Qh4".into(),
                Illegal::Attempts(1),
                " a nice \u{a0}try".into(),
                " \u{a0}".into()
            )
        );
        assert_eq!(parts("{(Xe5 , CR: e7 , f8=Q)}").2, Illegal::Attempts(2));
    }

    #[test]
    fn the_fast_path_agrees_with_the_slow_one() {
        let cases = [
            "{(:)}",
            "{(X:)}",
            "{(Xe4:e5,d5)}",
            "{(CF,CN,Xa1:12) text  }",
            "{(Xe4,CF:Nb1c3,e8=Q+,O-O-O) a\nb\n}",
            "{(:e5,)}",
            "{(:,e5)}",
            "{(Xe4,:)}",
            "{(Xe9:)}",
            "{(CQ:)}",
            "{(:0)}",
            "{(:1,2)}",
        ];
        for c in cases {
            let c = c.as_bytes();
            let slow = parse_slowly(c, 1, c.len() - 1);
            if let Some(fast) = parse_plain(c, 1, c.len() - 1) {
                assert_eq!(Ok(fast), slow, "{}", String::from_utf8_lossy(c));
            }
            assert_eq!(parse_from(c, 1, c.len() - 1), slow);
        }
    }

    #[test]
    fn the_usual_shape_agrees_with_parse() {
        let cases = [
            "{(:)}",
            "{(:)} e4",
            "{(X:)}",
            "{(Xe4:e5,d5)}",
            "{(Xa1,Xh8,CF,CR,CL,CS,CN:)}",
            "{(CF,CN,Xa1:12) text  } x",
            "{(Xe4,CF:Nb1c3,e8=Q+,O-O-O) a \u{a0}}",
            "{(:e5,)}",
            "{(:,e5)}",
            "{(Xe4,:)}",
            "{(Xe9:)}",
            "{(Xi4:)}",
            "{(CQ:)}",
            "{(C:)}",
            "{(X",
            "{(:0)}",
            "{(:1,2)}",
            "{(:1a)}",
            "{(:a)}",
            "{(:a) b",
            "{(:a}",
            "{ (:)}",
            "{(:e 5)}",
            "{(Xe5:e7}",
            "{(Xe5)}",
            "{(:e7,,f6)}",
            "{(:,)}",
            "{(:1,,2)}",
            "{(:e7,f6,Qh4)}",
        ];
        for c in cases {
            let b = c.as_bytes();
            let Some((len, k)) = parse_usual(b) else {
                continue;
            };
            assert_eq!(parse(&b[..len]), Some(Ok(k)), "{c}");
        }
        assert!(parse_usual(b"{(Xe4:e5,d5)} x").is_some());
        assert!(parse_usual(b"{(:) a}").is_some());
    }

    #[test]
    fn not_kriegspiel_comments() {
        assert_eq!(parse(b"{}"), None);
        assert_eq!(parse(b"{ a (b:c) }"), None);
    }

    #[test]
    fn broken_kriegspiel_comments() {
        let cases = [
            ("{(Xe5)}", "kriegspiel comment without ':'"),
            ("{(Xe5:e7}", "kriegspiel comment without ')'"),
            ("{(Q:)}", "unknown referee announcement 'Q'"),
            ("{(Xi9:)}", "unknown referee announcement 'Xi9'"),
            ("{(Xe5,:)}", "unknown referee announcement ''"),
            ("{(:e7,,f6)}", "malformed illegal attempt ''"),
            ("{(:e 7)}", "malformed illegal attempt 'e 7'"),
        ];
        for (c, message) in cases {
            assert_eq!(
                parse(c.as_bytes()),
                Some(Err(message.to_string())),
                "{c}"
            );
        }
    }
}
