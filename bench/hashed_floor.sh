#!/usr/bin/env bash
# Is "a hashed epoch ≤ 1.2× the vocabulary epoch per nonzero" within the
# machine's reach on imdb? This script trains C references and hyperplane
# on the very rows train learns from in its two text modes, in alternating
# rounds of one run, and prints each program's ns per nonzero on each set
# and the ratio hashed/vocab (taken within a round, then median [min–max]
# over the rounds).
#
#   usage: bench/hashed_floor.sh [-r ROUNDS] [-k FITS] [TRAIN.jsonl.gz]
#
# TRAIN defaults to ../shared/data/text/imdb/imdb.train.jsonl.gz. Steps:
#   1. go run ./bench/hashfloor rows writes the rows train's default
#      featurizer makes of TRAIN, less those it holds out for calibration:
#      vocab.svm, hashed.svm (by bucket) and hashed_rn.svm (the buckets
#      renumbered as engine.Fit renumbers them before it trains, rows in
#      the order Fit keeps). That the rows are train's is checked: the
#      mistakes of each epoch of hashfloor fit must equal those of
#      train -json.
#   2. Each round runs, in an order that reverses from round to round and
#      with the two sets alternating:
#      - hyperplane train -json on TRAIN in both modes: ns_per_nonzero, the
#        figure the target names (a whole fit: what Fit does before its
#        first epoch, the renumbering of the hashed columns included);
#      - hashfloor fit (engine.Fit with train's learner, averaged PA-II
#        on normalized rows) on vocab.svm and hashed.svm: the whole fit per
#        epoch (fit) and the median epoch of 2..E (steady);
#      - bench/limit/ref.c -p -n on vocab.svm and hashed_rn.svm: the
#        perceptron (fit, and steady: the mean of epochs 2..E) and PA-II
#        (fit only), scalar loads, float32 w and u; and on hashed.svm, the
#        hashed rows by bucket, not renumbered (ref_bucket);
#      - ../shared/tools/limit/pe.c (needs zlib's headers) on vocab.svm and
#        hashed_rn.svm, averaged perceptron, with its row prefetch at its
#        default distance of 4 rows, at 16 rows (-d 16), with the model
#        lines of the row 4 ahead prefetched too (-g 4), and with huge
#        pages (-H); and with -R on hashed.svm (its own renumbering by
#        frequency, each row's indices sorted), against vocab.svm sorted
#        the same way. Variants (PE_VARIANTS): float32 w and u apart or
#        interleaved, a float64 accumulator beside (w32u64) or interleaved
#        with float32 w in one 16-byte slot (ilv32_64, hyperplane's layout
#        for hashed rows), scalar loads (gathers are slower on this AMD
#        CPU), uniform shuffles and shuffled windows of chunks (win).
#   Every program times only its epochs and keeps the fastest of FITS fits
#   (default 3) per round; figures are ns per nonzero of the trained rows
#   per epoch.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=5 fits=3
while getopts "r:k:" o; do
  case $o in
  r) rounds=$OPTARG ;;
  k) fits=$OPTARG ;;
  *) echo "usage: bench/hashed_floor.sh [-r ROUNDS] [-k FITS] [TRAIN.jsonl.gz]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
train=${1:-../shared/data/text/imdb/imdb.train.jsonl.gz}
[ -r "$train" ] || { echo "hashed_floor.sh: cannot read $train" >&2; exit 1; }
PE_SRC=${PE_SRC:-../shared/tools/limit/pe.c}
PE_VARIANTS=${PE_VARIANTS:-sep.w32u32.s.uni,sep.ilv32.s.uni,sep.w32u64.s.uni,sep.ilv32_64.s.uni,sep.w32u32.s.win}

