//! A data line read in one pass into bit masks: where its fields end,
//! and where its pipes, semicolons, backslashes and quote bytes are.
//!
//! This is the fast way through a line that is well formed, as nearly
//! every line of a real collection is. [`LineScan::read`] reads the line
//! 64 bytes at a time (with AVX2 where the CPU has it) and keeps one bit
//! per byte for each kind of special byte; then
//! [`Parser::clean`](super::Parser::clean) answers from the masks alone
//! whether reading the line would give any diagnostic (field count,
//! escapes, subfields, position, status, UTF-8), and a tool that only
//! needs spans of the line (a CSV row, a search in one field) takes them
//! from the masks too. A line that is not clean goes the general way,
//! [`Parser::line`](super::Parser::line), which says what is wrong: the
//! scan never decides what a message says, only that there is none.

use crate::lines::{Line, LineEnd};

/// The scan reads a line content shorter than this; a longer line goes
/// the general way.
pub const MAX_LEN: usize = 1024;

/// How many 64-byte words a line of [`MAX_LEN`] bytes has.
const WORDS: usize = MAX_LEN / 64;

/// A line read into bit masks, one bit per byte in words of 64 (bit `k`
/// of word `w` is byte `64 * w + k`). Reused from line to line: it is
/// about 600 bytes.
#[derive(Clone, Debug)]
pub struct LineScan {
    len: usize,
    /// How many `:` the line holds.
    colons: u32,
    /// Where field `f` ends: the `f + 1`-th colon, or the end of the line
    /// for the last field; only for a line with at least 8 colons. (The
    /// vector reading writes up to 8 ends past the colons it has found,
    /// with no test of how many there are: those after the 8th end are
    /// room for that.)
    ends: [usize; 16],
    pipes: [u64; WORDS],
    semis: [u64; WORDS],
    backs: [u64; WORDS],
    /// `"` and the byte the caller asked for (a CSV delimiter).
    quotes: [u64; WORDS],
    /// A bit for each field (bit `f` for field `f`, counted as if the
    /// line had 9) that holds a quote byte, and one that holds a `\`.
    quote_fields: u16,
    back_fields: u16,
    /// A bit for each field that holds a `;`.
    semi_fields: u16,
    /// Whether the line holds a `"`, a byte of 0x80 or more.
    any_dquote: bool,
    high: bool,
    /// Whether the line is valid UTF-8, when the scan checked it
    /// ([`LineScan::utf8`]).
    utf8: Option<bool>,
    /// Whether the line holds a CR, or a byte C2 or E2 (which begin a NEL
    /// and an LS): it may end otherwise than with its LF. Noted by
    /// [`LineScan::read_to_lf`] only.
    rare: bool,
}

impl Default for LineScan {
    fn default() -> LineScan {
        LineScan::new()
    }
}

impl LineScan {
    /// An empty scan, to be filled by [`LineScan::read`].
    pub fn new() -> LineScan {
        LineScan {
            len: 0,
            colons: 0,
            ends: [0; 16],
            pipes: [0; WORDS],
            semis: [0; WORDS],
            backs: [0; WORDS],
            quotes: [0; WORDS],
            quote_fields: 0,
            back_fields: 0,
            semi_fields: 0,
            any_dquote: false,
            high: false,
            utf8: None,
            rare: false,
        }
    }

    /// Reads `content`, a line without its line end. With `Some(also)`
    /// the quote bytes are noted too: `"` and `also` (a CSV delimiter),
    /// where they are and which fields hold them, and which fields hold a
    /// `;`; with `None` (a reader that writes no CSV) none of that.
    /// Returns false, and notes nothing, when the line is not shorter
    /// than [`MAX_LEN`].
    ///
    /// `also` must not be 0 (zeros pad the last word), LF, nor one of the
    /// bytes noted otherwise (`:`, `|`, `;`, `\`).
    pub fn read(&mut self, content: &[u8], also: Option<u8>) -> bool {
        if content.len() >= MAX_LEN {
            return false;
        }
        debug_assert!(also.is_none_or(|b| !b"\0\n:|;\\".contains(&b)));
        self.start(content.len());
        #[cfg(target_arch = "x86_64")]
        {
            if avx2::available() {
                // SAFETY: the CPU has what `avx2::read` needs, and the line
                // is short enough.
                unsafe { avx2::read_line(self, content, also) };
                return true;
            }
        }
        self.read_bytes(content, also);
        true
    }

    /// Reads the line of `bytes` that starts at `start` and ends with the
    /// next LF, with `also` as for [`LineScan::read`]. Returns where
    /// the LF is, and whether the scan read the line (not when it is not
    /// shorter than [`MAX_LEN`]); `None` when no LF follows.
    ///
    /// The line's end is found in the same pass that reads it, which also
    /// notes whether the line holds a CR, C2 or E2, a byte that may begin
    /// a line end other than LF: [`each_lf_line`] reads a block of lines
    /// so, with no other search for their ends. With AVX2 the same pass
    /// checks that the line is valid UTF-8 ([`LineScan::utf8`]), so that
    /// no pass of its own over the block is needed.
    #[inline]
    pub fn read_to_lf(
        &mut self,
        bytes: &[u8],
        start: usize,
        also: Option<u8>,
    ) -> Option<(usize, bool)> {
        debug_assert!(also.is_none_or(|b| !b"\0\n:|;\\".contains(&b)));
        #[cfg(target_arch = "x86_64")]
        {
            if start < bytes.len() && avx2::available() {
                self.start(0);
                // SAFETY: the CPU has what `avx2::read_to_lf` needs, and
                // `start` is in `bytes`.
                return unsafe {
                    avx2::read_line_to_lf(
                        self,
                        bytes,
                        start,
                        also,
                        avx2::fast_pext(),
                    )
                };
            }
        }
        let end = start + memchr::memchr(b'\n', bytes.get(start..)?)?;
        Some((end, self.read(&bytes[start..end], also)))
    }

    /// Empties the scan for a line of `len` bytes.
    #[inline(always)]
    fn start(&mut self, len: usize) {
        self.len = len;
        self.colons = 0;
        self.quote_fields = 0;
        self.back_fields = 0;
        self.semi_fields = 0;
        self.any_dquote = false;
        self.high = false;
        self.utf8 = None;
        self.rare = false;
    }

