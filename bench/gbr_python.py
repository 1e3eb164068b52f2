#!/usr/bin/env python3
"""The gbr-encode benchmark's reference: the material code of each FEN
line with python-chess, as a user would otherwise write it.

Usage: gbr_python.py < in.fen > out.txt
"""

import sys

import chess

KINDS = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)


def digit(board, kind):
    w = len(board.pieces(kind, chess.WHITE))
    b = len(board.pieces(kind, chess.BLACK))
    return 9 if w > 2 or b > 2 else w + 3 * b


def code(board):
    digits = "".join(str(digit(board, k)) for k in KINDS)
    wp = len(board.pieces(chess.PAWN, chess.WHITE))
    bp = len(board.pieces(chess.PAWN, chess.BLACK))
    return "%s.%d%d" % (digits, wp, bp)


def main():
    out = sys.stdout
    for number, line in enumerate(sys.stdin, 1):
        fields = line.split()
        if not fields:
            continue
        try:
            board = chess.BaseBoard(fields[0])
        except ValueError as err:
            print("gbr_python: %d: %s" % (number, err), file=sys.stderr)
            continue
        out.write(code(board) + "\n")


if __name__ == "__main__":
    main()
