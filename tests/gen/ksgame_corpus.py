#!/usr/bin/env python3
"""Refereed Kriegspiel games, written as unfiltered Kriegspiel PGN.

Usage:
    ksgame_corpus.py [--games N] [--seed S] [--max-plies P] [--stats] > out.pgn

Every game is played through the ks-game referee (Python package
`kriegspiel`, class BerkeleyGame with the plain Berkeley ruleset: no
"any pawn captures?" question, which Kriegspiel PGN cannot record).
On each turn the side to move sends attempts to the referee, chosen from
the moves that look possible on its own view (its own men only, plus pawn
diagonal captures to every square its own men do not occupy); each attempt
the referee rejects is an illegal attempt, the one it accepts is the move.
The response codes (X<square>, C[FRLSN], two C codes for a double check)
are the referee's announcements.

The players peek at the true position to steer the games towards the
features a test corpus needs (mates, stalemates, promotions and
under-promotions, en passant, both castlings, double checks); that only
picks which move is tried, never what the referee answers.

python-chess keeps a mirror of the true position and cross-checks the
referee at every step (own view, legality, capture square, check kinds,
mate and stalemate, the position itself). A disagreement stops the run
with exit status 3 and a message naming the game and ply.

The same arguments give the same bytes (seeded RNG, nothing depends on
set order or hash seeds). Needs: pip install kriegspiel chess.
"""

import argparse
import random
import sys

try:
    import chess
    from kriegspiel import BerkeleyGame
    from kriegspiel import KriegspielMove
    from kriegspiel import MainAnnouncement as MA
    from kriegspiel import QuestionAnnouncement as QA
    from kriegspiel import SpecialCaseAnnouncement as SCA
    from kriegspiel.game import KriegspielGame
except ImportError as e:  # pragma: no cover
    sys.exit(f"ksgame_corpus.py: {e}: needs pip install kriegspiel chess")

PIECE_LETTER = {chess.KNIGHT: "N", chess.BISHOP: "B", chess.ROOK: "R",
                chess.QUEEN: "Q", chess.KING: "K"}
CHECK_CODE = {
    SCA.CHECK_FILE: "CF",
    SCA.CHECK_RANK: "CR",
    SCA.CHECK_LONG_DIAGONAL: "CL",
    SCA.CHECK_SHORT_DIAGONAL: "CS",
    SCA.CHECK_KNIGHT: "CN",
}
TERMINAL = {
    SCA.CHECKMATE_WHITE_WINS, SCA.CHECKMATE_BLACK_WINS, SCA.DRAW_STALEMATE,
    SCA.DRAW_INSUFFICIENT, SCA.DRAW_TOOMANYREVERSIBLEMOVES,
}
MAX_ATTEMPTS = 8  # keeps every {(...)} comment well inside 79 columns
LINE = 79


class Disagreement(Exception):
    """The referee and python-chess disagree: worth a loud stop."""


def move_key(m):
    return (m.from_square, m.to_square, m.promotion or 0)


def own_view(board):
    """The moves that look possible to the side to move on its own view:
    its own men alone on the board (castling rights and en passant square
    as the game gives them), plus a pawn capture to every diagonal square
    that none of its own men occupies (with the four promotions on the
    last rank). Sorted, so that choices never depend on set order."""
    me = board.turn
    view = board.copy(stack=False)
    for sq, piece in board.piece_map().items():
        if piece.color != me:
            view.remove_piece_at(sq)
    moves = set(view.pseudo_legal_moves)
    for sq in board.pieces(chess.PAWN, me):
        for to in chess.SquareSet(chess.BB_PAWN_ATTACKS[me][sq]):
            if board.color_at(to) == me:
                continue
            if chess.square_rank(to) in (0, 7):
                for p in (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT):
                    moves.add(chess.Move(sq, to, promotion=p))
            else:
                moves.add(chess.Move(sq, to))
    return sorted(moves, key=move_key)


