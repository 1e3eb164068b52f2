//! One PBI data line split into its 9 fields.
//!
//! Fields borrow from the line. Splitting comes first and decoding after
//! (FORMATS.md, PBI 5), so an escaped `:`, `;` or `|` never splits
//! anything; a field is decoded, and so copied, only when it holds `\`.

use std::borrow::Cow;

use super::{escape, swar};
use crate::board::Board;
use crate::gbr::Men;
use crate::lines::Line;

/// The nine fields of a data line, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Author names, a `;` list.
    Names = 0,
    /// The Forsyth string.
    Position = 1,
    /// The stipulation.
    Stipulation = 2,
    /// The used source, `nr|title|date|page`.
    UsedSource = 3,
    /// Referenced sources, a `;` list of sources.
    References = 4,
    /// Awards, a `;` list of `nr|rank|tourney|date`.
    Awards = 5,
    /// The keymove.
    Keymove = 6,
    /// The status.
    Status = 7,
    /// The comment; everything after the eighth `:`.
    Comment = 8,
}

impl Field {
    /// The nine fields, in order.
    pub const ALL: [Field; 9] = [
        Field::Names,
        Field::Position,
        Field::Stipulation,
        Field::UsedSource,
        Field::References,
        Field::Awards,
        Field::Keymove,
        Field::Status,
        Field::Comment,
    ];
}

/// The special bytes a field holds, as bits of [`Shape::bits`].
pub mod class {
    /// `;`, the list separator.
    pub const SEMICOLON: u8 = 1;
    /// `|`, the subfield separator.
    pub const PIPE: u8 = 2;
    /// `\`, which starts an escape.
    pub const BACKSLASH: u8 = 4;
    /// `"`, which CSV must quote.
    pub const QUOTE: u8 = 8;
    /// `,`, the usual CSV delimiter.
    pub const COMMA: u8 = 16;
    /// A tab, the TSV delimiter.
    pub const TAB: u8 = 32;
    /// A byte of 0x80 or more: not ASCII. Noted for the whole line, in
    /// [`Shape::high`](super::Shape::high), not per field.
    pub const HIGH: u8 = 64;
    /// `:` (only the comment can hold one).
    pub const COLON: u8 = 128;
}

/// What one pass over a line learned about each of its 9 fields.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// For each field, the [`class`] bits of the special bytes in it.
    pub bits: [u8; 9],
    /// For each field, how many `|` it holds (at most 255).
    pub pipes: [u8; 9],
    /// Whether the line holds a byte of 0x80 or more.
    pub high: bool,
    /// Where the first 3 `|` of the used source are, from the start of
    /// the field (as many as it holds).
    pub used: [usize; 3],
}

impl Shape {
    /// The bits of all fields together, with [`class::HIGH`] when the
    /// line is not all ASCII.
    pub fn all(&self) -> u8 {
        let high = if self.high { class::HIGH } else { 0 };
        self.bits.iter().fold(high, |acc, b| acc | b)
    }
}

/// The class of every byte, 0 for the ordinary ones.
static CLASS: [u8; 256] = classes();

const fn classes() -> [u8; 256] {
    let mut t = [0u8; 256];
    t[b';' as usize] = class::SEMICOLON;
    t[b'|' as usize] = class::PIPE;
    t[b'\\' as usize] = class::BACKSLASH;
    t[b'"' as usize] = class::QUOTE;
    t[b',' as usize] = class::COMMA;
    t[b'\t' as usize] = class::TAB;
    t[b':' as usize] = class::COLON;
    t
}

