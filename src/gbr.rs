//! GBR codes: the material code, the extended position form and the study
//! code of FORMATS.md (GBR), written and read.
//!
//! | form | example |
//! | --- | --- |
//! | material code | `0116.00` |
//! | extended position form | `a7d3 0116.00 b2b3c6d6 3/3+.` |
//! | study code | `[+0020.42c1a1]` |
//!
//! Every writer appends to a caller's `Vec<u8>`, so that a tool encoding
//! millions of lines reuses one buffer and allocates nothing per line.
//! Writers take a [`Board`] that passed [`Board::check_material`]: one king
//! a side, at most 8 pawns a side.

use std::fmt;

use crate::board::{self, Board, Color, Kind, MaterialError, Piece, Square};
use crate::decimal;

/// The result a position form or study code claims for White.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// No verdict given.
    #[default]
    None,
    /// White wins, `+`.
    Win,
    /// White draws, `=`.
    Draw,
}

/// The side to move, as far as it is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ToMove {
    /// Not known (no FEN side-to-move field).
    #[default]
    Unknown,
    /// White to move.
    White,
    /// Black to move.
    Black,
}

impl ToMove {
    /// The side a FEN side-to-move field names: `w` or `b`; anything else
    /// (or nothing) is unknown.
    pub fn from_fen(field: &[u8]) -> ToMove {
        match field {
            b"w" => ToMove::White,
            b"b" => ToMove::Black,
            _ => ToMove::Unknown,
        }
    }
}

/// Which of the three forms to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Form {
    /// The material code, `0116.00`.
    #[default]
    Code,
    /// The extended position form, `a7d3 0116.00 b2b3c6d6 3/3+.`.
    Position,
    /// The study code, `[+0020.42c1a1]`.
    Study,
}

/// How many men of each colour and kind stand on a board: all that the
/// material code needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Men {
    /// `counts[color][kind]`, kinds in [`Kind`] order (Q R B N P K).
    pub counts: [[u8; 6]; 2],
}

/// What one byte of a board string adds up to in [`Men::scan`].
#[derive(Clone, Copy)]
struct ByteClass {
    /// Adds to the 8-bit lanes of two counters: word 0 counts White's men
    /// (lanes 0-5, [`Kind`] order), the slashes (lane 6) and the bytes
    /// that cannot be in a board (lane 7); word 1 counts Black's men
    /// (lanes 0-5) and, in its top 16 bits, the squares covered in the
    /// current rank: what the byte covers, and for a slash minus the
    /// rank's 8 (wrapping). Two words rather than one `u128`: no carry
    /// chain between them.
    lanes: [u64; 2],
    /// For a slash, the squares' 16 bits, so that the squares so far can
    /// be checked without a branch (they must be back to 0); else 0.
    slash: u64,
}

const LANE_SLASH: u32 = 6;
const LANE_BAD: u32 = 7;
/// Where the squares are in word 1 of [`ByteClass::lanes`].
const SQUARES_SHIFT: u32 = 48;

/// What a byte covering `n` squares adds to word 1.
const fn squares(n: i64) -> u64 {
    (n as u64) << SQUARES_SHIFT
}

/// The longest board string that can parse: 64 one-square bytes and 7
/// slashes. No lane of a string this short can overflow.
const LONGEST_BOARD: usize = 71;

const BYTE_CLASSES: [ByteClass; 256] = byte_classes();

const fn byte_classes() -> [ByteClass; 256] {
    let bad = ByteClass { lanes: [1 << (8 * LANE_BAD), squares(1)], slash: 0 };
    let mut t = [bad; 256];
    let mut d = b'1';
    while d <= b'8' {
        t[d as usize] =
            ByteClass { lanes: [0, squares((d - b'0') as i64)], slash: 0 };
        d += 1;
    }
    t[b'/' as usize] = ByteClass {
        lanes: [1 << (8 * LANE_SLASH), squares(-8)],
        slash: squares(-1),
    };
    let letters = [b"QRBNPK", b"QRBSPK"];
    let mut k = 0;
    while k < 6 {
        let mut l = 0;
        while l < 2 {
            let upper = letters[l][k];
            let lane = 1 << (8 * k);
            t[upper as usize] =
                ByteClass { lanes: [lane, squares(1)], slash: 0 };
            t[upper.to_ascii_lowercase() as usize] =
                ByteClass { lanes: [0, lane + squares(1)], slash: 0 };
            l += 1;
        }
        k += 1;
    }
    t
}

impl Men {
    /// The men on `board`.
    pub fn of(board: &Board) -> Men {
        let mut men = Men::default();
        for color in Color::BOTH {
            for (i, count) in men.counts[color as usize].iter_mut().enumerate()
            {
                *count = board.count(color, Kind::ALL[i]);
            }
        }
        men
    }

    /// Counts the men of a board string without building the board: the
    /// fast path for the material code. `None` exactly when
    /// [`Board::parse`] fails (call it for the error).
    ///
    /// The loop has no branch per byte and keeps its counts in registers:
    /// two 64-bit adds per byte count each kind of man, the slashes and
    /// the bad bytes in 8-bit lanes, and in the top bits of the second
    /// sum the squares covered in the current rank, which must be 8 at
    /// each slash.
    ///
    /// On a CPU with AVX2 a board of up to 64 bytes (nearly all) is read
    /// 64 bytes at once instead (`avx2::scan`).
    #[inline]
    pub fn scan(s: &[u8]) -> Option<Men> {
        #[cfg(target_arch = "x86_64")]
        if s.len() <= 64 && avx2::available() {
            // SAFETY: the CPU has AVX2 and POPCNT, and `s` is short enough.
            return unsafe { avx2::scan::<true>(s) };
        }
        Men::scan_bytes(s)
    }

    /// [`Men::scan`] of `hay[start..end]`: faster when `hay` goes on
    /// after the board (the rest of a line, or of a block of lines),
    /// which is read but does not count.
    ///
    /// # Panics
    ///
    /// When `start..end` is not in `hay`.
    #[inline]
    pub fn scan_in(hay: &[u8], start: usize, end: usize) -> Option<Men> {
        let len = hay[start..end].len();
        #[cfg(target_arch = "x86_64")]
        if len <= 64 && avx2::available() {
            // SAFETY: the CPU has AVX2 and POPCNT, the board is short
            // enough and in `hay`.
            return unsafe { avx2::scan_in::<true>(hay, start, len) };
        }
        Men::scan_bytes(&hay[start..end])
    }

    /// Whether `s` is a board that [`Men::scan`] reads and whose men pass
    /// [`Men::check`]: what a reader that only checks a position needs,
    /// for less than the counting of every kind.
    #[inline]
    pub fn scan_checks(s: &[u8]) -> bool {
        Men::scan_checks_in(s, 0, s.len())
    }

    /// [`Men::scan_checks`] of `hay[start..end]`: faster when `hay` goes
    /// on after the board (the rest of a line), which is read but does
    /// not count.
    ///
    /// # Panics
    ///
    /// When `start..end` is not in `hay`.
    #[inline]
    pub fn scan_checks_in(hay: &[u8], start: usize, end: usize) -> bool {
        let len = hay[start..end].len();
        #[cfg(target_arch = "x86_64")]
        if len <= 64 && avx2::available() {
            // SAFETY: the CPU has AVX2 and POPCNT, the board is short
            // enough and in `hay`.
            return unsafe { avx2::scan_in::<false>(hay, start, len) }
                .is_some_and(|men| men.check().is_ok());
        }
        Men::scan_bytes(&hay[start..end])
            .is_some_and(|men| men.check().is_ok())
    }

