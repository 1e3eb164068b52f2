//! Planted faults (issue 14): kpgn-check must catch every kind of fault a
//! Kriegspiel record can hold, at the line where it stands.
//!
//! Each case takes one of the 3,000 refereed games of
//! `tests/data/kpgn/ksgame.pgn` (made with the Berkeley referee ks-game,
//! see `tests/gen/README.md`), replays it with shakmaty, and plants one
//! fault in a copy of that game alone, at a ply chosen by a seeded
//! generator among those where the fault can be made. Every kind is
//! planted in every game that has a ply for it, some in several variants
//! (the rows of the table). No mutation adds or removes a line end, so
//! every line keeps its number. The kinds, and the line where each is
//! first visible (the "right line"):
//!
//! - a capture square moved (`Xe5` to another square; for en passant
//!   also to the target square, the usual slip), a capture announced
//!   where none happened, a capture left out, a check code left out, a
//!   check code added (to a move giving no check, or a second one to a
//!   single check), a check code of the wrong kind (each of `F`, `R`,
//!   `L`, `S`, `N` written as another letter), one `C` code of a double
//!   check lost: the line of that move's Kriegspiel comment, since the
//!   move itself is still legal and rightly marked;
//! - a capture or a check left out with the whole comment: the line of
//!   the move's SAN, since a move with no comment announced nothing;
//! - a legal move put among the illegal attempts (one of each sort of
//!   move the game offers: castling, en passant, promotion, a piece's
//!   capture written without `x`, ...): the line of the comment. The
//!   attempts were tried before the move was played, so they are the
//!   first thing wrong in that ply;
//! - an illegal move played (a move of the mover's own view, in
//!   Kriegspiel SAN, that is illegal in the true position: blocked,
//!   nothing to take, into check, castling not allowed, or one of that
//!   ply's own attempts) and `+` or `#` wrong (added, removed, one for
//!   the other): the line of the move's SAN;
//! - a Result contradicting a mate (or a stalemate) on the board: the
//!   line of the Result tag when it was changed, else of the termination
//!   marker (`*` is not planted: FORMATS.md judges only `1-0`, `0-1`
//!   and `1/2-1/2`);
//! - two moves of one side swapped, plies k and k+2: their SANs alone
//!   (the scoresheet has the moves in the wrong order, while what the
//!   referee announced and what was tried stay where they happened), or
//!   their SANs with their comments. The right line is that of the first
//!   thing an exact replay finds wrong, ply by ply, each ply in the order
//!   it happened: its attempts (the comment's line), its move and mark
//!   (the SAN's line), its announcements (the comment's line). A swap
//!   that leaves a game that could have happened (two moves that
//!   commute, with the same announcements) is no fault: it is counted
//!   apart, and the referee must pass it.
//!
//! Every mutated game is judged first by an oracle of this file (its own
//! reading of the text; shakmaty's SAN and move generation; check codes
//! by walking the diagonals) by FORMATS.md, Kriegspiel PGN point 12: it
//! must find a fault, at the planned line (for swaps it gives the line).
//! Then the referee (`kpgn::check_reader`) must fail the game, write
//! nothing, and name that line in its first error; the game unchanged
//! must pass. Last, one case of each game is planted in place and the
//! games read as one input, so that the lines are counted across the
//! reader's blocks. The table of the cases per kind goes to stderr:
//! `cargo test --test integration kpgn_check_faults -- --nocapture`.
//!
//! By default one game in six is used, to keep a debug build's run
//! short; `KPGN_FAULTS_ALL=1` uses all 3,000.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;

use chesspipe::diag::{Diagnostic, Severity};
use chesspipe::kpgn::{check_reader, CheckConfig};
use shakmaty::san::{San, SanError, SanPlus, Suffix};
use shakmaty::{
    attacks, CastlingSide, Chess, Color, EnPassantMode, File, Move, Position,
    Rank, Role, Square,
};

use crate::util::repo_file;

/// One game in how many is used without `KPGN_FAULTS_ALL`.
const SAMPLE: usize = 6;

// ---- reading the corpus ----

/// Where a token stands in a game's text: its line (counted from 0 at
/// the game's first line) and its bytes in that line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Spot {
    line: usize,
    start: usize,
    end: usize,
}

/// One half-move as written.
#[derive(Clone, Debug)]
struct PlyText {
    san: String,
    san_at: Spot,
    /// The announcements (`Xe5`, `CS`) and the attempts, in the order
    /// written.
    codes: Vec<String>,
    attempts: Vec<String>,
    /// Where the Kriegspiel comment stands (the SAN's spot if none).
    comment_at: Spot,
}

/// A game as written: its lines, the Result tag's value, the plies and
/// the termination marker.
#[derive(Clone, Debug)]
struct Record {
    lines: Vec<String>,
    result: Option<(String, Spot)>,
    plies: Vec<PlyText>,
    marker: Option<(String, Spot)>,
}

impl Record {
    /// The game's text with `edits` made (each replaces a spot's bytes;
    /// none holds a line end, so every line keeps its number).
    fn edited(&self, edits: &[(Spot, String)]) -> String {
        let mut lines = self.lines.clone();
        let mut edits = edits.to_vec();
        edits.sort_by_key(|(at, _)| (at.line, at.start));
        for (at, text) in edits.iter().rev() {
            lines[at.line].replace_range(at.start..at.end, text);
        }
        let mut text = lines.join("\n");
        text.push('\n');
        text
    }
}

