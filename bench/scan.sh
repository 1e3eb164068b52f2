#!/usr/bin/env bash
# Throughput of the line scanner alone, on text dense in the lead bytes
# C2 and E2 (« » ° ± – — “ ”), with each of the five line ends, and on a
# generated PBI collection.
#
#   bench/scan.sh [SIZE_MB]     (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-200}
data=bench/data
mkdir -p "$data"
cargo build --release --quiet --example scan
python3 - "$size" "$data" <<'PY'
import sys
size, data = int(sys.argv[1]) * 1024 * 1024, sys.argv[2]
text = "«Réti» ° ± – — “Studie” " * 4
ends = {"lf": "\n", "cr": "\r", "crlf": "\r\n", "nel": "\x85", "ls": "\u2028"}
for name, end in ends.items():
    line = (text + end).encode()
    with open(f"{data}/dense-{size >> 20}-{name}.txt", "wb") as f:
        f.write(line * (size // len(line)))
PY
[ -s "$data/collection-$size.pbi" ] || python3 bench/gen_pbi.py "$size" > "$data/collection-$size.pbi"
for f in "$data"/dense-"$size"-{lf,cr,crlf,nel,ls}.txt "$data/collection-$size.pbi"; do
  cat "$f" > /dev/null
  printf '%-36s ' "$(basename "$f")"
  target/release/examples/scan "$f"
done
