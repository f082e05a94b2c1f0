#!/usr/bin/env bash
# Usage: bench/text_vs_wc.sh OLD_BINARY NEW_BINARY [ROUNDS] — raw text to a model beside merely reading
# the text: for imdb and 20 Newsgroups train (JSONL, gzip), each round times `zcat FILE | wc -w`, then
# `train -json -o MODEL FILE` at train's defaults with the old and the new build, in turn, and evaluates
# the new model on the test file. Prints per set the median wall seconds (min–max) of each, the ratios
# train/wc and new/old taken round by round, peak RSS (GNU time %M) and the new model's test accuracy.
set -euo pipefail
old=$1 new=$2 rounds=${3:-5}
D=${DATA:-$(cd "$(dirname "$0")/../../shared/data" && pwd)}
T=$(mktemp -d); trap 'rm -rf $T' EXIT
for set in imdb/imdb 20newsgroups/20ng; do
  tr=$D/text/$set.train.jsonl.gz te=$D/text/$set.test.jsonl.gz
  : >$T/rows
  for ((i = 0; i < rounds; i++)); do
    /usr/bin/time -f '%e %M' -o $T/wc sh -c "zcat '$tr' | wc -w >/dev/null"
    /usr/bin/time -f '%e %M' -o $T/old "$old" train -json -o $T/old.hptm "$tr" >/dev/null
    /usr/bin/time -f '%e %M' -o $T/new "$new" train -json -o $T/new.hptm "$tr" >/dev/null
    echo "$(cat $T/wc) $(cat $T/old) $(cat $T/new)" >>$T/rows
  done
  acc=$("$new" eval -json -model $T/new.hptm "$te" | python3 -c 'import json,sys; print(json.load(sys.stdin)["metrics"]["accuracy"])')
  python3 - "${set#*/}" "$acc" $T/rows <<'PY'
import sys, statistics as st
name, acc, rows = sys.argv[1], float(sys.argv[2]), [list(map(float, l.split())) for l in open(sys.argv[3])]
def med(xs): return f"{st.median(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"
wc, old, new = [r[0] for r in rows], [r[2] for r in rows], [r[4] for r in rows]
print(f"{name}: wc -w {med(wc)} s; train old {med(old)} s, new {med(new)} s")
print(f"  train/wc old {med([o/w for o, w in zip(old, wc)])}, new {med([n/w for n, w in zip(new, wc)])}; new/old {med([n/o for n, o in zip(new, old)])}")
print(f"  peak RSS old {st.median(r[3] for r in rows)/1024:.0f} MB, new {st.median(r[5] for r in rows)/1024:.0f} MB; new model's test accuracy {acc:.4f}")
PY
done
