#!/usr/bin/env python3
"""Deterministic generator of FEN lists for the gbr-encode benchmark.

Usage: gen_fen.py SIZE_MB [SEED] [--stats] > out.fen

Writes lines shaped like real FEN lists (LF line ends) until SIZE_MB
megabytes (10^6 bytes) are written. The same SIZE_MB and SEED always
give the same bytes.

- Positions from games and from compositions: one king a side and 0-30
  further men drawn from the two armies of a game, pawns only on ranks
  2-7, now and then a promoted piece.
- All six FEN fields (board, side to move, castling, en passant,
  halfmove clock, move number) on most lines, White or Black to move;
  some lines give the board alone (no side to move), as diagram
  collections do.
- Free text after the fields on most lines: an EPD-like `bm`/`id`
  record, a game's players and event, a composer and source, or a
  `;` comment, in several scripts.

--stats prints to stderr what share of the lines has each shape.
"""

import random
import sys

# Each side's men besides the king, as in a game.
ARMY = "QRRBBNNPPPPPPPP"
# What a pawn may have promoted to, now and then.
PROMOTED = "QQQQRBN"

PLAYERS = ["Kasparov, Garry", "Topalov, Veselin", "Carlsen, Magnus",
           "Anand, Viswanathan", "Карпов, Анатолий", "Таль, Михаил",
           "Polgár, Judit", "Portisch, Lajos", "Hort, Vlastimil",
           "Lasker, Emanuel", "Hübner, Robert", "Ботвинник, Михаил",
           "Navara, David", "Lékó, Péter", "Smyslov, Vasily"]
EVENTS = ["Wijk aan Zee", "Linares", "Moscow ch", "Budapest", "Praha",
          "Dortmund", "Olympiad", "Bundesliga", "Москва", "Tilburg"]
COMPOSERS = ["Kubbel, Leonid", "Troitzky, Alexey", "Réti, Richard",
             "Loyd, Samuel", "Куббель, Леонид", "Bláthy, Ottó",
             "Havel, Miroslav", "Kohtz, Johannes", "Pospíšil, Josef",
             "Rinck, Henri", "Kasparyan, Genrikh", "Gurgenidze, David"]
SOURCES = ["Rigaer Tageblatt", "Шахматы в СССР", "Deutsche Schachzeitung",
           "Magyar Sakkvilág", "Československý šach", "EG", "The Problemist"]
MOVES = ["Rxd4", "Qh5+", "Nf3", "e4", "Bxf7+", "O-O", "Kg2", "c8=Q", "Nd5"]


def board(rng):
    squares = [None] * 64
    free = list(range(64))
    rng.shuffle(free)
    squares[free.pop()] = "K"
    squares[free.pop()] = "k"
    men = list(ARMY) + list(ARMY.lower())
    rng.shuffle(men)
    # Games have many men, compositions and endings few.
    n = rng.randrange(31) if rng.random() < 0.5 else rng.randrange(8)
    for letter in men[:n]:
        if letter in "Pp" and rng.random() < 0.02:
            letter = rng.choice(PROMOTED)
            letter = letter if rng.random() < 0.5 else letter.lower()
        sq = free.pop()
        if letter in "Pp" and (sq < 8 or sq >= 56):
            continue
        squares[sq] = letter
    ranks = []
    for rank in range(7, -1, -1):
        out, empty = [], 0
        for file in range(8):
            man = squares[rank * 8 + file]
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
    return "/".join(ranks), squares


def castling(rng, squares):
    rights = ""
    if squares[4] == "K":
        rights += "K" * (squares[7] == "R") + "Q" * (squares[0] == "R")
    if squares[60] == "k":
        rights += "k" * (squares[63] == "r") + "q" * (squares[56] == "r")
    return rights if rights and rng.random() < 0.8 else "-"


def free_text(rng):
    kind = rng.randrange(5)
    if kind == 0:
        return (f'bm {rng.choice(MOVES)}; id "{rng.choice(EVENTS)}.'
                f'{rng.randint(1, 999):03d}";')
    if kind == 1:
        return (f"; {rng.choice(PLAYERS)} - {rng.choice(PLAYERS)}, "
                f"{rng.choice(EVENTS)} {rng.randint(1900, 2024)}")
    if kind == 2:
        return (f'"{rng.choice(COMPOSERS)}, {rng.choice(SOURCES)} '
                f'{rng.randint(1850, 2024)}"')
    if kind == 3:
        return f"; {rng.choice(['win', 'draw', '+', '=', '1-0', '½-½'])}"
    return f"{rng.choice(['#2', '#3', 'h#2', '+', '='])} {rng.choice(COMPOSERS)}"


def position(rng, stats):
    fen, squares = board(rng)
    roll = rng.random()
    if roll < 0.12:
        side = None  # the board alone
    else:
        side = "w" if roll < 0.56 else "b"
    line = fen
    if side:
        ep = "-"
        if rng.random() < 0.05:
            ep = rng.choice("abcdefgh") + ("6" if side == "w" else "3")
        line += (f" {side} {castling(rng, squares)} {ep} "
                 f"{rng.randrange(50)} {rng.randrange(1, 80)}")
    text = rng.random() < 0.7
    if text:
        line += " " + free_text(rng)
    stats["lines"] += 1
    stats["bytes"] += len(line.encode()) + 1
    stats["white to move"] += side == "w"
    stats["black to move"] += side == "b"
    stats["no side to move"] += side is None
    stats["free text after"] += text
    return (line + "\n").encode()


def main():
    args = [a for a in sys.argv[1:] if a != "--stats"]
    size = int(float(args[0]) * 1_000_000)
    rng = random.Random(int(args[1]) if len(args) > 1 else 1)
    stats = dict.fromkeys(["lines", "bytes", "white to move", "black to move",
                           "no side to move", "free text after"], 0)
    # A pool of distinct lines written in a seeded order keeps the
    # generator fast while every chunk is still varied.
    pool = [position(rng, stats) for _ in range(50_000)]
    if "--stats" in sys.argv[1:]:
        n = stats["lines"]
        for k, v in stats.items():
            if k not in ("lines", "bytes"):
                print(f"{k}: {100 * v / n:.1f}% of lines", file=sys.stderr)
        print(f"mean line: {stats['bytes'] / n:.0f} bytes", file=sys.stderr)
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
