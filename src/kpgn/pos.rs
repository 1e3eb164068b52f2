//! The referee's position: the board of an unfiltered record and what the
//! rules need beside it (the side to move, the castling rights, the
//! square a pawn just passed), with the moves the referee judges found,
//! made and weighed on the board's bitboards and shakmaty's attack
//! tables. A [`Chess`] is made from it only where a move or an attempt
//! is wrong (to tell why) or a move has to be looked for among all the
//! legal moves (is there any?), so that the moves of a good record cost
//! no more than they must. (Tested against shakmaty's legal moves.)

use shakmaty::attacks;
use shakmaty::{
    Bitboard, Board, CastlingMode, CastlingSide, Chess, Color, File,
    FromSetup, Move, Piece, Position, Rank, Role, Setup, Square,
};

/// A position of chess, as the referee keeps it.
#[derive(Clone, Debug)]
pub(super) struct Pos {
    pub board: Board,
    pub turn: Color,
    /// The rooks whose side may still castle (on a1, h1, a8, h8, their
    /// king on its own square).
    pub castling: Bitboard,
    /// The square a pawn passed in a double step just made (whether or
    /// not a pawn could take it en passant).
    pub ep: Option<Square>,
}

impl Pos {
    /// The position of `pos`.
    pub fn from_chess(pos: &Chess) -> Pos {
        Pos {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
            ep: pos.maybe_ep_square(),
        }
    }

    /// The position as shakmaty's (its clocks aside).
    pub fn chess(&self) -> Chess {
        let mut setup = Setup::empty();
        setup.board = self.board.clone();
        setup.turn = self.turn;
        setup.castling_rights = self.castling;
        setup.ep_square = self.ep;
        Chess::from_setup(setup, CastlingMode::Standard)
            .or_else(|e| e.ignore_impossible_check())
            .expect("a position reached by legal moves")
    }

    /// The men of the side not to move that attack the king of the side
    /// to move.
    pub fn checkers(&self) -> Bitboard {
        match self.board.king_of(self.turn) {
            Some(king) => {
                self.board.attacks_to(king, !self.turn, self.board.occupied())
            }
            None => Bitboard::EMPTY,
        }
    }

    /// Whether a man of the side not to move attacks `sq`, with
    /// `occupied` the men on the board.
    #[inline]
    fn attacked(&self, sq: Square, occupied: Bitboard) -> bool {
        self.board.attacks_to(sq, !self.turn, occupied).any()
    }

    /// Makes the legal move `m`.
    pub fn play(&mut self, m: &Move) {
        let color = self.turn;
        self.ep = None;
        match *m {
            Move::Normal { role, from, to, promotion, .. } => {
                if role == Role::Pawn && from.rank().distance(to.rank()) == 2 {
                    self.ep = Some(Square::from_coords(
                        from.file(),
                        color.fold_wb(Rank::Third, Rank::Sixth),
                    ));
                }
                if role == Role::King {
                    self.castling &= !Bitboard::from_rank(color.backrank());
                }
                // A rook with castling rights leaves or is taken.
                self.castling &=
                    !(Bitboard::from_square(from) | Bitboard::from_square(to));
                self.board.discard_piece_at(from);
                let role = promotion.unwrap_or(role);
                self.board.set_piece_at(to, Piece { color, role });
            }
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_queen_side(rook < king);
                self.board.discard_piece_at(king);
                self.board.discard_piece_at(rook);
                let rank = king.rank();
                self.board.set_piece_at(
                    Square::from_coords(side.rook_to_file(), rank),
                    Piece { color, role: Role::Rook },
                );
                self.board.set_piece_at(
                    Square::from_coords(side.king_to_file(), rank),
                    Piece { color, role: Role::King },
                );
                self.castling &= !Bitboard::from_rank(color.backrank());
            }
            Move::EnPassant { from, to } => {
                self.board.discard_piece_at(Square::from_coords(
                    to.file(),
                    from.rank(),
                ));
                self.board.discard_piece_at(from);
                self.board.set_piece_at(to, Piece { color, role: Role::Pawn });
            }
            Move::Put { .. } => unreachable!("no drops in chess"),
        }
        self.turn = !color;
    }

    /// The castling to `side` of the side to move, if it is legal
    /// (standard chess: the king on its own square, the rook in its
    /// corner; shakmaty's rules, the squares between them empty, the
    /// king not in check nor passing or landing on an attacked square).
    pub fn castle(&self, side: CastlingSide) -> Option<Move> {
        let color = self.turn;
        let rank = color.backrank();
        let rook_file = match side {
            CastlingSide::KingSide => File::H,
            CastlingSide::QueenSide => File::A,
        };
        let rook = Square::from_coords(rook_file, rank);
        if !self.castling.contains(rook) {
            return None;
        }
        let king = Square::from_coords(File::E, rank);
        let occupied = self.board.occupied();
        if (attacks::between(king, rook) & occupied).any() {
            return None;
        }
        let king_to = side.king_to(color);
        let after = occupied
            ^ Bitboard::from_square(king)
            ^ Bitboard::from_square(rook)
            ^ Bitboard::from_square(side.rook_to(color));
        if self.attacked(king_to, after) {
            return None;
        }
        let without_king = occupied ^ Bitboard::from_square(king);
        let path =
            attacks::between(king, king_to) | Bitboard::from_square(king);
        if path.into_iter().any(|sq| self.attacked(sq, without_king)) {
            return None;
        }
        Some(Move::Castle { king, rook })
    }
}

