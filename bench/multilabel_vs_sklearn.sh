#!/usr/bin/env bash
# Usage: bench/multilabel_vs_sklearn.sh [RUNS] [DATA_DIR]  — the multi-label speed target on Reuters-21578
# ModApte, measured in one run: hyperplane's `train` with defaults on the training JSONL then `eval` on the
# test JSONL (two commands, featurizing, model file and all: wall seconds of both together), alternating
# with scikit-learn's anchor (../shared/tools/anchors/reuters_multilabel.py), of which the fit + predict
# seconds of OneVsRestClassifier(LinearSVC()) alone count (features prebuilt). RUNS pairs (default 3);
# prints each pair, then medians with min–max, the ratio of the medians, and both models' micro-/macro-F1.
set -euo pipefail
R=$(cd "$(dirname "$0")/.." && pwd); N=${1:-3}; D=${2:-$R/../shared/data}/text/reuters21578
PY=${PYTHON:-/usr/bin/python3}
B=$(mktemp -d); trap 'rm -rf "$B"' EXIT
(cd "$R" && go build -o "$B/hp" ./cmd/hyperplane)
"$PY" -c 'import sklearn' || { echo "no scikit-learn for $PY (set PYTHON)" >&2; exit 1; }
for i in $(seq "$N"); do
	s=$(date +%s.%N)
	"$B/hp" train -o "$B/m.hptl" "$D/reuters.modapte.train.jsonl.gz" >/dev/null
	"$B/hp" eval -json -model "$B/m.hptl" "$D/reuters.modapte.test.jsonl" >"$B/e.json"
	e=$(date +%s.%N)
	"$PY" "$R/../shared/tools/anchors/reuters_multilabel.py" "$D" 2>/dev/null >"$B/a.txt"
	"$PY" - "$B/e.json" "$B/a.txt" "$s" "$e" "$i" >>"$B/runs.txt" <<'PYEOF'
import json, re, sys
e = json.load(open(sys.argv[1]))
a = [l for l in open(sys.argv[2]) if l.startswith("OvR LinearSVC")][0]
m = re.search(r"micro-F1 ([\d.]+)\s+macro-F1 ([\d.]+)\s+fit\+predict ([\d.]+) s", a)
hp = float(sys.argv[4]) - float(sys.argv[3])
print(sys.argv[5], "%.3f" % hp, "%.4f" % e["micro_f1"], "%.4f" % e["macro_f1"], m.group(3), m.group(1), m.group(2))
PYEOF
	tail -1 "$B/runs.txt" | awk '{printf "run %s: hyperplane train+eval %.2f s (micro-F1 %s, macro-F1 %s); scikit-learn LinearSVC fit+predict %s s (micro-F1 %s, macro-F1 %s); ratio %.1fx\n", $1, $2, $3, $4, $5, $6, $7, $5/$2}'
done
"$PY" - "$B/runs.txt" <<'PYEOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
hp = [float(r[1]) for r in rows]
sk = [float(r[4]) for r in rows]
med = statistics.median
print("hyperplane train+eval: median %.2f s (%.2f-%.2f); scikit-learn fit+predict: median %.1f s (%.1f-%.1f); ratio of medians %.1fx, per run %s" % (
    med(hp), min(hp), max(hp), med(sk), min(sk), max(sk), med(sk) / med(hp), ", ".join("%.1fx" % (s / h) for h, s in zip(hp, sk))))
print("quality: hyperplane micro-F1 %s macro-F1 %s; scikit-learn LinearSVC micro-F1 %s macro-F1 %s" % (rows[0][2], rows[0][3], rows[0][5], rows[0][6]))
PYEOF