    /// [`LineScan::read`] one byte at a time: on CPUs without AVX2, and
    /// the reference the vector reading is tested against.
    fn read_bytes(&mut self, content: &[u8], also: Option<u8>) {
        let quotes = also.is_some();
        let words = content.len().div_ceil(64);
        for masks in [
            &mut self.pipes,
            &mut self.semis,
            &mut self.backs,
            &mut self.quotes,
        ] {
            masks[..words].fill(0);
        }
        for (at, &b) in content.iter().enumerate() {
            let (word, bit) = (at / 64, 1u64 << (at % 64));
            let field = 1 << self.colons.min(8);
            match b {
                b':' => {
                    if self.colons < 8 {
                        self.ends[self.colons as usize] = at;
                    }
                    self.colons += 1;
                }
                b'|' => self.pipes[word] |= bit,
                b';' => {
                    self.semis[word] |= bit;
                    if quotes {
                        self.semi_fields |= field;
                    }
                }
                b'\\' => {
                    self.backs[word] |= bit;
                    self.back_fields |= field;
                }
                b'"' if quotes => {
                    self.quotes[word] |= bit;
                    self.quote_fields |= field;
                    self.any_dquote = true;
                }
                _ if Some(b) == also => {
                    self.quotes[word] |= bit;
                    self.quote_fields |= field;
                }
                _ => {}
            }
            self.high |= b >= 0x80;
            self.rare |= b == b'\r' || b | 0x20 == 0xE2;
        }
        self.finish();
    }

    /// The last field ends at the end of the line.
    #[inline(always)]
    fn finish(&mut self) {
        self.ends[8] = self.len;
    }

    /// How many `:` the line holds.
    pub fn colons(&self) -> u32 {
        self.colons
    }

    /// The line's length.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the line is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Where field `f` (0-8) starts and ends, for a line of at least 8
    /// colons.
    #[inline(always)]
    pub fn field(&self, f: usize) -> (usize, usize) {
        let start = if f == 0 { 0 } else { self.ends[f - 1] + 1 };
        (start, self.ends[f])
    }

    /// The field that byte `at` is in, for a line of at least 8 colons.
    #[inline(always)]
    pub fn field_at(&self, at: usize) -> usize {
        self.ends[..8].iter().filter(|&&end| end < at).count()
    }

    /// Whether the line holds a `\`.
    #[inline(always)]
    pub fn has_backslash(&self) -> bool {
        self.back_fields != 0
    }

    /// Whether the line holds a `"`.
    #[inline(always)]
    pub fn has_dquote(&self) -> bool {
        self.any_dquote
    }

    /// Whether the line holds a byte of 0x80 or more.
    #[inline(always)]
    pub fn has_high(&self) -> bool {
        self.high
    }

    /// Whether the line is valid UTF-8, if the scan checked it: only
    /// [`LineScan::read_to_lf`] does, with AVX2, in the same pass
    /// (`None` otherwise: not known).
    #[inline(always)]
    pub fn utf8(&self) -> Option<bool> {
        self.utf8
    }

    /// A bit for each field (bit `f` for field `f`, 0-8) that holds a `"`
    /// or the byte given to [`LineScan::read`].
    #[inline(always)]
    pub fn quote_fields(&self) -> u16 {
        self.quote_fields
    }

    /// A bit for each field that holds a `\`.
    #[inline(always)]
    pub fn back_fields(&self) -> u16 {
        self.back_fields
    }

    /// A bit for each field that holds a `;`.
    #[inline(always)]
    pub fn semi_fields(&self) -> u16 {
        self.semi_fields
    }

    /// Whether bytes `start..end` hold a pipe.
    #[inline(always)]
    pub fn any_pipe(&self, start: usize, end: usize) -> bool {
        any(&self.pipes, start, end)
    }

    /// Whether bytes `start..end` hold a `;`.
    #[inline(always)]
    pub fn any_semi(&self, start: usize, end: usize) -> bool {
        any(&self.semis, start, end)
    }

    /// Whether bytes `start..end` hold a `\`.
    #[inline(always)]
    pub fn any_back(&self, start: usize, end: usize) -> bool {
        self.has_backslash() && any(&self.backs, start, end)
    }

    /// Whether bytes `start..end` hold a `"` or the byte given to
    /// [`LineScan::read`].
    #[inline(always)]
    pub fn any_quote(&self, start: usize, end: usize) -> bool {
        any(&self.quotes, start, end)
    }

    /// How many pipes bytes `start..end` hold.
    #[inline(always)]
    pub fn count_pipes(&self, start: usize, end: usize) -> u32 {
        count(&self.pipes, start, end)
    }

    /// Whether every `;`-separated item of bytes `start..end` (not
    /// empty) holds exactly 3 pipes: one pass over the words of the
    /// range, the pipes of each item counted between its semicolons.
    #[inline]
    pub fn items_hold_3_pipes(&self, start: usize, end: usize) -> bool {
        debug_assert!(start < end);
        let (first, last) = (start / 64, (end - 1) / 64);
        // Pipes in the item so far.
        let mut n = 0;
        for w in first..=last {
            let mut range = !0u64;
            if w == first {
                range &= from_bit(start % 64);
            }
            if w == last {
                range &= to_bit((end - 1) % 64);
            }
            let pipes = self.pipes[w] & range;
            let mut semis = self.semis[w] & range;
            // The pipes of this word not yet counted.
            let mut left = pipes;
            while semis != 0 {
                let before = (semis & semis.wrapping_neg()) - 1;
                n += (left & before).count_ones();
                if n != 3 {
                    return false;
                }
                n = 0;
                left &= !before;
                semis &= semis - 1;
            }
            n += left.count_ones();
        }
        n == 3
    }

