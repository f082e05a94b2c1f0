#!/usr/bin/env bash
# Usage: bench/first_pass_floor.sh BINARY FILE [ROUNDS] — the first pass of text training beside its floor:
# each round times, in turn, `wc -w FILE`, then for hashing and for the vocabulary
# bench/limit/hashpass.c (the same pass written plainly in C on two threads: see its header) and
# `BINARY train -epochs 1 -no-calibrate [-vocab=false]` on FILE (an uncompressed labelled JSONL file,
# such as ten copies of imdb train). Prints the median wall seconds (min–max) of each, the C reference's
# split into the pass over the text, the vocabulary or IDF, and the epoch, and the ratios to wc -w and
# to the C reference taken round by round.
set -euo pipefail
bin=$1 file=$2 rounds=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d); trap 'rm -rf $T' EXIT
gcc -O3 -march=native -pthread -o $T/hashpass "$here/limit/hashpass.c" -lm
: >$T/rows
for ((i = 0; i < rounds; i++)); do
  /usr/bin/time -f '%e' -o $T/wc wc -w "$file" >/dev/null
  $T/hashpass -t 2 "$file" >$T/ch
  /usr/bin/time -f '%e' -o $T/hh "$bin" train -epochs 1 -no-calibrate -vocab=false -o $T/m.hptm "$file" >/dev/null 2>&1
  $T/hashpass -v -t 2 "$file" >$T/cv
  /usr/bin/time -f '%e' -o $T/hv "$bin" train -epochs 1 -no-calibrate -o $T/m.hptm "$file" >/dev/null 2>&1
  echo "$(cat $T/wc) $(awk '{print $10, $4, $6, $8}' $T/ch) $(cat $T/hh) $(awk '{print $10, $4, $6, $8}' $T/cv) $(cat $T/hv)" >>$T/rows
done
python3 - $T/rows <<'PY'
import sys, statistics as st
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
def med(xs): return f"{st.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"
cols = list(zip(*rows))
wc = cols[0]
print(f"wc -w {med(wc)} s")
for name, k in (("hashing", 1), ("vocabulary", 6)):
    c, p1, mid, ep, hp = cols[k:k + 5]
    print(f"{name}: C {med(c)} s (text {med(p1)}, {'IDF' if k == 1 else 'vocabulary'} {med(mid)}, epoch {med(ep)}); hyperplane {med(hp)} s")
    print(f"  ratios to wc -w: C {med([a/w for a, w in zip(c, wc)])}, hyperplane {med([a/w for a, w in zip(hp, wc)])}; hyperplane/C {med([a/b for a, b in zip(hp, c)])}")
PY
