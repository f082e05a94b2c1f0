#!/usr/bin/env bash
# Raw text in, labels out: hyperplane's two-command text workflow against
# fastText's on the same files, on this machine, in alternating runs.
#   usage: bench/compare_text.sh [RUNS]     (needs the fasttext package)
# For each set (imdb and 20 Newsgroups JSONL): hyperplane train on the raw
# training text writing a text model, then predict on the raw test text
# from standard input; fastText supervised -wordNgrams 2 (its other
# settings at their defaults) on the same text in its __label__ format,
# then predict on the test text from standard input. Prints accuracy, wall
# seconds (train, predict; median over RUNS with min–max), peak RSS of
# training, and the model file's size. fastText runs at its defaults and
# again with its tutorial's settings for small sets (-epoch 25 -lr 1.0).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
D=../shared/data/text
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v fasttext >/dev/null || { echo "fasttext not installed (apt-get install fasttext)" >&2; exit 1; }
go build -o "$tmp/hp" ./cmd/hyperplane
median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f (%.2f–%.2f)", m, a[1], a[NR]}'; }
# fastText reads "__label__L text" lines; its tokenizer splits on spaces,
# so the text is lowercased and punctuation spaced out, as its own
# examples prepare data.
tofasttext() {
  zcat "$1" | /usr/bin/python3 -c '
import json, re, sys
for line in sys.stdin:
    d = json.loads(line)
    t = re.sub(r"([^\w\s])", r" \1 ", d["text"].lower())
    print("__label__" + str(d["label"]).replace(" ", "_"), " ".join(t.split()))'
}
labels() { zcat "$1" | /usr/bin/python3 -c '
import json, sys
for line in sys.stdin: print(json.loads(line)["label"])'; }
acc() { paste -d'\t' "$1" "$2" | awk -F'\t' '{n++; if ($1 == $2) c++} END {printf "%.4f", c/n}'; }
timed() { /usr/bin/time -f "%e %M" -o "$tmp/time" "$@"; }
# fastText twice: at its defaults (5 epochs, learning rate 0.1), and with
# the settings its tutorial gives for small sets (25 epochs, learning rate
# 1.0), which long documents such as 20 Newsgroups' need to learn at all.
ftname=(fasttext fasttext-25e)
ftcfg=("" "-epoch 25 -lr 1.0")
declare -a ft_rss
printf "%-8s %-11s %8s %22s %22s %10s %9s\n" set tool accuracy "train s" "predict s" "train MiB" "model MB"
for set in imdb/imdb 20newsgroups/20ng; do
  name=$(basename $set)
  tr=$D/$set.train.jsonl.gz te=$D/$set.test.jsonl.gz
  tofasttext "$tr" > "$tmp/ft.train"
  tofasttext "$te" | sed 's/^__label__[^ ]* //' > "$tmp/ft.test"
  labels "$te" > "$tmp/truth"
  : > "$tmp/hp.tr"; : > "$tmp/hp.pr"
  for c in "${!ftcfg[@]}"; do : > "$tmp/ft$c.tr"; : > "$tmp/ft$c.pr"; done
  for r in $(seq "$runs"); do
    timed "$tmp/hp" train -o "$tmp/m.hptm" "$tr" > /dev/null
    read -r s rss < "$tmp/time"; echo "$s" >> "$tmp/hp.tr"; hp_rss=$rss
    zcat "$te" | timed "$tmp/hp" predict -model "$tmp/m.hptm" - > "$tmp/hp.out"
    read -r s _ < "$tmp/time"; echo "$s" >> "$tmp/hp.pr"
    for c in "${!ftcfg[@]}"; do
      # (the options are words: unquoted on purpose)
      timed fasttext supervised -input "$tmp/ft.train" -output "$tmp/ft$c" -wordNgrams 2 -verbose 0 ${ftcfg[$c]}
      read -r s rss < "$tmp/time"; echo "$s" >> "$tmp/ft$c.tr"; ft_rss[$c]=$rss
      timed fasttext predict "$tmp/ft$c.bin" - < "$tmp/ft.test" | sed 's/^__label__//' > "$tmp/ft$c.out"
      read -r s _ < "$tmp/time"; echo "$s" >> "$tmp/ft$c.pr"
    done
  done
  printf "%-8s %-11s %8s %22s %22s %10d %9.1f\n" "$name" hyperplane "$(acc "$tmp/hp.out" "$tmp/truth")" \
    "$(median < "$tmp/hp.tr")" "$(median < "$tmp/hp.pr")" $((hp_rss / 1024)) "$(stat -c %s "$tmp/m.hptm" | awk '{print $1/1e6}')"
  for c in "${!ftcfg[@]}"; do
    printf "%-8s %-11s %8s %22s %22s %10d %9.1f\n" "$name" "${ftname[$c]}" "$(acc "$tmp/ft$c.out" "$tmp/truth")" \
      "$(median < "$tmp/ft$c.tr")" "$(median < "$tmp/ft$c.pr")" $((ft_rss[$c] / 1024)) "$(stat -c %s "$tmp/ft$c.bin" | awk '{print $1/1e6}')"
  done
done
