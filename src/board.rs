//! Chess boards from FEN board fields and PBI Forsyth strings.
//!
//! Both are 8 ranks from rank 8 down, separated by `/`; letters
//! `KQRBNP`/`kqrbnp` (PBI writes `S`/`s` for knights, and both are read);
//! digits 1-8 count empty squares, and adjacent digits add up
//! (`11111111` and `62` are 8 squares). Every rank must cover exactly 8
//! squares. Nothing about legality is judged here, except what
//! [`Board::check_material`] checks on request: one king a side and at
//! most 8 pawns a side.

use std::fmt;

/// A side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// White, upper-case letters.
    White = 0,
    /// Black, lower-case letters.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const BOTH: [Color; 2] = [Color::White, Color::Black];
}

/// A kind of man. The first four are in GBR code order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Queen, `Q`.
    Queen = 0,
    /// Rook, `R`.
    Rook = 1,
    /// Bishop, `B`.
    Bishop = 2,
    /// Knight, `N` (FEN) or `S` (PBI).
    Knight = 3,
    /// Pawn, `P`.
    Pawn = 4,
    /// King, `K`.
    King = 5,
}

impl Kind {
    /// Every kind, in the order of their values (the GBR order, then
    /// pawn and king).
    pub const ALL: [Kind; 6] = [
        Kind::Queen,
        Kind::Rook,
        Kind::Bishop,
        Kind::Knight,
        Kind::Pawn,
        Kind::King,
    ];

    /// The four kinds the GBR code counts, in its order.
    pub const PIECES: [Kind; 4] =
        [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight];

    /// The upper-case English letter, `N` for the knight.
    pub fn letter(self) -> u8 {
        b"QRBNPK"[self as usize]
    }
}

/// A man on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// Its side.
    pub color: Color,
    /// What it is.
    pub kind: Kind,
}

impl Piece {
    /// The piece a FEN or Forsyth letter stands for.
    #[inline]
    pub fn from_letter(b: u8) -> Option<Piece> {
        let color =
            if b.is_ascii_uppercase() { Color::White } else { Color::Black };
        let kind = match b.to_ascii_uppercase() {
            b'K' => Kind::King,
            b'Q' => Kind::Queen,
            b'R' => Kind::Rook,
            b'B' => Kind::Bishop,
            b'N' | b'S' => Kind::Knight,
            b'P' => Kind::Pawn,
            _ => return None,
        };
        Some(Piece { color, kind })
    }

    /// The FEN letter: upper case for White, `N`/`n` for knights.
    pub fn fen_letter(self) -> u8 {
        match self.color {
            Color::White => self.kind.letter(),
            Color::Black => self.kind.letter().to_ascii_lowercase(),
        }
    }
}

/// A square, 0 = a1, 1 = b1, ..., 7 = h1, 8 = a2, ..., 63 = h8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(pub u8);

impl Square {
    /// The square on `file` (0 = a) and `rank` (0 = rank 1).
    pub fn new(file: u8, rank: u8) -> Square {
        debug_assert!(file < 8 && rank < 8);
        Square(rank * 8 + file)
    }

    /// The square named by two bytes such as `b"e4"`.
    pub fn parse(name: &[u8]) -> Option<Square> {
        match name {
            &[f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
                Some(Square::new(f - b'a', r - b'1'))
            }
            _ => None,
        }
    }

    /// The file, 0 = a.
    pub fn file(self) -> u8 {
        self.0 % 8
    }

    /// The rank, 0 = rank 1.
    pub fn rank(self) -> u8 {
        self.0 / 8
    }

    /// The name as two bytes, `e4`.
    pub fn name(self) -> [u8; 2] {
        [b'a' + self.file(), b'1' + self.rank()]
    }

    /// The order of square names, a1 < a2 < ... < a8 < b1 < ... < h8,
    /// which GBR's extended form uses.
    pub fn name_order(self) -> u8 {
        self.file() * 8 + self.rank()
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [file, rank] = self.name();
        write!(f, "{}{}", file as char, rank as char)
    }
}

