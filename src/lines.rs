//! The line scanner that every tool reads its input through.
//!
//! [`LineReader`] reads any [`io::Read`] through one reusable buffer and
//! lends each line as a [`Line`]: the bytes of the line, the line end that
//! closed it and its number. The line ends are the five that the PBI
//! specification allows, and they may be mixed in one input:
//!
//! | [`LineEnd`] | bytes |
//! | --- | --- |
//! | `Lf` | `0A` |
//! | `Cr` | `0D` |
//! | `CrLf` | `0D 0A` |
//! | `Nel` (U+0085) | `C2 85` |
//! | `Ls` (U+2028) | `E2 80 A8` |
//!
//! Bytes after the last line end come out as a line with
//! [`LineEnd::None`]; what that means is the format's business.
//!
//! A line end split by a read boundary (`0D|0A`, `C2|85`, `E2|80 A8`,
//! `E2 80|A8`) is still one line end: a line is lent only when the bytes
//! that follow it are known. Nothing is allocated per line; a line is
//! copied only when it straddles a refill of the buffer, and the buffer
//! grows only to hold the longest line.
//!
//! The search works the way a fast scanner must on text that is dense in
//! the lead bytes `C2` and `E2` (accented Latin, Cyrillic, typographic
//! punctuation): `memchr2` finds the next CR or LF, and two
//! `memmem::Finder`s find the next NEL and LS. The multi-byte finds are
//! cached, so each one costs a single search per occurrence (or per
//! refill), not one per line.

use std::io::{self, Read};

use memchr::{memchr2, memchr_iter, memmem};

/// The buffer size a [`LineReader`] starts with, as in ripgrep.
pub const DEFAULT_CAPACITY: usize = 64 * 1024;

/// The byte order mark, U+FEFF in UTF-8.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

const NEL: &[u8] = b"\xC2\x85";
const LS: &[u8] = b"\xE2\x80\xA8";

/// What ended a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineEnd {
    /// LF, `0A`.
    Lf,
    /// CR, `0D`, not followed by LF.
    Cr,
    /// CR LF, `0D 0A`.
    CrLf,
    /// NEL, U+0085, `C2 85`.
    Nel,
    /// LINE SEPARATOR, U+2028, `E2 80 A8`.
    Ls,
    /// Nothing: the input ended.
    None,
}

impl LineEnd {
    /// The bytes of this line end (empty for [`LineEnd::None`]).
    pub fn as_bytes(self) -> &'static [u8] {
        match self {
            LineEnd::Lf => b"\n",
            LineEnd::Cr => b"\r",
            LineEnd::CrLf => b"\r\n",
            LineEnd::Nel => NEL,
            LineEnd::Ls => LS,
            LineEnd::None => b"",
        }
    }

    /// Every line end that ends a line, in the order of the table above.
    pub const ALL: [LineEnd; 5] =
        [LineEnd::Lf, LineEnd::Cr, LineEnd::CrLf, LineEnd::Nel, LineEnd::Ls];

    /// The line end whose bytes `bytes` are, as [`find_line_end`] finds
    /// them; [`LineEnd::None`] for anything else (no bytes included).
    pub fn of(bytes: &[u8]) -> LineEnd {
        LineEnd::ALL
            .into_iter()
            .find(|end| end.as_bytes() == bytes)
            .unwrap_or(LineEnd::None)
    }

    /// Whether this is a line end that only Unicode knows (U+0085,
    /// U+2028), not LF or CR.
    pub fn is_unicode(self) -> bool {
        matches!(self, LineEnd::Nel | LineEnd::Ls)
    }
}

/// One line lent by a [`LineReader`].
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    raw: &'a [u8],
    end: LineEnd,
    number: u64,
    after_bom: bool,
}

impl<'a> Line<'a> {
    /// The line `raw`, which ends with `end`, numbered `number`, not
    /// after a BOM: for a reader in this crate that finds lines itself.
    #[inline]
    pub(crate) fn new(raw: &'a [u8], end: LineEnd, number: u64) -> Line<'a> {
        debug_assert!(raw.ends_with(end.as_bytes()));
        Line { raw, end, number, after_bom: false }
    }

    /// The line without its line end.
    #[inline]
    pub fn content(&self) -> &'a [u8] {
        &self.raw[..self.raw.len() - self.end.as_bytes().len()]
    }

    /// The line with its line end, exactly as read.
    #[inline]
    pub fn raw(&self) -> &'a [u8] {
        self.raw
    }

    /// The line end that closed the line.
    #[inline]
    pub fn end(&self) -> LineEnd {
        self.end
    }

    /// The line's number in its input, counted from 1. A skipped BOM does
    /// not count.
    #[inline]
    pub fn number(&self) -> u64 {
        self.number
    }

    /// Whether a BOM stood before this line (and was skipped): only ever
    /// true of line 1.
    #[inline]
    pub fn after_bom(&self) -> bool {
        self.after_bom
    }
}

/// The cached position of the next line end of one kind (CR or LF, NEL,
/// LS).
///
/// `at` is the start of the next occurrence found by searching from
/// `from`; `None` when there was none before the end of the data. The
/// cache holds until the buffer is refilled.
#[derive(Clone, Copy, Debug)]
struct Found {
    from: usize,
    at: Option<usize>,
    valid: bool,
}

impl Found {
    const STALE: Found = Found { from: 0, at: None, valid: false };

    /// The next occurrence at or after `from` in `hay`, searched with
    /// `find` only when the cached answer does not hold.
    #[inline]
    fn next(
        &mut self,
        hay: &[u8],
        from: usize,
        find: impl FnOnce(&[u8]) -> Option<usize>,
    ) -> Option<usize> {
        let fresh = self.valid
            && from >= self.from
            && self.at.is_none_or(|at| at >= from);
        if !fresh {
            self.at = find(&hay[from..]).map(|i| from + i);
            self.from = from;
            self.valid = true;
        }
        self.at
    }
}

/// The search for the next CR or LF: `memchr2`, with the AVX2 searcher
/// chosen once where there is one rather than on every call (through
/// `memchr2`'s function pointer and wrappers, a third of the cost of a
/// search on lines of a few dozen bytes).
struct CrLfFinder {
    #[cfg(target_arch = "x86_64")]
    avx2: Option<memchr::arch::x86_64::avx2::memchr::Two>,
}

impl CrLfFinder {
    fn new() -> CrLfFinder {
        CrLfFinder {
            #[cfg(target_arch = "x86_64")]
            avx2: memchr::arch::x86_64::avx2::memchr::Two::new(b'\n', b'\r'),
        }
    }

    /// The offset of the first CR or LF in `hay`.
    #[inline]
    fn find(&self, hay: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(two) = &self.avx2 {
            return two.find(hay);
        }
        memchr2(b'\n', b'\r', hay)
    }
}

/// Where a search for the end of the current line stopped.
enum Scan {
    /// The line's content ends at `.0`, and its line end is `.1`.
    Found(usize, LineEnd),
    /// No line end yet: read more, then search again from `.0`.
    More(usize),
}

/// Where the lines of `hay` that end with LF, CR LF or CR end: after the
/// first such line end at or after `from`, or else after the last one;
/// 0 when there is none. A CR that is the last byte of `hay` ends no line
/// yet: an LF may follow.
fn cut(hay: &[u8], from: usize) -> usize {
    match memchr2(b'\n', b'\r', &hay[from..]) {
        Some(i) => match line_end_after(hay, from + i) {
            Some(cut) => cut,
            None => last_cut_before(hay, from + i),
        },
        None => last_cut_before(hay, hay.len()),
    }
}

/// The end of the line end that starts at `hay[at]`, an LF or a CR;
/// `None` for a CR whose next byte is not in `hay`.
fn line_end_after(hay: &[u8], at: usize) -> Option<usize> {
    if hay[at] == b'\n' {
        return Some(at + 1);
    }
    match hay.get(at + 1) {
        Some(b'\n') => Some(at + 2),
        Some(_) => Some(at + 1),
        None => None,
    }
}

