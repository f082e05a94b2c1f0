#!/usr/bin/env bash
# Usage: bench/train_floor.sh BINARY [ROUNDS] — the whole of `train` on raw text beside a floor
# written plainly in C, for imdb and 20 Newsgroups train (JSONL, gzip). Each round times, in turn:
#   - `zcat FILE | wc -w`, the yardstick of the text targets;
#   - `BINARY train -o MODEL FILE` at train's defaults (vocabulary, bigrams, ten averaged PA-II epochs,
#     calibration);
#   - bench/limit/hashpass.c -v on the uncompressed file: reading, tokenizing, counting and choosing
#     the vocabulary on two threads (its text and vocabulary figures; no inflating, no JSON
#     validation, no Unicode: a floor, not a rival);
#   - bench/limit/ref.c on the rows `convert` made of the same text, ten epochs of averaged PA-II on
#     unit rows (-p -n; with -m -d the multiclass learner with float64 sums for 20 Newsgroups).
# The floor of a train is the C text pass plus ten C epochs, or plus ten of the BINARY's epochs
# (train -json's train_seconds), whichever is less. Prints per set the medians (min–max) and each
# floor as a multiple of zcat | wc -w.
set -euo pipefail
bin=$1 rounds=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
D=${DATA:-$(cd "$here/../../shared/data" && pwd)}
T=$(mktemp -d); trap 'rm -rf $T' EXIT
gcc -O3 -march=native -pthread -o $T/hashpass "$here/limit/hashpass.c" -lm
gcc -O3 -march=native -fno-tree-vectorize -o $T/ref "$here/limit/ref.c" -lm
for set in imdb 20ng; do
  case $set in
    imdb) f=$D/text/imdb/imdb.train.jsonl.gz refopt="-p -n" ;;
    20ng) f=$D/text/20newsgroups/20ng.train.jsonl.gz refopt="-m -d -p -n" ;;
  esac
  zcat "$f" >$T/$set.jsonl
  "$bin" convert "$f" $T/$set.svm >/dev/null 2>&1
  : >$T/$set.rows
  for ((i = 0; i < rounds; i++)); do
    /usr/bin/time -f '%e' -o $T/wc sh -c "zcat '$f' | wc -w >/dev/null"
    s=$(date +%s.%N)
    "$bin" train -json -o $T/m.hptm "$f" 2>/dev/null >$T/j
    e=$(date +%s.%N)
    $T/hashpass -v -t 2 $T/$set.jsonl >$T/c
    $T/ref $refopt -r 1 -e 10 $T/$set.svm >$T/r 2>&1
    python3 - "$(cat $T/wc)" "$s" "$e" $T/j $T/c $T/r >>$T/$set.rows <<'PY'
import json, sys
wc, s, e = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
j = json.load(open(sys.argv[4]))
c = open(sys.argv[5]).read().split()
text = float(c[c.index("pass1_s") + 1]) + float(c[c.index("idf_s") + 1])
r = [l.split() for l in open(sys.argv[6])]
pa2 = next(float(l[1]) for l in r if l and l[0] == "pa2.epoch_ms") * 10 / 1000
print(wc, e - s, j["train_seconds"], text, pa2)
PY
  done
  python3 - $set $T/$set.rows <<'PY'
import sys, statistics as st
name, rows = sys.argv[1], [list(map(float, l.split())) for l in open(sys.argv[2])]
wc, tr, ep, text, cep = zip(*rows)
def med(xs): return f"{st.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"
floor = [t + min(a, b) for t, a, b in zip(text, ep, cep)]
print(f"{name}: zcat|wc -w {med(wc)} s; train {med(tr)} s, its ten epochs {med(ep)} s")
print(f"  C text + vocabulary {med(text)} s; C ten epochs {med(cep)} s; floor {med(floor)} s")
print(f"  ÷ zcat|wc -w: train {med([a/w for a, w in zip(tr, wc)])}, floor {med([a/w for a, w in zip(floor, wc)])}")
PY
done
