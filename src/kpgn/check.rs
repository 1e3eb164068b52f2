//! The referee: could a Kriegspiel record have happened? (FORMATS.md,
//! Kriegspiel PGN point 12.)
//!
//! A sink of the reader (`read.rs`), which has checked the syntax
//! already: every move is Kriegspiel SAN, every move number agrees with
//! the ply, every Kriegspiel comment has its form. The referee replays
//! the game with the rules of chess (shakmaty) from the standard position
//! or from the FEN tag:
//!
//! - an unfiltered record: each move must be legal in the true position,
//!   with `+`/`#` as it gives check or mate; each illegal attempt must be
//!   illegal there (the referee would have played a legal one); the
//!   response codes must be exactly what the move produced (`X` and the
//!   square of the man taken, the pawn's for en passant, then one `C`
//!   code per man giving check, in any order); where the game ends in
//!   mate or stalemate, the result must say so;
//! - a record filtered for a player: that player's moves are checked on
//!   the player's own view (their men, less those the opponent's
//!   announced captures took): each must be possible there, and its `X`
//!   code must be the square it took on; each opponent capture must take
//!   a man of the player's.
//!
//! An attempt that is impossible even on a board of the mover's own men
//! alone (a rook moving diagonally, a black pawn to e7 from nowhere) is
//! nonsense: a warning, or a fault with `strict`.

use std::hint::select_unpredictable;
use std::ops::Range;

use shakmaty::attacks;
use shakmaty::fen::Fen;
use shakmaty::{
    Bitboard, Board, CastlingMode, CastlingSide, Chess, Color, File, Move,
    MoveList, Piece, Position, Rank, Role, Square,
};

use super::comment::KComment;
use super::pos::{
    attacks_of, has_legal_move, legal_among, legal_froms, when, Guard, Made,
    Pos,
};
use super::read::{Core, Fault, Item, Reader, Sink};
use super::Side;
use crate::diag::{shown, Diagnostic};

/// What to do with each game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckConfig {
    /// Warnings (nonsense attempts) fail the game too.
    pub strict: bool,
    /// Write the games that fail instead of those that pass.
    pub invert: bool,
    /// Write nothing (count, or tell by the exit status).
    pub quiet: bool,
}

/// Refereeing the games of one input, or of one batch of its lines.
pub type Check<'c> = Reader<Referee<'c>>;

impl<'c> Reader<Referee<'c>> {
    /// A referee for `config` that has read nothing yet.
    pub fn check(config: &'c CheckConfig) -> Check<'c> {
        Reader::with_sink(Referee::new(config))
    }
}

/// A move written in Kriegspiel SAN, as the referee reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    Castle(CastlingSide),
    Move {
        role: Role,
        /// The squares its file and rank (if written) leave it to come
        /// from.
        from: Bitboard,
        capture: bool,
        to: Square,
        promotion: Option<Role>,
    },
}

/// The check mark written after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    None,
    Check,
    Mate,
}

/// The kind of man that a SAN token's first byte names (a file: a pawn).
const ROLE_OF: [Role; 256] = {
    let mut role = [Role::Pawn; 256];
    role[b'K' as usize] = Role::King;
    role[b'Q' as usize] = Role::Queen;
    role[b'R' as usize] = Role::Rook;
    role[b'B' as usize] = Role::Bishop;
    role[b'N' as usize] = Role::Knight;
    role
};

/// The squares that a file or a rank written before a move's target
/// square leaves it to come from (every square for any other byte).
const FROM_OF: [Bitboard; 256] = {
    let mut from = [Bitboard::FULL; 256];
    let mut i = 0;
    while i < 8 {
        from[b'a' as usize + i] = Bitboard(0x0101_0101_0101_0101 << i);
        from[b'1' as usize + i] = Bitboard(0xff << (8 * i));
        i += 1;
    }
    from
};

/// Reads a token that the reader found to be Kriegspiel SAN. The usual
/// token, which ends in its target square's rank, read by table lookups
/// and without a branch on its kind of man, capture or file and rank of
/// departure.
#[inline(always)]
fn written(token: &[u8]) -> (Written, Mark) {
    let mut n = token.len();
    let mut mark = Mark::None;
    let mut promotion = None;
    // A token that ends in its target square's rank has no glyph, no
    // check mark, no promotion, and is no castling.
    if !matches!(token[n - 1], b'1'..=b'8') {
        let castle;
        (n, mark, castle) = ending(token);
        if let Some(side) = castle {
            return (Written::Castle(side), mark);
        }
        if token[n - 2] == b'=' {
            promotion = Some(ROLE_OF[usize::from(token[n - 1])]);
            n -= 2;
        }
    }
    let body = &token[..n];
    let to = square(body[n - 2], body[n - 1]);
    let role = ROLE_OF[usize::from(body[0])];
    let start = usize::from(role != Role::Pawn);
    // `Nf3` or `e4`: the byte three from the end is no `x`.
    let capture = body[n.saturating_sub(3)] == b'x';
    // The file and rank of departure written (0, 1 or 2 of them).
    let head = n.wrapping_sub(2 + start + usize::from(capture));
    let from_of = |at: usize, written: bool| {
        let from = FROM_OF[usize::from(body[at])];
        select_unpredictable(written, from, Bitboard::FULL)
    };
    let from = from_of(start, head > 0) & from_of(start + 1, head > 1);
    (Written::Move { role, from, capture, to, promotion }, mark)
}

/// The end of a token that does not end in its target square's rank: the
/// length of what stands before its glyphs and check mark, the mark, and
/// the side of a castling.
#[inline(always)]
fn ending(token: &[u8]) -> (usize, Mark, Option<CastlingSide>) {
    let mut n = token.len();
    while matches!(token[n - 1], b'!' | b'?') {
        n -= 1;
    }
    let mark = match token[n - 1] {
        b'+' => Mark::Check,
        b'#' => Mark::Mate,
        _ => Mark::None,
    };
    if mark != Mark::None {
        n -= 1;
    }
    let castle = matches!(token[0], b'O' | b'0').then_some(if n == 5 {
        CastlingSide::QueenSide
    } else {
        CastlingSide::KingSide
    });
    (n, mark, castle)
}

/// The square written `fr` (file, rank).
#[inline(always)]
fn square(f: u8, r: u8) -> Square {
    Square::new(
        u32::from(f.wrapping_sub(b'a') & 7)
            | u32::from(r.wrapping_sub(b'1') & 7) << 3,
    )
}

/// Whether `m` is the move `w` (the capture mark ignored if not
/// `capture_counts`: an attempt leaves it out, but for a pawn's).
fn is_written(m: &Move, w: &Written, capture_counts: bool) -> bool {
    match (*w, *m) {
        (Written::Castle(side), Move::Castle { king, rook }) => {
            CastlingSide::from_king_side(rook > king) == side
        }
        (Written::Move { role, from: froms, capture, to, promotion }, m) => {
            let (from, takes) = match m {
                Move::Normal { from, capture, promotion: p, .. } => {
                    if p != promotion {
                        return false;
                    }
                    (from, capture.is_some())
                }
                Move::EnPassant { from, .. } => {
                    if promotion.is_some() {
                        return false;
                    }
                    (from, true)
                }
                _ => return false,
            };
            m.role() == role
                && m.to() == to
                && froms.contains(from)
                && (!capture_counts || capture == takes)
        }
        _ => false,
    }
}