    /// Where the `;` in bytes `start..end` are, in order.
    #[inline(always)]
    pub fn semis(&self, start: usize, end: usize) -> Bits<'_> {
        Bits::new(&self.semis, start, end)
    }

    /// Where the pipes in bytes `start..end` are, in order.
    #[inline(always)]
    pub fn pipes(&self, start: usize, end: usize) -> Bits<'_> {
        Bits::new(&self.pipes, start, end)
    }

    /// Where the `\` in bytes `start..end` are, in order.
    #[inline(always)]
    pub fn backs(&self, start: usize, end: usize) -> Bits<'_> {
        let end = if self.has_backslash() { end } else { start };
        Bits::new(&self.backs, start, end)
    }

    /// Where the `\` in the line are, in order.
    #[inline(always)]
    pub fn backslashes(&self) -> Bits<'_> {
        let end = if self.has_backslash() { self.len } else { 0 };
        Bits::new(&self.backs, 0, end)
    }

    /// Whether every `\` in `content` (the line read) starts an escape
    /// (`\x` and two hex digits).
    pub fn escapes_valid(&self, content: &[u8]) -> bool {
        self.backslashes().all(|at| is_escape(&content[at..]))
    }
}

/// Whether `s` starts with an escape: `\x` and two hex digits.
#[inline(always)]
fn is_escape(s: &[u8]) -> bool {
    matches!(s, [b'\\', b'x', hi, lo, ..]
        if hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit())
}

/// The masks of one word (64 bytes) of a line.
#[derive(Clone, Copy, Debug, Default)]
struct Word {
    colons: u64,
    pipes: u64,
    semis: u64,
    backs: u64,
    quotes: u64,
}

impl Word {
    /// The masks of the word's first `n` bytes only (`n < 64`).
    #[inline(always)]
    fn first(self, n: u32) -> Word {
        let keep = (1u64 << n) - 1;
        Word {
            colons: self.colons & keep,
            pipes: self.pipes & keep,
            semis: self.semis & keep,
            backs: self.backs & keep,
            quotes: self.quotes & keep,
        }
    }

    /// The masks shifted down past the word's first `n` bytes (`n < 64`).
    #[inline(always)]
    fn after(self, n: u32) -> Word {
        Word {
            colons: self.colons >> n,
            pipes: self.pipes >> n,
            semis: self.semis >> n,
            backs: self.backs >> n,
            quotes: self.quotes >> n,
        }
    }
}

/// Reads each line of `bytes` that ends with LF, the first numbered
/// `first`, into `scan` as [`LineScan::read_to_lf`] finds it, and hands
/// it to `each` with where it starts in `bytes`, the scan, and whether
/// the scan read it (not a line of [`MAX_LEN`] bytes or more).
///
/// The line ends are found in the same pass, with no count of them
/// before: it stops at the first line that holds a line end other than
/// LF before its LF (a CR, a NEL or an LS: [`LineScan::read_to_lf`]
/// notes the bytes that begin one, and only a line with such a byte is
/// looked at again), or that has no LF, and returns where that line
/// starts (the end of `bytes` when every line was read) and the number
/// it has. The lines before it end with LF as a [`LineReader`] of
/// `bytes` would find them; the caller reads the rest with one.
///
/// [`LineReader`]: crate::lines::LineReader
pub fn each_lf_line<'a>(
    bytes: &'a [u8],
    first: u64,
    scan: &mut LineScan,
    also: Option<u8>,
    mut each: impl FnMut(usize, Line<'a>, &LineScan, bool),
) -> (usize, u64) {
    // The CPU is asked once, not for each line: whether it has what the
    // vector reading needs and, if so, whether its PEXT is fast.
    #[cfg(target_arch = "x86_64")]
    let fast = avx2::available().then(avx2::fast_pext);
    #[cfg(not(target_arch = "x86_64"))]
    let fast: Option<bool> = None;
    let mut start = 0;
    let mut number = first;
    while start < bytes.len() {
        let found = match fast {
            #[cfg(target_arch = "x86_64")]
            Some(pext) => {
                scan.start(0);
                // SAFETY: the CPU has what `avx2::read_to_lf` needs, and
                // `start` is in `bytes`.
                unsafe {
                    avx2::read_line_to_lf(scan, bytes, start, also, pext)
                }
            }
            _ => scan.read_to_lf(bytes, start, also),
        };
        let Some((end, read)) = found else {
            break;
        };
        if (!read || scan.rare) && ends_otherwise(&bytes[start..end]) {
            break;
        }
        let line = Line::new(&bytes[start..=end], LineEnd::Lf, number);
        each(start, line, scan, read);
        start = end + 1;
        number += 1;
    }
    (start, number)
}

/// Whether the lines of `bytes` (whole lines) are known to be valid
/// UTF-8 where the scan does not say ([`LineScan::utf8`]): `bytes`
/// valid as a whole, then every line is. With `by_lf`, the lines are
/// read by [`each_lf_line`], whose scan checks them where the CPU can
/// ([`checks_utf8`]): then `false`, with no look, and the
/// lines after where it stopped are asked about apart.
pub fn block_utf8(bytes: &[u8], by_lf: bool) -> bool {
    !(by_lf && checks_utf8()) && simdutf8::basic::from_utf8(bytes).is_ok()
}

/// Whether [`LineScan::read_to_lf`] checks UTF-8 on this CPU
/// ([`LineScan::utf8`]).
pub fn checks_utf8() -> bool {
    #[cfg(target_arch = "x86_64")]
    return avx2::available();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Whether `content`, the bytes before an LF, hold a line end other than
/// LF: a CR, a NEL or an LS.
#[cold]
fn ends_otherwise(content: &[u8]) -> bool {
    memchr::memchr3_iter(b'\r', 0xC2, 0xE2, content).any(|at| {
        let rest = &content[at..];
        rest[0] == b'\r'
            || rest.starts_with(b"\xC2\x85")
            || rest.starts_with(b"\xE2\x80\xA8")
    })
}

/// The mask of bits `lo..64` of a word.
#[inline(always)]
fn from_bit(lo: usize) -> u64 {
    !0u64 << lo
}

/// The mask of bits `0..=hi` of a word.
#[inline(always)]
fn to_bit(hi: usize) -> u64 {
    !0u64 >> (63 - hi)
}

/// Whether any bit `start..end` of `masks` is set.
#[inline(always)]
fn any(masks: &[u64; WORDS], start: usize, end: usize) -> bool {
    if start >= end {
        return false;
    }
    let (first, last) = (start / 64, (end - 1) / 64);
    let (lo, hi) = (from_bit(start % 64), to_bit((end - 1) % 64));
    if first == last {
        return masks[first] & lo & hi != 0;
    }
    masks[first] & lo != 0
        || masks[last] & hi != 0
        || masks[first + 1..last].iter().any(|&m| m != 0)
}

/// How many bits `start..end` of `masks` are set.
#[inline(always)]
fn count(masks: &[u64; WORDS], start: usize, end: usize) -> u32 {
    if start >= end {
        return 0;
    }
    let (first, last) = (start / 64, (end - 1) / 64);
    let (lo, hi) = (from_bit(start % 64), to_bit((end - 1) % 64));
    if first == last {
        return (masks[first] & lo & hi).count_ones();
    }
    let inner: u32 =
        masks[first + 1..last].iter().map(|m| m.count_ones()).sum();
    (masks[first] & lo).count_ones() + inner + (masks[last] & hi).count_ones()
}

/// The set bits of a range of masks, as byte offsets, in order.
#[derive(Clone, Debug)]
pub struct Bits<'a> {
    masks: &'a [u64; WORDS],
    /// The bits of the current word not yet given.
    bits: u64,
    word: usize,
    last: usize,
    /// The bits of the last word in the range.
    hi: u64,
}

