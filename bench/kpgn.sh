#!/usr/bin/env bash
# Benchmark of kpgn-filter against pgn-extract on the same generated
# Kriegspiel PGN.
#
# Usage: bench/kpgn.sh [SIZE_MB]   (default 200)
#
# Generates bench/data/kpgn-SIZE.pgn with bench/gen_kpgn.py (once; the
# generator is deterministic), builds kpgn-filter in release mode, then
# times `kpgn-filter -w FILE > /dev/null` (one worker thread per core,
# and with -j1 on one thread) against
# `pgn-extract -s -o /dev/null FILE` (pgn-extract parses and replays
# every game, which is the work a user would otherwise pay for), with
# hyperfine when it is installed, and measures the peak memory of each
# with /usr/bin/time -v.
#
# Needs: python3 with python-chess (pip install chess), pgn-extract
# (apt-get install pgn-extract; Debian puts it in /usr/games), GNU time
# (apt-get install time), optionally hyperfine.
set -euo pipefail

cd "$(dirname "$0")/.."
size=${1:-200}
data=bench/data/kpgn-$size.pgn

if [ ! -s "$data" ]; then
    mkdir -p bench/data
    echo "generating $data ..." >&2
    python3 bench/gen_kpgn.py "$size" > "$data.tmp"
    mv "$data.tmp" "$data"
fi

cargo build --release --quiet --bin kpgn-filter
kpgn=target/release/kpgn-filter

pgnx=$(command -v pgn-extract || true)
if [ -z "$pgnx" ] && [ -x /usr/games/pgn-extract ]; then
    pgnx=/usr/games/pgn-extract
fi
if [ -z "$pgnx" ]; then
    echo "kpgn.sh: pgn-extract not found (apt-get install pgn-extract)" >&2
    exit 2
fi

bytes=$(stat -c %s "$data")
echo "corpus: $data, $bytes bytes, $(grep -c '^\[Event ' "$data") games"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "kpgn-filter: $($kpgn --version)"
echo "pgn-extract: $pgnx"

# Warm the page cache so that both read from memory.
cat "$data" > /dev/null

if command -v hyperfine > /dev/null; then
    hyperfine --warmup 1 --runs 5 --export-json bench/data/kpgn.json \
        -n kpgn-filter "$kpgn -w $data > /dev/null" \
        -n "kpgn-filter -j1" "$kpgn -j1 -w $data > /dev/null" \
        -n pgn-extract "$pgnx -s -o /dev/null $data"
    python3 - "$bytes" bench/data/kpgn.json <<'PY'
import json, sys
size = int(sys.argv[1]) / 1e6
runs = {r["command"]: r["mean"] for r in json.load(open(sys.argv[2]))["results"]}
k, p = runs["kpgn-filter"], runs["pgn-extract"]
k1 = runs["kpgn-filter -j1"]
print(f"kpgn-filter: {k:.3f} s, {size / k:.0f} MB/s")
print(f"kpgn-filter -j1: {k1:.3f} s, {size / k1:.0f} MB/s")
print(f"pgn-extract: {p:.3f} s, {size / p:.0f} MB/s")
print(f"kpgn-filter is {p / k:.1f} times as fast as pgn-extract")
PY
else
    for cmd in "$kpgn -w $data" "$pgnx -s -o /dev/null $data"; do
        echo "$cmd"
        /usr/bin/time -f '%e s' $cmd > /dev/null
    done
fi

for cmd in "$kpgn -w $data" "$kpgn -j1 -w $data" "$pgnx -s -o /dev/null $data"; do
    rss=$(/usr/bin/time -v $cmd 2>&1 > /dev/null |
        sed -n 's/.*Maximum resident set size (kbytes): //p')
    echo "peak RSS: $rss KiB: $cmd"
done