/// The corpus's games, each as its lines and the number of its first
/// line in the file.
fn corpus() -> Vec<(u64, Vec<String>)> {
    let path = repo_file("tests/data/kpgn/ksgame.pgn");
    let text = fs::read_to_string(path).expect("read the corpus");
    let mut games: Vec<(u64, Vec<String>)> = vec![];
    for (n, line) in text.lines().enumerate() {
        if line.starts_with("[Event ") {
            games.push((n as u64 + 1, vec![]));
        }
        if let Some((_, lines)) = games.last_mut() {
            lines.push(line.to_string());
        }
    }
    for (_, lines) in &mut games {
        while lines.last().is_some_and(|l| l.trim().is_empty()) {
            lines.pop();
        }
    }
    games
}

/// Reads a game of the corpus's layout: tag lines, then movetext of move
/// numbers, SAN, `{(codes:attempts)}` comments and a termination marker.
fn read_record(text: &str) -> Record {
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut record =
        Record { lines: vec![], result: None, plies: vec![], marker: None };
    for (n, line) in lines.iter().enumerate() {
        if line.starts_with('[') {
            if line.starts_with("[Result ") {
                let start = line.find('"').expect("a tag value") + 1;
                let end = line.rfind('"').expect("a tag value");
                let at = Spot { line: n, start, end };
                record.result = Some((line[start..end].to_string(), at));
            }
            continue;
        }
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i].is_ascii_whitespace() {
                i += 1;
                continue;
            }
            let start = i;
            if bytes[i] == b'{' {
                i = start + line[start..].find('}').expect("a closed comment");
                i += 1;
            } else {
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && bytes[i] != b'{'
                {
                    i += 1;
                }
            }
            let token = &line[start..i];
            let at = Spot { line: n, start, end: i };
            if let Some(inner) = token.strip_prefix("{(") {
                let inner = inner.strip_suffix(")}").expect("a K comment");
                let (codes, attempts) =
                    inner.split_once(':').expect("a K comment");
                let ply = record.plies.last_mut().expect("a move before");
                ply.codes = list(codes);
                ply.attempts = list(attempts);
                ply.comment_at = at;
            } else if ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) {
                record.marker = Some((token.to_string(), at));
            } else if !token.ends_with('.') {
                record.plies.push(PlyText {
                    san: token.to_string(),
                    san_at: at,
                    codes: vec![],
                    attempts: vec![],
                    comment_at: at,
                });
            }
        }
    }
    record.lines = lines;
    record
}

/// A comma-separated list, empty for no text.
fn list(text: &str) -> Vec<String> {
    text.split(',').filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// A Kriegspiel comment as the corpus writes it.
fn comment(codes: &[String], attempts: &[String]) -> String {
    format!("{{({}:{})}}", codes.join(","), attempts.join(","))
}

// ---- the oracle ----

/// The check mark a move carries or should carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    None,
    Check,
    Mate,
}

/// The mark of a move that led to `after`.
fn mark_of(after: &Chess) -> Mark {
    if after.is_checkmate() {
        Mark::Mate
    } else if after.is_check() {
        Mark::Check
    } else {
        Mark::None
    }
}

/// The played move a SAN names in `pos`, and its mark, or why none.
fn played(pos: &Chess, san: &str) -> Result<(Move, Mark), String> {
    let plus = SanPlus::from_ascii(san.as_bytes())
        .map_err(|_| format!("{san} is no SAN"))?;
    let mark = match plus.suffix {
        None => Mark::None,
        Some(Suffix::Check) => Mark::Check,
        Some(Suffix::Checkmate) => Mark::Mate,
    };
    match plus.san.to_move(pos) {
        Ok(m) => Ok((m, mark)),
        Err(e) => Err(format!("{san}: {e}")),
    }
}

/// Whether an attempt names a legal move of `pos` (a piece's attempt is
/// written without its capture mark, a pawn's with it).
fn attempt_is_legal(pos: &Chess, attempt: &str) -> bool {
    let san = San::from_ascii(attempt.as_bytes()).expect("an attempt");
    let legal = |san: San| {
        matches!(san.to_move(pos), Ok(_) | Err(SanError::AmbiguousSan))
    };
    match san {
        San::Normal { role, file, rank, to, promotion, .. }
            if role != Role::Pawn =>
        {
            [false, true].into_iter().any(|capture| {
                legal(San::Normal { role, file, rank, capture, to, promotion })
            })
        }
        _ => legal(san),
    }
}

/// The square of the man `m` takes: the pawn's for en passant.
fn taken(m: &Move) -> Option<Square> {
    match *m {
        Move::EnPassant { from, to } => {
            Some(Square::from_coords(to.file(), from.rank()))
        }
        _ if m.is_capture() => Some(m.to()),
        _ => None,
    }
}

/// How many squares the diagonal through `king` in direction
/// (`df`, `dr`) holds, walked square by square both ways.
fn diagonal_length(king: Square, df: i32, dr: i32) -> usize {
    let mut n = 1;
    for sign in [1, -1] {
        let mut sq = king;
        while let Some(next) = sq
            .offset(sign * (dr * 8 + df))
            .filter(|s| (s.file() as i32 - sq.file() as i32).abs() == 1)
        {
            n += 1;
            sq = next;
        }
    }
    n
}

