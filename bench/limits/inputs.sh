#!/usr/bin/env bash
# Builds the inputs of run.sh once (deterministic, about 200 MB) into DIR.
# Usage: bench/limits/inputs.sh [DIR]   (default: /tmp/hyperplane-limits/inputs)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
D="${1:-/tmp/hyperplane-limits/inputs}"
mkdir -p "$D"; cd "$D"
PY=/usr/bin/python3

# 1, 2: two-row files with a huge index
[ -s r1_idx2147483647.svm ] || printf '+1 2147483647:1\n-1 1:1\n' > r1_idx2147483647.svm
[ -s r2_idx1e9.svm ]        || printf '+1 1000000000:1\n-1 1:1\n' > r2_idx1e9.svm

# 3: 1000 distinct labels, one row each, random index in 1..W, one row uses index W
for W in 300000 1000000; do
  f=r3_1000labels_w$W.svm
  [ -s $f ] || $PY - "$W" > $f <<'PYEOF'
import random, sys
W = int(sys.argv[1]); r = random.Random(16)
for lab in range(1, 1001):
    idx = W if lab == 500 else r.randint(1, W)
    print(f"{lab} {idx}:1")
PYEOF
done

# 4: two rows, width 1e6
[ -s r4_w1e6.svm ] || printf '+1 1000000:1\n-1 1:1\n' > r4_w1e6.svm

# 5: 2-document JSONL
[ -s r5_docs.jsonl ] || printf '{"label":"a","text":"hello world"}\n{"label":"b","text":"goodbye moon"}\n' > r5_docs.jsonl

# 6: gzip of "1 " + 4 GiB of 'a', no newline
if [ ! -s r6_4GiB_line.gz ]; then
  $PY -c '
import sys
o = sys.stdout.buffer
o.write(b"1 ")
chunk = b"a" * (1 << 24)
for _ in range(256): o.write(chunk)   # 256 * 16 MiB = 4 GiB
' | gzip -1 > r6_4GiB_line.gz.tmp && mv r6_4GiB_line.gz.tmp r6_4GiB_line.gz
fi

# 7: gzip of 1 GiB of "1 1:1\n" rows
if [ ! -s r7_1GiB_rows.gz ]; then
  $PY -c '
import sys
o = sys.stdout.buffer
row = b"1 1:1\n"; chunk = row * ((1 << 24) // len(row))
total = 1 << 30; n = 0
while n + len(chunk) <= total: o.write(chunk); n += len(chunk)
rest = (total - n) // len(row); o.write(row * rest)
' | gzip -1 > r7_1GiB_rows.gz.tmp && mv r7_1GiB_rows.gz.tmp r7_1GiB_rows.gz
fi

# 9: 200k-row LIBSVM file (binary labels, 50 nonzeros/row over 100k features), deterministic
[ -s r9_200k.svm ] || $PY - > r9_200k.svm <<'PYEOF'
import random
r = random.Random(9)
out = []
for i in range(200000):
    idx = sorted(r.sample(range(1, 100001), 50))
    s = sum(1 for j in idx if j % 2) - 25
    lab = "+1" if s >= 0 else "-1"
    out.append(lab + " " + " ".join(f"{j}:{r.random():.4f}" for j in idx))
print("\n".join(out))
PYEOF

# 10: data.svm (20k rows) and its gzip, text jsonl
[ -s data.svm ] || $PY - > data.svm <<'PYEOF'
import random
r = random.Random(10)
for i in range(20000):
    idx = sorted(r.sample(range(1, 1001), 20))
    s = sum(1 for j in idx if j % 2) - 10
    lab = "+1" if s >= 0 else "-1"
    print(lab + " " + " ".join(f"{j}:{r.random():.4f}" for j in idx))
PYEOF
[ -s data.svm.gz ] || gzip -c data.svm > data.svm.gz
[ -s x.jsonl ] || printf '{"label":"pos","text":"good great fine"}\n{"label":"neg","text":"bad awful poor"}\n{"label":"pos","text":"great good"}\n{"label":"neg","text":"poor bad"}\n' > x.jsonl

# 11: extreme values
[ -s r11_1e20.svm ]  || printf '1 1:1e20\n-1 1:-1e20\n' > r11_1e20.svm
[ -s r11_f32range.svm ] || printf '1 1:1e-50\n-1 1:3.4e39\n' > r11_f32range.svm
[ -s r11_1e-50.svm ] || printf '1 1:1e-50\n-1 2:1\n' > r11_1e-50.svm
ls -la "$D"
