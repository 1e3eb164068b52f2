//! PBI's escapes: `\x` and two hex digits stand for U+0000..U+00FF.
//!
//! The code point is written out as UTF-8 (`\xe9` is `é`, bytes C3 A9,
//! not the byte E9). A `\` not followed by `x` and two hex digits is kept
//! as written; [`first_bad`] finds such a one so that the reader can warn.

use std::borrow::Cow;

use super::swar;

/// Where the first `\` in `s` is: fields are short, and a word loop
/// beats memchr's set-up on them.
#[inline]
fn backslash(s: &[u8]) -> Option<usize> {
    swar::find(s, b'\\', 0)
}

/// The value of an ASCII hex digit.
#[inline]
fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// The code point of a valid escape at the start of `s`.
#[inline]
fn escape_at(s: &[u8]) -> Option<u8> {
    match s {
        [b'\\', b'x', hi, lo, ..] => Some(hex(*hi)? << 4 | hex(*lo)?),
        _ => None,
    }
}

/// Appends code point U+00`cp` as UTF-8.
#[inline]
fn push_code_point(out: &mut Vec<u8>, cp: u8) {
    if cp < 0x80 {
        out.push(cp);
    } else {
        out.extend_from_slice(&[0xC0 | cp >> 6, 0x80 | (cp & 0x3F)]);
    }
}

/// Appends `raw` with its escapes decoded to `out`.
pub fn decode_into(raw: &[u8], out: &mut Vec<u8>) {
    let mut rest = raw;
    while let Some(i) = backslash(rest) {
        out.extend_from_slice(&rest[..i]);
        rest = &rest[i..];
        match escape_at(rest) {
            Some(cp) => {
                push_code_point(out, cp);
                rest = &rest[4..];
            }
            None => {
                out.push(b'\\');
                rest = &rest[1..];
            }
        }
    }
    out.extend_from_slice(rest);
}

/// `raw` with its escapes decoded; borrowed (no copy) when it has no `\`.
pub fn decode(raw: &[u8]) -> Cow<'_, [u8]> {
    if backslash(raw).is_none() {
        return Cow::Borrowed(raw);
    }
    let mut out = Vec::with_capacity(raw.len());
    decode_into(raw, &mut out);
    Cow::Owned(out)
}

/// The offset of the first `\` in `raw` that does not start a valid
/// escape, and how many such there are.
pub fn first_bad(raw: &[u8]) -> Option<(usize, usize)> {
    let mut first = None;
    let mut count = 0;
    let mut at = 0;
    while let Some(i) = backslash(&raw[at..]) {
        let pos = at + i;
        if escape_at(&raw[pos..]).is_some() {
            at = pos + 4;
        } else {
            first.get_or_insert(pos);
            count += 1;
            at = pos + 1;
        }
    }
    first.map(|f| (f, count))
}

/// Whether `raw` holds a valid escape of one of the bytes of `set`, which
/// decoding turns into that byte: `\x3b` or `\x3B` for `;`.
pub fn escapes_any(raw: &[u8], set: &[u8]) -> bool {
    let mut at = 0;
    while let Some(i) = backslash(&raw[at..]) {
        let pos = at + i;
        match escape_at(&raw[pos..]) {
            Some(cp) if set.contains(&cp) => return true,
            Some(_) => at = pos + 4,
            None => at = pos + 1,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &[u8]) -> Vec<u8> {
        decode(s).into_owned()
    }

    #[test]
    fn ascii_escapes() {
        assert_eq!(dec(br"S\x3at John"), b"S:t John");
        assert_eq!(dec(br"a\x3bb\x7cc\x5cd"), br"a;b|c\d");
        assert_eq!(dec(br"\x00"), b"\0");
    }

    #[test]
    fn latin1_becomes_utf8_either_case() {
        assert_eq!(dec(br"Ot\xe9"), "Oté".as_bytes());
        assert_eq!(dec(br"Ot\xE9"), "Oté".as_bytes());
        assert_eq!(dec(br"\xff"), "ÿ".as_bytes());
        assert_eq!(dec(br"\x80"), "\u{80}".as_bytes());
    }

    #[test]
    fn bad_escapes_are_kept() {
        for s in [&br"\X3a"[..], br"\q", br"\x4", br"\x4g", br"\", br"a\"] {
            assert_eq!(dec(s), s, "{}", String::from_utf8_lossy(s));
        }
        assert_eq!(first_bad(br"ok\x3a \q and \X3a"), Some((7, 2)));
        assert_eq!(first_bad(br"ok\x3a"), None);
        assert_eq!(dec(br"\\x3a"), br"\:");
        assert_eq!(first_bad(br"\\x3a"), Some((0, 1)));
    }

    #[test]
    fn escapes_of_a_set() {
        assert!(escapes_any(br"a\x3bb", b";|"));
        assert!(escapes_any(br"a\x7C", b";|"));
        assert!(!escapes_any(br"a;b|c\x3a\q\x3", b";|"));
        // The `\` of `\\x3b` is no escape; the `\x3b` after it is.
        assert!(escapes_any(br"\\x3b", b";"));
        assert!(!escapes_any(br"\x5cx3b", b";"));
    }

    #[test]
    fn no_backslash_borrows() {
        assert!(matches!(decode(b"plain"), Cow::Borrowed(_)));
        assert!(matches!(decode(b"pl\\x41in"), Cow::Owned(_)));
    }
}
