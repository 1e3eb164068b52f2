#!/usr/bin/env python3
"""Games that the Berkeley referee ends before their record does.

Usage:
    ksgame_endings.py PGN EXPECTED

Plays short games through the ks-game referee (`BerkeleyGame(any_rule=
False)`, the ruleset of ksgame_corpus.py), most from a FEN: a capture or
a promotion that leaves each mix of men (bare kings, a knight, bishops of
one colour or of both, two knights, a knight against a queen, a pawn, a
rook, ...), a mate and stalemates. Each game is written as unfiltered
Kriegspiel PGN to PGN, with the referee's own announcements; where the
record goes on after the referee ended the game, its next move is the
one the referee refused (`IMPOSSIBLE_TO_ASK`, since after the end no
question can be asked), and the record stops there.

EXPECTED gets one line per game, tab-separated: the game's number, the
referee's end (`DRAW_INSUFFICIENT`, `CHECKMATE_BLACK_WINS`,
`DRAW_STALEMATE`, ... or `-`), the move it came with (`1. Kxe2`, or `-`),
the move the referee refused after it (or `-`), and the result written.
tests/kpgn_check.rs reads both.

ks-game cannot start from a FEN through its public interface: as the
review's scripts did, the referee's board is set (`_board`) and its
question list made again. A move the referee refuses is written in
Kriegspiel SAN made by hand when python-chess has no SAN for it (no
legal move at all after a stalemate). Deterministic; needs
pip install kriegspiel chess.
"""

import sys

import chess
from kriegspiel import BerkeleyGame
from kriegspiel import KriegspielMove
from kriegspiel import MainAnnouncement as MA
from kriegspiel import QuestionAnnouncement as QA

from ksgame_corpus import PIECE_LETTER, TERMINAL, check_codes_from

# White's king takes a black pawn on e2; Black's king stands on h8. The
# men beside them (white's, black's) are put where they neither give
# check nor guard e2, g8 or f2: after 1. Kxe2, 1... Kg8 and 2. Kf2 are
# legal moves.
CAPTURE_MIXES = [
    ("", ""),
    ("Nb1", ""),
    ("Bd1", ""),
    ("", "Bf8"),
    ("", "Nb8"),
    ("Bc1", "Bf8"),
    ("Bd1", "Bc8"),
    ("Bd1", "Bf8"),
    ("Bc1 Be3", ""),
    ("Bc1 Bd1", ""),
    ("Nb1", "Nb8"),
    ("Nb1 Nc3", ""),
    ("Nb1", "Qd8"),
    ("Bc1", "Nb8"),
    ("Nb1 Bc1", ""),
    ("Ph2", ""),
    ("Ra1", ""),
]