tmp=${KEEP:-$(mktemp -d)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
CFLAGS="-O3 -march=native -fno-tree-vectorize"
go build -o "$tmp/hp" ./cmd/hyperplane
go build -o "$tmp/hashfloor" ./bench/hashfloor
gcc $CFLAGS -o "$tmp/ref" bench/limit/ref.c -lm
pe=""
if [ ! -f "$PE_SRC" ]; then
  echo "# pe: $PE_SRC not found, skipped"
elif ! grep -qw avx512f /proc/cpuinfo; then
  echo "# pe: this CPU has no AVX-512, which pe.c uses without a check; skipped"
elif ! gcc $CFLAGS -o "$tmp/pe" "$PE_SRC" -lz -lm 2>"$tmp/pe.err"; then
  echo "# pe: did not compile (zlib headers: apt-get install zlib1g-dev), skipped:"; sed 's/^/#   /' "$tmp/pe.err"
else
  pe="$tmp/pe"
fi

echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $(lscpu | grep -E '^L[123]' | tr -s ' ' | paste -sd';'); load $(cut -d' ' -f1-3 /proc/loadavg)"
"$tmp/hashfloor" rows -o "$tmp" "$train" | sed 's|^'"$tmp"'/|# |'
nnz() { awk 'NR == 1 {for (i = 1; i <= NF; i++) if ($i ~ /^nnz=/) {sub(/nnz=/, "", $i); print $i}}' "$1"; }
nnz_vocab=$("$tmp/hashfloor" fit -r 1 -e 2 "$tmp/vocab.svm" | nnz /dev/stdin)
nnz_hashed=$("$tmp/hashfloor" fit -r 1 -e 2 "$tmp/hashed.svm" | nnz /dev/stdin)
docs_vocab=$("$tmp/hp" train -json -vocab=true -o "$tmp/m.hptm" "$train" | tee "$tmp/train_vocab.json" | sed -n 's/.*"nnz": *\([0-9]*\).*/\1/p')
docs_hashed=$("$tmp/hp" train -json -vocab=false -o "$tmp/m.hptm" "$train" | tee "$tmp/train_hashed.json" | sed -n 's/.*"nnz": *\([0-9]*\).*/\1/p')
# The check that the rows are train's: the same mistakes, epoch by epoch.
for m in vocab hashed; do
  a=$(tr -d ' \n' <"$tmp/train_$m.json" | sed -n 's/.*"mistakes_per_epoch":\[\([0-9,]*\)\].*/\1/p')
  b=$("$tmp/hashfloor" fit -r 1 "$tmp/$m.svm" | sed -n 's/^hp.mistakes \[\(.*\)\]/\1/p' | tr ' ' ',')
  [ "$a" = "$b" ] || { echo "hashed_floor.sh: $m: train's mistakes $a, hashfloor's on its rows $b: not the same rows" >&2; exit 1; }
  echo "# $m: the same mistakes per epoch as train -json: $a"
done
[ -z "$pe" ] || for f in vocab hashed_rn hashed; do "$pe" -B "$tmp/$f.bin" -r 1 -e 2 -n -v sep.w32u32.s.uni "$tmp/$f.svm" >/dev/null 2>&1; done

# Each record: round, program, set (vocab/hashed), statistic, ms per epoch.
rec=$tmp/records.tsv
: >"$rec"
# fastest NAME: the minimum in "NAME M [LO-HI]" lines.
fastest() { awk -v n="$1" '$1 == n {s = $0; sub(/^[^[]*\[ */, "", s); sub(/-.*/, "", s); print s}'; }
run_train() { # set mode
  local j
  j=$("$tmp/hp" train -json -vocab="$2" -o "$tmp/m.hptm" "$train")
  # ns_per_nonzero counts all the documents' nonzeros; as ms per epoch:
  awk -v r="$r" -v s="$1" -v d="$(sed -n 's/.*"nnz": *\([0-9]*\).*/\1/p' <<<"$j")" \
    -v ns="$(sed -n 's/.*"ns_per_nonzero": *\([0-9.e+-]*\).*/\1/p' <<<"$j")" \
    'BEGIN {printf "%s\ttrain_json\t%s\tfit\t%.4f\n", r, s, ns * d / 1e6}' >>"$rec"
}
run_hp() { # set file
  local out
  out=$("$tmp/hashfloor" fit -r "$fits" "$2")
  printf '%s\thyperplane\t%s\tfit\t%s\n' "$r" "$1" "$(fastest hp.epoch_ms <<<"$out")" >>"$rec"
  printf '%s\thyperplane\t%s\tsteady\t%s\n' "$r" "$1" "$(fastest hp.epoch2med_ms <<<"$out")" >>"$rec"
  printf '%s\thyperplane\t%s\tfirst\t%s\n' "$r" "$1" "$(fastest hp.first_ms <<<"$out")" >>"$rec"
}
run_ref() { # name set file
  local out
  out=$("$tmp/ref" -p -n -r "$fits" -e 10 "$3")
  printf '%s\t%s_perceptron\t%s\tfit\t%s\n' "$r" "$1" "$2" "$(fastest ref.epoch_ms <<<"$out")" >>"$rec"
  printf '%s\t%s_perceptron\t%s\tsteady\t%s\n' "$r" "$1" "$2" "$(fastest ref.epoch2_ms <<<"$out")" >>"$rec"
  printf '%s\t%s_pa2\t%s\tfit\t%s\n' "$r" "$1" "$2" "$(fastest pa2.epoch_ms <<<"$out")" >>"$rec"
}
run_pe() { # tag set file flags...
  local tag=$1 set=$2 f=$3
  shift 3
  "$pe" "$@" -B "${f%.svm}.bin" -n -r "$fits" -e 10 -v "$PE_VARIANTS" "$f" 2>/dev/null |
    awk -v r="$r" -v s="$set" -v t="$tag" '$1 ~ /^[a-z0-9_]+\.[a-z0-9_]+\.[a-zA-Z]\.[a-z]+$/ {
      split($0, b, /\[ */); f = b[2]; sub(/-.*/, "", f); e = b[3]; sub(/-.*/, "", e)
      printf "%s\tpe%s.%s\t%s\tfit\t%s\n%s\tpe%s.%s\t%s\tsteady\t%s\n", r, t, $1, s, f, r, t, $1, s, e}' >>"$rec"
}
one() { # set: every program on one set
  if [ "$1" = vocab ]; then
    run_train vocab true; run_hp vocab "$tmp/vocab.svm"; run_ref ref vocab "$tmp/vocab.svm"
    # (ref_bucket differs from ref on the hashed rows only.)
    awk -F'\t' -v OFS='\t' -v r="$r" '$1 == r && $3 == "vocab" && $2 ~ /^ref_/ {$2 = "ref_bucket" substr($2, 4); print}' "$rec" >>"$rec.tmp"
    cat "$rec.tmp" >>"$rec"; rm "$rec.tmp"
    if [ -n "$pe" ]; then
      run_pe "" vocab "$tmp/vocab.svm"; run_pe _d16 vocab "$tmp/vocab.svm" -d 16; run_pe _g4 vocab "$tmp/vocab.svm" -g 4
      run_pe _H vocab "$tmp/vocab.svm" -H; run_pe _R vocab "$tmp/vocab.svm" -R
    fi
  else
    run_train hashed false; run_hp hashed "$tmp/hashed.svm"; run_ref ref hashed "$tmp/hashed_rn.svm"; run_ref ref_bucket hashed "$tmp/hashed.svm"
    if [ -n "$pe" ]; then
      run_pe "" hashed "$tmp/hashed_rn.svm"; run_pe _d16 hashed "$tmp/hashed_rn.svm" -d 16; run_pe _g4 hashed "$tmp/hashed_rn.svm" -g 4
      run_pe _H hashed "$tmp/hashed_rn.svm" -H; run_pe _R hashed "$tmp/hashed.svm" -R
    fi
  fi
}
for r in $(seq "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then one vocab; one hashed; else one hashed; one vocab; fi
  echo "# round $r done, load $(cut -d' ' -f1-3 /proc/loadavg)"
done

# The summary: per program and statistic, ns per nonzero on each set and
# the ratio hashed/vocab within each round, as median [min–max].
echo
echo "# trained rows: vocab $nnz_vocab nonzeros, hashed $nnz_hashed (all documents, train -json's nnz: $docs_vocab, $docs_hashed)"
printf '%-28s %-7s %-26s %-26s %s\n' program stat "vocab ns/nnz" "hashed ns/nnz" "hashed/vocab"
awk -F'\t' -v nv="$nnz_vocab" -v nh="$nnz_hashed" -v dv="$docs_vocab" -v dh="$docs_hashed" '
  function stat(v, n,   i, j, t, m) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) {t = v[j]; v[j] = v[j-1]; v[j-1] = t}
    m = n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
    return sprintf("%.3f [%.3f–%.3f]", m, v[1], v[n])
  }
  $5 != "" {
    # train -json divides by all the documents nonzeros; the others by the trained rows.
    k = $2 SUBSEP $4
    n = ($3 == "vocab") ? ($2 == "train_json" ? dv : nv) : ($2 == "train_json" ? dh : nh)
    ns[k, $3, $1] = $5 * 1e6 / n
    keys[k] = 1; rounds[$1] = 1
  }
  END {
    for (k in keys) {
      split(k, p, SUBSEP)
      a = b = c = 0
      for (r in rounds) {
        if ((k, "vocab", r) in ns) V[++a] = ns[k, "vocab", r]
        if ((k, "hashed", r) in ns) H[++b] = ns[k, "hashed", r]
        if (((k, "vocab", r) in ns) && ((k, "hashed", r) in ns)) R[++c] = ns[k, "hashed", r] / ns[k, "vocab", r]
      }
      printf "%-28s %-7s %-26s %-26s %s\n", p[1], p[2], stat(V, a), stat(H, b), stat(R, c)
    }
  }' "$rec" | sort
echo "# records: $rec${KEEP:+ (kept)}"
