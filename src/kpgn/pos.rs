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
}

/// A position of chess, as the referee keeps it.
#[derive(Clone, Debug)]
pub(super) struct Pos {
    /// The men of each kind (`Role as usize - 1`), of both sides.
    roles: [Bitboard; 6],
    /// The men of the side to move, and of the other side: named by the
    /// turn, not by the colour, so that a move reads and writes them
    /// without looking at its side.
    us: Bitboard,
    them: Bitboard,
    pub turn: Color,
    /// The rooks whose side may still castle (on a1, h1, a8, h8, their
    /// king on its own square).
    pub castling: Bitboard,
    /// The square a pawn passed in a double step just made (whether or
    /// not a pawn could take it en passant), or none: a bitboard of one
    /// square or empty, so that a move sets it without a branch.
    pub ep: Bitboard,
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

/// `men` if `b`, else none: a choice made without a branch (the compiler
/// is told that `b` is unpredictable, so that it neither branches nor
/// skips the loading of `men`).
#[inline(always)]
pub(super) fn when(b: bool, men: Bitboard) -> Bitboard {
    std::hint::select_unpredictable(b, men, Bitboard::EMPTY)
}

/// The castling rights (the rooks' squares) that a man leaving `sq`
/// takes away: a rook's own, both of a side when its king leaves its
/// square. (A side that may castle has its king on its own square, so a
/// king moving from elsewhere takes none.)
const CASTLING_LOST: [Bitboard; 64] = {
    let mut lost = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        lost[sq] = Bitboard(1 << sq);
        sq += 1;
    }
    lost[Square::E1 as usize] = Bitboard(1 << 0 | 1 << 7);
    lost[Square::E8 as usize] = Bitboard(1 << 56 | 1 << 63);
    lost
};

/// What a pawn's moves need of its side.
struct Sided {
    /// A rank forward and back: a rotation of a bitboard (what wraps round
    /// the board is never a pawn's square).
    ahead: u32,
    behind: u32,
    /// The rank its pawns start on, the rank they promote on.
    start: Bitboard,
    last: Bitboard,
    /// The squares from which a pawn of the side takes on each square.
    pawn_from: [Bitboard; 64],
}

