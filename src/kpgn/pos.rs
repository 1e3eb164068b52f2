//! The referee's position: the men of an unfiltered record, as bitboards
//! of each kind and each side, and what the rules need beside them (the
//! side to move, the castling rights, the square a pawn just passed),
//! with the moves the referee judges found, made and weighed on them with
//! shakmaty's attack tables. A shakmaty [`Chess`] is made from it only
//! where a move or an attempt is wrong (to tell why) or where a move has
//! to be looked for among all the legal moves (is there any?), so that
//! the moves of a good record cost no more than they must. (Tested
//! against shakmaty's legal moves.)

use shakmaty::attacks;
use shakmaty::{
    Bitboard, Board, ByColor, ByRole, CastlingMode, CastlingSide, Chess,
    Color, File, FromSetup, Move, Position, Rank, Role, Setup, Square,
};

/// A legal move, as the referee makes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Made {
    pub from: Square,
    pub to: Square,
    /// The man that moves, and the man on `to` after it (a promotion's).
    pub role: Role,
    pub put: Role,
    /// The man taken, and his square (en passant: the pawn's).
    pub taken: Option<(Role, Square)>,
    /// Castling: where the rook goes from and to (the king's move is
    /// `from`, `to`).
    pub rook: Option<(Square, Square)>,
    /// The squares the man leaves and lands on (`from` and `to`). Kept
    /// with the rest, it makes a move larger than one machine word, which
    /// the compiler then keeps field by field instead of packing it into
    /// one register and unpacking it again for every use (about 1 % of
    /// kpgn-check's instructions).
    pub moved: Bitboard,
}

/// A position of chess, as the referee keeps it.
#[derive(Clone, Debug)]
pub(super) struct Pos {
    /// The men of each kind (`Role as usize - 1`) and of each side
    /// (`Color as usize`).
    roles: [Bitboard; 6],
    colors: [Bitboard; 2],
    pub turn: Color,
    /// The rooks whose side may still castle (on a1, h1, a8, h8, their
    /// king on its own square).
    pub castling: Bitboard,
    /// The square a pawn passed in a double step just made (whether or
    /// not a pawn could take it en passant).
    pub ep: Option<Square>,
}

/// The squares `piece` attacks from `sq`, with `occupied` the men on the
/// board (shakmaty's [`attacks::attacks`], inlined).
#[inline(always)]
pub(super) fn attacks_of(
    sq: Square,
    color: Color,
    role: Role,
    occupied: Bitboard,
) -> Bitboard {
    match role {
        Role::Pawn => attacks::pawn_attacks(color, sq),
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occupied),
        Role::Rook => attacks::rook_attacks(sq, occupied),
        Role::Queen => attacks::queen_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
    }
}

/// Whether `a` and `b` share a file or a rank (else, on one line, a
/// diagonal).
#[inline(always)]
fn straight(a: Square, b: Square) -> bool {
    a.file() == b.file() || a.rank() == b.rank()
}

impl Pos {
    /// The position of `pos`.
    pub fn from_chess(pos: &Chess) -> Pos {
        let board = pos.board();
        Pos {
            roles: Role::ALL.map(|role| board.by_role(role)),
            colors: [
                board.by_color(Color::Black),
                board.by_color(Color::White),
            ],
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
            ep: pos.maybe_ep_square(),
        }
    }

    /// The men as shakmaty's board.
    pub fn board(&self) -> Board {
        let [pawn, knight, bishop, rook, queen, king] = self.roles;
        Board::try_from_bitboards(
            ByRole { pawn, knight, bishop, rook, queen, king },
            ByColor { black: self.colors[0], white: self.colors[1] },
        )
        .expect("bitboards kept consistent")
    }

    /// The position as shakmaty's (its clocks aside).
    pub fn chess(&self) -> Chess {
        let mut setup = Setup::empty();
        setup.board = self.board();
        setup.turn = self.turn;
        setup.castling_rights = self.castling;
        setup.ep_square = self.ep;
        match Chess::from_setup(setup, CastlingMode::Standard) {
            Ok(pos) => pos,
            Err(e) => e
                .ignore_impossible_check()
                .expect("a position reached by legal moves"),
        }
    }

    /// The men of `color`.
    #[inline(always)]
    pub fn by_color(&self, color: Color) -> Bitboard {
        self.colors[color as usize]
    }

