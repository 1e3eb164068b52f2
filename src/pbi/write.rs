/*!
Writing PBI fields: decoded text back into a data line, with `\xHH`
escapes exactly where FORMATS.md (PBI 5-7) needs them.

This is the inverse of reading. Each function appends one field of a
data line to a buffer, so that a [`Record`](super::Record) read from the
line gives the text back: decoded, a plain field is the text; a list
field's items, decoded and joined with `; ` (and a source's subfields
joined with `|`), are the text, as `pbi2csv` shows them.

What is escaped:

- everywhere: `\` (which would start an escape), `:` (which would end
  the field) and every control character, C0, DEL and C1 (U+0000-U+001F,
  U+007F-U+009F), among them the line ends LF, CR and U+0085. U+2028,
  the other line end, is above U+00FF, which `\xHH` cannot reach: text
  holding it cannot be written ([`Unwritable::LineSeparator`]);
- in a list item (names, referenced sources, awards): `;`, and a space
  at either end of the item, which reading would trim;
- in a subfield of a source or an award: `|`;
- a `#` that starts the names field, and so the line: the first data
  line would otherwise be read as a comment line.

Everything else, bytes that are not UTF-8 among them, is written as it
stands: the reader carries such bytes through unchanged.

Lists come as the text `pbi2csv` makes of them, items joined with `; `.
Since an item may itself hold `; ` (written `\x3b `), a list is cut only
where the cut leaves every item non-empty (names) or with its 3 `|`
(sources and awards); any other `;` is kept inside an item. So for every
record, writing the text that reading gives yields a field that reads as
that text again, byte for byte.

```
use chesspipe::pbi::write;

let mut line = Vec::new();
write::names(b"Loyd, Samuel; S:t John", &mut line).unwrap();
line.push(b':');
write::text(b"h#2 \\ ser-=", &mut line).unwrap();
assert_eq!(line, b"Loyd, Samuel;S\\x3at John:h#2 \\x5c ser-=");
```
*/

use std::fmt;

use super::{swar, trim};
use crate::pbi::{Field, Subfields};

/// Why a value cannot go into a PBI field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unwritable {
    /// U+2028 (LINE SEPARATOR) ends a PBI line, and `\xHH` only reaches
    /// U+00FF.
    LineSeparator,
    /// A raw value holds a line end (LF, CR, U+0085 or U+2028).
    LineEnd,
    /// A raw value of a field other than the comment holds `:`.
    Colon,
    /// A raw number, title or date of a source holds `|`.
    Pipe,
}

impl fmt::Display for Unwritable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Unwritable::LineSeparator => {
                "holds U+2028 (line separator), which PBI cannot hold: \
                 it ends a line, and \\xHH reaches only U+00FF"
            }
            Unwritable::LineEnd => "holds a line end, which PBI cannot hold",
            Unwritable::Colon => "holds ':', which would end the field",
            Unwritable::Pipe => {
                "holds '|', which would start the next subfield"
            }
        })
    }
}

/// What writing a list found in its text, for a warning: text that was
/// probably meant otherwise, though it is written so as to read back the
/// same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Notes {
    /// A `;` without a space after it: it separates nothing and stays
    /// inside an item (written `\x3b`).
    pub bare_semicolon: bool,
    /// Sources and awards: text after a `; ` that has fewer than 3 `|`
    /// of its own, kept in the last subfield of the item before it.
    pub appended: bool,
    /// Sources and awards: the text has fewer than 3 `|`, so it is one
    /// item of this many subfields, to which the missing empty ones were
    /// added.
    pub padded: Option<usize>,
}

/// The bytes [`escape_into`] looks at, as bits.
mod byte {
    /// Escaped everywhere: `\`, `:`, C0 controls, DEL.
    pub const ALWAYS: u8 = 1;
    /// `;`, escaped in list items.
    pub const SEMICOLON: u8 = 2;
    /// `|`, escaped in subfields.
    pub const PIPE: u8 = 4;
    /// The first byte of a C1 control (C2) or of U+2028 (E2).
    pub const LEAD: u8 = 8;
}

static BYTES: [u8; 256] = bytes();

const fn bytes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = byte::ALWAYS;
        b += 1;
    }
    t[0x7f] = byte::ALWAYS;
    t[b'\\' as usize] = byte::ALWAYS;
    t[b':' as usize] = byte::ALWAYS;
    t[b';' as usize] = byte::SEMICOLON;
    t[b'|' as usize] = byte::PIPE;
    t[0xc2] = byte::LEAD;
    t[0xe2] = byte::LEAD;
    t
}

