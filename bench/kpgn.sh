#!/usr/bin/env bash
# Benchmark of kpgn-filter and kpgn-check against pgn-reader's examples
# and pgn-extract on the same generated Kriegspiel PGN, laid out as real
# files are.
#
# Usage: bench/kpgn.sh [--runs N] [--warmup N] [--callgrind] [SIZE_MB]
#
#   SIZE_MB      corpus size, 10^6 bytes (default 200)
#   --runs N     hyperfine runs per command (default 5)
#   --warmup N   hyperfine warm-up runs per command (default 1)
#   --callgrind  also count the instructions (valgrind --tool=callgrind,
#                totals only) of pgn-reader stats, kpgn-filter -w -j1,
#                pgn-reader validate and kpgn-check -j1 on the 20 MB
#                corpus, the first 20 MB
#                of every larger one (gen_kpgn.py writes the same games
#                in the same order whatever the size)
#
# Generates bench/data/kpgn-real-SIZE.pgn with `bench/gen_kpgn.py --shape
# real SIZE` (once; the generator is deterministic), checks that every
# reader sees every game (grep's count of [Event lines, pgn-reader stats'
# count, validate's verdict, no error from pgn-extract), then times, side
# by side in one hyperfine run:
#
#   kpgn-filter -w -j1 FILE    one thread
#   kpgn-filter -w FILE        one worker thread per core
#   stats FILE                 pgn-reader: parses, counts tokens
#   validate FILE              pgn-reader + shakmaty: replays every move
#   pgn-extract -s -o /dev/null FILE   parses and replays every move
#   kpgn-check -j1 FILE        one thread: referees every move, attempt
#                              and announcement
#   kpgn-check FILE            one worker thread per core
#
# and measures each one's peak memory with GNU time (/usr/bin/time -v).
# It prints a table (time, CPU, MB/s, peak memory) and the ratios the
# kpgn-filter rewrite is aimed at: kpgn-filter -j1 against stats (goal:
# at least as fast) and kpgn-filter on all cores against pgn-extract
# (goal: 50 times as fast or more), and kpgn-check -j1 against validate
# (goal: at least as fast). Each ratio carries the spread of its two
# means (their standard deviations, combined); a goal is said met only
# when the ratio less that spread meets it.
#
# kpgn-filter is built from this tree (cargo build --release --bin
# kpgn-filter); the peers from bench/pgn-reader, a package of its own with
# its own target directory (pgn-reader 0.29.1 declares rust-version 1.97
# and builds with older compilers, hence --ignore-rust-version).
#
# The machine may be shared: the load average is printed before and after;
# a busy machine makes the two-thread rows look worse than they are.
#
# Needs: python3 with python-chess (pip install chess), cargo, hyperfine,
# pgn-extract (apt-get install pgn-extract; Debian puts it in /usr/games),
# GNU time (apt-get install time), valgrind for --callgrind.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { printf 'kpgn.sh: error: %s\n' "$*" >&2; exit 2; }
num() {
    [[ ${2-} =~ ^[0-9]+$ ]] || die "$1 needs a whole number, got '${2-}'"
    printf '%s' "$2"
}

runs=5 warmup=1 callgrind=0 size=200
while [ $# -gt 0 ]; do
    case $1 in
        --runs) runs=$(num "$1" "${2-}"); shift 2 ;;
        --warmup) warmup=$(num "$1" "${2-}"); shift 2 ;;
        --callgrind) callgrind=1; shift ;;
        -h | --help) usage; exit 0 ;;
        -*) die "unknown option '$1' (bench/kpgn.sh --help)" ;;
        *) size=$(num SIZE_MB "$1"); shift ;;
    esac
done
[ "$runs" -ge 1 ] || die "--runs must be at least 1"

cd "$(dirname "$0")/.."
mkdir -p bench/data
res=bench/data/kpgn-results
mkdir -p "$res"

# corpus NAME SIZE: generate bench/data/NAME once.
corpus() {
    local f=bench/data/$1
    if [ ! -s "$f" ]; then
        echo "generating $f ..." >&2
        python3 bench/gen_kpgn.py --shape real "$2" > "$f.tmp"
        mv "$f.tmp" "$f"
    fi
    printf '%s' "$f"
}

command -v hyperfine > /dev/null || die "hyperfine not found"
[ -x /usr/bin/time ] || die "GNU time not found (apt-get install time)"
pgnx=$(command -v pgn-extract || true)
[ -n "$pgnx" ] || [ ! -x /usr/games/pgn-extract ] || pgnx=/usr/games/pgn-extract
[ -n "$pgnx" ] || die "pgn-extract not found (apt-get install pgn-extract)"
python3 -c 'import chess' 2> /dev/null ||
    die "python-chess not found; gen_kpgn.py needs it (pip install chess)"

data=$(corpus "kpgn-real-$size.pgn" "$size")

# Builds, one after the other (2 cores).
echo "cargo build --release --bin kpgn-filter --bin kpgn-check" >&2
cargo build --release --quiet --bin kpgn-filter --bin kpgn-check
kpgn=target/release/kpgn-filter
check=target/release/kpgn-check
echo "cargo build (bench/pgn-reader)" >&2
cargo build --release --quiet --ignore-rust-version \
    --manifest-path bench/pgn-reader/Cargo.toml \
    --target-dir bench/pgn-reader/target
stats=bench/pgn-reader/target/release/stats
validate=bench/pgn-reader/target/release/validate

bytes=$(stat -c %s "$data")
games=$(grep -c '^\[Event ' "$data")
reader_version=$(sed -n '/^name = "pgn-reader"$/{n;s/^version = "\(.*\)"$/\1/p}' \
    bench/pgn-reader/Cargo.lock)