/// The end of the last line of `hay[..upto]` that ends with LF, CR LF or
/// CR (0 when there is none).
fn last_cut_before(hay: &[u8], upto: usize) -> usize {
    match memchr::memrchr2(b'\n', b'\r', &hay[..upto]) {
        None => 0,
        Some(at) => match line_end_after(hay, at) {
            Some(cut) if cut <= upto => cut,
            // A CR at the very end, or one whose LF is past `upto`: the
            // line before it.
            _ => last_cut_before(hay, at),
        },
    }
}

/// How many lines the whole lines `chunk` holds, which end with LF, CR LF
/// or CR (and not with a CR that an LF after `chunk` would make CR LF).
fn count_lines(chunk: &[u8]) -> u64 {
    let lf = memchr_iter(b'\n', chunk).count();
    let lone_cr = memchr_iter(b'\r', chunk)
        .filter(|&at| chunk.get(at + 1) != Some(&b'\n'))
        .count();
    (lf + lone_cr) as u64
}

/// Where the line end of `finder` (NEL or LS) first starts in `hay`.
///
/// Its last byte (0x85, 0xA8) is found with `memchr`, several times
/// cheaper than `memmem` and rare in most text (in French, `è` is C3 A8);
/// after a few that end something else (Cyrillic `х` is D1 85), the rest
/// is searched with `memmem`, which such text does not slow down.
fn find_end(hay: &[u8], finder: &memmem::Finder<'_>) -> Option<usize> {
    let needle = finder.needle();
    let (last, lead) = needle.split_last().expect("a line end");
    // Where the next one can end: past the lead bytes.
    let mut from = lead.len();
    for _ in 0..8 {
        let at = from + memchr::memchr(*last, hay.get(from..)?)?;
        let start = at - lead.len();
        if &hay[start..at] == lead {
            return Some(start);
        }
        from = at + 1;
    }
    // No line end starts before `from - lead.len()`.
    let start = from - lead.len();
    finder.find(&hay[start..]).map(|at| start + at)
}

/// How many lines end in `bytes`: its LF, its CR not followed by LF,
/// its NEL and its LS. Each kind is found by a search of the whole of
/// `bytes`, with no look at each line.
pub fn count_line_ends(bytes: &[u8]) -> u64 {
    line_ends(bytes).count
}

/// The line ends of a block of bytes: [`line_ends`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineEnds {
    /// How many lines end in the block.
    pub count: u64,
    /// Whether every line end in it is an LF: it holds no CR, no NEL and
    /// no LS.
    pub lf_only: bool,
}

/// How many lines end in `bytes`, and whether all end with LF, as
/// [`count_line_ends`] counts them. The LF are counted 32 bytes at a
/// time; a NEL or LS is found by its lead byte (C2, E2), which text
/// holds far more rarely than their last bytes (Cyrillic `х` is D1 85);
/// the CR are counted one by one only if there is one.
pub fn line_ends(bytes: &[u8]) -> LineEnds {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { avx2::line_ends(bytes) };
    }
    line_ends_by_search(bytes)
}

/// [`line_ends`] by a search for each kind: without AVX2, and the
/// reference the vector counting is tested against.
fn line_ends_by_search(bytes: &[u8]) -> LineEnds {
    let nel_ls = memchr::memchr2_iter(0xC2, 0xE2, bytes)
        .filter(|&at| {
            let rest = &bytes[at..];
            rest.starts_with(NEL) || rest.starts_with(LS)
        })
        .count() as u64;
    if memchr::memchr(b'\r', bytes).is_some() {
        return LineEnds {
            count: count_lines(bytes) + nel_ls,
            lf_only: false,
        };
    }
    LineEnds { count: count_byte(bytes, b'\n') + nel_ls, lf_only: nel_ls == 0 }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_cmpeq_epi8,
        _mm256_extract_epi64, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_sad_epu8, _mm256_set1_epi8,
        _mm256_setzero_si256, _mm256_sub_epi8,
    };

    use super::{LineEnds, LS, NEL};

    /// 64 bytes of 0xFF, then 64 of 0: from `64 - n` on, a mask of the
    /// first `n` of 64 bytes.
    static FIRST: [u8; 128] = {
        let mut t = [0; 128];
        let mut i = 0;
        while i < 64 {
            t[i] = 0xFF;
            i += 1;
        }
        t
    };

    /// The 64 bytes `v` with those from the `n`-th on made 0: the first
    /// `n` of a block whose bytes after them are not its own (a line's
    /// next, an input's end).
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2; `n` is at most 64.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn first(v: [__m256i; 2], n: usize) -> [__m256i; 2] {
        debug_assert!(n <= 64);
        // SAFETY: `FIRST` has 64 bytes from `64 - n` (`n` at most 64, the
        // caller's promise); the loads have no alignment requirement.
        unsafe {
            let at = FIRST.as_ptr().add(64 - n);
            [
                _mm256_and_si256(v[0], _mm256_loadu_si256(at.cast())),
                _mm256_and_si256(v[1], _mm256_loadu_si256(at.add(32).cast())),
            ]
        }
    }

    /// [`super::line_ends`] 64 bytes at a time: the LF are counted in
    /// byte-wide counters; a block that holds a CR or a lead byte of NEL
    /// or LS (C2, E2; rare in text, unlike their last bytes) is looked at
    /// byte by byte for those. The last bytes, fewer than 64, are read
    /// as a block of their own with zeros after them.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn line_ends(bytes: &[u8]) -> LineEnds {
        let zero = _mm256_setzero_si256();
        let (mut count, mut crs, mut nel_ls) = (0u64, false, 0u64);
        let whole = bytes.len() - bytes.len() % 64;
        let mut at = 0;
        while at < whole {
            // Each counter counts at most 255 blocks before it is emptied.
            let stop = whole.min(at + 255 * 64);
            let mut lanes = [zero; 2];
            while at < stop {
                // SAFETY: the CPU has AVX2; `at + 64 <= bytes.len()`.
                let rare =
                    unsafe { block(bytes.as_ptr().add(at), &mut lanes) };
                if rare != 0 {
                    rare_ends(bytes, at, rare, &mut crs, &mut nel_ls);
                }
                at += 64;
            }
            count += sum(lanes);
        }
        if at < bytes.len() {
            let mut tail = [0u8; 64];
            tail[..bytes.len() - at].copy_from_slice(&bytes[at..]);
            let mut lanes = [zero; 2];
            // SAFETY: the CPU has AVX2; `tail` has 64 bytes.
            let rare = unsafe { block(tail.as_ptr(), &mut lanes) };
            if rare != 0 {
                rare_ends(bytes, at, rare, &mut crs, &mut nel_ls);
            }
            count += sum(lanes);
        }
        LineEnds { count: count + nel_ls, lf_only: !crs && nel_ls == 0 }
    }

    /// Counts the LF of the 64 bytes at `p` in `lanes` (a byte each), and
    /// gives a bit for each CR, C2 or E2 among them.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2; `p` points at 64 bytes.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn block(p: *const u8, lanes: &mut [__m256i; 2]) -> u64 {
        let set = |b: u8| _mm256_set1_epi8(b as i8);
        // SAFETY: 64 bytes at `p` (the caller's promise); no alignment is
        // needed.
        let v = unsafe {
            [
                _mm256_loadu_si256(p.cast()),
                _mm256_loadu_si256(p.add(32).cast()),
            ]
        };
        let mut rare = 0;
        for (i, v) in v.into_iter().enumerate() {
            lanes[i] =
                _mm256_sub_epi8(lanes[i], _mm256_cmpeq_epi8(v, set(b'\n')));
            // A CR, or C2 or E2 (C2 with bit 5 set is E2).
            let r = _mm256_or_si256(
                _mm256_cmpeq_epi8(v, set(b'\r')),
                _mm256_cmpeq_epi8(_mm256_or_si256(v, set(0x20)), set(0xE2)),
            );
            rare |= u64::from(_mm256_movemask_epi8(r) as u32) << (32 * i);
        }
        rare
    }

    /// The sum of the byte-wide counters of `lanes`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn sum(lanes: [__m256i; 2]) -> u64 {
        let zero = _mm256_setzero_si256();
        let sums = _mm256_add_epi64(
            _mm256_sad_epu8(lanes[0], zero),
            _mm256_sad_epu8(lanes[1], zero),
        );
        (_mm256_extract_epi64::<0>(sums)
            + _mm256_extract_epi64::<1>(sums)
            + _mm256_extract_epi64::<2>(sums)
            + _mm256_extract_epi64::<3>(sums)) as u64
    }

    /// Counts the line ends among the bytes of `mask` (a CR, C2 or E2 at
    /// each bit) in the 64 bytes of `bytes` from `at` (fewer at its end:
    /// the mask has no bit past it): a CR not before an LF, a NEL or an
    /// LS; notes a CR.
    #[cold]
    fn rare_ends(
        bytes: &[u8],
        at: usize,
        mut mask: u64,
        crs: &mut bool,
        nel_ls: &mut u64,
    ) {
        while mask != 0 {
            let i = at + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let rest = &bytes[i..];
            if rest[0] == b'\r' {
                *crs = true;
                // A CR LF is counted by its LF.
                *nel_ls += u64::from(rest.get(1) != Some(&b'\n'));
            } else {
                *nel_ls +=
                    u64::from(rest.starts_with(NEL) || rest.starts_with(LS));
            }
        }
    }
}

