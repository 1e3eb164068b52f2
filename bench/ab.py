#!/usr/bin/env python3
"""A/B timing of two commands, alternating, for changes too small for
hyperfine's rounds to tell apart on a shared machine.

Usage: bench/ab.py [--rounds N] 'COMMAND A' 'COMMAND B'

Runs each command once to warm the caches, then A, B, A, B, ... N times
each (default 10), output to /dev/null, and prints for each the median
wall time and the median CPU time (user and system, from wait4), and the
median, least and greatest of the N ratios B/A, in wall time and in CPU
time, with the load average. A command that exits other than with 0 is
named once on stderr. A command is split on white space (no shell):
give paths without spaces. Timing a build against itself shows the noise
(0.98-1.02 here).
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time


WARNED = []


def run(cmd):
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0 and cmd not in WARNED:
        # A status of 1 may be an answer (pbi-grep: nothing selected).
        WARNED.append(cmd)
        print(f"ab.py: warning: '{shlex.join(cmd)}' exited with status "
              f"{os.waitstatus_to_exitcode(status)}", file=sys.stderr)
    return wall, usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args()
    if args.rounds < 1:
        sys.exit("ab.py: error: --rounds needs 1 or more")
    a, b = args.a.split(), args.b.split()
    run(a)
    run(b)
    times = {"a": [], "b": []}
    for _ in range(args.rounds):
        times["a"].append(run(a))
        times["b"].append(run(b))
    med = statistics.median
    for k, cmd in (("a", a), ("b", b)):
        wall = med(t[0] for t in times[k])
        cpu = med(t[1] for t in times[k])
        print(f"{k.upper()}: wall {wall:.3f} s, CPU {cpu:.3f} s: {shlex.join(cmd)}")
    for i, what in ((0, "wall"), (1, "CPU")):
        r = [y[i] / x[i] for x, y in zip(times["a"], times["b"])]
        print(f"B/A {what}: median {med(r):.3f} ({min(r):.3f}-{max(r):.3f})")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