    /// [`Men::scan`] one byte at a time: for longer boards, CPUs without
    /// AVX2, and the reference the vector reading is tested against.
    #[inline]
    fn scan_bytes(s: &[u8]) -> Option<Men> {
        if s.len() > LONGEST_BOARD {
            return None;
        }
        let (mut white, mut black, mut bad) = (0u64, 0u64, 0u64);
        for &b in s {
            let class = &BYTE_CLASSES[b as usize];
            white += class.lanes[0];
            // The squares, in the top bits, wrap below 0.
            black = black.wrapping_add(class.lanes[1]);
            bad |= black & class.slash;
        }
        let lane = |word: u64, i: u32| (word >> (8 * i)) as u8;
        if bad != 0
            || black >> SQUARES_SHIFT != 8
            || lane(white, LANE_SLASH) != 7
            || lane(white, LANE_BAD) != 0
        {
            return None;
        }
        let mut men = Men::default();
        for k in 0..6 {
            men.counts[0][k] = lane(white, k as u32);
            men.counts[1][k] = lane(black, k as u32);
        }
        Some(men)
    }

    /// How many men of this colour and kind.
    #[inline]
    pub fn count(&self, color: Color, kind: Kind) -> u8 {
        self.counts[color as usize][kind as usize]
    }

    /// Checks what a GBR code needs, as [`Board::check_material`] does.
    ///
    /// # Errors
    ///
    /// The first [`MaterialError`] found, White before Black.
    pub fn check(&self) -> Result<(), MaterialError> {
        board::check_counts(|color, kind| self.count(color, kind))
    }

    /// The GBR digit of one kind of piece: `w + 3*b`, or 9 when either
    /// side has 3 or more.
    #[inline]
    pub fn digit(&self, kind: Kind) -> u8 {
        let w = self.count(Color::White, kind);
        let b = self.count(Color::Black, kind);
        if w > 2 || b > 2 {
            9
        } else {
            w + 3 * b
        }
    }

    /// Appends the material code `QRBN.PP` (always with the point and
    /// both pawn digits). Returns whether a digit is 9.
    ///
    /// A pawn count above 9 (men that failed [`Men::check`]) is written
    /// as `9`.
    #[inline]
    pub fn write_code(&self, out: &mut Vec<u8>) -> bool {
        let mut code = [0; 7];
        let nine = self.code_into(&mut code);
        out.extend_from_slice(&code);
        nine
    }

    /// The material code `QRBN.PP` in the first 7 bytes of `out`, as
    /// [`Men::write_code`] writes it. Returns whether a digit is 9.
    #[inline]
    pub fn code_into(&self, out: &mut [u8]) -> bool {
        let [w, b] = self.counts;
        let digit =
            |k: usize| DIGITS[w[k].min(3) as usize][b[k].min(3) as usize];
        let code = [
            digit(0),
            digit(1),
            digit(2),
            digit(3),
            b'.',
            b'0' + w[Kind::Pawn as usize].min(9),
            b'0' + b[Kind::Pawn as usize].min(9),
        ];
        out[..7].copy_from_slice(&code);
        code[..4].contains(&b'9')
    }
}

/// The digit (as a byte) for `[white][black]` men of one kind, 3 standing
/// for 3 or more: a table instead of branches on the hot path.
const DIGITS: [[u8; 4]; 4] = [
    [b'0', b'3', b'6', b'9'],
    [b'1', b'4', b'7', b'9'],
    [b'2', b'5', b'8', b'9'],
    [b'9', b'9', b'9', b'9'],
];

/// The GBR digit of one kind of piece on `board`: `w + 3*b`, or 9 when
/// either side has 3 or more.
#[inline]
pub fn digit(board: &Board, kind: Kind) -> u8 {
    Men::of(board).digit(kind)
}

/// Whether any of the four piece digits is 9: the material cannot be
/// decoded from the code.
pub fn has_nine(board: &Board) -> bool {
    let men = Men::of(board);
    Kind::PIECES.iter().any(|&k| men.digit(k) == 9)
}

/// Appends the material code `QRBN.PP` of `board` (always with the point
/// and both pawn digits). Returns whether a digit is 9.
///
/// A pawn count above 9 (a board that failed
/// [`Board::check_material`]) is written as `9`.
#[inline]
pub fn material_code(board: &Board, out: &mut Vec<u8>) -> bool {
    Men::of(board).write_code(out)
}

/// Appends the men of each side, kings included, as `3+3` (pbi2csv's
/// `pieces` column).
pub fn pieces(board: &Board, out: &mut Vec<u8>) {
    decimal::push(out, u64::from(board.men(Color::White)));
    out.push(b'+');
    decimal::push(out, u64::from(board.men(Color::Black)));
}

/// The men of a board in the order the extended form lists them: for
/// Q, R, B, N, P, K, White's then Black's, each group in square-name order
/// (a1 < a2 < ... < h8). One pass over the board builds it.
struct Listing {
    squares: [Square; 64],
    /// Where each group starts in `squares`, and the end: group
    /// `kind * 2 + color`, as [`Kind`] is numbered in this order.
    start: [u8; 13],
}

impl Listing {
    fn of(board: &Board) -> Listing {
        let mut start = [0u8; 13];
        for group in 0..12 {
            let (kind, color) = (Kind::ALL[group / 2], group % 2);
            start[group + 1] =
                start[group] + board.count(Color::BOTH[color], kind);
        }
        let mut next = start;
        let mut squares = [Square(0); 64];
        for i in 0..64 {
            let sq = Square::new(i / 8, i % 8);
            if let Some(p) = board.get(sq) {
                let group = p.kind as usize * 2 + p.color as usize;
                squares[next[group] as usize] = sq;
                next[group] += 1;
            }
        }
        Listing { squares, start }
    }

    /// The squares of groups `from..to`.
    fn groups(&self, from: usize, to: usize) -> &[Square] {
        &self.squares[self.start[from] as usize..self.start[to] as usize]
    }

    /// The square of `color`'s king; a1 when there is none (the caller
    /// checked the material).
    fn king(&self, color: Color) -> Square {
        let group = Kind::King as usize * 2 + color as usize;
        match self.groups(group, group + 1) {
            [sq, ..] => *sq,
            [] => Square(0),
        }
    }
}

fn push_square(out: &mut Vec<u8>, sq: Square) {
    out.extend_from_slice(&sq.name());
}

/// Appends the extended position form
/// `<wK><bK> <code> <squares> <w>/<b><mark>.`. Returns whether the code
/// has a digit 9, so that the form cannot be decoded.
pub fn position(
    board: &Board,
    verdict: Verdict,
    to_move: ToMove,
    out: &mut Vec<u8>,
) -> bool {
    let listing = Listing::of(board);
    push_square(out, listing.king(Color::White));
    push_square(out, listing.king(Color::Black));
    out.push(b' ');
    let nine = material_code(board, out);
    push_squares(&listing, out);
    out.push(b' ');
    decimal::push(out, u64::from(board.men(Color::White)));
    out.push(b'/');
    decimal::push(out, u64::from(board.men(Color::Black)));
    out.extend_from_slice(mark(verdict, to_move));
    out.push(b'.');
    nine
}

/// Appends ` <squares>` (pieces, then `.` and pawns), or nothing when
/// only the kings are on the board.
fn push_squares(listing: &Listing, out: &mut Vec<u8>) {
    let pawn = Kind::Pawn as usize * 2;
    let (pieces, pawns) =
        (listing.groups(0, pawn), listing.groups(pawn, pawn + 2));
    if pieces.is_empty() && pawns.is_empty() {
        return;
    }
    out.push(b' ');
    pieces.iter().for_each(|&sq| push_square(out, sq));
    if !pawns.is_empty() {
        out.push(b'.');
        pawns.iter().for_each(|&sq| push_square(out, sq));
    }
}