/// How many bytes of `bytes` are `b`: 32 at a time into 32 byte-wide
/// counters, which the compiler turns into vector compares and adds.
fn count_byte(bytes: &[u8], b: u8) -> u64 {
    let mut chunks = bytes.chunks_exact(32);
    let mut n = 0;
    // Each counter counts at most 255 chunks before it is emptied.
    while chunks.len() > 0 {
        let mut lanes = [0u8; 32];
        for chunk in chunks.by_ref().take(255) {
            for (lane, &c) in lanes.iter_mut().zip(chunk) {
                *lane += u8::from(c == b);
            }
        }
        n += lanes.iter().map(|&c| u64::from(c)).sum::<u64>();
    }
    n + chunks.remainder().iter().filter(|&&c| c == b).count() as u64
}

/// Whether the byte at `at`, 0x85 or 0xA8, ends a NEL or an LS (and not
/// another character: Cyrillic `х` is D1 85, French `è` C3 A8).
fn ends_nel_or_ls(bytes: &[u8], at: usize) -> bool {
    let end = if bytes[at] == 0x85 { NEL } else { LS };
    bytes[..=at].ends_with(end)
}

/// The first line end in `bytes`: where it starts and where it ends
/// (just past it). A CR as the last byte is a line end of its own (the
/// caller hands whole lines). `None` when no line ends in `bytes`.
///
/// Most lines looked for so are short (a tag pair, a `;` comment), too
/// short for the set-up of memchr: the first bytes are searched 16 at a
/// time for the bytes that can end a line end, the rest with memchr.
///
/// ```
/// use chesspipe::lines::find_line_end;
///
/// assert_eq!(find_line_end(b"ab\r\ncd"), Some((2, 4)));
/// assert_eq!(find_line_end(b"x\xC2\x85\n"), Some((1, 3)));
/// assert_eq!(find_line_end("Cyrillic х, no end".as_bytes()), None);
/// ```
#[inline]
pub fn find_line_end(bytes: &[u8]) -> Option<(usize, usize)> {
    let last = [b'\n', b'\r', 0x85, 0xA8];
    match short_search(bytes, last, |at| line_end_at(bytes, at)) {
        Ok(end) => Some(end),
        // None in the first bytes: the search of the whole finds the
        // first beyond (a NEL or LS across the boundary included).
        Err(searched) if searched < bytes.len() => find_line_end_long(bytes),
        Err(_) => None,
    }
}

/// The first LF in the first 32 bytes of `bytes`, when only ASCII
/// other than CR comes before it: then it is the first line end
/// ([`find_line_end`]), found with one look at 32 bytes (SSE2), as most
/// lines of tag pairs are. `None` for anything else (fewer than 32
/// bytes, no LF in them, a CR or a byte from 0x80 on before it), which
/// [`find_line_end`] reads.
#[inline(always)]
pub(crate) fn plain_lf(bytes: &[u8]) -> Option<usize> {
    let block: &[u8; 32] = bytes.first_chunk()?;
    let half = |k: usize| -> u32 {
        let chunk = block[16 * k..16 * k + 16].try_into().unwrap();
        let (lf_cr, high) = lf_cr_high(chunk);
        (lf_cr | high) << (16 * k)
    };
    let stop = half(0) | half(1);
    let at = stop.trailing_zeros() as usize;
    (at < 32 && block[at] == b'\n').then_some(at)
}

/// A bit for each byte of `chunk` that is LF or CR, and one for each
/// byte from 0x80 on.
#[inline(always)]
fn lf_cr_high(chunk: &[u8; 16]) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64, and the load reads the 16 bytes of
    // `chunk`, unaligned loads being allowed.
    let high = unsafe {
        use std::arch::x86_64::{_mm_loadu_si128, _mm_movemask_epi8};
        _mm_movemask_epi8(_mm_loadu_si128(chunk.as_ptr().cast())) as u32
    };
    #[cfg(not(target_arch = "x86_64"))]
    let high = chunk
        .iter()
        .enumerate()
        .fold(0, |m, (i, &b)| m | u32::from(b >= 0x80) << i);
    (mask16(chunk, [b'\n', b'\r']), high)
}

/// [`find_line_end`] by memchr searches of the whole of `bytes`.
fn find_line_end_long(bytes: &[u8]) -> Option<(usize, usize)> {
    let crlf = memchr::memchr2(b'\n', b'\r', bytes);
    // A NEL or LS before the CR or LF.
    let upto = crlf.unwrap_or(bytes.len());
    let mut from = 0;
    while let Some(i) = memchr::memchr2(0x85, 0xA8, &bytes[from..upto]) {
        let at = from + i;
        if ends_nel_or_ls(bytes, at) {
            let len = if bytes[at] == 0x85 { NEL.len() } else { LS.len() };
            return Some((at + 1 - len, at + 1));
        }
        from = at + 1;
    }
    let at = crlf?;
    let len = if bytes[at..].starts_with(b"\r\n") { 2 } else { 1 };
    Some((at, at + len))
}

/// The line end whose last byte (or CR) is `bytes[at]`, if it is one.
#[inline(always)]
fn line_end_at(bytes: &[u8], at: usize) -> Option<(usize, usize)> {
    match bytes[at] {
        b'\n' => Some((at, at + 1)),
        b'\r' if bytes.get(at + 1) == Some(&b'\n') => Some((at, at + 2)),
        b'\r' => Some((at, at + 1)),
        0x85 | 0xA8 if ends_nel_or_ls(bytes, at) => {
            let len = if bytes[at] == 0x85 { NEL.len() } else { LS.len() };
            Some((at + 1 - len, at + 1))
        }
        _ => None,
    }
}

/// How many bytes [`short_search`] reads 16 at a time.
const SHORT: usize = 256;

