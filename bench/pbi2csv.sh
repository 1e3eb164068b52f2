#!/usr/bin/env bash
# Benchmark pbi2csv against `xsv input -d ':'` on a generated collection.
#
#   bench/pbi2csv.sh [SIZE_MB]     (default 1024)
#
# Needs hyperfine, GNU time (/usr/bin/time) and xsv (`cargo install xsv`).
# The corpus goes to bench/data/ (ignored by git) and is reused.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1024}
data=bench/data
mkdir -p "$data"
file=$data/collection-$size.pbi
[ -s "$file" ] || python3 bench/gen_pbi.py "$size" > "$file"
# xsv rejects rows with another number of fields than the first, so it
# reads the data lines alone (the same records, without the 2 header
# lines).
body=$data/collection-$size.body
[ -s "$body" ] || tail -n +3 "$file" > "$body"
cargo build --release --quiet --bin pbi2csv
pbi2csv=target/release/pbi2csv
bytes=$(stat -c %s "$file")
echo "corpus: $file, $bytes bytes, $(wc -l < "$file") lines"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

# Warm the page cache so both tools read from memory.
cat "$file" "$body" > /dev/null

# pbi2csv runs one worker thread per core by default; -j1 is one thread,
# as xsv is. The CPU time (user + system) shows the work each did.
hyperfine --warmup 1 --runs 5 --export-json "$data/pbi2csv.json" \
  -n pbi2csv "$pbi2csv $file > /dev/null" \
  -n "pbi2csv -j1" "$pbi2csv -j1 $file > /dev/null" \
  -n "xsv input -d ':'" "xsv input -d ':' $body > /dev/null"

python3 - "$data/pbi2csv.json" "$bytes" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["results"]
size = int(sys.argv[2]) / 1e6
mean = {r["command"]: r["mean"] for r in runs}
cpu = {r["command"]: r["user"] + r["system"] for r in runs}
for name, t in mean.items():
    print(f"{name:>20}: {t:7.3f} s  {size / t:8.0f} MB/s  CPU {cpu[name]:.3f} s")
xsv = mean["xsv input -d ':'"]
print(f"pbi2csv is {xsv / mean['pbi2csv']:.2f}x as fast as xsv input "
      f"({xsv / mean['pbi2csv -j1']:.2f}x with one thread)")
PY

rss=$( { /usr/bin/time -v "$pbi2csv" "$file" > /dev/null; } 2>&1 \
  | awk -F': ' '/Maximum resident set size/ {print $2}')
echo "pbi2csv peak memory: $rss KiB ($((rss / 1024)) MiB)"