/// What splitting a line into fields found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split<'a> {
    /// Exactly 9 fields.
    Exact([&'a [u8]; 9], Shape),
    /// More than 8 `:`: the rest of the line went into the comment.
    Extra([&'a [u8]; 9], Shape),
    /// Fewer than 8 `:`; how many fields there were.
    Short(usize),
}

/// Splits `line` at its first 8 `:`, noting on the way which special
/// bytes each field holds.
///
/// The later steps (validation, decoding, CSV quoting) then skip every
/// field that has nothing for them. The line is read in blocks: a bit
/// mask of its colons, one of its pipes and one of its other special
/// bytes, with no branch per byte; only the rarer special bytes are
/// looked at one by one. On an x86_64 CPU with AVX2 (and BMI1, BMI2,
/// POPCNT, detected at run time) the blocks are 32 bytes and only the
/// colons' places are noted as they come (`avx2::split`); otherwise
/// they are 64 bytes (16 at a time with SSE2 on x86_64) and each stretch
/// between two colons is handed to its field.
pub fn split(line: &[u8]) -> Split<'_> {
    #[cfg(target_arch = "x86_64")]
    {
        // std caches what the CPU has: each test is a load.
        use std::arch::is_x86_feature_detected as has;
        if has!("avx2") && has!("bmi1") && has!("bmi2") && has!("popcnt") {
            // SAFETY: the CPU has AVX2, BMI1, BMI2 and POPCNT.
            return unsafe { avx2::split(line) };
        }
        if has!("popcnt") {
            // SAFETY: the CPU has the POPCNT instruction.
            return unsafe { split_popcnt(line) };
        }
    }
    split_blocks(line)
}

/// [`split`] with the pipes counted by one instruction, on the CPUs that
/// have it (nearly all x86_64 CPUs made since 2008).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn split_popcnt(line: &[u8]) -> Split<'_> {
    split_blocks(line)
}

#[inline(always)]
fn split_blocks(line: &[u8]) -> Split<'_> {
    let mut state = SplitState::new();
    let mut blocks = line.chunks_exact(64);
    let mut base = 0;
    for block in blocks.by_ref() {
        state.block(block.try_into().expect("64 bytes"), base);
        base += 64;
    }
    // The last bytes, padded with zeros, which are not special.
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let mut last = [0u8; 64];
        last[..tail.len()].copy_from_slice(tail);
        state.block(&last, base);
    }
    state.finish(line)
}

/// The scalar split, one byte at a time and with no masks: the reference
/// the split is tested against.
#[cfg(test)]
pub(crate) fn split_scalar(line: &[u8]) -> Split<'_> {
    let mut state = SplitState::new();
    for (at, &b) in line.iter().enumerate() {
        state.high |= u64::from(b >= 0x80);
        if b == b':' && state.field < 8 {
            state.close(at);
        } else {
            if b == b'|' && state.field == USED && state.used_n < 3 {
                state.used[state.used_n] = at - state.start();
                state.used_n += 1;
            }
            state.acc |= CLASS[usize::from(b)];
            state.acc_pipes += u32::from(b == b'|');
        }
    }
    state.finish(line)
}

/// The special bytes of 64 bytes of a line, a bit for each byte.
struct Masks {
    colons: u64,
    pipes: u64,
    /// `; \ " ,` and tab.
    others: u64,
    /// Bytes of 0x80 or more.
    high: u64,
}

impl Masks {
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn of(bytes: &[u8; 64]) -> Masks {
        let mut m = Masks { colons: 0, pipes: 0, others: 0, high: 0 };
        for (i, chunk) in bytes.chunks_exact(16).enumerate() {
            let chunk: &[u8; 16] = chunk.try_into().expect("16 bytes");
            let (colons, pipes, others, high) = sse2::masks(chunk);
            let at = 16 * i;
            m.colons |= u64::from(colons) << at;
            m.pipes |= u64::from(pipes) << at;
            m.others |= u64::from(others) << at;
            m.high |= u64::from(high) << at;
        }
        m
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    fn of(bytes: &[u8; 64]) -> Masks {
        let mut m = Masks { colons: 0, pipes: 0, others: 0, high: 0 };
        for (i, &b) in bytes.iter().enumerate() {
            let bit = 1u64 << i;
            match b {
                b':' => m.colons |= bit,
                b'|' => m.pipes |= bit,
                _ if CLASS[usize::from(b)] != 0 => m.others |= bit,
                _ => {}
            }
            if b >= 0x80 {
                m.high |= bit;
            }
        }
        m
    }
}

/// Where [`split`] is in a line.
///
/// The arrays have 16 entries, of which 9 are used, so that indexing
/// them with `field & 15` needs no bounds check.
struct SplitState {
    /// `ends[f]` is where field `f` ends, for the fields closed so far:
    /// the colon that closes it, or the end of the line.
    ends: [usize; 16],
    bits: [u8; 16],
    /// Pipes per field, counted past 255 (a line can be long).
    pipes: [u32; 16],
    /// The field being read, and what it held so far.
    field: usize,
    acc: u8,
    acc_pipes: u32,
    high: u64,
    /// The first pipes of the used source, from its start, and how many.
    used: [usize; 4],
    used_n: usize,
}

/// The used source's field number.
const USED: usize = Field::UsedSource as usize;

impl SplitState {
    fn new() -> SplitState {
        SplitState {
            ends: [0; 16],
            bits: [0; 16],
            pipes: [0; 16],
            field: 0,
            acc: 0,
            acc_pipes: 0,
            high: 0,
            used: [0; 4],
            used_n: 0,
        }
    }

