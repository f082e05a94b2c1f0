#!/usr/bin/env bash
# The RBF kernel perceptron against LIBSVM's RBF SVM (svm-train) on digits
# and letter, in the same run. Needs ../shared/tools/install-anchors.sh.
#   usage: bench/compare_kernel.sh [RUNS]
# For each set it prints LIBSVM's test accuracy and median svm-train
# seconds (the process: parsing and training), and hyperplane's test
# accuracy, median seconds of the whole `hyperplane train` process without
# -test (parsing and training, the same work), and the time inside the
# process split into reading and training. LIBSVM runs with the reference
# parameters of ../shared/data/README.md; hyperplane with its own γ.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
D=../shared/data
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/hyperplane" ./cmd/hyperplane
sets=(
  "digits $D/sklearn/digits.train.svm $D/sklearn/digits.test.svm rbf:gamma=0.001|-t 2 -g 0.001 -c 10"
  "letter $D/libsvm/letter.scale.tr $D/libsvm/letter.scale.t rbf:gamma=2|-t 2 -g 1 -c 10"
)
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }
jget() { /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print(d$1)"; }
now() { date +%s.%N; }
printf '%-7s %8s %9s %8s %9s %9s %9s %6s\n' set svm_acc svm_s hp_acc hp_s hp_read hp_train ratio
for s in "${sets[@]}"; do
  read -r name tr te rest <<<"$s"
  kern=${rest%%|*} opts=${rest#*|}
  svm_t=() hp_t=() hp_r=() hp_f=()
  for _ in $(seq "$runs"); do
    # shellcheck disable=SC2086
    line=$(bash ../shared/tools/libsvm.sh "$tr" "$te" $opts)
    svm_acc=$(echo "$(field acc_percent <<<"$line") / 100" | bc -l) # a fraction, like hp_acc
    svm_t+=("$(field train_s <<<"$line")")
    a=$(now)
    j=$("$tmp/hyperplane" train -json -kernel "$kern" "$tr")
    b=$(now)
    hp_t+=("$(echo "$b - $a" | bc)")
    hp_r+=("$(jget '["read_seconds"]' <<<"$j")")
    hp_f+=("$(jget '["train_seconds"]' <<<"$j")")
  done
  hp_acc=$("$tmp/hyperplane" train -json -kernel "$kern" -test "$te" "$tr" | jget '["test_accuracy"]')
  st=$(printf '%s\n' "${svm_t[@]}" | median)
  ht=$(printf '%s\n' "${hp_t[@]}" | median)
  printf '%-7s %8.4f %9.3f %8.4f %9.3f %9.3f %9.3f %6.2f\n' "$name" "$svm_acc" "$st" "$hp_acc" "$ht" \
    "$(printf '%s\n' "${hp_r[@]}" | median)" "$(printf '%s\n' "${hp_f[@]}" | median)" "$(echo "$st / $ht" | bc -l)"
done
