//! Kriegspiel SAN (seed 002, III.B.1; FORMATS.md, Kriegspiel PGN
//! point 10): what may stand where a move is expected, and in a list of
//! illegal attempts.
//!
//! | form | syntax |
//! | --- | --- |
//! | castling | `O-O`, `O-O-O` (`0-0`, `0-0-0` too) |
//! | piece move | `[KQRBN][a-h]?[1-8]?x?[a-h][1-8]` |
//! | pawn move | `[a-h][1-8]` or `[a-h]x[a-h][1-8]`, `=[QRBN]` on the last rank |
//! | after a move, not an attempt | `+` or `#`, then `!` `?` `!!` `??` `!?` `?!` |
//!
//! Only the syntax is judged here; whether a move could be played is the
//! referee's business. A pawn move to the mover's last rank must name a
//! promotion; a promotion is allowed on either last rank (a black pawn
//! "promoting" on rank 8 is nonsense, which the referee judges, not bad
//! syntax) and nowhere else.
//!
//! Every move and every attempt of a game is checked, so the check is a
//! table-driven automaton: one lookup per byte.

use super::Side;

/// Whether `token` is a move by `side` in Kriegspiel SAN, with `+`/`#`
/// and a glyph after it allowed. With `side` `None` (a move in a
/// variation, whose side is not followed) a pawn on either last rank may
/// come without a promotion.
#[inline]
pub fn is_move(token: &[u8], side: Option<Side>) -> bool {
    let state = token.iter().fold(START, |s, &b| step(s, CLASS[b as usize]));
    accepts(state, side, true)
}

/// Whether `token` is an illegal attempt by `side`: Kriegspiel SAN with
/// no check mark and no glyph.
#[inline]
pub fn is_attempt(token: &[u8], side: Option<Side>) -> bool {
    let state = token.iter().fold(START, |s, &b| step(s, CLASS[b as usize]));
    accepts(state, side, false)
}

/// The end of the move (marks and glyphs included) that starts at
/// `bytes[i]`, running the automaton up to the first byte that cannot be
/// in SAN: `Ok` if the bytes up to there are a move by `side`, else
/// `Err` with that end. The caller looks at the byte there: a move must
/// not run into more symbol characters.
#[inline]
pub fn scan_move(
    bytes: &[u8],
    i: usize,
    side: Option<Side>,
) -> Result<usize, usize> {
    scan(bytes, i, side, true)
}

/// [`scan_move`] for an illegal attempt.
#[inline]
pub fn scan_attempt(
    bytes: &[u8],
    i: usize,
    side: Option<Side>,
) -> Result<usize, usize> {
    scan(bytes, i, side, false)
}

#[inline(always)]
fn scan(
    bytes: &[u8],
    start: usize,
    side: Option<Side>,
    marks: bool,
) -> Result<usize, usize> {
    if let Some(end) = quick(bytes, start) {
        return Ok(end);
    }
    let mut state = START;
    let mut end = start;
    for &b in &bytes[start..] {
        let class = CLASS[b as usize];
        if class == OTHER {
            break;
        }
        state = step(state, class);
        end += 1;
    }
    if accepts(state, side, marks) {
        Ok(end)
    } else {
        Err(end)
    }
}

/// The end of the usual shapes of a move or attempt that starts at
/// `bytes[i]`, which the automaton accepts for either side with or
/// without marks: a piece move `Nf3`, `Nxf3`, a pawn move `e4` or capture
/// `exd5` off the last ranks; each followed by a byte that is not in SAN,
/// where the automaton stops too. `None` for anything else, and for a
/// move that starts in the last four bytes: the automaton reads those.
#[inline(always)]
fn quick(bytes: &[u8], i: usize) -> Option<usize> {
    // The longest shape and the byte after it, in one bounds check.
    let w: &[u8; 5] = bytes.get(i..i + 5)?.try_into().ok()?;
    let at = |k: usize| CLASS[w[k] as usize];
    // Worked out without a branch on the shape, which the moves of a game
    // make as good as random: the target square's file is at `tf` and its
    // rank after it; a piece's target may be on any rank, a pawn's (which
    // would promote on the last ones) not on the first or last.
    let x = usize::from(at(1) == TAKES);
    let piece = matches!(at(0), PIECE | KING);
    let tf = if piece { 1 + x } else { 2 * x };
    let rank = at(tf + 1);
    let rank_ok = (rank == RANK) | (piece & matches!(rank, RANK1 | RANK8));
    let end = tf + 2;
    let ok = (piece | (at(0) == FILE))
        & (at(tf) == FILE)
        & rank_ok
        & (at(end) == OTHER);
    ok.then_some(i + end)
}