    /// Where the current field starts.
    fn start(&self) -> usize {
        match self.field {
            0 => 0,
            f => self.ends[(f - 1) & 15] + 1,
        }
    }

    /// Takes the 64 bytes at `base`.
    #[inline(always)]
    fn block(&mut self, bytes: &[u8; 64], base: usize) {
        let m = Masks::of(bytes);
        self.high |= m.high;
        // In the comment a colon is just text.
        let mut colons = if self.field < 8 { m.colons } else { 0 };
        // The bytes of the block not yet given to a field.
        let mut rest = u64::MAX;
        while colons != 0 {
            let k = colons.trailing_zeros();
            let before = (1u64 << k) - 1;
            self.take(bytes, &m, rest & before, base);
            rest = !((before << 1) | 1);
            self.close(base + k as usize);
            colons &= colons - 1;
            if self.field == 8 {
                break;
            }
        }
        self.take(bytes, &m, rest, base);
    }

    /// Gives the bytes of `range` (a mask of the block) to the current
    /// field.
    #[inline(always)]
    fn take(&mut self, bytes: &[u8; 64], m: &Masks, range: u64, base: usize) {
        let pipes = (m.pipes & range).count_ones();
        if self.field == USED {
            // Saves the reader of the used source a search.
            let start = self.start();
            let mut left = m.pipes & range;
            while left != 0 && self.used_n < 3 {
                let at = base + left.trailing_zeros() as usize;
                self.used[self.used_n & 3] = at - start;
                self.used_n += 1;
                left &= left - 1;
            }
        }
        self.acc_pipes += pipes;
        self.acc |= u8::from(pipes != 0) * class::PIPE;
        // Colons left in the range are in the comment.
        self.acc |= u8::from(m.colons & range != 0) * class::COLON;
        // The rarer special bytes, one by one.
        let mut others = m.others & range;
        while others != 0 {
            let b = bytes[others.trailing_zeros() as usize & 63];
            others &= others - 1;
            self.acc |= CLASS[usize::from(b)];
        }
    }

    /// The current field ends at `at`, a colon or the end of the line.
    #[inline(always)]
    fn close(&mut self, at: usize) {
        let f = self.field & 15;
        self.ends[f] = at;
        self.bits[f] = self.acc;
        self.pipes[f] = self.acc_pipes;
        self.acc = 0;
        self.acc_pipes = 0;
        self.field = f + 1;
    }

    fn finish(mut self, line: &[u8]) -> Split<'_> {
        if self.field < 8 {
            return Split::Short(self.field + 1);
        }
        self.close(line.len());
        let mut shape = Shape {
            high: self.high != 0,
            used: [self.used[0], self.used[1], self.used[2]],
            ..Shape::default()
        };
        for f in 0..9 {
            shape.bits[f] = self.bits[f];
            shape.pipes[f] = self.pipes[f].min(255) as u8;
        }
        cut_at(line, &self.ends, shape)
    }
}

