#!/usr/bin/env bash
# hyperplane's averaged-perceptron epoch against C references, measured in
# one run in alternating rounds, so that the ratios compare like with like
# on a machine whose speed drifts.
#
#   usage: bench/compare_c.sh [-c] [-r ROUNDS] [-k FITS] [-e EPOCHS] TRAIN [TEST]
#
# -c times ref and hyperplane by process CPU time instead of the wall
# clock: on a machine shared with other work it leaves out the time spent
# waiting for a core (pe, when it runs, always times by the wall clock).
#
# Each round runs, in an order that alternates from round to round:
#   - bench/limit/ref.c: a plain C binary averaged perceptron (separate
#     int32 index and float32 value arrays, scalar loads, float32 w and u,
#     exact lazy averaging, a full shuffle every epoch, a bias), and a bare
#     w·x pass over the rows in storage order; where the values pack
#     (small non-negative integers), the same learner on packed rows
#     (ref -P, index and count in one uint32);
#   - bench/limit/hpref: hyperplane's averaged engine.Fit, the learner
#     train -algo averaged -normalize=false runs (same mistakes, same
#     model), and hyperplane's bare pass (asm.DotRowsF32 over every row);
#   - ../shared/tools/limit/pe.c (variants sep.w32u32.s.uni and
#     p32.w32u32.s.win), only where the CPU has AVX-512, which pe.c uses
#     without a check; it also needs zlib's headers. Where it cannot run the
#     script says why and goes on without it; it installs nothing.
# Every program parses the file itself and times only its epochs. In each
# round each program fits FITS times (default 3) and the round keeps its
# fastest fit and bare pass: on a shared machine the slower ones measure
# the neighbours. The figures are ms per epoch over EPOCHS epochs (a fit's
# time divided by its epochs); the summary gives median [min–max] over the
# rounds, and each ratio is taken within a round before its median is.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=7 epochs=10 fits=3 clockflag="" clockname="wall clock"
usage() { echo "usage: bench/compare_c.sh [-c] [-r ROUNDS] [-k FITS] [-e EPOCHS] TRAIN [TEST]" >&2; exit 2; }
while getopts "cr:k:e:" o; do
  case $o in
  c) clockflag=-c clockname="process CPU time" ;;
  r) rounds=$OPTARG ;;
  k) fits=$OPTARG ;;
  e) epochs=$OPTARG ;;
  *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] && [ $# -le 2 ] || usage
[[ $rounds =~ ^[1-9][0-9]*$ && $epochs =~ ^[1-9][0-9]*$ && $fits =~ ^[1-9][0-9]*$ ]] || usage
train=$1 test=${2:-}
for f in "$train" ${test:+"$test"}; do [ -r "$f" ] || { echo "compare_c.sh: cannot read $f" >&2; exit 1; }; done
command -v gcc >/dev/null || { echo "compare_c.sh: needs gcc" >&2; exit 1; }
command -v gzip >/dev/null || { echo "compare_c.sh: needs gzip (ref reads its input through gzip -dcf)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CFLAGS="-O3 -march=native -fno-tree-vectorize" # scalar loads: no vectorizing into gathers
gcc $CFLAGS -o "$tmp/ref" bench/limit/ref.c -lm
go build -o "$tmp/hpref" ./bench/limit/hpref

PE_SRC=${PE_SRC:-../shared/tools/limit/pe.c}
# PE_VARIANTS (comma-separated) chooses pe's variants; the best of them is
# the one each round's hp/pe_best ratio divides by.
PE_VARIANTS=${PE_VARIANTS:-sep.w32u32.s.uni,p32.w32u32.s.win}
[[ $PE_VARIANTS =~ ^[a-z0-9_.]+(,[a-z0-9_.]+)*$ ]] || { echo "compare_c.sh: bad PE_VARIANTS: $PE_VARIANTS" >&2; exit 2; }
pe=""
if [ ! -f "$PE_SRC" ]; then
  echo "# pe: $PE_SRC not found, skipped"
elif ! grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  echo "# pe: skipped, this CPU has no AVX-512 (pe.c uses its intrinsics unconditionally)"
elif ! echo '#include <zlib.h>' | gcc -E - >/dev/null 2>&1; then
  echo "# pe: skipped, zlib headers missing (Debian: apt-get install zlib1g-dev)"
elif gcc $CFLAGS -o "$tmp/pe" "$PE_SRC" -lz -lm 2>"$tmp/pe.err"; then
  # One short run first: a pe that cannot run here is left out, not fatal.
  if "$tmp/pe" -r 1 -e 1 -n -v sep.w32u32.s.uni "$train" >/dev/null 2>"$tmp/pe.err"; then
    pe="$tmp/pe"
  else
    echo "# pe: built but failed on $(basename "$train") (exit $?), skipped:"; tail -3 "$tmp/pe.err" | sed 's/^/#   /'
  fi
else
  echo "# pe: did not compile, skipped:"; sed 's/^/#   /' "$tmp/pe.err"
fi

# stat: median [min–max] of the numbers on stdin.
stat() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) {print "—"; exit}
  m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.3f [%.3f–%.3f]", m, a[1], a[NR]}'; }
# fastest: the min of a "NAME M [LO-HI]" line of ref's or hpref's output.
fastest() { awk -v n="$1" '$1 == n {split($3, a, /[][-]/); print a[2]}'; }

run_ref() {
  out=$("$tmp/ref" $clockflag -r "$fits" -e "$epochs" "$train" ${test:+"$test"})
  ref_ms=$(fastest ref.epoch_ms <<<"$out")
  bare_ms=$(fastest ref.bare_ms <<<"$out")
  ref_acc=$(awk '$1 == "ref.test_acc" {print $2}' <<<"$out")
  nnz=$(sed -n 's/.* nnz=\([0-9]*\).*/\1/p' <<<"$out")
}
run_refp() {
  out=$("$tmp/ref" -P $clockflag -r "$fits" -e "$epochs" "$train")
  refp_ms=$(fastest ref.epoch_ms <<<"$out")
}
run_hp() {
  out=$("$tmp/hpref" $clockflag -r "$fits" -e "$epochs" "$train" ${test:+"$test"})
  hp_ms=$(fastest hp.epoch_ms <<<"$out")
  hpbare_ms=$(fastest hp.bare_ms <<<"$out")
  hp_acc=$(awk '$1 == "hp.test_acc" {print $2}' <<<"$out")
}
run_pe() {
  out=$("$pe" -r "$fits" -e "$epochs" -v "$PE_VARIANTS" "$train" ${test:+"$test"} 2>/dev/null)
  # A variant line: name, mean ms/epoch of the fit as median [min-max]
  # over reps, ..., test accuracy, mistakes; the round keeps the min.
  pe_sep=$(awk '$1 == "sep.w32u32.s.uni" {s = $0; sub(/^[^[]*\[ */, "", s); sub(/-.*/, "", s); print s}' <<<"$out")
  pe_p32=$(awk '$1 == "p32.w32u32.s.win" {s = $0; sub(/^[^[]*\[ */, "", s); sub(/-.*/, "", s); print s}' <<<"$out")
  pe_acc=$(awk '$1 == "sep.w32u32.s.uni" {print $(NF-1)}' <<<"$out")
  # The fastest of all the variants asked for, and its name.
  read -r pe_best pe_best_name < <(awk -v vs="$PE_VARIANTS" 'BEGIN {n = split(vs, a, ","); for (i = 1; i <= n; i++) want[a[i]] = 1}
    $1 in want {s = $0; sub(/^[^[]*\[ */, "", s); sub(/-.*/, "", s); print s, $1}' <<<"$out" | sort -g | head -1)
}

echo "# $rounds rounds, each the fastest of $fits fits × $epochs epochs, timed by $clockname, $(basename "$train")${test:+ (test $(basename "$test"))}, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "$pe" ] || [ -z "$clockflag" ] || echo "# note: pe has no CPU-time clock; its figures are wall clock, so hp/pe_best mixes clocks (run without -c on an idle machine)"
# The C reference on packed rows (ref -P: index and count in one uint32),
# where the values are small non-negative integers that pack.
refp=""
if "$tmp/ref" -P -r 1 -e 1 "$train" >/dev/null 2>&1; then refp=1; else echo "# ref -P: the values do not pack, no packed C reference"; fi
hdr="round\tref_ms\tbare_ms\thp_ms\thp_bare_ms"
[ -n "$refp" ] && hdr="$hdr\trefp_ms"
[ -n "$pe" ] && hdr="$hdr\tpe_sep_ms\tpe_p32_ms\tpe_best_ms\tpe_best"
hdr="$hdr\thp/ref\thp/bare\thp/hp_bare\tref/bare"
[ -n "$refp" ] && hdr="$hdr\thp/refp"
[ -n "$pe" ] && hdr="$hdr\thp/pe_best"
printf "$hdr\n" | tee "$tmp/rounds.tsv"
for r in $(seq "$rounds"); do
  # Alternate the order so that neither side always runs first.
  if [ $((r % 2)) -eq 1 ]; then
    run_ref; [ -z "$refp" ] || run_refp; run_hp; [ -z "$pe" ] || run_pe
  else
    [ -z "$pe" ] || run_pe; run_hp; [ -z "$refp" ] || run_refp; run_ref
  fi
  for v in "$ref_ms" "$bare_ms" "$hp_ms" "$hpbare_ms"; do
    [[ $v =~ ^[0-9.]+$ ]] || { echo "compare_c.sh: round $r printed no figure (ref $ref_ms, bare $bare_ms, hyperplane $hp_ms, hyperplane bare $hpbare_ms)" >&2; exit 1; }
  done
  line="$r\t$ref_ms\t$bare_ms\t$hp_ms\t$hpbare_ms"
  [ -z "$refp" ] || line="$line\t$refp_ms"
  [ -z "$pe" ] || line="$line\t${pe_sep:-—}\t${pe_p32:-—}\t${pe_best:-—}\t${pe_best_name:-—}"
  line="$line\t$(awk -v h="$hp_ms" -v c="$ref_ms" -v b="$bare_ms" -v hb="$hpbare_ms" 'BEGIN {printf "%.3f\t%.3f\t%.3f\t%.3f", h/c, h/b, h/hb, c/b}')"
  [ -z "$refp" ] || line="$line\t$(awk -v h="$hp_ms" -v p="$refp_ms" 'BEGIN {printf "%.3f", h/p}')"
  [ -z "$pe" ] || line="$line\t$(awk -v h="$hp_ms" -v p="$pe_best" 'BEGIN {printf "%.3f", h/p}')"
  printf "$line\n" | tee -a "$tmp/rounds.tsv"
done

col() { awk -F'\t' -v c="$1" 'NR > 1 && $c != "—" {print $c}' "$tmp/rounds.tsv" | stat; }
idx() { awk -F'\t' -v n="$1" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == n) print i}' "$tmp/rounds.tsv"; }
echo
echo "summary over $rounds rounds: median [min–max]"
printf '%-44s %s\n' "C ref (sep.w32u32.s.uni), ms/epoch" "$(col "$(idx ref_ms)")"
[ -z "$refp" ] || printf '%-44s %s\n' "C ref on packed rows (ref -P), ms/epoch" "$(col "$(idx refp_ms)")"
printf '%-44s %s\n' "C bare pass (one dot per row), ms" "$(col "$(idx bare_ms)")"
printf '%-44s %s\n' "hyperplane averaged Fit, ms/epoch" "$(col "$(idx hp_ms)")"
printf '%-44s %s\n' "hyperplane bare pass (DotRowsF32), ms" "$(col "$(idx hp_bare_ms)")"
if [ -n "$pe" ]; then
  printf '%-44s %s\n' "pe sep.w32u32.s.uni, ms/epoch" "$(col "$(idx pe_sep_ms)")"
  printf '%-44s %s\n' "pe p32.w32u32.s.win, ms/epoch" "$(col "$(idx pe_p32_ms)")"
  printf '%-44s %s\n' "pe best of $PE_VARIANTS, ms/epoch" "$(col "$(idx pe_best_ms)")"
  printf '%-44s %s\n' "pe variant fastest (rounds)" "$(awk -F'\t' -v c="$(idx pe_best)" 'NR > 1 {print $c}' "$tmp/rounds.tsv" | sort | uniq -c | awk '{printf "%s%s ×%d", (NR > 1 ? ", " : ""), $2, $1}')"
fi
perNNZ() { awk -F'\t' -v c="$1" -v n="$nnz" 'NR > 1 {printf "%.3f\n", $c * 1e6 / n}' "$tmp/rounds.tsv" | stat; }
printf '%-44s %s\n' "C ref, ns per nonzero per epoch" "$(perNNZ "$(idx ref_ms)")"
printf '%-44s %s\n' "hyperplane, ns per nonzero per epoch" "$(perNNZ "$(idx hp_ms)")"
printf '%-44s %s\n' "ratio hyperplane / C ref (per round)" "$(col "$(idx hp/ref)")"
printf '%-44s %s\n' "ratio hyperplane / C bare pass" "$(col "$(idx hp/bare)")"
printf '%-44s %s\n' "ratio hyperplane / its bare pass" "$(col "$(idx hp/hp_bare)")"
printf '%-44s %s\n' "ratio C ref / C bare pass" "$(col "$(idx ref/bare)")"
[ -z "$refp" ] || printf '%-44s %s\n' "ratio hyperplane / C ref on packed rows" "$(col "$(idx hp/refp)")"
[ -z "$pe" ] || printf '%-44s %s\n' "ratio hyperplane / best pe variant" "$(col "$(idx hp/pe_best)")"
if [ -n "$test" ]; then
  echo "test accuracy: C ref $ref_acc, hyperplane $hp_acc${pe:+, pe ${pe_acc:-—}}"
fi
