#!/usr/bin/env python3
"""A large input (> 8 MiB) of refereed games with hostile games and
hostile text between games placed near the batch boundaries of the
threaded reader (256 KiB, 512 KiB, 1, 2, 4 MiB and multiples), read by
kpgn-filter on one thread and on two, from the file, from stdin, and
gzip- and zstd-compressed: every run must give the same output and the
same messages, and no marker of the opponent's (or of text outside
games, or of a variation) may appear.

Usage: hostile_big.py [--filter PATH] [--seed S] [--player w|b] [--keep]
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_leak as hl  # noqa: E402

KiB = 1024
MiB = 1024 * KiB

JUNK = [
    # Text outside games, comments and variations left open across the
    # next game's tags, escape lines, stray brackets, broken tag lines.
    "{%s outside}\n",
    "{%s open outside\n",
    "%%%s escape\n",
    "( %s open variation\n",
    "1. e4 {(:)} e5 {%s open\n",
    "1. e4 {(:)} e5 ( 1... d5 {%s}\n",
    "[x] %s\n",
    "[Event \"%s\n",
    "; %s\n",
    "} %s\n",
    ") %s\n",
    "\u00a0{%s}\u0085",
    "{%s\r[Event \"in\"]\r}\r",
    "\n\n",
    "",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--filter", default=os.path.join(hl.ROOT, "target", "release", "kpgn-filter"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--player", default="w")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--size", type=int, default=9 * MiB)
    ap.add_argument("--out", default=None)
    ap.add_argument("--every", type=int, default=40 * KiB)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    games = hl.read_corpus()
    plain = open(hl.CORPUS, "rb").read().split(b"\n\n[")
    plain = [plain[0] + b"\n"] + [b"[" + g + b"\n" for g in plain[1:]]
    player = "W" if args.player == "w" else "B"
    opp = "B" if player == "W" else "W"
    # Offsets near which hostile pieces go.
    targets = []
    for base in (256 * KiB, 512 * KiB, 1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB):
        for k in range(1, 9):
            t = base * k
            if t < args.size:
                targets.append(t)
    k = 0
    while k < args.size:
        k += rng.randrange(1, 2 * args.every)
        targets.append(k)
    targets = sorted(set(targets))
    data = bytearray()
    n = 0
    junk_n = 0
    ti = 0
    while len(data) < args.size:
        near = ti < len(targets) and len(data) >= targets[ti] - rng.randrange(0, 3000)
        if near:
            while ti < len(targets) and targets[ti] <= len(data) + 3000:
                ti += 1
            # A hostile game or hostile text right here.
            for _ in range(rng.randrange(1, 4)):
                r = rng.random()
                if r < 0.5:
                    case = hl.Case(rng, rng.choice(games), 100000 + n)
                    case.player = player
                    case.keep = args.keep
                    case.plies = None
                    case.filtered_override = None
                    toks = hl.build(case)
                    if rng.random() < 0.3:
                        hl.add_fault(case, toks)
                        if case.fault == "unclosed":
                            # A comment opened on the marker's line would
                            # take in the junk after the game.
                            toks.pop()
                    text = hl.serialize(case, toks)
                    if case.filtered_override == "opponent":
                        o = "black" if player == "W" else "white"
                        text = re.sub(r'\[Filtered\s*"[^"]*"\]', '[Filtered "%s"]' % o, text, count=1)
                    data += hl.encode(text)
                    n += 1
                else:
                    junk_n += 1
                    j = rng.choice(JUNK)
                    if "%s" in j:
                        j = j % ("Mk%dx0JZ" % junk_n)
                    data += hl.encode(j)
                    if "e5 {" in j:
                        # A game with a comment left open: what follows
                        # is in that comment up to a line of tag pairs.
                        data += plain[rng.randrange(len(plain))]
                        break
                data += hl.encode(rng.choice(["", "\n", "\r\n", "\n\n", "\u2028"]))
        else:
            data += plain[rng.randrange(len(plain))]
            data += rng.choice([b"\n", b"", b"\n\n", b"\r\n"])
    d = tempfile.mkdtemp(prefix="hostile_big")
    path = args.out or os.path.join(d, "big.pgn")
    open(path, "wb").write(data)
    subprocess.run(["gzip", "-kf", path], check=True)
    subprocess.run(["zstd", "-qf", path, "-o", path + ".zst"], check=True)
    flag = "-" + args.player
    extra = ["--keep-comments"] if args.keep else []
    runs = {}

    def run(name, argv, stdin=None):
        p = subprocess.run(argv, stdin=stdin, capture_output=True)
        runs[name] = (p.stdout, p.stderr, p.returncode)

    run("j1", [args.filter, flag, "-j1"] + extra + [path])
    run("j2", [args.filter, flag, "-j2"] + extra + [path])
    with open(path, "rb") as f:
        run("stdin-j2", [args.filter, flag, "-j2"] + extra, stdin=f)
    run("gz-j2", [args.filter, flag, "-j2"] + extra + [path + ".gz"])
    run("zst-j1", [args.filter, flag, "-j1"] + extra + [path + ".zst"])
    base = runs["j1"]
    problems = 0

    def norm(err, name):
        return err.replace((path + ".gz").encode(), b"F").replace((path + ".zst").encode(), b"F").replace(path.encode(), b"F").replace(b"<stdin>", b"F")
    for name, r in runs.items():
        if r[0] != base[0]:
            problems += 1
            a, b = base[0], r[0]
            k = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
            print("%s: output differs from j1 at byte %d (len %d vs %d)" % (name, k, len(b), len(a)))
        if norm(r[1], name) != norm(base[1], "j1") or r[2] != base[2]:
            problems += 1
            print("%s: messages or status differ (%d vs %d)" % (name, r[2], base[2]))
    out = base[0].decode("utf-8", "surrogateescape")
    for m in re.finditer(r"Mk\d+x\d+([WBNVJ])Z", out):
        who = m.group(1)
        if who in "VJ" or (who == opp and not args.keep):
            problems += 1
            print("leak: %s at %d" % (m.group(0), m.start()))
            break
    print("%d bytes, %d hostile games, %d junk pieces, status %d, %d messages, %d problems; %s" % (
        len(data), n, junk_n, base[2], base[1].count(b"\n"), problems,
        path if problems else "removed"))
    if not problems and not args.out:
        for ext in ("", ".gz", ".zst"):
            os.unlink(path + ext)
        os.rmdir(d)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
