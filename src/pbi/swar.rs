//! Searches of short fields 8 bytes at a time, in a `u64` (SWAR: SIMD
//! within a register).
//!
//! The fields and items they search are a few dozen bytes long: too short
//! for memchr, whose set-up costs more than the search, and long enough
//! that a byte loop costs more than a word loop. Bytes past the end read
//! as zeros, which is none of the bytes searched for.

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// The top bit of each byte of `word` that is `b`, and no other bit.
///
/// Exact, unlike the shorter `(x - ONES) & !x & !LOW7`, which can mark a
/// byte above a match: no carry crosses a byte here.
#[inline(always)]
fn matches(word: u64, b: u8) -> u64 {
    let x = word ^ (ONES * u64::from(b));
    !(((x & LOW7) + LOW7) | x | LOW7)
}

/// The top bit of the first byte of `word` that is `b`, and perhaps of
/// bytes after it, but of none before it: enough to find the first, with
/// three operations fewer than [`matches()`]. A borrow only runs upwards,
/// from a byte that matched.
#[inline(always)]
fn first_match(word: u64, b: u8) -> u64 {
    let x = word ^ (ONES * u64::from(b));
    x.wrapping_sub(ONES) & !x & !LOW7
}

/// The 8 bytes of `s` from `at` (fewer at its end, then zeros after them)
/// as a little-endian word: byte `at` is the lowest. `at < s.len()`.
#[inline(always)]
fn word(s: &[u8], at: usize) -> u64 {
    if let Some(bytes) = s.get(at..at + 8) {
        return u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
    }
    let len = s.len();
    if len >= 8 {
        // The last 8 bytes, shifted down past those before `at`.
        let last = &s[len - 8..];
        let w = u64::from_le_bytes(last.try_into().expect("8 bytes"));
        return w >> (8 * (at + 8 - len));
    }
    s[at..].iter().rev().fold(0, |w, &b| w << 8 | u64::from(b))
}

/// Where the first `b` at or after `from` is in `s`. `b` is not 0.
#[inline]
pub(crate) fn find(s: &[u8], b: u8, from: usize) -> Option<usize> {
    let mut at = from;
    while at < s.len() {
        let m = first_match(word(s, at), b);
        if m != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    None
}

/// The parts of `s` between the `sep` bytes, as `s.split(|&c| c == sep)`
/// gives them. `sep` is not 0.
#[inline]
pub(crate) fn split(s: &[u8], sep: u8) -> Split<'_> {
    Split { s, start: 0, done: false, sep }
}

/// The iterator of [`split`].
#[derive(Clone, Debug)]
pub(crate) struct Split<'a> {
    s: &'a [u8],
    start: usize,
    done: bool,
    sep: u8,
}

impl<'a> Iterator for Split<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        if self.done {
            return None;
        }
        let start = self.start;
        match find(self.s, self.sep, start) {
            Some(end) => {
                self.start = end + 1;
                Some(&self.s[start..end])
            }
            None => {
                self.done = true;
                Some(&self.s[start..])
            }
        }
    }
}

/// The parts of `s` between the `sep` bytes, as [`split`] gives them,
/// each with how many `b` it holds: one pass where a split and a count
/// make two. Neither `sep` nor `b` is 0.
#[inline]
pub(crate) fn split_counting(s: &[u8], sep: u8, b: u8) -> SplitCounting<'_> {
    SplitCounting { s, start: 0, done: false, sep, b }
}

/// The iterator of [`split_counting`].
#[derive(Clone, Debug)]
pub(crate) struct SplitCounting<'a> {
    s: &'a [u8],
    start: usize,
    done: bool,
    sep: u8,
    b: u8,
}

impl<'a> Iterator for SplitCounting<'a> {
    type Item = (&'a [u8], usize);

    #[inline]
    fn next(&mut self) -> Option<(&'a [u8], usize)> {
        if self.done {
            return None;
        }
        let (s, start) = (self.s, self.start);
        let mut n = 0;
        let mut at = start;
        while at < s.len() {
            let w = word(s, at);
            let m = matches(w, self.b);
            let seps = first_match(w, self.sep);
            if seps != 0 {
                // The bytes before the separator, whose top bit is the
                // lowest of `seps`.
                let before = (seps & seps.wrapping_neg()) - 1;
                n += (m & before).count_ones() as usize;
                let end = at + (seps.trailing_zeros() / 8) as usize;
                self.start = end + 1;
                return Some((&s[start..end], n));
            }
            n += m.count_ones() as usize;
            at += 8;
        }
        self.done = true;
        Some((&s[start..], n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_byte_loops_at_every_length_and_place() {
        const BYTES: &[u8] = b";|\\a\x00\x80\xff;;||\\\\\x3b\x7c\x5c\x5b\x7d";
        let mut rng = crate::testing::Rng::new(3);
        for len in 0..40 {
            for _ in 0..300 {
                let s: Vec<u8> =
                    (0..len).map(|_| BYTES[rng.below(BYTES.len())]).collect();
                for b in [b';', b'|', b'\\'] {
                    for from in 0..=len {
                        let want = s[from..]
                            .iter()
                            .position(|&c| c == b)
                            .map(|i| i + from);
                        assert_eq!(find(&s, b, from), want, "{s:?} {from}");
                    }
                    let want: Vec<&[u8]> = s.split(|&c| c == b).collect();
                    let got: Vec<&[u8]> = split(&s, b).collect();
                    assert_eq!(got, want, "{s:?}");
                    for c in [b';', b'|', b'\\'] {
                        let want: Vec<(&[u8], usize)> = s
                            .split(|&x| x == b)
                            .map(|part| {
                                (
                                    part,
                                    part.iter().filter(|&&x| x == c).count(),
                                )
                            })
                            .collect();
                        let got: Vec<_> = split_counting(&s, b, c).collect();
                        assert_eq!(got, want, "{s:?}");
                    }
                }
            }
        }
    }
}
