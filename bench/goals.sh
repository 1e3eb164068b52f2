#!/usr/bin/env bash
# bench/goals.sh: issue 17's goals, each tool and its peer run side by
# side, alternately, many times, so that a busy moment hits both: the
# ratio of each round, and its spread over the rounds.
#
#   bench/goals.sh [ROUNDS]     (default 10)
#
# Uses the corpora of bench/run (run it first) and the release build.
# Writes a table between the goals markers of BENCHMARKS.md, and prints
# it. Standard output goes to /dev/null for pbi2csv and xsv, to a pipe
# that this script drains for the searchers and gbr-encode (as in
# bench/run).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-10}
data=bench/data
pbi=$data/collection-1024.pbi
body=$data/collection-1024.body
fen=$data/fen-512.fen
for f in "$pbi" "$body" "$fen"; do
    [ -s "$f" ] || { echo "$f missing: run bench/run first" >&2; exit 2; }
done
cargo build --release --quiet
bin=target/release
cat "$pbi" "$body" "$fen" > /dev/null

python3 - "$rounds" "$bin" "$pbi" "$body" "$fen" <<'PY'
import os, statistics, subprocess, sys, time

rounds, bin_, pbi, body, fen = sys.argv[1:6]
rounds = int(rounds)
# (goal, tool command, peer command, output, goal text, ratio kind)
pairs = [
    ("pbi2csv, two threads", [f"{bin_}/pbi2csv", pbi],
     ["xsv", "input", "-d", ":", body], "null", "4x xsv's speed (its time / ours)", "speed"),
    ("pbi2csv, one thread", [f"{bin_}/pbi2csv", "-j1", pbi],
     ["xsv", "input", "-d", ":", body], "null", "2x xsv's speed (its time / ours)", "speed"),
    ("pbi-grep -c --author Loyd, two threads",
     [f"{bin_}/pbi-grep", "-c", "--author", "Loyd", pbi],
     ["rg", "-c", "^[^:]*Loyd", pbi], "pipe",
     "at most 1.2x rg's time (our time / its)", "time"),
    # Not a goal: what reading every line costs, with nothing to select
    # (a name that occurs nowhere), against the same rg run.
    ("pbi-grep -c --author Zqzq (the checks alone), two threads",
     [f"{bin_}/pbi-grep", "-c", "--author", "Zqzq", pbi],
     ["rg", "-c", "^[^:]*Loyd", pbi], "pipe",
     "(none: the floor of the goal above)", "time"),
    ("gbr-encode, two threads", [f"{bin_}/gbr-encode", fen],
     ["wc", "-l", fen], "pipe", "at least 1 GB/s (input / our time)", "rate"),
    ("gbr-encode, one thread", [f"{bin_}/gbr-encode", "-j1", fen],
     ["wc", "-l", fen], "pipe", "at least 1 GB/s (input / our time)", "rate"),
]


def run(cmd, output):
    out = subprocess.DEVNULL if output == "null" else subprocess.PIPE
    start = time.perf_counter()
    # (pbi-grep exits 1 when it selects nothing: only the time counts.)
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.DEVNULL)
    if output == "pipe":
        while p.stdout.read(1 << 16):
            pass
    p.wait()
    return time.perf_counter() - start


def load():
    return open("/proc/loadavg").read().split()[0]


before = load()
times = {i: ([], []) for i in range(len(pairs))}
for r in range(rounds):
    for i, (_, tool, peer, output, _, _) in enumerate(pairs):
        # Alternate which goes first.
        if r % 2 == 0:
            t = run(tool, output)
            q = run(peer, output)
        else:
            q = run(peer, output)
            t = run(tool, output)
        times[i][0].append(t)
        times[i][1].append(q)
after = load()


def spread(xs):
    return f"{statistics.mean(xs):.3f} ± {statistics.stdev(xs):.3f}"


L = ["<!-- goals:begin -->",
     "<!-- Written by bench/goals.sh; edit outside the markers only. -->",
     "",
     f"Each tool and its peer run alternately, {rounds} rounds (wall-clock "
     f"seconds, mean ± standard deviation; load average {before} before, "
     f"{after} after). The ratio is taken in each round, so that a busy "
     "moment weighs on both; its median and range over the rounds are "
     "given.",
     "",
     "| tool, threads (tool vs peer) | tool s | peer s | measured: median (min-max) | goal |",
     "| --- | ---: | ---: | ---: | --- |"]
size = {"pbi": os.path.getsize(pbi), "fen": os.path.getsize(fen)}
for i, (name, tool, peer, _, goal, kind) in enumerate(pairs):
    t, q = times[i]
    if kind == "speed":
        rs = [b / a for a, b in zip(t, q)]
        fmt = lambda x: f"{x:.2f}x"
    elif kind == "time":
        rs = [a / b for a, b in zip(t, q)]
        fmt = lambda x: f"{x:.2f}x"
    else:
        rs = [size["fen"] / a / 1e9 for a in t]
        fmt = lambda x: f"{x:.2f} GB/s"
    med = statistics.median(rs)
    L.append(f"| {name} (`{' '.join(tool).replace(bin_ + '/', '')}` vs "
             f"`{' '.join(peer)}`) | {spread(t)} | {spread(q)} | "
             f"{fmt(med)} ({fmt(min(rs))}-{fmt(max(rs))}) | {goal} |")
L += ["", "<!-- goals:end -->"]
block = "\n".join(L)
print(block)
out = "BENCHMARKS.md"
text = open(out).read()
begin, end = "<!-- goals:begin -->", "<!-- goals:end -->"
if begin in text and end in text:
    a, rest = text.split(begin, 1)
    text = a + block + rest.split(end, 1)[1]
else:
    text = text.rstrip("\n") + "\n\n## The goals of issue 17\n\n" + block + "\n"
open(out, "w").write(text)
PY