/// What one look at a value found: whether it holds a byte that may need
/// an escape (`\`, `:`, a C0 control, DEL, or C2 or E2, which start a C1
/// control and U+2028), and how many `|` and `;`. Most values hold none
/// of these, and are then copied whole.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Look {
    special: bool,
    pipes: usize,
    semicolons: usize,
}

/// Looks at `value`, 16 bytes at a time with SSE2, which every x86_64
/// CPU has.
#[cfg(target_arch = "x86_64")]
fn look(value: &[u8]) -> Look {
    look_as::<true>(value)
}

/// Whether `value` holds a byte that may need an escape: [`look`]
/// without the counts, and done at the first.
#[cfg(target_arch = "x86_64")]
fn special(value: &[u8]) -> bool {
    look_as::<false>(value).special
}

#[cfg(not(target_arch = "x86_64"))]
fn special(value: &[u8]) -> bool {
    look_bytes(value).special
}

/// [`look`], with the counts of `|` and `;` when `COUNT`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn look_as<const COUNT: bool>(value: &[u8]) -> Look {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    /// The masks of the special bytes, the `|` and the `;` of 16 bytes.
    #[inline(always)]
    fn masks<const COUNT: bool>(bytes: &[u8; 16]) -> (u32, u32, u32) {
        // SAFETY: SSE2 is part of every x86_64 CPU, so these intrinsics
        // are always available; `_mm_loadu_si128` reads 16 bytes with no
        // alignment requirement, and `bytes` has 16.
        unsafe {
            let v = _mm_loadu_si128(bytes.as_ptr().cast::<__m128i>());
            let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
            // v <= 0x1f, unsigned: a C0 control.
            let c0 = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
            let special = _mm_or_si128(
                _mm_or_si128(_mm_or_si128(c0, eq(b'\\')), eq(b':')),
                _mm_or_si128(_mm_or_si128(eq(0x7f), eq(0xc2)), eq(0xe2)),
            );
            let mask = |x: __m128i| _mm_movemask_epi8(x) as u32;
            if !COUNT {
                return (mask(special), 0, 0);
            }
            (mask(special), mask(eq(b'|')), mask(eq(b';')))
        }
    }
    let mut look = Look::default();
    let mut special = 0;
    let mut chunks = value.chunks_exact(16);
    for chunk in chunks.by_ref() {
        let (s, p, c) = masks::<COUNT>(chunk.try_into().expect("16 bytes"));
        special |= s;
        if !COUNT && special != 0 {
            return Look { special: true, ..look };
        }
        look.pipes += p.count_ones() as usize;
        look.semicolons += c.count_ones() as usize;
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        // Padded with a byte that is not special.
        let mut last = [b'a'; 16];
        last[..tail.len()].copy_from_slice(tail);
        let (s, p, c) = masks::<COUNT>(&last);
        special |= s;
        look.pipes += p.count_ones() as usize;
        look.semicolons += c.count_ones() as usize;
    }
    look.special = special != 0;
    look
}

/// [`look`] a byte at a time: on other CPUs, and the reference in tests.
#[cfg_attr(target_arch = "x86_64", cfg(test))]
fn look_bytes(value: &[u8]) -> Look {
    let mut look = Look::default();
    for &b in value {
        look.special |=
            BYTES[usize::from(b)] & (byte::ALWAYS | byte::LEAD) != 0;
        look.pipes += usize::from(b == b'|');
        look.semicolons += usize::from(b == b';');
    }
    look
}

#[cfg(not(target_arch = "x86_64"))]
fn look(value: &[u8]) -> Look {
    look_bytes(value)
}

/// Whether `value` starts or ends with a space, which reading would trim
/// from a list item.
fn spaced(value: &[u8]) -> bool {
    value.first() == Some(&b' ') || value.last() == Some(&b' ')
}

/// Appends the escape of code point U+00`cp`: `\x` and two lower-case
/// hex digits.
fn push_escape(out: &mut Vec<u8>, cp: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.extend_from_slice(&[
        b'\\',
        b'x',
        HEX[usize::from(cp >> 4)],
        HEX[usize::from(cp & 15)],
    ]);
}

/// Appends `value` with `\`, `:`, the control characters and the bytes
/// of `extra` ([`byte`] bits) escaped.
fn escape_into(
    value: &[u8],
    extra: u8,
    out: &mut Vec<u8>,
) -> Result<(), Unwritable> {
    let mask = byte::ALWAYS | byte::LEAD | extra;
    let mut done = 0;
    let mut at = 0;
    while let Some(i) =
        value[at..].iter().position(|&b| BYTES[usize::from(b)] & mask != 0)
    {
        let i = at + i;
        let b = value[i];
        at = i + 1;
        let cp = match b {
            0xc2 => match value.get(i + 1) {
                // C2 80..C2 9F: U+0080..U+009F, U+0085 (NEL) among them.
                Some(&next) if (0x80..=0x9f).contains(&next) => {
                    at = i + 2;
                    next
                }
                _ => continue,
            },
            0xe2 if value[i + 1..].starts_with(b"\x80\xa8") => {
                return Err(Unwritable::LineSeparator)
            }
            0xe2 => continue,
            _ => b,
        };
        out.extend_from_slice(&value[done..i]);
        push_escape(out, cp);
        done = at;
    }
    out.extend_from_slice(&value[done..]);
    Ok(())
}