def ks_san(board, move, view, played):
    """Kriegspiel SAN (seed 002, III.B.1): chess SAN disambiguated against
    the moves of the mover's own view. For the played move, `x` for a
    capture and `+`/`#` as the true position gives; for an attempt, no
    capture or check mark, except that a pawn capture is always `exd5`."""
    if board.is_castling(move):
        san = "O-O" if chess.square_file(move.to_square) > 4 else "O-O-O"
    else:
        piece = board.piece_type_at(move.from_square)
        to = chess.square_name(move.to_square)
        if piece == chess.PAWN:
            if chess.square_file(move.from_square) != chess.square_file(move.to_square):
                san = chess.FILE_NAMES[chess.square_file(move.from_square)] + "x" + to
            else:
                san = to
            if move.promotion:
                san += "=" + PIECE_LETTER[move.promotion]
        else:
            rivals = [m.from_square for m in view
                      if m.to_square == move.to_square
                      and m.from_square != move.from_square
                      and board.piece_type_at(m.from_square) == piece]
            dis = ""
            if rivals:
                f = chess.square_file(move.from_square)
                r = chess.square_rank(move.from_square)
                if all(chess.square_file(s) != f for s in rivals):
                    dis = chess.FILE_NAMES[f]
                elif all(chess.square_rank(s) != r for s in rivals):
                    dis = chess.RANK_NAMES[r]
                else:
                    dis = chess.square_name(move.from_square)
            cap = "x" if played and board.is_capture(move) else ""
            san = PIECE_LETTER[piece] + dis + cap + to
    if played:
        after = board.copy(stack=False)
        after.push(move)
        if after.is_checkmate():
            san += "#"
        elif after.is_check():
            san += "+"
    return san


class _NoEnd:
    """Stands in for the referee so that its own check classifier
    (KriegspielGame._check_special_cases) can be asked about a finished
    game: on the last move the referee announces CHECKMATE_... or DRAW_...
    instead of the kind of check, but Kriegspiel PGN records the check
    codes of a mating move too (the seed: `Bxh5# {(Xh5,CS:)}`)."""

    def __init__(self, board):
        self._board = board

    def is_game_over(self):
        return False


def check_codes_from(special, answer, board):
    """The C codes of a referee announcement, in the referee's order."""
    if special in TERMINAL:
        special = KriegspielGame._check_special_cases(_NoEnd(board))
        if isinstance(special, tuple):  # (CHECK_DOUBLE, [first, second])
            return [CHECK_CODE[c] for c in special[1]]
        if special == SCA.NONE:
            return []
        return [CHECK_CODE[special]]
    if special == SCA.CHECK_DOUBLE:
        return [CHECK_CODE[answer.check_1], CHECK_CODE[answer.check_2]]
    if special == SCA.NONE:
        return []
    return [CHECK_CODE[special]]


def expected_check_codes(board):
    """python-chess's own reading of the checks (for the cross-check):
    F same file, R same rank, N knight, L/S the longer/shorter of the two
    diagonals through the king's square."""
    codes = []
    king = board.king(board.turn)
    kf, kr = chess.square_file(king), chess.square_rank(king)
    for sq in board.checkers():
        f, r = chess.square_file(sq), chess.square_rank(sq)
        if board.piece_type_at(sq) == chess.KNIGHT:
            codes.append("CN")
        elif f == kf:
            codes.append("CF")
        elif r == kr:
            codes.append("CR")
        else:
            rising = 8 - abs(kf - kr)         # a1-h8 direction
            falling = 8 - abs(kf + kr - 7)    # a8-h1 direction
            on_rising = (f - kf) == (r - kr)
            mine, other = (rising, falling) if on_rising else (falling, rising)
            codes.append("CL" if mine > other else "CS")
    return codes


def weighted(rng, items, weights):
    return rng.choices(items, weights=weights, k=1)[0]