/// The check codes of the side to move in `pos`, sorted.
fn check_letters(pos: &Chess) -> Vec<char> {
    let board = pos.board();
    let king = board.king_of(pos.turn()).expect("a king");
    let mut letters: Vec<char> = pos
        .checkers()
        .into_iter()
        .map(|from| {
            let df = from.file() as i32 - king.file() as i32;
            let dr = from.rank() as i32 - king.rank() as i32;
            if board.role_at(from) == Some(Role::Knight) {
                'N'
            } else if df == 0 {
                'F'
            } else if dr == 0 {
                'R'
            } else {
                let (df, dr) = (df.signum(), dr.signum());
                let along = diagonal_length(king, df, dr);
                let across = diagonal_length(king, df, -dr);
                assert_ne!(along, across);
                if along > across {
                    'L'
                } else {
                    'S'
                }
            }
        })
        .collect();
    letters.sort_unstable();
    letters
}

/// Whether the announcements written are exactly those of the move:
/// `X<square>` first if it took a man, then one `C` code per checker.
fn codes_right(
    codes: &[String],
    taken: Option<Square>,
    after: &Chess,
) -> bool {
    let (x, c) = match codes.first() {
        Some(first) if first.starts_with('X') => {
            (Some(&first[1..]), &codes[1..])
        }
        _ => (None, codes),
    };
    let mut letters = vec![];
    for code in c {
        match code.strip_prefix('C') {
            Some(l) if l.len() == 1 => letters.push(l.as_bytes()[0] as char),
            _ => return false,
        }
    }
    letters.sort_unstable();
    x.map(str::to_string) == taken.map(|s| s.to_string())
        && letters == check_letters(after)
}

/// The first fault of a record by FORMATS.md point 12 (unfiltered, from
/// the standard position): its line (counted from 0) and what it is.
/// Each ply is judged in the order it happened: its attempts, its move
/// and mark, its announcements.
fn first_fault(record: &Record) -> Option<(usize, String)> {
    let mut pos = Chess::default();
    for (i, ply) in record.plies.iter().enumerate() {
        let fault = |at: Spot, what: String| {
            Some((at.line, format!("ply {}, {}: {what}", i + 1, ply.san)))
        };
        for a in &ply.attempts {
            if attempt_is_legal(&pos, a) {
                return fault(ply.comment_at, format!("attempt {a} is legal"));
            }
        }
        let (m, mark) = match played(&pos, &ply.san) {
            Ok(found) => found,
            Err(why) => return fault(ply.san_at, why),
        };
        let x = taken(&m);
        pos.play_unchecked(m);
        if mark_of(&pos) != mark {
            return fault(ply.san_at, "wrong mark".into());
        }
        if !codes_right(&ply.codes, x, &pos) {
            return fault(ply.comment_at, "wrong announcements".into());
        }
    }
    let want = if pos.is_checkmate() {
        Some(if pos.turn() == Color::White { "0-1" } else { "1-0" })
    } else if pos.is_stalemate() {
        Some("1/2-1/2")
    } else {
        None
    };
    let want = want?;
    for (written, at) in [&record.result, &record.marker].into_iter().flatten()
    {
        if written != want {
            return Some((at.line, format!("result {written}, not {want}")));
        }
    }
    None
}

// ---- moves on the mover's own view ----

/// A move as its mover sees it on a board of its own men alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ViewMove {
    Castle(CastlingSide),
    Move { role: Role, from: Square, to: Square, promotion: Option<Role> },
}

impl ViewMove {
    /// The own-view move a legal move is.
    fn of(m: &Move) -> ViewMove {
        match m.castling_side() {
            Some(side) => ViewMove::Castle(side),
            None => ViewMove::Move {
                role: m.role(),
                from: m.from().expect("no drop"),
                to: m.to(),
                promotion: m.promotion(),
            },
        }
    }
}

/// The moves that look possible to the side to move on its own men:
/// a piece's rays stop only at its own men, a pawn may take on any
/// diagonal square free of them, castling needs its right and no own
/// man between king and rook.
fn view_moves(pos: &Chess) -> Vec<ViewMove> {
    let board = pos.board();
    let side = pos.turn();
    let own = board.by_color(side);
    let forward = if side == Color::White { 1 } else { -1 };
    let last = if side == Color::White { Rank::Eighth } else { Rank::First };
    let start =
        if side == Color::White { Rank::Second } else { Rank::Seventh };
    let mut out = vec![];
    for from in own {
        let role = board.role_at(from).expect("a man");
        let mut push = |to: Square| {
            if to.rank() == last && role == Role::Pawn {
                for p in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
                {
                    out.push(ViewMove::Move {
                        role,
                        from,
                        to,
                        promotion: Some(p),
                    });
                }
            } else {
                out.push(ViewMove::Move { role, from, to, promotion: None });
            }
        };
        if role != Role::Pawn {
            for to in attacks::attacks(from, role.of(side), own) & !own {
                push(to);
            }
            continue;
        }
        let at = |df: i32, dr: i32| {
            Some(Square::from_coords(
                from.file().offset(df)?,
                from.rank().offset(dr)?,
            ))
            .filter(|to| !own.contains(*to))
        };
        if let Some(one) = at(0, forward) {
            push(one);
            if from.rank() == start {
                if let Some(two) = at(0, 2 * forward) {
                    push(two);
                }
            }
        }
        for df in [-1, 1] {
            if let Some(to) = at(df, forward) {
                push(to);
            }
        }
    }
    let back = side.backrank();
    let king = Square::from_coords(File::E, back);
    if board.piece_at(king) == Some(Role::King.of(side)) {
        for (which, file) in [
            (CastlingSide::KingSide, File::H),
            (CastlingSide::QueenSide, File::A),
        ] {
            let rook = Square::from_coords(file, back);
            if pos.castles().has(side, which)
                && board.piece_at(rook) == Some(Role::Rook.of(side))
                && (attacks::between(king, rook) & own).is_empty()
            {
                out.push(ViewMove::Castle(which));
            }
        }
    }
    out
}

