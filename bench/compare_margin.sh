#!/usr/bin/env bash
# Accuracy and fit time of the peer linear large-margin learners that
# hyperplane's passive-aggressive / Pegasos learners must match, on the shared
# data sets, measured on this machine. Needs ../shared/tools/install-anchors.sh.
#   usage: bench/compare_margin.sh [EPOCHS] [RUNS]
# Peers (bench/sk_margin.py, scikit-learn, random_state=0, EPOCHS passes):
#   sgd      SGDClassifier(hinge, l2, default alpha)   sgd_avg  same, average=True
#   pa1      PassiveAggressiveClassifier(C=1, PA-I)    pa1_avg  same, average=True
#   linsvc   LinearSVC(C=1) (liblinear dual, ~ -s 1, with intercept; own stopping rule)
#   perc     Perceptron (reference only: not counted for "best")
# and the LIBLINEAR command-line tools (C=1, no bias term, default eps):
#   ll_s2    liblinear-train -s 2 (L2-loss SVM, primal)
#   ll_s1    liblinear-train -s 1 (L2-loss SVM, dual)
# Prints a table of test accuracies with the best peer (all tied peers listed),
# then a table of fit seconds (median over RUNS runs; accuracies are
# deterministic), then hyperplane's learners at their default settings
# (`hyperplane train` with no flags is the averaged PA-II on normalized rows)
# beside the best peer, and a five-fold comparison on rcv1_small, whose
# 200-row test split moves by 0.5 points a row. w8a and rcv1_small have no test file: every fifth row
# (NR%5==0) is held out, as in bench/compare_linear.sh. 20ng_text is 20
# Newsgroups raw text through TfidfVectorizer(1-2 grams, sublinear tf), fitted
# on train only; LIBLINEAR is not run on it.
set -euo pipefail
cd "$(dirname "$0")/.."
epochs=${1:-10}
runs=${2:-1}
D=../shared/data
SK=bench/sk_margin.py
LL=../shared/tools/liblinear.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. bench/sets.sh
sets+=(
  "r8 $D/text/reuters21578/r8.train.svm $D/text/reuters21578/r8.test.svm"
  "20ng_text $D/text/20newsgroups/20ng.train.jsonl.gz $D/text/20newsgroups/20ng.test.jsonl.gz"
)
sk_names=(sgd_hinge sgd_hinge_avg pa1 pa1_avg linearsvc perceptron)
cols=(sgd sgd_avg pa1 pa1_avg linsvc perc ll_s2 ll_s1)
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
field() { sed -n "s/.*$1=\([^ ]*\).*/\1/p"; }
header() { printf '%-11s' set; printf ' %8s' "${cols[@]}"; printf "$1" "${@:2}"; }
echo "epochs=$epochs runs=$runs $(/usr/bin/python3 -c 'import sklearn; print("scikit-learn", sklearn.__version__)')" \
  "liblinear $(dpkg-query -W -f='${Version}' liblinear-tools 2>/dev/null || echo '?')"
echo "test accuracy (best excludes perc)"
header ' %8s  %s\n' best best_peer
times_table=()
declare -A best_peer=()
go build -o "$tmp/hyperplane" ./cmd/hyperplane
for s in "${sets[@]}"; do
  read -r name tr te <<<"$s"
  declare -A acc=() secs=()
  for c in "${cols[@]}"; do secs[$c]=""; done
  for _ in $(seq "$runs"); do
    if [ "$name" = 20ng_text ]; then
      out=$(/usr/bin/python3 $SK --text "$tr" "$te" "$epochs" 2>/dev/null)
    else
      out=$(/usr/bin/python3 $SK "$tr" "$te" "$epochs" 2>/dev/null)
    fi
    for i in "${!sk_names[@]}"; do
      line=$(grep "^name=${sk_names[$i]} " <<<"$out")
      acc[${cols[$i]}]=$(field acc <<<"$line")
      secs[${cols[$i]}]+="$(field fit_s <<<"$line") "
    done
    if [ "$name" != 20ng_text ]; then
      for sv in 2 1; do
        line=$($LL "$tr" "$te" -s $sv)
        acc[ll_s$sv]=$(/usr/bin/python3 -c "print('%.4f' % ($(field acc_percent <<<"$line")/100))")
        secs[ll_s$sv]+="$(field train_s <<<"$line") "
      done
    fi
  done
  best="" best_name=""
  row=$(printf '%-11s' "$name") trow=$(printf '%-11s' "$name")
  for c in "${cols[@]}"; do
    a=${acc[$c]:-}
    if [ -z "$a" ]; then row+=$(printf ' %8s' -); trow+=$(printf ' %8s' -); continue; fi
    row+=$(printf ' %8.4f' "$a")
    trow+=$(printf ' %8.3f' "$(tr ' ' '\n' <<<"${secs[$c]}" | grep . | median)")
    if [ "$c" != perc ] && { [ -z "$best" ] || awk -v a="$a" -v b="$best" 'BEGIN{exit !(a > b)}'; }; then
      best=$a
    fi
  done
  for c in "${cols[@]}"; do # every peer that ties the best, comma-separated
    if [ "$c" != perc ] && [ "${acc[$c]:-}" = "$best" ]; then best_name+="${best_name:+,}$c"; fi
  done
  printf '%s %8.4f  %s\n' "$row" "$best" "$best_name"
  best_peer[$name]=$best
  times_table+=("$trow")
  unset acc secs
