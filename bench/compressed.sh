#!/usr/bin/env bash
# Peak memory and time of every tool on a large compressed corpus, beside
# the same corpus plain (issue 16: memory stays flat, under 16 MiB).
#
#   bench/compressed.sh [PBI_MB [PGN_MB]]     (defaults 1024 and 1000)
#
# Generates a PBI collection (gen_pbi.py, MiB) and Kriegspiel PGN
# (gen_kpgn.py, 10^6 bytes) into bench/data/ (ignored by git; reused
# when present), compresses each with gzip -6, zstd -3, bzip2 -9 and
# xz -6 (the tools' defaults), and runs each tool once on each form with
# GNU time: peak resident memory (max RSS) and wall-clock time, as a
# Markdown table on stdout. One run each: the times are rough; the
# memory is what the issue asks for. Needs gzip, zstd, bzip2, xz,
# /usr/bin/time and python-chess (for gen_kpgn.py).
set -euo pipefail
cd "$(dirname "$0")/.."
pbi_mb=${1:-1024}
pgn_mb=${2:-1000}
data=bench/data
mkdir -p "$data"

# gen PATH COMMAND...: write COMMAND's output to PATH unless PATH exists.
gen() {
    local path=$1
    shift
    [ -s "$path" ] && return
    echo "generating $path" >&2
    "$@" > "$path.tmp"
    mv "$path.tmp" "$path"
}

pbi=$data/collection-$pbi_mb.pbi
pgn=$data/kpgn-real-$pgn_mb.pgn
gen "$pbi" python3 bench/gen_pbi.py "$pbi_mb"
gen "$pgn" python3 bench/gen_kpgn.py "$pgn_mb"
for f in "$pbi" "$pgn"; do
    gen "$f.gz" gzip -6 -c "$f"
    gen "$f.zst" zstd -3 -q -c "$f"
    gen "$f.bz2" bzip2 -9 -c "$f"
    gen "$f.xz" xz -6 -T2 -c "$f"
done

cargo build --release --quiet --bins
bin=target/release

# run LABEL FILE COMMAND...: one row: COMMAND FILE with its output
# thrown away, its peak memory and time.
run() {
    local label=$1 file=$2 err=$data/compressed-time.txt
    shift 2
    cat "$file" > /dev/null
    /usr/bin/time -v "$@" "$file" > /dev/null 2> "$err" || true
    local rss wall
    rss=$(awk -F': ' '/Maximum resident/ {printf "%.1f", $2 / 1024}' "$err")
    wall=$(awk -F': ' '/Elapsed \(wall/ {print $2}' "$err")
    printf '| %s | %s | %s MiB | %s |\n' "$label" "${file##*/}" "$rss" "$wall"
}

echo "corpora: $pbi $(stat -c %s "$pbi") bytes, $pgn $(stat -c %s "$pgn") bytes"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo
echo "| command | input | peak memory | time |"
echo "| --- | --- | --- | --- |"
for ext in "" .gz .zst .bz2 .xz; do
    run "pbi2csv" "$pbi$ext" "$bin/pbi2csv"
    run "pbi2csv -j1" "$pbi$ext" "$bin/pbi2csv" -j1
    run "pbi-grep -c Loyd" "$pbi$ext" "$bin/pbi-grep" -c Loyd
    run "gbr-encode" "$pbi$ext" "$bin/gbr-encode"
    run "kpgn-filter -w" "$pgn$ext" "$bin/kpgn-filter" -w
    run "kpgn-check" "$pgn$ext" "$bin/kpgn-check"
done