/// Appends a list item or a part of one: as [`escape_into`], and a space
/// at its start (`lead`) or at its end (`trail`) escaped, since reading
/// trims spaces there.
fn item_part(
    value: &[u8],
    extra: u8,
    lead: bool,
    trail: bool,
    out: &mut Vec<u8>,
) -> Result<(), Unwritable> {
    let mut value = value;
    if lead && value.first() == Some(&b' ') {
        push_escape(out, b' ');
        value = &value[1..];
    }
    if trail && value.last() == Some(&b' ') {
        escape_into(&value[..value.len() - 1], extra, out)?;
        push_escape(out, b' ');
        return Ok(());
    }
    escape_into(value, extra, out)
}

/// Writes the fields of data lines, after one look at all the values
/// of a row.
///
/// Most rows hold no byte that needs an escape anywhere; [`Fields::new`]
/// finds that out for the whole row at once, and then each value is
/// copied as it stands but for the list and subfield separators, without
/// another look. The functions of this module of the same names look at
/// their one value instead.
#[derive(Clone, Copy, Debug)]
pub struct Fields {
    /// No value of the row holds `\`, `:`, a control character or the
    /// first byte of one (C2), or of U+2028 (E2).
    plain: bool,
}

impl Fields {
    /// For a row whose values, together, are `values` (in any order and
    /// joined in any way: only which bytes they hold counts).
    pub fn new(values: &[u8]) -> Fields {
        Fields { plain: !special(values) }
    }

