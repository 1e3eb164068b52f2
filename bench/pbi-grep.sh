#!/usr/bin/env bash
# Benchmark `pbi-grep -c --author Loyd` against `rg -c '^[^:]*Loyd'`
# (the author field is the text before the first colon) on a generated
# collection.
#
#   bench/pbi-grep.sh [SIZE_MB]     (default 1024)
#
# Needs hyperfine, GNU time (/usr/bin/time) and ripgrep.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-1024}
data=bench/data
mkdir -p "$data"
file=$data/collection-$size.pbi
[ -s "$file" ] || python3 bench/gen_pbi.py "$size" > "$file"
cargo build --release --quiet --bin pbi-grep
grep=target/release/pbi-grep
bytes=$(stat -c %s "$file")
echo "corpus: $file, $bytes bytes"
cat "$file" > /dev/null

# Both must count the same records.
ours=$("$grep" -c --author Loyd "$file")
theirs=$(rg -c '^[^:]*Loyd' "$file")
echo "records: pbi-grep $ours, rg $theirs"

# pbi-grep runs one worker thread per core by default; -j1 is one
# thread. rg decides for itself (one thread for one file).
hyperfine --warmup 1 --runs 5 --export-json "$data/pbi-grep.json" \
  -n pbi-grep "$grep -c --author Loyd $file" \
  -n "pbi-grep -j1" "$grep -j1 -c --author Loyd $file" \
  -n rg "rg -c '^[^:]*Loyd' $file"

python3 - "$data/pbi-grep.json" "$bytes" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["results"]
size = int(sys.argv[2]) / 1e6
mean = {r["command"]: r["mean"] for r in runs}
cpu = {r["command"]: r["user"] + r["system"] for r in runs}
for name, t in mean.items():
    print(f"{name:>12}: {t:7.3f} s  {size / t:8.0f} MB/s  CPU {cpu[name]:.3f} s")
print(f"pbi-grep takes {mean['pbi-grep'] / mean['rg']:.2f}x rg's time "
      f"({mean['pbi-grep -j1'] / mean['rg']:.2f}x with one thread)")
PY

rss=$( { /usr/bin/time -v "$grep" -c --author Loyd "$file" > /dev/null; } 2>&1 \
  | awk -F': ' '/Maximum resident set size/ {print $2}')
echo "pbi-grep peak memory: $rss KiB ($((rss / 1024)) MiB)"
