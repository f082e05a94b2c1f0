#!/usr/bin/env bash
# Times parsing one LIBSVM file into a CSR matrix: scikit-learn's
# load_svmlight_file against hyperplane's reader, in the same run, medians of
# N runs each, and prints the ratio. Needs scikit-learn
# (../shared/tools/install-anchors.sh installs it).
#   usage: bench/compare_parse.sh [FILE] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-../shared/data/text/imdb/imdb.train.svm.gz}
n=${2:-7}
go build -o /tmp/hyperplane-bench ./cmd/hyperplane
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
sk=$(for _ in $(seq "$n"); do
  /usr/bin/python3 -c "
import sys, time
from sklearn.datasets import load_svmlight_file
t = time.perf_counter(); X, y = load_svmlight_file(sys.argv[1], dtype='float32'); print(time.perf_counter() - t)" "$file"
done | median)
hp=$(for _ in $(seq "$n"); do
  /tmp/hyperplane-bench stats -json "$file" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["parse_seconds"])'
done | median)
/usr/bin/python3 -c "
sk, hp = $sk, $hp
print(f'file: $file ({$n} runs each, medians)')
print(f'scikit-learn load_svmlight_file: {sk*1e3:8.1f} ms')
print(f'hyperplane libsvm.ReadFile:      {hp*1e3:8.1f} ms')
print(f'speed-up: {sk/hp:.1f}x')"
