#!/usr/bin/env bash
# Checks that pbi2csv's CSV arrives intact in LibreOffice Calc: the sample
# collection and a file of awkward fields (quotes, commas, semicolons,
# accents, Cyrillic, symbols) go through pbi2csv, are imported into a
# spreadsheet (.ods) by LibreOffice headless, exported back to CSV, and
# compared cell by cell with the original.
#
# Not part of `cargo test` (it needs LibreOffice: apt-get install -y
# libreoffice-calc-nogui). Run from the repository's root:
#   tests/libreoffice.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin pbi2csv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '\xef\xbb\xbf#PBI 1.2\n' > "$work/tricky.pbi"
cat >> "$work/tricky.pbi" <<'PBI'
Bláthy, Ottó;Köhler, Jürgen:8/8/8/8/8/8/8/K1k5:#2:|Magyar Sakkvilág|1916|:::Qd1:!:"the" best, with commas
Куббель, Леонид:6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1:=:|Шахматы в СССР|1925|::::: two  spaces ; semicolon
S\x3at John:1S6/8/8/8/8/8/8/K1k4R:h#2:1|Chess\x3a "Problems"|1868|::::$:ünïcödé ✓ ♔♕♖
PBI
target/release/pbi2csv "$work/tricky.pbi" > "$work/tricky.csv"
target/release/pbi2csv samples/problems.pbi > "$work/sample.csv"
for f in tricky sample; do
  soffice --headless --infilter=CSV:44,34,76,1 --convert-to ods \
    --outdir "$work/ods" "$work/$f.csv" > /dev/null 2>&1
  soffice --headless \
    --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false' \
    --outdir "$work/back" "$work/ods/$f.ods" > /dev/null 2>&1
done
python3 - "$work" <<'PY'
import csv, sys
work = sys.argv[1]
bad = 0
for name in ("tricky", "sample"):
    def rows(path):
        with open(path, encoding="utf-8", newline="") as f:
            return list(csv.reader(f))
    a, b = rows(f"{work}/{name}.csv"), rows(f"{work}/back/{name}.csv")
    cells = sum(len(r) for r in a)
    diff = [(i, x, y) for i, (ra, rb) in enumerate(zip(a, b))
            for x, y in zip(ra, rb) if x != y]
    diff += [("rows", len(a), len(b))] if len(a) != len(b) else []
    print(f"{name}: {len(a)} rows, {cells} cells, {len(diff)} differ")
    for d in diff[:5]:
        print("   ", d)
    bad += len(diff)
sys.exit(1 if bad else 0)
PY
