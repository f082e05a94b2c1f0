#!/usr/bin/env bash
# Usage: bench/first_pass_floor.sh BINARY FILE [ROUNDS] — the hashed first pass beside its floor: each
# round times, in turn, `wc -w FILE`, bench/limit/hashpass.c (the same pass written plainly in C: see
# its header) on two threads and on one, and `BINARY train -epochs 1 -no-calibrate -vocab=false` on
# FILE (an uncompressed labelled JSONL file, such as ten copies of imdb train). Prints the median wall
# seconds (min–max) of each and the ratios to wc -w taken round by round, with the C reference's own
# split into the pass over the text and the epoch.
set -euo pipefail
bin=$1 file=$2 rounds=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d); trap 'rm -rf $T' EXIT
gcc -O3 -march=native -pthread -o $T/hashpass "$here/limit/hashpass.c" -lm
: >$T/rows
for ((i = 0; i < rounds; i++)); do
  /usr/bin/time -f '%e' -o $T/wc wc -w "$file" >/dev/null
  $T/hashpass -t 2 "$file" >$T/c2
  $T/hashpass -t 1 "$file" >$T/c1
  /usr/bin/time -f '%e' -o $T/hp "$bin" train -epochs 1 -no-calibrate -vocab=false -o $T/m.hptm "$file" >/dev/null 2>&1
  echo "$(cat $T/wc) $(awk '{print $8, $2, $6}' $T/c2) $(awk '{print $8}' $T/c1) $(cat $T/hp)" >>$T/rows
done
python3 - $T/rows <<'PY'
import sys, statistics as st
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
def med(xs): return f"{st.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"
wc, c2, p1, ep, c1, hp = (list(c) for c in zip(*rows))
print(f"wc -w {med(wc)} s")
print(f"C floor, 2 threads {med(c2)} s (text pass {med(p1)} s, epoch {med(ep)} s); 1 thread {med(c1)} s")
print(f"hyperplane {med(hp)} s")
print(f"ratios to wc -w: C 2 threads {med([a/w for a, w in zip(c2, wc)])}, C epoch alone {med([a/w for a, w in zip(ep, wc)])}, hyperplane {med([a/w for a, w in zip(hp, wc)])}; hyperplane/C {med([a/b for a, b in zip(hp, c2)])}")
PY
