#!/usr/bin/env bash
# Usage: bench/epoch_ratio.sh OLD_BINARY NEW_BINARY [REPS] — times the training epochs of two builds of
# the CLI on the shared sets, alternating old and new run by run, and prints for each set and learner the
# median ns per nonzero (min–max) of each and the ratio new/old of the medians. Run it to check that a
# change to the passes leaves the epochs no slower.
set -euo pipefail
old=$1 new=$2 reps=${3:-5}
D=${DATA:-$(cd "$(dirname "$0")/../../shared/data" && pwd)}
SYN=${SYN:-/var/tmp/syn2m.svm}
T=$(mktemp -d); trap 'rm -rf $T' EXIT
[ -f "$SYN" ] || "$old" gen -rows 2000000 "$SYN" >/dev/null
cases=(
  "a9a default|$D/libsvm/a9a"
  "a9a perceptron|-algo averaged -normalize=false $D/libsvm/a9a"
  "imdb default|$D/text/imdb/imdb.train.svm.gz"
  "imdb perceptron|-algo averaged -normalize=false $D/text/imdb/imdb.train.svm.gz"
  "imdb hashed text|-vocab=false -no-calibrate $D/text/imdb/imdb.train.jsonl.gz"
  "20ng default|$D/text/20newsgroups/20ng.train.svm.gz"
  "20ng perceptron|-algo averaged -normalize=false $D/text/20newsgroups/20ng.train.svm.gz"
  "syn2m default|-epochs 5 $SYN"
)
ns() { "$1" train -json -o $T/m ${2} 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["ns_per_nonzero"])'; }
for c in "${cases[@]}"; do
  name=${c%%|*} args=${c#*|}
  r=$reps; [[ $name == syn2m* ]] && r=3
  : >$T/o; : >$T/n
  for ((i = 0; i < r; i++)); do ns $old "$args" >>$T/o; ns $new "$args" >>$T/n; done
  python3 - "$name" $T/o $T/n <<'PY'
import sys, statistics as st
name, o, n = sys.argv[1], [float(x) for x in open(sys.argv[2])], [float(x) for x in open(sys.argv[3])]
mo, mn = st.median(o), st.median(n)
print(f"{name:22s} old {mo:6.2f} ({min(o):.2f}–{max(o):.2f})  new {mn:6.2f} ({min(n):.2f}–{max(n):.2f})  new/old {mn/mo:.3f}")
PY
done
