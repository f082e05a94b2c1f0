#!/usr/bin/env bash
# Usage: bench/multilabel_reuters.sh [RUNS] [DATA_DIR]  — trains hyperplane's multi-label text model with
# defaults on Reuters-21578 ModApte and evaluates it on the test split RUNS times (default 3), printing
# micro-/macro-F1 and the seconds of the two commands together (wall, and user+sys CPU); then runs
# scikit-learn's one-vs-rest anchor (../shared/tools/anchors/reuters_multilabel.py) RUNS times in the
# same session, for its fit + predict seconds on the same machine under the same load.
set -euo pipefail
R=$(cd "$(dirname "$0")/.." && pwd); N=${1:-3}; D=${2:-$R/../shared/data}/text/reuters21578
B=$(mktemp -d); trap 'rm -rf "$B"' EXIT
(cd "$R" && go build -o "$B/hp" ./cmd/hyperplane)
for i in $(seq "$N"); do
	/usr/bin/time -f "%e %U %S" -o "$B/t" bash -c "'$B/hp' train -seed $i -o '$B/m.hptl' '$D/reuters.modapte.train.jsonl.gz' >/dev/null && '$B/hp' eval -json -model '$B/m.hptl' '$D/reuters.modapte.test.jsonl' >'$B/e.json'"
	python3 -c "import json,sys; e=json.load(open('$B/e.json')); w,u,s=open('$B/t').read().split(); print('hyperplane run %d: micro-F1 %.4f macro-F1 %.4f  train+eval %.1f s wall, %.1f s cpu' % ($i, e['micro_f1'], e['macro_f1'], float(w), float(u)+float(s)))"
	python3 -c "import json; e=json.load(open('$B/e.json')); print('  decisions: ' + '; '.join('%s %.4f/%.4f' % (d['rule'], d['micro_f1'], d['macro_f1']) for d in e['decisions']))"
done
for i in $(seq "$N"); do
	/usr/bin/time -f "  anchor run $i: %e s wall, %U+%S s cpu (all of it, featurizing and both models)" /usr/bin/python3 "$R/../shared/tools/anchors/reuters_multilabel.py" "$D"
done
