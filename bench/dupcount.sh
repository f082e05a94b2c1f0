#!/usr/bin/env bash
# Usage: bench/dupcount.sh [REPO_DIR] — counts the pairs of places that share six or more lines, with the
# `duplicates` tool of the development machines (it must be on PATH), over the tracked non-test Go files
# outside asm/_gen and bench/limit, four ways:
#   as written;
#   with each grouped import written as one import line per path, which the tool passes over (its README
#     says import lines are skipped, but the lines inside `import ( … )` are bare strings to it);
#   and both of those again over a copy whose function bodies are emptied (bench/declskel): the pairs that
#     declarations alone make, which no change to code can remove.
# Each line gives all pairs and those the tool does not mark boilerplate. The rows are left in $OUT.
set -euo pipefail
R=$(cd "${1:-$(dirname "$0")/..}" && pwd)
OUT=${OUT:-$(mktemp -d)}; mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d); trap 'rm -rf $T' EXIT
(cd "$here/.." && go build -o $T/declskel ./bench/declskel)
mkdir -p $T/asis $T/lines
(cd "$R" && git ls-files '*.go' | grep -v '_test\.go$' | grep -v -e '^asm/_gen/' -e '^bench/limit/') | while read -r f; do
  mkdir -p "$T/asis/$(dirname "$f")" "$T/lines/$(dirname "$f")"
  cp "$R/$f" "$T/asis/$f"
  awk '/^import \($/ { inb = 1; next }
       inb && /^\)$/ { inb = 0; next }
       inb { if ($0 ~ /^[ \t]*$/ || $0 ~ /^[ \t]*\/\//) next; sub(/^[ \t]+/, ""); print "import " $0; next }
       { print }' "$R/$f" >"$T/lines/$f"
done
for v in asis lines; do
  cp -r $T/$v $T/$v-decl
  find $T/$v-decl -name '*.go' -print0 | xargs -0 $T/declskel
done
count() {
  (cd $T/$1 && duplicates --most 200 --seconds 120) >"$OUT/$1.txt"
  printf '%-34s %3s pairs, %3s not boilerplate\n' "$2" "$(head -1 "$OUT/$1.txt" | awk '{print ($1 ~ /^[0-9]+$/) ? $1 : 0}')" \
    "$(grep '^D' "$OUT/$1.txt" | grep -vc boilerplate || true)"
}
count asis "as written"
count lines "imports as lines"
count asis-decl "declarations only, as written"
count lines-decl "declarations only, imports as lines"
echo "rows: $OUT"
