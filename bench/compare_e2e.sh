#!/usr/bin/env bash
# End to end on one train/test pair of LIBSVM files: parse both, train 10
# epochs, predict the test set. scikit-learn (load_svmlight_files +
# Perceptron.fit + predict, and the same with SGDClassifier's hinge loss,
# a linear SVM; each timed inside Python so its interpreter start is not
# counted), LIBLINEAR -s 2 (liblinear-train + liblinear-predict, both
# processes) and hyperplane (one `hyperplane train -test` process, start to
# exit, with train's default learner unless flags are given), medians of N runs in the same run, on uncompressed copies of the
# files so that all three read the same bytes. Needs
# ../shared/tools/install-anchors.sh.
#   usage: bench/compare_e2e.sh [TRAIN TEST] [N] [extra hyperplane train flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
D=../shared/data/text/imdb
train=${1:-$D/imdb.train.svm.gz}
test=${2:-$D/imdb.test.svm.gz}
n=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat_any() { case "$1" in *.gz) zcat "$1";; *) cat "$1";; esac; }
cat_any "$train" >"$tmp/train"
cat_any "$test" >"$tmp/test"
go build -o "$tmp/hyperplane" ./cmd/hyperplane
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
now() { date +%s.%N; }
sk_t=() sgd_t=() ll_t=() hp_t=()
for _ in $(seq "$n"); do
  out=$(/usr/bin/python3 -c "
import sys, time
import numpy as np
from sklearn.datasets import load_svmlight_files
from sklearn.linear_model import Perceptron, SGDClassifier
for make in (lambda: Perceptron(max_iter=10, tol=None, shuffle=True, random_state=0),
             lambda: SGDClassifier(loss='hinge', max_iter=10, tol=None, random_state=0)):
    t = time.perf_counter()
    Xtr, ytr, Xte, yte = load_svmlight_files([sys.argv[1], sys.argv[2]], dtype=np.float64)
    clf = make().fit(Xtr, ytr)
    acc = (clf.predict(Xte) == yte).mean()
    print(time.perf_counter() - t, acc)" "$tmp/train" "$tmp/test")
  first=$(head -1 <<<"$out") second=$(tail -1 <<<"$out")
  sk_t+=("${first% *}"); sk_acc=${first#* }
  sgd_t+=("${second% *}"); sgd_acc=${second#* }
  s=$(now)
  liblinear-train -q -s 2 "$tmp/train" "$tmp/ll.model"
  ll_out=$(liblinear-predict "$tmp/test" "$tmp/ll.model" "$tmp/ll.out")
  e=$(now)
  ll_t+=("$(echo "$e - $s" | bc)")
  ll_acc=$(sed -n 's/Accuracy = \([0-9.]*\)%.*/\1/p' <<<"$ll_out")
  s=$(now)
  hp_json=$("$tmp/hyperplane" train -json -epochs 10 "$@" -test "$tmp/test" "$tmp/train")
  e=$(now)
  hp_t+=("$(echo "$e - $s" | bc)")
  hp_acc=$(/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["test_accuracy"])' <<<"$hp_json")
done
sk=$(printf '%s\n' "${sk_t[@]}" | median)
sgd=$(printf '%s\n' "${sgd_t[@]}" | median)
ll=$(printf '%s\n' "${ll_t[@]}" | median)
hp=$(printf '%s\n' "${hp_t[@]}" | median)
/usr/bin/python3 - "$sk" "$ll" "$hp" "$sk_acc" "$ll_acc" "$hp_acc" "$train" "$n" "$sgd" "$sgd_acc" "$*" <<'PY'
import sys
sk, ll, hp = map(float, sys.argv[1:4])
ska, lla, hpa = float(sys.argv[4]), float(sys.argv[5]) / 100, float(sys.argv[6])
sgd, sgda, flags = float(sys.argv[9]), float(sys.argv[10]), sys.argv[11]
print(f"{sys.argv[7]}: parse train+test, 10 epochs, predict ({sys.argv[8]} runs each, medians)")
print(f"{'':34s} {'seconds':>8s} {'accuracy':>9s} {'hyperplane faster':>18s}")
print(f"{'scikit-learn Perceptron':34s} {sk:8.3f} {ska:9.4f} {sk/hp:17.1f}x")
print(f"{'scikit-learn SGDClassifier (hinge)':34s} {sgd:8.3f} {sgda:9.4f} {sgd/hp:17.1f}x")
print(f"{'LIBLINEAR -s 2':34s} {ll:8.3f} {lla:9.4f} {ll/hp:17.1f}x")
print(f"{'hyperplane train ' + (flags or '(default)'):34s} {hp:8.3f} {hpa:9.4f}")
PY
