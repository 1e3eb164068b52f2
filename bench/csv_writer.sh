#!/usr/bin/env bash
# The tools' own CSV writer against the csv crate's, on the same rows
# (bench/csv_writer.rs), and what the difference is worth to pbi2csv.
#
# Usage: bench/csv_writer.sh [SIZE_MB]   (default 50)
#
# Converts a generated collection with pbi2csv, times writing its rows
# with each writer (fastest of 5 rounds, no I/O), then times pbi2csv -j1
# on the same collection, so that the writer's share of the whole can be
# read off.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-50}
pbi=bench/data/collection-$size.pbi
mkdir -p bench/data
[ -s "$pbi" ] || python3 bench/gen_pbi.py "$size" > "$pbi"
cargo build --release --quiet --bin pbi2csv --example csv_writer
target/release/pbi2csv "$pbi" > bench/data/rows-$size.csv
target/release/examples/csv_writer bench/data/rows-$size.csv 5
rows=$(($(wc -l < bench/data/rows-$size.csv) - 1))
best=999
for _ in 1 2 3 4 5; do
    start=$(date +%s.%N)
    target/release/pbi2csv -j1 "$pbi" > /dev/null
    end=$(date +%s.%N)
    best=$(echo "$end - $start" | bc -l | awk -v b="$best" '{print ($1 < b) ? $1 : b}')
done
awk -v s="$best" -v r="$rows" \
    'BEGIN { printf "pbi2csv -j1, whole run: %.1f ns/row (%.3f s)\n", s * 1e9 / r, s }'
