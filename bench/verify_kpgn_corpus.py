#!/usr/bin/env python3
"""Check a corpus written by gen_kpgn.py with python-chess.

Usage: verify_kpgn_corpus.py FILE.pgn

Reads every game with chess.pgn (which also reads `;` comments, `%`
lines and variations) and checks, in the main line and in every
variation: python-chess reports no error (so every move is legal); each
move's first comment is a Kriegspiel comment (<codes>:<attempts>) whose
codes are the capture and checks the move made (X on the captured man's
square, C codes in any order) and whose attempts are Kriegspiel SAN that
is illegal in the position. Prints the counts and exits 1 on the first
problem.
"""

import re
import sys

import chess
import chess.pgn

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from gen_kpgn import check_codes  # noqa: E402

ATTEMPT = re.compile(
    r"^(O-O(-O)?|[KQRBN][a-h]?[1-8]?[a-h][1-8]|[a-h][1-8](=[QRBN])?"
    r"|[a-h]x[a-h][1-8](=[QRBN])?)$"
)
class KriegspielGame(chess.pgn.Game):
    """A game whose Variant tag ("Kriegspiel (Berkeley)") does not pick
    a python-chess variant: the moves are standard chess."""

    def board(self):
        return chess.Board(self.headers.get("FEN", chess.STARTING_FEN))


class Builder(chess.pgn.GameBuilder):
    def __init__(self):
        super().__init__(Game=KriegspielGame)

    def handle_error(self, error):
        if not str(error).startswith("unsupported variant"):
            self.game.errors.append(error)


HEAD = re.compile(r"^\s*\(([^:()]*):([^()]*)\)")


def expected_codes(board, move):
    codes = []
    if board.is_capture(move):
        sq = move.to_square
        if board.is_en_passant(move):
            sq = chess.square(
                chess.square_file(move.to_square),
                chess.square_rank(move.from_square),
            )
        codes.append("X" + chess.square_name(sq))
    after = board.copy(stack=False)
    after.push(move)
    return codes, sorted(check_codes(after))


def fail(game, node, why):
    sys.exit(f"verify_kpgn_corpus.py: game {game}: {node.parent.board().fen()}: "
             f"{node.san()}: {why}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: verify_kpgn_corpus.py FILE.pgn")
    games = moves = variations = attempts = 0
    with open(sys.argv[1], encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f, Visitor=Builder)
            if game is None:
                break
            games += 1
            if game.errors:
                sys.exit(f"verify_kpgn_corpus.py: game {games}: {game.errors[0]}")
            stack = [game]
            while stack:
                node = stack.pop()
                variations += max(0, len(node.variations) - 1)
                stack.extend(node.variations)
                if node.move is None:
                    continue
                moves += 1
                board = node.parent.board()
                m = HEAD.match(node.comment)
                if not m:
                    fail(games, node, f"no Kriegspiel comment: {node.comment!r}")
                codes = m.group(1).split(",") if m.group(1) else []
                x = [c for c in codes if c.startswith("X")]
                c = sorted(c for c in codes if c.startswith("C"))
                if (x, c) != expected_codes(board, node.move):
                    fail(games, node, f"codes {m.group(1)!r}")
                for t in m.group(2).split(",") if m.group(2) else []:
                    attempts += 1
                    if not ATTEMPT.match(t):
                        fail(games, node, f"attempt {t!r} is not Kriegspiel SAN")
                    try:
                        board.parse_san(t)
                    except ValueError:
                        continue
                    fail(games, node, f"attempt {t!r} is legal")
    print(f"{sys.argv[1]}: {games} games, {moves} moves "
          f"({variations} variations), {attempts} illegal attempts: ok")


if __name__ == "__main__":
    main()
