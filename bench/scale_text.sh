#!/usr/bin/env bash
# Raw text at scale: hyperplane train on a generated labelled JSONL corpus
# of a given size, beside wc -w on the same file and fastText where it is
# installed, on this machine.
#
#   usage: bench/scale_text.sh [-runs N] [-clean] [-no-fasttext] SIZE [WORKDIR] [-- TRAIN FLAGS...]
#          bench/scale_text.sh -ci
#
# SIZE is the training file's size: 200MB, 1GB, 10GB, 2GiB (kB, MB, GB
# decimal; KiB, MiB, GiB binary). The corpus (bench/scaletext, whose
# parameters are fixed below) is written to WORKDIR/SIZE/ as train.jsonl,
# test.jsonl (25,000 documents drawn apart from the training ones) and,
# when fasttext is on PATH, train.ft and test.ft, the same documents in
# fastText's "__label__pos text" form; a corpus already there with the
# same parameters is reused. WORKDIR defaults to $SCALE_TEXT_DIR, else
# /var/tmp/hyperplane-scale-text: /var/tmp, unlike /tmp on many systems,
# is on disk, and a 10 GB corpus with its fastText copy needs about 20 GB
# (a RAM-backed WORKDIR draws a warning). -clean removes WORKDIR/SIZE at
# the end.
#
# Then, N times (-runs, default 1) in turn: wc -w train.jsonl (the floor
# for reading the bytes); hyperplane train -o model.hptm [TRAIN FLAGS]
# train.jsonl, and hyperplane eval of the model on test.jsonl; fastText
# supervised -wordNgrams 2 (its other settings at their defaults, threads
# as many as cores) and fastText test. Prints, as median (min-max) over
# the runs: wall seconds (GNU time %e), training MB/s (train.jsonl's bytes
# over those seconds), peak RSS (GNU time %M), the ratio to wc -w's
# seconds, and accuracy on test.jsonl, next to the planted rule's own
# accuracy there (the best a classifier can expect, 1 − NOISE).
# hyperplane is built from this checkout. Extra flags after -- go to
# hyperplane train, e.g. -- -vocab=false or -- -epochs 1 -no-calibrate.
# Each step's output stays in WORKDIR/SIZE/STEP.log until the next run.
#
# -ci: the small version for continuous integration: SIZE 200MB in a
# temporary folder under WORKDIR's parent, removed at the end, no
# fastText, one run; it fails when train or eval fails, when the accuracy
# is below 0.80, when train's peak RSS passes $SCALE_TEXT_MAX_RSS_MB
# (when set), when a file is left behind, or when a vocabulary pruned to
# fit -mem 400MiB peaks over that budget.
set -euo pipefail
cd "$(dirname "$0")/.."

# The corpus: fixed here so that every run of the benchmark trains on the
# same bytes (bench/scaletext's documentation says what each one means).
VOCAB=2097152   # distinct words (2^21)
ZIPF=1.07       # Zipf exponent of word frequencies
LEN_MU=5.24     # ln(words a document) ~ N(LEN_MU, LEN_SIGMA²): imdb train's
LEN_SIGMA=0.645
NOISE=0.08      # label flip probability: the best accuracy is 0.92
SEED=1
TEST_DOCS=25000

runs=1 clean=0 ci=0 use_ft=1
while [ $# -gt 0 ]; do
  case $1 in
    -runs) runs=$2; shift 2 ;;
    -clean) clean=1; shift ;;
    -no-fasttext) use_ft=0; shift ;;
    -ci) ci=1; shift ;;
    --) break ;;
    -h|-help|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "scale_text.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
usage() { echo "usage: bench/scale_text.sh [-runs N] [-clean] [-no-fasttext] SIZE [WORKDIR] [-- TRAIN FLAGS...] | -ci" >&2; exit 2; }
base=${SCALE_TEXT_DIR:-/var/tmp/hyperplane-scale-text}
if [ $ci = 1 ]; then
  size=200MB use_ft=0 runs=1 clean=1
  mkdir -p "$(dirname "$base")"
  base=$(mktemp -d "$(dirname "$base")/hyperplane-scale-text-ci.XXXXXX")
