#!/usr/bin/env bash
# Usage: bench/modelsha.sh [REPO_DIR] [DATA_DIR]  — builds the CLI of REPO_DIR and prints the SHA-256 of a set
# of fitted models (every learner family, binary/multiclass, threads, stream, kernel, text).
# Compare the output before and after a refactor: it must be identical. Paths
# print as DATA/… and TMP/…, so outputs from two checkouts diff cleanly.
set -euo pipefail
R=$(cd "${1:-$(dirname "$0")/..}" && pwd); D=${2:-$R/../shared/data}
B=$(mktemp -d); O=$(mktemp -d)
(cd "$R" && go build -o $B/hp ./cmd/hyperplane)
hp=$B/hp
a9=$D/libsvm/a9a; r8=$D/text/reuters21578/r8.train.svm; dg=$D/sklearn/digits.train.svm
$hp convert $a9 $O/a9.hpc >/dev/null 2>&1
i=0
run() { i=$((i+1)); $hp train -o $O/m$i "$@" >/dev/null 2>&1 || echo "m$i FAILED: $*"; printf "%s  %s\n" "$(sha256sum <$O/m$i 2>/dev/null | cut -c1-16)" "$(a="${*//$O/TMP}"; echo "${a//$D/DATA}")"; }
run -algo averaged -normalize=false -epochs 5 $a9
run -algo plain -normalize=false -epochs 5 $a9
run -algo voted -normalize=false -epochs 3 $a9
run -algo batch -normalize=false -epochs 5 $a9
run -algo averaged -normalize=false -margin 0.5 -init 0.01 -bias augmented -epochs 5 $a9
run -algo averaged -normalize=false -threads 2 -epochs 5 $a9
run -algo averaged -normalize=false -stream -epochs 5 $O/a9.hpc
run -epochs 5 $a9
run -epochs 5 -stream $O/a9.hpc
run -algo pegasos -epochs 5 $a9
run -algo pa1 -no-average -epochs 5 $a9
run -algo averaged -normalize=false -epochs 5 $r8
run -epochs 5 $r8
run -epochs 5 -threads 2 $r8
run -algo pegasos -epochs 5 $r8
run -algo averaged -normalize=false -epochs 5 -balanced $r8
run -epochs 5 -validation 0.1 $r8 || true
run -kernel rbf:gamma=0.001 -epochs 3 $dg
run -kernel rbf:gamma=0.001 -algo pa2 -epochs 3 $dg
run -kernel poly:degree=2,gamma=0.001,coef0=1 -algo plain -budget 200 -epochs 3 $dg
run -kernel rbf:gamma=0.001 -algo voted -epochs 2 $dg
run -epochs 3 $D/text/sentence_polarity/sentence_polarity.jsonl
# Hashed text: calibrated on held-out rows, not calibrated, multiclass, wide.
run -vocab=false -epochs 3 $D/text/imdb/imdb.train.jsonl.gz
run -vocab=false -no-calibrate -epochs 3 $D/text/sentence_polarity/sentence_polarity.jsonl
run -vocab=false -epochs 3 $D/text/20newsgroups/20ng.train.jsonl.gz
run -vocab=false -bits 24 -algo pa -epochs 3 $D/text/trec_qc/trec_qc.train.jsonl
rm -rf $B $O