/// Whether the automaton accepts in `state` a move by `side` (with its
/// marks and glyphs if `marks`, else a bare attempt).
#[inline(always)]
fn accepts(state: u8, side: Option<Side>, marks: bool) -> bool {
    let column = match side {
        Some(Side::White) => 0,
        Some(Side::Black) => 1,
        None => 2,
    };
    ACCEPT[usize::from(marks)][column] & (1 << state) != 0
}

/// The automaton's next state: one lookup in a flat table, whose index
/// the mask keeps in bounds (states < 64, classes < 16).
#[inline(always)]
fn step(state: u8, class: u8) -> u8 {
    FLAT[(usize::from(state) << 4 | usize::from(class)) & 1023]
}

// Byte classes.
const OTHER: u8 = 0;
const FILE: u8 = 1; // a-h
const RANK: u8 = 2; // 2-7
const RANK1: u8 = 3; // 1
const RANK8: u8 = 4; // 8
const TAKES: u8 = 5; // x
const PIECE: u8 = 6; // Q R B N
const KING: u8 = 7; // K: a piece, but no promotion
const LETTER_O: u8 = 8; // O
const ZERO: u8 = 9; // 0
const DASH: u8 = 10; // -
const EQUALS: u8 = 11; // =
const CHECK: u8 = 12; // + #
const GLYPH: u8 = 13; // ! ?

const CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            b'a'..=b'h' => FILE,
            b'2'..=b'7' => RANK,
            b'1' => RANK1,
            b'8' => RANK8,
            b'x' => TAKES,
            b'K' => KING,
            b'Q' | b'R' | b'B' | b'N' => PIECE,
            b'O' => LETTER_O,
            b'0' => ZERO,
            b'-' => DASH,
            b'=' => EQUALS,
            b'+' | b'#' => CHECK,
            b'!' | b'?' => GLYPH,
            _ => OTHER,
        };
        b += 1;
    }
    t
};

// States. DEAD swallows everything.
const DEAD: u8 = 0;
const START: u8 = 1;
// Pawn moves: the target rank decides whether a promotion must follow
// (for which side), may follow, or may not.
const P_FILE: u8 = 2; // e
const P_TAKES: u8 = 3; // ex
const P_TAKES_FILE: u8 = 4; // exd
const PAWN: u8 = 5; // e4 (accepts)
const PAWN1: u8 = 6; // e1 (accepts but for Black)
const PAWN8: u8 = 7; // e8 (accepts but for White)
const P_EQUALS: u8 = 8; // e8=
const PROMOTED: u8 = 9; // e8=Q (accepts)
                        // Piece moves: after the letter, `[a-h]?[1-8]?x?[a-h][1-8]`.
const N: u8 = 10; // N
const N_F: u8 = 11; // Nb (source file, or target file)
const N_R: u8 = 12; // N1 (source rank)
const N_X: u8 = 13; // Nx, Nbx, N1x, Nb1x
const N_FR: u8 = 14; // Nf3 (target: accepts; or source square)
const N_TF: u8 = 15; // Nbd, N1d, Nxd, Nb1d (target file)
const PIECE_MOVE: u8 = 16; // Nbd7 ... (accepts)
                           // Castling, with letters or with zeros.