    /// Appends `value` as a plain field: the stipulation, keymove,
    /// status or comment.
    ///
    /// # Errors
    ///
    /// [`Unwritable::LineSeparator`] when `value` holds U+2028; `out`
    /// may then hold part of the field.
    pub fn text(
        &self,
        value: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Unwritable> {
        if self.plain || !look(value).special {
            out.extend_from_slice(value);
            return Ok(());
        }
        escape_into(value, 0, out)
    }

    /// Appends the four subfields of the used source,
    /// `nr|title|date|page`; nothing when all four are empty.
    ///
    /// # Errors
    ///
    /// As [`Fields::text`], with the index of the subfield.
    pub fn source(
        &self,
        subfields: [&[u8]; 4],
        out: &mut Vec<u8>,
    ) -> Result<(), (usize, Unwritable)> {
        if subfields.iter().all(|s| s.is_empty()) {
            return Ok(());
        }
        if self.plain && subfields.iter().all(|s| !s.contains(&b'|')) {
            // The usual case: nothing to escape, in a row that was looked
            // at already.
            let [nr, title, date, page] = subfields;
            out.reserve(nr.len() + title.len() + date.len() + page.len() + 3);
            for s in [nr, b"|", title, b"|", date, b"|", page] {
                out.extend_from_slice(s);
            }
            return Ok(());
        }
        for (i, s) in subfields.iter().enumerate() {
            if i > 0 {
                out.push(b'|');
            }
            let copy = if self.plain {
                swar::find(s, b'|', 0).is_none()
            } else {
                let look = look(s);
                !look.special && look.pipes == 0
            };
            if copy {
                out.extend_from_slice(s);
            } else {
                escape_into(s, byte::PIPE, out).map_err(|e| (i, e))?;
            }
        }
        Ok(())
    }

    /// Appends the names of `value`, the text of a names field (`Loyd,
    /// Samuel; Kling, Josef`): cut at each `; ` that leaves non-empty
    /// names on both sides. A `#` at the start is escaped.
    ///
    /// # Errors
    ///
    /// As [`Fields::text`].
    pub fn names(
        &self,
        value: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<Notes, Unwritable> {
        let plain = self.plain || !look(value).special;
        if plain && value.first() != Some(&b'#') && !spaced(value) {
            // One name (most records), or several joined with `; `.
            if swar::find(value, b';', 0).is_none() {
                out.extend_from_slice(value);
                return Ok(Notes::default());
            }
            if items_as_joined(value, None, out) {
                return Ok(Notes::default());
            }
        }
        names_cut(value, out)
    }

    /// Appends the items of `value`, the text of a field of referenced
    /// sources or of awards (`|Die Schwalbe|1930|; |Chess|1931|`): cut
    /// at each `; ` that leaves at least 3 `|` on both sides; each
    /// item's subfields are its text split at its first 3 `|`.
    ///
    /// Text with fewer than 3 `|` is one item, trimmed of spaces and
    /// tabs, with the missing subfields added empty
    /// ([`Notes::padded`]); nothing when it is blank.
    ///
    /// # Errors
    ///
    /// As [`Fields::text`].
    pub fn sources(
        &self,
        value: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<Notes, Unwritable> {
        if value.is_empty() {
            return Ok(Notes::default());
        }
        let plain = self.plain || !look(value).special;
        if plain && items_as_joined(value, Some(3), out) {
            return Ok(Notes::default());
        }
        sources_cut(value, out)
    }
}

/// Writes `value` when it is items that need no escape as pbi2csv joins
/// them: each non-empty, neither starting nor ending with a space, with
/// exactly `pipes` `|` when that is given, joined with `; `; returns
/// whether it was. `value` holds no byte that needs an escape but `;`
/// and `|`.
fn items_as_joined(
    value: &[u8],
    pipes: Option<usize>,
    out: &mut Vec<u8>,
) -> bool {
    let start = out.len();
    let items = swar::split_counting(value, b';', b'|');
    for (i, (item, n)) in items.enumerate() {
        let item = match item.strip_prefix(b" ") {
            _ if i == 0 => item,
            Some(item) => {
                out.push(b';');
                item
            }
            None => {
                out.truncate(start);
                return false;
            }
        };
        if pipes.is_some_and(|p| p != n) || item.is_empty() || spaced(item) {
            out.truncate(start);
            return false;
        }
        out.extend_from_slice(item);
    }
    true
}

/// Appends `value` as a plain field: the stipulation, keymove, status or
/// comment. As [`Fields::text`], looking at `value` alone.
///
/// # Errors
///
/// [`Unwritable::LineSeparator`] when `value` holds U+2028; `out` may
/// then hold part of the field.
pub fn text(value: &[u8], out: &mut Vec<u8>) -> Result<(), Unwritable> {
    Fields { plain: false }.text(value, out)
}

/// Appends the four subfields of the used source, `nr|title|date|page`;
/// nothing when all four are empty. As [`Fields::source`].
///
/// # Errors
///
/// As [`text`], with the index of the subfield.
pub fn source(
    subfields: [&[u8]; 4],
    out: &mut Vec<u8>,
) -> Result<(), (usize, Unwritable)> {
    Fields { plain: false }.source(subfields, out)
}

/// Appends the names of `value`, the text of a names field. As
/// [`Fields::names`].
///
/// # Errors
///
/// As [`text`].
pub fn names(value: &[u8], out: &mut Vec<u8>) -> Result<Notes, Unwritable> {
    Fields { plain: false }.names(value, out)
}

/// Appends the items of `value`, the text of a field of referenced
/// sources or of awards. As [`Fields::sources`].
///
/// # Errors
///
/// As [`text`].
pub fn sources(value: &[u8], out: &mut Vec<u8>) -> Result<Notes, Unwritable> {
    Fields { plain: false }.sources(value, out)
}

/// Where `; ` stands in `v`.
fn separators(v: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b';', v).filter(|&k| v.get(k + 1) == Some(&b' '))
}

/// Whether `v` holds a `;` with no space after it.
fn has_bare_semicolon(v: &[u8]) -> bool {
    memchr::memchr_iter(b';', v).any(|k| v.get(k + 1) != Some(&b' '))
}

/// [`Fields::names`] for text that needs more than a copy.
fn names_cut(value: &[u8], out: &mut Vec<u8>) -> Result<Notes, Unwritable> {
    let notes = Notes {
        bare_semicolon: has_bare_semicolon(value),
        ..Notes::default()
    };
    for (i, item) in name_items(value).enumerate() {
        if i > 0 {
            out.push(b';');
        }
        name(item, i == 0, out)?;
    }
    Ok(notes)
}

/// The names that [`names`] writes of `value`, the text of a names
/// field as pbi2csv shows it (`Loyd, Samuel; Kling, Josef`), and so the
/// names that reading the field gives back: `value` cut at each `; `
/// that leaves non-empty names on both sides.
///
/// ```
/// use chesspipe::pbi::write::name_items;
///
/// let names: Vec<&[u8]> = name_items(b"Loyd, S.; Kling; ; x; ").collect();
/// assert_eq!(names, [&b"Loyd, S."[..], b"Kling", b"; x; "]);
/// ```
pub fn name_items(value: &[u8]) -> impl Iterator<Item = &[u8]> + '_ {
    let mut start = 0;
    let mut separators = separators(value);
    std::iter::from_fn(move || {
        if start >= value.len() {
            return None;
        }
        let end = separators
            .find(|&k| k > start && k + 2 < value.len())
            .unwrap_or(value.len());
        let item = &value[start..end];
        start = end + 2;
        Some(item)
    })
}

/// Appends one name; `first` when it starts the line.
fn name(
    value: &[u8],
    first: bool,
    out: &mut Vec<u8>,
) -> Result<(), Unwritable> {
    if first && value.first() == Some(&b'#') {
        push_escape(out, b'#');
        return item_part(&value[1..], byte::SEMICOLON, false, true, out);
    }
    item_part(value, byte::SEMICOLON, true, true, out)
}

/// [`Fields::sources`] for text that needs more than a copy.
fn sources_cut(value: &[u8], out: &mut Vec<u8>) -> Result<Notes, Unwritable> {
    let mut items = source_items(value);
    let mut notes = Notes {
        bare_semicolon: has_bare_semicolon(value),
        padded: items.padded(),
        ..Notes::default()
    };
    for (i, item) in items.by_ref().enumerate() {
        if i > 0 {
            out.push(b';');
        }
        source_item(item, out)?;
    }
    notes.appended = items.appended;
    Ok(notes)
}

/// The items that [`sources`] writes of `value`, the text of a field of
/// referenced sources or of awards as pbi2csv shows it (`|Die
/// Schwalbe|1930|; |Chess|1931|`): `value` cut at each `; ` that leaves
/// at least 3 `|` on both sides. Each item's subfields are then its text
/// split at its first 3 `|`, as [`Subfields::split`] splits, the missing
/// ones empty; so these are the items, and their subfields, that reading
/// the field gives back.
///
/// Text with fewer than 3 `|` in all is one item, trimmed of spaces and
/// tabs ([`SourceItems::padded`]); none when it is blank.
///
/// ```
/// use chesspipe::pbi::write::source_items;
///
/// let text = b"1|Schach; Beilage|1930|12; |Chess|1931|";
/// let items: Vec<&[u8]> = source_items(text).collect();
/// assert_eq!(items, [&b"1|Schach; Beilage|1930|12"[..], b"|Chess|1931|"]);
/// ```
pub fn source_items(value: &[u8]) -> SourceItems<'_> {
    SourceItems {
        value,
        total: memchr::memchr_iter(b'|', value).count(),
        start: 0,
        counted: 0,
        before: 0,
        current: 0,
        semicolons: memchr::memchr_iter(b';', value),
        appended: false,
    }
}

