#!/usr/bin/env bash
# Checks that pbi2csv's workbook (-o FILE.xlsx) opens right in LibreOffice
# Calc: a collection of values that spreadsheets misread from CSV (=2, +,
# -, @, 007, 1/2, 3/2020, 11.8.1966, non-ASCII names) and the sample
# collection go through `pbi2csv -o`, LibreOffice opens each workbook
# headless with no import options, as a double-click does, and writes its
# first sheet back out as CSV; every cell must be exactly what pbi2csv's
# own CSV has. Then the workbook's header row is checked to be bold and
# frozen, and csv2pbi must read the workbook back to the same records.
#
# LibreOffice writes CSV in the system's 8-bit character set unless told
# otherwise, which cannot hold Cyrillic; so the export is asked for UTF-8
# (filter options 44,34,76,1: comma, double quote, UTF-8, from line 1).
# The same export with no options at all is checked on the cells that are
# ASCII. The import, which is what a user meets, has no options either way.
#
# Not part of `cargo test` (it needs LibreOffice: apt-get install -y
# libreoffice-calc-nogui). Run from the repository's root:
#   tests/libreoffice-workbook.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin pbi2csv --bin csv2pbi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '\xef\xbb\xbf#PBI 1.2\n# values that spreadsheets misread from CSV\n' > "$work/tricky.pbi"
cat >> "$work/tricky.pbi" <<'PBI'
=2:007:=2:007|1/2|3/2020|11.8.1966:+|-|@|1/2::+1:-:@
Bláthy, Ottó;Köhler, Jürgen:8/8/8/8/8/8/8/K1k5:1/2:3/2020|Magyar Sakkvilág|11.8.1966|0012:::Qd1:!:=SUM(A1:A2)
Куббель, Леонид;Réti, Richard:6n1/8/2p4P/8/8/r1p3K1/B7/4B1k1:=:|Шахматы в СССР|1925|::1|1st Prize|Шахматы|1925:::+
S\x3at John:1S6/8/8/8/8/8/8/K1k4R:-:007|"Problems"; x|11.8.1966|1e5:::TRUE:?:0x1F 1,5 €
PBI
status=0
for f in tricky samples/problems; do
  name=$(basename "$f")
  src="$work/$name.pbi"
  [ "$f" = tricky ] || cp "$f.pbi" "$src"
  target/release/pbi2csv -o "$work/$name.xlsx" "$src" 2> /dev/null
  target/release/pbi2csv "$src" > "$work/$name.csv" 2> /dev/null
  soffice --headless \
    --convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1' \
    --outdir "$work/utf8" "$work/$name.xlsx" > /dev/null 2>&1
  soffice --headless --convert-to csv --outdir "$work/plain" \
    "$work/$name.xlsx" > /dev/null 2>&1
  # Back to PBI: the same records again.
  target/release/csv2pbi "$work/$name.xlsx" 2> /dev/null \
    | target/release/pbi2csv 2> /dev/null > "$work/$name.back.csv"
  if cmp -s "$work/$name.csv" "$work/$name.back.csv"; then
    echo "$name: csv2pbi reads the workbook back to the same records"
  else
    echo "$name: csv2pbi's records differ"; status=1
  fi
done
python3 - "$work" <<'PY' || status=1
import csv, re, sys, zipfile
work = sys.argv[1]
bad = 0
def rows(path, encoding):
    with open(path, encoding=encoding, errors="replace", newline="") as f:
        return list(csv.reader(f))
for name in ("tricky", "problems"):
    want = rows(f"{work}/{name}.csv", "utf-8")
    cells = sum(len(r) for r in want)
    for kind, encoding in (("utf8", "utf-8"), ("plain", "cp1252")):
        got = rows(f"{work}/{kind}/{name}.csv", encoding)
        diff = [(i, a, b) for i, (ra, rb) in enumerate(zip(want, got))
                for a, b in zip(ra, rb)
                if a != b and (kind == "utf8" or a.isascii())]
        diff += [("rows", len(want), len(got))] if len(want) != len(got) else []
        diff += [(i, "fields", len(ra), len(rb))
                 for i, (ra, rb) in enumerate(zip(want, got)) if len(ra) != len(rb)]
        checked = cells if kind == "utf8" else sum(
            c.isascii() for r in want for c in r)
        print(f"{name}: {len(want)} rows, {checked} cells compared "
              f"(export {kind}), {len(diff)} differ")
        for d in diff[:5]:
            print("   ", d)
        bad += len(diff)
    z = zipfile.ZipFile(f"{work}/{name}.xlsx")
    sheet = z.read("xl/worksheets/sheet1.xml").decode()
    styles = z.read("xl/styles.xml").decode()
    frozen = 'ySplit="1"' in sheet and 'state="frozen"' in sheet
    # The header cells' style index, and whether its font is bold.
    style = int(re.search(r'<c r="A1" s="(\d+)"', sheet).group(1))
    fonts = re.findall(r"<font>(.*?)</font>", styles, re.S)
    xfs = re.search(r"<cellXfs[^>]*>(.*?)</cellXfs>", styles, re.S).group(1)
    xf = re.findall(r"<xf [^>]*>", xfs)[style]
    font = int(re.search(r'fontId="(\d+)"', xf).group(1))
    bold = "<b/>" in fonts[font]
    text = 'numFmtId="49"' in xf
    print(f"{name}: header frozen {frozen}, bold {bold}, text format {text}")
    bad += (not frozen) + (not bold) + (not text)
sys.exit(1 if bad else 0)
PY
exit $status