const O1: u8 = 17; // O
const O2: u8 = 18; // O-
const O_SHORT: u8 = 19; // O-O (accepts)
const O4: u8 = 20; // O-O-
const O_LONG: u8 = 21; // O-O-O (accepts)
const Z1: u8 = 22;
const Z2: u8 = 23;
const Z_SHORT: u8 = 24;
const Z4: u8 = 25;
const Z_LONG: u8 = 26;
// After a move: `+`/`#`, then one or two glyph bytes; kept apart after
// a pawn on rank 1 or 8 without promotion, which is a move for one side
// only.
const CHECKED: u8 = 27;
const GLYPH1: u8 = 28;
const GLYPH2: u8 = 29;
const CHECKED1: u8 = 30;
const GLYPH1_1: u8 = 31;
const GLYPH2_1: u8 = 32;
const CHECKED8: u8 = 33;
const GLYPH1_8: u8 = 34;
const GLYPH2_8: u8 = 35;
const STATES: usize = 36;

/// The states where a bare move ends, whoever moves.
const BARE: u64 = 1 << PAWN
    | 1 << PROMOTED
    | 1 << N_FR
    | 1 << PIECE_MOVE
    | 1 << O_SHORT
    | 1 << O_LONG
    | 1 << Z_SHORT
    | 1 << Z_LONG;
const MARKED: u64 = 1 << CHECKED | 1 << GLYPH1 | 1 << GLYPH2;
const MARKED1: u64 =
    1 << PAWN1 | 1 << CHECKED1 | 1 << GLYPH1_1 | 1 << GLYPH2_1;
const MARKED8: u64 =
    1 << PAWN8 | 1 << CHECKED8 | 1 << GLYPH1_8 | 1 << GLYPH2_8;

/// The accepting states: `[marks][side]`, side White, Black, either.
const ACCEPT: [[u64; 3]; 2] = [
    [BARE | 1 << PAWN1, BARE | 1 << PAWN8, BARE | 1 << PAWN1 | 1 << PAWN8],
    [
        BARE | MARKED | MARKED1,
        BARE | MARKED | MARKED8,
        BARE | MARKED | MARKED1 | MARKED8,
    ],
];