/// The 9 fields of `line`, field `f` ending at `ends[f]` (the next
/// starting just past it), with their `shape`: the end of every split.
#[inline(always)]
fn cut_at<'a>(line: &'a [u8], ends: &[usize; 16], shape: Shape) -> Split<'a> {
    let mut fields: [&[u8]; 9] = [b""; 9];
    let mut start = 0;
    for (field, &end) in fields.iter_mut().zip(&ends[..9]) {
        *field = &line[start..end];
        start = end + 1;
    }
    if shape.bits[8] & class::COLON != 0 {
        Split::Extra(fields, shape)
    } else {
        Split::Exact(fields, shape)
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8,
    };

    /// For the 16 bytes of `chunk`, a bit for each colon, for each pipe,
    /// for each other special byte (one of `; \ " ,` and tab), and for
    /// each byte that is not ASCII.
    #[inline(always)]
    pub(super) fn masks(chunk: &[u8; 16]) -> (u16, u16, u16, u16) {
        // SAFETY: SSE2 is part of every x86_64 CPU, so these intrinsics
        // are always available; `_mm_loadu_si128` reads 16 bytes with no
        // alignment requirement, and `chunk` has 16.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
            let others = _mm_or_si128(
                _mm_or_si128(
                    _mm_or_si128(eq(b';'), eq(b'\\')),
                    _mm_or_si128(eq(b'"'), eq(b',')),
                ),
                eq(b'\t'),
            );
            // The movemask of `v` itself marks the bytes of 0x80 or more.
            let mask = |x: __m128i| _mm_movemask_epi8(x) as u16;
            (mask(eq(b':')), mask(eq(b'|')), mask(others), mask(v))
        }
    }
}

/// The special bytes of 32 bytes of a line, a bit for each byte.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Masks32 {
    colons: u32,
    pipes: u32,
    /// `; \ " ,` and tab.
    others: u32,
}

/// A line being cut into fields 32 bytes at a time, with the masks of
/// `avx2::masks`.
///
/// Unlike [`SplitState`], which hands each stretch between two colons to
/// its field, this one only notes where the colons are, and then gives
/// each pipe and each other special byte to its field, found by counting
/// the colons before it in the block: there are fewer special bytes in a
/// line than fields.
///
/// The arrays have 16 entries, of which 9 are used, so that indexing
/// them with `field & 15` needs no bounds check.
#[cfg(target_arch = "x86_64")]
struct Cut<'a> {
    line: &'a [u8],
    /// `ends[f]` is where field `f` ends, for the fields closed so far.
    ends: [usize; 16],
    bits: [u8; 16],
    /// Pipes per field, counted past 255 (a line can be long).
    pipes: [u32; 16],
    /// The field being read: how many colons were found, up to 8.
    field: usize,
    /// The first pipes of the used source, from its start, and how many.
    used: [usize; 4],
    used_n: usize,
}

#[cfg(target_arch = "x86_64")]
impl<'a> Cut<'a> {
    fn new(line: &'a [u8]) -> Cut<'a> {
        Cut {
            line,
            ends: [0; 16],
            bits: [0; 16],
            pipes: [0; 16],
            field: 0,
            used: [0; 4],
            used_n: 0,
        }
    }

    /// Takes the 32 bytes at `base` (fewer at the end of the line: the
    /// masks then have no bit past it).
    #[inline(always)]
    fn block(&mut self, m: Masks32, base: usize) {
        let first = self.field;
        let mut colons = m.colons;
        // The colons that ended a field, in this block.
        let mut cuts = 0u32;
        if first < 8 && colons != 0 {
            let mut f = first;
            loop {
                self.ends[f & 15] = base + colons.trailing_zeros() as usize;
                cuts |= colons & colons.wrapping_neg();
                colons &= colons - 1;
                f += 1;
                if f == 8 || colons == 0 {
                    break;
                }
            }
            self.field = f;
        }
        // Colons left are in the comment.
        self.bits[8] |= u8::from(colons != 0) * class::COLON;
        // The field of the byte at `k`: the colons before it say.
        let field_of =
            |k: u32| first + (cuts & ((1u32 << k) - 1)).count_ones() as usize;
        let mut pipes = m.pipes;
        while pipes != 0 {
            let k = pipes.trailing_zeros();
            let f = field_of(k);
            self.pipes[f & 15] += 1;
            if f == USED && self.used_n < 3 {
                // Saves the reader of the used source a search.
                let start = self.ends[(USED - 1) & 15] + 1;
                self.used[self.used_n & 3] = base + k as usize - start;
                self.used_n += 1;
            }
            pipes &= pipes - 1;
        }
        let mut others = m.others;
        while others != 0 {
            let k = others.trailing_zeros();
            let b = self.line[base + k as usize];
            self.bits[field_of(k) & 15] |= CLASS[usize::from(b)];
            others &= others - 1;
        }
    }

    #[inline(always)]
    fn finish(mut self, high: bool) -> Split<'a> {
        if self.field < 8 {
            return Split::Short(self.field + 1);
        }
        self.ends[8] = self.line.len();
        let mut shape = Shape {
            high,
            used: [self.used[0], self.used[1], self.used[2]],
            ..Shape::default()
        };
        for f in 0..9 {
            let pipes = self.pipes[f];
            shape.bits[f] =
                self.bits[f] | (u8::from(pipes != 0) * class::PIPE);
            shape.pipes[f] = pipes.min(255) as u8;
        }
        cut_at(self.line, &self.ends, shape)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8, _mm256_setzero_si256,
    };

