//! UTF-8 validation of a line in the scan's own pass, with AVX2: the
//! lookup algorithm of simdjson and simdutf8 (John Keiser and Daniel
//! Lemire, "Validating UTF-8 In Less Than One Instruction Per Byte",
//! 2021), fed with the 64-byte words that [`LineScan::read_to_lf`] loads
//! anyway.
//!
//! Why not simdutf8 itself, which the tools use everywhere else: it
//! validates a slice, in a pass of its own over the batch, and that pass
//! took 19% of pbi-grep's cycles on the realistic collection (perf),
//! most of them waiting for memory: with no check at all, the tool was
//! 15% faster. Done on the words the scan has in registers anyway, the
//! same checks cost about half of that (BENCHMARKS.md, "Where the time
//! goes"). The tables and the steps are
//! simdutf8's (`algorithm.rs`: `check_special_cases`,
//! `must_be_2_3_continuation`), and the tests hold the result to
//! `std::str::from_utf8`.
//!
//! [`LineScan::read_to_lf`]: super::scan::LineScan::read_to_lf

use std::arch::x86_64::{
    __m256i, _mm256_alignr_epi8, _mm256_and_si256,
    _mm256_broadcastsi128_si256, _mm256_or_si256, _mm256_permute2x128_si256,
    _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8,
    _mm256_srli_epi16, _mm256_subs_epu8, _mm256_testz_si256, _mm256_xor_si256,
    _mm_loadu_si128,
};

use crate::lines::avx2::first;

// What is wrong with two bytes in a row, one bit each: a byte's checks
// are the and of three lookups (the high and low nibbles of the byte
// before it, the high nibble of its own), and a bit left set is an error.
/// A lead byte not followed by a continuation byte.
const TOO_SHORT: u8 = 1 << 0;
/// A continuation byte after an ASCII one.
const TOO_LONG: u8 = 1 << 1;
/// E0 followed by 80-9F.
const OVERLONG_3: u8 = 1 << 2;
/// Above U+10FFFF: F4 followed by 90-BF, F5-FF.
const TOO_LARGE: u8 = 1 << 3;
/// ED followed by A0-BF.
const SURROGATE: u8 = 1 << 4;
/// C0 and C1.
const OVERLONG_2: u8 = 1 << 5;
/// F5-FF followed by 80-8F.
const TOO_LARGE_1000: u8 = 1 << 6;
/// F0 followed by 80-8F (the same bit as `TOO_LARGE_1000`: their lead
/// bytes differ).
const OVERLONG_4: u8 = 1 << 6;
/// Two continuation bytes in a row: an error unless a lead byte two or
/// three back asks for them (`must_be_continuation`).
const TWO_CONTS: u8 = 1 << 7;
/// What the low nibble of the byte before says nothing about.
const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

/// By the high nibble of the byte before.
const BYTE_1_HIGH: [u8; 16] = [
    // 0_______: ASCII.
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    TOO_LONG,
    // 10______: a continuation byte.
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    TWO_CONTS,
    // 1100____, 1101____: the lead of two bytes.
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    // 1110____: the lead of three.
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    // 1111____: the lead of four, or more.
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
];

/// By the low nibble of the byte before.
const BYTE_1_LOW: [u8; 16] = [
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
];

/// By the high nibble of the byte itself.
const BYTE_2_HIGH: [u8; 16] = [
    // 0_______: ASCII.
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    // 1000____, 1001____, 101_____: a continuation byte.
    TOO_LONG
        | OVERLONG_2
        | TWO_CONTS
        | OVERLONG_3
        | TOO_LARGE_1000
        | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    // 11______: a lead byte.
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
    TOO_SHORT,
];

/// 64 bytes as two vectors, as the scan loads them.
type V = (__m256i, __m256i);

/// The validation of one line, fed its words in order.
pub(super) struct Utf8 {
    /// The last 32 bytes fed: the bytes before the next word's first.
    prev: __m256i,
    /// Every error bit found so far.
    error: __m256i,
}

