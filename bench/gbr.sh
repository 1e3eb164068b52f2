#!/bin/sh
# Benchmark of gbr-encode against a python-chess script doing the same
# job (the material code of each FEN line).
#
# Usage: bench/gbr.sh [SIZE_MB] [PY_MB]
#
#   SIZE_MB  size of the FEN corpus for gbr-encode (default 512)
#   PY_MB    size of the slice given to python-chess (default 50), which
#            is too slow for the whole corpus; throughputs are compared
#            in MB/s
#
# Needs: cargo, python3 with python-chess (pip install chess), hyperfine,
# GNU time (/usr/bin/time). The corpus goes to $BENCH_DIR (default
# ${TMPDIR:-/tmp}/chesspipe-bench) and is reused when it is already there.
set -eu

SIZE_MB=${1:-512}
PY_MB=${2:-50}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${BENCH_DIR:-${TMPDIR:-/tmp}/chesspipe-bench}
BIG=$DIR/fen-$SIZE_MB.fen
SMALL=$DIR/fen-$PY_MB.fen
TOOL=$ROOT/target/release/gbr-encode

mkdir -p "$DIR"
for f in "$BIG:$SIZE_MB" "$SMALL:$PY_MB"; do
    path=${f%%:*}
    mb=${f##*:}
    if [ ! -s "$path" ]; then
        echo "generating $path ($mb MB)" >&2
        python3 "$ROOT/bench/gen_fen.py" "$mb" > "$path"
    fi
done

(cd "$ROOT" && cargo build --release --quiet)

echo "== sanity: same codes as python-chess on the slice"
python3 "$ROOT/bench/gbr_python.py" < "$SMALL" > "$DIR/py.out"
"$TOOL" "$SMALL" 2>/dev/null > "$DIR/rs.out" || true
cmp "$DIR/py.out" "$DIR/rs.out" && echo "identical output"

# mean seconds of a hyperfine run, from its JSON export
mean() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["mean"])' "$1"
}

echo "== gbr-encode, $SIZE_MB MB"
hyperfine --warmup 1 --runs 5 --export-json "$DIR/rs.json" \
    "$TOOL $BIG"
echo "== gbr-encode -f position, $SIZE_MB MB"
hyperfine --warmup 1 --runs 3 --export-json "$DIR/rs-pos.json" \
    "$TOOL -f position $BIG"
echo "== python-chess, $PY_MB MB"
hyperfine --runs 1 --export-json "$DIR/py.json" \
    "python3 $ROOT/bench/gbr_python.py < $SMALL"

rss() {
    /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print $2}'
}
RS_RSS=$(rss "$TOOL" "$BIG")
POS_RSS=$(rss "$TOOL" -f position "$BIG")
PY_RSS=$(rss sh -c "python3 $ROOT/bench/gbr_python.py < $SMALL")

RS=$(mean "$DIR/rs.json")
POS=$(mean "$DIR/rs-pos.json")
PY=$(mean "$DIR/py.json")
BIG_BYTES=$(wc -c < "$BIG")
SMALL_BYTES=$(wc -c < "$SMALL")
python3 - "$RS" "$POS" "$PY" "$BIG_BYTES" "$SMALL_BYTES" \
    "$RS_RSS" "$POS_RSS" "$PY_RSS" <<'PY'
import sys
rs, pos, py = map(float, sys.argv[1:4])
big, small = map(int, sys.argv[4:6])
rs_rss, pos_rss, py_rss = map(int, sys.argv[6:9])
rs_mbs, pos_mbs, py_mbs = big / rs / 1e6, big / pos / 1e6, small / py / 1e6
print()
print("| command | input | time | MB/s | peak RSS |")
print("| --- | --- | --- | --- | --- |")
print(f"| gbr-encode | {big / 1e6:.0f} MB | {rs:.2f} s | {rs_mbs:.0f} | {rs_rss / 1024:.1f} MiB |")
print(f"| gbr-encode -f position | {big / 1e6:.0f} MB | {pos:.2f} s | {pos_mbs:.0f} | {pos_rss / 1024:.1f} MiB |")
print(f"| gbr_python.py (python-chess) | {small / 1e6:.0f} MB | {py:.2f} s | {py_mbs:.1f} | {py_rss / 1024:.1f} MiB |")
print()
print(f"gbr-encode is {rs_mbs / py_mbs:.0f}x python-chess (material code, MB/s)")
PY