/// What decides where the men of the side to move may go in a position,
/// worked out once for all the moves judged there (the attempts and the
/// move): its king, and where the checks let the other men go.
#[derive(Clone, Copy, Debug)]
pub(super) struct Guard {
    pub king: Option<Square>,
    /// Where a man other than the king may go: anywhere out of check,
    /// onto the man giving a single check or between it and the king,
    /// nowhere in a double check.
    pub targets: Bitboard,
}

impl Guard {
    /// The guard of the side to move in `pos`, whose men giving check
    /// are `checkers`.
    pub fn new(pos: &Pos, checkers: Bitboard) -> Guard {
        let king = pos.board.king_of(pos.turn);
        let targets = match (king, checkers.single_square()) {
            _ if checkers.is_empty() => Bitboard::FULL,
            (Some(king), Some(checker)) => {
                checkers | attacks::between(king, checker)
            }
            _ => Bitboard::EMPTY,
        };
        Guard { king, targets }
    }
}

/// Whether the man on `from` is pinned to its king on `king`: alone
/// between it and a rook, bishop or queen of the other side on their
/// line, so that it may only move along that line.
fn pinned(board: &Board, side: Color, king: Square, from: Square) -> bool {
    let line = attacks::ray(king, from);
    let occupied = board.occupied();
    if line.is_empty() || (attacks::between(king, from) & occupied).any() {
        return false;
    }
    let them = board.by_color(!side);
    let sliders = if king.file() == from.file() || king.rank() == from.rank() {
        attacks::rook_attacks(from, occupied) & board.rooks_and_queens()
    } else {
        attacks::bishop_attacks(from, occupied) & board.bishops_and_queens()
    };
    (sliders & line & them).any()
}

/// The squares of the men of the side to move that can make the move
/// (not castling) of `role` to `to` in `pos`, from a square of `from`,
/// legally: with the capture mark `capture` if it
/// is given (for a pawn it tells a push from a capture, given or not),
/// with `promotion` where a pawn reaches the last rank. What
/// [`Position::san_candidates`] finds, without making every legal move:
/// the man must reach `to` on the board (the attack tables) and, by
/// `guard` (the guard of `pos`), go where the checks allow, and stay on
/// the line of a pin; a move of the king, or en passant, is made on the
/// board's bitboards, and the king must not be attacked then.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn legal_froms(
    pos: &Pos,
    guard: &Guard,
    role: Role,
    from: Bitboard,
    capture: Option<bool>,
    to: Square,
    promotion: Option<Role>,
) -> Bitboard {
    let board = &pos.board;
    let side = pos.turn;
    let (us, them) = (board.by_color(side), board.by_color(!side));
    if us.contains(to) {
        return Bitboard::EMPTY;
    }
    let occupied = board.occupied();
    let takes = them.contains(to);
    let mut froms = board.by_piece(Piece { color: side, role }) & from;
    let mut ep = None;
    if role == Role::Pawn {
        if (to.rank() == side.fold_wb(Rank::Eighth, Rank::First))
            != promotion.is_some()
        {
            return Bitboard::EMPTY;
        }
        let forward = side.fold_wb(1, -1);
        let pawn_capture = capture.unwrap_or(false);
        froms &= if pawn_capture {
            if !takes {
                if pos.ep != Some(to) {
                    return Bitboard::EMPTY;
                }
                ep = to.offset(-8 * forward);
            }
            attacks::pawn_attacks(!side, to)
        } else {
            if takes || occupied.contains(to) {
                return Bitboard::EMPTY;
            }
            let mut from = Bitboard::EMPTY;
            if let Some(one) = to.offset(-8 * forward) {
                from |= Bitboard::from_square(one);
                let start = side.fold_wb(Rank::Second, Rank::Seventh);
                if !occupied.contains(one) {
                    if let Some(two) = one.offset(-8 * forward) {
                        if two.rank() == start {
                            from |= Bitboard::from_square(two);
                        }
                    }
                }
            }
            from
        };
    } else {
        if promotion.is_some() || capture.is_some_and(|c| c != takes) {
            return Bitboard::EMPTY;
        }
        froms &= attacks::attacks(to, Piece { color: !side, role }, occupied);
    }
    if role != Role::King && ep.is_none() {
        // Where the checks allow, along the line of a pin.
        if !guard.targets.contains(to) {
            return Bitboard::EMPTY;
        }
        let mut legal = froms;
        if let Some(king) = guard.king {
            for from in froms {
                if !attacks::aligned(king, from, to)
                    && pinned(board, side, king, from)
                {
                    legal.discard(from);
                }
            }
        }
        return legal;
    }
    let king = guard.king;
    let mut legal = Bitboard::EMPTY;
    for from in froms {
        let taken = match ep {
            Some(sq) => Bitboard::from_square(sq),
            None => Bitboard::from_square(to) & them,
        };
        let after = (occupied ^ Bitboard::from_square(from) ^ taken)
            | Bitboard::from_square(to);
        let safe = match if role == Role::King { Some(to) } else { king } {
            Some(king) => {
                (board.attacks_to(king, !side, after) & !taken).is_empty()
            }
            None => true,
        };
        if safe {
            legal |= Bitboard::from_square(from);
        }
    }
    legal
}