/// Searches the first 256 bytes of `hay`, 16 at a time with SSE2
/// (every x86-64 has it), for the bytes of `needles`: hands `hit` each
/// offset of one, in order, until it says what was found. Else
/// `Err(searched)`, the number of bytes searched: the caller goes on
/// from there (with memchr, whose set-up costs more than a search of a
/// few dozen bytes).
#[inline(always)]
pub(crate) fn short_search<T, const N: usize>(
    hay: &[u8],
    needles: [u8; N],
    mut hit: impl FnMut(usize) -> Option<T>,
) -> Result<T, usize> {
    let head = &hay[..hay.len().min(SHORT)];
    let mut chunks = head.chunks_exact(16);
    for (k, chunk) in chunks.by_ref().enumerate() {
        let mut mask = mask16(chunk.try_into().unwrap(), needles);
        while mask != 0 {
            if let Some(found) = hit(16 * k + mask.trailing_zeros() as usize) {
                return Ok(found);
            }
            mask &= mask - 1;
        }
    }
    let done = head.len() - chunks.remainder().len();
    for (at, b) in head.iter().enumerate().skip(done) {
        if needles.contains(b) {
            if let Some(found) = hit(at) {
                return Ok(found);
            }
        }
    }
    Err(head.len())
}

/// A bit for each byte of `block` that is one of `needles`: [`mask16`]
/// of its four quarters.
#[inline(always)]
pub(crate) fn mask64<const N: usize>(
    block: &[u8; 64],
    needles: [u8; N],
) -> u64 {
    let quarter = |k: usize| {
        let chunk = block[16 * k..16 * k + 16].try_into().unwrap();
        u64::from(mask16(chunk, needles)) << (16 * k)
    };
    quarter(0) | quarter(1) | quarter(2) | quarter(3)
}

/// A bit for each byte of `chunk` that is one of `needles`.
#[inline(always)]
fn mask16<const N: usize>(chunk: &[u8; 16], needles: [u8; N]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8, _mm_setzero_si128,
        };
        // SAFETY: SSE2 is part of x86-64, and the load reads the 16 bytes
        // of `chunk`, unaligned loads being allowed.
        unsafe {
            let bytes = _mm_loadu_si128(chunk.as_ptr().cast());
            let any = needles.iter().fold(_mm_setzero_si128(), |m, &b| {
                _mm_or_si128(m, _mm_cmpeq_epi8(bytes, _mm_set1_epi8(b as i8)))
            });
            _mm_movemask_epi8(any) as u32
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        chunk
            .iter()
            .enumerate()
            .fold(0, |m, (i, b)| m | (u32::from(needles.contains(b)) << i))
    }
}

/// Where the last line of `bytes` that has its line end ends (just past
/// the line end), when more input may follow: so a CR at the very end,
/// which may be the first half of a CR LF, ends no line yet. `None`
/// when no line ends there.
pub fn last_line_end(bytes: &[u8]) -> Option<usize> {
    let body = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    let lf_cr = memchr::memrchr2(b'\n', b'\r', body).map(|at| at + 1);
    // A NEL or LS after the last LF or CR.
    let from = lf_cr.unwrap_or(0);
    let tail = &body[from..];
    let mut end = tail.len();
    while let Some(at) = memchr::memrchr2(0x85, 0xA8, &tail[..end]) {
        if ends_nel_or_ls(tail, at) {
            return Some(from + at + 1);
        }
        end = at;
    }
    lf_cr
}

/// A streaming reader of lines through one reusable buffer.
///
/// ```
/// use chesspipe::lines::{LineEnd, LineReader};
///
/// let mut rdr = LineReader::new(&b"a\r\nb\xC2\x85c"[..]);
/// let mut seen = vec![];
/// while let Some(line) = rdr.next_line().unwrap() {
///     seen.push((line.content().to_vec(), line.end(), line.number()));
/// }
/// assert_eq!(seen, vec![
///     (b"a".to_vec(), LineEnd::CrLf, 1),
///     (b"b".to_vec(), LineEnd::Nel, 2),
///     (b"c".to_vec(), LineEnd::None, 3),
/// ]);
/// ```
pub struct LineReader<R> {
    rdr: R,
    buf: Vec<u8>,
    /// Start of the current line in `buf`.
    pos: usize,
    /// End of the data read into `buf`.
    end: usize,
    /// Where the search for the current line's end resumes.
    scan: usize,
    eof: bool,
    number: u64,
    /// How many bytes were read from the input.
    read: u64,
    started: bool,
    bom: bool,
    crlf_finder: CrLfFinder,
    nel_finder: memmem::Finder<'static>,
    ls_finder: memmem::Finder<'static>,
    crlf: Found,
    nel: Found,
    ls: Found,
}

impl<R: Read> LineReader<R> {
    /// A reader with a buffer of [`DEFAULT_CAPACITY`] bytes.
    pub fn new(rdr: R) -> LineReader<R> {
        LineReader::with_capacity(DEFAULT_CAPACITY, rdr)
    }

    /// A reader whose buffer starts at `capacity` bytes (at least 1). The
    /// buffer grows when a line does not fit.
    pub fn with_capacity(capacity: usize, rdr: R) -> LineReader<R> {
        LineReader {
            rdr,
            buf: vec![0; capacity.max(1)],
            pos: 0,
            end: 0,
            scan: 0,
            eof: false,
            number: 0,
            read: 0,
            started: false,
            bom: false,
            crlf_finder: CrLfFinder::new(),
            nel_finder: memmem::Finder::new(NEL),
            ls_finder: memmem::Finder::new(LS),
            crlf: Found::STALE,
            nel: Found::STALE,
            ls: Found::STALE,
        }
    }

    /// A reader of lines that continue an input already begun (a batch of
    /// its lines, say): no BOM is looked for, and the first line is
    /// numbered `first`.
    pub fn continuing(rdr: R, first: u64) -> LineReader<R> {
        let mut lines = LineReader::new(rdr);
        lines.started = true;
        lines.number = first.saturating_sub(1);
        lines
    }

    /// How many bytes of the input the reader has lent as lines (and a
    /// skipped BOM) or handed over ([`LineReader::read_rest`]): where the
    /// rest of the input starts.
    pub fn consumed(&self) -> u64 {
        self.read - (self.end - self.pos) as u64
    }

    /// The number of the last line lent (0 before the first).
    pub fn number(&self) -> u64 {
        self.number
    }

    /// Moves whole lines from the input to the end of `out`, at least
    /// `want` bytes of them when there are, and returns how many: the
    /// lines that end with LF, CR LF or CR, up to the first that does not
    /// (NEL, LS, or the end of the input), which [`LineReader::next_line`]
    /// must then read. Their bytes are counted and copied in bulk, which
    /// is much faster than one line at a time when the caller only passes
    /// them on.
    ///
    /// # Errors
    ///
    /// As [`LineReader::next_line`].
    pub fn take_lines(
        &mut self,
        out: &mut Vec<u8>,
        want: usize,
    ) -> io::Result<u64> {
        if !self.started {
            self.skip_bom()?;
        }
        let goal = out.len().saturating_add(want);
        let mut taken = 0;
        while out.len() < goal {
            // Up to the next NEL or LS, found through the caches that
            // next_line uses, so that a file of NEL lines is not searched
            // again for each line.
            let hay = &self.buf[..self.end];
            let (nel_finder, ls_finder) = (&self.nel_finder, &self.ls_finder);
            let nel =
                self.nel.next(hay, self.pos, |h| find_end(h, nel_finder));
            let ls = self.ls.next(hay, self.pos, |h| find_end(h, ls_finder));
            let stop = nel.into_iter().chain(ls).min().unwrap_or(self.end);
            let region = &self.buf[self.pos..stop];
            // The whole lines of the region, up to the one that reaches
            // the goal.
            let from = (goal - out.len() - 1).min(region.len());
            let whole = cut(region, from);
            if whole > 0 {
                let chunk = &region[..whole];
                let n = count_lines(chunk);
                out.extend_from_slice(chunk);
                self.pos += whole;
                self.scan = self.pos;
                self.number += n;
                taken += n;
            }
            // Enough; or a line with a NEL or LS comes next, or the last
            // line, or one that the buffer holds only part of: all for
            // next_line, which reads as much more as the line needs.
            if out.len() >= goal
                || stop < self.end
                || self.eof
                || self.pos < self.end
            {
                return Ok(taken);
            }
            self.fill()?;
        }
        Ok(taken)
    }

