#!/usr/bin/env bash
# Compares two ways of calibrating a text model, or two builds: for every
# shared text set with a test part (or a fifth of it held out by id), and
# for two shifts of source (sentence polarity and imdb reviews tested on
# the movie reviews corpus), trains with each setting and prints test
# accuracy, ECE and train's timings.
#
# usage: bench/heldout_calibration.sh [DATA] [-- ARGS_A -- ARGS_B]
#   defaults: A = train -refit (a second model for the calibration),
#             B = train (a fortieth of the text held out of the model).
set -euo pipefail
cd "$(dirname "$0")/.."
D=$(cd "${1:-../shared/data}" && pwd)/text
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
go build -o "$T/hp" ./cmd/hyperplane
A=(-refit); B=()
split() { # FILE: the test fifth by id, and the rest
  zcat -f "$1" | awk -v t="$T/$2.test.jsonl" -v r="$T/$2.train.jsonl" '{ if ((NR-1) % 5 == 0) print > t; else print > r }'
}
split "$D/sentence_polarity/sentence_polarity.jsonl" sp
split "$D/sms_spam/sms_spam.jsonl" sms
split "$D/subjectivity/subjectivity.jsonl" subj
sets=(
  "imdb $D/imdb/imdb.train.jsonl.gz $D/imdb/imdb.test.jsonl.gz"
  "20ng $D/20newsgroups/20ng.train.jsonl.gz $D/20newsgroups/20ng.test.jsonl.gz"
  "trec_qc $D/trec_qc/trec_qc.train.jsonl $D/trec_qc/trec_qc.test.jsonl"
  "sentence_polarity $T/sp.train.jsonl $T/sp.test.jsonl"
  "sms_spam $T/sms.train.jsonl $T/sms.test.jsonl"
  "subjectivity $T/subj.train.jsonl $T/subj.test.jsonl"
  "shift:sp->movie_reviews $D/sentence_polarity/sentence_polarity.jsonl $D/movie_reviews/movie_reviews.jsonl.gz"
  "shift:imdb->movie_reviews $D/imdb/imdb.train.jsonl.gz $D/movie_reviews/movie_reviews.jsonl.gz"
)
printf "%-26s %-6s %8s %8s %7s %8s %8s %6s\n" set how accuracy ECE rows train_s calib_s held
for s in "${sets[@]}"; do
  read -r name tr te <<<"$s"
  for how in A B; do
    if [ $how = A ]; then args=("${A[@]}"); else args=("${B[@]}"); fi
    "$T/hp" train -json ${args[@]+"${args[@]}"} -o "$T/m.hptm" "$tr" >"$T/j.json"
    ev=$("$T/hp" eval -model "$T/m.hptm" "$te" 2>&1)
    acc=$(grep -m1 -E '^ *accuracy' <<<"$ev" | awk '{print $2}')
    ece=$(grep -m1 -o 'bins) [0-9.]*' <<<"$ev" | awk '{print $2}')
    python3 - "$T/j.json" "$name" "$how" "$acc" "$ece" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("%-26s %-6s %8s %8s %7d %8.3f %8.3f %6d" % (sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], d["rows"], d.get("train_seconds", 0), d.get("calibration_seconds", 0), d.get("calibration_rows", 0)))
PY
  done
done
