#!/usr/bin/env python3
"""Deterministic generator of unfiltered Kriegspiel PGN for benchmarks.

Usage: gen_kpgn.py SIZE_MB [SEED] > games.pgn

Writes at least SIZE_MB megabytes (10**6 bytes) of games in the seed's
Kriegspiel PGN: the seven standard tags, a Rules or Variant tag, a
Filtered "no" tag, then movetext in export layout (lines of at most 79
characters) where every move carries its Kriegspiel comment
{(<announcements>:<illegal attempts>)}, some a free comment, a NAG or a
glyph. The moves are legal chess (python-chess plays them at random, so
that pgn-extract can replay every game); the announcements are the ones
the Berkeley referee makes (captures, checks and their direction); the
illegal attempts are SAN of the mover's own pieces that the move
generator rejects. The same SIZE_MB and SEED always give the same bytes.
"""

import random
import sys

try:
    import chess
except ImportError:
    sys.exit("gen_kpgn.py: needs python-chess: pip install chess")

POOL = 120
FILES = "abcdefgh"

REMARKS = [
    "a careful probe",
    "the referee is silent",
    "White hunts the king",
    "Black tries the pawn captures first",
    "nothing announced, so the queen is probably safe",
    "a risky try on the long diagonal",
    "the king walks into the centre",
    "probing for pawn captures",
]


def check_codes(board):
    """The referee's check announcements after a move: one per checker."""
    if not board.is_check():
        return []
    king = board.king(board.turn)
    codes = []
    for sq in board.checkers():
        kf, kr = chess.square_file(king), chess.square_rank(king)
        f, r = chess.square_file(sq), chess.square_rank(sq)
        if board.piece_type_at(sq) == chess.KNIGHT:
            codes.append("CN")
        elif f == kf:
            codes.append("CF")
        elif r == kr:
            codes.append("CR")
        else:
            # The long diagonal through the king is the one with more
            # squares; the other is the short one.
            same = min(kf, kr) + min(7 - kf, 7 - kr)
            other = min(kf, 7 - kr) + min(7 - kf, kr)
            along_same = (f - kf) == (r - kr)
            mine, theirs = (same, other) if along_same else (other, same)
            codes.append("CL" if mine >= theirs else "CS")
    return codes


def attempts(board, rng):
    """Up to three illegal attempts: moves of the mover's pieces that
    look possible to a player who cannot see the other side."""
    legal = {m.uci() for m in board.legal_moves}
    tries = []
    pieces = [
        (sq, p) for sq, p in board.piece_map().items() if p.color == board.turn
    ]
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 3])):
        sq, piece = rng.choice(pieces)
        to = rng.randrange(64)
        if to == sq or chess.Move(sq, to).uci() in legal:
            continue
        name = chess.square_name(to)
        if piece.piece_type == chess.PAWN:
            frm = FILES[chess.square_file(sq)]
            if frm != name[0]:
                tries.append(f"{frm}x{name}")
            else:
                tries.append(name)
        else:
            letter = piece.symbol().upper()
            tries.append(f"{letter}{chess.square_name(sq)[0]}{name}")
    return tries


def play(rng):
    """One random legal game: a list of (SAN, announcements, attempts)
    and its result."""
    board = chess.Board()
    moves = []
    length = rng.randrange(30, 140)
    while len(moves) < length and not board.is_game_over():
        legal = list(board.legal_moves)
        captures = [m for m in legal if board.is_capture(m)]
        move = rng.choice(captures if captures and rng.random() < 0.4 else legal)
        tries = attempts(board, rng)
        san = board.san(move)
        codes = []
        if board.is_capture(move):
            codes.append("X" + chess.square_name(move.to_square))
        board.push(move)
        codes += check_codes(board)
        moves.append((san, ",".join(codes), ",".join(tries)))
    if board.is_game_over():
        result = board.result()
    else:
        result = rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
    return moves, result


def render(n, game, rng, out):
    moves, result = game
    rules = rng.choice(["Rules", "Variant"])
    out.append(
        f'[Event "Kriegspiel Berkeley {n // 50 + 1}"]\n'
        f'[Site "UC Berkeley"]\n'
        f'[Date "2004.{n % 12 + 1:02}.{n % 28 + 1:02}"]\n'
        f'[Round "{n % 9 + 1}"]\n'
        f'[White "Player{rng.randrange(1000)}"]\n'
        f'[Black "Player{rng.randrange(1000)}"]\n'
        f'[Result "{result}"]\n'
        f'[{rules} "Kriegspiel (Berkeley)"]\n'
        f'[Filtered "no"]\n\n'
    )
    line = ""
    items = []
    for ply, (san, codes, tries) in enumerate(moves):
        if ply % 2 == 0:
            items.append(f"{ply // 2 + 1}.")
        elif rng.random() < 0.1:
            items.append(f"{ply // 2 + 1}...")
        glyph = rng.choice(["!", "?", "!?", "?!"]) if rng.random() < 0.03 else ""
        items.append(san + glyph)
        if rng.random() < 0.05:
            items.append(f"${rng.randrange(1, 20)}")
        remark = ""
        if rng.random() < 0.15:
            remark = " " + rng.choice(REMARKS)
        items.append(f"{{({codes}:{tries}){remark}}}")
        if rng.random() < 0.02:
            items.append("{" + rng.choice(REMARKS) + "}")
    items.append(result)
    lines = []
    for item in items:
        # Comments may be split across lines, like any export does.
        if line and len(line) + 1 + len(item) > 79:
            lines.append(line)
            line = item
        else:
            line = f"{line} {item}" if line else item
    lines.append(line)
    out.append("\n".join(lines))
    out.append("\n\n")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: gen_kpgn.py SIZE_MB [SEED]")
    size = int(float(sys.argv[1]) * 1_000_000)
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) == 3 else 1)
    pool = [play(rng) for _ in range(POOL)]
    written = 0
    n = 0
    stdout = sys.stdout.buffer
    while written < size:
        out = []
        for _ in range(100):
            render(n, pool[rng.randrange(POOL)], rng, out)
            n += 1
        data = "".join(out).encode()
        stdout.write(data)
        written += len(data)


if __name__ == "__main__":
    main()