    use super::{Cut, Masks32, Split};

    /// [`split`](super::split) 32 bytes at a time. The last bytes are
    /// read in place, as the last 32 of the line with the masks shifted
    /// to drop those already read; only a line shorter than 32 bytes is
    /// copied, to a zeroed buffer.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2, BMI1, BMI2 and POPCNT.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt")]
    pub(super) unsafe fn split(line: &[u8]) -> Split<'_> {
        let mut cut = Cut::new(line);
        let len = line.len();
        let ptr = line.as_ptr();
        let mut base = 0;
        // Every byte read, or-ed: its top bit says whether the line is
        // all ASCII.
        // The value intrinsics need only AVX2, which this function has
        // (the caller's promise): only the loads need `unsafe`.
        let mut highs = _mm256_setzero_si256();
        while base + 32 <= len {
            // SAFETY: bytes `base..base + 32` are in the line; the load
            // has no alignment requirement.
            let v = unsafe { _mm256_loadu_si256(ptr.add(base).cast()) };
            highs = _mm256_or_si256(highs, v);
            cut.block(masks(v), base);
            base += 32;
        }
        if base < len {
            let m = if len >= 32 {
                // The last 32 bytes, of which the first `32 - tail` were
                // read already.
                let tail = len - base;
                // SAFETY: bytes `len - 32..len` are in the line.
                let v =
                    unsafe { _mm256_loadu_si256(ptr.add(len - 32).cast()) };
                highs = _mm256_or_si256(highs, v);
                let m = masks(v);
                let drop = 32 - tail as u32;
                Masks32 {
                    colons: m.colons >> drop,
                    pipes: m.pipes >> drop,
                    others: m.others >> drop,
                }
            } else {
                // Zeros are not special, nor high.
                let mut buf = [0u8; 32];
                buf[..len].copy_from_slice(line);
                // SAFETY: `buf` has 32 bytes.
                let v = unsafe { _mm256_loadu_si256(buf.as_ptr().cast()) };
                highs = _mm256_or_si256(highs, v);
                masks(v)
            };
            cut.block(m, base);
        }
        let high = _mm256_movemask_epi8(highs) != 0;
        cut.finish(high)
    }

    /// For the 32 bytes of `v`, a bit for each colon, for each pipe and
    /// for each other special byte (one of `; \ " ,` and tab).
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2: then these intrinsics, which only compute
    /// on registers, are safe.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn masks(v: __m256i) -> Masks32 {
        let colons = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b':' as i8));
        let pipes = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'|' as i8));
        let semi = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b';' as i8));
        let back = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let comma = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b',' as i8));
        let tab = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\t' as i8));
        let others = _mm256_or_si256(
            _mm256_or_si256(_mm256_or_si256(semi, back), quote),
            _mm256_or_si256(comma, tab),
        );
        Masks32 {
            colons: _mm256_movemask_epi8(colons) as u32,
            pipes: _mm256_movemask_epi8(pipes) as u32,
            others: _mm256_movemask_epi8(others) as u32,
        }
    }
}

/// The four `|`-separated subfields of a source or an award.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subfields<'a> {
    /// The subfields as written (undecoded).
    pub raw: [&'a [u8]; 4],
    /// How many subfields were written (1 for an empty field); 4 is right.
    pub written: usize,
}