else
  [ $# -ge 1 ] && [ "$1" != -- ] || usage
  size=$1; shift
  if [ $# -ge 1 ] && [ "$1" != -- ]; then base=$1; shift; fi
fi
extra=()
if [ $# -ge 1 ]; then
  [ "$1" = -- ] || usage
  shift; extra=("$@")
fi
[[ $runs =~ ^[1-9][0-9]*$ ]] || usage
command -v /usr/bin/time >/dev/null || { echo "scale_text.sh: needs GNU time (/usr/bin/time; apt-get install time)" >&2; exit 1; }
if [ $use_ft = 1 ] && ! command -v fasttext >/dev/null; then
  echo "(fasttext is not installed: apt-get install fasttext to compare with it)" >&2
  use_ft=0
fi

W=$base/$size
mkdir -p "$W"
W=$(cd "$W" && pwd)
if [ "$(stat -f -c %T "$W")" = tmpfs ] || [ "$(stat -f -c %T "$W")" = ramfs ]; then
  echo "warning: $W is in memory ($(stat -f -c %T "$W")): the corpus takes RAM and the page cache numbers mean little; set SCALE_TEXT_DIR or WORKDIR to a disk folder" >&2
fi
cleanup() {
  rm -f "$W/hyperplane" "$W/scaletext" "$W/time" "$W/model.hptm" "$W/ft.bin" "$W/ft.vec"
  if [ $clean = 1 ]; then rm -rf "$W"; [ $ci = 0 ] || rmdir "$base" 2>/dev/null || true; fi
}
trap cleanup EXIT

go build -o "$W/hyperplane" ./cmd/hyperplane
go build -o "$W/scaletext" ./bench/scaletext
hp=$W/hyperplane

# The corpus, unless one with the same parameters is there (its manifest
# is written last, after the files, and names their sizes).
ftflag=false; [ $use_ft = 1 ] && ftflag=true
gen=("$W/scaletext" -vocab $VOCAB -zipf $ZIPF -len-mu $LEN_MU -len-sigma $LEN_SIGMA -noise $NOISE -seed $SEED
  -test-docs $TEST_DOCS -size "$size")
[ $use_ft = 1 ] && gen+=(-fasttext)
manifest_ok() {
  local m=$W/manifest.txt
  [ -f "$m" ] || return 1
  # The parameters line must name the same corpus (fastText form
  # included when it is wanted).
  local p; p=$(sed -n 's/^params //p' "$m")
  case $p in *" fasttext=true") ;; *) [ $use_ft = 0 ] || return 1 ;; esac
  [ "${p% fasttext=*}" = "$("$W/scaletext" -print-params "${gen[@]:1}" "$W")" ] || return 1
  local f b
  for f in train test; do
    b=$(sed -n "s/^$f docs=[0-9]* bytes=\([0-9]*\) .*/\1/p" "$m")
    [ "$(stat -c %s "$W/$f.jsonl" 2>/dev/null)" = "$b" ] || return 1
  done
}
if manifest_ok; then
  echo "corpus: reusing $W"
else
  echo "corpus: writing $W ..."
  "${gen[@]}" "$W" >/dev/null
fi
field() { awk -v l="$1" -v k="$2" '$1 == l { for (i = 2; i <= NF; i++) if (index($i, k "=") == 1) print substr($i, length(k) + 2) }' "$W/manifest.txt"; }
bytes=$(field train bytes); docs=$(field train docs); words=$(field train words)
ceiling=$(field test rule_accuracy)
printf 'corpus: train.jsonl %s bytes, %s documents, %s words; test.jsonl %s documents; planted rule accuracy on test %s\n' \
  "$bytes" "$docs" "$words" "$(field test docs)" "$ceiling"
printf 'params: %s\n' "$(sed -n 's/^params //p' "$W/manifest.txt")"
echo "hyperplane train flags: ${extra[*]:-(defaults)}"

# timed NAME CMD...: runs CMD under GNU time, appending "seconds rss_kB" to
# $W/NAME.times; its output goes to $W/NAME.log.
timed() {
  local name=$1; shift
  if ! /usr/bin/time -f "%e %M" -o "$W/time" "$@" >"$W/$name.log" 2>&1; then
    echo "$name failed: $*" >&2; tail -20 "$W/$name.log" >&2; return 1
  fi
  tail -1 "$W/time" >>"$W/$name.times"
}
rm -f "$W"/*.times "$W"/*.acc "$W"/*.log
for run in $(seq "$runs"); do
  timed wc wc -w "$W/train.jsonl"
  timed train "$hp" train -o "$W/model.hptm" "${extra[@]}" "$W/train.jsonl"
  timed eval "$hp" eval -json -model "$W/model.hptm" "$W/test.jsonl"
  sed -n 's/^    "accuracy": \([0-9.]*\),*$/\1/p' "$W/eval.log" | head -1 >>"$W/train.acc"
  if [ $use_ft = 1 ]; then
    timed fasttext fasttext supervised -input "$W/train.ft" -output "$W/ft" -wordNgrams 2 -thread "$(nproc)" -verbose 0
    timed fasttext_test fasttext test "$W/ft.bin" "$W/test.ft"
    sed -n 's/^P@1[[:space:]]*\([0-9.]*\).*/\1/p' "$W/fasttext_test.log" >>"$W/fasttext.acc"
  fi
done

# median (min–max) of one column of a .times file.
stat_col() {
  awk -v c="$2" '{print $c}' "$1" | sort -g | awk -v f="$3" '{a[NR]=$1} END {
    m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2
    if (NR == 1) printf f, m; else printf f " (" f "-" f ")", m, a[1], a[NR] }'
}
wc_med=$(awk '{print $1}' "$W/wc.times" | sort -g | awk '{a[NR]=$1} END {print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}')
row() { # name times-file [acc-file] [bytes for MB/s]
  local secs mbs rss ratio acc=-
  secs=$(stat_col "$2" 1 %.2f)
  rss=$(awk '{print $2/1024}' "$2" | sort -g | awk '{a[NR]=$1} END {printf "%.0f", (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}')
  mbs=-; ratio=-
  if [ -n "${4:-}" ]; then
    mbs=$(awk -v b="$4" '{print b/1e6/$1}' "$2" | sort -g | awk '{a[NR]=$1} END {printf "%.1f", (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}')
    ratio=$(awk -v w="$wc_med" '{print $1/w}' "$2" | sort -g | awk '{a[NR]=$1} END {printf "%.1f×", (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}')
  fi
  [ -n "${3:-}" ] && [ -s "${3:-/dev/null}" ] && acc=$(sort -g "$3" | awk '{a[NR]=$1} END {printf "%.4f", (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}')
  printf '| %-28s | %-22s | %8s | %8s | %8s | %-8s |\n' "$1" "$secs" "$mbs" "$rss" "$ratio" "$acc"
}
echo
echo "runs: $runs; median (min-max) where more than one; train.jsonl is $bytes bytes"
printf '| %-28s | %-22s | %8s | %8s | %8s | %-8s |\n' "step" "seconds" "MB/s" "RSS MiB" "÷ wc -w" "accuracy"
printf '|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..30})" "$(printf -- '-%.0s' {1..24})" "----------" "----------" "----------" "----------"
row "wc -w train.jsonl" "$W/wc.times" "" "$bytes"
row "hyperplane train" "$W/train.times" "$W/train.acc" "$bytes"
row "hyperplane eval (test)" "$W/eval.times"
if [ $use_ft = 1 ]; then
  row "fasttext supervised" "$W/fasttext.times" "$W/fasttext.acc" "$bytes"
  row "fasttext test" "$W/fasttext_test.times"
