#!/usr/bin/env bash
# Peak memory of kpgn-filter and kpgn-check on large inputs, each read
# from the file (one thread, and one per core) and from standard input:
#
#   games   the real-shape corpus (bench/gen_kpgn.py --shape real), its
#           first SIZE MB repeated to SIZE_MB x 5 (default 1 GB)
#   blank   20 million blank lines: no game (exit 1)
#   text    SIZE_MB x 5 of English text, no PGN: one game without tags,
#           refused at its first word (exit 2)
#   tail    a game that fails at its second move, then the same text:
#           the rest of a failed game
#   var     the same with a variation open after the fault, never closed
#
# kpgn-check -v writes the games that fail: the text, the tail and the
# variation whole, as they are read.
#
# Usage: bench/kpgn-memory.sh [SIZE_MB]   (default 200)
#
# Peak memory is GNU time's maximum resident set size
# (`/usr/bin/time -f %M`), which counts the pages of a file mapped into
# memory that were read. The inputs are written to bench/data/ (about
# 3 GB at the default size) and left there; the release build is used.
# Needs: GNU time (apt-get install time), python3 with python-chess for
# the corpus.
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-200}
[[ $size =~ ^[0-9]+$ ]] || { echo "kpgn-memory.sh: SIZE_MB must be a whole number" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "kpgn-memory.sh: GNU time not found (apt-get install time)" >&2; exit 2; }
data=bench/data
mkdir -p "$data"
corpus=$data/kpgn-real-$size.pgn
[ -s "$corpus" ] || python3 bench/gen_kpgn.py --shape real "$size" > "$corpus"
games=$data/kpgn-real-$size-x5.pgn
[ -s "$games" ] || for _ in 1 2 3 4 5; do cat "$corpus"; done > "$games"
blank=$data/blank-20m.txt
[ -s "$blank" ] || head -c 20000000 /dev/zero | tr '\0' '\n' > "$blank"
text=$data/text-$size-x5.txt
[ -s "$text" ] || python3 - "$((size * 5 * 1000000))" > "$text" <<'PY'
import sys
n = int(sys.argv[1])
line = (b"The referee is silent; both players wait, and the clock runs on "
        b"(a line of text that is no PGN).\n")
out = sys.stdout.buffer
block = line * (1 << 16 // len(line) + 1)
while n > 0:
    out.write(block[:n])
    n -= len(block)
PY
tail=$data/tail-$size-x5.pgn
[ -s "$tail" ] || {
    printf '[Event "e"]\n[Result "*"]\n\n1. e4 {(:)} e5 {(:)} 2. Nf3 {(:)} then\n'
    cat "$text"
} > "$tail"
var=$data/var-$size-x5.pgn
[ -s "$var" ] || {
    printf '[Event "e"]\n[Result "*"]\n\n1. e4 {(:)} e5 {(:)} 2. Nf3 {(:)} then (2... Nc6\n'
    cat "$text"
} > "$var"
cargo build --release --quiet --bin kpgn-filter --bin kpgn-check
bin=target/release

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
peak() { # LABEL INPUT COMMAND...: a row with the peak and the exit status
    local label=$1 input=$2 status
    shift 2
    set +e
    /usr/bin/time -f '%M' -o "$tmp" "$@" > /dev/null 2> /dev/null
    status=$?
    set -e
    printf '| %s | %s | %.1f MiB | %s |\n' "$label" "$(basename "$input")" \
        "$(python3 -c "print($(tail -n 1 "$tmp") / 1024)")" "$status"
}

printf '| command | input | peak memory | exit |\n| --- | --- | ---: | ---: |\n'
for input in "$games" "$blank" "$text" "$tail" "$var"; do
    for tool in "kpgn-filter -w" "kpgn-check" "kpgn-check -v"; do
        read -r -a cmd <<< "$bin/$tool"
        peak "$tool -j1" "$input" "${cmd[@]}" -j1 "$input"
        peak "$tool" "$input" "${cmd[@]}" "$input"
        peak "$tool < file" "$input" sh -c 'exec "$@" < "$0"' "$input" "${cmd[@]}"
    done
done
