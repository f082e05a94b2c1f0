# Sourced by the comparison scripts: the shared data sets they compare on,
# as "NAME TRAIN TEST" lines in the array sets. w8a and rcv1_small have no
# test file: every fifth row (NR%5==0) is held out, the same split for
# every tool. Needs D (../shared/data) and tmp (a scratch directory).
split() { # FILE NAME → $tmp/NAME.train $tmp/NAME.test
  awk -v tr="$tmp/$2.train" -v te="$tmp/$2.test" '{ if (NR % 5 == 0) print > te; else print > tr }' "$1"
}
split $D/libsvm/w8a w8a
split $D/libsvm/rcv1_small_vw1000.svm rcv1
# shellcheck disable=SC2034 # used by the scripts that source this file
sets=(
  "imdb $D/text/imdb/imdb.train.svm.gz $D/text/imdb/imdb.test.svm.gz"
  "a9a $D/libsvm/a9a $D/libsvm/a9a.t"
  "w8a $tmp/w8a.train $tmp/w8a.test"
  "rcv1_small $tmp/rcv1.train $tmp/rcv1.test"
  "20ng $D/text/20newsgroups/20ng.train.svm.gz $D/text/20newsgroups/20ng.test.svm.gz"
  "r52 $D/text/reuters21578/r52.train.svm $D/text/reuters21578/r52.test.svm"
)