fn color(side: Side) -> Color {
    match side {
        Side::White => Color::White,
        Side::Black => Color::Black,
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// The men on a board, as [`possible`] reads them: a player's view of a
/// filtered record, or the referee's position.
trait Men {
    /// The men of `color`.
    fn by_color(&self, color: Color) -> Bitboard;
    /// The men of `color` of kind `role`.
    fn by_piece(&self, color: Color, role: Role) -> Bitboard;
}

impl Men for Board {
    fn by_color(&self, color: Color) -> Bitboard {
        Board::by_color(self, color)
    }

    fn by_piece(&self, color: Color, role: Role) -> Bitboard {
        Board::by_piece(self, Piece { color, role })
    }
}

impl Men for Pos {
    fn by_color(&self, color: Color) -> Bitboard {
        Pos::by_color(self, color)
    }

    fn by_piece(&self, color: Color, role: Role) -> Bitboard {
        Pos::by_piece(self, color, role)
    }
}

/// Whether `w` is possible for `side` on a board of its own men alone
/// (`board`, castling rights `castle` as (king side, queen side)): not
/// nonsense, whatever the other side's men, which the mover cannot see.
#[inline(always)]
fn possible(
    board: &impl Men,
    side: Color,
    castle: (bool, bool),
    w: &Written,
) -> bool {
    let own = board.by_color(side);
    match *w {
        Written::Castle(which) => {
            let (right, rook_file) = match which {
                CastlingSide::KingSide => (castle.0, File::H),
                CastlingSide::QueenSide => (castle.1, File::A),
            };
            let rank = side.backrank();
            let king = Square::from_coords(File::E, rank);
            let rook = Square::from_coords(rook_file, rank);
            right
                && board.by_piece(side, Role::King).contains(king)
                && board.by_piece(side, Role::Rook).contains(rook)
                && (attacks::between(king, rook) & own).is_empty()
        }
        Written::Move { role, from, capture, to, promotion } => {
            if own.contains(to) {
                return false;
            }
            let last = side.fold_wb(Rank::Eighth, Rank::First);
            if role == Role::Pawn && (to.rank() == last) != promotion.is_some()
            {
                return false;
            }
            possible_froms(board, side, role, from, capture, to).any()
        }
    }
}

/// The squares from which a man of `side`'s, `role`, on a square that
/// among `from`, could go to `to` on `board`, a board of
/// `side`'s men alone (`capture`: a pawn's capture, diagonal), as
/// [`reaches`] tells for each square: the attack tables read from `to`
/// (the same squares, for every man but a pawn), a pawn's from its
/// moves backwards.
fn possible_froms(
    board: &impl Men,
    side: Color,
    role: Role,
    from: Bitboard,
    capture: bool,
    to: Square,
) -> Bitboard {
    let own = board.by_color(side);
    let froms = board.by_piece(side, role) & from;
    froms
        & match role {
            Role::Pawn if capture => attacks::pawn_attacks(!side, to),
            Role::Pawn => {
                let back = side.fold_wb(-8, 8);
                let mut from = Bitboard::EMPTY;
                if let Some(one) = to.offset(back) {
                    from |= Bitboard::from_square(one);
                    let start = side.fold_wb(Rank::Second, Rank::Seventh);
                    if !own.contains(one) {
                        if let Some(two) = one.offset(back) {
                            if two.rank() == start {
                                from |= Bitboard::from_square(two);
                            }
                        }
                    }
                }
                from
            }
            _ => attacks::attacks(to, Piece { color: side, role }, own),
        }
}

/// Whether a man of `side`'s, `role`, on `from` could go to `to` with only
/// `own` men on the board.
fn reaches(
    own: Bitboard,
    side: Color,
    role: Role,
    from: Square,
    to: Square,
    capture: bool,
) -> bool {
    match role {
        Role::Pawn => {
            let forward = side.fold_wb(1, -1);
            let rank = from.rank() as i32;
            let ahead = to.rank() as i32 - rank;
            if capture {
                ahead == forward
                    && (from.file() as i32 - to.file() as i32).abs() == 1
            } else if from.file() != to.file() {
                false
            } else if ahead == forward {
                true
            } else {
                let start = side.fold_wb(Rank::Second, Rank::Seventh);
                ahead == 2 * forward
                    && from.rank() == start
                    && (attacks::between(from, to) & own).is_empty()
            }
        }
        _ => attacks::attacks(from, Piece { color: side, role }, own)
            .contains(to),
    }
}

/// The comma-separated items of a part of a Kriegspiel comment, each
/// without the white space around it, as [`KComment`]'s iterators give
/// them: split at the commas here where the part holds no white space
/// (nor any byte that could start some), so that there is nothing to
/// trim, else by [`KComment`] (`Spaced`).
enum Items<'c, I> {
    /// What is left of the part, `None` at its end.
    Plain(Option<&'c [u8]>),
    Spaced(I),
}

impl<'c, I: Iterator<Item = &'c [u8]>> Items<'c, I> {
    /// The items of `part`, read by `slow` where it holds white space.
    fn new(part: &'c [u8], slow: impl FnOnce() -> I) -> Items<'c, I> {
        if part.iter().all(|&b| b.is_ascii_graphic()) {
            Items::Plain((!part.is_empty()).then_some(part))
        } else {
            Items::Spaced(slow())
        }
    }
}

impl<'c, I: Iterator<Item = &'c [u8]>> Iterator for Items<'c, I> {
    type Item = &'c [u8];

    fn next(&mut self) -> Option<&'c [u8]> {
        match self {
            Items::Plain(rest) => {
                let part = (*rest)?;
                match part.iter().position(|&b| b == b',') {
                    Some(i) => {
                        *rest = Some(&part[i + 1..]);
                        Some(&part[..i])
                    }
                    None => {
                        *rest = None;
                        Some(part)
                    }
                }
            }
            Items::Spaced(items) => items.next(),
        }
    }
}

/// Check codes, sorted: at most two (a double check), 0 for none.
type Codes = [u8; 2];

/// The check codes of the side to move in `pos`, sorted, `checkers`
/// being the men giving check.
fn check_codes(pos: &Pos, checkers: Bitboard) -> Codes {
    let mut codes = Codes::default();
    if checkers.is_empty() {
        return codes;
    }
    if let Some(king) = pos.king_of(pos.turn) {
        let knights = pos.by_role(Role::Knight);
        for (i, checker) in checkers.into_iter().take(2).enumerate() {
            codes[i] = check_code(knights.contains(checker), checker, king);
        }
    }
    sort_codes(&mut codes);
    codes
}

/// Sorts two codes, 0 (none) last.
fn sort_codes(codes: &mut Codes) {
    if codes[0] == 0 || (codes[1] != 0 && codes[1] < codes[0]) {
        codes.swap(0, 1);
    }
}

/// The code of a check by the man on `from` (a `knight` or not) to the
/// king on `king`: `N` a knight, `F` along the file, `R` the rank, `L` or `S` the longer or
/// the shorter of the two diagonals through the king's square.
fn check_code(knight: bool, from: Square, king: Square) -> u8 {
    if knight {
        return b'N';
    }
    if from.file() == king.file() {
        return b'F';
    }
    if from.rank() == king.rank() {
        return b'R';
    }
    let (kf, kr) = (king.file() as i32, king.rank() as i32);
    let (f, r) = (from.file() as i32, from.rank() as i32);
    // The lengths of the two diagonals through the king.
    let up = 8 - (kf - kr).abs(); // a1-h8 direction
    let down = 8 - (kf + kr - 7).abs(); // a8-h1 direction
    let along = if (f - kf) == (r - kr) { up } else { down };
    let other = if (f - kf) == (r - kr) { down } else { up };
    if along > other {
        b'L'
    } else {
        b'S'
    }
}

/// The response codes as written: the square of an `X` code (if any)
/// and the check codes sorted.
fn written_codes(
    c: &[u8],
    k: &KComment,
) -> Result<(Option<Square>, Codes), &'static str> {
    let mut taken = None;
    let mut checks = Codes::default();
    let mut n = 0;
    let codes = Items::new(&c[k.response()], || k.announcements(c));
    for (i, code) in codes.enumerate() {
        match code {
            [b'X', f, r] => {
                if i > 0 {
                    return Err("the capture must be announced first, once");
                }
                taken = Some(Square::from_coords(
                    File::new(u32::from(f - b'a')),
                    Rank::new(u32::from(r - b'1')),
                ));
            }
            [b'C', d] if n < 2 => {
                checks[n] = *d;
                n += 1;
            }
            [b'C', _] => return Err("more than two checks announced"),
            _ => unreachable!("the reader checked the announcements"),
        }
    }
    if n == 2 && checks[0] == checks[1] {
        // Two men on one line through the king stand on either side of
        // it, and no move opens both lines; two knights, no move makes.
        return Err("a double check announced with two C codes of one \
                    kind: no move makes two men give check the same way");
    }
    sort_codes(&mut checks);
    Ok((taken, checks))
}

fn codes_text(taken: Option<Square>, checks: &Codes) -> String {
    let mut parts: Vec<String> =
        taken.map(|sq| format!("X{sq}")).into_iter().collect();
    parts.extend(
        checks.iter().filter(|&&d| d != 0).map(|&d| format!("C{}", d as char)),
    );
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(",")
    }
}

/// A move read and waiting for its Kriegspiel comment (which may not
/// come: then nothing was announced).
#[derive(Clone, Debug)]
struct Pending {
    /// Where its SAN stands, and its number, for messages.
    span: Range<usize>,
    fullmove: u64,
    side: Side,
    hidden: bool,
}

impl Pending {
    /// The move as written, unless hidden.
    #[inline(always)]
    fn written(&self, input: &[u8]) -> Option<(Written, Mark)> {
        (!self.hidden).then(|| written(&input[self.span.clone()]))
    }

    /// The label of the move before it, whose SAN starts at `start`.
    fn before(&self, input: &[u8], start: usize) -> String {
        let (side, fullmove) = match self.side {
            Side::White => (Side::Black, self.fullmove.saturating_sub(1)),
            Side::Black => (Side::White, self.fullmove),
        };
        // The reader found Kriegspiel SAN there, glyphs and all.
        let len = input[start..]
            .iter()
            .take_while(|&&b| {
                b.is_ascii_alphanumeric() || b"=+#!?-".contains(&b)
            })
            .count();
        let span = start..start + len;
        Pending { span, fullmove, side, hidden: false }.label(input)
    }