impl Utf8 {
    /// A line starts: what comes before it (a line end) is ASCII.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn new() -> Utf8 {
        Utf8 { prev: _mm256_setzero_si256(), error: _mm256_setzero_si256() }
    }

    /// A word all of whose 64 bytes are the line's.
    ///
    /// Every word is checked, ASCII or not: a branch on whether it holds
    /// a byte of 0x80 or more, as simdutf8 takes, is mispredicted too
    /// often where six words in ten hold one (the realistic collection),
    /// and made pbi-grep only 1.5% faster than with simdutf8's pass,
    /// against 7-9% without it.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn word(&mut self, v: V) {
        // SAFETY: the CPU has AVX2 (the caller's promise).
        unsafe {
            self.check(v.0, self.prev);
            self.check(v.1, v.0);
        }
        self.prev = v.1;
    }

    /// The line's last word, whose bytes are the line's up to its LF at
    /// `lf` (below 64), with it; whether the whole line is valid UTF-8.
    ///
    /// The LF, which no sequence may hold, ends any sequence left open
    /// before it as an error; the bytes after it, the next line's, are
    /// taken as zeros.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn last(&mut self, v: V, lf: u32) -> bool {
        debug_assert!(lf < 64);
        // SAFETY: the CPU has AVX2 (the caller's promise); the LF and the
        // bytes before it are at most 64.
        unsafe {
            let [lo, hi] = first([v.0, v.1], lf as usize + 1);
            self.word((lo, hi));
            _mm256_testz_si256(self.error, self.error) == 1
        }
    }

    /// Checks the 32 bytes of `input`, `prev` the 32 before them.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn check(&mut self, input: __m256i, prev: __m256i) {
        // SAFETY: the CPU has AVX2 (the caller's promise); each table has
        // 16 bytes, and the loads have no alignment requirement.
        unsafe {
            let table = |t: &[u8; 16]| {
                _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast()))
            };
            let low4 = _mm256_set1_epi8(0x0f);
            let high =
                |x: __m256i| _mm256_and_si256(_mm256_srli_epi16::<4>(x), low4);
            // The bytes 1, 2 and 3 before each byte of `input`: the last
            // 16 of `prev` and the first 16 of `input`, then `input`.
            let across = _mm256_permute2x128_si256::<0x21>(prev, input);
            let prev1 = _mm256_alignr_epi8::<15>(input, across);
            let prev2 = _mm256_alignr_epi8::<14>(input, across);
            let prev3 = _mm256_alignr_epi8::<13>(input, across);
            let special = _mm256_and_si256(
                _mm256_and_si256(
                    _mm256_shuffle_epi8(table(&BYTE_1_HIGH), high(prev1)),
                    _mm256_shuffle_epi8(
                        table(&BYTE_1_LOW),
                        _mm256_and_si256(prev1, low4),
                    ),
                ),
                _mm256_shuffle_epi8(table(&BYTE_2_HIGH), high(input)),
            );
            // Two or three back, the lead of three or four bytes: this
            // byte must continue it, and only then are two continuation
            // bytes in a row right (the top bit, TWO_CONTS, flips).
            let third = _mm256_subs_epu8(prev2, _mm256_set1_epi8(0x60));
            let fourth = _mm256_subs_epu8(prev3, _mm256_set1_epi8(0x70));
            let must_be_continuation = _mm256_and_si256(
                _mm256_or_si256(third, fourth),
                _mm256_set1_epi8(0x80u8 as i8),
            );
            self.error = _mm256_or_si256(
                self.error,
                _mm256_xor_si256(must_be_continuation, special),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use crate::pbi::scan::{self, each_lf_line, LineScan};

    /// Bytes at the edges of the classes the tables tell apart: ASCII,
    /// each range of continuation bytes, each lead byte that starts a
    /// range of its own (overlong, surrogate, too large), and bytes that
    /// never occur.
    const EDGES: &[u8] = &[
        0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1,
        0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3,
        0xF4, 0xF5, 0xF7, 0xF8, 0xFF,
    ];

    /// What the scan says of the line `content` (no LF in it), read to
    /// its LF with `after` behind it, against the standard library.
    fn agrees(content: &[u8], after: &[u8]) -> Result<(), String> {
        let bytes = [content, b"\n", after].concat();
        let mut scan = LineScan::new();
        let want = std::str::from_utf8(content).is_ok();
        match scan.read_to_lf(&bytes, 0, None) {
            Some((end, true)) if end == content.len() => {}
            other => return Err(format!("{other:?} for {content:x?}")),
        }
        match scan.utf8() {
            Some(got) if got != want => {
                Err(format!("{got} for {content:x?}, std says {want}"))
            }
            None if scan::checks_utf8() => Err("not checked".into()),
            _ => Ok(()),
        }
    }

    /// Every sequence of up to three edge bytes, and of four with a lead
    /// byte of four first, at every place across the 32 and 64-byte
    /// boundaries of the scan's words, with ASCII or a sequence of two
    /// around it.
    #[test]
    fn short_sequences_anywhere_in_the_words() {
        let mut seqs: Vec<Vec<u8>> = vec![];
        for &a in EDGES {
            seqs.push(vec![a]);
            for &b in EDGES {
                seqs.push(vec![a, b]);
                for &c in EDGES {
                    seqs.push(vec![a, b, c]);
                }
            }
        }
        for a in [0xF0, 0xF1, 0xF4, 0xF5] {
            for b in [0x80, 0x8F, 0x90, 0xBF, 0xC0] {
                for c in [0x41, 0x80, 0xBF, 0xC0] {
                    for d in [0x41, 0x80, 0xBF, 0xC0] {
                        seqs.push(vec![a, b, c, d]);
                    }
                }
            }
        }
        for at in [0, 29, 30, 31, 61, 62, 63, 64, 93, 127] {
            for filler in [&b"a"[..], "é".as_bytes()] {
                let mut before: Vec<u8> =
                    filler.iter().copied().cycle().take(at).collect();
                if std::str::from_utf8(&before).is_err() {
                    // An odd number of bytes: end in ASCII.
                    before[at - 1] = b'a';
                }
                for seq in &seqs {
                    let line = [&before[..], seq].concat();
                    agrees(&line, b"").unwrap();
                    agrees(&[&line[..], b"z"].concat(), b"").unwrap();
                }
            }
        }
    }

    /// Each pair of bytes at the end of a line: the LF ends a sequence
    /// left open (an error), whatever follows it.
    #[test]
    fn every_pair_of_bytes_before_the_lf() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                if a == b'\n' || b == b'\n' {
                    continue;
                }
                let line = [b'x', b'y', a, b];
                agrees(&line, b"\x80\xbf").unwrap();
                let mut long = [b'q'; 64];
                long[62..].copy_from_slice(&[a, b]);
                agrees(&long, b"\xe2\x82").unwrap();
            }
        }
    }

    /// Text in many scripts with bytes broken in, checked line by line
    /// as pbi-grep and pbi2csv read a block of lines.
    fn line() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            4 => "[a-z:|;\\\\ ]{1,12}".prop_map(String::into_bytes),
            3 => "[à-ÿĀ-ſЀ-ӿ]{1,6}".prop_map(String::into_bytes),
            2 => any::<String>().prop_map(String::into_bytes),
            1 => "[\u{800}-\u{FFFF}\u{10000}-\u{10FFFF}]{1,3}"
                .prop_map(String::into_bytes),
            1 => proptest::collection::vec(any::<u8>(), 1..4),
        ];
        proptest::collection::vec(piece, 0..30).prop_map(|pieces| {
            let mut line = pieces.concat();
            line.retain(|&b| b != b'\n');
            line
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        #[test]
        fn lines_are_checked_as_std_checks_them(
            lines in proptest::collection::vec(line(), 1..8),
        ) {
            let block: Vec<u8> =
                lines.iter().flat_map(|l| [&l[..], b"\n"].concat()).collect();
            let mut scan = LineScan::new();
            let mut seen = vec![];
            each_lf_line(&block, 1, &mut scan, Some(b','), |_, l, s, read| {
                seen.push((l.content().to_vec(), s.utf8(), read));
            });
            for (content, utf8, read) in seen {
                let want = std::str::from_utf8(&content).is_ok();
                if read && scan::checks_utf8() {
                    prop_assert_eq!(utf8, Some(want), "{:x?}", content);
                } else {
                    prop_assert!(utf8.is_none_or(|got| got == want));
                }
            }
        }
    }
}