/// A move in Kriegspiel SAN, disambiguated against the mover's own view;
/// `played`: a piece's capture gets its `x` (an attempt's does not).
fn ksan(pos: &Chess, v: ViewMove, played: bool) -> String {
    let (role, from, to, promotion) = match v {
        ViewMove::Castle(CastlingSide::KingSide) => return "O-O".into(),
        ViewMove::Castle(CastlingSide::QueenSide) => return "O-O-O".into(),
        ViewMove::Move { role, from, to, promotion } => {
            (role, from, to, promotion)
        }
    };
    let mut s = String::new();
    if role == Role::Pawn {
        if from.file() != to.file() {
            s.push(from.file().char());
            s.push('x');
        }
        s.push_str(&to.to_string());
        if let Some(p) = promotion {
            s.push('=');
            s.push(p.upper_char());
        }
        return s;
    }
    let board = pos.board();
    let side = pos.turn();
    let own = board.by_color(side);
    let others: Vec<Square> = board
        .by_piece(role.of(side))
        .into_iter()
        .filter(|&o| {
            o != from && attacks::attacks(o, role.of(side), own).contains(to)
        })
        .collect();
    s.push(role.upper_char());
    if !others.is_empty() {
        if others.iter().all(|o| o.file() != from.file()) {
            s.push(from.file().char());
        } else if others.iter().all(|o| o.rank() != from.rank()) {
            s.push(from.rank().char());
        } else {
            s.push_str(&from.to_string());
        }
    }
    if played && board.color_at(to) == Some(!side) {
        s.push('x');
    }
    s.push_str(&to.to_string());
    s
}

// ---- planting faults ----

/// A small seeded generator (SplitMix64), so that every run plants the
/// same faults.
struct Rng(u64);

impl Rng {
    fn new(game: usize, salt: u64) -> Rng {
        Rng(((game as u64) << 8) ^ salt ^ 0x5EED_1414)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        (!items.is_empty()).then(|| items[self.below(items.len())])
    }
}

/// The kinds of fault of issue 14.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    CaptureMoved,
    CaptureAdded,
    CaptureLeftOut,
    CheckMissing,
    CheckAdded,
    WrongCheckCode,
    DoubleCheckLost,
    LegalAttempt,
    IllegalMove,
    Swapped,
    Mark,
    Result,
}

const KINDS: [Kind; 12] = [
    Kind::CaptureMoved,
    Kind::CaptureAdded,
    Kind::CaptureLeftOut,
    Kind::CheckMissing,
    Kind::CheckAdded,
    Kind::WrongCheckCode,
    Kind::DoubleCheckLost,
    Kind::LegalAttempt,
    Kind::IllegalMove,
    Kind::Swapped,
    Kind::Mark,
    Kind::Result,
];

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::CaptureMoved => "capture square moved",
            Kind::CaptureAdded => "capture announced, none made",
            Kind::CaptureLeftOut => "capture left out",
            Kind::CheckMissing => "check code missing",
            Kind::CheckAdded => "check code added",
            Kind::WrongCheckCode => "check code of the wrong kind",
            Kind::DoubleCheckLost => "double check: one C code lost",
            Kind::LegalAttempt => "legal move among the attempts",
            Kind::IllegalMove => "illegal move played",
            Kind::Swapped => "two moves of one side swapped",
            Kind::Mark => "+ or # wrong",
            Kind::Result => "Result contradicts the board",
        })
    }
}

/// One planted fault.
#[derive(Clone, Debug)]
struct Case {
    kind: Kind,
    /// Which variant of the kind, for the table.
    detail: String,
    edits: Vec<(Spot, String)>,
    /// The line where the fault stands, counted from 0; `None` for a
    /// swap, where the oracle finds it.
    line: Option<usize>,
    /// The ply it is planted in (the first, for a swap), if any.
    ply: Option<usize>,
}

/// A game replayed: each ply's position before it, its move, and the
/// position after it.
struct Replay {
    before: Vec<Chess>,
    moves: Vec<Move>,
    after: Vec<Chess>,
}

fn replay(record: &Record) -> Replay {
    let mut pos = Chess::default();
    let mut r = Replay { before: vec![], moves: vec![], after: vec![] };
    for ply in &record.plies {
        let (m, _) = played(&pos, &ply.san).expect("a legal move");
        r.before.push(pos.clone());
        r.moves.push(m);
        pos.play_unchecked(m);
        r.after.push(pos.clone());
    }
    r
}