    /// `12... Qxh5`.
    fn label(&self, input: &[u8]) -> String {
        let dots = if self.side == Side::White { "." } else { "..." };
        format!(
            "{}{dots} {}",
            self.fullmove,
            shown(&input[self.span.clone()], 24)
        )
    }
}

/// How the referee ended a game of an unfiltered record before its
/// record ends: after it, no move can follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// Neither side has the men to mate (the Berkeley referee's draw,
    /// ks-game's `DRAW_INSUFFICIENT`).
    Insufficient,
    Mate,
    Stalemate,
}

/// Where and how the referee ended the game.
#[derive(Clone, Debug)]
struct Ended {
    how: Ending,
    /// The move that ended it (`3. Kxe2`), or none: the FEN tag's
    /// position.
    at: Option<String>,
}

impl Ended {
    /// `drawn by insufficient material at 3. Kxe2`.
    fn text(&self) -> String {
        let how = match self.how {
            Ending::Insufficient => "drawn by insufficient material",
            Ending::Mate => "in mate",
            Ending::Stalemate => "in stalemate",
        };
        match &self.at {
            Some(at) => format!("{how} at {at}"),
            None => format!("{how} in the FEN tag's position"),
        }
    }

    /// The fault of a move after the end.
    fn no_move(&self) -> String {
        format!("the game ended {}: no move can follow", self.text())
    }
}

/// The player's view of a filtered record: their men, their castling
/// rights (king side, queen side), and how many checks the opponent's
/// last move was announced to give.
#[derive(Clone, Debug, PartialEq, Eq)]
struct View {
    side: Color,
    board: Board,
    castle: (bool, bool),
    checked: u8,
}

/// The referee's state in one game.
#[derive(Debug)]
pub struct Referee<'c> {
    config: &'c CheckConfig,
    /// Where the game starts.
    start: usize,
    /// The SetUp, FEN and Result tags' values, and the termination marker.
    setup: Option<Range<usize>>,
    fen: Option<Range<usize>>,
    result: Option<Range<usize>>,
    marker: Option<Range<usize>>,
    /// The true position (unfiltered), or the player's view (filtered).
    position: Option<Pos>,
    /// The men giving check in `position`.
    checkers: Bitboard,
    /// The player's views of a filtered record (none for a record not
    /// filtered): one for each reading of the player's moves so far. A
    /// move that two of the player's men could make on their own men
    /// (`Rd1`, rooks on a1 and h1) is chess SAN, where the opponent's men
    /// leave one of them the move, but not Kriegspiel SAN, which would
    /// write `Rhd1`; it is read each way until a later ply rules a
    /// reading out.
    views: Vec<View>,
    /// The buffer the views after a move are made in.
    spare: Vec<View>,
    pending: Option<Pending>,
    /// The end the referee gave the game, if it did (then `position` is
    /// none, so that a move after it leaves the path of a record with
    /// nothing wrong at no cost to that path).
    ended: Option<Ended>,
    /// Where the SAN of the move before the pending one starts
    /// (unfiltered; `usize::MAX` for none), to name the move that ended
    /// the game in mate or stalemate, which is told only when a move
    /// follows it: one word to keep on the clean path.
    last: usize,
    /// The game's warnings.
    warnings: Vec<Diagnostic>,
    /// Where the game's output starts in `out`.
    mark: usize,
}

