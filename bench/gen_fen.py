#!/usr/bin/env python3
"""Deterministic generator of FEN lines for the gbr-encode benchmark.

Usage: gen_fen.py SIZE_MB [SEED] > out.fen

Writes full six-field FEN lines (LF line ends) of random positions with
one king a side, 0-30 further men drawn from the two armies of a game,
pawns only on ranks 2-7, now and then a promoted piece, until SIZE_MB megabytes (10^6 bytes) are written. The same SIZE_MB
and SEED always give the same bytes.
"""

import random
import sys

# Each side's men besides the king, as in a game.
ARMY = "QRRBBNNPPPPPPPP"
# What a pawn may have promoted to, now and then.
PROMOTED = "QQQQRBN"


def position(rng):
    board = [None] * 64
    free = list(range(64))
    rng.shuffle(free)
    board[free.pop()] = "K"
    board[free.pop()] = "k"
    men = list(ARMY) + list(ARMY.lower())
    rng.shuffle(men)
    for letter in men[: rng.randrange(31)]:
        if letter in "Pp" and rng.random() < 0.02:
            letter = rng.choice(PROMOTED)
            letter = letter if rng.random() < 0.5 else letter.lower()
        sq = free.pop()
        if letter in "Pp" and (sq < 8 or sq >= 56):
            continue
        board[sq] = letter
    ranks = []
    for rank in range(7, -1, -1):
        out, empty = [], 0
        for file in range(8):
            man = board[rank * 8 + file]
            if man is None:
                empty += 1
                continue
            if empty:
                out.append(str(empty))
                empty = 0
            out.append(man)
        if empty:
            out.append(str(empty))
        ranks.append("".join(out))
    side = rng.choice("wb")
    return "%s %s - - 0 %d\n" % ("/".join(ranks), side, rng.randrange(1, 80))


def main():
    size = int(float(sys.argv[1]) * 1_000_000)
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    # A pool of distinct lines written in a seeded order keeps the
    # generator fast while every 4 MB chunk is still varied.
    pool = [position(rng).encode() for _ in range(50_000)]
    out = sys.stdout.buffer
    written = 0
    while written < size:
        chunk = b"".join(rng.sample(pool, len(pool)))
        chunk = chunk[: size - written]
        cut = chunk.rfind(b"\n") + 1 if written + len(chunk) >= size else 0
        if cut:
            chunk = chunk[:cut]
        out.write(chunk)
        written += len(chunk)
        if cut:
            break


if __name__ == "__main__":
    main()