/// Why a board string does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardError {
    /// The byte offset in the string where the problem is.
    pub at: usize,
    /// What is wrong.
    pub kind: BoardErrorKind,
}

/// What is wrong with a board string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardErrorKind {
    /// The string is empty.
    Empty,
    /// A byte that is neither a piece letter, a digit 1-8 nor `/`.
    Unknown(u8),
    /// A digit 0 or 9.
    BadDigit(u8),
    /// A rank (1-8) that covers more than 8 squares.
    LongRank(u8),
    /// A rank (1-8) that covers fewer than 8 squares, and how many.
    ShortRank(u8, u8),
    /// More than 8 ranks.
    TooManyRanks,
    /// Fewer than 8 ranks, and how many.
    TooFewRanks(u8),
}

impl fmt::Display for BoardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let col = self.at + 1;
        match self.kind {
            BoardErrorKind::Empty => write!(f, "empty position"),
            BoardErrorKind::Unknown(b) if b.is_ascii_graphic() => write!(
                f,
                "unknown letter '{}' at column {col} of the position",
                b as char
            ),
            BoardErrorKind::Unknown(b) => write!(
                f,
                "unexpected byte 0x{b:02x} at column {col} of the position"
            ),
            BoardErrorKind::BadDigit(d) => write!(
                f,
                "digit {} at column {col} of the position (1-8 allowed)",
                d as char
            ),
            BoardErrorKind::LongRank(r) => write!(
                f,
                "rank {r} covers more than 8 squares (column {col} of the \
                 position)"
            ),
            BoardErrorKind::ShortRank(r, n) => write!(
                f,
                "rank {r} covers {n} squares, expected 8 (column {col} of \
                 the position)"
            ),
            BoardErrorKind::TooManyRanks => {
                write!(f, "more than 8 ranks (column {col} of the position)")
            }
            BoardErrorKind::TooFewRanks(n) => {
                write!(f, "{n} ranks in the position, expected 8")
            }
        }
    }
}

impl std::error::Error for BoardError {}

/// Why a board cannot have a GBR code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MaterialError {
    /// A side has this many kings (not 1).
    Kings(Color, u8),
    /// A side has this many pawns (more than 8).
    Pawns(Color, u8),
}

impl fmt::Display for MaterialError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |c: &Color| match c {
            Color::White => "white",
            Color::Black => "black",
        };
        match self {
            MaterialError::Kings(c, 0) => write!(f, "no {} king", side(c)),
            MaterialError::Kings(c, n) => write!(f, "{n} {} kings", side(c)),
            MaterialError::Pawns(c, n) => {
                write!(f, "{n} {} pawns (at most 8)", side(c))
            }
        }
    }
}

impl std::error::Error for MaterialError {}

/// Checks men counted any way (a board, or `gbr::Men` counted without
/// one): exactly one king a side, at most 8 pawns a side.
///
/// # Errors
///
/// The first [`MaterialError`] found, White before Black.
pub fn check_counts(
    count: impl Fn(Color, Kind) -> u8,
) -> Result<(), MaterialError> {
    for color in Color::BOTH {
        let kings = count(color, Kind::King);
        if kings != 1 {
            return Err(MaterialError::Kings(color, kings));
        }
        let pawns = count(color, Kind::Pawn);
        if pawns > 8 {
            return Err(MaterialError::Pawns(color, pawns));
        }
    }
    Ok(())
}

/// A position: what stands on each square, and how many of each man.
///
/// Squares hold a piece code, 0 for empty and `1 + 6 * colour + kind`
/// otherwise, so that a board is 76 plain bytes and parsing is one table
/// look-up per byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    squares: [u8; 64],
    counts: [u8; 12],
}

/// What a byte of a board string is, for [`Board::parse`]: a piece code
/// (1-12), [`DIGIT`] plus the digit's value, [`SLASH`], or 0.
static BOARD_BYTES: [u8; 256] = board_bytes();

const DIGIT: u8 = 0x40;
const SLASH: u8 = 0x80;