def capture_fen(white, black):
    board = chess.Board(None)
    board.set_piece_at(chess.E1, chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(chess.H8, chess.Piece(chess.KING, chess.BLACK))
    board.set_piece_at(chess.E2, chess.Piece(chess.PAWN, chess.BLACK))
    for men, color in ((white, chess.WHITE), (black, chess.BLACK)):
        for man in men.split():
            piece = chess.Piece.from_symbol(man[0])
            piece.color = color
            board.set_piece_at(chess.parse_square(man[1:]), piece)
    board.turn = chess.WHITE
    assert board.is_valid(), board.fen()
    return board.fen()


def cases():
    """(FEN or None, moves in UCI, result), in order."""
    out = []
    for white, black in CAPTURE_MIXES:
        fen = capture_fen(white, black)
        # On after the capture (the referee refuses 1... Kg8 if it ended
        # the game), and ending there with each result.
        out.append((fen, ["e1e2", "h8g8", "e2f2"], "*"))
        for result in ["1-0", "0-1", "1/2-1/2", "*"]:
            out.append((fen, ["e1e2"], result))
    # Promotions: to a knight or a bishop, K+N or K+B against the king.
    for piece in "nbqr":
        fen = "8/P7/7k/8/8/8/8/K7 w - - 0 1"
        out.append((fen, [f"a7a8{piece}", "h6h5", "a1b1"], "*"))
        out.append((fen, [f"a7a8{piece}"], "1-0"))
    # A capture that gives check and leaves K+N against the king.
    fen = "7k/8/6p1/8/5N2/8/8/K7 w - - 0 1"
    out.append((fen, ["f4g6", "h8g8"], "*"))
    out.append((fen, ["f4g6"], "1-0"))
    # Black's king takes White's last man.
    fen = "8/8/8/8/8/3k4/3P4/6K1 b - - 0 1"
    out.append((fen, ["d3d2", "g1g2"], "*"))
    out.append((fen, ["d3d2"], "0-1"))
    # A mate, then a move.
    out.append((None, ["f2f3", "e7e5", "g2g4", "d8h4", "a2a3"], "0-1"))
    # A stalemate, then a move; and a capture that stalemates and leaves
    # K+B against the king, which the referee tells as a stalemate.
    out.append(("7k/4Q3/6K1/8/8/8/8/8 w - - 0 1", ["e7f7", "h8g8"], "1/2-1/2"))
    fen = "7k/8/6K1/8/2p5/8/8/5B2 w - - 0 1"
    out.append((fen, ["f1c4", "h8g8"], "1/2-1/2"))
    out.append((fen, ["f1c4"], "*"))
    return out


def hand_san(board, move):
    """Kriegspiel SAN of a move with no legal SAN: the man and the square."""
    piece = board.piece_at(move.from_square)
    letter = PIECE_LETTER.get(piece.piece_type, "")
    return letter + chess.square_name(move.to_square)


def label(board, san):
    n = board.fullmove_number
    return f"{n}. {san}" if board.turn == chess.WHITE else f"{n}... {san}"


def play(fen, moves):
    """The plies as written, the referee's end and its move, the move it
    refused."""
    board = chess.Board(fen) if fen else chess.Board()
    game = BerkeleyGame(any_rule=False)
    if fen:
        game._board = board.copy()
        game._game_over = False
        game._generate_possible_to_ask_list()
    plies, ended, refused = [], None, None
    for uci in moves:
        move = chess.Move.from_uci(uci)
        legal = board.is_legal(move)
        san = board.san(move) if legal else hand_san(board, move)
        here = label(board, san)
        answer = game.ask_for(KriegspielMove(QA.COMMON, move))
        if answer.main_announcement == MA.IMPOSSIBLE_TO_ASK:
            assert ended is not None, f"{here}: refused before any end"
            plies.append((board.turn, san, ""))
            refused = here
            break
        assert answer.move_done and legal, f"{here}: {answer}"
        assert ended is None, f"{here}: played after {ended}"
        codes = []
        if answer.capture_at_square is not None:
            codes.append("X" + chess.square_name(answer.capture_at_square))
        board.push(move)
        special = answer.special_announcement
        codes += check_codes_from(special, answer, board)
        plies.append((not board.turn, san, ",".join(codes)))
        if special in TERMINAL:
            assert game.game_over
            ended = (special.name, here)
    assert refused or len(plies) == len(moves)
    return plies, ended, refused


def render(n, fen, plies, result):
    tags = [
        ("Event", "ks-game endings"),
        ("Site", "chesspipe tests/gen/ksgame_endings.py"),
        ("Date", "2026.11.30"),
        ("Round", str(n)),
        ("White", "a"),
        ("Black", "b"),
        ("Result", result),
        ("Variant", "Kriegspiel (Berkeley)"),
    ]
    if fen:
        tags += [("SetUp", "1"), ("FEN", fen)]
    board = chess.Board(fen) if fen else chess.Board()
    number, tokens = board.fullmove_number, []
    for i, (turn, san, codes) in enumerate(plies):
        if turn == chess.WHITE:
            tokens.append(f"{number}.")
        elif i == 0:
            tokens.append(f"{number}...")
        if turn == chess.BLACK:
            number += 1
        tokens += [san, f"{{({codes}:)}}"]
    tokens.append(result)
    head = "".join(f'[{k} "{v}"]\n' for k, v in tags)
    return f"{head}\n{' '.join(tokens)}\n\n"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    with open(sys.argv[1], "w") as pgn, open(sys.argv[2], "w") as expected:
        for n, (fen, moves, result) in enumerate(cases(), 1):
            plies, ended, refused = play(fen, moves)
            pgn.write(render(n, fen, plies, result))
            how, at = ended or ("-", "-")
            row = [str(n), how, at, refused or "-", result]
            expected.write("\t".join(row) + "\n")


if __name__ == "__main__":
    main()
