#!/usr/bin/env python3
"""Where kpgn-filter's time goes, next to pgn-reader's `stats`: each tool
timed on variants of one Kriegspiel corpus that each take one feature
out, so that the time a feature costs each tool is the variant's
difference from the corpus as it is.

Usage: bench/attribute.py [--rounds N] [--mb M] [--filter PATH]
                          [--stats PATH] CORPUS

The first M MB of CORPUS (default 60; cut before a game) are written to
a temporary directory as these variants:

  base      as read
  joined    each run of movetext lines on one line (`;` and `%` lines
            kept apart): no line end between two tokens
  nonag     no NAG (` $12`)
  nodots    no black move number after a comment (`} 12... ` as `} `)
  notext    no free text in a Kriegspiel comment (the head kept)
  nohead    every Kriegspiel comment's head `(:)`: no announcement, no
            attempt (the free text kept)
  noatt     no illegal attempt (the announcements kept)
  oneatt    one attempt in every comment, always `dxc3`
  sameatt   as many attempts as the comment had, each `dxc3`: with
            oneatt, what the number of attempts costs, which a game
            decides at random, apart from their shapes
  periodic  one game of the corpus, the eleventh, repeated: the same
            decisions in the same order, which the processor learns to
            foresee; compared by the time per `{` comment, not in all

Each tool reads each variant N times (default 15), the variants in
turn, output to /dev/null; the table gives the least and the median CPU
time (user plus system, from wait4: the least is what a run costs when
nothing else takes the core), the ratio of kpgn-filter's to `stats`'
least time, and each tool's difference from its time on `base`. A
variant that kpgn-filter does not read without a message stops the
script (the variants must stay valid Kriegspiel PGN).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def cut(data, mb):
    """The first `mb` MB of `data`, ending before a game's first tag."""
    if len(data) <= mb * 10**6:
        return data
    end = data.rfind(b"\n[Event ", 0, mb * 10**6)
    return data[: end + 1] if end > 0 else data


def joined(data):
    """Each run of movetext lines joined into one line."""
    out, run = [], []
    for line in data.split(b"\n"):
        kept_apart = (
            not line
            or line.startswith(b"[")
            or line.startswith(b"%")
            or b";" in line
        )
        if kept_apart:
            if run:
                out.append(b" ".join(run))
                run = []
            out.append(line)
        else:
            run.append(line)
    if run:
        out.append(b" ".join(run))
    return b"\n".join(out)


HEAD_LIST = re.compile(rb"(\{\s*\([^):]*:)([^)]*)\)")


def attempts(data, count):
    """Each comment's list of attempts made `count(list)` times `dxc3`
    (a count, `(:3)`, left as it is)."""

    def list_of(m):
        listed = m.group(2).strip()
        if listed.isdigit():
            return m.group(0)
        n = count(listed)
        return m.group(1) + b",".join([b"dxc3"] * n) + b")"

    return HEAD_LIST.sub(list_of, data)


def periodic(data):
    """The eleventh game of `data`, repeated to about its size."""
    games = data.split(b"\n\n[Event ")
    game = b"[Event " + games[min(10, len(games) - 1)].rstrip(b"\n") + b"\n\n"
    return game * max(1, len(data) // len(game))


VARIANTS = {
    "base": lambda d: d,
    "joined": joined,
    "nonag": lambda d: re.sub(rb" \$\d+", b"", d),
    "nodots": lambda d: re.sub(rb"\} \d+\.\.\. ", b"} ", d),
    "notext": lambda d: re.sub(rb"(\{\s*\([^)]*\))[^}]*\}", rb"\1}", d),
    "nohead": lambda d: re.sub(rb"\{\s*\([^)]*\)", b"{(:)", d),
    "noatt": lambda d: attempts(d, lambda _: 0),
    "oneatt": lambda d: attempts(d, lambda _: 1),
    "sameatt": lambda d: attempts(d, lambda a: len(a.split(b",")) if a else 0),
    "periodic": periodic,
}


def cpu(cmd):
    """The CPU time (user plus system) of one run of `cmd`."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"attribute.py: '{' '.join(cmd)}' failed")
    return usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--mb", type=int, default=60)
    ap.add_argument(
        "--filter", default=os.path.join(ROOT, "target/release/kpgn-filter")
    )
    ap.add_argument(
        "--stats",
        default=os.path.join(HERE, "pgn-reader/target/release/stats"),
    )
    ap.add_argument("corpus")
    args = ap.parse_args()
    with open(args.corpus, "rb") as f:
        data = cut(f.read(), args.mb)
    tmp = tempfile.mkdtemp(prefix="attribute.")
    try:
        files = {}
        for name, make in VARIANTS.items():
            path = os.path.join(tmp, name + ".pgn")
            variant = make(data)
            with open(path, "wb") as f:
                f.write(variant)
            check = subprocess.run(
                [args.filter, "-w", "-j1", path],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            if check.returncode != 0 or check.stderr:
                sys.exit(f"attribute.py: kpgn-filter does not read {name}: "
                         f"{check.stderr[:200]!r}")
            files[name] = (path, variant.count(b"{"))
        tools = {
            "kpgn-filter": lambda p: [args.filter, "-w", "-j1", p],
            "stats": lambda p: [args.stats, p],
        }
        times = {(t, v): [] for t in tools for v in files}
        for _ in range(args.rounds):
            for v, (path, _) in files.items():
                for t, cmd in tools.items():
                    times[(t, v)].append(cpu(cmd(path)))
        least = {k: min(r) for k, r in times.items()}
        median = {k: sorted(r)[len(r) // 2] for k, r in times.items()}
        print(f"{args.corpus}, first {len(data) / 1e6:.1f} MB, "
              f"{args.rounds} rounds; CPU seconds, least (median)")
        print()
        print("| variant | MB | kpgn-filter | stats | ratio "
              "| kpgn-filter vs base | stats vs base |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        base_comments = files["base"][1]

        def against_base(t, v, comments):
            """Tool `t`'s time on `v` against its time on `base`: the
            difference, or for `periodic` the ratio a comment."""
            if v == "periodic":
                ratio = (least[(t, v)] / comments) / (
                    least[(t, "base")] / base_comments)
                return f"{ratio:.2f}x a comment"
            return f"{least[(t, v)] - least[(t, 'base')]:+.4f}"

        for v, (path, comments) in files.items():
            cells = [f"{least[(t, v)]:.4f} ({median[(t, v)]:.4f})"
                     for t in tools]
            diffs = [against_base(t, v, comments) for t in tools]
            ratio = least[("kpgn-filter", v)] / least[("stats", v)]
            mb = os.path.getsize(path) / 1e6
            print(f"| {v} | {mb:.1f} | {' | '.join(cells)} "
                  f"| {ratio:.2f} | {' | '.join(diffs)} |")
        print()
        print(f"load average {os.getloadavg()[0]:.2f}")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
