#!/usr/bin/env bash
# Accuracy and speed of hyperplane's linear perceptrons against
# scikit-learn's Perceptron (and SGDClassifier with averaging) on the shared
# data sets, in the same run. Needs ../shared/tools/install-anchors.sh.
#   usage: bench/compare_linear.sh [EPOCHS] [RUNS]
# Prints one line per data set: test accuracy of sklearn Perceptron, sklearn
# averaged SGD(perceptron loss), hyperplane averaged and plain, and the
# median seconds per epoch of sklearn Perceptron.fit and hyperplane's
# averaged Fit over RUNS runs. w8a and rcv1_small have no test file: every
# fifth row (NR%5==0) is held out, the same split for both.
set -euo pipefail
cd "$(dirname "$0")/.."
epochs=${1:-10}
runs=${2:-5}
D=../shared/data
SK=../shared/tools/sk_perceptron.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/hyperplane" ./cmd/hyperplane
. bench/sets.sh
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }
jget() { /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print(d$1)"; }
printf '%-11s %9s %9s %9s %9s %12s %12s %7s\n' set sk_perc sk_avg hp_avg hp_plain sk_s/epoch hp_s/epoch ratio
for s in "${sets[@]}"; do
  read -r name tr te <<<"$s"
  sk_acc="" sk_times=() hp_times=()
  for _ in $(seq "$runs"); do
    line=$($SK "$tr" "$te" "$epochs")
    sk_acc=$(field acc <<<"$line")
    sk_times+=("$(/usr/bin/python3 -c "print($(field fit_s <<<"$line")/$epochs)")")
    j=$("$tmp/hyperplane" train -json -epochs "$epochs" -test "$te" "$tr")
    hp_acc=$(jget '["test_accuracy"]' <<<"$j")
    hp_times+=("$(jget '["seconds_per_epoch"]' <<<"$j")")
  done
  sk_avg=$(field acc <<<"$($SK "$tr" "$te" "$epochs" average)")
  hp_plain=$("$tmp/hyperplane" train -json -algo plain -epochs "$epochs" -test "$te" "$tr" | jget '["test_accuracy"]')
  skt=$(printf '%s\n' "${sk_times[@]}" | median)
  hpt=$(printf '%s\n' "${hp_times[@]}" | median)
  printf '%-11s %9.4f %9.4f %9.4f %9.4f %12.5f %12.5f %7.2f\n' "$name" "$sk_acc" "$sk_avg" "$hp_acc" "$hp_plain" "$skt" "$hpt" \
    "$(/usr/bin/python3 -c "print($skt/$hpt)")"
done