    /// The bytes of the input not yet lent as lines, as a reader: what the
    /// buffer holds, then the rest of the underlying reader. For a caller
    /// that hands the rest of an input to another reader (the lines from
    /// the next on, once any line was read: the BOM is behind).
    pub fn into_rest(self) -> Rest<R> {
        let mut buf = self.buf;
        buf.truncate(self.end);
        Rest { buf, pos: self.pos, rdr: self.rdr, eof: self.eof }
    }

    /// Appends to `out` up to `max` bytes of the input not yet lent as
    /// lines: what the buffer holds, then straight from the underlying
    /// reader until `max` bytes or the end. Returns whether the input
    /// ended.
    /// As [`LineReader::into_rest`], for a caller that reads the rest of
    /// an input in blocks of its own; the reader lends no more lines then.
    ///
    /// # Errors
    ///
    /// The underlying reader's errors; what was read before stays in
    /// `out`.
    pub fn read_rest(
        &mut self,
        out: &mut Vec<u8>,
        max: usize,
    ) -> io::Result<bool> {
        if !self.started {
            self.skip_bom()?;
        }
        if self.pos < self.end {
            let n = max.min(self.end - self.pos);
            out.extend_from_slice(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            self.scan = self.scan.max(self.pos);
            return Ok(false);
        }
        if self.eof || max == 0 {
            return Ok(self.eof);
        }
        // Straight into `out`, in reads as large as `max` (a file fills it
        // in one): `read_to_end` would read 8 KiB, then 16, 32 and so on,
        // four system calls where one does. Zeroing the room first costs
        // far less than those calls.
        let start = out.len();
        out.resize(start + max, 0);
        let mut filled = start;
        while filled < out.len() {
            match self.rdr.read(&mut out[filled..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    out.truncate(filled);
                    self.read += (filled - start) as u64;
                    return Err(e);
                }
            }
        }
        out.truncate(filled);
        self.read += (filled - start) as u64;
        Ok(self.eof)
    }

    /// Reads into `buf` bytes of the input not yet lent as lines: what
    /// the buffer holds, then straight from the underlying reader; how
    /// many, 0 at the end of the input. As [`LineReader::read_rest`], for
    /// a caller that reads the rest of an input in blocks of its own, into
    /// a buffer it keeps (so that nothing is zeroed or grown per block).
    ///
    /// # Errors
    ///
    /// The underlying reader's errors (other than
    /// [`io::ErrorKind::Interrupted`], which is retried).
    pub fn read_into(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.started {
            self.skip_bom()?;
        }
        if self.pos < self.end {
            let n = buf.len().min(self.end - self.pos);
            buf[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            self.scan = self.scan.max(self.pos);
            return Ok(n);
        }
        if self.eof || buf.is_empty() {
            return Ok(0);
        }
        loop {
            match self.rdr.read(buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(0);
                }
                Ok(n) => {
                    self.read += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Skips a BOM at the start of the input, as asking for the first
    /// line does, so that [`LineReader::consumed`] counts it: for a
    /// reader that goes on from there by other means (a mapped file).
    ///
    /// # Errors
    ///
    /// A read error of the underlying reader.
    pub fn skip_start(&mut self) -> io::Result<()> {
        if !self.started {
            self.skip_bom()?;
        }
        Ok(())
    }

    /// Whether the input started with a BOM, which was skipped. Known
    /// once the first line has been asked for.
    pub fn had_bom(&self) -> bool {
        self.bom
    }

    /// The current size of the buffer: the memory the reader holds.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// The next line, or `None` at the end of the input.
    ///
    /// # Errors
    ///
    /// A read error of the underlying reader (other than
    /// [`io::ErrorKind::Interrupted`], which is retried). The lines before
    /// it have all been lent; the reader should not be used after it.
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        if !self.started {
            self.skip_bom()?;
        }
        loop {
            match self.scan() {
                Scan::Found(content_end, end) => {
                    return Ok(Some(self.lend(content_end, end)));
                }
                Scan::More(_) if self.eof => {
                    if self.pos == self.end {
                        return Ok(None);
                    }
                    return Ok(Some(self.lend(self.end, LineEnd::None)));
                }
                Scan::More(resume) => {
                    self.scan = resume;
                    self.fill()?;
                }
            }
        }
    }

    /// Reads until there are 3 bytes or the input ends, then skips a BOM.
    fn skip_bom(&mut self) -> io::Result<()> {
        while self.end < BOM.len() && !self.eof {
            self.fill()?;
        }
        self.started = true;
        if self.buf[..self.end].starts_with(BOM) {
            self.bom = true;
            self.pos = BOM.len();
            self.scan = BOM.len();
        }
        Ok(())
    }

    /// Searches for the end of the current line from `self.scan`.
    #[inline]
    fn scan(&mut self) -> Scan {
        let hay = &self.buf[..self.end];
        // A multi-byte line end may have begun in the last two bytes that
        // the previous search saw.
        let from = self.scan.saturating_sub(2).max(self.pos);
        // Cached too: in a file whose lines end with NEL or LS, the next
        // CR or LF may be far away, and searching for it again on every
        // line would scan the rest of the buffer each time.
        let crlf_finder = &self.crlf_finder;
        let crlf = self.crlf.next(hay, self.scan, |h| crlf_finder.find(h));
        // Only look for a multi-byte end before the CR or LF found.
        let upto = crlf.unwrap_or(self.end);
        let mut best = crlf;
        let mut kind = None;
        let nel_finder = &self.nel_finder;
        if let Some(at) = self.nel.next(hay, from, |h| find_end(h, nel_finder))
        {
            if at < upto {
                best = Some(at);
                kind = Some(LineEnd::Nel);
            }
        }
        let ls_finder = &self.ls_finder;
        if let Some(at) = self.ls.next(hay, from, |h| find_end(h, ls_finder)) {
            if best.is_none_or(|b| at < b) {
                best = Some(at);
                kind = Some(LineEnd::Ls);
            }
        }
        let Some(at) = best else {
            return Scan::More(self.end);
        };
        match kind {
            Some(end) => Scan::Found(at, end),
            None if hay[at] == b'\n' => Scan::Found(at, LineEnd::Lf),
            None if at + 1 < self.end => {
                if hay[at + 1] == b'\n' {
                    Scan::Found(at, LineEnd::CrLf)
                } else {
                    Scan::Found(at, LineEnd::Cr)
                }
            }
            // A CR as the last byte read: an LF may follow.
            None if self.eof => Scan::Found(at, LineEnd::Cr),
            None => Scan::More(at),
        }
    }

    /// Lends the line from `self.pos` whose content ends at `content_end`.
    #[inline]
    fn lend(&mut self, content_end: usize, end: LineEnd) -> Line<'_> {
        let start = self.pos;
        let stop = content_end + end.as_bytes().len();
        self.pos = stop;
        self.scan = stop;
        self.number += 1;
        let after_bom = self.bom && self.number == 1;
        Line {
            raw: &self.buf[start..stop],
            end,
            number: self.number,
            after_bom,
        }
    }

    /// Moves the current (partial) line to the front of the buffer, grows
    /// the buffer if the line fills it, and reads once more.
    fn fill(&mut self) -> io::Result<()> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.scan -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            let len = self.buf.len();
            self.buf.resize(len * 2, 0);
        }
        self.crlf = Found::STALE;
        self.nel = Found::STALE;
        self.ls = Found::STALE;
        loop {
            match self.rdr.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.end += n;
                    self.read += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            return Ok(());
        }
    }
}

impl LineReader<io::Empty> {
    /// A reader of the lines in `bytes`, which hold whole lines (a batch
    /// of lines read before, say), read where they are: no copy. As
    /// [`LineReader::continuing`], no BOM is looked for and the first
    /// line is numbered `first`. [`LineReader::into_buffer`] gives the
    /// bytes back.
    pub fn in_place(bytes: Vec<u8>, first: u64) -> LineReader<io::Empty> {
        let mut lines = LineReader::with_capacity(0, io::empty());
        lines.end = bytes.len();
        lines.read = bytes.len() as u64;
        lines.buf = bytes;
        lines.eof = true;
        lines.started = true;
        lines.number = first.saturating_sub(1);
        lines
    }