impl<'c> Referee<'c> {
    fn new(config: &'c CheckConfig) -> Referee<'c> {
        Referee {
            config,
            start: 0,
            setup: None,
            fen: None,
            result: None,
            marker: None,
            position: None,
            checkers: Bitboard::EMPTY,
            views: Vec::new(),
            spare: Vec::new(),
            pending: None,
            ended: None,
            last: usize::MAX,
            warnings: Vec::new(),
            mark: 0,
        }
    }

    /// A fault of the pending move, at `at`.
    fn fault(
        &self,
        input: &[u8],
        pending: &Pending,
        at: usize,
        message: impl std::fmt::Display,
    ) -> Fault {
        fault(input, pending, at, message)
    }

    /// The game failed: nothing after its first fault is judged (the
    /// position it leaves is unsure, and a warning about it would be
    /// noise), and the move pending is dropped, so that none of the
    /// input before the reader's place is read again (a game that failed
    /// keeps none of it: [`Sink::rebase`]).
    #[cold]
    fn stop(&mut self) {
        self.pending = None;
    }

    /// [`Sink::a_move`], for any move but one of an unfiltered record
    /// that follows a settled one.
    #[inline(never)]
    fn a_move_slow(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        hidden: bool,
    ) -> Result<(), Fault> {
        if game.failed {
            self.stop();
            return Ok(());
        }
        if self.pending.is_some() {
            self.settle(game, input, None)?;
        }
        let pending = Pending {
            span: span.clone(),
            fullmove: game.fullmove,
            side: game.to_move,
            hidden,
        };
        let fault = |message: &str| {
            Err(self.fault(input, &pending, span.start, message))
        };
        if self.position.is_none() && self.views.is_empty() {
            if let Some(ended) = &self.ended {
                return fault(&ended.no_move());
            }
            return fault("the FEN tag is no legal position");
        }
        // A hidden move is the opponent's of a filtered record: the reader
        // refuses one in a record not filtered, and the player's own.
        self.pending = Some(pending);
        Ok(())
    }

    /// [`Sink::kcomment`], for any ply but one of an unfiltered record
    /// with nothing wrong.
    #[inline(never)]
    fn kcomment_slow(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        k: &KComment,
    ) -> Result<(), Fault> {
        if game.failed {
            self.stop();
            return Ok(());
        }
        if let Some(pending) = &self.pending {
            if pending.hidden && k.listed().is_some_and(|n| n > 0) {
                let message = "a hidden move with its attempts listed";
                return Err(self.fault(input, pending, span.start, message));
            }
            if !pending.hidden && k.listed().is_none() {
                let count = shown(&input[span.start..][k.illegal()], 24);
                let message = if self.views.is_empty() {
                    format!(
                        "a count of attempts ({count}) in a record not \
                         filtered, which lists each attempt"
                    )
                } else {
                    format!(
                        "a count of attempts ({count}) on the player's own \
                         move, whose attempts a filtered record lists as \
                         they are"
                    )
                };
                return Err(self.fault(input, pending, span.start, message));
            }
        }
        self.settle(game, input, Some((span, k)))
    }

    /// Judges the pending move with its Kriegspiel comment (`None`: it
    /// had none, so nothing was announced and nothing was tried).
    #[inline(never)]
    fn settle(
        &mut self,
        game: &Core,
        input: &[u8],
        comment: Option<(Range<usize>, &KComment)>,
    ) -> Result<(), Fault> {
        let Some(pending) = self.pending.take() else { return Ok(()) };
        let before = std::mem::replace(&mut self.last, pending.span.start);
        // The comment, and the input from it on.
        let (c, tail, k) = match &comment {
            Some((span, k)) => {
                let tail = &input[span.start..];
                (&tail[..span.len()], tail, Some(*k))
            }
            None => (&b""[..], &b""[..], None),
        };
        if let (true, Some(pos), false) =
            (self.views.is_empty(), self.position.as_mut(), pending.hidden)
        {
            let token = &input[pending.span.clone()];
            if clean_ply(pos, &mut self.checkers, token, tail, k) {
                return Ok(());
            }
            if !has_legal_move(pos) {
                // Mate or stalemate: the game ended at the move before.
                let how = match self.checkers.any() {
                    true => Ending::Mate,
                    false => Ending::Stalemate,
                };
                let at = (before != usize::MAX)
                    .then(|| pending.before(input, before));
                let message = Ended { how, at }.no_move();
                let at = pending.span.start;
                return Err(self.fault(input, &pending, at, message));
            }
        }
        let at = comment
            .as_ref()
            .map_or(pending.span.start, |(span, _)| span.start);
        let mut judge = Judge {
            strict: self.config.strict,
            warnings: &mut self.warnings,
            game,
            input,
            pending: &pending,
            at,
        };
        let (taken, checks) = match k {
            Some(k) => written_codes(c, k).map_err(|m| judge.fault(at, m))?,
            None => (None, Codes::default()),
        };
        let attempts = match k {
            Some(k) if k.listed().is_some() => {
                Items::new(&c[k.illegal()], || k.attempts(c))
            }
            _ => Items::Plain(None),
        };
        if !self.views.is_empty() {
            let views = (&mut self.views, &mut self.spare);
            return judge.view(views, attempts, taken, checks);
        }
        let judged = match self.position.as_mut() {
            Some(pos) => judge.true_position(
                pos,
                &mut self.checkers,
                attempts,
                taken,
                checks,
            ),
            None => Ok(()),
        };
        if judged.is_ok() && self.position.as_ref().is_some_and(drawn) {
            self.end(Ending::Insufficient, Some(pending.label(input)));
        }
        judged
    }

    /// The referee ended the game (at the move `at`, or in the FEN tag's
    /// position): no move can follow.
    #[cold]
    fn end(&mut self, how: Ending, at: Option<String>) {
        self.ended = Some(Ended { how, at });
        self.position = None;
    }
}

/// Whether a Rules or Variant tag's value names the rules kpgn-check
/// referees: Berkeley Kriegspiel (`Kriegspiel (Berkeley)`, the seed's
/// `Kriegspiel (<variant>)` form, as every record of the seed and of the
/// repository writes it), plain `Kriegspiel`, `Berkeley` or `Berkeley
/// Kriegspiel`, in any case and with any white space between words; or
/// none (empty, or PGN's `?`). Not another ruleset (English, Wild 16,
/// Cincinnati, Berkeley with the "any?" question), whose announcements
/// and questions differ.
#[inline]
fn berkeley(value: &[u8]) -> bool {
    value == b"Kriegspiel (Berkeley)" || berkeley_spelled(value)
}

/// [`berkeley`], for a value spelled otherwise than the seed spells it.
#[cold]
#[inline(never)]
fn berkeley_spelled(value: &[u8]) -> bool {
    let mut words =
        value.split(u8::is_ascii_whitespace).filter(|word| !word.is_empty());
    let words = [words.next(), words.next(), words.next()];
    let is = |i: usize, word: &str| {
        words[i].is_some_and(|w| w.eq_ignore_ascii_case(word.as_bytes()))
    };
    match words {
        [None, ..] => true,
        [Some(_), None, _] => {
            is(0, "?") || is(0, "kriegspiel") || is(0, "berkeley")
        }
        [Some(_), Some(_), None] => {
            (is(0, "kriegspiel") && is(1, "(berkeley)"))
                || (is(0, "berkeley") && is(1, "kriegspiel"))
        }
        _ => false,
    }
}

/// Whether the referee declares the game drawn by insufficient material
/// in `pos`: a stalemate, which it tells first, is no such draw.
#[cold]
fn drawn(pos: &Pos) -> bool {
    pos.insufficient_material() && has_legal_move(pos)
}

/// Judges a ply of an unfiltered record on the path of a record with
/// nothing wrong: true if the move `token` is legal in `pos`, rightly
/// marked, its attempts (in the comment `k`, at the start of `tail`, the
/// input from the comment on) illegal and none of them nonsense, and its
/// announcements and mark what it produced; then the
/// move is made on `pos`, and `checkers` are the men giving check after
/// it. False (anything else, or anything written in a way this does not
/// read, such as white space inside the comment's parentheses) leaves
/// `pos` and `checkers` as they were, for [`Judge::true_position`] to
/// tell what is wrong, in order.
#[inline(always)]
fn clean_ply(
    pos: &mut Pos,
    checkers: &mut Bitboard,
    token: &[u8],
    tail: &[u8],
    k: Option<&KComment>,
) -> bool {
    // The attempts first, then the move and what it produced: less to
    // keep at hand while the attempts are judged.
    if let Some(k) = k {
        match k.listed() {
            // A count: the slow path says it is no list.
            None => return false,
            Some(n) if n > 0 => {
                if !clean_attempts(pos, *checkers, &tail[k.illegal()]) {
                    return false;
                }
            }
            Some(_) => {}
        }
    }
    let (taken, checks) = match k {
        Some(k) => match plain_codes(tail, k) {
            Some(taken) => (taken, Codes::default()),
            None => match quick_codes(&tail[k.response()]) {
                Some((taken, checks)) => (taken.into_iter().collect(), checks),
                None => return false,
            },
        },
        None => (Bitboard::EMPTY, Codes::default()),
    };
    let (w, mark) = written(token);
    // The move is made on `pos`, which is put back if anything is wrong.
    let before = pos.clone();
    let made = match w {
        Written::Move { role, from, capture, to, promotion } => {
            pos.quick_move(role, from, capture, to, promotion)
        }
        Written::Castle(side) => castled(pos, side),
    };
    let after = pos.checkers();
    let right = match made {
        Some(made) => {
            made == taken
                && if after.is_empty() {
                    mark == Mark::None && checks == Codes::default()
                } else {
                    clean_check(pos, after, mark, checks)
                }
                // A capture or a promotion may leave neither side the
                // men to mate: the referee ends the game there, which
                // [`Referee::settle`] records. (Asked after every move:
                // with a pawn, a rook or a queen on the board, which is
                // told first, that costs less than telling whether the
                // move took or promoted.)
                && !pos.insufficient_material()
        }
        None => false,
    };
    if !right {
        *pos = before;
        return false;
    }
    *checkers = after;
    true
}

/// Makes the castling to `side` on `pos`, if it is legal: then the man it
/// took (none).
#[inline(never)]
fn castled(pos: &mut Pos, side: CastlingSide) -> Option<Bitboard> {
    let m = pos.castle(side)?;
    pos.play(&pos.made(&m));
    Some(Bitboard::EMPTY)
}

/// Whether a move that gives check with `checkers`, leading to `next`,
/// is marked `mark` and announced `checks` as it should be.
#[inline(never)]
fn clean_check(
    next: &Pos,
    checkers: Bitboard,
    mark: Mark,
    checks: Codes,
) -> bool {
    if mark == Mark::None || check_codes(next, checkers) != checks {
        return false;
    }
    let gives = match has_legal_move(next) {
        true => Mark::Check,
        false => Mark::Mate,
    };
    gives == mark
}

/// The square of the capture announced in the comment `k` (at the start
/// of `tail`), empty if none, where it announces nothing else (no check)
/// and is written with no white space: `(:` or `(Xe5:`; `None` for
/// anything else. Read without a branch on whether a capture is
/// announced.
#[inline(always)]
fn plain_codes(tail: &[u8], k: &KComment) -> Option<Bitboard> {
    let codes = k.response();
    // The comment goes on after its announcements (`:`, `)`, `}`).
    let Some(&[x, f, r]) = tail.get(codes.start..codes.start + 3) else {
        return None;
    };
    let n = codes.len();
    if !select_unpredictable(n == 3, x == b'X', n == 0) {
        return None;
    }
    Some(when(n == 3, Bitboard::from_square(square(f, r))))
}

/// The announcements `codes` (the part of a Kriegspiel comment before
/// its `:`) as [`written_codes`] reads them, where they are written with
/// no white space and in order (the capture first, at most two checks);
/// `None` for anything else.
#[inline(always)]
fn quick_codes(codes: &[u8]) -> Option<(Option<Square>, Codes)> {
    let mut taken = None;
    let mut checks = Codes::default();
    let mut n = 0;
    let mut i = 0;
    while i < codes.len() {
        match codes[i..] {
            [b'X', f, r, ..] if i == 0 => {
                taken = Some(square(f, r));
                i += 3;
            }
            [b'C', d, ..] if n < 2 => {
                checks[n] = d;
                n += 1;
                i += 2;
            }
            _ => return None,
        }
        if i < codes.len() {
            if codes[i] != b',' {
                return None;
            }
            i += 1;
        }
    }
    sort_codes(&mut checks);
    Some((taken, checks))
}

/// Whether each of the attempts in `list` (comma-separated, as written)
/// is illegal in `pos` (whose men giving check are `checkers`) and no
/// nonsense; false also for an attempt with white space around it.
#[inline(always)]
fn clean_attempts(pos: &Pos, checkers: Bitboard, list: &[u8]) -> bool {
    let side = pos.turn;
    let pawns = pos.by_piece(side, Role::Pawn);
    // Where a pawn's capture finds nothing to take: an empty square, not
    // the one passed by a double step, off the first and last ranks (a
    // capture there is no nonsense only with a promotion).
    let bare = !pos.occupied() & !pos.ep & Bitboard(0x00ff_ffff_ffff_ff00);
    let back = side.fold_wb(1, 0xff);
    let n = list.len();
    let mut i = 0;
    // The squares the attempts go to: an attempt listed twice goes to
    // one of them again (or is written otherwise, castling or a
    // promotion), and only then are the attempts compared.
    let mut targets = Bitboard::EMPTY;
    let mut again = false;
    while i < n {
        let rest = &list[i..];
        if let [f @ b'a'..=b'h', b'x', tf, tr, ..] = *rest {
            // A pawn's capture, the usual attempt: illegal when there is
            // nothing to take, and no nonsense when a pawn of the mover's
            // could make it on a board of its own men.
            let to = square(tf, tr);
            if (rest.len() == 4 || rest[4] == b',')
                && f.abs_diff(tf) == 1
                && bare.contains(to)
                && pawns.contains(square(f, tr.wrapping_sub(back)))
            {
                again |= targets.contains(to);
                targets.add(to);
                i += 5;
                continue;
            }
        }
        let end = rest.iter().position(|&b| b == b',').unwrap_or(rest.len());
        i += end + 1;
        let t = &rest[..end];
        if !clean_attempt(pos, checkers, t) {
            return false;
        }
        match *t {
            [.., f, r @ b'1'..=b'8'] => {
                let to = square(f, r);
                again |= targets.contains(to);
                targets.add(to);
            }
            _ => again = true,
        }
    }
    !again || !listed_twice(list)
}

/// Whether the comma-separated attempts of `list`, with no white space
/// (as [`clean_attempts`] passed them), may list one twice: one written
/// as one before it (castling with zeros as with letters), or more than
/// eight, or one longer than Kriegspiel SAN ([`Judge::repeated`] tells).
#[inline(never)]
fn listed_twice(list: &[u8]) -> bool {
    // Each attempt's bytes as one number (no byte is 0, so no two
    // attempts of up to 8 bytes give the same).
    let mut seen = [0u64; 8];
    let mut count = 0;
    let (mut key, mut len) = (0u64, 0);
    for i in 0..=list.len() {
        match list.get(i) {
            Some(&b) if b != b',' => {
                let b = if b == b'0' { b'O' } else { b };
                key = key << 8 | u64::from(b);
                len += 1;
            }
            _ => {
                if len > 8
                    || count == seen.len()
                    || seen[..count].contains(&key)
                {
                    return true;
                }
                seen[count] = key;
                count += 1;
                (key, len) = (0, 0);
            }
        }
    }
    false
}

/// Whether the attempt `t` is illegal in `pos` (whose men giving check
/// are `checkers`) and no nonsense; false also for an attempt with white
/// space around it.
#[inline(never)]
fn clean_attempt(pos: &Pos, checkers: Bitboard, t: &[u8]) -> bool {
    // A man's move with no file or rank to tell where from (`Kf2`,
    // `Qxh5`): the usual attempts, a king's step above all, and a man's
    // after a pawn's capture.
    let piece_move = match *t {
        [p @ (b'K' | b'Q' | b'R' | b'B' | b'N'), f @ b'a'..=b'h', r @ b'1'..=b'8']
        | [p @ (b'K' | b'Q' | b'R' | b'B' | b'N'), b'x', f @ b'a'..=b'h', r @ b'1'..=b'8'] => {
            Some((ROLE_OF[usize::from(p)], square(f, r)))
        }
        _ => None,
    };
    let side = pos.turn;
    let own = pos.by_color(side);
    // A king's step: no nonsense if the king is next to the square, not
    // one of its side's men, and illegal if the square is attacked once
    // the king stands there (which needs no guard).
    if let Some((Role::King, to)) = piece_move {
        let king = pos.our_king().filter(|&king| {
            attacks::king_attacks(king).contains(to) && !own.contains(to)
        });
        if let Some(king) = king {
            return !pos.may_go(Role::King, king, to);
        }
    }
    let guard = &Guard::new(pos, checkers);
    // Else: no nonsense if a man of its kind could go there on a board of
    // the mover's men alone, illegal if none can on the board, or none
    // legally.
    if let Some((role, to)) = piece_move {
        let men = pos.by_piece(side, role);
        let seen = men & attacks_of(to, side, role, own);
        if !own.contains(to) && seen.any() {
            // A king's or a knight's reach is the same on any board.
            let reach = match role {
                Role::King | Role::Knight => seen,
                _ => men & attacks_of(to, !side, role, pos.occupied()),
            };
            return legal_among(pos, guard, role, reach, to).is_empty();
        }
    }
    if !matches!((t.first(), t.last()), (Some(a), Some(z)) if a.is_ascii_alphanumeric() && z.is_ascii_alphanumeric())
    {
        return false;
    }
    let (tried, _) = written(t);
    if is_legal(pos, guard, &tried) {
        return false;
    }
    let rank = side.backrank();
    let castle = (
        pos.castling.contains(Square::from_coords(File::H, rank)),
        pos.castling.contains(Square::from_coords(File::A, rank)),
    );
    possible(pos, side, castle, &tried)
}

/// The legal move `w` in `pos` (whose guard is `guard`), if exactly one
/// legal move is written so (else [`find_move`] tells why not).
#[inline(always)]
fn quick_find(pos: &Pos, guard: &Guard, w: &Written) -> Option<Made> {
    match *w {
        Written::Move { role, from, capture, to, promotion } => {
            let marked = Some(capture);
            let froms =
                legal_froms(pos, guard, role, from, marked, to, promotion);
            if froms.count() != 1 {
                return None;
            }
            let from = froms.first().expect("one");
            let taken = match pos.role_at(to) {
                Some(taken) => Some((taken, to)),
                None if role == Role::Pawn && capture => Some((
                    Role::Pawn,
                    Square::from_coords(to.file(), from.rank()),
                )),
                None => None,
            };
            Some(Made {
                from,
                to,
                role,
                put: promotion.unwrap_or(role),
                taken,
                rook: None,
            })
        }
        Written::Castle(side) => pos.castle(side).map(|m| pos.made(&m)),
    }
}

/// A fault of `pending` at `at` (the reader names the game).
fn fault(
    input: &[u8],
    pending: &Pending,
    at: usize,
    message: impl std::fmt::Display,
) -> Fault {
    let label = pending.label(input);
    (at, format!("{label}: {message}"))
}

/// Judging one move with what its comment announced and tried.
struct Judge<'a> {
    strict: bool,
    warnings: &'a mut Vec<Diagnostic>,
    game: &'a Core,
    input: &'a [u8],
    pending: &'a Pending,
    /// Where its comment stands (its move's SAN if it has none).
    at: usize,
}