const fn board_bytes() -> [u8; 256] {
    let mut t = [0u8; 256];
    let letters = [b"QRBNPK", b"qrbnpk"];
    let mut color = 0;
    while color < 2 {
        let mut kind = 0;
        while kind < 6 {
            t[letters[color][kind] as usize] = code(color, kind);
            kind += 1;
        }
        color += 1;
    }
    t[b'S' as usize] = code(0, Kind::Knight as usize);
    t[b's' as usize] = code(1, Kind::Knight as usize);
    let mut d = 1;
    while d <= 8 {
        t[(b'0' + d) as usize] = DIGIT | d;
        d += 1;
    }
    t[b'/' as usize] = SLASH;
    t
}

const fn code(color: usize, kind: usize) -> u8 {
    (1 + 6 * color + kind) as u8
}

fn piece_of(code: u8) -> Option<Piece> {
    let i = usize::from(code.checked_sub(1)?);
    let color = if i < 6 { Color::White } else { Color::Black };
    Some(Piece { color, kind: Kind::ALL[i % 6] })
}

fn code_of(piece: Piece) -> u8 {
    code(piece.color as usize, piece.kind as usize)
}

impl Default for Board {
    fn default() -> Board {
        Board::empty()
    }
}

impl Board {
    /// The empty board.
    pub fn empty() -> Board {
        Board { squares: [0; 64], counts: [0; 12] }
    }

    /// Parses a FEN board field or PBI Forsyth string (only the board:
    /// the caller splits off any further FEN fields).
    ///
    /// # Errors
    ///
    /// A [`BoardError`] naming the first problem and its byte offset.
    pub fn parse(s: &[u8]) -> Result<Board, BoardError> {
        let err = |at, kind| Err(BoardError { at, kind });
        if s.is_empty() {
            return err(0, BoardErrorKind::Empty);
        }
        let mut board = Board::empty();
        // Rank index 7 is rank 8, the first one written.
        let mut rank: u8 = 7;
        let mut file: u8 = 0;
        let mut ranks_done = 0u8;
        for (at, &b) in s.iter().enumerate() {
            let class = BOARD_BYTES[b as usize];
            if class & DIGIT != 0 {
                file += class & 0x0F;
                if file > 8 {
                    return err(at, BoardErrorKind::LongRank(rank + 1));
                }
            } else if class == SLASH {
                if file < 8 {
                    return err(at, BoardErrorKind::ShortRank(rank + 1, file));
                }
                if rank == 0 {
                    return err(at, BoardErrorKind::TooManyRanks);
                }
                ranks_done += 1;
                rank -= 1;
                file = 0;
            } else if class != 0 {
                if file >= 8 {
                    return err(at, BoardErrorKind::LongRank(rank + 1));
                }
                board.squares[usize::from(rank * 8 + file)] = class;
                board.counts[usize::from(class - 1)] += 1;
                file += 1;
            } else if b == b'0' || b == b'9' {
                return err(at, BoardErrorKind::BadDigit(b));
            } else {
                return err(at, BoardErrorKind::Unknown(b));
            }
        }
        if rank > 0 {
            return err(s.len(), BoardErrorKind::TooFewRanks(ranks_done + 1));
        }
        if file < 8 {
            return err(s.len(), BoardErrorKind::ShortRank(1, file));
        }
        Ok(board)
    }

    /// Puts `piece` on `sq`, replacing what stood there.
    pub fn put(&mut self, sq: Square, piece: Piece) {
        self.remove(sq);
        let code = code_of(piece);
        self.squares[usize::from(sq.0)] = code;
        self.counts[usize::from(code - 1)] += 1;
    }

    /// Empties `sq`, returning what stood there.
    pub fn remove(&mut self, sq: Square) -> Option<Piece> {
        let code = std::mem::take(&mut self.squares[usize::from(sq.0)]);
        if code != 0 {
            self.counts[usize::from(code - 1)] -= 1;
        }
        piece_of(code)
    }