fi
echo "(accuracy on test.jsonl; the planted rule's own: $ceiling)"

if [ $ci = 1 ]; then
  acc=$(sort -g "$W/train.acc" | head -1)
  rss=$(awk '{print int($2/1024)}' "$W/train.times" | sort -g | tail -1)
  awk -v a="$acc" 'BEGIN {exit !(a >= 0.80)}' || { echo "FAIL: accuracy $acc below 0.80" >&2; exit 1; }
  if [ -n "${SCALE_TEXT_MAX_RSS_MB:-}" ] && [ "$rss" -gt "$SCALE_TEXT_MAX_RSS_MB" ]; then
    echo "FAIL: train's peak RSS $rss MB over SCALE_TEXT_MAX_RSS_MB=$SCALE_TEXT_MAX_RSS_MB" >&2; exit 1
  fi
  # Training through a cache (-stream, or a big file by default) leaves
  # no file behind: after success, after a bad line, and after SIGINT.
  leftovers() { find "$W" -maxdepth 1 -name '.hyperplane-*' | head -3; }
  [ -z "$(leftovers)" ] || { echo "FAIL: left after success: $(leftovers)" >&2; exit 1; }
  head -c 20000000 "$W/train.jsonl" | sed '$d' >"$W/bad.jsonl"
  echo '{"label": "pos", "text": 3}' >>"$W/bad.jsonl"
  if "$hp" train -stream -o "$W/model.hptm" "$W/bad.jsonl" >"$W/bad.log" 2>&1; then
    echo "FAIL: a bad line trained" >&2; exit 1
  fi
  grep -q 'bad.jsonl:[0-9]' "$W/bad.log" || { echo "FAIL: the error names no line: $(cat "$W/bad.log")" >&2; exit 1; }
  [ -z "$(leftovers)" ] || { echo "FAIL: left after a failure: $(leftovers)" >&2; exit 1; }
  "$hp" train -stream -o "$W/model.hptm" "${extra[@]}" "$W/train.jsonl" >"$W/int.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do [ -n "$(leftovers)" ] && break; sleep 0.1; done
  [ -n "$(leftovers)" ] || { echo "FAIL: no cache file appeared under train -stream" >&2; exit 1; }
  sleep 1
  kill -INT $pid
  code=0; wait $pid || code=$?
  [ $code = 1 ] && grep -q interrupted "$W/int.log" || { echo "FAIL: train after SIGINT: exit $code: $(tail -2 "$W/int.log")" >&2; exit 1; }
  [ -z "$(leftovers)" ] || { echo "FAIL: left after SIGINT: $(leftovers)" >&2; exit 1; }
  rm -f "$W/bad.jsonl"
  # A vocabulary counted in a budget too small for it is pruned, and the
  # training's peak RSS stays within that budget.
  /usr/bin/time -f '%e %M' -o "$W/vocab.times" "$hp" train -stream -epochs 1 -no-calibrate -mem 400MiB \
    -o "$W/vocab.hptm" "$W/train.jsonl" >"$W/vocab.log" 2>&1 || { echo "FAIL: train -mem 400MiB: $(tail -2 "$W/vocab.log")" >&2; exit 1; }
  grep -q 'terms counted in' "$W/vocab.log" || { echo "FAIL: -mem 400MiB pruned no term: $(cat "$W/vocab.log")" >&2; exit 1; }
  vrss=$(awk '{print int($2/1024)}' "$W/vocab.times")
  [ "$vrss" -le 400 ] || { echo "FAIL: peak RSS $vrss MiB over -mem 400MiB with a pruned vocabulary" >&2; exit 1; }
  echo "ci: ok (accuracy $acc, peak RSS $rss MB; no cache file left after success, failure or SIGINT; a pruned vocabulary in -mem 400MiB peaked at $vrss MiB)"
fi