echo "corpus: $data, $bytes bytes, $games games"
echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "kpgn-filter: $($kpgn --version) (this tree, $(git rev-parse --short HEAD 2> /dev/null || echo '?'))"
echo "pgn-reader: $reader_version (stats, validate)"
echo "pgn-extract: $("$pgnx" --version 2>&1 | head -n 1)"

# Every reader must read every game, or the times compare different work.
cat "$data" > /dev/null
got=$("$stats" "$data" | sed -n 's/.*games: \([0-9]*\),.*/\1/p')
[ "$got" = "$games" ] || die "pgn-reader stats counts $got games, grep $games"
"$validate" "$data" | grep -q ': success$' || die "pgn-reader validate failed on $data"
"$pgnx" -s -o /dev/null "$data" 2> "$res/pgn-extract.err" ||
    die "pgn-extract failed on $data"
if tr '\r' '\n' < "$res/pgn-extract.err" | grep -v '^Games: [0-9]*$' | grep -q .; then
    die "pgn-extract reports problems with $data (see $res/pgn-extract.err)"
fi
passed=$("$check" -c "$data")
[ "$passed" = "$games" ] || die "kpgn-check passes $passed games of $games"
echo "check: stats counts $got games as grep does, validate replays them, pgn-extract reports nothing, kpgn-check passes them all"

threads=$(nproc)
names=("kpgn-filter -j1" "kpgn-filter ($threads threads)" "pgn-reader stats"
    "pgn-reader validate" "pgn-extract" "kpgn-check -j1"
    "kpgn-check ($threads threads)")
cmds=("$kpgn -w -j1 $data" "$kpgn -w $data" "$stats $data" "$validate $data"
    "$pgnx -s -o /dev/null $data" "$check -j1 $data" "$check $data")

args=()
for i in "${!names[@]}"; do
    args+=(-n "${names[i]}" "${cmds[i]}")
done
hyperfine -N --output=null --warmup "$warmup" --runs "$runs" \
    --export-json "$res/kpgn.json" "${args[@]}"

: > "$res/rss.tsv"
for i in "${!names[@]}"; do
    /usr/bin/time -v -o "$res/time.txt" ${cmds[i]} > /dev/null 2> /dev/null
    kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$res/time.txt")
    printf '%s\t%s\n' "${names[i]}" "$kib" >> "$res/rss.tsv"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$bytes" "$res/kpgn.json" "$res/rss.tsv" <<'PY'
import json
import sys

mb = int(sys.argv[1]) / 1e6
runs = {r["command"]: r for r in json.load(open(sys.argv[2]))["results"]}
rss = dict(line.rstrip("\n").split("\t") for line in open(sys.argv[3]))
names = list(runs)
print()
print(f"input: {mb:,.1f} MB; time and CPU (user + system) are hyperfine means in seconds")
print()
print("| command | time | ± | CPU | MB/s | peak memory |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for name in names:
    r = runs[name]
    cpu = r["user"] + r["system"]
    kib = int(rss[name])
    print(f"| {name} | {r['mean']:.3f} | {r['stddev'] or 0:.3f} | {cpu:.3f} "
          f"| {mb / r['mean']:,.1f} | {kib / 1024:,.1f} MiB |")
k1, kn, st, va, px, c1, cn = (runs[n]["mean"] for n in names)


def ratio(slow, fast, goal):
    """How many times as fast `fast` is as `slow` (names), with the spread
    of the two means carried into it, and whether that meets `goal`: met
    only when the ratio less its spread does, not met when the ratio plus
    its spread falls short, else within the spread."""
    a, b = runs[slow], runs[fast]
    x = a["mean"] / b["mean"]
    rel = sum(((r["stddev"] or 0) / r["mean"]) ** 2 for r in (a, b)) ** 0.5
    err = x * rel
    if x - err >= goal:
        verdict = "met"
    elif x + err < goal:
        verdict = "not met"
    else:
        verdict = "within the spread: not shown met"
    return f"{x:.2f} ± {err:.2f}", verdict


print()
x, v = ratio(names[2], names[0], 1.0)
print(f"kpgn-filter -j1 vs pgn-reader stats: {x} times stats' speed "
      f"(goal: 1.00 or more; {v})")
x, v = ratio(names[4], names[1], 50.0)
print(f"{names[1]} vs pgn-extract: {x} times pgn-extract's speed "
      f"(goal: 50 or more; {v})")
print(f"kpgn-filter -j1 vs pgn-extract: {px / k1:.1f}x")
print(f"{names[1]} vs -j1: {k1 / kn:.2f}x")
x, v = ratio(names[3], names[5], 1.0)
print(f"kpgn-check -j1 vs pgn-reader validate: {x} times validate's "
      f"speed (goal: 1.00 or more; {v})")
print(f"{names[6]} vs -j1: {c1 / cn:.2f}x")
PY

if [ "$callgrind" = 1 ]; then
    command -v valgrind > /dev/null || die "valgrind not found (--callgrind)"
    slice=$(corpus kpgn-real-20.pgn 20)
    echo
    echo "instructions (valgrind --tool=callgrind, totals) on $slice," \
        "$(stat -c %s "$slice") bytes:"
    for c in "$stats $slice" "$kpgn -w -j1 $slice" "$validate $slice" \
        "$check -j1 $slice"; do
        ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null $c \
            2>&1 > /dev/null | sed -n 's/^==[0-9]*== Collected : //p')
        printf '  %15s  %s\n' "$ir" "$c"
    done
fi