/// The mark after the control count, without the full stop.
fn mark(verdict: Verdict, to_move: ToMove) -> &'static [u8] {
    match (verdict, to_move) {
        (Verdict::Win, ToMove::Black) => b"-+",
        (Verdict::Draw, ToMove::Black) => b"-=",
        (Verdict::Win, _) => b"+",
        (Verdict::Draw, _) => b"=",
        (Verdict::None, ToMove::White) => b" WTM",
        (Verdict::None, ToMove::Black) => b" BTM",
        (Verdict::None, ToMove::Unknown) => b"",
    }
}

/// Appends the study code `[<r><QRBN>.<wp><bp><wK><bK>]`, the result left
/// out without a verdict. Returns whether the code has a digit 9.
pub fn study(board: &Board, verdict: Verdict, out: &mut Vec<u8>) -> bool {
    out.push(b'[');
    match verdict {
        Verdict::Win => out.push(b'+'),
        Verdict::Draw => out.push(b'='),
        Verdict::None => {}
    }
    let nine = material_code(board, out);
    let listing = Listing::of(board);
    push_square(out, listing.king(Color::White));
    push_square(out, listing.king(Color::Black));
    out.push(b']');
    nine
}

/// Appends `board` in `form`. Returns whether the code has a digit 9.
pub fn encode(
    board: &Board,
    form: Form,
    verdict: Verdict,
    to_move: ToMove,
    out: &mut Vec<u8>,
) -> bool {
    match form {
        Form::Code => material_code(board, out),
        Form::Position => position(board, verdict, to_move, out),
        Form::Study => study(board, verdict, out),
    }
}

/// Why a code does not decode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The text is not in the expected shape; what was expected.
    Syntax(&'static str),
    /// A piece digit is 9: the material is not known.
    Nine,
    /// The control count `<w>/<b>` does not match the men of the code.
    Count {
        /// The count as written, White and Black.
        written: [u32; 2],
        /// The men the code holds, kings included.
        coded: [u8; 2],
    },
    /// Two men on this square.
    TwoMen(Square),
    /// More or fewer squares than the code needs.
    Squares {
        /// `piece `, `pawn ` or empty (all squares, no `.` written).
        what: &'static str,
        /// How many the code needs.
        needed: u8,
        /// How many were written.
        found: usize,
    },
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Syntax(what) => write!(f, "expected {what}"),
            DecodeError::Nine => {
                write!(f, "digit 9 in the code: the material is not known")
            }
            DecodeError::Count { written: [w, b], coded: [cw, cb] } => {
                write!(
                    f,
                    "control count {w}/{b} does not match the code \
                     ({cw}/{cb})"
                )
            }
            DecodeError::TwoMen(sq) => write!(f, "two men on {sq}"),
            DecodeError::Squares { what, needed, found } => write!(
                f,
                "the code needs {needed} {what}squares, found {found}"
            ),
        }
    }
}

impl std::error::Error for DecodeError {}

/// The men a material code stands for, kings left out: for each colour
/// the queens, rooks, bishops, knights and pawns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Material {
    /// `counts[color][kind]`, kinds in the order Q R B N P.
    pub counts: [[u8; 5]; 2],
}

const PIECE_KINDS: [Kind; 5] =
    [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight, Kind::Pawn];

impl Material {
    /// Reads a code `QRBN.PP` or `QRBN` at the start of `s`; returns it
    /// and the number of bytes read.
    ///
    /// # Errors
    ///
    /// [`DecodeError::Nine`] for a piece digit 9, [`DecodeError::Syntax`]
    /// when `s` does not start with a code.
    pub fn parse_prefix(s: &[u8]) -> Result<(Material, usize), DecodeError> {
        const WANT: &str = "a material code such as 0116.00";
        let mut m = Material::default();
        let Some(digits) = s.get(..4) else {
            return Err(DecodeError::Syntax(WANT));
        };
        let mut nine = false;
        for (i, &d) in digits.iter().enumerate() {
            if !d.is_ascii_digit() {
                return Err(DecodeError::Syntax(WANT));
            }
            let d = d - b'0';
            nine |= d == 9;
            m.counts[0][i] = d % 3;
            m.counts[1][i] = d / 3;
        }
        if nine {
            return Err(DecodeError::Nine);
        }
        match s.get(4..7) {
            Some(&[b'.', w @ b'0'..=b'8', b @ b'0'..=b'8']) => {
                m.counts[0][4] = w - b'0';
                m.counts[1][4] = b - b'0';
                Ok((m, 7))
            }
            _ if s.get(4) == Some(&b'.') => {
                Err(DecodeError::Syntax("two pawn digits 0-8 after the point"))
            }
            _ => Ok((m, 4)),
        }
    }

    /// Reads a whole material code, `QRBN.PP` or `QRBN`.
    ///
    /// # Errors
    ///
    /// As [`Material::parse_prefix`], and [`DecodeError::Syntax`] when
    /// anything follows the code.
    pub fn parse(s: &[u8]) -> Result<Material, DecodeError> {
        match Material::parse_prefix(s)? {
            (m, n) if n == s.len() => Ok(m),
            _ => Err(DecodeError::Syntax("a material code such as 0116.00")),
        }
    }

    /// How many pieces (not pawns, not the king) `color` has.
    pub fn pieces(&self, color: Color) -> u8 {
        self.counts[color as usize][..4].iter().sum()
    }

    /// How many pawns `color` has.
    pub fn pawns(&self, color: Color) -> u8 {
        self.counts[color as usize][4]
    }

    /// How many men `color` has, king included.
    pub fn men(&self, color: Color) -> u8 {
        1 + self.pieces(color) + self.pawns(color)
    }

    /// Appends `K<white>-K<black>`, pieces in the order Q R B N P, each
    /// letter once per man: `KRB-KNN`.
    pub fn write(&self, out: &mut Vec<u8>) {
        for color in Color::BOTH {
            if color == Color::Black {
                out.push(b'-');
            }
            out.push(b'K');
            for (i, kind) in PIECE_KINDS.iter().enumerate() {
                let n = self.counts[color as usize][i] as usize;
                out.extend(std::iter::repeat_n(kind.letter(), n));
            }
        }
    }
}

/// Whether `b` separates fields: a space or a tab.
#[inline]
pub fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// `s` without leading and trailing spaces and tabs.
#[inline]
pub fn trim(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_blank(b)).unwrap_or(s.len());
    let end = s.iter().rposition(|&b| !is_blank(b)).map_or(start, |i| i + 1);
    &s[start..end]
}

/// The first field of `s` (which starts with no blank) and the rest after
/// the blanks that follow it.
#[inline]
pub fn split_field(s: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr2(b' ', b'\t', s) {
        None => (s, &[]),
        Some(i) => {
            let rest = &s[i..];
            let skip = rest.iter().position(|&b| !is_blank(b));
            (&s[..i], &rest[skip.unwrap_or(rest.len())..])
        }
    }
}

/// Decodes one code in any of the three forms and appends what
/// FORMATS.md (GBR, point 6) says: `KRB-KNN` for a material code, the FEN
/// board field (and ` w` or ` b`) for an extended form, the material and
/// the king squares (and ` +` or ` =`) for a study code.
///
/// `s` is trimmed of spaces and tabs; anything after a complete code
/// (after a blank) is ignored, so that `gbr-encode -p` output decodes.
///
/// # Errors
///
/// A [`DecodeError`]; `out` may then hold part of the output.
pub fn decode(s: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
    let s = trim(s);
    let (first, _) = split_field(s);
    if first.starts_with(b"[") {
        decode_study(first, out)
    } else if first.len() == 4 && matches!(first[0], b'a'..=b'h') {
        decode_position(s, out)
    } else {
        Material::parse(first)?.write(out);
        Ok(())
    }
}

