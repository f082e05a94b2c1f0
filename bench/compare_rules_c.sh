#!/usr/bin/env bash
# What a large-margin rule costs over the perceptron, in hyperplane and in
# plain C on the same file in the same run: bench/limit/ref.c -p and
# bench/limit/hpref -p each fit the averaged perceptron and averaged PA-II
# (C = 1) alternately and print PA-II's epoch ÷ the perceptron's per
# repetition. PA-II updates on every margin violation, not only on
# mistakes, so it updates several times as many rows; the C figure is what
# that costs with the simplest fast layout (float32 w and u, scalar
# loads), the floor to hold hyperplane's against.
#   usage: bench/compare_rules_c.sh [-n] [-m] [-r ROUNDS] [-k FITS] [-e EPOCHS] TRAIN
#   -n: rows normalized to unit length in both (train's default)
#   -m: multiclass data; the C side keeps float64 accumulators, as
#       hyperplane does, and also times PA-II's last-epoch updates replayed
#       alone (no scores, no decisions): the least those updates cost in C
# Prints a line per round and median [min–max] over rounds. Times are CPU
# time (getrusage / CLOCK_PROCESS_CPUTIME_ID).
set -euo pipefail
cd "$(dirname "$0")/.."
norm="" mc="" rounds=5 fits=3 epochs=10
while getopts "nmr:k:e:" o; do
  case $o in
    n) norm=-n ;;
    m) mc="-m -d" ;;
    r) rounds=$OPTARG ;;
    k) fits=$OPTARG ;;
    e) epochs=$OPTARG ;;
    *) echo "usage: bench/compare_rules_c.sh [-n] [-m] [-r ROUNDS] [-k FITS] [-e EPOCHS] TRAIN" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: bench/compare_rules_c.sh [-n] [-m] [-r ROUNDS] [-k FITS] [-e EPOCHS] TRAIN" >&2; exit 2; }
train=$1
command -v gcc >/dev/null || { echo "compare_rules_c.sh: needs gcc" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O3 -march=native -fno-tree-vectorize -o "$tmp/ref" bench/limit/ref.c -lm
go build -o "$tmp/hpref" ./bench/limit/hpref
field() { awk -v n="$1" -v k="$2" '$1 == n {split($3, a, /[][-]/); print (k == "med") ? $2 : a[2]}'; }
echo "# $(basename "$train"), ${norm:+normalized rows, }$rounds rounds of $fits fits × $epochs epochs each, CPU time, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "round\tC_perc_ms\tC_pa2_ms\tC_ratio\thp_perc_ms\thp_pa2_ms\thp_ratio\tC_replay_ms\n" | tee "$tmp/rounds.tsv"
for r in $(seq "$rounds"); do
  runC() { c=$("$tmp/ref" -c -p $norm $mc -r "$fits" -e "$epochs" "$train"); }
  runH() { h=$("$tmp/hpref" -c -p $norm -r "$fits" -e "$epochs" "$train"); }
  if [ $((r % 2)) -eq 1 ]; then runC; runH; else runH; runC; fi
  printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$r" \
    "$(field ref.epoch_ms med <<<"$c")" "$(field pa2.epoch_ms med <<<"$c")" "$(field pa2.ratio med <<<"$c")" \
    "$(field hp.epoch_ms med <<<"$h")" "$(field pa2.epoch_ms med <<<"$h")" "$(field pa2.ratio med <<<"$h")" "$(field replay_ms med <<<"$c")" | tee -a "$tmp/rounds.tsv"
done
stat() { sort -g | awk '{a[NR]=$1} END {m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.3f [%.3f–%.3f]", m, a[1], a[NR]}'; }
col() { awk -F'\t' -v c="$1" 'NR > 1 {print $c}' "$tmp/rounds.tsv" | stat; }
echo
echo "summary over $rounds rounds: median [min–max]"
printf '%-40s %s\n' "C: PA-II epoch ÷ perceptron epoch" "$(col 4)"
printf '%-40s %s\n' "hyperplane: PA-II epoch ÷ perceptron" "$(col 7)"
printf '%-40s %s\n' "C perceptron, ms/epoch" "$(col 2)"
printf '%-40s %s\n' "hyperplane perceptron, ms/epoch" "$(col 5)"
printf '%-40s %s\n' "hyperplane PA-II, ms/epoch" "$(col 6)"
if [ -n "$mc" ]; then
  printf '%-40s %s\n' "C: PA-II's last-epoch updates alone, ms" "$(col 8)"
  printf '%-40s %s\n' "  ÷ hyperplane perceptron epoch" "$(awk -F'\t' 'NR > 1 {print $8 / $5}' "$tmp/rounds.tsv" | stat)"
fi
echo "updates (first, last epoch): C $(awk '$1 == "pa2.updates" {print $2, $3}' <<<"$c"), hyperplane $(awk '$1 == "pa2.updates" {print $2, $3}' <<<"$h"); perceptron mistakes: C $(awk '$1 == "ref.mistakes" {print $2, $3}' <<<"$c"), hyperplane $(awk '$1 == "hp.mistakes" {print $2, $3}' <<<"$h")"