/// The plies `0..n` for which `keep` holds.
fn plies_where(n: usize, keep: impl Fn(usize) -> bool) -> Vec<usize> {
    (0..n).filter(|&k| keep(k)).collect()
}

const LETTERS: [char; 5] = ['F', 'R', 'L', 'S', 'N'];

/// Every fault of every kind planted in one game.
fn plant(index: usize, record: &Record) -> Vec<Case> {
    let r = replay(record);
    let n = record.plies.len();
    let mut cases = vec![];
    let comment_case = |kind, detail: String, k: usize, codes: Vec<String>| {
        let ply = &record.plies[k];
        Case {
            kind,
            detail,
            edits: vec![(ply.comment_at, comment(&codes, &ply.attempts))],
            line: Some(ply.comment_at.line),
            ply: Some(k),
        }
    };
    // The whole comment left out: a move with none announced nothing,
    // which its SAN shows first.
    let no_comment_case = |kind, k: usize| {
        let ply = &record.plies[k];
        Case {
            kind,
            detail: "the whole comment".into(),
            edits: vec![(ply.comment_at, String::new())],
            line: Some(ply.san_at.line),
            ply: Some(k),
        }
    };
    let codes = |k: usize| record.plies[k].codes.clone();
    let checks = |k: usize| r.after[k].checkers().count();

    // The announcements.
    let mut rng = Rng::new(index, 1);
    let captures = plies_where(n, |k| r.moves[k].is_capture());
    if let Some(k) = rng.pick(&captures) {
        let real = taken(&r.moves[k]).expect("a capture");
        let mut sq = real;
        while sq == real {
            sq = Square::new(rng.below(64) as u32);
        }
        let mut c = codes(k);
        c[0] = format!("X{sq}");
        cases.push(comment_case(
            Kind::CaptureMoved,
            "to another square".into(),
            k,
            c,
        ));
    }
    for k in plies_where(n, |k| r.moves[k].is_en_passant()) {
        let mut c = codes(k);
        c[0] = format!("X{}", r.moves[k].to());
        let detail = "en passant, on the target square".into();
        cases.push(comment_case(Kind::CaptureMoved, detail, k, c));
    }
    let quiet = plies_where(n, |k| !r.moves[k].is_capture());
    if let Some(k) = rng.pick(&quiet) {
        let m = r.moves[k];
        let (sq, detail) = if rng.below(2) == 0 && !m.is_castle() {
            (m.to(), "on the square moved to")
        } else {
            (Square::new(rng.below(64) as u32), "on any square")
        };
        let mut c = codes(k);
        c.insert(0, format!("X{sq}"));
        cases.push(comment_case(Kind::CaptureAdded, detail.into(), k, c));
    }
    if let Some(k) = rng.pick(&captures) {
        let mut c = codes(k);
        c.remove(0);
        let detail = match r.moves[k] {
            m if m.is_en_passant() => "en passant",
            m if m.role() == Role::Pawn => "by a pawn",
            _ => "by a piece",
        };
        cases.push(comment_case(Kind::CaptureLeftOut, detail.into(), k, c));
    }
    if let Some(k) = rng.pick(&captures) {
        cases.push(no_comment_case(Kind::CaptureLeftOut, k));
    }

    // The check codes.
    let mut rng = Rng::new(index, 2);
    let single = plies_where(n, |k| checks(k) == 1);
    if let Some(k) = rng.pick(&single) {
        let mut c = codes(k);
        let lost = c.pop().expect("a check code");
        cases.push(comment_case(Kind::CheckMissing, lost, k, c));
    }
    if let Some(k) = rng.pick(&single) {
        cases.push(no_comment_case(Kind::CheckMissing, k));
    }
    let none = plies_where(n, |k| checks(k) == 0);
    if let Some(k) = rng.pick(&none) {
        let mut c = codes(k);
        c.push(format!("C{}", LETTERS[rng.below(5)]));
        let detail = "to a move giving no check".into();
        cases.push(comment_case(Kind::CheckAdded, detail, k, c));
    }
    if let Some(k) = rng.pick(&single) {
        let mut c = codes(k);
        c.push(format!("C{}", LETTERS[rng.below(5)]));
        let detail = "a second one to a single check".into();
        cases.push(comment_case(Kind::CheckAdded, detail, k, c));
    }
    for letter in LETTERS {
        let code = format!("C{letter}");
        let with = plies_where(n, |k| record.plies[k].codes.contains(&code));
        if let Some(k) = rng.pick(&with) {
            let others: Vec<char> =
                LETTERS.into_iter().filter(|&l| l != letter).collect();
            let wrong = others[rng.below(4)];
            let mut c = codes(k);
            let at = c.iter().position(|x| *x == code).expect("the code");
            c[at] = format!("C{wrong}");
            let detail = format!("{code} written C{wrong}");
            cases.push(comment_case(Kind::WrongCheckCode, detail, k, c));
        }
    }
    for k in plies_where(n, |k| checks(k) == 2) {
        for lost in 0..2 {
            let mut c = codes(k);
            let first = c.iter().position(|x| x.starts_with('C'));
            let detail = c.remove(first.expect("two check codes") + lost);
            let detail = format!("{detail} lost");
            cases.push(comment_case(Kind::DoubleCheckLost, detail, k, c));
        }
    }

    // The attempts and the moves: a fault of each sort the game has,
    // at a ply chosen at random among those where it can be made.
    let mut rng = Rng::new(index, 3);
    let mut legal: BTreeMap<&str, Vec<(usize, Move)>> = BTreeMap::new();
    let mut illegal: BTreeMap<&str, Vec<(usize, ViewMove)>> = BTreeMap::new();
    for k in 0..n {
        let pos = &r.before[k];
        let moves = pos.legal_moves();
        for &m in moves.iter().filter(|&&m| m != r.moves[k]) {
            legal.entry(sort_of(&m)).or_default().push((k, m));
        }
        let moves: Vec<ViewMove> = moves.iter().map(ViewMove::of).collect();
        for v in view_moves(pos).into_iter().filter(|v| !moves.contains(v)) {
            illegal.entry(why_illegal(pos, v)).or_default().push((k, v));
        }
    }
    for (sort, moves) in legal {
        let (k, m) = moves[rng.below(moves.len())];
        let ply = &record.plies[k];
        let mut attempts = ply.attempts.clone();
        let at = rng.below(attempts.len() + 1);
        attempts.insert(at, ksan(&r.before[k], ViewMove::of(&m), false));
        cases.push(Case {
            kind: Kind::LegalAttempt,
            detail: sort.into(),
            edits: vec![(ply.comment_at, comment(&ply.codes, &attempts))],
            line: Some(ply.comment_at.line),
            ply: Some(k),
        });
    }
    let mut illegal_case = |k: usize, san: String, detail: &str| {
        let ply = &record.plies[k];
        cases.push(Case {
            kind: Kind::IllegalMove,
            detail: detail.into(),
            edits: vec![(ply.san_at, san)],
            line: Some(ply.san_at.line),
            ply: Some(k),
        });
    };
    for (sort, moves) in illegal {
        let (k, v) = moves[rng.below(moves.len())];
        illegal_case(k, ksan(&r.before[k], v, true), sort);
    }
    let tried: Vec<(usize, &String)> = (0..n)
        .flat_map(|k| record.plies[k].attempts.iter().map(move |a| (k, a)))
        .collect();
    if let Some((k, a)) = rng.pick(&tried) {
        illegal_case(k, a.clone(), "an attempt of that ply");
    }
    for with_comments in [false, true].into_iter().filter(|_| n >= 3) {
        let k = rng.below(n - 2);
        let (a, b) = (&record.plies[k], &record.plies[k + 2]);
        let side = if k.is_multiple_of(2) { "White's" } else { "Black's" };
        let mut edits =
            vec![(a.san_at, b.san.clone()), (b.san_at, a.san.clone())];
        let mut detail = format!("{side} SANs");
        if with_comments {
            let (ca, cb) = (
                comment(&a.codes, &a.attempts),
                comment(&b.codes, &b.attempts),
            );
            edits.push((a.comment_at, cb));
            edits.push((b.comment_at, ca));
            detail.push_str(" and comments");
        }
        let kind = Kind::Swapped;
        cases.push(Case { kind, detail, edits, line: None, ply: Some(k) });
    }

    // The marks and the result.
    let mut rng = Rng::new(index, 4);
    let marks = [
        (Mark::None, ["+ added", "# added"]),
        (Mark::Check, ["+ removed", "# for +"]),
        (Mark::Mate, ["# removed", "+ for #"]),
    ];
    for (mark, details) in marks {
        let with = plies_where(n, |k| mark_of(&r.after[k]) == mark);
        let Some(k) = rng.pick(&with) else { continue };
        let detail = details[rng.below(2)];
        let ply = &record.plies[k];
        let bare = ply.san.trim_end_matches(['+', '#']);
        let san = match detail {
            "+ added" | "+ for #" => format!("{bare}+"),
            "# added" | "# for +" => format!("{bare}#"),
            _ => bare.to_string(),
        };
        cases.push(Case {
            kind: Kind::Mark,
            detail: detail.into(),
            edits: vec![(ply.san_at, san)],
            line: Some(ply.san_at.line),
            ply: Some(k),
        });
    }
    let end = &r.after[n - 1];
    let ending = if end.is_checkmate() {
        "mate"
    } else if end.is_stalemate() {
        "stalemate"
    } else {
        return cases;
    };
    let (result, tag) = record.result.clone().expect("a Result tag");
    let (_, marker) = record.marker.clone().expect("a termination marker");
    let wrong: Vec<&str> = ["1-0", "0-1", "1/2-1/2"]
        .into_iter()
        .filter(|&w| w != result)
        .collect();
    for (which, spots) in [
        ("the Result tag", vec![tag]),
        ("the termination marker", vec![marker]),
        ("both", vec![tag, marker]),
    ] {
        let w = wrong[rng.below(2)];
        cases.push(Case {
            kind: Kind::Result,
            detail: format!("{ending}: {which}"),
            edits: spots.iter().map(|&at| (at, w.to_string())).collect(),
            line: Some(spots[0].line),
            ply: None,
        });
    }
    cases
}