    /// The men of kind `role`, of both sides.
    #[inline(always)]
    pub fn by_role(&self, role: Role) -> Bitboard {
        self.roles[role as usize - 1]
    }

    /// The men of `color` of kind `role`.
    #[inline(always)]
    pub fn by_piece(&self, color: Color, role: Role) -> Bitboard {
        self.by_color(color) & self.by_role(role)
    }

    /// Every man on the board.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.colors[0] | self.colors[1]
    }

    /// The square of the king of `color` (a position has one of each:
    /// shakmaty's made sure of the first, and a king is never taken).
    #[inline(always)]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        self.by_piece(color, Role::King).first()
    }

    /// The kind of man on `sq`, if any.
    #[inline(always)]
    pub fn role_at(&self, sq: Square) -> Option<Role> {
        if !self.occupied().contains(sq) {
            return None;
        }
        Role::ALL.into_iter().find(|&role| self.by_role(role).contains(sq))
    }

    /// The men of `attacker` that attack `sq`, with `occupied` the men on
    /// the board.
    #[inline(always)]
    pub fn attacks_to(
        &self,
        sq: Square,
        attacker: Color,
        occupied: Bitboard,
    ) -> Bitboard {
        let queens = self.by_role(Role::Queen);
        self.by_color(attacker)
            & ((attacks::rook_attacks(sq, occupied)
                & (self.by_role(Role::Rook) | queens))
                | (attacks::bishop_attacks(sq, occupied)
                    & (self.by_role(Role::Bishop) | queens))
                | (attacks::knight_attacks(sq) & self.by_role(Role::Knight))
                | (attacks::king_attacks(sq) & self.by_role(Role::King))
                | (attacks::pawn_attacks(!attacker, sq)
                    & self.by_role(Role::Pawn)))
    }

    /// The men of the side not to move that attack the king of the side
    /// to move.
    pub fn checkers(&self) -> Bitboard {
        match self.king_of(self.turn) {
            Some(king) => self.attacks_to(king, !self.turn, self.occupied()),
            None => Bitboard::EMPTY,
        }
    }

    /// Whether a man of the side not to move attacks `sq`, with
    /// `occupied` the men on the board.
    #[inline(always)]
    fn attacked(&self, sq: Square, occupied: Bitboard) -> bool {
        self.attacks_to(sq, !self.turn, occupied).any()
    }

    /// The legal move `m` as [`Pos::play`] makes it.
    pub fn made(&self, m: &Move) -> Made {
        match *m {
            Move::Normal { role, from, capture, to, promotion } => Made {
                from,
                to,
                role,
                put: promotion.unwrap_or(role),
                taken: capture.map(|r| (r, to)),
                rook: None,
                moved: Bitboard::from_square(from) | Bitboard::from_square(to),
            },
            Move::EnPassant { from, to } => Made {
                from,
                to,
                role: Role::Pawn,
                put: Role::Pawn,
                taken: Some((
                    Role::Pawn,
                    Square::from_coords(to.file(), from.rank()),
                )),
                rook: None,
                moved: Bitboard::from_square(from) | Bitboard::from_square(to),
            },
            Move::Castle { king, rook } => {
                let side = CastlingSide::from_queen_side(rook < king);
                let to = side.king_to(self.turn);
                Made {
                    from: king,
                    to,
                    role: Role::King,
                    put: Role::King,
                    taken: None,
                    rook: Some((rook, side.rook_to(self.turn))),
                    moved: Bitboard::from_square(king)
                        | Bitboard::from_square(to),
                }
            }
            Move::Put { .. } => unreachable!("no drops in chess"),
        }
    }

    /// Makes the legal move `m`.
    #[inline(always)]
    pub fn play(&mut self, m: &Made) {
        let us = self.turn;
        let (from, to) =
            (Bitboard::from_square(m.from), Bitboard::from_square(m.to));
        self.colors[us as usize] ^= m.moved;
        self.roles[m.role as usize - 1] ^= from;
        self.roles[m.put as usize - 1] ^= to;
        // A rook with castling rights leaves or is taken.
        let mut touched = m.moved;
        if let Some((role, sq)) = m.taken {
            let taken = Bitboard::from_square(sq);
            self.colors[!us as usize] ^= taken;
            self.roles[role as usize - 1] ^= taken;
            touched |= taken;
        }
        if let Some((rook_from, rook_to)) = m.rook {
            let rook = Bitboard::from_square(rook_from)
                | Bitboard::from_square(rook_to);
            self.colors[us as usize] ^= rook;
            self.roles[Role::Rook as usize - 1] ^= rook;
        }
        self.castling &= !touched;
        if m.role == Role::King {
            self.castling &= !Bitboard::from_rank(us.backrank());
        }
        self.ep = None;
        if m.role == Role::Pawn && (m.from as u32).abs_diff(m.to as u32) == 16
        {
            self.ep = Some(Square::new((m.from as u32 + m.to as u32) / 2));
        }
        self.turn = !us;
    }

    /// The men of the side to move that give check once the legal move
    /// `m` is made (worked out before it is made: the man that moves, on
    /// its new square, and the men of its side on the lines it opens to
    /// the other king), as [`Pos::checkers`] would tell after it.
    #[inline(always)]
    pub fn checks_after(&self, m: &Made) -> Bitboard {
        let us = self.turn;
        let Some(king) = self.king_of(!us) else { return Bitboard::EMPTY };
        let occupied = self.occupied();
        let mut after = (occupied ^ Bitboard::from_square(m.from))
            | Bitboard::from_square(m.to);
        if let Some((rook_from, rook_to)) = m.rook {
            // The rook gives check, if any man does: the lines the king
            // and the rook leave hold no man of the other side (castling
            // is along the back rank, the corners closed).
            after = (after ^ Bitboard::from_square(rook_from))
                | Bitboard::from_square(rook_to);
            return if attacks::rook_attacks(rook_to, after).contains(king) {
                Bitboard::from_square(rook_to)
            } else {
                Bitboard::EMPTY
            };
        }
        let passed = match m.taken {
            Some((_, sq)) if sq != m.to => {
                after ^= Bitboard::from_square(sq);
                Some(sq)
            }
            _ => None,
        };
        let mut checks = Bitboard::EMPTY;
        if attacks_of(m.to, us, m.put, after).contains(king) {
            checks |= Bitboard::from_square(m.to);
        }
        let ours = self.by_color(us) & !Bitboard::from_square(m.from);
        checks |= self.opened(king, m.from, after, ours);
        if let Some(sq) = passed {
            checks |= self.opened(king, sq, after, ours);
        }
        checks
    }

    /// The men among `ours` (rooks, bishops, queens) that attack `king`
    /// along the line through `vacated`, with `after` the men on the
    /// board.
    #[inline(always)]
    fn opened(
        &self,
        king: Square,
        vacated: Square,
        after: Bitboard,
        ours: Bitboard,
    ) -> Bitboard {
        let line = attacks::ray(king, vacated);
        if line.is_empty() {
            return Bitboard::EMPTY;
        }
        let queens = self.by_role(Role::Queen);
        let straight = straight(king, vacated);
        let sliders = if straight {
            self.by_role(Role::Rook) | queens
        } else {
            self.by_role(Role::Bishop) | queens
        } & ours
            & line;
        if sliders.is_empty() {
            return Bitboard::EMPTY;
        }
        let reach = if straight {
            attacks::rook_attacks(king, after)
        } else {
            attacks::bishop_attacks(king, after)
        };
        reach & sliders
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
        let occupied = self.occupied();
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
    #[inline(always)]
    pub fn new(pos: &Pos, checkers: Bitboard) -> Guard {
        let king = pos.king_of(pos.turn);
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
#[inline(always)]
fn pinned(pos: &Pos, side: Color, king: Square, from: Square) -> bool {
    let line = attacks::ray(king, from);
    if line.is_empty() {
        return false;
    }
    let queens = pos.by_role(Role::Queen);
    let straight = straight(king, from);
    let sliders = if straight {
        pos.by_role(Role::Rook) | queens
    } else {
        pos.by_role(Role::Bishop) | queens
    } & pos.by_color(!side)
        & line;
    let occupied = pos.occupied();
    if sliders.is_empty() || (attacks::between(king, from) & occupied).any() {
        return false;
    }
    let reach = if straight {
        attacks::rook_attacks(from, occupied)
    } else {
        attacks::bishop_attacks(from, occupied)
    };
    (reach & sliders).any()
}

/// The squares of the men of the side to move that can make the move
/// (not castling) of `role` to `to` in `pos`, from a square of `from`,
/// legally: with the capture mark `capture` if it is given (for a pawn
/// it tells a push from a capture, given or not), with `promotion` where
/// a pawn reaches the last rank. What [`Position::san_candidates`]
/// finds, without making every legal move: the man must reach `to` on the
/// board (the attack tables) and, by `guard` (the guard of `pos`), go
/// where the checks allow, and stay on the line of a pin; a move of the
/// king, or en passant, is made on the bitboards, and the king must not
/// be attacked then.
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
    let side = pos.turn;
    let (us, them) = (pos.by_color(side), pos.by_color(!side));
    if us.contains(to) {
        return Bitboard::EMPTY;
    }
    let occupied = pos.occupied();
    let takes = them.contains(to);
    let mut froms = us & pos.by_role(role) & from;
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
            if takes {
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
        froms &= attacks_of(to, !side, role, occupied);
    }
    let Some(passed) = ep else {
        return legal_among(pos, guard, role, froms, to);
    };
    // En passant, made on the bitboards: the king must not be attacked
    // then.
    let Some(king) = guard.king else { return froms };
    let taken = Bitboard::from_square(passed);
    let mut legal = Bitboard::EMPTY;
    for from in froms {
        let after = (occupied ^ Bitboard::from_square(from) ^ taken)
            | Bitboard::from_square(to);
        if (pos.attacks_to(king, !side, after) & !taken).is_empty() {
            legal |= Bitboard::from_square(from);
        }
    }
    legal
}

/// The squares among `froms`, men of kind `role` of the side to move in
/// `pos` that reach `to` on the board (not a square of their own side's,
/// nor en passant), from which they go there legally: the king not
/// attacked on `to`, the man it takes (if any) gone; the other men
/// where the checks allow, by `guard` (the guard of `pos`), and along
/// the line of a pin.
#[inline(always)]
pub(super) fn legal_among(
    pos: &Pos,
    guard: &Guard,
    role: Role,
    froms: Bitboard,
    to: Square,
) -> Bitboard {
    let side = pos.turn;
    if role == Role::King {
        let Some(from) = froms.first() else { return Bitboard::EMPTY };
        let taken = Bitboard::from_square(to) & pos.by_color(!side);
        let after = (pos.occupied() ^ Bitboard::from_square(from))
            | Bitboard::from_square(to);
        return match (pos.attacks_to(to, !side, after) & !taken).is_empty() {
            true => froms,
            false => Bitboard::EMPTY,
        };
    }
    if !guard.targets.contains(to) {
        return Bitboard::EMPTY;
    }
    let mut legal = froms;
    if let Some(king) = guard.king {
        for from in froms {
            if !attacks::aligned(king, from, to)
                && pinned(pos, side, king, from)
            {
                legal.discard(from);
            }
        }
    }
    legal
}

/// Whether the side to move in `pos` has a legal move: quickly when its
/// king can step to a square no man of the other side attacks, else by
/// making every legal move.
pub(super) fn has_legal_move(pos: &Pos) -> bool {
    let side = pos.turn;
    if let Some(king) = pos.king_of(side) {
        let occupied = pos.occupied().without(king);
        let steps = attacks::king_attacks(king) & !pos.by_color(side);
        if steps
            .into_iter()
            .any(|to| pos.attacks_to(to, !side, occupied).is_empty())
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
    /// one, `Pos::checks_after` the men giving check after each legal
    /// move, and `Pos::play` and `Pos::checkers` agree with shakmaty's,
    /// in the positions of random games (pins, checks, double checks, en
    /// passant, promotions, castlings and the kings' own moves among
    /// them).
    #[test]
    fn legal_froms_agrees_with_shakmaty() {
        let mut rng = Rng::new(7);
        let (mut positions, mut ep, mut promotions, mut castles) =
            (0, 0, 0, 0);
        let mut double = 0;
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
                assert_eq!(&ours.board(), pos.board());
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
                for m in &legal {
                    let mut after = pos.clone();
                    after.play_unchecked(*m);
                    let made = ours.made(m);
                    assert_eq!(
                        made.moved,
                        Bitboard::from_square(made.from)
                            | Bitboard::from_square(made.to)
                    );
                    assert_eq!(
                        ours.checks_after(&made),
                        after.checkers(),
                        "{m}"
                    );
                    double += usize::from(after.checkers().more_than_one());
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
                ours.play(&ours.made(&m));
            }
        }
        assert!(
            positions > 6_000
                && ep > 10
                && promotions > 50
                && castles > 50
                && double > 10,
            "{positions} {ep} {promotions} {castles} {double}"
        );
    }
}