    /// [`LineReader::in_place`] from byte `at` of `bytes`, where a line
    /// starts: the lines before it are not read.
    pub fn in_place_from(
        bytes: Vec<u8>,
        at: usize,
        first: u64,
    ) -> LineReader<io::Empty> {
        let mut lines = LineReader::in_place(bytes, first);
        let at = at.min(lines.end);
        lines.pos = at;
        lines.scan = at;
        lines
    }

    /// The buffer of [`LineReader::in_place`], to be used again.
    pub fn into_buffer(self) -> Vec<u8> {
        self.buf
    }
}

/// What a [`LineReader`] had not yet lent, and the reader it read from
/// ([`LineReader::into_rest`]).
#[derive(Debug)]
pub struct Rest<R> {
    buf: Vec<u8>,
    pos: usize,
    rdr: R,
    /// The reader has ended: it is not asked again.
    eof: bool,
}

impl<R: Read> Read for Rest<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos < self.buf.len() {
            let n = out.len().min(self.buf.len() - self.pos);
            out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            return Ok(n);
        }
        if self.eof {
            return Ok(0);
        }
        self.rdr.read(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Chunked, Rng};

    /// The reference: splits `input` at every line end, one byte at a
    /// time, with no buffer at all.
    pub(crate) fn naive(input: &[u8]) -> Vec<(Vec<u8>, LineEnd)> {
        let input = input.strip_prefix(BOM).unwrap_or(input);
        let mut out = vec![];
        let (mut start, mut i) = (0, 0);
        while i < input.len() {
            let rest = &input[i..];
            let end = if rest.starts_with(b"\r\n") {
                Some(LineEnd::CrLf)
            } else if rest[0] == b'\r' {
                Some(LineEnd::Cr)
            } else if rest[0] == b'\n' {
                Some(LineEnd::Lf)
            } else if rest.starts_with(NEL) {
                Some(LineEnd::Nel)
            } else if rest.starts_with(LS) {
                Some(LineEnd::Ls)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.push((input[start..i].to_vec(), end));
                    i += end.as_bytes().len();
                    start = i;
                }
                None => i += 1,
            }
        }
        if start < input.len() {
            out.push((input[start..].to_vec(), LineEnd::None));
        }
        out
    }

    fn scanned<R: Read>(rdr: R, capacity: usize) -> Vec<(Vec<u8>, LineEnd)> {
        let mut rdr = LineReader::with_capacity(capacity, rdr);
        let mut out = vec![];
        let mut number = 0;
        while let Some(line) = rdr.next_line().unwrap() {
            number += 1;
            assert_eq!(line.number(), number);
            let mut raw = line.content().to_vec();
            raw.extend_from_slice(line.end().as_bytes());
            assert_eq!(raw, line.raw());
            out.push((line.content().to_vec(), line.end()));
        }
        out
    }

    /// Bytes drawn mostly from the ones that make or nearly make line
    /// ends, so that every split of every line end happens often.
    fn awkward(rng: &mut Rng, len: usize) -> Vec<u8> {
        const ALPHABET: &[u8] =
            b"\r\n\xC2\x85\xE2\x80\xA8\xA9\xEF\xBB\xBFab:\x0B\x0C";
        let mut out = Vec::with_capacity(len + 3);
        if rng.below(4) == 0 {
            out.extend_from_slice(BOM);
        }
        for _ in 0..len {
            match rng.below(10) {
                0 => out.extend_from_slice(NEL),
                1 => out.extend_from_slice(LS),
                2 => out.extend_from_slice(b"\r\n"),
                _ => out.push(ALPHABET[rng.below(ALPHABET.len())]),
            }
        }
        out
    }

    /// The first 256 bytes searched 16 at a time find the line end that
    /// memchr searches of the whole find (lines shorter and longer than
    /// 256 bytes, every line end, NEL and LS lead bytes apart).
    #[test]
    fn short_line_end_search_agrees_with_memchr() {
        let pieces: [&[u8]; 12] = [
            b"a",
            b" ",
            b"\n",
            b"\r",
            b"\r\n",
            b"\xC2\x85",
            b"\xC2",
            b"\x85",
            b"\xE2\x80\xA8",
            b"\xE2\x80",
            b"\xA8",
            b"[Event \"x\"]",
        ];
        let mut rng = crate::testing::Rng::new(7);
        for _ in 0..20_000 {
            let mut bytes = Vec::new();
            let n = rng.below(40);
            for _ in 0..n {
                let piece = pieces[rng.below(pieces.len())];
                for _ in 0..=rng.below(12) {
                    bytes.extend_from_slice(piece);
                }
            }
            assert_eq!(
                find_line_end(&bytes),
                find_line_end_long(&bytes),
                "{bytes:?}"
            );
            if let Some(at) = plain_lf(&bytes) {
                assert_eq!(find_line_end(&bytes), Some((at, at + 1)));
            }
        }
    }

    #[test]
    fn plain_lf_is_the_first_line_end_or_none() {
        // An LF at each offset, after each byte, in 32 bytes and more.
        for len in [31, 32, 40] {
            for lf in 0..len {
                for b in 0..=255u8 {
                    let mut bytes = vec![b'a'; len];
                    bytes[lf] = b'\n';
                    if lf > 0 {
                        bytes[lf - 1] = b;
                    }
                    let found = plain_lf(&bytes);
                    if let Some(at) = found {
                        assert_eq!(find_line_end(&bytes), Some((at, at + 1)));
                    }
                    // The first LF, CR or byte from 0x80 on in 32 bytes,
                    // if it is an LF.
                    let first = bytes.get(..32).and_then(|block| {
                        block
                            .iter()
                            .position(|&c| matches!(c, b'\n' | b'\r' | 0x80..))
                    });
                    let want = first.filter(|&at| bytes[at] == b'\n');
                    assert_eq!(found, want, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn nel_and_ls_found_behind_many_bytes_that_end_other_characters() {
        let nel = memmem::Finder::new(NEL);
        let ls = memmem::Finder::new(LS);
        for n in [0, 1, 7, 8, 9, 30] {
            // Cyrillic х (D1 85) and French è (C3 A8), n of each, then
            // the line end, then more of the same.
            let hay = [&"х".repeat(n), "\u{85}", "хè"].concat();
            assert_eq!(find_end(hay.as_bytes(), &nel), Some(2 * n), "{n}");
            assert_eq!(find_end(hay.as_bytes(), &ls), None, "{n}");
            let hay = [&"è".repeat(n), "\u{2028}", "è"].concat();
            assert_eq!(find_end(hay.as_bytes(), &ls), Some(2 * n), "{n}");
            assert_eq!(find_end(hay.as_bytes(), &nel), None, "{n}");
        }
        assert_eq!(find_end(b"\x85\xa8", &nel), None);
        assert_eq!(find_end(b"\xe2\x80", &ls), None);
    }

    /// Where the rest of an input starts, after lines read through
    /// buffers of every size.
    #[test]
    fn consumed_is_where_the_rest_starts() {
        let mut rng = Rng::new(14);
        for round in 0..2000 {
            let len = rng.below(200);
            let input = awkward(&mut rng, len);
            let capacity = 1 + round % 70;
            let mut lines = LineReader::with_capacity(capacity, &input[..]);
            let mut taken = 0;
            for _ in 0..rng.below(6) {
                let Some(line) = lines.next_line().unwrap() else { break };
                taken += line.raw().len();
            }
            if taken > 0 {
                let bom = if lines.had_bom() { BOM.len() } else { 0 };
                let consumed = (bom + taken) as u64;
                assert_eq!(lines.consumed(), consumed, "{input:?}");
            }
            let mut rest = vec![];
            while !lines.read_rest(&mut rest, 1 + round % 5).unwrap() {}
            let bom = if lines.had_bom() { BOM.len() } else { 0 };
            assert_eq!(bom + taken + rest.len(), input.len());
            assert_eq!(lines.consumed(), input.len() as u64);
        }
    }

    #[test]
    fn line_ends_counted_and_the_last_found_in_a_block() {
        let mut rng = Rng::new(12);
        for _ in 0..5000 {
            // Line ends across the 64-byte blocks the count reads, and
            // in the short last one.
            let len = rng.below(150);
            let mut block = awkward(&mut rng, len);
            if block.starts_with(BOM) {
                block.drain(..3);
            }
            let lines = naive(&block);
            let ended = lines.iter().filter(|(_, end)| *end != LineEnd::None);
            let count = ended.count() as u64;
            let lf_only = !block.contains(&b'\r')
                && lines.iter().all(|(_, end)| {
                    matches!(end, LineEnd::Lf | LineEnd::None)
                });
            assert_eq!(count_line_ends(&block), count);
            assert_eq!(line_ends(&block), LineEnds { count, lf_only });
            assert_eq!(
                line_ends_by_search(&block),
                LineEnds { count, lf_only }
            );
            // Long blocks: past the 255 blocks of 64 a counter holds.
            if len.is_multiple_of(8) {
                let long = block.repeat(20000 / (block.len() + 1) + 1);
                assert_eq!(line_ends(&long), line_ends_by_search(&long));
            }
            // The end of each line with an end, but for a CR at the very
            // end, which may yet be a CR LF.
            let mut at = 0;
            let mut last = None;
            for (content, end) in &lines {
                at += content.len() + end.as_bytes().len();
                if *end != LineEnd::None
                    && !(*end == LineEnd::Cr && at == block.len())
                {
                    last = Some(at);
                }
            }
            assert_eq!(last_line_end(&block), last, "{block:?}");
        }
    }

    #[test]
    fn crlf_finder_agrees_with_memchr2_with_and_without_avx2() {
        let mut rng = Rng::new(4);
        let mut finders = vec![CrLfFinder::new()];
        #[cfg(target_arch = "x86_64")]
        finders.push(CrLfFinder { avx2: None });
        for _ in 0..2000 {
            let len = rng.below(300);
            let hay: Vec<u8> = (0..len)
                .map(|_| match rng.below(40) {
                    0 => b'\r',
                    1 => b'\n',
                    _ => b"ab\x0B\x8D\x8A"[rng.below(5)],
                })
                .collect();
            for from in [0, len / 3, len / 2] {
                let want = memchr2(b'\n', b'\r', &hay[from..]);
                for finder in &finders {
                    assert_eq!(finder.find(&hay[from..]), want);
                }
            }
        }
    }

    #[test]
    fn every_line_end() {
        let input = b"lf\ncr\rcrlf\r\nnel\xC2\x85ls\xE2\x80\xA8none";
        let got = scanned(&input[..], 64);
        let want: Vec<(Vec<u8>, LineEnd)> = vec![
            (b"lf".to_vec(), LineEnd::Lf),
            (b"cr".to_vec(), LineEnd::Cr),
            (b"crlf".to_vec(), LineEnd::CrLf),
            (b"nel".to_vec(), LineEnd::Nel),
            (b"ls".to_vec(), LineEnd::Ls),
            (b"none".to_vec(), LineEnd::None),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn not_line_ends() {
        // U+2029, VT, FF, a lone 85, a lone C2, E2 80 A9.
        let input = b"a\xE2\x80\xA9b\x0Bc\x0Cd\x85e\xC2f\xE2\x80g\n";
        assert_eq!(scanned(&input[..], 4), naive(input));
        assert_eq!(naive(input).len(), 1);
    }

    #[test]
    fn cr_then_lf_across_reads() {
        let input = b"a\r\nb\r\rc";
        let rdr = Chunked { data: input, sizes: vec![2], next: 0 };
        let want: Vec<(Vec<u8>, LineEnd)> = vec![
            (b"a".to_vec(), LineEnd::CrLf),
            (b"b".to_vec(), LineEnd::Cr),
            (b"".to_vec(), LineEnd::Cr),
            (b"c".to_vec(), LineEnd::None),
        ];
        assert_eq!(scanned(rdr, 64), want);
    }

    #[test]
    fn multibyte_ends_split_at_every_byte() {
        for input in [&b"ab\xC2\x85cd"[..], b"ab\xE2\x80\xA8cd"] {
            for first in 1..input.len() {
                let rdr = Chunked {
                    data: input,
                    sizes: vec![first, 1, 100],
                    next: 0,
                };
                assert_eq!(scanned(rdr, 1), naive(input), "split {first}");
            }
        }
    }

    #[test]
    fn bom_is_skipped_even_split() {
        let input = b"\xEF\xBB\xBF#PBI 1.2\n";
        let rdr = Chunked { data: input, sizes: vec![1], next: 0 };
        let mut rdr = LineReader::with_capacity(1, rdr);
        let line = rdr.next_line().unwrap().unwrap();
        assert_eq!(line.content(), b"#PBI 1.2");
        assert!(line.after_bom());
        assert!(rdr.had_bom());
        // Only at the start.
        let mut rdr = LineReader::new(&b"a\n\xEF\xBB\xBFb\n"[..]);
        rdr.next_line().unwrap();
        let line = rdr.next_line().unwrap().unwrap();
        assert_eq!(line.content(), b"\xEF\xBB\xBFb");
        assert!(!line.after_bom());
        assert!(!rdr.had_bom());
    }

    #[test]
    fn empty_and_bom_only() {
        assert!(scanned(&b""[..], 8).is_empty());
        assert!(scanned(BOM, 8).is_empty());
    }

    #[test]
    fn oracle_every_capacity_and_split() {
        let mut rng = Rng::new(2);
        for round in 0..300 {
            let len = rng.below(200);
            let input = awkward(&mut rng, len);
            let want = naive(&input);
            let capacities = (1..=64).chain([100, 1000, 64 * 1024]);
            for capacity in capacities {
                let whole = scanned(&input[..], capacity);
                assert_eq!(whole, want, "round {round}, cap {capacity}");
            }
            for sizes in [vec![1], vec![2], vec![3], vec![1, 7, 2, 64]] {
                let rdr = Chunked { data: &input, sizes, next: 0 };
                let cap = 1 + rng.below(16);
                assert_eq!(scanned(rdr, cap), want, "round {round}");
            }
            let sizes = (0..8).map(|_| 1 + rng.below(40)).collect();
            let rdr = Chunked { data: &input, sizes, next: 0 };
            let cap = 1 + rng.below(80);
            assert_eq!(scanned(rdr, cap), want, "round {round}");
        }
    }

    #[test]
    fn oracle_on_uniformly_random_bytes() {
        let mut rng = Rng::new(3);
        for round in 0..200 {
            let len = rng.below(400);
            let input: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            let want = naive(&input);
            for capacity in (1..=64).chain([4096]) {
                let sizes = vec![1 + rng.below(9), 1, 1 + rng.below(70)];
                let rdr = Chunked { data: &input, sizes, next: 0 };
                assert_eq!(scanned(rdr, capacity), want, "round {round}");
            }
        }
    }

    /// Reads `rdr` taking lines in bulk where it can (`want` bytes at a
    /// time, a random amount), one by one elsewhere; returns the lines
    /// as the oracle splits them, checking the numbering on the way.
    fn taken<R: Read>(
        rdr: R,
        capacity: usize,
        rng: &mut Rng,
    ) -> Vec<(Vec<u8>, LineEnd)> {
        let mut rdr = LineReader::with_capacity(capacity, rdr);
        let mut out = vec![];
        loop {
            let mut bulk = vec![];
            let first = rdr.number() + 1;
            let n = rdr.take_lines(&mut bulk, rng.below(300)).unwrap();
            if n > 0 {
                // Whole lines ending with LF, CR LF or CR, numbered on.
                assert!(bulk.ends_with(b"\n") || bulk.ends_with(b"\r"));
                // (The oracle skips a BOM only at the start.)
                let lines = naive(&[BOM, &bulk].concat());
                assert_eq!(lines.len() as u64, n);
                let ends = [LineEnd::Lf, LineEnd::CrLf, LineEnd::Cr];
                assert!(lines.iter().all(|l| ends.contains(&l.1)));
                assert_eq!(rdr.number(), first + n - 1);
                let mut again = LineReader::continuing(&bulk[..], first);
                for (i, want) in lines.iter().enumerate() {
                    let line = again.next_line().unwrap().unwrap();
                    assert_eq!(
                        (line.content(), line.end()),
                        (&want.0[..], want.1)
                    );
                    assert_eq!(line.number(), first + i as u64);
                }
                out.extend(lines);
                continue;
            }
            match rdr.next_line().unwrap() {
                Some(line) => out.push((line.content().to_vec(), line.end())),
                None => return out,
            }
        }
    }

    #[test]
    fn bulk_takes_agree_with_the_oracle() {
        let mut rng = Rng::new(4);
        for round in 0..400 {
            let len = rng.below(300);
            let mut input = awkward(&mut rng, len);
            // Runs of LF, CR LF and CR lines, which go in bulk.
            for _ in 0..rng.below(40) {
                let end: &[u8] = [&b"\r\n"[..], b"\n", b"\r"][rng.below(3)];
                input.extend_from_slice(b"Loyd:8/8:#2");
                input.extend_from_slice(end);
            }
            let tail = rng.below(20);
            input.extend(awkward(&mut rng, tail));
            let want = naive(&input);
            for capacity in [1, 2, 7, 64, 4096] {
                let sizes = vec![1 + rng.below(9), 1 + rng.below(200)];
                let rdr = Chunked { data: &input, sizes, next: 0 };
                let got = taken(rdr, capacity, &mut rng);
                assert_eq!(got, want, "round {round}, capacity {capacity}");
            }
        }
    }

    #[test]
    fn bulk_takes_keep_memory_flat() {
        // NEL lines: nothing goes in bulk, and the buffer stays put.
        let input = b"Loyd:8/8:#2\xC2\x85".repeat(50_000);
        let mut rdr = LineReader::new(&input[..]);
        let mut bulk = vec![];
        assert_eq!(rdr.take_lines(&mut bulk, 1 << 20).unwrap(), 0);
        assert!(bulk.is_empty());
        assert_eq!(rdr.capacity(), DEFAULT_CAPACITY);
        for end in [&b"\n"[..], b"\r"] {
            let input = [&b"Loyd:8/8:#2"[..], end].concat().repeat(50_000);
            let mut rdr = LineReader::new(&input[..]);
            let mut bulk = vec![];
            let n = rdr.take_lines(&mut bulk, 100_000).unwrap();
            // At most the line that reaches the size asked for; here the
            // buffer's whole lines, as the next one straddles a refill.
            let len = bulk.len();
            assert!(len > 60_000 && len < 100_012, "{len}");
            assert_eq!(n as usize * 12, bulk.len());
            assert_eq!(rdr.capacity(), DEFAULT_CAPACITY);
        }
    }

    #[test]
    fn a_cr_at_the_end_of_a_read_waits_for_the_next_byte() {
        // The first read ends with the CR of "a\r\n": the CR must not be
        // taken as a line end before the LF is seen.
        let input = b"x\na\r\nb\n";
        let rdr = Chunked { data: input, sizes: vec![4, 10], next: 0 };
        let mut rdr = LineReader::with_capacity(8, rdr);
        let mut bulk = vec![];
        assert_eq!(rdr.take_lines(&mut bulk, 100).unwrap(), 1);
        assert_eq!(bulk, b"x\n");
        let line = rdr.next_line().unwrap().unwrap();
        assert_eq!((line.content(), line.end()), (&b"a"[..], LineEnd::CrLf));
        assert_eq!(line.number(), 2);
        bulk.clear();
        assert_eq!(rdr.take_lines(&mut bulk, 100).unwrap(), 1);
        assert_eq!(bulk, b"b\n");
        assert_eq!(rdr.number(), 3);
    }

    #[test]
    fn long_lines_grow_the_buffer_once() {
        let mut input = vec![b'x'; 100_000];
        input.extend_from_slice(b"\r\nshort\n");
        let rdr = Chunked { data: &input, sizes: vec![1000], next: 0 };
        let mut rdr = LineReader::with_capacity(16, rdr);
        assert_eq!(rdr.next_line().unwrap().unwrap().content().len(), 100_000);
        assert_eq!(rdr.next_line().unwrap().unwrap().content(), b"short");
        assert!(rdr.capacity() <= 2 * 131_072);
    }

    #[test]
    fn memory_stays_flat() {
        let line = b"Loyd, Samuel:8/8/8/8/8/8/8/8:#2:1|x|1868|:::!:\r\n";
        let big = line.repeat(20_000);
        let mut rdr = LineReader::new(&big[..]);
        let mut n = 0;
        while rdr.next_line().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, 20_000);
        assert_eq!(rdr.capacity(), DEFAULT_CAPACITY);
    }

    #[test]
    fn read_errors_are_returned() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let mut rdr = LineReader::new(Failing);
        assert!(rdr.next_line().is_err());
    }

    /// What `into_rest` gives back is the input after the lines lent,
    /// whatever the buffer held, and nothing is read again after the
    /// reader ended.
    #[test]
    fn the_rest_is_the_input_after_the_lines_lent() {
        let mut rng = Rng::new(11);
        for _ in 0..400 {
            let len = rng.below(300);
            let input = awkward(&mut rng, len);
            let capacity = 1 + rng.below(40);
            let sizes = vec![1 + rng.below(9), 1 + rng.below(50)];
            let rdr = Chunked { data: &input, sizes, next: 0 };
            let mut lines = LineReader::with_capacity(capacity, rdr);
            let asked = rng.below(8);
            let mut lent = 0;
            if asked > 0 && input.starts_with(BOM) {
                lent = BOM.len();
            }
            for _ in 0..asked {
                match lines.next_line().unwrap() {
                    Some(line) => lent += line.raw().len(),
                    None => break,
                }
            }
            let mut rest = vec![];
            lines.into_rest().read_to_end(&mut rest).unwrap();
            // No line asked for: a BOM is still there to be read.
            assert_eq!(rest, &input[lent..]);
        }
    }

    /// Lines read in place are those a reader of the same bytes lends,
    /// and the buffer comes back whole.
    #[test]
    fn lines_read_in_place_are_the_lines_read() {
        let mut rng = Rng::new(13);
        for _ in 0..500 {
            let len = rng.below(200);
            let input = awkward(&mut rng, len);
            let first = 1 + rng.below(1000) as u64;
            let mut want = vec![];
            let mut rdr = LineReader::continuing(&input[..], first);
            while let Some(line) = rdr.next_line().unwrap() {
                want.push((line.raw().to_vec(), line.end(), line.number()));
            }
            let mut got = vec![];
            let mut rdr = LineReader::in_place(input.clone(), first);
            while let Some(line) = rdr.next_line().unwrap() {
                got.push((line.raw().to_vec(), line.end(), line.number()));
            }
            assert_eq!(got, want);
            assert_eq!(rdr.into_buffer(), input);
        }
    }
}