impl Judge<'_> {
    fn fault(&self, at: usize, message: impl std::fmt::Display) -> Fault {
        fault(self.input, self.pending, at, message)
    }

    /// A nonsense attempt: a warning, or with `strict` a fault.
    fn nonsense(&mut self, attempt: &[u8]) -> Result<(), Fault> {
        let message = format!(
            "the attempt {} is impossible even on {}'s own men",
            shown(attempt, 24),
            self.pending.side.name()
        );
        self.warn(message)
    }

    /// A warning about the move's comment, or with `strict` a fault.
    fn warn(&mut self, message: String) -> Result<(), Fault> {
        let (at, message) = self.fault(self.at, message);
        if self.strict {
            return Err((at, message));
        }
        let line = self.game.line_of(self.input, at);
        self.warnings.push(Diagnostic::warning(line, message));
        Ok(())
    }

    /// An unfiltered record: the move, its attempts and its announcements
    /// in the true position, which the move then changes, and `checkers`,
    /// the men giving check there, with it.
    fn true_position<'c>(
        &mut self,
        pos: &mut Pos,
        checkers: &mut Bitboard,
        attempts: impl Iterator<Item = &'c [u8]>,
        taken: Option<Square>,
        checks: Codes,
    ) -> Result<(), Fault> {
        let (w, mark) =
            self.pending.written(self.input).expect("an unfiltered move");
        // The attempts, in the position the mover tried them in.
        let side = pos.turn;
        let rank = side.backrank();
        let castle = (
            pos.castling.contains(Square::from_coords(File::H, rank)),
            pos.castling.contains(Square::from_coords(File::A, rank)),
        );
        let guard = Guard::new(pos, *checkers);
        let mut before = Tried::default();
        for attempt in attempts {
            let (tried, _) = written(attempt);
            self.repeated(&mut before, tried, attempt)?;
            if is_legal(pos, &guard, &tried) {
                let message = format!(
                    "the attempt {} is legal: the referee would have played it",
                    shown(attempt, 24)
                );
                return Err(self.fault(self.at, message));
            }
            if !possible(pos, side, castle, &tried) {
                self.nonsense(attempt)?;
            }
        }
        let m = find_move(pos, &guard, &w)
            .map_err(|m| self.fault(self.pending.span.start, m))?;
        let real_taken = m.taken.map(|(_, sq)| sq);
        pos.play(&m);
        *checkers = pos.checkers();
        let gives = match checkers.any() {
            false => Mark::None,
            true if !has_legal_move(pos) => Mark::Mate,
            true => Mark::Check,
        };
        if gives != mark {
            let want = match (gives, mark) {
                (Mark::Mate, _) => "it mates: write #",
                (Mark::Check, Mark::Mate) => {
                    "it gives check, not mate: write +"
                }
                (Mark::Check, _) => "it gives check: write +",
                (Mark::None, Mark::Mate) => "it does not mate",
                (Mark::None, _) => "it gives no check",
            };
            return Err(self.fault(self.pending.span.start, want));
        }
        let real_checks = check_codes(pos, *checkers);
        if (real_taken, real_checks) != (taken, checks) {
            let message = format!(
                "announced {}, but the move produced {}",
                codes_text(taken, &checks),
                codes_text(real_taken, &real_checks)
            );
            return Err(self.fault(self.at, message));
        }
        Ok(())
    }

    /// A filtered record, on the player's views: each is kept where the
    /// ply is possible in it (the player's move read each way it can be:
    /// [`Referee::views`]); the fault of the first view when none is.
    fn view<'c>(
        &mut self,
        (views, spare): (&mut Vec<View>, &mut Vec<View>),
        attempts: impl Iterator<Item = &'c [u8]>,
        taken: Option<Square>,
        checks: Codes,
    ) -> Result<(), Fault> {
        let pending = self.pending;
        let side = views[0].side;
        if color(pending.side) != side {
            // The opponent's hidden move: what it took must be the
            // player's, in some view.
            let checked = checks.iter().filter(|&&c| c != 0).count() as u8;
            let mut first = None;
            views.retain_mut(|view| {
                let took = view.taken(taken);
                view.checked = checked;
                took.map_err(|m| first.get_or_insert(m)).is_ok()
            });
            return match first.filter(|_| views.is_empty()) {
                Some(message) => Err(self.fault(self.at, message)),
                None => Ok(()),
            };
        }
        let (w, _) = pending.written(self.input).expect("the player's move");
        let mut before = Tried::default();
        for attempt in attempts {
            let (tried, _) = written(attempt);
            if tried == w {
                let message = format!(
                    "the attempt {} is the move played: the referee would \
                     have played it when it was tried",
                    shown(attempt, 24)
                );
                return Err(self.fault(self.at, message));
            }
            if !views
                .iter()
                .any(|v| possible(&v.board, side, v.castle, &tried))
            {
                self.nonsense(attempt)?;
            }
            self.repeated(&mut before, tried, attempt)?;
        }
        // The views after the move, in the spare buffer (no allocation
        // per move once a game has its two).
        let mut next = std::mem::take(spare);
        next.clear();
        let mut first = None;
        for view in views.iter() {
            match view.play(&w, taken, &mut next) {
                Ok(()) => {}
                Err((at_move, message)) => {
                    let at =
                        if at_move { pending.span.start } else { self.at };
                    first.get_or_insert((at, message));
                }
            }
        }
        if next.is_empty() {
            let (at, message) = first.expect("a view, and none possible");
            return Err(self.fault(at, message));
        }
        // The same men on the same squares read two ways are one view.
        let mut i = 1;
        while i < next.len() {
            if next[..i].contains(&next[i]) {
                next.swap_remove(i);
            } else {
                i += 1;
            }
        }
        next.truncate(MAX_VIEWS);
        *spare = std::mem::replace(views, next);
        Ok(())
    }

    /// An attempt listed again after `before`, the attempts of the same
    /// turn before it (which it joins): the referee answers a move asked again that it
    /// cannot be asked, and lists it once. A warning, or with `strict` a
    /// fault.
    fn repeated(
        &mut self,
        before: &mut Tried,
        tried: Written,
        attempt: &[u8],
    ) -> Result<(), Fault> {
        if !before.again(tried) {
            return Ok(());
        }
        self.warn(format!(
            "the attempt {} is listed twice: the referee lists a move tried \
             once, and refuses to be asked it again",
            shown(attempt, 24)
        ))
    }
}