done
echo
echo "fit seconds (median of $runs; sklearn: fit() only, LIBLINEAR: liblinear-train wall time incl. its file read)"
header '\n'
printf '%s\n' "${times_table[@]}"

# hyperplane's learners, each at its default settings, on the same files.
hp_acc() { "$tmp/hyperplane" train -json -epochs "$epochs" "$@" | sed -n 's/.*"test_accuracy": *\([0-9.]*\).*/\1/p'; }
hp_cols=("default:" "averaged:-algo averaged" "pa:-algo pa" "pa1:-algo pa1" "pegasos:-algo pegasos")
echo
echo "hyperplane, $epochs epochs, default settings (default = train with no flags: averaged PA-II, rows normalized)"
printf '%-11s' set; for c in "${hp_cols[@]}"; do printf ' %8s' "${c%%:*}"; done
printf ' %8s %9s %12s %12s\n' best best_peer "best-peer" "default-best"
for s in "${sets[@]}"; do
  read -r name tr te <<<"$s"
  if [ "$name" = 20ng_text ]; then
    # Raw text through the featurizer: word unigrams and bigrams, log TF, IDF.
    "$tmp/hyperplane" convert -vocab=false -ngrams 2 -tf log -idf -save-featurizer "$tmp/f.json" "$tr" "$tmp/tr.hpc" >/dev/null
    "$tmp/hyperplane" convert -featurizer "$tmp/f.json" "$te" "$tmp/te.hpc" >/dev/null
    tr=$tmp/tr.hpc te=$tmp/te.hpc
  fi
  row=$(printf '%-11s' "$name") best=0 def=""
  for c in "${hp_cols[@]}"; do
    # shellcheck disable=SC2086 # the flags split into words
    a=$(hp_acc ${c#*:} -test "$te" "$tr")
    row+=$(printf ' %8.4f' "$a")
    [ -z "$def" ] && def=$a
    best=$(awk -v a="$a" -v b="$best" 'BEGIN { print (a > b) ? a : b }')
  done
  printf '%s %8.4f %9.4f %+12.4f %+12.4f\n' "$row" "$best" "${best_peer[$name]}" \
    "$(awk -v a="$best" -v b="${best_peer[$name]}" 'BEGIN { print a - b }')" "$(awk -v a="$def" -v b="$best" 'BEGIN { print a - b }')"
done

# rcv1_small in five folds (row i in fold i%5), hyperplane's default
# against LIBLINEAR -s 2, the best deterministic peer.
echo
echo "rcv1_small, five folds: test accuracy of hyperplane (default) and LIBLINEAR -s 2"
hs=() ls=()
for k in 0 1 2 3 4; do
  awk -v k=$k -v tr="$tmp/f.train" -v te="$tmp/f.test" '{ if (NR % 5 == k) print > te; else print > tr }' $D/libsvm/rcv1_small_vw1000.svm
  h=$(hp_acc -test "$tmp/f.test" "$tmp/f.train")
  l=$(/usr/bin/python3 -c "print('%.4f' % ($($LL "$tmp/f.train" "$tmp/f.test" -s 2 | field acc_percent)/100))")
  echo "fold $k: hyperplane $h  LIBLINEAR $l"
  hs+=("$h") ls+=("$l")
done
/usr/bin/python3 -c "
import sys
h, l = [float(x) for x in sys.argv[1].split()], [float(x) for x in sys.argv[2].split()]
print(f'mean: hyperplane {sum(h)/5:.4f}  LIBLINEAR {sum(l)/5:.4f}  difference {sum(h)/5 - sum(l)/5:+.4f}')" "${hs[*]}" "${ls[*]}"