impl<'a> Subfields<'a> {
    /// Splits at the first 3 `|`: missing subfields are empty, extra text
    /// belongs to the last (FORMATS.md, PBI 7).
    pub fn split(field: &'a [u8]) -> Subfields<'a> {
        // Subfields are short: a plain search beats memchr's set-up here.
        let mut raw: [&[u8]; 4] = [b""; 4];
        let mut rest = field;
        let mut n = 0;
        while n < 3 {
            let Some(i) = rest.iter().position(|&b| b == b'|') else {
                break;
            };
            raw[n] = &rest[..i];
            rest = &rest[i + 1..];
            n += 1;
        }
        raw[n] = rest;
        if n == 3 {
            n += rest.iter().filter(|&&b| b == b'|').count();
        }
        Subfields { raw, written: n + 1 }
    }

    /// Subfield `i` (0-3) decoded.
    pub fn get(&self, i: usize) -> Cow<'a, [u8]> {
        escape::decode(self.raw[i])
    }

    /// Appends the subfields decoded and joined with `|`.
    pub fn write_decoded(&self, out: &mut Vec<u8>) {
        for (i, raw) in self.raw.iter().enumerate() {
            if i > 0 {
                out.push(b'|');
            }
            escape::decode_into(raw, out);
        }
    }

    /// Appends the subfields joined with `|`, undecoded.
    pub fn write_raw(&self, out: &mut Vec<u8>) {
        for (i, raw) in self.raw.iter().enumerate() {
            if i > 0 {
                out.push(b'|');
            }
            out.extend_from_slice(raw);
        }
    }
}

/// The subfields of `field`, the used source of a line that [`split`]
/// gave `shape`: cut where the split saw its first 3 pipes.
fn used_subfields<'a>(field: &'a [u8], shape: &Shape) -> Subfields<'a> {
    let pipes = usize::from(shape.pipes[USED]);
    if pipes >= 255 {
        // The count stopped at 255: count them out.
        return Subfields::split(field);
    }
    let mut raw: [&[u8]; 4] = [b""; 4];
    let mut start = 0;
    let cut = pipes.min(3);
    for (i, &at) in shape.used[..cut].iter().enumerate() {
        raw[i] = &field[start..at];
        start = at + 1;
    }
    raw[cut] = &field[start..];
    Subfields { raw, written: pipes + 1 }
}

/// The items of a `;` list: each trimmed of spaces and tabs (before
/// decoding, so an escaped space stays), empty items dropped.
pub fn list(field: &[u8]) -> impl Iterator<Item = &[u8]> {
    swar::split(field, b';').map(trim).filter(|item| !item.is_empty())
}

