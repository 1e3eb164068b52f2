#!/usr/bin/env bash
# Benchmark csv2pbi against `xsv input` on the CSV of a generated
# collection, and pbi2csv's workbook (-o FILE.xlsx) on 100k and 1M
# records: time and peak memory, written and read back.
#
#   bench/csv2pbi.sh [SIZE_MB]     (default 1024)
#
# Needs hyperfine, GNU time (/usr/bin/time) and xsv (`cargo install xsv
# --locked`). The corpora go to bench/data/ (ignored by git)
# and are reused.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1024}
data=bench/data
mkdir -p "$data"
cargo build --release --quiet --bin pbi2csv --bin csv2pbi
pbi2csv=target/release/pbi2csv
csv2pbi=target/release/csv2pbi
file=$data/collection-$size.pbi
[ -s "$file" ] || python3 bench/gen_pbi.py "$size" > "$file"
csv=$data/collection-$size.csv
# The generator plants a few flawed records: their warnings go to a file.
[ -s "$csv" ] || "$pbi2csv" "$file" > "$csv" 2> "$csv.warnings"
echo "corpus: $csv, $(stat -c %s "$csv") bytes, $(($(wc -l < "$csv") - 1)) records"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"

peak() { # peak resident memory of one run of a command, in MiB
  /usr/bin/time -v "$@" 2>&1 > /dev/null \
    | awk -F': ' '/Maximum resident set size/ {printf "%.1f MiB\n", $2 / 1024}'
}

# csv2pbi reads the CSV on one thread and makes the PBI lines on another;
# -j1 does both on one, as xsv does.
cat "$csv" > /dev/null
hyperfine -N --warmup 1 --runs 5 --output=null \
  --export-json "$data/csv2pbi.json" \
  -n csv2pbi "$csv2pbi $csv" \
  -n "csv2pbi -j1" "$csv2pbi -j1 $csv" \
  -n "xsv input" "xsv input $csv"
python3 - "$data/csv2pbi.json" "$(stat -c %s "$csv")" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["results"]
size = int(sys.argv[2]) / 1e6
for r in runs:
    print(f"{r['command']:>18}: {r['mean']:6.3f} s (min {r['min']:.3f}, "
          f"max {r['max']:.3f}) {size / r['mean']:5.0f} MB/s, "
          f"CPU {r['user'] + r['system']:.3f} s")
mean = {r["command"]: r["mean"] for r in runs}
print(f"csv2pbi is {mean['xsv input'] / mean['csv2pbi']:.2f}x as fast as "
      f"xsv input ({mean['xsv input'] / mean['csv2pbi -j1']:.2f}x "
      "with -j1)")
PY
echo "csv2pbi peak memory: $(peak "$csv2pbi" "$csv")"
echo "xsv input peak memory: $(peak xsv input "$csv")"

# The workbook: 100k and 1M records, the first lines of the collection.
for n in 100000 1000000; do
  part=$data/first-$n.pbi
  [ -s "$part" ] || head -n $((n + 2)) "$file" > "$part"
  book=$data/first-$n.xlsx
  hyperfine -N --runs 3 --output=null --export-json "$data/xlsx-$n.json" \
    -n "pbi2csv -o x.xlsx ($n)" "$pbi2csv -o $book $part" \
    -n "csv2pbi x.xlsx ($n)" "$csv2pbi $book" \
    -n "pbi2csv ($n, CSV)" "$pbi2csv $part"
  python3 - "$data/xlsx-$n.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"{r['command']:>28}: {r['mean']:6.3f} s (min {r['min']:.3f}, "
          f"max {r['max']:.3f})")
PY
  echo "  workbook: $(stat -c %s "$book") bytes;" \
    "pbi2csv -o peak $(peak "$pbi2csv" -o "$book" "$part");" \
    "csv2pbi peak $(peak "$csv2pbi" "$book")"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