    /// What stands on `sq`.
    pub fn get(&self, sq: Square) -> Option<Piece> {
        piece_of(self.squares[usize::from(sq.0)])
    }

    /// How many men of this colour and kind are on the board.
    pub fn count(&self, color: Color, kind: Kind) -> u8 {
        self.counts[usize::from(code(color as usize, kind as usize) - 1)]
    }

    /// How many men of this colour, king included.
    pub fn men(&self, color: Color) -> u8 {
        let i = color as usize * 6;
        self.counts[i..i + 6].iter().sum()
    }

    /// The squares of this colour's men of this kind, in square-name
    /// order (a1 < a2 < ... < h8).
    pub fn squares_of(
        &self,
        color: Color,
        kind: Kind,
    ) -> impl Iterator<Item = Square> + '_ {
        let want = Piece { color, kind };
        (0..64u8)
            .map(|i| Square::new(i / 8, i % 8))
            .filter(move |sq| self.get(*sq) == Some(want))
    }

    /// Checks what a GBR code needs: exactly one king a side, at most 8
    /// pawns a side.
    ///
    /// # Errors
    ///
    /// The first [`MaterialError`] found, White before Black.
    pub fn check_material(&self) -> Result<(), MaterialError> {
        check_counts(|color, kind| self.count(color, kind))
    }

    /// Appends the FEN board field: `N` for knights, empty squares merged
    /// into one digit.
    pub fn write_fen(&self, out: &mut Vec<u8>) {
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.get(Square::new(file, rank)) {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            out.push(b'0' + empty);
                            empty = 0;
                        }
                        out.push(p.fen_letter());
                    }
                }
            }
            if empty > 0 {
                out.push(b'0' + empty);
            }
            if rank > 0 {
                out.push(b'/');
            }
        }
    }

    /// Appends the FEN board field of `s`, a board string that parses,
    /// without building the board: what `Board::parse(s)?.write_fen(out)`
    /// writes. A string that parses has its ranks in FEN's order already,
    /// so only its knights (`S`) and runs of digits (`44`) differ.
    pub fn write_fen_of(s: &[u8], out: &mut Vec<u8>) {
        debug_assert!(Board::parse(s).is_ok());
        out.reserve(s.len());
        let mut empty = 0;
        for &b in s {
            if b.is_ascii_digit() {
                empty += b - b'0';
                continue;
            }
            if empty > 0 {
                out.push(b'0' + empty);
                empty = 0;
            }
            out.push(match b {
                b'S' => b'N',
                b's' => b'n',
                _ => b,
            });
        }
        if empty > 0 {
            out.push(b'0' + empty);
        }
    }

    /// The FEN board field as a `String`.
    pub fn fen(&self) -> String {
        let mut out = Vec::with_capacity(72);
        self.write_fen(&mut out);
        // Only ASCII letters, digits and `/` were written.
        String::from_utf8(out).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPENING: &[u8] = b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

    #[test]
    fn fen_of_a_string_agrees_with_the_board() {
        const MEN: &[u8] = b"QRBNSPKqrbnspk";
        let mut rng = crate::testing::Rng::new(17);
        for _ in 0..20_000 {
            let mut s = vec![];
            for rank in 0..8 {
                if rank > 0 {
                    s.push(b'/');
                }
                let mut empty = 0;
                for _ in 0..8 {
                    if rng.below(3) == 0 {
                        // A run of empty squares, written in one digit or
                        // in several.
                        while empty > 0 {
                            let d = 1 + rng.below(empty);
                            s.push(b'0' + d as u8);
                            empty -= d;
                        }
                        s.push(MEN[rng.below(MEN.len())]);
                    } else {
                        empty += 1;
                    }
                }
                while empty > 0 {
                    let d = 1 + rng.below(empty);
                    s.push(b'0' + d as u8);
                    empty -= d;
                }
            }
            let mut want = vec![];
            Board::parse(&s).unwrap().write_fen(&mut want);
            let mut got = b"x".to_vec();
            Board::write_fen_of(&s, &mut got);
            assert_eq!(got[1..], want[..], "{}", String::from_utf8_lossy(&s));
        }
    }

    fn kind(s: &[u8]) -> BoardErrorKind {
        Board::parse(s).unwrap_err().kind
    }

    #[test]
    fn opening_round_trips() {
        let b = Board::parse(OPENING).unwrap();
        assert_eq!(b.fen().as_bytes(), OPENING);
        assert_eq!(b.men(Color::White), 16);
        assert_eq!(b.count(Color::Black, Kind::Knight), 2);
        assert_eq!(
            b.get(Square::parse(b"e1").unwrap()).unwrap().kind,
            Kind::King
        );
        assert!(b.check_material().is_ok());
    }

    #[test]
    fn pbi_knights_and_unnormalised_digits() {
        let s = b"11111111/11111111/8/3S4/8/8/8/K1k1s3";
        let b = Board::parse(s).unwrap();
        assert_eq!(b.fen(), "8/8/8/3N4/8/8/8/K1k1n3");
        assert_eq!(
            Board::parse(b"62/8/8/8/8/8/8/8").unwrap().fen(),
            "8/8/8/8/8/8/8/8"
        );
    }

    #[test]
    fn errors_say_what_and_where() {
        assert_eq!(kind(b""), BoardErrorKind::Empty);
        assert_eq!(kind(b"9/8/8/8/8/8/8/8"), BoardErrorKind::BadDigit(b'9'));
        assert_eq!(kind(b"0/8/8/8/8/8/8/8"), BoardErrorKind::BadDigit(b'0'));
        assert_eq!(kind(b"8/8/8/8/8/8/8/k6KQ"), BoardErrorKind::LongRank(1));
        assert_eq!(kind(b"8/8/8/8/8/8/8/71k"), BoardErrorKind::LongRank(1));
        assert_eq!(kind(b"8/8/8/8/8/8/8"), BoardErrorKind::TooFewRanks(7));
        assert_eq!(kind(b"8/8/8/8/8/8/8/8/8"), BoardErrorKind::TooManyRanks);
        assert_eq!(kind(b"8/7/8/8/8/8/8/8"), BoardErrorKind::ShortRank(7, 7));
        let e = Board::parse(b"8/8/8/3x4/8/8/8/8").unwrap_err();
        assert_eq!(e.kind, BoardErrorKind::Unknown(b'x'));
        assert_eq!(e.at, 7);
        assert_eq!(
            e.to_string(),
            "unknown letter 'x' at column 8 of the position"
        );
    }

    #[test]
    fn material_checks() {
        let b = Board::parse(b"8/8/8/8/8/8/8/8").unwrap();
        assert_eq!(
            b.check_material(),
            Err(MaterialError::Kings(Color::White, 0))
        );
        let b = Board::parse(b"k7/8/8/8/8/8/8/K6K").unwrap();
        assert_eq!(
            b.check_material(),
            Err(MaterialError::Kings(Color::White, 2))
        );
        let b = Board::parse(b"k7/8/8/8/8/P7/PPPPPPPP/K7").unwrap();
        assert_eq!(
            b.check_material(),
            Err(MaterialError::Pawns(Color::White, 9))
        );
        assert_eq!(
            MaterialError::Pawns(Color::White, 9).to_string(),
            "9 white pawns (at most 8)"
        );
    }

    #[test]
    fn square_order() {
        let a2 = Square::parse(b"a2").unwrap();
        let b1 = Square::parse(b"b1").unwrap();
        assert!(a2.name_order() < b1.name_order());
        assert_eq!(a2.to_string(), "a2");
        let b = Board::parse(b"8/8/8/8/8/8/1P6/P6k w").err();
        assert!(b.is_some(), "the caller splits FEN fields");
        let b = Board::parse(b"7k/8/8/8/8/8/1P6/PK6").unwrap();
        let pawns: Vec<_> = b.squares_of(Color::White, Kind::Pawn).collect();
        assert_eq!(
            pawns,
            vec![Square::parse(b"a1").unwrap(), Square::parse(b"b2").unwrap()]
        );
    }
}