/// The items of a field of sources or awards: see [`source_items`].
#[derive(Clone, Debug)]
pub struct SourceItems<'v> {
    value: &'v [u8],
    /// The `|` of `value`.
    total: usize,
    /// Where the next item starts; past the end of `value` when done.
    start: usize,
    /// Where the `|` were counted up to, how many there are before it,
    /// and how many of those are in the item being cut.
    counted: usize,
    before: usize,
    current: usize,
    semicolons: memchr::Memchr<'v>,
    /// Text after a `; ` without 3 `|` of its own was kept in the item
    /// before it, so far.
    appended: bool,
}

impl SourceItems<'_> {
    /// With fewer than 3 `|` in all, the one item's number of subfields,
    /// to which the missing empty ones are added; `None` otherwise, and
    /// for blank text.
    pub fn padded(&self) -> Option<usize> {
        (self.total < 3 && !trim(self.value).is_empty())
            .then_some(self.total + 1)
    }
}

impl<'v> Iterator for SourceItems<'v> {
    type Item = &'v [u8];

    fn next(&mut self) -> Option<&'v [u8]> {
        let value = self.value;
        if self.start > value.len() {
            return None;
        }
        if self.total < 3 {
            self.start = value.len() + 1;
            let item = trim(value);
            return (!item.is_empty()).then_some(item);
        }
        for k in self.semicolons.by_ref() {
            if value.get(k + 1) != Some(&b' ') {
                continue;
            }
            let n = memchr::memchr_iter(b'|', &value[self.counted..k]).count();
            self.counted = k;
            self.before += n;
            self.current += n;
            if self.current < 3 {
                continue;
            }
            if self.total - self.before >= 3 {
                let item = &value[self.start..k];
                self.start = k + 2;
                self.current = 0;
                return Some(item);
            }
            self.appended = true;
        }
        let item = &value[self.start..];
        self.start = value.len() + 1;
        Some(item)
    }
}