/// The sort of a legal move, for the table: those sorts where the
/// referee's look at an attempt is more than a ray on the board.
fn sort_of(m: &Move) -> &'static str {
    match *m {
        Move::Castle { .. } => "castling",
        Move::EnPassant { .. } => "en passant",
        Move::Normal { promotion: Some(_), .. } => "a promotion",
        Move::Normal { role: Role::Pawn, from, to, capture, .. } => {
            if capture.is_some() {
                "a pawn capture"
            } else if from.rank().distance(to.rank()) == 2 {
                "a pawn's double step"
            } else {
                "a pawn's step"
            }
        }
        Move::Normal { role: Role::King, .. } => "a king move",
        Move::Normal { capture: Some(_), .. } => "a capture by a piece",
        _ => "another piece move",
    }
}

/// Why a move of the own view is illegal in `pos`, for the table.
fn why_illegal(pos: &Chess, v: ViewMove) -> &'static str {
    let ViewMove::Move { role, from, to, .. } = v else {
        return "castling not allowed";
    };
    let board = pos.board();
    let occupied = board.occupied();
    let enemy = board.by_color(!pos.turn());
    let pseudo = match role {
        Role::Pawn if from.file() != to.file() => {
            enemy.contains(to)
                || pos.ep_square(EnPassantMode::PseudoLegal) == Some(to)
        }
        Role::Pawn => {
            !occupied.contains(to)
                && (attacks::between(from, to) & occupied).is_empty()
        }
        _ => {
            attacks::attacks(from, role.of(pos.turn()), occupied).contains(to)
        }
    };
    if pseudo {
        "into check, or out of it not"
    } else {
        "blocked, or nothing to take"
    }
}