/// The attempts of a turn so far, as read: the first sixteen where they
/// lie, more (rare) in a vector.
#[derive(Default)]
struct Tried {
    few: [Option<Written>; 16],
    more: Vec<Written>,
}

impl Tried {
    /// Whether `w` was tried before; it joins them.
    fn again(&mut self, w: Written) -> bool {
        let seen = self.few.iter().map_while(|t| t.as_ref());
        if seen.chain(&self.more).any(|&t| t == w) {
            return true;
        }
        match self.few.iter_mut().find(|t| t.is_none()) {
            Some(free) => *free = Some(w),
            None => self.more.push(w),
        }
        false
    }
}

/// The most readings of a filtered record kept at once ([`View`]): past
/// them, the first are kept.
const MAX_VIEWS: usize = 64;

impl View {
    /// The opponent's hidden move took the man on `taken`, if any: it
    /// must be one of the player's, and not the king.
    fn taken(&mut self, taken: Option<Square>) -> Result<(), String> {
        let Some(sq) = taken else { return Ok(()) };
        let name = side_of(self.side).name();
        if self.board.color_at(sq) != Some(self.side) {
            return Err(format!(
                "a capture announced on {sq}, where {name} has no man"
            ));
        }
        if self.board.role_at(sq) == Some(Role::King) {
            return Err(format!(
                "a capture announced on {sq}, where {name}'s king stands: a \
                 king is never taken"
            ));
        }
        self.board.discard_piece_at(sq);
        self.left(sq);
        Ok(())
    }

    /// The player's man left the square `sq` (moved or taken): no
    /// castling with a rook that stood there.
    fn left(&mut self, sq: Square) {
        if self.side.backrank() == sq.rank() {
            if sq.file() == File::H {
                self.castle.0 = false;
            } else if sq.file() == File::A {
                self.castle.1 = false;
            }
        }
    }

    /// The player's move `w`, which took the man on `taken` (if any),
    /// played on this view: a view after it for each of the player's men
    /// that could make it, pushed to `next`; else why it is impossible
    /// (true: said of the move, false: of its announcements).
    fn play(
        &self,
        w: &Written,
        taken: Option<Square>,
        next: &mut Vec<View>,
    ) -> Result<(), (bool, String)> {
        let side = self.side;
        if !possible(&self.board, side, self.castle, w) {
            return Err((
                true,
                "impossible even on the player's own men".into(),
            ));
        }
        if self.checked >= 2
            && !matches!(w, Written::Move { role: Role::King, .. })
        {
            let message = "only the king can move out of the double check \
                           announced";
            return Err((true, message.into()));
        }
        match *w {
            Written::Castle(which) => {
                if self.checked > 0 {
                    let message = "castling out of the check announced";
                    return Err((true, message.into()));
                }
                if taken.is_some() {
                    return Err((false, "castling takes nothing".into()));
                }
                let rank = side.backrank();
                let (rook_from, rook_to, king_to) = match which {
                    CastlingSide::KingSide => (File::H, File::F, File::G),
                    CastlingSide::QueenSide => (File::A, File::D, File::C),
                };
                let sq = |f| Square::from_coords(f, rank);
                let mut view = self.clone();
                view.board.discard_piece_at(sq(File::E));
                view.board.discard_piece_at(sq(rook_from));
                let piece = |role| Piece { color: side, role };
                view.board.set_piece_at(sq(king_to), piece(Role::King));
                view.board.set_piece_at(sq(rook_to), piece(Role::Rook));
                view.castle = (false, false);
                view.checked = 0;
                next.push(view);
            }
            Written::Move { role, from, capture, to, promotion } => {
                let froms =
                    possible_froms(&self.board, side, role, from, capture, to);
                let mut first = None;
                for from in froms {
                    match self.moved(role, from, to, promotion, taken) {
                        Ok(view) => next.push(view),
                        Err(message) => {
                            first.get_or_insert(message);
                        }
                    }
                }
                if let Some(message) = first.filter(|_| next.is_empty()) {
                    return Err((false, message));
                }
            }
        }
        Ok(())
    }

    /// This view after the player's `role` went from `from` to `to`
    /// (promoted to `promotion`), taking the man on `taken`; or why the
    /// capture announced cannot be.
    fn moved(
        &self,
        role: Role,
        from: Square,
        to: Square,
        promotion: Option<Role>,
        taken: Option<Square>,
    ) -> Result<View, String> {
        let side = self.side;
        let pawn = role == Role::Pawn;
        let diagonal = pawn && from.file() != to.file();
        // En passant: from the fifth rank (White's; Black's fourth), the
        // pawn that passed `to` taken on its square.
        let passed = Square::from_coords(to.file(), from.rank());
        let en_passant =
            diagonal && from.rank() == side.fold_wb(Rank::Fifth, Rank::Fourth);
        match taken {
            Some(sq) if pawn && !diagonal => {
                return Err(format!(
                    "a capture announced on {sq}, but a pawn's move along \
                     its file takes nothing"
                ));
            }
            Some(sq) if sq == to || (en_passant && sq == passed) => {}
            Some(sq) => {
                return Err(format!(
                    "a capture announced on {sq}, but the move goes to {to}"
                ));
            }
            None if diagonal => {
                return Err("a pawn capture with no capture announced".into());
            }
            None => {}
        }
        let mut view = self.clone();
        view.board.discard_piece_at(from);
        let role = promotion.unwrap_or(role);
        view.board.set_piece_at(to, Piece { color: side, role });
        if role == Role::King {
            view.castle = (false, false);
        }
        view.left(from);
        view.checked = 0;
        Ok(view)
    }
}

fn side_of(color: Color) -> Side {
    match color {
        Color::White => Side::White,
        Color::Black => Side::Black,
    }
}