/// [`Sided`] for Black and White (`Color as usize`).
const SIDED: [Sided; 2] = {
    const fn sided(side: Color) -> Sided {
        let mut pawn_from = [Bitboard::EMPTY; 64];
        let mut sq = 0;
        while sq < 64 {
            pawn_from[sq] =
                attacks::pawn_attacks(side.other(), Square::new(sq as u32));
            sq += 1;
        }
        let white = matches!(side, Color::White);
        Sided {
            ahead: if white { 8 } else { 56 },
            behind: if white { 56 } else { 8 },
            start: Bitboard(if white { 0xff00 } else { 0xff << 48 }),
            last: Bitboard(if white { 0xff << 56 } else { 0xff }),
            pawn_from,
        }
    }
    [sided(Color::Black), sided(Color::White)]
};

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
            us: board.by_color(pos.turn()),
            them: board.by_color(!pos.turn()),
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
            ep: pos.maybe_ep_square().into_iter().collect(),
        }
    }

    /// The men as shakmaty's board.
    pub fn board(&self) -> Board {
        let [pawn, knight, bishop, rook, queen, king] = self.roles;
        Board::try_from_bitboards(
            ByRole { pawn, knight, bishop, rook, queen, king },
            ByColor {
                black: self.by_color(Color::Black),
                white: self.by_color(Color::White),
            },
        )
        .expect("bitboards kept consistent")
    }

    /// The position as shakmaty's (its clocks aside).
    pub fn chess(&self) -> Chess {
        let mut setup = Setup::empty();
        setup.board = self.board();
        setup.turn = self.turn;
        setup.castling_rights = self.castling;
        setup.ep_square = self.ep.first();
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
        if color == self.turn {
            self.us
        } else {
            self.them
        }
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
        self.us | self.them
    }

    /// The square of the king of `color` (a position has one of each:
    /// shakmaty's made sure of the first, and a king is never taken).
    #[inline(always)]
    pub fn king_of(&self, color: Color) -> Option<Square> {
        self.by_piece(color, Role::King).first()
    }

    /// The square of the king of the side to move.
    #[inline(always)]
    pub fn our_king(&self) -> Option<Square> {
        (self.by_role(Role::King) & self.us).first()
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
        self.attackers(sq, self.by_color(attacker), attacker, occupied)
    }

    /// The men among `men` (of `attacker`) that attack `sq`, with
    /// `occupied` the men on the board.
    #[inline(always)]
    fn attackers(
        &self,
        sq: Square,
        men: Bitboard,
        attacker: Color,
        occupied: Bitboard,
    ) -> Bitboard {
        let queens = self.by_role(Role::Queen);
        men & ((attacks::rook_attacks(sq, occupied)
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
        match self.our_king() {
            Some(king) => {
                self.attackers(king, self.them, !self.turn, self.occupied())
            }
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
        self.us ^= from | to;
        self.roles[m.role as usize - 1] ^= from;
        self.roles[m.put as usize - 1] ^= to;
        // A rook with castling rights leaves or is taken.
        let mut touched = from | to;
        if let Some((role, sq)) = m.taken {
            let taken = Bitboard::from_square(sq);
            self.them ^= taken;
            self.roles[role as usize - 1] ^= taken;
            touched |= taken;
        }
        if let Some((rook_from, rook_to)) = m.rook {
            let rook = Bitboard::from_square(rook_from)
                | Bitboard::from_square(rook_to);
            self.us ^= rook;
            self.roles[Role::Rook as usize - 1] ^= rook;
        }
        self.castling &= !(CASTLING_LOST[m.from as usize] | touched);
        self.ep = Bitboard::EMPTY;
        if m.role == Role::Pawn && (m.from as u32).abs_diff(m.to as u32) == 16
        {
            self.ep = Bitboard::from_square(Square::new(
                (m.from as u32 + m.to as u32) / 2,
            ));
        }
        std::mem::swap(&mut self.us, &mut self.them);
        self.turn = !us;
    }

    /// Makes the move of a man of kind `role` of the side to move to
    /// `to`, from a square among `from` (what its file and rank written
    /// leave), with `capture` as written (for a pawn, whether it goes
    /// diagonally) and `promotion`, where exactly one man can go there on
    /// the board and the move is legal: then the square of the man it took
    /// (empty if none; en passant, the pawn's square). `None` for anything
    /// else (among it, two men that reach `to`, one of them pinned), which
    /// [`legal_froms`] then tells; the position is then left as it was if
    /// no man or more than one could go there, and in no useful state if
    /// the one that could may not (the caller keeps a copy).
    ///
    /// Without a branch on the kind of man, the capture or the checks:
    /// the men that could come to `to` are read from the attack tables of
    /// every kind and the kind's picked, the move is made on the
    /// bitboards, and it is legal when no man of the other side attacks
    /// the king then.
    #[inline(always)]
    pub fn quick_move(
        &mut self,
        role: Role,
        from: Bitboard,
        capture: bool,
        to: Square,
        promotion: Option<Role>,
    ) -> Option<Bitboard> {
        let side = self.turn;
        let (us, them) = (self.us, self.them);
        let occupied = us | them;
        let target = Bitboard::from_square(to);
        let takes = them.contains(to);
        let pawn = role == Role::Pawn;
        let sided = &SIDED[side as usize];
        let one = Bitboard(target.0.rotate_left(sided.behind));
        let two = Bitboard((one & !occupied).0.rotate_left(sided.behind))
            & sided.start;
        let pushes = when(!capture & !takes, one | two);
        let diagonal = when(
            capture & (them | self.ep).contains(to),
            sided.pawn_from[to as usize],
        );
        let rook = attacks::rook_attacks(to, occupied);
        let bishop = attacks::bishop_attacks(to, occupied);
        let reach = [
            pushes | diagonal,
            attacks::knight_attacks(to),
            bishop,
            rook,
            rook | bishop,
            attacks::king_attacks(to),
        ][role as usize - 1];
        // A pawn promotes on the last rank, and only there; another man's
        // capture mark tells whether it takes.
        let last = sided.last.contains(to);
        let rules = (pawn & (last == promotion.is_some()))
            | (!pawn & (capture == takes) & promotion.is_none());
        let froms = when(
            rules & !us.contains(to),
            us & self.by_role(role) & from & reach,
        );
        if froms.is_empty() || froms.more_than_one() {
            return None;
        }
        let passed = when(pawn & capture & self.ep.contains(to), one);
        let taken = (them & target) | passed;
        let kept = !(froms | taken);
        for men in &mut self.roles {
            *men &= kept;
        }
        self.roles[promotion.unwrap_or(role) as usize - 1] |= target;
        let us = us ^ froms ^ target;
        let them = them & !taken;
        let lost = CASTLING_LOST[froms.0.trailing_zeros() as usize & 63];
        self.castling &= !(lost | target);
        self.ep = when(pawn, Bitboard(froms.0.rotate_left(sided.ahead)) & one);
        self.turn = !side;
        (self.us, self.them) = (them, us);
        let king = (self.by_role(Role::King) & us).first()?;
        if self.attackers(king, them, !side, us | them).any() {
            return None;
        }
        Some(taken)
    }

    /// Whether the man of kind `role` of the side to move on `from` may go
    /// to `to`, which it reaches on the board and where no man of its side
    /// stands: whether its king is then out of every attack.
    #[inline(always)]
    pub fn may_go(&self, role: Role, from: Square, to: Square) -> bool {
        let target = Bitboard::from_square(to);
        let them = self.them & !target;
        let occupied =
            (self.occupied() ^ Bitboard::from_square(from)) | target;
        let king = match role {
            Role::King => Some(to),
            _ => self.our_king(),
        };
        king.is_none_or(|king| {
            self.attackers(king, them, !self.turn, occupied).is_empty()
        })
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

impl Pos {
    /// Whether neither side has the men to mate: the draw by
    /// insufficient material of the Berkeley referee ks-game, which asks
    /// python-chess's `is_insufficient_material` (shakmaty's is the same
    /// rule): no pawn, rook or queen, and either one knight and the two
    /// kings alone, or no knight and every bishop on squares of one
    /// colour (none at all: the kings alone).
    ///
    /// Cheap in the usual position, which has a pawn, a rook or a queen:
    /// the referee asks it after every move.
    #[inline(always)]
    pub fn insufficient_material(&self) -> bool {
        let heavy = self.by_role(Role::Pawn)
            | self.by_role(Role::Rook)
            | self.by_role(Role::Queen);
        heavy.is_empty() && self.minor_men_only_drawn()
    }

    /// [`Pos::insufficient_material`] of a position that has no pawn,
    /// rook or queen.
    #[cold]
    #[inline(never)]
    fn minor_men_only_drawn(&self) -> bool {
        if self.by_role(Role::Knight).any() {
            return self.occupied().count() <= 3;
        }
        let bishops = self.by_role(Role::Bishop);
        (bishops & Bitboard::DARK_SQUARES).is_empty()
            || (bishops & Bitboard::LIGHT_SQUARES).is_empty()
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
                if !pos.ep.contains(to) {
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
        return match pos.may_go(Role::King, from, to) {
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

    /// `Pos::insufficient_material` agrees with shakmaty's (python-chess's
    /// rule, which ks-game's referee asks) on every mix of up to four men
    /// beside the kings: knights and bishops of both sides on squares of
    /// both colours, and a pawn, rook or queen among them.
    #[test]
    fn insufficient_material_agrees_with_shakmaty() {
        use shakmaty::{Piece, Setup};
        let mut rng = Rng::new(11);
        let roles = [Role::Knight, Role::Bishop, Role::Bishop, Role::Knight];
        let others = [Role::Pawn, Role::Rook, Role::Queen];
        let (mut positions, mut drawn) = (0, 0);
        while positions < 20_000 {
            let mut board = Board::empty();
            board.set_piece_at(Square::A1, Color::White.king());
            board.set_piece_at(Square::H8, Color::Black.king());
            for _ in 0..rng.below(5) {
                let color = [Color::White, Color::Black][rng.below(2)];
                let role = match rng.below(12) {
                    0 => others[rng.below(3)],
                    _ => roles[rng.below(4)],
                };
                // Off the first and last ranks, for the pawns.
                let sq = Square::new(8 + rng.below(48) as u32);
                if board.piece_at(sq).is_none() {
                    board.set_piece_at(sq, Piece { color, role });
                }
            }
            let mut setup = Setup::empty();
            setup.board = board;
            let Ok(pos) = Chess::from_setup(setup, CastlingMode::Standard)
            else {
                continue;
            };
            positions += 1;
            let want = pos.is_insufficient_material();
            drawn += usize::from(want);
            assert_eq!(
                Pos::from_chess(&pos).insufficient_material(),
                want,
                "{}",
                Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
            );
        }
        assert!(drawn > 2_000 && drawn < 18_000, "{drawn}");
    }

    /// `legal_froms` finds the squares that shakmaty's legal moves come
    /// from, for every kind of man, every square and every capture mark,
    /// `Pos::quick_move` makes the move when there is one (the position
    /// after it, the man taken, the men giving check then) or leaves it,
    /// `Pos::may_go` tells which men that reach a square may go there,
    /// `Pos::castle` its castlings, `has_legal_move` whether there is
    /// one, and `Pos::play` and `Pos::checkers` agree with shakmaty's,
    /// in the positions of random games (pins, checks, double checks, en
    /// passant, promotions, castlings and the kings' own moves among
    /// them).
    #[test]
    fn legal_froms_agrees_with_shakmaty() {
        let mut rng = Rng::new(7);
        let (mut positions, mut ep, mut promotions, mut castles) =
            (0, 0, 0, 0);
        let mut double = 0;
        // Moves made by quick_move, and moves it left though legal_froms
        // found one (two men reach the square, one of them pinned).
        let (mut quick, mut left) = (0, 0);
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
                            let fen = Fen::from_position(
                                &pos,
                                shakmaty::EnPassantMode::Always,
                            );
                            assert_eq!(
                                got, want,
                                "{fen} {role:?} to {to} {capture:?}"
                            );
                            let Some(capture) = capture else { continue };
                            let mut next = ours.clone();
                            let made = next.quick_move(
                                role,
                                Bitboard::FULL,
                                capture,
                                to,
                                promotion,
                            );
                            let Some(taken) = made else {
                                left += usize::from(want.count() == 1);
                                continue;
                            };
                            quick += 1;
                            let from = want.single_square();
                            let m = legal
                                .iter()
                                .find(|m| {
                                    m.role() == role
                                        && m.to() == to
                                        && m.from() == from
                                        && !m.is_castle()
                                        && m.promotion() == promotion
                                })
                                .unwrap_or_else(|| {
                                    panic!(
                                        "{fen} {role:?} to {to} {capture:?}"
                                    )
                                });
                            let mut after = pos.clone();
                            after.play_unchecked(*m);
                            let taken_at = match *m {
                                Move::EnPassant { from, to } => {
                                    Some(Square::from_coords(
                                        to.file(),
                                        from.rank(),
                                    ))
                                }
                                _ if m.is_capture() => Some(to),
                                _ => None,
                            };
                            assert_eq!(next.chess(), after, "{fen} {m}");
                            assert_eq!(&next.board(), after.board());
                            assert_eq!(next.ep, Pos::from_chess(&after).ep);
                            assert_eq!(
                                next.castling,
                                after.castles().castling_rights()
                            );
                            assert_eq!(
                                taken,
                                taken_at.into_iter().collect::<Bitboard>(),
                                "{fen} {m}"
                            );
                            assert_eq!(
                                next.checkers(),
                                after.checkers(),
                                "{fen} {m}"
                            );
                        }
                    }
                }
                for role in [
                    Role::Knight,
                    Role::Bishop,
                    Role::Rook,
                    Role::Queen,
                    Role::King,
                ] {
                    let (side, other) = (ours.turn, !ours.turn);
                    let men = ours.by_piece(side, role);
                    for to in Square::ALL {
                        if ours.by_color(side).contains(to) {
                            continue;
                        }
                        let reach =
                            men & attacks_of(to, other, role, ours.occupied());
                        let may: Bitboard = reach
                            .into_iter()
                            .filter(|&from| ours.may_go(role, from, to))
                            .collect();
                        let want = legal_froms(
                            &ours,
                            &guard,
                            role,
                            Bitboard::FULL,
                            None,
                            to,
                            None,
                        );
                        assert_eq!(may, want, "{role:?} to {to}");
                    }
                }
                for m in &legal {
                    let mut after = pos.clone();
                    after.play_unchecked(*m);
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
                && double > 10
                && quick > 100_000
                && left * 1000 < quick,
            "{positions} {ep} {promotions} {castles} {double} {quick} {left}"
        );
    }
}