impl<'a> Bits<'a> {
    #[inline(always)]
    fn new(masks: &'a [u64; WORDS], start: usize, end: usize) -> Bits<'a> {
        if start >= end {
            return Bits { masks, bits: 0, word: 0, last: 0, hi: 0 };
        }
        let (first, last) = (start / 64, (end - 1) / 64);
        let hi = to_bit((end - 1) % 64);
        let mut bits = masks[first] & from_bit(start % 64);
        if first == last {
            bits &= hi;
        }
        Bits { masks, bits, word: first, last, hi }
    }
}

impl Iterator for Bits<'_> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            if self.word >= self.last {
                return None;
            }
            self.word += 1;
            self.bits = self.masks[self.word];
            if self.word == self.last {
                self.bits &= self.hi;
            }
        }
        let bit = self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(64 * self.word + bit)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8, _mm256_setzero_si256, _pext_u64,
    };

    use super::{LineScan, Word, MAX_LEN};
    use crate::pbi::utf8::Utf8;

    /// Whether the CPU has what [`read`] and [`read_to_lf`] need (std
    /// caches the answer: each test is a load).
    #[inline(always)]
    pub(super) fn available() -> bool {
        use std::arch::is_x86_feature_detected as has;
        has!("avx2") && has!("popcnt") && has!("bmi1") && has!("bmi2")
    }

    /// The bytes compared with, and what the words so far held. With
    /// `ENDS`, the bytes that may begin a line end other than LF are
    /// noted too (`LineScan::rare`).
    struct Reader<const QUOTES: bool, const ENDS: bool> {
        colon: __m256i,
        pipe: __m256i,
        semi: __m256i,
        back: __m256i,
        dquote: __m256i,
        other: __m256i,
        lf: __m256i,
        cr: __m256i,
        /// 0xE2, which a byte or-ed with 0x20 equals when it is C2 or E2.
        lead: __m256i,
        x20: __m256i,
        /// Every byte read, or-ed: its top bit says whether one was 0x80
        /// or more; every `"` found; every CR, C2 and E2 found.
        highs: __m256i,
        dquotes: __m256i,
        rares: __m256i,
    }

    /// 64 bytes as two vectors.
    type V = (__m256i, __m256i);

    /// The bytes of `v` equal to those of `b`, as two vectors.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn eq(v: V, b: __m256i) -> V {
        (_mm256_cmpeq_epi8(v.0, b), _mm256_cmpeq_epi8(v.1, b))
    }

    /// The top bits of the 64 bytes of `v`.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn bits(v: V) -> u64 {
        let lo = _mm256_movemask_epi8(v.0) as u32;
        let hi = _mm256_movemask_epi8(v.1) as u32;
        u64::from(lo) | u64::from(hi) << 32
    }

    /// The or of two pairs of vectors.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn or(a: V, b: V) -> V {
        (_mm256_or_si256(a.0, b.0), _mm256_or_si256(a.1, b.1))
    }

    impl<const QUOTES: bool, const ENDS: bool> Reader<QUOTES, ENDS> {
        /// # Safety
        ///
        /// The CPU must have AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn new(also: u8) -> Reader<QUOTES, ENDS> {
            Reader {
                colon: _mm256_set1_epi8(b':' as i8),
                pipe: _mm256_set1_epi8(b'|' as i8),
                semi: _mm256_set1_epi8(b';' as i8),
                back: _mm256_set1_epi8(b'\\' as i8),
                dquote: _mm256_set1_epi8(b'"' as i8),
                other: _mm256_set1_epi8(also as i8),
                lf: _mm256_set1_epi8(b'\n' as i8),
                cr: _mm256_set1_epi8(b'\r' as i8),
                lead: _mm256_set1_epi8(0xE2u8 as i8),
                x20: _mm256_set1_epi8(0x20),
                highs: _mm256_setzero_si256(),
                dquotes: _mm256_setzero_si256(),
                rares: _mm256_setzero_si256(),
            }
        }

        /// The bytes of `v` that are CR, C2 or E2.
        ///
        /// # Safety
        ///
        /// The CPU must have AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn rare(&self, v: V) -> V {
            // SAFETY: the CPU has AVX2 (the caller's promise).
            unsafe {
                let x20 = (self.x20, self.x20);
                or(eq(v, self.cr), eq(or(v, x20), self.lead))
            }
        }

        /// The masks of `v`, and its `"`.
        ///
        /// # Safety
        ///
        /// The CPU must have AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn word(&self, v: V) -> (Word, V) {
            // SAFETY: the CPU has AVX2 (the caller's promise).
            unsafe {
                let dq = if QUOTES { eq(v, self.dquote) } else { v };
                let word = Word {
                    colons: bits(eq(v, self.colon)),
                    pipes: bits(eq(v, self.pipe)),
                    semis: bits(eq(v, self.semi)),
                    backs: bits(eq(v, self.back)),
                    quotes: match QUOTES {
                        true => bits(or(dq, eq(v, self.other))),
                        false => 0,
                    },
                };
                (word, dq)
            }
        }

        /// Where the first LF in `v` is, if any.
        ///
        /// # Safety
        ///
        /// The CPU must have AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn lf(&self, v: V) -> Option<u32> {
            // SAFETY: the CPU has AVX2 (the caller's promise).
            let lf = unsafe { bits(eq(v, self.lf)) };
            (lf != 0).then(|| lf.trailing_zeros())
        }

        /// The masks of `v`, all of which belongs to the line.
        ///
        /// # Safety
        ///
        /// The CPU must have AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn full(&mut self, v: V) -> Word {
            // SAFETY: the CPU has AVX2 (the caller's promise).
            unsafe {
                let (word, dq) = self.word(v);
                self.highs =
                    _mm256_or_si256(self.highs, _mm256_or_si256(v.0, v.1));
                if QUOTES {
                    self.dquotes = _mm256_or_si256(
                        self.dquotes,
                        _mm256_or_si256(dq.0, dq.1),
                    );
                }
                if ENDS {
                    let rare = self.rare(v);
                    self.rares = _mm256_or_si256(
                        self.rares,
                        _mm256_or_si256(rare.0, rare.1),
                    );
                }
                word
            }
        }

        /// The masks of the first `n` bytes of `v` (`n < 64`), the last of
        /// the line; the others are not the line's.
        ///
        /// # Safety
        ///
        /// The CPU must have AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn last(&self, v: V, n: u32, scan: &mut LineScan) -> Word {
            let keep = (1u64 << n) - 1;
            // SAFETY: the CPU has AVX2 (the caller's promise).
            unsafe {
                let (word, dq) = self.word(v);
                scan.high |= bits(v) & keep != 0;
                if QUOTES {
                    scan.any_dquote |= bits(dq) & keep != 0;
                }
                if ENDS {
                    scan.rare |= bits(self.rare(v)) & keep != 0;
                }
                word.first(n)
            }
        }

        /// Notes what the full words held in `scan`.
        ///
        /// # Safety
        ///
        /// The CPU must have AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn finish(&self, scan: &mut LineScan) {
            scan.high |= _mm256_movemask_epi8(self.highs) != 0;
            scan.any_dquote |= _mm256_movemask_epi8(self.dquotes) != 0;
            if ENDS {
                scan.rare |= _mm256_movemask_epi8(self.rares) != 0;
            }
            scan.finish();
        }
    }

    /// Keeps the masks of word `w` of the line in `scan`, and notes its
    /// colons and the fields its quote bytes, `\` and `;` are in, with
    /// no branch on what the word holds (how many of each, which a CPU
    /// cannot foresee from line to line).
    ///
    /// A field that holds a bit of a mask `m`: in `!colons + m`, the
    /// carry from each bit of `m` runs up through the bytes that are not
    /// colons to the colon that ends its field, and sets it (or carries
    /// out of the word, for the field still open at its end); the colons
    /// so set, taken out in order (PEXT), are the word's fields that hold
    /// a bit of `m`, counted from the one open at its start.
    ///
    /// # Safety
    ///
    /// The CPU must have POPCNT, BMI1 and BMI2 (the callers are compiled
    /// for them, and this is inlined into them); `w` is below
    /// `MAX_LEN / 64`.
    #[inline(always)]
    unsafe fn word<const QUOTES: bool, const PEXT: bool>(
        scan: &mut LineScan,
        w: usize,
        m: Word,
    ) {
        scan.pipes[w] = m.pipes;
        scan.semis[w] = m.semis;
        scan.backs[w] = m.backs;
        scan.quotes[w] = m.quotes;
        let before = scan.colons;
        let colons = m.colons;
        let k = colons.count_ones();
        if before >= 8 {
            // All of the word is the comment.
            let comment = |mask: u64| u16::from(mask != 0) << 8;
            scan.back_fields |= comment(m.backs);
            if QUOTES {
                scan.quote_fields |= comment(m.quotes);
                scan.semi_fields |= comment(m.semis);
            }
            scan.colons = before + k;
            return;
        }
        // The fields of the line (past the 8th colon, all is the comment,
        // field 8) that hold a bit of `mask`.
        let fields = |mask: u64| -> u16 {
            let (sum, out) = (!colons).overflowing_add(mask);
            let local = if PEXT {
                // SAFETY: the CPU has BMI2 (the caller's promise).
                unsafe { _pext_u64(sum & colons, colons) }
            } else {
                pext(sum & colons, colons)
            } | u64::from(out).wrapping_shl(k);
            let low = (local << before) & 0xff;
            let high = local >> (8 - before) != 0;
            low as u16 | u16::from(high) << 8
        };
        scan.back_fields |= fields(m.backs);
        if QUOTES {
            scan.quote_fields |= fields(m.quotes);
            scan.semi_fields |= fields(m.semis);
        }
        // The first 8 colons end the fields: this word's are written from
        // the next end on, and 8 of them whatever their number (the ends
        // after the word's colons are written again by the next words, or
        // lie past the 8th).
        let (base, n) = (64 * w, before as usize);
        let mut rest = colons;
        for j in 0..8 {
            scan.ends[n + j] = base + rest.trailing_zeros() as usize;
            rest &= rest.wrapping_sub(1);
        }
        scan.colons = before + k;
    }

    /// `$f::<QUOTES, PEXT>($args.., also)`, the one of the four chosen
    /// by `$also` (`None`: no quote bytes, and 0 for the byte) and
    /// `$fast` (whether PEXT is fast, [`fast_pext`]): the one place where
    /// [`read_line`] and [`read_line_to_lf`] choose.
    macro_rules! with_kind {
        ($f:ident($($arg:expr),*), $also:expr, $fast:expr) => {
            match ($also, $fast) {
                (Some(b), true) => $f::<true, true>($($arg,)* b),
                (Some(b), false) => $f::<true, false>($($arg,)* b),
                (None, true) => $f::<false, true>($($arg,)* 0),
                (None, false) => $f::<false, false>($($arg,)* 0),
            }
        };
    }

    /// [`read`] of a line with `also` (`None`: no quote bytes), PEXT as
    /// the CPU does it best ([`fast_pext`]).
    ///
    /// # Safety
    ///
    /// As [`read`].
    #[inline(always)]
    pub(super) unsafe fn read_line(
        scan: &mut LineScan,
        content: &[u8],
        also: Option<u8>,
    ) {
        // SAFETY: the caller's promise.
        unsafe { with_kind!(read(scan, content), also, fast_pext()) }
    }

    /// [`read_to_lf`] with `also` as for [`read_line`], and PEXT as
    /// `fast` says ([`fast_pext`]'s answer, which a caller that reads
    /// many lines asks once).
    ///
    /// # Safety
    ///
    /// As [`read_to_lf`].
    #[inline(always)]
    pub(super) unsafe fn read_line_to_lf(
        scan: &mut LineScan,
        bytes: &[u8],
        start: usize,
        also: Option<u8>,
        fast: bool,
    ) -> Option<(usize, bool)> {
        // SAFETY: the caller's promise.
        unsafe { with_kind!(read_to_lf(scan, bytes, start), also, fast) }
    }

    /// Whether the CPU's PEXT is fast. AMD's before Zen 3 (family 0x19)
    /// run it in microcode, a few hundred cycles for a word of many bits:
    /// [`pext`] does the same in a few dozen instructions there.
    pub(super) fn fast_pext() -> bool {
        use std::sync::atomic::Ordering;
        match FAST.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => {
                let fast = !slow_pext_cpu();
                FAST.store(if fast { 1 } else { 2 }, Ordering::Relaxed);
                fast
            }
        }
    }

    /// [`fast_pext`]'s answer once known: 1 yes, 2 no, 0 not asked yet
    /// (a test sets 2, to read lines as such a CPU does: the same).
    pub(super) static FAST: std::sync::atomic::AtomicU8 =
        std::sync::atomic::AtomicU8::new(0);

    /// Whether the CPU is an AMD one of a family before 0x19, or a Hygon
    /// one (family 0x18, Zen 1 as AMD's, its PEXT as slow).
    fn slow_pext_cpu() -> bool {
        use std::arch::x86_64::__cpuid;
        // CPUID is on every x86-64 CPU; leaves 0 and 1 always exist.
        let (vendor, signature) = (__cpuid(0), __cpuid(1));
        let vendor =
            [vendor.ebx, vendor.edx, vendor.ecx].map(u32::to_le_bytes);
        let amd =
            matches!(vendor.as_flattened(), b"AuthenticAMD" | b"HygonGenuine");
        let base = (signature.eax >> 8) & 0xf;
        let family = if base == 0xf {
            base + ((signature.eax >> 20) & 0xff)
        } else {
            base
        };
        amd && family < 0x19
    }

    /// The bits of `x` where `mask` has its set bits, packed at the
    /// bottom in order, as PEXT gives them: a bit of `mask` at a time.
    #[inline]
    pub(super) fn pext(x: u64, mut mask: u64) -> u64 {
        let (mut out, mut k) = (0, 0);
        while mask != 0 {
            let low = mask & mask.wrapping_neg();
            out |= u64::from(x & low != 0) << k;
            k += 1;
            mask ^= low;
        }
        out
    }

    /// 64 bytes from `at`, zeros past the end of `bytes`.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load(bytes: &[u8], at: usize) -> V {
        if at + 64 > bytes.len() {
            // SAFETY: the CPU has AVX2 (the caller's promise).
            return unsafe { load_end(bytes, at) };
        }
        let from = bytes.as_ptr().wrapping_add(at);
        // SAFETY: `from` points at 64 bytes of `bytes`; the loads have no
        // alignment requirement.
        unsafe {
            (
                _mm256_loadu_si256(from.cast()),
                _mm256_loadu_si256(from.add(32).cast()),
            )
        }
    }

    /// [`load`] near the end of `bytes`, through a zeroed buffer: apart,
    /// so that the usual load does not zero it.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx2")]
    unsafe fn load_end(bytes: &[u8], at: usize) -> V {
        let mut buf = [0u8; 64];
        let rest = &bytes[at.min(bytes.len())..];
        buf[..rest.len()].copy_from_slice(rest);
        let from = buf.as_ptr();
        // SAFETY: `from` points at the 64 bytes of `buf`; the loads have
        // no alignment requirement.
        unsafe {
            (
                _mm256_loadu_si256(from.cast()),
                _mm256_loadu_si256(from.add(32).cast()),
            )
        }
    }

    /// [`LineScan::read`] 64 bytes at a time. The last bytes are read in
    /// place, as the last 64 of the line with the masks shifted to drop
    /// those already read; only a line shorter than 64 bytes is copied,
    /// to a zeroed buffer.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2, POPCNT, BMI1 and BMI2 ([`available`]);
    /// `content`
    /// is shorter than [`MAX_LEN`].
    #[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
    unsafe fn read<const QUOTES: bool, const PEXT: bool>(
        scan: &mut LineScan,
        content: &[u8],
        also: u8,
    ) {
        let len = content.len();
        // SAFETY (of every call below): the CPU has AVX2, POPCNT, BMI1 and
        // BMI2; each word is below `MAX_LEN / 64`.
        let mut r = unsafe { Reader::<QUOTES, false>::new(also) };
        let mut base = 0;
        while base + 64 <= len {
            let m = unsafe { r.full(load(content, base)) };
            unsafe { word::<QUOTES, PEXT>(scan, base / 64, m) };
            base += 64;
        }
        if base < len {
            let m = if len >= 64 {
                // The last 64 bytes, of which the first `64 - tail` were
                // read already.
                let drop = (64 - (len - base)) as u32;
                unsafe { r.full(load(content, len - 64)) }.after(drop)
            } else {
                // Zeros are not special, nor high.
                unsafe { r.full(load(content, 0)) }
            };
            unsafe { word::<QUOTES, PEXT>(scan, base / 64, m) };
        }
        unsafe { r.finish(scan) };
    }

    /// [`LineScan::read_to_lf`]: the line is read 64 bytes at a time
    /// from its start, and ends at the first LF found.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2, POPCNT, BMI1 and BMI2 ([`available`]);
    /// `start < bytes.len()`.
    // Not inlined: it keeps the scan one stage in a profile
    // (bench/stages.sh).
    #[inline(never)]
    #[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
    unsafe fn read_to_lf<const QUOTES: bool, const PEXT: bool>(
        scan: &mut LineScan,
        bytes: &[u8],
        start: usize,
        also: u8,
    ) -> Option<(usize, bool)> {
        // SAFETY (of every call below): the CPU has AVX2, POPCNT, BMI1 and
        // BMI2; each word is below `MAX_LEN / 64`.
        let mut r = unsafe { Reader::<QUOTES, true>::new(also) };
        let mut utf8 = unsafe { Utf8::new() };
        let mut at = start;
        let mut w = 0;
        while at < bytes.len() && w < MAX_LEN / 64 {
            let v = unsafe { load(bytes, at) };
            if let Some(n) = unsafe { r.lf(v) } {
                scan.len = at - start + n as usize;
                scan.utf8 = Some(unsafe { utf8.last(v, n) });
                let m = unsafe { r.last(v, n, scan) };
                unsafe { word::<QUOTES, PEXT>(scan, w, m) };
                unsafe { r.finish(scan) };
                return Some((at + n as usize, true));
            }
            unsafe { utf8.word(v) };
            let m = unsafe { r.full(v) };
            unsafe { word::<QUOTES, PEXT>(scan, w, m) };
            at += 64;
            w += 1;
        }
        // Too long for the scan, or no LF.
        let from = at.min(bytes.len());
        memchr::memchr(b'\n', &bytes[from..]).map(|i| (from + i, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    /// The PEXT done a bit at a time, for CPUs whose PEXT is slow, gives
    /// what the instruction gives, on masks sparse and dense.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn pext_by_bits_is_pext() {
        if !std::arch::is_x86_feature_detected!("bmi2") {
            return;
        }
        let mut rng = Rng::new(5);
        for round in 0..20_000 {
            let word = |rng: &mut Rng| {
                (0..4).fold(0u64, |w, _| w << 16 | rng.below(1 << 16) as u64)
            };
            let x = word(&mut rng);
            let mut mask = word(&mut rng);
            for _ in 0..round % 4 {
                mask &= word(&mut rng);
            }
            // SAFETY: the CPU has BMI2 (tested above).
            let want = unsafe { std::arch::x86_64::_pext_u64(x, mask) };
            assert_eq!(avx2::pext(x, mask), want, "{x:x} {mask:x}");
        }
    }

    /// Everything a scan says about a line, for comparing two scans.
    fn summary(scan: &LineScan) -> String {
        let len = scan.len;
        let words = len.div_ceil(64);
        let n = (scan.colons as usize).min(8);
        let mut s = format!(
            "len {len} colons {} ends {:?} fields {:b} {:b} {:b} dquote {} \
             high {}",
            scan.colons,
            &scan.ends[..n],
            scan.quote_fields,
            scan.back_fields,
            scan.semi_fields,
            scan.any_dquote,
            scan.high
        );
        if scan.colons >= 8 {
            s += &format!(" last {}", scan.ends[8]);
        }
        for masks in [&scan.pipes, &scan.semis, &scan.backs, &scan.quotes] {
            s += &format!(" {:x?}", &masks[..words]);
        }
        s
    }

    fn random_line(rng: &mut Rng, len: usize) -> Vec<u8> {
        const SPECIAL: &[u8] = b":|;\\\",\t\x80\xc3\xffax";
        (0..len)
            .map(|_| match rng.below(3) {
                0 => SPECIAL[rng.below(SPECIAL.len())],
                _ => b'a' + rng.below(3) as u8,
            })
            .collect()
    }

    #[test]
    fn vector_and_byte_reading_agree_at_every_length() {
        vector_and_byte_reading_agree();
        // As on a CPU whose PEXT is slow (other tests may read so too
        // meanwhile: the same).
        #[cfg(target_arch = "x86_64")]
        {
            use std::sync::atomic::Ordering;
            avx2::FAST.store(2, Ordering::Relaxed);
            vector_and_byte_reading_agree();
            avx2::FAST.store(0, Ordering::Relaxed);
        }
    }

    fn vector_and_byte_reading_agree() {
        let mut rng = Rng::new(17);
        for len in (0..=300).chain([MAX_LEN - 2, MAX_LEN - 1]) {
            for round in 0..30 {
                let line = random_line(&mut rng, len);
                let also = [Some(b','), Some(b'\t'), None][round % 3];
                let mut fast = LineScan::new();
                let mut slow = LineScan::new();
                assert!(fast.read(&line, also));
                slow.start(line.len());
                slow.read_bytes(&line, also);
                assert_eq!(summary(&fast), summary(&slow), "{line:?}");
            }
        }
        assert!(!LineScan::new().read(&[b'a'; MAX_LEN], Some(b',')));
    }

    /// Lines found by their LF in a block of lines, read as they are
    /// found, are read as [`LineScan::read`] reads each alone; a line too
    /// long is found but not read.
    #[test]
    fn lines_read_to_their_lf_are_read_as_alone() {
        let mut rng = Rng::new(23);
        for round in 0..300 {
            let mut block = vec![];
            let mut lines = vec![];
            for _ in 0..rng.below(20) {
                let len = match rng.below(10) {
                    0 => MAX_LEN - 5 + rng.below(10),
                    _ => rng.below(200),
                };
                let line = random_line(&mut rng, len);
                block.extend_from_slice(&line);
                block.push(b'\n');
                lines.push(line);
            }
            let first = round as u64;
            let mut scan = LineScan::new();
            let mut got = vec![];
            each_lf_line(
                &block,
                first,
                &mut scan,
                Some(b','),
                |_, line, scan, read| {
                    let content = line.content().to_vec();
                    let mut alone = LineScan::new();
                    let whole = alone.read(&content, Some(b','));
                    assert_eq!(read, whole);
                    if read {
                        assert_eq!(
                            summary(scan),
                            summary(&alone),
                            "{content:?}"
                        );
                    }
                    assert_eq!(line.end(), LineEnd::Lf);
                    got.push((line.number(), content));
                },
            );
            let want: Vec<_> = (first..).zip(lines).collect();
            assert_eq!(got, want);
        }
    }

    /// Blocks of lines with every line end, and bytes that look like the
    /// start of one (the en dash E2 80 93, C2 A0, Cyrillic `х` D1 85),
    /// read by their LF up to the first line that ends otherwise and then
    /// by a line reader from there, as pbi2csv and pbi-grep read a batch:
    /// the same lines as a line reader of the whole block, and the scan
    /// of each line read by LF the scan of the line alone.
    #[test]
    fn lines_read_by_lf_stop_where_another_line_end_is() {
        use crate::lines::LineReader;
        const PIECES: &[&[u8]] = &[
            b"a",
            b"bc:",
            b"|",
            b";",
            b"\\x3a",
            b",",
            b"\r",
            b"\xC2\x85",
            b"\xE2\x80\xA8",
            b"\xE2\x80\x93",
            b"\xC2\xA0",
            b"\xD1\x85",
            b"\xC2",
            b"\xE2\x80",
            b"\xE2",
        ];
        const ENDS: &[&[u8]] = &[
            b"\n",
            b"\n",
            b"\n",
            b"\r\n",
            b"\r",
            b"\xC2\x85",
            b"\xE2\x80\xA8",
        ];
        let mut rng = Rng::new(31);
        for round in 0..3000 {
            let mut block = vec![];
            for _ in 0..rng.below(12) {
                let len = match rng.below(20) {
                    0 => MAX_LEN + rng.below(40),
                    _ => rng.below(150),
                };
                let start = block.len();
                while block.len() - start < len {
                    let piece = match rng.below(4) {
                        0 => PIECES[rng.below(PIECES.len())],
                        _ => b"x",
                    };
                    block.extend_from_slice(piece);
                }
                // Mostly LF, so that runs of them come before the others.
                let end = match rng.below(8) {
                    0 => ENDS[rng.below(ENDS.len())],
                    _ => b"\n",
                };
                block.extend_from_slice(end);
            }
            if rng.below(4) == 0 {
                block.extend_from_slice(b"no end");
            }
            let first = 1 + round as u64;
            let mut want = vec![];
            let mut all = LineReader::in_place(block.clone(), first);
            while let Some(line) = all.next_line().unwrap() {
                want.push((
                    line.content().to_vec(),
                    line.end(),
                    line.number(),
                ));
            }
            let mut got = vec![];
            let mut scan = LineScan::new();
            let (stop, next) = each_lf_line(
                &block,
                first,
                &mut scan,
                Some(b','),
                |at, line, scan, read| {
                    let content = line.content().to_vec();
                    assert_eq!(&block[at..at + content.len()], &content[..]);
                    let mut alone = LineScan::new();
                    assert_eq!(read, alone.read(&content, Some(b',')));
                    if read {
                        assert_eq!(summary(scan), summary(&alone));
                    }
                    got.push((content, line.end(), line.number()));
                },
            );
            assert_eq!(next - first, got.len() as u64);
            // It stops only at a line that does not end with LF alone.
            if let Some(line) = want.get(got.len()) {
                assert_ne!(line.1, LineEnd::Lf, "{block:?}");
            }
            assert_eq!(stop == block.len(), got.len() == want.len());
            let mut rest =
                LineReader::in_place_from(block.clone(), stop, next);
            while let Some(line) = rest.next_line().unwrap() {
                got.push((line.content().to_vec(), line.end(), line.number()));
            }
            assert_eq!(got, want, "{block:?}");
        }
    }

    /// Lists of items of 2 to 4 pipes, at every offset across the words.
    #[test]
    fn items_of_3_pipes_are_told_across_words() {
        let mut rng = Rng::new(29);
        for _ in 0..20_000 {
            let mut line: Vec<u8> =
                (0..rng.below(130)).map(|_| b'a').collect();
            let start = line.len();
            let items = 1 + rng.below(6);
            for i in 0..items {
                if i > 0 {
                    line.push(b';');
                }
                let pipes =
                    if rng.below(8) == 0 { 2 + 2 * rng.below(2) } else { 3 };
                for _ in 0..pipes {
                    line.extend((0..rng.below(20)).map(|_| b'x'));
                    line.push(b'|');
                }
                line.extend((0..rng.below(20)).map(|_| b'y'));
            }
            let end = line.len();
            line.extend((0..rng.below(40)).map(|_| b"|;a"[rng.below(3)]));
            let mut scan = LineScan::new();
            assert!(scan.read(&line, None));
            let want = line[start..end]
                .split(|&c| c == b';')
                .all(|item| item.iter().filter(|&&c| c == b'|').count() == 3);
            assert_eq!(scan.items_hold_3_pipes(start, end), want, "{line:?}");
        }
    }

    #[test]
    fn ranges_agree_with_byte_loops() {
        let mut rng = Rng::new(19);
        for _ in 0..300 {
            let len = rng.below(300);
            let line: Vec<u8> =
                (0..len).map(|_| b"|;\\\"a:"[rng.below(6)]).collect();
            let mut scan = LineScan::new();
            scan.read(&line, Some(b','));
            for _ in 0..50 {
                let a = rng.below(len + 1);
                let b = a + rng.below(len + 1 - a);
                let part = &line[a..b];
                let at = |c: u8| -> Vec<usize> {
                    (a..b).filter(|&i| line[i] == c).collect()
                };
                assert_eq!(scan.any_pipe(a, b), part.contains(&b'|'));
                assert_eq!(scan.any_semi(a, b), part.contains(&b';'));
                assert_eq!(scan.any_back(a, b), part.contains(&b'\\'));
                assert_eq!(scan.any_quote(a, b), part.contains(&b'"'));
                assert_eq!(scan.count_pipes(a, b) as usize, at(b'|').len());
                assert_eq!(scan.semis(a, b).collect::<Vec<_>>(), at(b';'));
                assert_eq!(scan.pipes(a, b).collect::<Vec<_>>(), at(b'|'));
                if a < b {
                    let want = part.split(|&c| c == b';').all(|item| {
                        item.iter().filter(|&&c| c == b'|').count() == 3
                    });
                    assert_eq!(
                        scan.items_hold_3_pipes(a, b),
                        want,
                        "{part:?}"
                    );
                }
            }
            let backs: Vec<usize> =
                (0..len).filter(|&i| line[i] == b'\\').collect();
            assert_eq!(scan.backslashes().collect::<Vec<_>>(), backs);
        }
    }
}