/// The legal moves that could be `w`: those to its square by its kind
/// of man, or the castlings. (Inlined: a move list is a few KiB, not to
/// be copied on return.)
#[inline(always)]
fn candidates(pos: &Chess, w: &Written) -> MoveList {
    match *w {
        Written::Castle(side) => pos.castling_moves(side),
        Written::Move { role, to, .. } => pos.san_candidates(role, to),
    }
}

/// Whether the attempt `w` is a legal move in `pos` (an attempt's
/// capture mark counts only for a pawn's).
fn is_legal(pos: &Pos, guard: &Guard, w: &Written) -> bool {
    match *w {
        Written::Castle(side) => pos.castle(side).is_some(),
        Written::Move { role, from, capture, to, promotion } => {
            let capture = (role == Role::Pawn).then_some(capture);
            legal_froms(pos, guard, role, from, capture, to, promotion).any()
        }
    }
}

/// The legal move `w` in `pos` (whose guard is `guard`), or why there is
/// none.
fn find_move(pos: &Pos, guard: &Guard, w: &Written) -> Result<Made, String> {
    if let Some(m) = quick_find(pos, guard, w) {
        return Ok(m);
    }
    why_not(&pos.chess(), w).map(|m| pos.made(&m))
}

/// The legal move `w` in `pos`, found among all the legal moves, or why
/// there is none.
#[cold]
#[inline(never)]
fn why_not(pos: &Chess, w: &Written) -> Result<Move, String> {
    let legal = candidates(pos, w);
    let mut found = legal.iter().filter(|m| is_written(m, w, true));
    match (found.next(), found.next()) {
        (Some(m), None) => return Ok(*m),
        (Some(_), Some(_)) => return Err("ambiguous".into()),
        (None, _) => {}
    }
    // Why not: is it there with the capture mark the other way?
    if legal.iter().any(|m| is_written(m, w, false)) {
        return Err("illegal: its capture mark is wrong".into());
    }
    let side = pos.turn();
    match *w {
        Written::Castle(_) => {
            Err("illegal: castling is not allowed here".into())
        }
        Written::Move { role, from: froms, capture, to, .. } => {
            let ours = pos.board().by_piece(Piece { color: side, role });
            let occupied = pos.board().occupied();
            let reach: Vec<Square> = ours
                .into_iter()
                .filter(|&from| froms.contains(from))
                .filter(|&from| match role {
                    Role::Pawn => reaches(
                        pos.board().by_color(side),
                        side,
                        role,
                        from,
                        to,
                        capture,
                    ),
                    _ => attacks::attacks(
                        from,
                        Piece { color: side, role },
                        occupied,
                    )
                    .contains(to),
                })
                .collect();
            let name = role_name(role);
            Err(if !reach.is_empty() {
                format!("illegal: it would leave the {} king in check, or the square is taken", side_of(side).name())
            } else if ours.count() == 1 {
                let from = ours.first().expect("one");
                format!("illegal: the {name} on {from} cannot reach {to}")
            } else if ours.is_empty() {
                format!("illegal: {} has no {name}", side_of(side).name())
            } else {
                format!("illegal: no {name} can reach {to}")
            })
        }
    }
}