class Style:
    """Per-side habits, drawn once a game so that games differ."""

    def __init__(self, rng):
        self.p_mate = rng.choice([0.3, 0.6, 0.9, 1.0])
        self.p_stalemate = rng.choice([0.2, 0.5, 0.8])
        self.p_special = rng.choice([0.5, 0.8, 0.95])
        self.capture_w = rng.choice([1, 3, 6])
        self.check_w = rng.choice([1, 2, 4])
        self.pawn_w = rng.choice([1, 2, 4])
        self.tries = rng.choice([
            [0.75, 0.15, 0.06, 0.04],
            [0.55, 0.25, 0.12, 0.08],
            [0.35, 0.30, 0.20, 0.15],
        ])


def intend(board, rng, style):
    """Pick the move the side to move means to play, with a peek at the
    true position. Returns (move, special): special moves are not
    preceded by legal blind tries, so that they really get played."""
    legal = sorted(board.legal_moves, key=move_key)
    checks = [m for m in legal if board.gives_check(m)]
    mates = []
    for m in checks:
        board.push(m)
        if board.is_checkmate():
            mates.append(m)
        board.pop()
    if mates and rng.random() < style.p_mate:
        return rng.choice(mates), True
    them = chess.popcount(board.occupied_co[not board.turn])
    if them <= 5:
        stale = []
        for m in legal:
            board.push(m)
            if board.is_stalemate():
                stale.append(m)
            board.pop()
        if stale and rng.random() < style.p_stalemate:
            return rng.choice(stale), True
    doubles = []
    for m in checks:
        board.push(m)
        if len(board.checkers()) == 2:
            doubles.append(m)
        board.pop()
    groups = [
        doubles,
        [m for m in legal if board.is_en_passant(m)],
        [m for m in legal if board.is_queenside_castling(m)],
        [m for m in legal if board.is_kingside_castling(m)],
        [m for m in legal if m.promotion],
    ]
    for g in groups:
        if g and rng.random() < style.p_special:
            m = rng.choice(g)
            if m.promotion:
                piece = weighted(rng, [chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT],
                                 [50, 17, 16, 17])
                m = chess.Move(m.from_square, m.to_square, promotion=piece)
            return m, True
    weights = []
    endgame = chess.popcount(board.occupied) <= 12
    for m in legal:
        w = 1.0
        if board.is_capture(m):
            w *= style.capture_w
        if m in checks:
            w *= style.check_w
        if board.piece_type_at(m.from_square) == chess.PAWN:
            w *= style.pawn_w * (3 if endgame else 1)
            if m.promotion and m.promotion != chess.QUEEN:
                w *= 0.3
        if board.is_castling(m):
            w *= 4
        weights.append(w)
    return weighted(rng, legal, weights), False


FEATURES = ["promotion", "underpromotion", "en passant", "O-O", "O-O-O",
            "double check", "mate by white", "mate by black", "stalemate",
            "insufficient material", "ply cap", "illegal attempts", "plies"]


def ask(game, board, move, here):
    """Ask the referee about one move and check its verdict on legality."""
    answer = game.ask_for(KriegspielMove(QA.COMMON, move))
    legal = board.is_legal(move)
    if answer.main_announcement == MA.ILLEGAL_MOVE:
        if legal:
            raise Disagreement(f"{here}: referee calls legal {move.uci()} illegal")
    elif answer.move_done:
        if not legal:
            raise Disagreement(f"{here}: referee accepts illegal {move.uci()}")
    else:
        raise Disagreement(f"{here}: unexpected answer {answer.main_announcement} "
                           f"to {move.uci()}")
    return answer


