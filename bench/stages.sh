#!/usr/bin/env bash
# bench/stages.sh: where the time goes, in instructions per input byte
# for each stage of each tool, counted by callgrind (repeatable, unlike
# a timing on a shared machine), beside the peers' totals.
#
#   bench/stages.sh [SIZE_MB]     (default 20; the corpora of bench/run)
#
# Builds the profiling profile (release with symbols), generates the
# realistic corpora at SIZE_MB, runs each command once under callgrind
# and attributes the instructions to the functions that are each stage
# (they are not inlined, so that a profile can tell them apart; the
# rest is the line loop, batching and the output). Writes the table
# between the stages markers of BENCHMARKS.md, and prints it.
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-20}
command -v valgrind > /dev/null || { echo "valgrind is needed" >&2; exit 2; }
data=bench/data
res=$data/results
mkdir -p "$res"
pbi=$data/stages-$mb.pbi
body=$data/stages-$mb.body
fen=$data/stages-$mb.fen
[ -s "$pbi" ] || python3 bench/gen_pbi.py "$mb" > "$pbi"
[ -s "$body" ] || tail -n +3 "$pbi" > "$body"
[ -s "$fen" ] || python3 bench/gen_fen.py "$mb" > "$fen"
cargo build --profile profiling --quiet
bin=target/profiling

# run NAME FILE COMMAND...: callgrind's inclusive costs of COMMAND.
run() {
    local name=$1 file=$2
    shift 2
    echo "callgrind: $*" >&2
    valgrind --tool=callgrind --callgrind-out-file="$res/cg.$name" "$@" \
        > /dev/null 2> "$res/cg.$name.err" ||
        { tail -n 5 "$res/cg.$name.err" >&2; exit 2; }
    callgrind_annotate --inclusive=yes --threshold=100 "$res/cg.$name" \
        > "$res/cg.$name.txt" 2> /dev/null
    printf '%s\t%s\t%s\n' "$name" "$(stat -c %s "$file")" "$*" >> "$res/stages.tsv"
}
: > "$res/stages.tsv"
run pbi2csv "$pbi" "$bin/pbi2csv" -j1 "$pbi"
run pbi-grep "$pbi" "$bin/pbi-grep" -j1 -c --author Loyd "$pbi"
run gbr-encode "$fen" "$bin/gbr-encode" -j1 "$fen"
command -v xsv > /dev/null && run xsv "$body" xsv input -d ':' "$body"
command -v rg > /dev/null && run rg "$pbi" rg -c '^[^:]*Loyd' "$pbi"
run "wc -l" "$pbi" wc -l "$pbi"

python3 - "$res" "$mb" <<'PY'
import os, re, sys

res, mb = sys.argv[1], sys.argv[2]
# The stages: (label, pattern of the function whose inclusive cost it is).
STAGES = [
    ("line ends counted", r"chesspipe::lines::line_ends$"),
    ("UTF-8 checked, a batch at once (lines not read to their LF)", r"simdutf8::.*validate_utf8_basic"),
    ("lines scanned into masks, and their UTF-8 checked", r"chesspipe::pbi::scan::avx2::read_to_lf"),
    ("line checks (fields, escapes, subfields, status)", r"chesspipe::pbi::Parser::clean$"),
    ("  of which the position", r"chesspipe::gbr::avx2::scan_in"),
    ("plain string searched, a batch at once", r"memchr::memmem::searcher::searcher_kind_avx2$"),
    ("CSV row written", r"chesspipe::cmd::csv_row::write$"),
    ("FEN line read for its code", r"chesspipe::gbr::avx2::code_line"),
]
TOTAL = "PROGRAM TOTALS"


def costs(name):
    found = {}
    total = None
    for line in open(os.path.join(res, f"cg.{name}.txt"), errors="replace"):
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)$", line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        what = m.group(2)
        if TOTAL in what:
            total = n
            continue
        # "file:function [binary]", once per file that holds code of the
        # function (inlined code counts under its own file too): the
        # largest is the function's inclusive cost.
        func = what.split(":", 1)[-1] if ":" in what else what
        func = re.sub(r"\s*\[.*\]$", "", func).strip()
        for label, pat in STAGES:
            if re.search(pat, func):
                found[label] = max(found.get(label, 0), n)
    return total, found


runs = [l.rstrip("\n").split("\t") for l in open(os.path.join(res, "stages.tsv"))]
cols = []
for name, size, cmd in runs:
    total, found = costs(name)
    cols.append((name, int(size), cmd, total, found))
tools = [c for c in cols if c[0] in ("pbi2csv", "pbi-grep", "gbr-encode")]
L = []
L.append("<!-- stages:begin -->")
L.append("<!-- Written by bench/stages.sh; edit outside the markers only. -->")
L.append("")
L.append(f"Instructions per input byte (callgrind, `bench/stages.sh {mb}`: "
         f"the realistic corpora of {mb} MiB / MB, one thread, the "
         "profiling build). A stage is the inclusive cost of the function "
         "that does it; *rest* is the line loop, batching, the records of "
         "lines that are not clean, and the output. Peers are totals.")
L.append("")
head = "| stage | " + " | ".join(f"`{c[0]}`" for c in tools) + " |"
L.append(head)
L.append("| --- |" + " ---: |" * len(tools))
for label, _ in STAGES:
    cells = []
    for name, size, cmd, total, found in tools:
        n = found.get(label)
        cells.append(f"{n / size:.2f}" if n else "")
    if any(cells):
        L.append(f"| {label} | " + " | ".join(cells) + " |")
rest = []
for name, size, cmd, total, found in tools:
    staged = sum(v for k, v in found.items() if not k.startswith("  "))
    rest.append(f"{(total - staged) / size:.2f}")
L.append("| rest | " + " | ".join(rest) + " |")
L.append("| **total** | " + " | ".join(
    f"**{c[3] / c[1]:.2f}**" for c in tools) + " |")
L.append("")
L.append("| peer | command | instructions per byte |")
L.append("| --- | --- | ---: |")
for name, size, cmd, total, found in cols:
    if name in ("pbi2csv", "pbi-grep", "gbr-encode"):
        continue
    L.append(f"| {name} | `{cmd.replace('|', chr(92) + '|')}` | {total / size:.2f} |")
L.append("")
L.append("<!-- stages:end -->")
block = "\n".join(L)
print(block)
out = "BENCHMARKS.md"
text = open(out).read()
begin, end = "<!-- stages:begin -->", "<!-- stages:end -->"
if begin in text and end in text:
    a, rest_ = text.split(begin, 1)
    text = a + block + rest_.split(end, 1)[1]
else:
    text = text.rstrip("\n") + "\n\n## Where the time goes\n\n" + block + "\n"
open(out, "w").write(text)
PY