// ---- running the referee ----

/// What the referee said of one game.
enum Verdict {
    /// Failed, nothing written, its first error at this line (from 1).
    Failed(u64),
    /// Passed, or failed without an error.
    Missed,
}

fn referee(text: &str) -> (u64, u64, Vec<u8>, Vec<Diagnostic>) {
    let mut out = vec![];
    let mut report: Vec<Diagnostic> = vec![];
    let (passed, failed) = check_reader(
        &CheckConfig::default(),
        text.as_bytes(),
        &mut out,
        &mut report,
    )
    .expect("writing to a Vec");
    (passed, failed, out, report)
}

fn verdict(text: &str) -> Verdict {
    let (passed, failed, out, report) = referee(text);
    let error = report.iter().find(|d| d.severity == Severity::Error);
    match error {
        Some(d) if (passed, failed) == (0, 1) && out.is_empty() => {
            assert_eq!(d.game, Some(1), "{d:?}");
            Verdict::Failed(d.line)
        }
        _ => Verdict::Missed,
    }
}

// ---- the tests ----

/// What happened to the cases of one kind, or of one of its variants.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    cases: usize,
    /// Cases whose move and its comment stand on different lines.
    split: usize,
    right: usize,
    other: usize,
    missed: usize,
    /// Swaps that left a game that could have happened: no fault.
    no_fault: usize,
    /// Of those, the games the referee failed all the same.
    false_alarm: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.cases += o.cases;
        self.split += o.split;
        self.right += o.right;
        self.other += o.other;
        self.missed += o.missed;
        self.no_fault += o.no_fault;
        self.false_alarm += o.false_alarm;
    }

    /// The faults planted: the cases less those that are none.
    fn faults(&self) -> usize {
        self.cases - self.no_fault
    }

    fn row(&self, name: &str) -> String {
        let share = match self.faults() {
            0 => "-".to_string(),
            n => format!("{:.1}%", 100.0 * self.right as f64 / n as f64),
        };
        let counts = [
            self.cases,
            self.no_fault,
            self.false_alarm,
            self.split,
            self.right,
            self.other,
            self.missed,
        ];
        let counts: String =
            counts.iter().map(|c| format!(" {c:>6}")).collect();
        format!("{name:<38}{counts} {share:>7}")
    }
}

/// The corpus's games to use: all with `KPGN_FAULTS_ALL`, else one in
/// `SAMPLE`.
fn sample() -> (bool, Vec<(usize, u64, String)>) {
    let all = std::env::var_os("KPGN_FAULTS_ALL").is_some_and(|v| v != "0");
    let games = corpus();
    assert_eq!(games.len(), 3000);
    let games = games
        .into_iter()
        .enumerate()
        .filter(|(index, _)| all || index % SAMPLE == 0)
        .map(|(index, (first_line, lines))| {
            let mut text = lines.join("\n");
            text.push('\n');
            (index, first_line, text)
        })
        .collect();
    (all, games)
}

/// The case's line, by the oracle: `None` when it is no fault (a swap
/// that leaves a game that could have happened). Panics when the oracle
/// does not find a planned fault where it was planted.
fn oracle_line(case: &Case, mutated: &str, game_line: u64) -> Option<usize> {
    let found = first_fault(&read_record(mutated));
    match (found, case.line) {
        (None, None) => None,
        (Some((found, _)), None) => Some(found),
        (Some((found, _)), Some(line)) if found == line => Some(line),
        (found, _) => panic!(
            "the oracle does not see the {} ({}) planted at line {:?} of \
             the game at line {game_line}: {found:?}\n{mutated}",
            case.kind,
            case.detail,
            case.line.map(|l| l + 1),
        ),
    }
}