const FLAT: [u8; 1024] = {
    let mut t = [[DEAD; 16]; 64];
    // Marks and glyphs may follow every complete move.
    let mut s = 0;
    while s < STATES {
        if BARE & (1 << s) != 0 {
            t[s][CHECK as usize] = CHECKED;
            t[s][GLYPH as usize] = GLYPH1;
        }
        s += 1;
    }
    t[CHECKED as usize][GLYPH as usize] = GLYPH1;
    t[GLYPH1 as usize][GLYPH as usize] = GLYPH2;
    t[PAWN1 as usize][CHECK as usize] = CHECKED1;
    t[PAWN1 as usize][GLYPH as usize] = GLYPH1_1;
    t[CHECKED1 as usize][GLYPH as usize] = GLYPH1_1;
    t[GLYPH1_1 as usize][GLYPH as usize] = GLYPH2_1;
    t[PAWN8 as usize][CHECK as usize] = CHECKED8;
    t[PAWN8 as usize][GLYPH as usize] = GLYPH1_8;
    t[CHECKED8 as usize][GLYPH as usize] = GLYPH1_8;
    t[GLYPH1_8 as usize][GLYPH as usize] = GLYPH2_8;

    let ranks = [RANK, RANK1, RANK8];
    let pawn = [PAWN, PAWN1, PAWN8];
    let mut r = 0;
    while r < 3 {
        let rank = ranks[r] as usize;
        t[P_FILE as usize][rank] = pawn[r];
        t[P_TAKES_FILE as usize][rank] = pawn[r];
        t[N as usize][rank] = N_R;
        t[N_F as usize][rank] = N_FR;
        t[N_TF as usize][rank] = PIECE_MOVE;
        r += 1;
    }
    t[START as usize][FILE as usize] = P_FILE;
    t[START as usize][PIECE as usize] = N;
    t[START as usize][KING as usize] = N;
    t[START as usize][LETTER_O as usize] = O1;
    t[START as usize][ZERO as usize] = Z1;

    t[P_FILE as usize][TAKES as usize] = P_TAKES;
    t[P_TAKES as usize][FILE as usize] = P_TAKES_FILE;
    t[PAWN1 as usize][EQUALS as usize] = P_EQUALS;
    t[PAWN8 as usize][EQUALS as usize] = P_EQUALS;
    t[P_EQUALS as usize][PIECE as usize] = PROMOTED;

    t[N as usize][FILE as usize] = N_F;
    t[N as usize][TAKES as usize] = N_X;
    t[N_F as usize][FILE as usize] = N_TF;
    t[N_F as usize][TAKES as usize] = N_X;
    t[N_R as usize][FILE as usize] = N_TF;
    t[N_R as usize][TAKES as usize] = N_X;
    t[N_X as usize][FILE as usize] = N_TF;
    t[N_FR as usize][FILE as usize] = N_TF;
    t[N_FR as usize][TAKES as usize] = N_X;

    t[O1 as usize][DASH as usize] = O2;
    t[O2 as usize][LETTER_O as usize] = O_SHORT;
    t[O_SHORT as usize][DASH as usize] = O4;
    t[O4 as usize][LETTER_O as usize] = O_LONG;
    t[Z1 as usize][DASH as usize] = Z2;
    t[Z2 as usize][ZERO as usize] = Z_SHORT;
    t[Z_SHORT as usize][DASH as usize] = Z4;
    t[Z4 as usize][ZERO as usize] = Z_LONG;

    let mut flat = [DEAD; 1024];
    let mut s = 0;
    while s < 64 {
        let mut c = 0;
        while c < 16 {
            flat[s << 4 | c] = t[s][c];
            c += 1;
        }
        s += 1;
    }
    flat
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The grammar written out plainly, as the reference the automaton is
    /// checked against.
    fn reference(token: &str, side: Option<Side>, attempt: bool) -> bool {
        let t = token.as_bytes();
        let mut body = t;
        if !attempt {
            while let [rest @ .., b'!' | b'?'] = body {
                if t.len() - rest.len() > 2 {
                    return false;
                }
                body = rest;
            }
            if let [rest @ .., b'+' | b'#'] = body {
                body = rest;
            }
        }
        let file = |b: u8| (b'a'..=b'h').contains(&b);
        let rank = |b: u8| (b'1'..=b'8').contains(&b);
        let pawn = |to: u8, rest: &[u8]| {
            let last = match side {
                Some(Side::White) => to == b'8',
                Some(Side::Black) => to == b'1',
                None => false,
            };
            match rest {
                [] => !last,
                [b'=', b'Q' | b'R' | b'B' | b'N'] => to == b'1' || to == b'8',
                _ => false,
            }
        };
        match body {
            b"O-O" | b"O-O-O" | b"0-0" | b"0-0-0" => true,
            [f, r, rest @ ..] if file(*f) && rank(*r) => pawn(*r, rest),
            [f, b'x', g, r, rest @ ..] if file(*f) && file(*g) && rank(*r) => {
                pawn(*r, rest)
            }
            [b'K' | b'Q' | b'R' | b'B' | b'N', rest @ ..] => {
                let [head @ .., tf, tr] = rest else { return false };
                if !file(*tf) || !rank(*tr) {
                    return false;
                }
                let head = head.strip_suffix(b"x").unwrap_or(head);
                match head {
                    [] => true,
                    [a] => file(*a) || rank(*a),
                    [a, b] => file(*a) && rank(*b),
                    _ => false,
                }
            }
            _ => false,
        }
    }

    #[test]
    fn moves_of_every_form() {
        let white = Some(Side::White);
        for good in [
            "e4", "exd5", "Nf3", "Nbd7", "R1e2", "Qh4xe1", "Kxe2", "O-O",
            "O-O-O", "0-0", "0-0-0+", "Bxh5#", "Qh5+", "e4!", "e4??", "Nf3!?",
            "Rdf5+?!", "Nxe5", "Rbxb7", "e8=Q", "exd8=N+", "e1", "N1xd2",
        ] {
            assert!(is_move(good.as_bytes(), white), "{good}");
        }
        for bad in [
            "draw?", "hello", "Qxz9", "e9", "i4", "E4", "e4+++", "e4!!!",
            "Nf3?!?", "O-O-O-O", "0-O", "O-0-O", "Px", "Kx", "e8", "e5=Q",
            "exd", "Nf", "N", "x", "e4e5", "+", "Sf3", "e4 ", "e8=K", "ed5",
            "Nf3+#", "e4!+", "a2a3", "Nf3x", "Nxf", "", "??", "1-0", "e4=",
            "O", "O-", "Nbd7d", "Nb1x", "Nxxd4",
        ] {
            assert!(!is_move(bad.as_bytes(), white), "{bad}");
        }
    }

    #[test]
    fn promotions_belong_to_the_last_rank_of_the_mover() {
        let (white, black) = (Some(Side::White), Some(Side::Black));
        assert!(is_move(b"e8=Q", white));
        assert!(!is_move(b"e8", white));
        assert!(!is_move(b"exd8+", white));
        assert!(is_move(b"e1", white), "only syntax is judged");
        assert!(is_move(b"e1=Q", black));
        assert!(!is_move(b"e1", black));
        assert!(is_move(b"e8=Q", black), "nonsense, not syntax");
        assert!(is_move(b"e8", black));
        assert!(is_move(b"e8", None));
        assert!(is_move(b"e1=R#!", None));
        assert!(!is_move(b"e4=Q", None));
    }

    #[test]
    fn attempts_have_no_marks() {
        for a in ["exf4", "h5", "Qf7", "e7", "O-O", "e1=N", "Nbd2"] {
            assert!(is_attempt(a.as_bytes(), None), "{a}");
        }
        for a in ["Qf7+", "e4!", "Nf3#", "??", "", "3", "e4 "] {
            assert!(!is_attempt(a.as_bytes(), None), "{a}");
        }
    }

    /// The automaton agrees with the plain reading of the grammar on
    /// every token of up to four bytes from an alphabet of everything
    /// that matters, and on random longer ones.
    #[test]
    fn the_automaton_agrees_with_the_grammar() {
        let alphabet = b"ae148xNKO0-=Q+#!?z";
        let mut tokens = vec![String::new()];
        let mut last = tokens.clone();
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|t| {
                    alphabet.iter().map(move |&b| format!("{t}{}", b as char))
                })
                .collect();
            tokens.extend(last.iter().cloned());
        }
        let mut rng = crate::testing::Rng::new(11);
        for _ in 0..100_000 {
            let len = 5 + rng.below(4);
            let t: String = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())] as char)
                .collect();
            tokens.push(t);
        }
        for t in &tokens {
            for side in [None, Some(Side::White), Some(Side::Black)] {
                let b = t.as_bytes();
                let (moves, attempt) =
                    (reference(t, side, false), reference(t, side, true));
                assert_eq!(is_move(b, side), moves, "{t} {side:?}");
                assert_eq!(is_attempt(b, side), attempt, "{t} {side:?}");
                // Scanning it from its start, with a separator and more
                // after it (enough for the quick reading).
                let with_end = format!("{t}, x}}");
                let whole = t.bytes().all(|b| CLASS[b as usize] != OTHER);
                let scanned = scan_move(with_end.as_bytes(), 0, side);
                assert_eq!(scanned == Ok(t.len()), moves && whole, "{t}");
                let scanned = scan_attempt(with_end.as_bytes(), 0, side);
                assert_eq!(scanned == Ok(t.len()), attempt && whole, "{t}");
                // And at the end of the bytes, after others.
                let at_end = format!("x {t}");
                let scanned = scan_move(at_end.as_bytes(), 2, side);
                assert_eq!(scanned == Ok(at_end.len()), moves && whole, "{t}");
                let scanned = scan_attempt(at_end.as_bytes(), 2, side);
                assert_eq!(
                    scanned == Ok(at_end.len()),
                    attempt && whole,
                    "{t}"
                );
            }
        }
    }
}