impl Sink for Referee<'_> {
    const NAMES_GAMES: bool = true;
    const COMMENT_APART: bool = true;
    const AS_READ: bool = true;

    fn start(&mut self, at: usize, out: &[u8]) {
        *self = Referee {
            start: at,
            mark: out.len(),
            ..Referee::new(self.config)
        };
    }

    fn rebase(&mut self, n: usize) {
        // Once the game failed, nothing is read again (`a_move`,
        // `kcomment`): what came before may have gone.
        self.start = self.start.saturating_sub(n);
        for range in [
            &mut self.setup,
            &mut self.fen,
            &mut self.result,
            &mut self.marker,
        ]
        .into_iter()
        .flatten()
        {
            *range =
                range.start.saturating_sub(n)..range.end.saturating_sub(n);
        }
        if let Some(pending) = &mut self.pending {
            pending.span = pending.span.start.saturating_sub(n)
                ..pending.span.end.saturating_sub(n);
        }
        if self.last != usize::MAX {
            self.last = self.last.saturating_sub(n);
        }
    }

    fn rebase_out(&mut self, n: usize) {
        self.mark -= n;
    }

    fn mark(&self) -> usize {
        self.mark
    }

    fn tag(
        &mut self,
        _game: &Core,
        input: &[u8],
        name: Range<usize>,
        value: Range<usize>,
        _out: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        match &input[name] {
            b"SetUp" => self.setup = Some(value),
            b"FEN" => {
                // One that cannot be read at all is the reader's fault.
                if let Ok(fen) = Fen::from_ascii(&input[value.clone()]) {
                    let mode = CastlingMode::Standard;
                    if let Err(e) = fen.into_position::<Chess>(mode) {
                        let message =
                            format!("the FEN tag is no legal position: {e}");
                        return Err((value.start, message));
                    }
                }
                self.fen = Some(value);
            }
            b"Result" => self.result = Some(value),
            tag @ (b"Rules" | b"Variant")
                if !berkeley(&input[value.clone()]) =>
            {
                let message = format!(
                    "the {} tag says '{}': kpgn-check referees Berkeley \
                     Kriegspiel only",
                    String::from_utf8_lossy(tag),
                    shown(&input[value.clone()], 40)
                );
                return Err((value.start, message));
            }
            _ => {}
        }
        Ok(())
    }

    fn tag_section_line(
        &mut self,
        _input: &[u8],
        _line: Range<usize>,
        _first: usize,
        _next: usize,
        _tags: bool,
        _out: &mut Vec<u8>,
    ) {
    }

    fn movetext(
        &mut self,
        game: &Core,
        input: &[u8],
        _line: usize,
        _end: usize,
        _out: &mut Vec<u8>,
    ) {
        let setup = self.setup.clone().map(|v| &input[v]);
        let position = match (&self.fen, setup) {
            (Some(fen), setup) if setup != Some(b"0") => {
                Fen::from_ascii(&input[fen.clone()]).ok().and_then(|f| {
                    f.into_position::<Chess>(CastlingMode::Standard).ok()
                })
            }
            _ => Some(Chess::default()),
        };
        // A FEN that is no legal position failed the game at its tag.
        self.checkers =
            position.as_ref().map_or(Bitboard::EMPTY, Position::checkers);
        self.position = position.as_ref().map(Pos::from_chess);
        if game.filtered.is_none() && self.position.as_ref().is_some_and(drawn)
        {
            self.end(Ending::Insufficient, None);
        }
        if let (Some(side), Some(pos)) = (game.filtered, &position) {
            let side = color(side);
            let castles = pos.castles();
            let mut board = Board::empty();
            for sq in pos.board().by_color(side) {
                if let Some(piece) = pos.board().piece_at(sq) {
                    board.set_piece_at(sq, piece);
                }
            }
            self.views = vec![View {
                side,
                board,
                castle: (
                    castles.has(side, CastlingSide::KingSide),
                    castles.has(side, CastlingSide::QueenSide),
                ),
                checked: 0,
            }];
        }
    }

    fn number(
        &mut self,
        game: &Core,
        input: &[u8],
        _span: Range<usize>,
        _out: &mut Vec<u8>,
    ) {
        // A number ends what the move before could have in the way of a
        // comment: it is settled at the next move.
        let _ = (game, input);
    }

    #[inline]
    fn a_move(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        hidden: bool,
        _out: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        if self.pending.is_none()
            && !hidden
            && self.views.is_empty()
            && self.position.is_some()
            && !game.failed
        {
            // A move of an unfiltered record, the one before settled:
            // nothing to say yet.
            self.pending = Some(Pending {
                span,
                fullmove: game.fullmove,
                side: game.to_move,
                hidden,
            });
            return Ok(());
        }
        self.a_move_slow(game, input, span, hidden)
    }

    #[inline]
    fn kcomment(
        &mut self,
        game: &Core,
        input: &[u8],
        span: Range<usize>,
        k: &KComment,
        _owner: Side,
        _out: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        if let (Some(pending), true, Some(pos), false) = (
            &self.pending,
            self.views.is_empty(),
            self.position.as_mut(),
            game.failed,
        ) {
            if !pending.hidden
                && clean_ply(
                    pos,
                    &mut self.checkers,
                    &input[pending.span.clone()],
                    &input[span.start..],
                    Some(k),
                )
            {
                self.last = pending.span.start;
                self.pending = None;
                return Ok(());
            }
        }
        self.kcomment_slow(game, input, span, k)
    }

    fn item(
        &mut self,
        _game: &Core,
        _input: &[u8],
        item: Item,
        span: Range<usize>,
        _out: &mut Vec<u8>,
    ) -> Result<(), Fault> {
        if item == Item::End {
            self.marker = Some(span);
        }
        Ok(())
    }

    fn variation(
        &mut self,
        _game: &Core,
        _input: &[u8],
        _span: Range<usize>,
        _out: &mut Vec<u8>,
    ) {
    }

    fn line_end(
        &mut self,
        _game: &Core,
        _input: &[u8],
        _end: usize,
        _next: usize,
        _out: &mut Vec<u8>,
    ) {
    }

    fn finish(
        &mut self,
        game: &Core,
        input: &[u8],
        end: usize,
        out: &mut Vec<u8>,
    ) -> Result<bool, Fault> {
        if self.pending.is_some() {
            self.settle(game, input, None)?;
        }
        if let Some(ended) = &self.ended {
            // A draw of the referee's, which a win contradicts (`*`, a
            // result not given, is not judged, as at any other end).
            for range in [&self.result, &self.marker].into_iter().flatten() {
                let written = &input[range.clone()];
                if written == b"1-0" || written == b"0-1" {
                    let message = format!(
                        "result '{}', but the game ended {}",
                        shown(written, 24),
                        ended.text()
                    );
                    return Err((range.start, message));
                }
            }
        }
        if let (Some(pos), true) = (&self.position, self.views.is_empty()) {
            let mate = self.checkers.any();
            let want = match has_legal_move(pos) {
                true => None,
                false if mate => Some(match pos.turn {
                    Color::White => "0-1",
                    Color::Black => "1-0",
                }),
                false => Some("1/2-1/2"),
            };
            if let Some(want) = want {
                let ending = if mate { "mate" } else { "stalemate" };
                for range in [&self.result, &self.marker].into_iter().flatten()
                {
                    let written = &input[range.clone()];
                    if written != want.as_bytes() {
                        let message = format!(
                            "result '{}', but the game ends in {ending}",
                            shown(written, 24)
                        );
                        return Err((range.start, message));
                    }
                }
            }
        }
        if let (Some(tag), Some(marker)) = (&self.result, &self.marker) {
            // The PGN standard (8.1.1.7): the Result tag's value is always
            // exactly the termination marker, `*` included.
            let (written, ends) =
                (&input[tag.clone()], &input[marker.clone()]);
            if written != ends {
                let message = format!(
                    "the Result tag says '{}', the termination marker '{}': \
                     they must be the same",
                    shown(written, 24),
                    shown(ends, 24)
                );
                return Err((marker.start, message));
            }
        }
        let write = !self.config.invert && !self.config.quiet;
        if write {
            out.extend_from_slice(&input[self.start..end]);
        }
        Ok(write)
    }

    fn warnings(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.warnings)
    }

    fn writes_failing(&self) -> bool {
        self.config.invert
    }

    fn write_failed(
        &mut self,
        input: &[u8],
        span: Range<usize>,
        out: &mut Vec<u8>,
    ) {
        if self.config.invert && !self.config.quiet {
            // A game that failed has nothing in `out`: its bytes are
            // written as they stand.
            out.truncate(self.mark);
            out.extend_from_slice(&input[span]);
            self.mark = out.len();
        }
    }

    fn drop_game(
        &mut self,
        input: &[u8],
        game: Range<usize>,
        fault: bool,
        out: &mut Vec<u8>,
    ) -> bool {
        out.truncate(self.mark);
        if !fault {
            // No game.
            return false;
        }
        let write = self.config.invert && !self.config.quiet;
        if write {
            out.extend_from_slice(&input[game]);
        }
        write
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `written` reads every shape of Kriegspiel SAN.
    #[test]
    fn written_reads_every_shape() {
        let sq = |s: &str| s.parse::<Square>().expect("a square");
        let mv = |role,
                  file: Option<File>,
                  rank: Option<Rank>,
                  capture,
                  to: &str,
                  promotion| {
            let mut from = Bitboard::FULL;
            if let Some(f) = file {
                from &= Bitboard::from_file(f);
            }
            if let Some(r) = rank {
                from &= Bitboard::from_rank(r);
            }
            Written::Move { role, from, capture, to: sq(to), promotion }
        };
        let cases = [
            ("O-O", Written::Castle(CastlingSide::KingSide), Mark::None),
            ("0-0-0+", Written::Castle(CastlingSide::QueenSide), Mark::Check),
            ("O-O-O#!?", Written::Castle(CastlingSide::QueenSide), Mark::Mate),
            ("e4", mv(Role::Pawn, None, None, false, "e4", None), Mark::None),
            (
                "exd8=N#?!",
                mv(
                    Role::Pawn,
                    Some(File::E),
                    None,
                    true,
                    "d8",
                    Some(Role::Knight),
                ),
                Mark::Mate,
            ),
            (
                "a1=Q+",
                mv(Role::Pawn, None, None, false, "a1", Some(Role::Queen)),
                Mark::Check,
            ),
            (
                "Nf3!!",
                mv(Role::Knight, None, None, false, "f3", None),
                Mark::None,
            ),
            (
                "Rbxb7??",
                mv(Role::Rook, Some(File::B), None, true, "b7", None),
                Mark::None,
            ),
            (
                "R1a3+",
                mv(Role::Rook, None, Some(Rank::First), false, "a3", None),
                Mark::Check,
            ),
            (
                "Qh4xe1#",
                mv(
                    Role::Queen,
                    Some(File::H),
                    Some(Rank::Fourth),
                    true,
                    "e1",
                    None,
                ),
                Mark::Mate,
            ),
            ("Kxe2", mv(Role::King, None, None, true, "e2", None), Mark::None),
        ];
        for (token, w, mark) in cases {
            assert_eq!(written(token.as_bytes()), (w, mark), "{token}");
        }
    }

    /// How `written` read a token before it read by tables: the head
    /// (file and rank of departure, capture) byte by byte.
    fn written_by_bytes(token: &[u8]) -> (Written, Mark) {
        let mut n = token.len();
        let mut mark = Mark::None;
        if !matches!(token[n - 1], b'1'..=b'8') {
            let castle;
            (n, mark, castle) = ending(token);
            if let Some(side) = castle {
                return (Written::Castle(side), mark);
            }
        }
        let body = &token[..n];
        let (body, promotion) = match body {
            [rest @ .., b'=', p] => (rest, Some(ROLE_OF[usize::from(*p)])),
            _ => (body, None),
        };
        let n = body.len();
        let to = square(body[n - 2], body[n - 1]);
        let (role, start) = match body[0] {
            b'K' => (Role::King, 1),
            b'Q' => (Role::Queen, 1),
            b'R' => (Role::Rook, 1),
            b'B' => (Role::Bishop, 1),
            b'N' => (Role::Knight, 1),
            _ => (Role::Pawn, 0),
        };
        let mut head = &body[start..n - 2];
        let capture = matches!(head, [.., b'x']);
        if capture {
            head = &head[..head.len() - 1];
        }
        let mut from = Bitboard::FULL;
        for &b in head {
            from &= match b {
                b'a'..=b'h' => {
                    Bitboard::from_file(File::new(u32::from(b - b'a')))
                }
                _ => Bitboard::from_rank(Rank::new(u32::from(b - b'1'))),
            };
        }
        (Written::Move { role, from, capture, to, promotion }, mark)
    }

    /// `written` reads every token of Kriegspiel SAN as it was read byte
    /// by byte: every kind of man, file and rank of departure, capture,
    /// target square, promotion, check mark and glyph.
    #[test]
    fn written_by_tables_reads_as_by_bytes() {
        let mut tokens = 0;
        for man in ["", "K", "Q", "R", "B", "N"] {
            let heads: Vec<String> = if man.is_empty() {
                ["", "a", "e", "h"].map(String::from).to_vec()
            } else {
                let mut heads = vec![String::new()];
                for f in ["a", "d", "h"] {
                    heads.push(f.into());
                    for r in ["1", "5", "8"] {
                        heads.push(r.into());
                        heads.push(format!("{f}{r}"));
                    }
                }
                heads
            };
            for head in &heads {
                for x in ["", "x"] {
                    for to in Square::ALL {
                        for promotion in ["", "=Q", "=N", "=R", "=B"] {
                            if !man.is_empty() && !promotion.is_empty() {
                                continue;
                            }
                            for mark in ["", "+", "#"] {
                                for glyph in ["", "!", "?", "!!", "??", "!?"] {
                                    let token = format!(
                                        "{man}{head}{x}{to}{promotion}{mark}{glyph}"
                                    );
                                    let token = token.as_bytes();
                                    assert_eq!(
                                        written(token),
                                        written_by_bytes(token),
                                        "{}",
                                        String::from_utf8_lossy(token)
                                    );
                                    tokens += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
        for castle in ["O-O", "O-O-O", "0-0", "0-0-0"] {
            for mark in ["", "+", "#"] {
                for glyph in ["", "!", "?!"] {
                    let token = format!("{castle}{mark}{glyph}");
                    let token = token.as_bytes();
                    assert_eq!(written(token), written_by_bytes(token));
                }
            }
        }
        assert!(tokens > 250_000, "{tokens}");
    }
}