/// Appends one source or award: its text split at the first 3 `|` (the
/// last subfield keeps any further `|`, escaped), the missing subfields
/// added empty.
fn source_item(value: &[u8], out: &mut Vec<u8>) -> Result<(), Unwritable> {
    let extra = byte::SEMICOLON | byte::PIPE;
    let subfields = Subfields::split(value);
    let n = subfields.written.min(4);
    for (i, s) in subfields.raw.iter().enumerate() {
        if i > 0 {
            out.push(b'|');
        }
        if i < n {
            item_part(s, extra, i == 0, i == n - 1, out)?;
        }
    }
    Ok(())
}

/// Appends `value` to a data line as it stands, as field `field`, after
/// checking that it can be one (`--raw`).
///
/// # Errors
///
/// [`Unwritable::LineEnd`] when it holds a line end;
/// [`Unwritable::Colon`] when it holds `:` and is not the comment (a `:`
/// in the comment makes a line with more than 9 fields, which reads as
/// written, with a warning).
pub fn raw(
    field: Field,
    value: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Unwritable> {
    check_raw(value, field != Field::Comment, false)?;
    out.extend_from_slice(value);
    Ok(())
}

/// Appends the four subfields of a used source as they stand, joined
/// with `|`; nothing when all four are empty (`--raw`).
///
/// # Errors
///
/// As [`raw`], with the index of the subfield, and [`Unwritable::Pipe`]
/// when the number, title or date holds `|`.
pub fn raw_source(
    subfields: [&[u8]; 4],
    out: &mut Vec<u8>,
) -> Result<(), (usize, Unwritable)> {
    for (i, s) in subfields.iter().enumerate() {
        check_raw(s, true, i < 3).map_err(|e| (i, e))?;
    }
    if subfields.iter().any(|s| !s.is_empty()) {
        out.extend_from_slice(&subfields.join(&b'|'));
    }
    Ok(())
}

fn check_raw(value: &[u8], colon: bool, pipe: bool) -> Result<(), Unwritable> {
    let look = look(value);
    if !(look.special || pipe && look.pipes > 0) {
        return Ok(());
    }
    for (i, &b) in value.iter().enumerate() {
        match b {
            b'\n' | b'\r' => return Err(Unwritable::LineEnd),
            0xc2 if value.get(i + 1) == Some(&0x85) => {
                return Err(Unwritable::LineEnd)
            }
            0xe2 if value[i + 1..].starts_with(b"\x80\xa8") => {
                return Err(Unwritable::LineEnd)
            }
            b':' if colon => return Err(Unwritable::Colon),
            b'|' if pipe => return Err(Unwritable::Pipe),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::pbi::{escape, list, Subfields};

    fn text_of(value: &[u8]) -> Vec<u8> {
        let mut out = vec![];
        text(value, &mut out).unwrap();
        out
    }

    fn names_of(value: &[u8]) -> (Vec<u8>, Notes) {
        let mut out = vec![];
        let notes = names(value, &mut out).unwrap();
        (out, notes)
    }

    fn sources_of(value: &[u8]) -> (Vec<u8>, Notes) {
        let mut out = vec![];
        let notes = sources(value, &mut out).unwrap();
        (out, notes)
    }

    /// The names of a field as pbi2csv shows them: decoded, `; ` between.
    fn read_names(field: &[u8]) -> Vec<u8> {
        let items: Vec<Vec<u8>> =
            list(field).map(|n| escape::decode(n).into_owned()).collect();
        items.join(&b"; "[..])
    }

    /// The sources of a field as pbi2csv shows them.
    fn read_sources(field: &[u8]) -> Vec<u8> {
        let items: Vec<Vec<u8>> = list(field)
            .map(|item| {
                let mut out = vec![];
                Subfields::split(item).write_decoded(&mut out);
                out
            })
            .collect();
        items.join(&b"; "[..])
    }

    #[test]
    fn look_agrees_with_a_byte_at_a_time() {
        const BYTES: &[u8] = b"a \\:;|\x00\x1f\x20\x7f\x80\xc2\xe2\xff#";
        let mut rng = crate::testing::Rng::new(3);
        for len in 0..80 {
            for _ in 0..200 {
                let value: Vec<u8> =
                    (0..len).map(|_| BYTES[rng.below(BYTES.len())]).collect();
                assert_eq!(look(&value), look_bytes(&value), "{value:?}");
                let want = look_bytes(&value).special;
                assert_eq!(special(&value), want, "{value:?}");
            }
        }
    }

    #[test]
    fn text_escapes_only_what_reading_needs() {
        assert_eq!(text_of(b"#2"), b"#2");
        assert_eq!(text_of(b"=2 +-@ 007 1/2 ;|\"x"), b"=2 +-@ 007 1/2 ;|\"x");
        assert_eq!(text_of(br"a:b\c"), br"a\x3ab\x5cc");
        assert_eq!(text_of(br"\x3a"), br"\x5cx3a");
        assert_eq!(text_of(b"a\nb\rc\td\0\x7f"), br"a\x0ab\x0dc\x09d\x00\x7f");
        // C1 controls, U+0085 (NEL, a line end) among them.
        assert_eq!(text_of("\u{85}\u{80}\u{9f}".as_bytes()), br"\x85\x80\x9f");
        // Other characters, and bytes that are not UTF-8, stand as they are.
        let other = "Bl\u{e1}thy \u{a0}\u{2029} \u{265a}".as_bytes();
        assert_eq!(text_of(other), other);
        assert_eq!(text_of(b"\xc2\xe2\x80\xff\xc2"), b"\xc2\xe2\x80\xff\xc2");
        let mut out = vec![];
        let err = text("a\u{2028}b".as_bytes(), &mut out).unwrap_err();
        assert_eq!(err, Unwritable::LineSeparator);
    }

    #[test]
    fn names_are_cut_at_semicolon_space() {
        let (field, notes) = names_of(b"Loyd, Samuel; S:t John");
        assert_eq!(field, br"Loyd, Samuel;S\x3at John");
        assert_eq!(notes, Notes::default());
        // A `;` with no space after it is part of a name.
        let (field, notes) = names_of(b"Loyd;Kling");
        assert_eq!(field, br"Loyd\x3bKling");
        assert!(notes.bare_semicolon);
        // Spaces at the ends of a name, and a # that starts the line.
        assert_eq!(names_of(b" a ; b").0, br"\x20a\x20;b");
        assert_eq!(names_of(b"#1; #2").0, br"\x231;#2");
        // No empty name: `; ` at an end, or twice, stays in a name.
        assert_eq!(names_of(b"a; ").0, br"a\x3b\x20");
        assert_eq!(names_of(b"; a").0, br"\x3b a");
        assert_eq!(names_of(b"a; ; b").0, br"a;\x3b b");
        assert_eq!(names_of(b"; ").0, br"\x3b\x20");
        assert_eq!(names_of(b" ").0, br"\x20");
        assert_eq!(names_of(b"").0, b"");
    }

    #[test]
    fn sources_are_cut_where_both_sides_have_their_pipes() {
        let (field, notes) = sources_of(b"|Die Schwalbe|1930|; |Chess|1931|");
        assert_eq!(field, b"|Die Schwalbe|1930|;|Chess|1931|");
        assert_eq!(notes, Notes::default());
        // A `; ` inside a subfield.
        let (field, notes) = sources_of(b"1|Schach; Beilage|1930|12");
        assert_eq!(field, br"1|Schach\x3b Beilage|1930|12");
        assert_eq!(notes, Notes::default());
        // Text after `; ` without its 3 `|` goes to the item before.
        let (field, notes) = sources_of(b"|A|1|; B");
        assert_eq!(field, br"|A|1|\x3b B");
        assert!(notes.appended);
        // A `|` past the third belongs to the last subfield.
        assert_eq!(sources_of(b"a|b|c|d|e").0, br"a|b|c|d\x7ce");
        // Fewer than 3 `|`: one item, trimmed, completed.
        let (field, notes) = sources_of(b" Chess Monthly ");
        assert_eq!(field, b"Chess Monthly|||");
        assert_eq!(notes.padded, Some(1));
        assert_eq!(sources_of(b"1|Pr").0, b"1|Pr||");
        assert_eq!(sources_of(b" \t ").0, b"");
        // Spaces at the ends of an item.
        assert_eq!(sources_of(b" a|b|c|d ").0, br"\x20a|b|c|d\x20");
    }

    #[test]
    fn used_source() {
        let mut out = vec![];
        source([b"", b"", b"", b""], &mut out).unwrap();
        assert_eq!(out, b"");
        source([b"1", b"A|B", b"", b" "], &mut out).unwrap();
        assert_eq!(out, br"1|A\x7cB|| ");
        let err = source([b"", "\u{2028}".as_bytes(), b"", b""], &mut out);
        assert_eq!(err, Err((1, Unwritable::LineSeparator)));
    }

    #[test]
    fn raw_values_are_checked() {
        let mut out = vec![];
        raw(Field::Comment, b"a:b\\q", &mut out).unwrap();
        assert_eq!(out, b"a:b\\q");
        let colon = raw(Field::Stipulation, b"a:b", &mut out);
        assert_eq!(colon, Err(Unwritable::Colon));
        for end in ["\n", "\r", "\u{85}", "\u{2028}"] {
            let value = format!("a{end}b");
            let got = raw(Field::Comment, value.as_bytes(), &mut out);
            assert_eq!(got, Err(Unwritable::LineEnd), "{end:?}");
        }
        out.clear();
        raw_source([b"1", b"T", b"d", b"p|q"], &mut out).unwrap();
        assert_eq!(out, b"1|T|d|p|q");
        let pipe = raw_source([b"1", b"T|U", b"", b""], &mut out);
        assert_eq!(pipe, Err((1, Unwritable::Pipe)));
    }

    /// Pieces of text with every byte that writing treats specially.
    const PIECES: &[&[u8]] = &[
        b"a",
        b"Loyd",
        b" ",
        b"  ",
        b";",
        b"; ",
        b"|",
        b":",
        b"\\",
        b"\\x3a",
        b"\\q",
        b"#",
        b"\t",
        b"\n",
        b"\r",
        b"\0",
        b"\x7f",
        b"_x000D_",
        "\u{85}".as_bytes(),
        "\u{80}".as_bytes(),
        "\u{e9}".as_bytes(),
        "\u{416}".as_bytes(),
        "\u{265a}".as_bytes(),
        "\u{1d11e}".as_bytes(),
        "\u{2029}".as_bytes(),
        b"\xc2",
        b"\xe2",
        b"\x80",
        b"\xa8",
        b"\xff",
    ];

    fn value() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..12)
            .prop_map(|pieces| pieces.concat())
    }

    fn has_line_separator(v: &[u8]) -> bool {
        v.windows(3).any(|w| w == b"\xe2\x80\xa8")
    }

    /// What no written field may hold: a line end, a `:`, an escape that
    /// reading would warn about.
    fn assert_clean(field: &[u8]) {
        assert!(!field.contains(&b':'));
        assert!(!field.contains(&b'\n') && !field.contains(&b'\r'));
        assert!(!field.windows(2).any(|w| w == b"\xc2\x85"));
        assert!(!has_line_separator(field));
        assert_eq!(escape::first_bad(field), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// A row found plain at once writes what each value alone does.
        #[test]
        fn fields_of_a_plain_row_agree(v in value(), w in value()) {
            let row = [&v[..], &w[..]].concat();
            let fields = Fields::new(&row);
            let (mut a, mut b) = (vec![], vec![]);
            let at = fields.names(&v, &mut a).map(|n| (n, a.clone()));
            prop_assert_eq!(at, names(&v, &mut b).map(|n| (n, b.clone())));
            let (mut a, mut b) = (vec![], vec![]);
            let at = fields.sources(&w, &mut a).map(|n| (n, a.clone()));
            prop_assert_eq!(at, sources(&w, &mut b).map(|n| (n, b.clone())));
            let (mut a, mut b) = (vec![], vec![]);
            let at = fields.text(&v, &mut a).map(|()| a.clone());
            prop_assert_eq!(at, text(&v, &mut b).map(|()| b.clone()));
            let (mut a, mut b) = (vec![], vec![]);
            let four = [&v[..], &w[..], b"", &v[..]];
            let at = fields.source(four, &mut a).map(|()| a.clone());
            prop_assert_eq!(at, source(four, &mut b).map(|()| b.clone()));
        }

        #[test]
        fn text_reads_back(v in value()) {
            let mut out = vec![];
            match text(&v, &mut out) {
                Err(e) => {
                    prop_assert!(has_line_separator(&v));
                    prop_assert_eq!(e, Unwritable::LineSeparator);
                }
                Ok(()) => {
                    assert_clean(&out);
                    prop_assert_eq!(escape::decode(&out).into_owned(), v);
                }
            }
        }

        #[test]
        fn names_read_back(v in value()) {
            prop_assume!(!has_line_separator(&v));
            let (field, _) = names_of(&v);
            assert_clean(&field);
            prop_assert!(field.first() != Some(&b'#'));
            prop_assert_eq!(read_names(&field), v);
        }

        #[test]
        fn sources_with_their_pipes_read_back(v in value()) {
            prop_assume!(!has_line_separator(&v));
            let (field, notes) = sources_of(&v);
            assert_clean(&field);
            for item in list(&field) {
                prop_assert_eq!(Subfields::split(item).written, 4);
            }
            let pipes = v.iter().filter(|&&b| b == b'|').count();
            if pipes >= 3 {
                prop_assert_eq!(notes.padded, None);
                prop_assert_eq!(read_sources(&field), v);
            } else if trim(&v).is_empty() {
                prop_assert!(field.is_empty());
            } else {
                let mut want = trim(&v).to_vec();
                want.extend(std::iter::repeat_n(b'|', 3 - pipes));
                prop_assert_eq!(read_sources(&field), want);
            }
        }
    }
}