/// Reads two king squares such as `a7d3`.
fn kings(s: &[u8]) -> Result<[Square; 2], DecodeError> {
    const WANT: &str = "two king squares such as a7d3";
    match (s.len(), s.get(..2), s.get(2..4)) {
        (4, Some(w), Some(b)) => match (Square::parse(w), Square::parse(b)) {
            (Some(w), Some(b)) if w == b => Err(DecodeError::TwoMen(w)),
            (Some(w), Some(b)) => Ok([w, b]),
            _ => Err(DecodeError::Syntax(WANT)),
        },
        _ => Err(DecodeError::Syntax(WANT)),
    }
}

/// Decodes `[<r><QRBN>.<wp><bp><wK><bK>]` (the pawn digits may be left
/// out).
fn decode_study(s: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
    const WANT: &str = "a study code such as [+0020.42c1a1]";
    let inner = s
        .strip_prefix(b"[")
        .and_then(|s| s.strip_suffix(b"]"))
        .ok_or(DecodeError::Syntax(WANT))?;
    let (verdict, rest) = match inner.first() {
        Some(b'+') => (b" +".as_slice(), &inner[1..]),
        Some(b'=') => (b" =".as_slice(), &inner[1..]),
        _ => (b"".as_slice(), inner),
    };
    let (m, n) = Material::parse_prefix(rest)?;
    let squares = &rest[n..];
    if squares.len() != 4 {
        return Err(DecodeError::Syntax(WANT));
    }
    kings(squares)?;
    m.write(out);
    out.push(b' ');
    out.extend_from_slice(squares);
    out.extend_from_slice(verdict);
    Ok(())
}

/// The parts of an extended position form, as written.
struct Extended<'a> {
    kings: [Square; 2],
    material: Material,
    squares: &'a [u8],
    count: [u32; 2],
    to_move: ToMove,
}

/// Decodes `<wK><bK> <code> <squares> <w>/<b><mark>.` to a FEN board field
/// and, when the mark tells, ` w` or ` b`.
fn decode_position(s: &[u8], out: &mut Vec<u8>) -> Result<(), DecodeError> {
    let form = Extended::parse(s)?;
    let board = form.board()?;
    board.write_fen(out);
    match form.to_move {
        ToMove::White => out.extend_from_slice(b" w"),
        ToMove::Black => out.extend_from_slice(b" b"),
        ToMove::Unknown => {}
    }
    Ok(())
}

impl<'a> Extended<'a> {
    /// Splits the form into its parts and reads each.
    fn parse(s: &'a [u8]) -> Result<Extended<'a>, DecodeError> {
        let (first, rest) = split_field(s);
        let kings = kings(first)?;
        let (code, rest) = split_field(rest);
        let material = Material::parse(code)?;
        let (mut field, mut rest) = split_field(rest);
        let mut squares: &[u8] = &[];
        if !field.contains(&b'/') && !field.is_empty() {
            squares = field;
            (field, rest) = split_field(rest);
        }
        let (count, mut to_move) = count_and_mark(field)?;
        if to_move.is_none() {
            to_move = Some(side_token(split_field(rest).0));
        }
        let to_move = to_move.unwrap_or_default();
        Ok(Extended { kings, material, squares, count, to_move })
    }

    /// Builds the board, checking the count and the squares.
    fn board(&self) -> Result<Board, DecodeError> {
        let coded = Color::BOTH.map(|c| self.material.men(c));
        if self.count != coded.map(u32::from) {
            return Err(DecodeError::Count { written: self.count, coded });
        }
        let mut board = Board::empty();
        for (color, sq) in Color::BOTH.into_iter().zip(self.kings) {
            place(&mut board, sq, color, Kind::King)?;
        }
        let (pieces, pawns) = self.split_squares()?;
        let mut pieces = pieces.chunks(2);
        for (i, kind) in Kind::PIECES.into_iter().enumerate() {
            for color in Color::BOTH {
                let n = self.material.counts[color as usize][i];
                place_all(&mut board, &mut pieces, n, color, kind)?;
            }
        }
        let mut pawns = pawns.chunks(2);
        for color in Color::BOTH {
            let n = self.material.pawns(color);
            place_all(&mut board, &mut pawns, n, color, Kind::Pawn)?;
        }
        Ok(board)
    }

    /// The piece squares and the pawn squares, checked against the code.
    fn split_squares(&self) -> Result<(&'a [u8], &'a [u8]), DecodeError> {
        let pieces = Color::BOTH.map(|c| self.material.pieces(c));
        let pawns = Color::BOTH.map(|c| self.material.pawns(c));
        let (npieces, npawns) = (pieces[0] + pieces[1], pawns[0] + pawns[1]);
        let s = self.squares;
        let Some(dot) = s.iter().position(|&b| b == b'.') else {
            check_squares(s, "", npieces + npawns)?;
            return Ok(s.split_at(2 * npieces as usize));
        };
        let (before, after) = (&s[..dot], &s[dot + 1..]);
        check_squares(before, "piece ", npieces)?;
        check_squares(after, "pawn ", npawns)?;
        Ok((before, after))
    }
}

/// Checks that `s` is `needed` square names.
fn check_squares(
    s: &[u8],
    what: &'static str,
    needed: u8,
) -> Result<(), DecodeError> {
    const WANT: &str = "square names such as b2b3c6d6";
    if !s.len().is_multiple_of(2)
        || s.chunks(2).any(|c| Square::parse(c).is_none())
    {
        return Err(DecodeError::Syntax(WANT));
    }
    if s.len() != 2 * needed as usize {
        let found = s.len() / 2;
        return Err(DecodeError::Squares { what, needed, found });
    }
    Ok(())
}

/// Puts the next `n` squares of `names` on the board as `color`'s `kind`.
fn place_all<'a>(
    board: &mut Board,
    names: &mut impl Iterator<Item = &'a [u8]>,
    n: u8,
    color: Color,
    kind: Kind,
) -> Result<(), DecodeError> {
    for _ in 0..n {
        // check_squares made sure there are enough valid names.
        let sq = names.next().and_then(Square::parse).unwrap_or(Square(0));
        place(board, sq, color, kind)?;
    }
    Ok(())
}

fn place(
    board: &mut Board,
    sq: Square,
    color: Color,
    kind: Kind,
) -> Result<(), DecodeError> {
    if board.get(sq).is_some() {
        return Err(DecodeError::TwoMen(sq));
    }
    board.put(sq, Piece { color, kind });
    Ok(())
}

/// Reads `<w>/<b><mark>` with an optional full stop. The side is `None`
/// when the field has no mark and no full stop, so that ` WTM` or ` BTM`
/// may follow.
fn count_and_mark(
    s: &[u8],
) -> Result<([u32; 2], Option<ToMove>), DecodeError> {
    const WANT: &str = "a control count such as 3/3";
    let (w, rest) = number(s).ok_or(DecodeError::Syntax(WANT))?;
    let rest = rest.strip_prefix(b"/").ok_or(DecodeError::Syntax(WANT))?;
    let (b, rest) = number(rest).ok_or(DecodeError::Syntax(WANT))?;
    let to_move = match rest {
        b"" => None,
        b"." => Some(ToMove::Unknown),
        b"+" | b"=" | b"+." | b"=." => Some(ToMove::White),
        b"-+" | b"-=" | b"-+." | b"-=." => Some(ToMove::Black),
        _ => return Err(DecodeError::Syntax("a mark + = -+ -= after 3/3")),
    };
    Ok(([w, b], to_move))
}