#[test]
fn every_planted_fault_is_caught_at_its_line() {
    let (all, games) = sample();
    let mut table: BTreeMap<(Kind, String), Tally> = BTreeMap::new();
    let mut failures: Vec<String> = vec![];
    let mut whole = Whole::default();
    for (index, first_line, text) in &games {
        let record = read_record(text);
        // The corpus is as the reader of this file expects it, and right.
        assert_eq!(record.edited(&[]), *text);
        for ply in &record.plies {
            let at = ply.comment_at;
            let written = &record.lines[at.line][at.start..at.end];
            assert_eq!(written, comment(&ply.codes, &ply.attempts));
        }
        assert_eq!(first_fault(&record), None, "game at line {first_line}");
        let (passed, failed, out, report) = referee(text);
        assert_eq!(
            (passed, failed, report.as_slice()),
            (1, 0, &[][..]),
            "the game at line {first_line} unchanged"
        );
        assert_eq!(out, text.as_bytes());

        let cases = plant(*index, &record);
        // One of them in place, in the sample read as one input.
        let case = &cases[index % cases.len()];
        let mutated = record.edited(&case.edits);
        if let Some(at) = oracle_line(case, &mutated, *first_line) {
            let game = whole.games + 1;
            whole.want.push((game, whole.line + at as u64 + 1));
        }
        whole.add(&mutated);

        for case in cases {
            let mutated = record.edited(&case.edits);
            let key = (case.kind, case.detail.clone());
            let tally = table.entry(key).or_default();
            tally.cases += 1;
            let Some(line) = oracle_line(&case, &mutated, *first_line) else {
                // A game that could have happened: it must pass.
                tally.no_fault += 1;
                let (passed, _, _, report) = referee(&mutated);
                if passed != 1 {
                    tally.false_alarm += 1;
                    failures.push(format!(
                        "{} ({}), the game at line {first_line}: no fault, \
                         but {report:?}\n{mutated}",
                        case.kind, case.detail
                    ));
                }
                continue;
            };
            if let Some(k) = case.ply {
                let ply = &record.plies[k];
                if ply.san_at.line != ply.comment_at.line {
                    tally.split += 1;
                }
            }
            let want = line as u64 + 1;
            match verdict(&mutated) {
                Verdict::Failed(l) if l == want => {
                    tally.right += 1;
                    continue;
                }
                Verdict::Failed(_) => tally.other += 1,
                Verdict::Missed => tally.missed += 1,
            }
            if failures.len() < 20 {
                let (_, _, _, report) = referee(&mutated);
                failures.push(format!(
                    "{} ({}), the game at line {first_line}, at its line \
                     {want}: {report:?}\n{mutated}",
                    case.kind, case.detail
                ));
            }
        }
    }

    eprintln!(
        "\nplanted faults in {} of 3000 games{}",
        games.len(),
        if all { "" } else { " (KPGN_FAULTS_ALL=1: all)" }
    );
    let head = [
        "cases", "no", "false", "split", "right", "other", "missed", "caught",
    ];
    let under = ["", "fault", "alarm", "", "line", "line", "", ""];
    for words in [head, under] {
        let words: String = words.iter().map(|w| format!(" {w:>6}")).collect();
        eprintln!("{:<38}{words}", "");
    }
    let mut bad = vec![];
    for kind in KINDS {
        let rows: Vec<(&String, &Tally)> = table
            .iter()
            .filter(|((k, _), _)| *k == kind)
            .map(|((_, detail), t)| (detail, t))
            .collect();
        let mut total = Tally::default();
        for (_, t) in &rows {
            total.add(t);
        }
        eprintln!("{}", total.row(&kind.to_string()));
        for (detail, t) in rows {
            eprintln!("{}", t.row(&format!("  {detail}")));
        }
        if total.faults() == 0
            || total.right != total.faults()
            || total.false_alarm > 0
        {
            bad.push(kind);
        }
    }
    let legend = "no fault: a swap that leaves a game that could have \
                  happened; false alarm: of those, failed; split: the move \
                  and its comment on two lines; caught: at the right line, \
                  of the faults";
    eprintln!("({legend})");
    for f in &failures {
        eprintln!("\n{f}");
    }
    assert!(bad.is_empty(), "not every fault caught at its line: {bad:?}");

    // In place, each game fails alone, at its line in the input (which
    // the reader counts across the blocks it reads).
    let (passed, failed, _, report) = referee(&whole.input);
    let got: Vec<(u64, u64)> = report
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| (d.game.expect("the game named"), d.line))
        .collect();
    assert_eq!(got, whole.want);
    assert_eq!(failed, whole.want.len() as u64);
    assert_eq!(passed + failed, whole.games);
}

/// The sample with one fault planted in each game, as one input.
#[derive(Default)]
struct Whole {
    input: String,
    /// How many games and lines it has.
    games: u64,
    line: u64,
    /// The game and line of each fault, counted from 1.
    want: Vec<(u64, u64)>,
}

impl Whole {
    /// Adds a game, and a blank line after it.
    fn add(&mut self, game: &str) {
        self.input.push_str(game);
        self.input.push('\n');
        self.games += 1;
        self.line += game.lines().count() as u64 + 1;
    }
}