/// `s` without leading and trailing spaces and tabs.
pub fn trim(s: &[u8]) -> &[u8] {
    let blank = |b: &u8| *b == b' ' || *b == b'\t';
    let start = s.iter().position(|b| !blank(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|b| !blank(b)).map_or(start, |e| e + 1);
    &s[start..end]
}

/// One data record.
#[derive(Clone, Debug)]
pub struct Record<'a> {
    line: Line<'a>,
    fields: [&'a [u8]; 9],
    shape: Shape,
    men: Option<Men>,
    escapes: bool,
}

impl<'a> Record<'a> {
    /// A record of already split fields and the board its position gave
    /// (`None` when empty or unparsable).
    #[inline(always)]
    pub(crate) fn new(
        line: Line<'a>,
        fields: &[&'a [u8]; 9],
        shape: &Shape,
        men: Option<Men>,
    ) -> Record<'a> {
        let escapes = shape.all() & class::BACKSLASH != 0;
        Record { line, fields: *fields, shape: *shape, men, escapes }
    }

    /// The [`class`] bits of the special bytes in `field`.
    pub fn bits(&self, field: Field) -> u8 {
        self.shape.bits[field as usize]
    }

    /// How many `|` `field` holds (at most 255).
    pub fn pipes(&self, field: Field) -> u8 {
        self.shape.pipes[field as usize]
    }

    /// Whether the line holds a `\` at all; when it does not, no field
    /// needs decoding.
    pub fn has_escapes(&self) -> bool {
        self.escapes
    }

    /// `raw`, a slice of this record, decoded; borrowed when the record
    /// has no escapes, without looking at `raw` again.
    pub fn text(&self, raw: &'a [u8]) -> Cow<'a, [u8]> {
        if self.escapes {
            escape::decode(raw)
        } else {
            Cow::Borrowed(raw)
        }
    }

    /// Appends `raw`, a slice of this record, decoded.
    pub fn decode_into(&self, raw: &[u8], out: &mut Vec<u8>) {
        if self.escapes {
            escape::decode_into(raw, out);
        } else {
            out.extend_from_slice(raw);
        }
    }

    /// The whole data line, as read, with its line end.
    pub fn line(&self) -> Line<'a> {
        self.line
    }

    /// The record's line number.
    pub fn number(&self) -> u64 {
        self.line.number()
    }

    /// A field exactly as written.
    pub fn raw(&self, field: Field) -> &'a [u8] {
        self.fields[field as usize]
    }

    /// A field decoded (for the list and source fields, the whole field
    /// with its separators; use the accessors below for their items).
    pub fn decoded(&self, field: Field) -> Cow<'a, [u8]> {
        self.text(self.raw(field))
    }

    /// The author names, undecoded, trimmed, empty ones dropped.
    pub fn names(&self) -> impl Iterator<Item = &'a [u8]> {
        list(self.raw(Field::Names))
    }

    /// The position field as written (never decoded or trimmed).
    pub fn position(&self) -> &'a [u8] {
        self.raw(Field::Position)
    }

    /// The men of the position, when it is not empty and parses.
    pub fn men(&self) -> Option<&Men> {
        self.men.as_ref()
    }

    /// The board of the position, when it is not empty and parses. It is
    /// parsed on each call (the record stays small, and no tool asks
    /// twice): most tools need only the men.
    pub fn board(&self) -> Option<Board> {
        self.men.and_then(|_| Board::parse(self.position()).ok())
    }

    /// The used source's four subfields.
    pub fn used_source(&self) -> Subfields<'a> {
        used_subfields(self.raw(Field::UsedSource), &self.shape)
    }

    /// The referenced sources.
    pub fn references(&self) -> impl Iterator<Item = Subfields<'a>> {
        list(self.raw(Field::References)).map(Subfields::split)
    }

    /// The awards (`nr|rank|tourney|date`).
    pub fn awards(&self) -> impl Iterator<Item = Subfields<'a>> {
        list(self.raw(Field::Awards)).map(Subfields::split)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_counts_fields() {
        assert!(matches!(split(b"a:b:c:d:e:f:g:h:i"), Split::Exact(..)));
        assert_eq!(split(b"a:b:c"), Split::Short(3));
        assert_eq!(split(b""), Split::Short(1));
        match split(b"a:b:c:d:e:f:g:h:i:j:k") {
            Split::Extra(f, _) => assert_eq!(f[8], b"i:j:k"),
            other => panic!("{other:?}"),
        }
        match split(br"S\x3at:p:::::::") {
            Split::Exact(f, _) => assert_eq!(f[0], br"S\x3at"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn split_agrees_with_the_scalar_split() {
        const ALPHABET: &[u8] = b"ab :;|\\\",\t\xc3\xa9\x80\xff#/8";
        let mut rng = crate::testing::Rng::new(1);
        for round in 0..40_000 {
            let len = match round % 3 {
                0 => rng.below(90),
                1 => rng.below(400),
                // Mostly pipes: more than 255 in a field.
                _ => 250 + rng.below(300),
            };
            let pipes = round % 3 == 2;
            let line: Vec<u8> = (0..len)
                .map(|_| match rng.below(10) {
                    0..=7 if pipes => b'|',
                    _ => ALPHABET[rng.below(ALPHABET.len())],
                })
                .collect();
            let ours = split(&line);
            assert_eq!(ours, split_scalar(&line), "{line:?}");
            assert_eq!(split_blocks(&line), split_scalar(&line), "{line:?}");
            if let Split::Exact(fields, shape) | Split::Extra(fields, shape) =
                ours
            {
                let field = fields[USED];
                let want = Subfields::split(field);
                assert_eq!(used_subfields(field, &shape), want, "{line:?}");
            }
        }
    }

    /// Every length from 0 to 100, with colons, backslashes, pipes,
    /// other special bytes and high bytes at the edges of the 32-byte
    /// blocks, at the line's ends and in the partial last block: the
    /// AVX2 split reads the last bytes in place, as the last 32 of the
    /// line, or from a copy when the line is shorter.
    #[test]
    fn split_agrees_with_the_scalar_split_at_every_length() {
        const SPECIAL: &[u8] = b":\\|;\",\t\x80\xc3\xffa";
        let mut rng = crate::testing::Rng::new(7);
        let edges = [0, 1, 30, 31, 32, 33, 63, 64, 65, 95, 96, 97];
        for len in 0..=100 {
            for round in 0..60 {
                // Enough colons for 9 fields in most lines.
                let mut line: Vec<u8> = (0..len)
                    .map(|_| match rng.below(4) {
                        0 => b':',
                        1 => SPECIAL[rng.below(SPECIAL.len())],
                        _ => b'x',
                    })
                    .collect();
                for &at in &edges {
                    if at < len && rng.below(2) == 0 {
                        line[at] = SPECIAL[rng.below(SPECIAL.len())];
                    }
                }
                for end in [len.wrapping_sub(1), len.wrapping_sub(2)] {
                    if end < len && round % 3 == 0 {
                        line[end] = SPECIAL[round % SPECIAL.len()];
                    }
                }
                let want = split_scalar(&line);
                assert_eq!(split(&line), want, "{line:?}");
                assert_eq!(split_blocks(&line), want, "{line:?}");
            }
        }
    }

    #[test]
    fn fields_and_special_bytes_on_block_edges() {
        // Colons, pipes and commas on both sides of each 64-byte edge.
        for shift in 0..8 {
            let mut line = vec![b'a'; 200];
            for (i, at) in
                [62, 63, 64, 65, 127, 128, 129, 190].iter().enumerate()
            {
                line[at - shift] = b':';
                line[at - shift + 1 + i % 2] =
                    if i % 2 == 0 { b'|' } else { b',' };
            }
            line[70] = b'\\';
            line[199] = b':';
            let ours = split(&line);
            assert_eq!(ours, split_scalar(&line), "shift {shift}");
            assert!(matches!(ours, Split::Extra(..)));
        }
    }

    #[test]
    fn split_notes_special_bytes_per_field() {
        let line = "Loyd, S;X:8/8:#2:1|T|y|::1|\"Pr\"|T|y:é\\x3a:\t:c: d";
        let Split::Extra(_, shape) = split(line.as_bytes()) else {
            panic!("9 fields and a colon in the comment");
        };
        use class::*;
        assert_eq!(shape.bits[0], COMMA | SEMICOLON);
        assert_eq!(shape.bits[1], 0);
        assert_eq!(shape.bits[3], PIPE);
        assert_eq!(shape.pipes[3], 3);
        assert_eq!(shape.bits[5], PIPE | QUOTE);
        assert_eq!(shape.bits[6], BACKSLASH);
        assert!(shape.high);
        assert_eq!(shape.bits[7], TAB);
        assert_eq!(shape.bits[8], COLON);
        assert_eq!(shape.all() & BACKSLASH, BACKSLASH);
    }

    #[test]
    fn subfields() {
        let s = Subfields::split(b"68|White|1962|");
        assert_eq!(s.raw, [&b"68"[..], b"White", b"1962", b""]);
        assert_eq!(s.written, 4);
        let s = Subfields::split(b"");
        assert_eq!(s.raw, [&b""[..]; 4]);
        assert_eq!(s.written, 1);
        let s = Subfields::split(b"1|Pr");
        assert_eq!(s.raw, [&b"1"[..], b"Pr", b"", b""]);
        assert_eq!(s.written, 2);
        let s = Subfields::split(b"a|b|c|d|e|f");
        assert_eq!(s.raw, [&b"a"[..], b"b", b"c", b"d|e|f"]);
        assert_eq!(s.written, 6);
        let s = Subfields::split(br"A|Russ\x3a\x7cx||");
        assert_eq!(&*s.get(1), b"Russ:|x");
        let mut out = vec![];
        s.write_decoded(&mut out);
        assert_eq!(out, b"A|Russ:|x||");
    }

    #[test]
    fn lists_trim_before_decoding() {
        let items: Vec<_> = list(b" Loyd ;\t;;S\\x20 ; x").collect();
        assert_eq!(items, vec![&b"Loyd"[..], b"S\\x20", b"x"]);
        assert_eq!(list(b"").count(), 0);
        assert_eq!(list(b" ; ").count(), 0);
        assert_eq!(trim(b" \t a b \t"), b"a b");
        assert_eq!(trim(b"   "), b"");
    }
}