/// A decimal number at the start of `s` and what follows it.
fn number(s: &[u8]) -> Option<(u32, &[u8])> {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    if n == 0 || n > 3 {
        return None;
    }
    let value = s[..n].iter().fold(0, |v, &d| v * 10 + u32::from(d - b'0'));
    Some((value, &s[n..]))
}

/// The side a ` WTM` or ` BTM` token names (the full stop may follow);
/// anything else is not part of the form.
fn side_token(s: &[u8]) -> ToMove {
    match s {
        b"WTM" | b"WTM." => ToMove::White,
        b"BTM" | b"BTM." => ToMove::Black,
        _ => ToMove::Unknown,
    }
}

/// Reads the line of `hay` that starts at `start` and ends with an LF,
/// when it is of the usual shape for a material code: a board (of up to
/// 63 bytes) that starts the line and parses, ended by a blank or the
/// LF. Returns where the LF is and the board's men, read in one pass with
/// AVX2; `None` for any other line (a blank one, one with no LF, one
/// whose board is longer or does not parse), or without AVX2: then read
/// the line the general way, which says what is wrong with it.
#[inline]
pub fn code_line(hay: &[u8], start: usize) -> Option<(usize, Men)> {
    #[cfg(target_arch = "x86_64")]
    if start < hay.len() && avx2::available() {
        // SAFETY: the CPU has AVX2 and POPCNT, and `start` is in `hay`.
        return unsafe { avx2::code_line(hay, start) };
    }
    let _ = (hay, start);
    None
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_add_epi8, _mm256_and_si256,
        _mm256_andnot_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8,
        _mm256_extract_epi64, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_permute2x128_si256, _mm256_sad_epu8,
        _mm256_set1_epi8, _mm256_setr_epi8, _mm256_setzero_si256,
        _mm256_shuffle_epi8, _mm256_slli_epi16, _mm256_slli_si256,
        _mm256_srli_epi16, _mm256_sub_epi8,
    };

    use super::Men;

    /// Whether the CPU has what [`scan`] needs (std caches the answer).
    #[inline(always)]
    pub(super) fn available() -> bool {
        use std::arch::is_x86_feature_detected as has;
        has!("avx2") && has!("popcnt")
    }

    /// [`Men::scan`] of a board of up to 64 bytes, read at once: every
    /// byte must be a man's letter, a digit 1-8 or `/`; there must be 7
    /// slashes, 64 squares in all, and none of the 7 running sums of
    /// squares at a slash other than 8 a rank (the running sum, with 8
    /// taken off at each slash, is 0 there). With `FULL` false, only the
    /// kings and pawns are counted (the other counts are 0).
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2 and POPCNT ([`available`]); `s` is at most
    /// 64 bytes.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn scan<const FULL: bool>(s: &[u8]) -> Option<Men> {
        // SAFETY: the caller's promises.
        unsafe { scan_in::<FULL>(s, 0, s.len()) }
    }

    /// [`scan`] of `hay[start..start + len]`, read in place (with the
    /// bytes after it, which do not count) when `hay` has 64 bytes from
    /// `start`: no copy.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2 and POPCNT ([`available`]); `len` is at
    /// most 64, and `start + len` at most `hay.len()`.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn scan_in<const FULL: bool>(
        hay: &[u8],
        start: usize,
        len: usize,
    ) -> Option<Men> {
        debug_assert!(len <= 64 && start + len <= hay.len());
        // SAFETY: the CPU has AVX2 (the caller's promise).
        unsafe { men_of::<FULL>(load(hay, start), len) }
    }

    /// The bytes of `v` equal to those of `b`.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn eq_in(v: [__m256i; 2], b: __m256i) -> [__m256i; 2] {
        [_mm256_cmpeq_epi8(v[0], b), _mm256_cmpeq_epi8(v[1], b)]
    }

    /// 64 bytes of `hay` from `start`, zeros past its end.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2; `start <= hay.len()`.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn load(hay: &[u8], start: usize) -> [__m256i; 2] {
        let mut buf = [0u8; 64];
        let from = match hay.get(start..start + 64) {
            Some(bytes) => bytes.as_ptr(),
            None => {
                let rest = &hay[start..];
                buf[..rest.len()].copy_from_slice(rest);
                buf.as_ptr()
            }
        };
        // SAFETY: `from` points at 64 bytes; the loads have no alignment
        // requirement.
        unsafe {
            [
                _mm256_loadu_si256(from.cast()),
                _mm256_loadu_si256(from.add(32).cast()),
            ]
        }
    }

    /// [`scan`] of the first `len` bytes of the 64 in `raw`.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2 and POPCNT ([`available`]); `len` is at
    /// most 64.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn men_of<const FULL: bool>(
        raw: [__m256i; 2],
        len: usize,
    ) -> Option<Men> {
        // SAFETY: the CPU has AVX2 and `len` is at most 64 (the caller's
        // promises).
        let v = unsafe { crate::lines::avx2::first(raw, len) };
        let within = if len == 64 { !0u64 } else { (1u64 << len) - 1 };
        let set = |b: u8| _mm256_set1_epi8(b as i8);
        let bits = |m: [__m256i; 2]| {
            let lo = _mm256_movemask_epi8(m[0]) as u32;
            let hi = _mm256_movemask_epi8(m[1]) as u32;
            u64::from(lo) | u64::from(hi) << 32
        };
        // A letter of a man: by its two nibbles, high 4 or 6 with low 2,
        // B or E (B K N), high 5 or 7 with low 0-3 (P Q R S).
        let lo_nibbles = _mm256_setr_epi8(
            2, 2, 3, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, //
            2, 2, 3, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0,
        );
        let hi_nibbles = _mm256_setr_epi8(
            0, 0, 0, 0, 1, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, //
            0, 0, 0, 0, 1, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0,
        );
        let low4 = set(0x0f);
        let zero = _mm256_setzero_si256();
        let mut letters = [zero; 2];
        let mut digits = [zero; 2];
        let mut slashes = [zero; 2];
        let mut values = [zero; 2];
        for i in 0..2 {
            let x = v[i];
            let lo =
                _mm256_shuffle_epi8(lo_nibbles, _mm256_and_si256(x, low4));
            let hi = _mm256_shuffle_epi8(
                hi_nibbles,
                _mm256_and_si256(_mm256_srli_epi16(x, 4), low4),
            );
            letters[i] = _mm256_andnot_si256(
                _mm256_cmpeq_epi8(_mm256_and_si256(lo, hi), zero),
                set(0xff),
            );
            // Signed compares: a byte of 0x80 or more is below both.
            digits[i] = _mm256_and_si256(
                _mm256_cmpgt_epi8(x, set(b'0')),
                _mm256_cmpgt_epi8(set(b'9'), x),
            );
            slashes[i] = _mm256_cmpeq_epi8(x, set(b'/'));
            // Squares: a digit's value, 1 for a man; 0 elsewhere.
            values[i] = _mm256_or_si256(
                _mm256_and_si256(digits[i], _mm256_sub_epi8(x, set(b'0'))),
                _mm256_and_si256(letters[i], set(1)),
            );
        }
        let (letter, digit, slash) =
            (bits(letters), bits(digits), bits(slashes));
        if (letter | digit | slash) & within != within
            || slash.count_ones() != 7
        {
            return None;
        }
        // 64 squares in all: the sums of 8-byte groups, exact.
        let sums = _mm256_add_epi64(
            _mm256_sad_epu8(values[0], zero),
            _mm256_sad_epu8(values[1], zero),
        );
        let total = _mm256_extract_epi64::<0>(sums)
            + _mm256_extract_epi64::<1>(sums)
            + _mm256_extract_epi64::<2>(sums)
            + _mm256_extract_epi64::<3>(sums);
        if total != 64 {
            return None;
        }
        // With 64 squares in all, no running sum leaves -56..64: bytes
        // do not wrap. Each slash takes 8 off.
        let mut run = [zero; 2];
        for i in 0..2 {
            let mut x = _mm256_sub_epi8(
                values[i],
                _mm256_and_si256(slashes[i], set(8)),
            );
            x = _mm256_add_epi8(x, _mm256_slli_si256::<1>(x));
            x = _mm256_add_epi8(x, _mm256_slli_si256::<2>(x));
            x = _mm256_add_epi8(x, _mm256_slli_si256::<4>(x));
            x = _mm256_add_epi8(x, _mm256_slli_si256::<8>(x));
            // Each 16-byte half summed; the high half gets the low one's
            // last sum.
            let low_last = _mm256_shuffle_epi8(
                _mm256_permute2x128_si256::<0x08>(x, x),
                set(15),
            );
            run[i] = _mm256_add_epi8(x, low_last);
        }
        let carry = _mm256_shuffle_epi8(
            _mm256_permute2x128_si256::<0x11>(run[0], run[0]),
            set(15),
        );
        run[1] = _mm256_add_epi8(run[1], carry);
        let at_zero = bits([
            _mm256_cmpeq_epi8(run[0], zero),
            _mm256_cmpeq_epi8(run[1], zero),
        ]);
        if slash & !at_zero != 0 {
            return None;
        }
        // Each letter upper-cased, and a bit for each lower-case one: a
        // man's kind, and whether it is Black's.
        let upper = [
            _mm256_and_si256(v[0], set(0xdf)),
            _mm256_and_si256(v[1], set(0xdf)),
        ];
        let black =
            bits([_mm256_slli_epi16::<2>(v[0]), _mm256_slli_epi16::<2>(v[1])]);
        let kind = |b: u8| {
            let b = set(b);
            bits([
                _mm256_cmpeq_epi8(upper[0], b),
                _mm256_cmpeq_epi8(upper[1], b),
            ])
        };
        let mut men = Men::default();
        let mut put = |k: usize, of: u64| {
            men.counts[0][k] = (of & !black).count_ones() as u8;
            men.counts[1][k] = (of & black).count_ones() as u8;
        };
        if FULL {
            put(0, kind(b'Q'));
            put(1, kind(b'R'));
            put(2, kind(b'B'));
            put(3, kind(b'N') | kind(b'S'));
        }
        put(4, kind(b'P'));
        put(5, kind(b'K'));
        Some(men)
    }

    /// [`super::code_line`] with AVX2.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2 and POPCNT ([`available`]); `start <
    /// hay.len()`.
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn code_line(
        hay: &[u8],
        start: usize,
    ) -> Option<(usize, Men)> {
        // SAFETY (of the calls below): the CPU has AVX2 and POPCNT.
        let raw = unsafe { load(hay, start) };
        let set = |b: u8| _mm256_set1_epi8(b as i8);
        let bits = |m: [__m256i; 2]| {
            let lo = _mm256_movemask_epi8(m[0]) as u32;
            let hi = _mm256_movemask_epi8(m[1]) as u32;
            u64::from(lo) | u64::from(hi) << 32
        };
        let eq = |b: u8| {
            [
                _mm256_cmpeq_epi8(raw[0], set(b)),
                _mm256_cmpeq_epi8(raw[1], set(b)),
            ]
        };
        let lf = bits(eq(b'\n'));
        let blank = bits(eq(b' ')) | bits(eq(b'\t'));
        // The board ends at the first blank or at the line's end, and
        // starts the line (else the line is not of the usual shape).
        let stop = blank | lf;
        if stop & 1 != 0 || stop == 0 {
            return None;
        }
        let len = stop.trailing_zeros() as usize;
        if start + len >= hay.len() {
            return None;
        }
        let mut end = start + lf.trailing_zeros() as usize;
        if lf == 0 {
            // A longer line: its LF 64 bytes at a time.
            let mut at = start + 64;
            loop {
                if at >= hay.len() {
                    return None;
                }
                let lf = bits(unsafe { eq_in(load(hay, at), set(b'\n')) });
                if lf != 0 {
                    end = at + lf.trailing_zeros() as usize;
                    break;
                }
                at += 64;
            }
        }
        let men = unsafe { men_of::<true>(raw, len) }?;
        Some((end, men))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;

    fn board(fen: &str) -> Board {
        Board::parse(fen.as_bytes()).unwrap()
    }

    fn encoded(b: &Board, form: Form, v: Verdict, side: ToMove) -> String {
        let mut out = vec![];
        encode(b, form, v, side, &mut out);
        String::from_utf8(out).unwrap()
    }

    fn code(fen: &str) -> String {
        encoded(&board(fen), Form::Code, Verdict::None, ToMove::Unknown)
    }

    fn decoded(s: &str) -> Result<String, DecodeError> {
        let mut out = vec![];
        decode(s.as_bytes(), &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    const SEED_STUDY: &str = "8/K7/2nn4/8/8/1B1k4/1R6/8";
    const SEED_PAWNS: &str = "8/8/8/8/2kPp3/4Pp2/K4P2/8";
    const KUBBEL: &str = "6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1";

    #[test]
    fn reference_values() {
        let opening = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";
        assert_eq!(code(opening), "4888.88");
        assert_eq!(code("4k3/8/8/8/8/8/8/3QK3"), "1000.00");
        assert_eq!(code(KUBBEL), "0323.12");
        let kubbel = board(KUBBEL);
        let study =
            encoded(&kubbel, Form::Study, Verdict::Draw, ToMove::White);
        assert_eq!(study, "[=0323.12g3g1]");
        // 1 white queen, 2 black rooks, 2+2 bishops, 3 black knights.
        let b = board("k1nnn3/1rr5/1bb5/1BB5/8/8/8/Q6K");
        assert!(code("k1nnn3/1rr5/1bb5/1BB5/8/8/8/Q6K").starts_with("1689"));
        assert!(has_nine(&b));
        assert_eq!(code("4k3/8/8/8/8/8/8/4K3"), "0000.00");
    }

    #[test]
    fn seed_extended_forms() {
        let b = board(SEED_STUDY);
        let s = encoded(&b, Form::Position, Verdict::Win, ToMove::White);
        assert_eq!(s, "a7d3 0116.00 b2b3c6d6 3/3+.");
        let b = board(SEED_PAWNS);
        let s = encoded(&b, Form::Position, Verdict::None, ToMove::White);
        assert_eq!(s, "a2c4 0000.32 .d4e3f2e4f3 4/3 WTM.");
    }

    #[test]
    fn marks_and_study_forms() {
        let b = board(SEED_STUDY);
        let pos = |v, side| encoded(&b, Form::Position, v, side);
        assert_eq!(
            pos(Verdict::Draw, ToMove::White),
            "a7d3 0116.00 b2b3c6d6 3/3=."
        );
        assert_eq!(
            pos(Verdict::Win, ToMove::Black),
            "a7d3 0116.00 b2b3c6d6 3/3-+."
        );
        assert_eq!(
            pos(Verdict::Draw, ToMove::Black),
            "a7d3 0116.00 b2b3c6d6 3/3-=."
        );
        assert_eq!(
            pos(Verdict::Win, ToMove::Unknown),
            "a7d3 0116.00 b2b3c6d6 3/3+."
        );
        assert_eq!(
            pos(Verdict::None, ToMove::Black),
            "a7d3 0116.00 b2b3c6d6 3/3 BTM."
        );
        assert_eq!(
            pos(Verdict::None, ToMove::Unknown),
            "a7d3 0116.00 b2b3c6d6 3/3."
        );
        let bare = board("8/8/8/8/8/8/8/K1k5");
        let s = encoded(&bare, Form::Position, Verdict::Draw, ToMove::Unknown);
        assert_eq!(s, "a1c1 0000.00 1/1=.");
        let s = encoded(&bare, Form::Study, Verdict::None, ToMove::Black);
        assert_eq!(s, "[0000.00a1c1]");
        let s = encoded(
            &board(SEED_STUDY),
            Form::Study,
            Verdict::Win,
            ToMove::Black,
        );
        assert_eq!(s, "[+0116.00a7d3]");
    }

    #[test]
    fn pieces_count() {
        let mut out = vec![];
        pieces(&board(SEED_STUDY), &mut out);
        assert_eq!(out, b"3+3");
        out.clear();
        pieces(
            &board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            &mut out,
        );
        assert_eq!(out, b"16+16");
    }

    #[test]
    fn decoding_material_and_study_codes() {
        assert_eq!(decoded("0116.00").unwrap(), "KRB-KNN");
        assert_eq!(decoded("0000.32").unwrap(), "KPPP-KPP");
        assert_eq!(decoded("0000.00").unwrap(), "K-K");
        assert_eq!(decoded("0000").unwrap(), "K-K");
        assert_eq!(decoded("4100").unwrap(), "KQR-KQ");
        assert_eq!(decoded("0023").unwrap(), "KBB-KN");
        assert_eq!(decoded("0002.01").unwrap(), "KNN-KP");
        assert_eq!(
            decoded("  4888.88\t").unwrap(),
            "KQRRBBNNPPPPPPPP-KQRRBBNNPPPPPPPP"
        );
        assert_eq!(decoded("[+0020.42c1a1]").unwrap(), "KBBPPPP-KPP c1a1 +");
        assert_eq!(decoded("[=0323.12g3g1]").unwrap(), "KBBP-KRNPP g3g1 =");
        assert_eq!(decoded("[0000.00a1c1]").unwrap(), "K-K a1c1");
        assert_eq!(decoded("0116.00\tsome line").unwrap(), "KRB-KNN");
    }

    #[test]
    fn decoding_extended_forms() {
        let seed = "a7d3 0116.00 b2b3c6d6 3/3+.";
        assert_eq!(decoded(seed).unwrap(), format!("{SEED_STUDY} w"));
        let pawns = "a2c4 0000.32 .d4e3f2e4f3 4/3 WTM.";
        assert_eq!(decoded(pawns).unwrap(), format!("{SEED_PAWNS} w"));
        for (form, side) in [
            ("a7d3 0116.00 b2b3d6c6 3/3-+.", " b"),
            ("a7d3 0116 b2b3c6d6 3/3-=.", " b"),
            ("a7d3 0116.00 b2b3c6d6 3/3=", " w"),
            ("a7d3\t0116.00  b2b3c6d6 3/3 BTM", " b"),
            ("a7d3 0116.00 b2b3c6d6 3/3.", ""),
            ("a7d3 0116.00 b2b3c6d6 3/3", ""),
            ("a7d3 0116.00 b2b3c6d6. 3/3.", ""),
        ] {
            assert_eq!(decoded(form).unwrap(), format!("{SEED_STUDY}{side}"));
        }
        for form in [
            "a2c4 0000.32 d4e3f2e4f3 4/3 WTM.",
            "a2c4 0000.32 f2d4e3f3e4 4/3 WTM",
        ] {
            assert_eq!(decoded(form).unwrap(), format!("{SEED_PAWNS} w"));
        }
        assert_eq!(
            decoded("a1c1 0000.00 1/1=.").unwrap(),
            "8/8/8/8/8/8/8/K1k5 w"
        );
        assert_eq!(decoded("a1c1 0000 1/1.").unwrap(), "8/8/8/8/8/8/8/K1k5");
    }

    #[test]
    fn decoding_errors() {
        let err = |s: &str| decoded(s).unwrap_err();
        assert_eq!(err("9000.00"), DecodeError::Nine);
        assert_eq!(err("[+0900.00a1c1]"), DecodeError::Nine);
        assert_eq!(err("a1c1 9000.00 a2b2b3b4 4/1."), DecodeError::Nine);
        assert_eq!(
            err("a7d3 0116.00 b2b3c6d6 3/4+."),
            DecodeError::Count { written: [3, 4], coded: [3, 3] }
        );
        let b2 = Square::parse(b"b2").unwrap();
        assert_eq!(
            err("a7d3 0116.00 b2b2c6d6 3/3+."),
            DecodeError::TwoMen(b2)
        );
        let a7 = Square::parse(b"a7").unwrap();
        assert_eq!(
            err("a7d3 0116.00 a7b3c6d6 3/3+."),
            DecodeError::TwoMen(a7)
        );
        assert_eq!(err("a7a7 0000.00 1/1."), DecodeError::TwoMen(a7));
        assert_eq!(err("[0000.00a7a7]"), DecodeError::TwoMen(a7));
        assert_eq!(
            err("a7d3 0116.00 b2b3c6 3/3+."),
            DecodeError::Squares { what: "", needed: 4, found: 3 }
        );
        assert_eq!(
            err("a2c4 0000.32 .d4e3f2e4 4/3 WTM."),
            DecodeError::Squares { what: "pawn ", needed: 5, found: 4 }
        );
        assert_eq!(
            err("a7d3 0116.00 3/3+."),
            DecodeError::Squares { what: "", needed: 4, found: 0 }
        );
        for bad in [
            "0116.0",
            "01160",
            "0116.9x",
            "x",
            "[+0020.42c1a1",
            "[+0020.42c1]",
            "a7d3 0116.00 b2b3c6d6",
            "a7d3 0116.00 b2b3c6d6 3/3+x.",
            "a7d3 0116.00 b2b3c6i6 3/3+.",
            "a7d3 0116.00 b2b3c6d 3/3+.",
            "a7d 0116.00 1/1.",
            "a7d3 x 1/1.",
        ] {
            assert!(matches!(err(bad), DecodeError::Syntax(_)), "{bad}");
        }
        assert_eq!(
            err("a7d3 0116.00 b2b3c6d6 3/4+.").to_string(),
            "control count 3/4 does not match the code (3/3)"
        );
        assert_eq!(
            err("9000").to_string(),
            "digit 9 in the code: the material is not known"
        );
    }

    /// The 17 Meson positions: kings, squares without the `.` before the
    /// pawns, code.
    const MESON: &str = include_str!("../tests/data/meson-positions.txt");

    fn meson_board(kings_: &str, squares: &str, m: &Material) -> Board {
        let mut b = Board::empty();
        let ks = kings(kings_.as_bytes()).unwrap();
        b.put(ks[0], Piece { color: Color::White, kind: Kind::King });
        b.put(ks[1], Piece { color: Color::Black, kind: Kind::King });
        let mut names = squares.as_bytes().chunks(2);
        for (i, kind) in PIECE_KINDS.into_iter().enumerate() {
            for color in Color::BOTH {
                for _ in 0..m.counts[color as usize][i] {
                    let sq = Square::parse(names.next().unwrap()).unwrap();
                    assert!(b.get(sq).is_none());
                    b.put(sq, Piece { color, kind });
                }
            }
        }
        assert!(names.next().is_none());
        b
    }

    #[test]
    fn meson_positions() {
        let mut seen = 0;
        for line in MESON.lines().filter(|l| !l.starts_with('#')) {
            let f: Vec<&str> = line.split(' ').collect();
            let (kings_, squares, gbr) = (f[0], f[1], f[2]);
            let m = Material::parse(gbr.as_bytes()).unwrap();
            let b = meson_board(kings_, squares, &m);
            assert_eq!(code(&b.fen()), gbr, "{line}");
            let w = Color::BOTH.map(|c| m.men(c));
            let npieces =
                2 * (m.pieces(Color::White) + m.pieces(Color::Black));
            let (p, q) = squares.split_at(npieces as usize);
            let dotted = format!("{kings_} {gbr} {p}.{q} {}/{}.", w[0], w[1]);
            assert_eq!(decoded(&dotted).unwrap(), b.fen(), "{dotted}");
            let undotted =
                format!("{kings_} {gbr} {squares} {}/{}.", w[0], w[1]);
            assert_eq!(decoded(&undotted).unwrap(), b.fen(), "{undotted}");
            seen += 1;
        }
        assert_eq!(seen, 17);
    }

    /// A board with one king a side and up to 30 more men, promoted
    /// pieces included (3 or more of a kind happen often).
    fn random_board(rng: &mut Rng) -> Board {
        let mut b = Board::empty();
        let empty_square = |b: &Board, rng: &mut Rng| loop {
            let sq = Square(rng.below(64) as u8);
            if b.get(sq).is_none() {
                return sq;
            }
        };
        for color in Color::BOTH {
            let sq = empty_square(&b, rng);
            b.put(sq, Piece { color, kind: Kind::King });
        }
        for _ in 0..rng.below(31) {
            let color = Color::BOTH[rng.below(2)];
            let kind = PIECE_KINDS[rng.below(5)];
            if kind == Kind::Pawn && b.count(color, kind) == 8 {
                continue;
            }
            let sq = empty_square(&b, rng);
            b.put(sq, Piece { color, kind });
        }
        b
    }

    /// `Men::scan` accepts exactly what `Board::parse` accepts, and
    /// counts the same men.
    #[test]
    fn scan_agrees_with_parse() {
        const BYTES: &[u8] = b"/12345678/09KQRBNSPkqrbnsp x/";
        let mut rng = Rng::new(11);
        let mut ok = 0;
        for round in 0..50_000 {
            let mut fen = random_board(&mut rng).fen().into_bytes();
            for _ in 0..rng.below(3) {
                let at = rng.below(fen.len() + 1);
                match rng.below(3) {
                    0 if at < fen.len() => drop(fen.remove(at)),
                    1 if at < fen.len() => {
                        fen[at] = BYTES[rng.below(BYTES.len())]
                    }
                    _ => fen.insert(at, BYTES[rng.below(BYTES.len())]),
                }
            }
            let want = Board::parse(&fen).ok().map(|b| Men::of(&b));
            assert_eq!(
                Men::scan(&fen),
                want,
                "round {round}: {}",
                String::from_utf8_lossy(&fen)
            );
            ok += usize::from(want.is_some());
        }
        assert!(ok > 10_000 && ok < 45_000, "{ok}");
        for s in [
            "",
            "8/8/8/8/8/8/8/8",
            "44/11111111/8/8/8/8/8/8",
            "8/8/8/8/8/8/8/8/",
            "/8/8/8/8/8/8/8/8",
        ] {
            assert_eq!(
                Men::scan(s.as_bytes()).is_some(),
                Board::parse(s.as_bytes()).is_ok(),
                "{s}"
            );
        }
    }

    /// The vector reading of a board agrees with the byte by byte one,
    /// at every length up to 64 and past it, on boards near and far from
    /// valid ones; and [`Men::scan_checks`] with [`Men::check`].
    #[test]
    fn vector_scan_agrees_with_the_bytes() {
        const BYTES: &[u8] = b"/12345678/09KQRBNSPkqrbnsp x/\x80\xff@[{";
        let mut rng = Rng::new(13);
        let mut valid = 0;
        for round in 0..60_000 {
            let mut fen = match round % 3 {
                0 => random_board(&mut rng).fen().into_bytes(),
                // Long boards: 1111... ranks.
                1 => {
                    let mut f = random_board(&mut rng).fen().into_bytes();
                    while f.len() < 60 + rng.below(10) {
                        let at = rng.below(f.len());
                        if f[at].is_ascii_digit() && f[at] > b'1' {
                            let d = f[at] - b'0';
                            f.splice(at..=at, [b'1', b'0' + d - 1]);
                        } else {
                            break;
                        }
                    }
                    f
                }
                _ => (0..rng.below(70))
                    .map(|_| BYTES[rng.below(BYTES.len())])
                    .collect(),
            };
            for _ in 0..rng.below(2) {
                let at = rng.below(fen.len() + 1);
                fen.insert(at, BYTES[rng.below(BYTES.len())]);
            }
            let want = Men::scan_bytes(&fen);
            assert_eq!(Men::scan(&fen), want, "{}", fen.escape_ascii());
            let checks = want.is_some_and(|m| m.check().is_ok());
            assert_eq!(
                Men::scan_checks(&fen),
                checks,
                "{}",
                fen.escape_ascii()
            );
            // In place, with bytes of all kinds around it.
            let mut hay: Vec<u8> = (0..rng.below(5))
                .map(|_| BYTES[rng.below(BYTES.len())])
                .collect();
            let start = hay.len();
            hay.extend_from_slice(&fen);
            hay.extend(
                (0..rng.below(80)).map(|_| BYTES[rng.below(BYTES.len())]),
            );
            let in_place = Men::scan_checks_in(&hay, start, start + fen.len());
            assert_eq!(in_place, checks, "{}", fen.escape_ascii());
            let in_place = Men::scan_in(&hay, start, start + fen.len());
            assert_eq!(in_place, want, "{}", fen.escape_ascii());
            valid += usize::from(want.is_some());
        }
        assert!(valid > 15_000, "{valid}");
        let long = b"11111111/11111111/11111111/11111111/11111111/11111111/11111111/K1k11111";
        assert!(long.len() > 64 && Men::scan(long).is_some());
    }

    #[test]
    fn random_positions_round_trip() {
        let mut rng = Rng::new(7);
        let (mut nines, mut clean) = (0, 0);
        let mut out = vec![];
        for round in 0..20_000 {
            let b = random_board(&mut rng);
            assert!(b.check_material().is_ok());
            let verdict =
                [Verdict::None, Verdict::Win, Verdict::Draw][rng.below(3)];
            let side =
                [ToMove::Unknown, ToMove::White, ToMove::Black][rng.below(3)];
            out.clear();
            let nine = position(&b, verdict, side, &mut out);
            assert_eq!(nine, has_nine(&b));
            let form = out.clone();
            out.clear();
            let got = decode(&form, &mut out);
            if nine {
                assert_eq!(got, Err(DecodeError::Nine), "round {round}");
                nines += 1;
                continue;
            }
            clean += 1;
            got.unwrap();
            let text = std::str::from_utf8(&out).unwrap();
            let (fen, tail) =
                text.split_at(text.find(' ').unwrap_or(text.len()));
            assert_eq!(
                Board::parse(fen.as_bytes()).unwrap(),
                b,
                "round {round}"
            );
            let want = match (verdict, side) {
                (_, ToMove::Black) => " b",
                (Verdict::None, ToMove::Unknown) => "",
                _ => " w",
            };
            assert_eq!(
                tail,
                want,
                "round {round}: {}",
                String::from_utf8_lossy(&form)
            );
            // The material and study codes decode to the same men.
            let mut m = Material::default();
            for color in Color::BOTH {
                for (i, kind) in PIECE_KINDS.into_iter().enumerate() {
                    m.counts[color as usize][i] = b.count(color, kind);
                }
            }
            let mut want = vec![];
            m.write(&mut want);
            out.clear();
            material_code(&b, &mut out);
            let code = out.clone();
            out.clear();
            decode(&code, &mut out).unwrap();
            assert_eq!(out, want);
        }
        assert!(nines > 1000 && clean > 1000, "{nines} {clean}");
    }
}