/// Whether the side to move in `pos` has a legal move: quickly when its
/// king can step to a square no man of the other side attacks, else by
/// making every legal move.
pub(super) fn has_legal_move(pos: &Pos) -> bool {
    let board = &pos.board;
    let side = pos.turn;
    if let Some(king) = board.king_of(side) {
        let occupied = board.occupied().without(king);
        let steps = attacks::king_attacks(king) & !board.by_color(side);
        if steps
            .into_iter()
            .any(|to| board.attacks_to(to, !side, occupied).is_empty())
        {
            return true;
        }
    }
    !pos.chess().legal_moves().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Rng;
    use shakmaty::fen::Fen;

    /// `legal_froms` finds the squares that shakmaty's legal moves come
    /// from, for every kind of man, every square and every capture mark,
    /// `Pos::castle` its castlings, `has_legal_move` whether there is
    /// one, and `Pos::play` and `Pos::checkers` agree with shakmaty's, in
    /// the positions of random games (pins, checks, double checks, en
    /// passant, promotions, castlings and the kings' own moves among
    /// them).
    #[test]
    fn legal_froms_agrees_with_shakmaty() {
        let mut rng = Rng::new(7);
        let (mut positions, mut ep, mut promotions, mut castles) =
            (0, 0, 0, 0);
        for game in 0..80 {
            let mut pos = Chess::default();
            if game % 4 == 1 {
                // Castling positions, with the kings' and rooks' men
                // about.
                let fen: Fen = "r3k2r/pppq1ppp/2n2n2/2bpp1B1/2BPP1b1/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1"
                    .parse()
                    .expect("a FEN");
                pos = fen
                    .into_position(CastlingMode::Standard)
                    .expect("a position");
            }
            let mut ours = Pos::from_chess(&pos);
            for _ in 0..120 {
                positions += 1;
                assert_eq!(ours.chess(), pos);
                assert_eq!(ours.checkers(), pos.checkers());
                let legal = pos.legal_moves();
                let guard = Guard::new(&ours, ours.checkers());
                for role in Role::ALL {
                    for to in Square::ALL {
                        for capture in [None, Some(false), Some(true)] {
                            if role == Role::Pawn && capture.is_none() {
                                continue;
                            }
                            let promotion = (role == Role::Pawn
                                && to.rank()
                                    == pos
                                        .turn()
                                        .fold_wb(Rank::Eighth, Rank::First))
                            .then_some(Role::Queen);
                            let want: Bitboard = legal
                                .iter()
                                .filter(|m| {
                                    m.role() == role
                                        && m.to() == to
                                        && !m.is_castle()
                                        && m.promotion() == promotion
                                        && capture.is_none_or(|c| {
                                            c == m.is_capture()
                                        })
                                })
                                .map(|m| m.from().expect("a move from"))
                                .collect();
                            let got = legal_froms(
                                &ours,
                                &guard,
                                role,
                                Bitboard::FULL,
                                capture,
                                to,
                                promotion,
                            );
                            assert_eq!(
                                got,
                                want,
                                "{} {role:?} to {to} {capture:?}",
                                Fen::from_position(
                                    &pos,
                                    shakmaty::EnPassantMode::Always
                                )
                            );
                        }
                    }
                }
                for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
                    let want = pos.castling_moves(side).first().copied();
                    assert_eq!(ours.castle(side), want);
                    castles += usize::from(want.is_some());
                }
                assert_eq!(has_legal_move(&ours), !legal.is_empty());
                ep += legal.iter().filter(|m| m.is_en_passant()).count();
                promotions +=
                    legal.iter().filter(|m| m.is_promotion()).count();
                if legal.is_empty() {
                    break;
                }
                // Captures and checks first, half the time, so that games
                // reach endings with few men and passed pawns; castling
                // when it can.
                let sharp: Vec<&Move> = legal
                    .iter()
                    .filter(|m| {
                        m.is_capture() || m.is_promotion() || m.is_castle()
                    })
                    .collect();
                let m = if !sharp.is_empty() && rng.below(2) == 0 {
                    *sharp[rng.below(sharp.len())]
                } else {
                    legal[rng.below(legal.len())]
                };
                pos.play_unchecked(m);
                ours.play(&m);
            }
        }
        assert!(
            positions > 6_000 && ep > 10 && promotions > 50 && castles > 50,
            "{positions} {ep} {promotions} {castles}"
        );
    }
}
