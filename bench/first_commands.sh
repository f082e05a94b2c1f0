#!/usr/bin/env bash
# The first commands a fastText user and a scikit-learn user would type,
# in the words the README gives them, run on small inputs made from the
# shared data: each must exit 0 and print what the script looks for. One
# line per command; the first failure prints the command's output and the
# script exits 1 after running the rest.
#
# usage: bench/first_commands.sh [DATA]   (DATA defaults to ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
D=$(cd "${1:-../shared/data}" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin"
go build -o "$T/bin/hyperplane" ./cmd/hyperplane
export PATH="$T/bin:$PATH"
cd "$T"

# fastText's input: "__label__X text" lines, from the sentence polarity
# JSONL (every other sentence, to keep it small); a fifth of them is the
# test file, a few of the test sentences are "more data" for train -i.
sed -n 's/^{"label": *"\([^"]*\)".*"text": *"\(.*\)"}$/__label__\1 \2/p' \
  "$D/text/sentence_polarity/sentence_polarity.jsonl" | awk 'NR % 2 == 0' >all.txt
awk 'NR % 5 != 0' all.txt >train.txt
awk 'NR % 5 == 0' all.txt >test.txt
awk 'NR % 10 == 0' test.txt >more.txt
ntest=$(wc -l <test.txt)

# scikit-learn's input: wine as a CSV table with a header and the label in
# a column named class (load_wine(as_frame=True) written with to_csv), and
# a train/test split of it.
awk 'BEGIN { print "alcohol,malic_acid,ash,alcalinity_of_ash,magnesium,total_phenols,flavanoids,nonflavanoid_phenols,proanthocyanins,color_intensity,hue,od280_od315,proline,class" }
  { delete v; for (i = 2; i <= NF; i++) { split($i, kv, ":"); v[kv[1]] = kv[2] }
    for (j = 1; j <= 13; j++) printf "%s,", (j in v) ? v[j] : 0; print $1 }' "$D/sklearn/wine.svm" >wine.csv
awk 'NR == 1 || NR % 4 != 1' wine.csv >wine.train.csv
awk 'NR == 1 || NR % 4 == 1' wine.csv >wine.test.csv
nwine=$(($(wc -l <wine.test.csv) - 1))

failed=0
# check WHO WANT CMD runs CMD in bash and wants exit status 0 and a line of
# its output (stdout and stderr) matching the extended regexp WANT.
check() {
  local who=$1 want=$2 cmd=$3 out rc=0
  out=$(bash -c "set -o pipefail; $cmd" 2>&1) || rc=$?
  if [ "$rc" -eq 0 ] && grep -Eq -- "$want" <<<"$out"; then
    printf 'ok    %-12s %s\n' "$who" "$cmd"
  else
    printf 'FAIL  %-12s %s (exit %d; wanted /%s/)\n' "$who" "$cmd" "$rc" "$want"
    sed 's/^/      | /' <<<"$out" | tail -20
    failed=1
  fi
}

F=fastText
check $F 'model: +saved to m\.hptm' 'hyperplane train -o m.hptm train.txt'
check $F 'test: +test\.txt: accuracy 0\.[6-9]' 'hyperplane train -test test.txt train.txt'
check $F '^pos$' 'echo "a wonderful , moving film" | hyperplane predict -model m.hptm -'
check $F $'^neg\t0\\.[5-9][0-9]*\tpos\t0\\.[0-4]' 'echo "a dull , boring film" | hyperplane predict -model m.hptm -k 2 -proba -'
check $F "^ *$ntest\$" 'hyperplane predict -model m.hptm test.txt | wc -l'
check $F 'accuracy +0\.[6-9][0-9]* +[0-9]+$' 'hyperplane eval -model m.hptm test.txt'
check $F 'cv: +5 stratified folds: accuracy 0\.[6-9]' 'hyperplane train -cv 5 train.txt'
check $F 'model: +saved to m2\.hptm' 'hyperplane train -i m.hptm -o m2.hptm more.txt'
check $F 'text: +2-grams' 'hyperplane train -ngrams 2 -epochs 5 train.txt'
check $F '^pos$' 'hyperplane inspect m.hptm'
check $F $'^neg\t"boring"' 'echo "a dull , boring film" | hyperplane predict -model m.hptm -explain 3 -'

S=scikit-learn
check $S '178 rows, 13 features, 3 classes' 'hyperplane train wine.csv'
check $S 'cv: +5 stratified folds: accuracy 0\.9' 'hyperplane train -cv 5 wine.csv'
check $S 'scale: +standard' 'hyperplane train -cv 5 -scale standard wine.csv'
check $S 'scale: +maxabs' 'hyperplane train -cv 5 -scale maxabs wine.csv'
check $S '"test_accuracy": 0\.9' 'hyperplane train -json -test wine.test.csv -o w.hpm wine.train.csv'
check $S "^ *$nwine\$" 'hyperplane predict -model w.hpm -o pred.txt wine.test.csv && grep -Ec "^[123]$" pred.txt'
check $S 'accuracy +0\.9[0-9]* +[0-9]+$' 'hyperplane eval -model w.hpm wine.test.csv'
check $S '"mean": 0\.9' 'hyperplane train -json -cv 5 wine.csv'
check $S '^1 1:14\.23 2:1\.71 3:2\.43 ' 'hyperplane convert wine.csv wine.svm && head -1 wine.svm'
check $S 'wine\.svm: 178 rows, 13 columns' 'hyperplane stats wine.svm'
check $S 'features scaled \(standard' 'hyperplane inspect w.hpm'

[ "$failed" -eq 0 ] && echo "first commands: all ran and printed what they should"
exit "$failed"