def play(rng, max_plies, where):
    """One refereed game: a list of plies (san, codes, attempts) plus
    feature flags and the result."""
    game = BerkeleyGame(any_rule=False)
    if game.ruleset_id != "berkeley":
        raise Disagreement(f"expected the plain Berkeley ruleset, got {game.ruleset_id}")
    board = chess.Board()
    styles = {chess.WHITE: Style(rng), chess.BLACK: Style(rng)}
    plies = []
    feats = {k: 0 for k in FEATURES}
    cap = max_plies if rng.random() < 0.25 else rng.randrange(20, max_plies * 2 // 3 + 1)
    while not game.game_over and len(plies) < cap:
        here = f"{where}, ply {len(plies) + 1}"
        style = styles[board.turn]
        view = own_view(board)
        asked = sorted((m.chess_move for m in game.possible_to_ask), key=move_key)
        if asked != view:
            raise Disagreement(f"{here}: own view differs from the referee's "
                               f"possible_to_ask: {set(asked) ^ set(view)}")
        intended, special = intend(board, rng, style)
        n_blind = weighted(rng, [0, 1, 2, rng.randrange(3, MAX_ATTEMPTS + 1)], style.tries)
        remaining = list(view)
        tried = []  # illegal attempts, oldest first
        move = None
        answer = None
        for _ in range(n_blind):
            pool = [m for m in remaining if m != intended]
            if special:
                pool = [m for m in pool if not board.is_legal(m)]
            if not pool:
                break
            w = [3 if board.piece_type_at(m.from_square) == chess.PAWN
                 and chess.square_file(m.from_square) != chess.square_file(m.to_square)
                 else 1 for m in pool]
            m = weighted(rng, pool, w)
            answer = ask(game, board, m, here)
            remaining.remove(m)
            if answer.move_done:
                move = m
                break
            tried.append(m)
        if move is None:
            move = intended
            answer = ask(game, board, move, here)
            if not answer.move_done:
                raise Disagreement(f"{here}: referee rejected legal {move.uci()}")
        # Features (before the move), SAN, then the move itself.
        if board.is_en_passant(move):
            feats["en passant"] += 1
        if board.is_kingside_castling(move):
            feats["O-O"] += 1
        if board.is_queenside_castling(move):
            feats["O-O-O"] += 1
        if move.promotion:
            feats["promotion"] += 1
            if move.promotion != chess.QUEEN:
                feats["underpromotion"] += 1
        san = ks_san(board, move, view, True)
        try:
            if board.parse_san(san) != move:
                raise ValueError("another move")
        except ValueError as e:
            raise Disagreement(f"{here}: python-chess reads {san} otherwise: {e}")
        attempts = [ks_san(board, m, view, False) for m in tried]
        pawn_sq = move.to_square + (-8 if board.turn == chess.WHITE else 8)
        true_capture = (pawn_sq if board.is_en_passant(move)
                        else move.to_square if board.is_capture(move) else None)
        board.push(move)
        if board.fen() != game._board.fen():
            raise Disagreement(f"{here}: positions differ: {board.fen()} / {game._board.fen()}")
        codes = []
        if answer.main_announcement == MA.CAPTURE_DONE:
            codes.append("X" + chess.square_name(answer.capture_at_square))
            if answer.capture_at_square != true_capture:
                raise Disagreement(f"{here}: referee announces capture at "
                                   f"{chess.square_name(answer.capture_at_square)}, "
                                   f"python-chess took a man at {true_capture}")
        elif true_capture is not None:
            raise Disagreement(f"{here}: capture not announced")
        special_ann = answer.special_announcement
        checks = check_codes_from(special_ann, answer, game._board)
        if sorted(checks) != sorted(expected_check_codes(board)):
            raise Disagreement(f"{here}: referee announces {checks}, python-chess "
                               f"sees {expected_check_codes(board)} in {board.fen()}")
        codes += checks
        if len(checks) == 2:
            feats["double check"] += 1
        mate = special_ann in (SCA.CHECKMATE_WHITE_WINS, SCA.CHECKMATE_BLACK_WINS)
        if mate != board.is_checkmate() or \
                (special_ann == SCA.DRAW_STALEMATE) != board.is_stalemate() or \
                (special_ann == SCA.DRAW_INSUFFICIENT) != (board.is_insufficient_material()
                                                           and not board.is_checkmate()
                                                           and not board.is_stalemate()):
            raise Disagreement(f"{here}: referee announces {special_ann} in {board.fen()}")
        if game.game_over != (special_ann in TERMINAL):
            raise Disagreement(f"{here}: game_over {game.game_over} after {special_ann}")
        plies.append((san, ",".join(codes), ",".join(reversed(attempts))))
        if tried:
            feats["illegal attempts"] += len(tried)
    feats["plies"] = len(plies)
    if board.is_checkmate():
        result = "0-1" if board.turn == chess.WHITE else "1-0"
        feats["mate by white" if result == "1-0" else "mate by black"] = 1
    elif board.is_stalemate():
        result = "1/2-1/2"
        feats["stalemate"] = 1
    elif game.game_over:
        result = "1/2-1/2"
        feats["insufficient material"] = 1
    else:
        result = rng.choice(["*", "*", "1-0", "0-1", "1/2-1/2"])
        feats["ply cap"] = 1
    return plies, result, feats


def render(n, plies, result, rng):
    rules = "Variant" if rng.random() < 0.5 else "Rules"
    head = (
        f'[Event "ks-game refereed corpus"]\n'
        f'[Site "chesspipe tests/gen/ksgame_corpus.py"]\n'
        f'[Date "2025.{n % 12 + 1:02}.{n % 28 + 1:02}"]\n'
        f'[Round "{n}"]\n'
        f'[White "Player{rng.randrange(1, 100)}"]\n'
        f'[Black "Player{rng.randrange(1, 100)}"]\n'
        f'[Result "{result}"]\n'
        f'[{rules} "Kriegspiel (Berkeley)"]\n'
        f'[Filtered "no"]\n\n'
    )
    tokens = []
    for i, (san, codes, attempts) in enumerate(plies):
        if i % 2 == 0:
            tokens.append(f"{i // 2 + 1}.")
        tokens.append(san)
        tokens.append(f"{{({codes}:{attempts})}}")
    tokens.append(result)
    lines, line = [], ""
    for t in tokens:
        if len(t) > LINE:
            raise Disagreement(f"game {n}: token longer than a line: {t}")
        if line and len(line) + 1 + len(t) > LINE:
            lines.append(line)
            line = t
        else:
            line = f"{line} {t}" if line else t
    lines.append(line)
    return head + "\n".join(lines) + "\n\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=3000, help="games to write (3000)")
    ap.add_argument("--seed", type=int, default=1, help="RNG seed (1)")
    ap.add_argument("--max-plies", type=int, default=200,
                    help="longest game in half-moves (200)")
    ap.add_argument("--stats", action="store_true",
                    help="print to stderr how many games have each feature")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    games_with = {k: 0 for k in FEATURES}
    totals = {k: 0 for k in FEATURES}
    long_games = 0
    out = sys.stdout
    for n in range(1, args.games + 1):
        try:
            plies, result, feats = play(rng, args.max_plies, f"game {n}")
            text = render(n, plies, result, rng)
        except Disagreement as e:
            out.flush()
            sys.stderr.write(f"ksgame_corpus.py: referee and python-chess disagree: {e}\n")
            sys.exit(3)
        out.write(text)
        for k, v in feats.items():
            totals[k] += v
            games_with[k] += 1 if v else 0
        long_games += feats["plies"] >= 150
    out.flush()
    if args.stats:
        w = sys.stderr.write
        w(f"games: {args.games} (seed {args.seed}, max plies {args.max_plies})\n")
        for k in FEATURES:
            if k == "plies":
                continue
            extra = f" ({totals[k]} in all)" if totals[k] != games_with[k] else ""
            w(f"  {k}: {games_with[k]} games{extra}\n")
        w(f"  long games (150 plies or more): {long_games}\n")
        w(f"  total plies: {totals['plies']}\n")


if __name__ == "__main__":
    main()
