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
#   - ../shared/tools/limit/pe.c (it needs zlib's headers): by default
#     its variants sep.w32u32.s.uni and p32.w32u32.s.win (the figures of
#     the issue that set the target) and the packed ones with a float64
#     accumulator, which are exact on every data set here: on a CPU with
#     AVX-512, which pe.c uses without a check, p32.w32u64 with scalar
#     loads, with gathers (g) and with a gathered and scattered update
#     (v); on one without, a copy built to run only its scalar-load
#     variants (pe_scalar below), p32.w32u64.s and p32.w32u32.s.uni. Where
#     it cannot run the script says why and goes on without it; it
#     installs nothing;
#   - bench/limit/skref.py: scikit-learn's Perceptron, the anchor of the
#     "× scikit-learn" figures, where $PYTHON (default /usr/bin/python3,
#     else python3) imports scikit-learn (../shared/tools/
#     install-anchors.sh installs it); otherwise the script says so and
#     goes on without it (PYTHON=none leaves it out on purpose, for a
#     file scikit-learn would take minutes to load). Its figure is always
#     a whole fit's (scikit-learn has no hook between epochs), so the
#     summary divides it by hyperplane's fit, like for like, and by the
#     steady-state epochs of hyperplane and pe (their medians of epochs
#     2..E), the figure the target names.
# Every program parses the file itself and times only its epochs (for
# hyperplane, everything Fit does). In each
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

# The Python that ../shared/tools/install-anchors.sh installs scikit-learn
# for is the system's; PYTHON picks another.
if [ -z "${PYTHON:-}" ]; then
  PYTHON=python3
  [ -x /usr/bin/python3 ] && PYTHON=/usr/bin/python3
fi
sk=""
if [ "$PYTHON" = none ]; then
  echo "# scikit-learn: left out (PYTHON=none)"
elif ! command -v "$PYTHON" >/dev/null; then
  echo "# scikit-learn: no $PYTHON, skipped"
elif ! "$PYTHON" -c 'import sklearn' 2>/dev/null; then
  echo "# scikit-learn: $PYTHON cannot import sklearn, skipped (../shared/tools/install-anchors.sh installs it)"
else
  sk=1
  echo "# scikit-learn: $("$PYTHON" -c 'import sklearn; print(sklearn.__version__)') under $("$PYTHON" --version 2>&1)"
fi

PE_SRC=${PE_SRC:-../shared/tools/limit/pe.c}
# PE_VARIANTS (comma-separated) chooses pe's variants; the best of them is
# the one each round's hp/pe_best ratio divides by.
pe="" pe_build="AVX-512" pe_flags=""
if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then
  PE_VARIANTS=${PE_VARIANTS:-sep.w32u32.s.uni,p32.w32u32.s.win,p32.w32u64.s.win,p32.w32u64.g.uni,p32.w32u64.g.win,p32.w32u64.v.win}
else
  # Without AVX-512, only pe's scalar-load variants can run (see pe_scalar).
  pe_build="scalar variants, for a CPU without AVX-512"
  pe_flags=-n # its bare passes and plain read use AVX-512
  PE_VARIANTS=${PE_VARIANTS:-sep.w32u32.s.uni,p32.w32u32.s.win,p32.w32u32.s.uni,p32.w32u64.s.uni,p32.w32u64.s.win}
  [[ ,$PE_VARIANTS, =~ ,[a-z0-9_]+\.[a-z0-9_]+\.[^s,][a-z0-9_]*\. ]] && { echo "compare_c.sh: this CPU has no AVX-512, so pe runs only its scalar-load variants (layout.model.s.order): $PE_VARIANTS" >&2; exit 2; }
fi
[[ $PE_VARIANTS =~ ^[a-z0-9_.]+(,[a-z0-9_.]+)*$ ]] || { echo "compare_c.sh: bad PE_VARIANTS: $PE_VARIANTS" >&2; exit 2; }

# pe_scalar writes to $1 a copy of pe.c ($PE_SRC) that builds on a CPU
# without AVX-512 and runs its scalar-load variants there unchanged:
# - its kernels (from the AI macro to layout_bytes) are compiled for
#   AVX-512, which only the gather variants execute, and the build keeps
#   XMM16-31 out of every function (-ffixed-xmm*), so that no scalar
#   variant is given an EVEX-only register;
# - the one AVX-512 call outside them, a lossless check of float16
#   values, converts with F16C one value at a time instead;
# - the packed layout's counts, below 2^31, convert to float as signed
#   integers (the same value), not through AVX-512's unsigned conversion.
# Each edit must apply exactly once, or the copy is refused.
pe_scalar() {
  [ "$(grep -c '_mm512_cvtps_ph(_mm512_loadu_ps(tmp)' "$PE_SRC")" = 1 ] &&
  [ "$(grep -c '_mm256_storeu_si256((__m256i \*)hh, h);' "$PE_SRC")" = 1 ] &&
  [ "$(grep -c '_mm512_storeu_ps(back, _mm512_cvtph_ps(h));' "$PE_SRC")" = 1 ] &&
  [ "$(grep -c '^#define AI ' "$PE_SRC")" = 1 ] &&
  [ "$(grep -c '^static size_t layout_bytes(' "$PE_SRC")" = 1 ] &&
  [ "$(grep -c '(float)(x >> D->E->ib)' "$PE_SRC")" = 1 ] || return 1
  sed -e '/_mm512_cvtps_ph(_mm512_loadu_ps(tmp)/c\    uint16_t hh[16]; float back[16];\n    for (int q = 0; q < 16; q++) { hh[q] = _cvtss_sh(tmp[q], 0); back[q] = _cvtsh_ss(hh[q]); }' \
    -e '/_mm256_storeu_si256((__m256i \*)hh, h);/d' \
    -e '/_mm512_storeu_ps(back, _mm512_cvtph_ps(h));/d' \
    -e '/^#define AI /i\#pragma GCC push_options\n#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512cd")' \
    -e '/^static size_t layout_bytes(/i\#pragma GCC pop_options' \
    -e 's/(float)(x >> D->E->ib)/(float)(int32_t)(x >> D->E->ib)/' "$PE_SRC" >"$1"
}

if [ ! -f "$PE_SRC" ]; then
  echo "# pe: $PE_SRC not found, skipped"
elif ! echo '#include <zlib.h>' | gcc -E - >/dev/null 2>&1; then
  echo "# pe: skipped, zlib headers missing (Debian: apt-get install zlib1g-dev)"
else
  pe_built=""
  if [ "$pe_build" = AVX-512 ]; then
    gcc $CFLAGS -o "$tmp/pe" "$PE_SRC" -lz -lm 2>"$tmp/pe.err" && pe_built=1
  elif pe_scalar "$tmp/pe_scalar.c"; then
    gcc $CFLAGS -Wno-psabi $(for i in $(seq 16 31); do printf -- '-ffixed-xmm%d ' "$i"; done) \
      -o "$tmp/pe" "$tmp/pe_scalar.c" -lz -lm 2>"$tmp/pe.err" && pe_built=1
  else
    echo "pe.c does not have the lines the scalar build edits" >"$tmp/pe.err"
  fi
  if [ -n "$pe_built" ]; then
    # One short run of every variant first: a pe that cannot run here
    # is left out, not fatal.
    if "$tmp/pe" -r 1 -e 2 -n -v "$PE_VARIANTS" "$train" >/dev/null 2>"$tmp/pe.err"; then
      pe="$tmp/pe"
      echo "# pe: $pe_build, variants $PE_VARIANTS"
    else
      echo "# pe: built but failed on $(basename "$train") (exit $?), skipped:"; tail -3 "$tmp/pe.err" | sed 's/^/#   /'
    fi
  else
    echo "# pe: did not compile, skipped:"; sed 's/^/#   /' "$tmp/pe.err"
  fi
fi

stat() { sort -g | awk '{a[NR]=$1} END {if (NR == 0) {print "—"; exit}
  m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.3f [%.3f–%.3f]", m, a[1], a[NR]}'; }
# fastest: the min of a "NAME M [LO-HI]" line of ref's or hpref's output.
fastest() { awk -v n="$1" '$1 == n {split($3, a, /[][-]/); print a[2]}'; }

run_ref() {
  out=$("$tmp/ref" $clockflag -r "$fits" -e "$epochs" "$train" ${test:+"$test"})
  ref_ms=$(fastest ref.epoch_ms <<<"$out")
  ref2_ms=$(fastest ref.epoch2_ms <<<"$out")
  bare_ms=$(fastest ref.bare_ms <<<"$out")
  ref_acc=$(awk '$1 == "ref.test_acc" {print $2}' <<<"$out")
  nnz=$(sed -n 's/.* nnz=\([0-9]*\).*/\1/p' <<<"$out")
}
run_refp() {
  out=$("$tmp/ref" -P $clockflag -r "$fits" -e "$epochs" "$train")
  refp_ms=$(fastest ref.epoch_ms <<<"$out")
  refp2_ms=$(fastest ref.epoch2_ms <<<"$out")
}
run_hp() {
  out=$("$tmp/hpref" $clockflag -r "$fits" -e "$epochs" "$train" ${test:+"$test"})
  hp_ms=$(fastest hp.epoch_ms <<<"$out")
  hp2_ms=$(fastest hp.epoch2_ms <<<"$out")
  hp2med_ms=$(fastest hp.epoch2med_ms <<<"$out")
  hpbare_ms=$(fastest hp.bare_ms <<<"$out")
  hp_acc=$(awk '$1 == "hp.test_acc" {print $2}' <<<"$out")
}
run_sk() {
  out=$("$PYTHON" bench/limit/skref.py -r "$fits" -e "$epochs" "$train" ${test:+"$test"})
  sk_ms=$(fastest sk.epoch_ms <<<"$out")
  sk_acc=$(awk '$1 == "sk.test_acc" {print $2}' <<<"$out")
}
run_pe() {
  out=$("$pe" $pe_flags -r "$fits" -e "$epochs" -v "$PE_VARIANTS" "$train" ${test:+"$test"} 2>/dev/null)
  # A variant line: name, mean ms/epoch of the fit as median [min-max]
  # over reps, ..., test accuracy, mistakes; the round keeps the min.
  pe_sep=$(awk '$1 == "sep.w32u32.s.uni" {s = $0; sub(/^[^[]*\[ */, "", s); sub(/-.*/, "", s); print s}' <<<"$out")
  pe_p32=$(awk '$1 == "p32.w32u32.s.win" {s = $0; sub(/^[^[]*\[ */, "", s); sub(/-.*/, "", s); print s}' <<<"$out")
  pe_acc=$(awk '$1 == "sep.w32u32.s.uni" {print $(NF-1)}' <<<"$out")
  # The fastest of all the variants asked for, and its name.
  read -r pe_best pe_best_name < <(awk -v vs="$PE_VARIANTS" 'BEGIN {n = split(vs, a, ","); for (i = 1; i <= n; i++) want[a[i]] = 1}
    $1 in want {s = $0; sub(/^[^[]*\[ */, "", s); sub(/-.*/, "", s); print s, $1}' <<<"$out" | sort -g | head -1)
  # The fastest median of epochs 2..E (the second bracket's minimum).
  pe_best2=$(awk -v vs="$PE_VARIANTS" 'BEGIN {n = split(vs, a, ","); for (i = 1; i <= n; i++) want[a[i]] = 1}
    $1 in want {split($0, b, /\[ */); s = b[3]; sub(/-.*/, "", s); print s}' <<<"$out" | sort -g | head -1)
  # Every variant's figures, for the ratio to one variant over all rounds:
  # round, name, fit ms/epoch, median of epochs 2..E (the brackets' minima).
  awk -v vs="$PE_VARIANTS" -v r="$r" 'BEGIN {n = split(vs, a, ","); for (i = 1; i <= n; i++) want[a[i]] = 1}
    $1 in want {split($0, b, /\[ */); f = b[2]; sub(/-.*/, "", f); e = b[3]; sub(/-.*/, "", e); print r "\t" $1 "\t" f "\t" e}' <<<"$out" >>"$tmp/pe_variants.tsv"
}

echo "# $rounds rounds, each the fastest of $fits fits × $epochs epochs, timed by $clockname, $(basename "$train")${test:+ (test $(basename "$test"))}, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "$pe" ] || [ -z "$clockflag" ] || echo "# note: pe has no CPU-time clock; its figures are wall clock, so hp/pe_best mixes clocks (run without -c on an idle machine)"
[ -z "$sk" ] || [ -z "$clockflag" ] || echo "# note: skref.py times by the wall clock, so the scikit-learn ratios mix clocks (run without -c on an idle machine)"
# The C reference on packed rows (ref -P: index and count in one uint32),
# where the values are small non-negative integers that pack.
refp=""
if "$tmp/ref" -P -r 1 -e 1 "$train" >/dev/null 2>&1; then refp=1; else echo "# ref -P: the values do not pack, no packed C reference"; fi
# Two figures per program: a fit's time divided by its epochs (for
# hyperplane this includes what Fit does once before the first epoch:
# checking the rows and packing them; ref and pe prepare their data
# untimed), and epochs 2..E, the steady state, where each program's first
# epoch and one-off work are left out: ref gives their mean and pe the
# median epoch, so hyperplane gives both (hp2_ms, hp2med_ms) and each
# ratio compares a statistic with the same one.
hdr="round\tref_ms\tref2_ms\tbare_ms\thp_ms\thp2_ms\thp_bare_ms"
[ -n "$refp" ] && hdr="$hdr\trefp_ms\trefp2_ms"
[ -n "$pe" ] && hdr="$hdr\thp2med_ms\tpe_sep_ms\tpe_p32_ms\tpe_best_ms\tpe_best2_ms\tpe_best"
[ -n "$sk" ] && hdr="$hdr\tsk_ms"
hdr="$hdr\thp/ref\thp2/ref2\thp/bare\thp/hp_bare\tref/bare"
[ -n "$refp" ] && hdr="$hdr\thp/refp\thp2/refp2"
[ -n "$pe" ] && hdr="$hdr\thp/pe_best\thp2/pe_best2"
[ -n "$sk" ] && hdr="$hdr\tsk/hp\tsk/hp2med"
[ -n "$sk" ] && [ -n "$pe" ] && hdr="$hdr\tsk/pe_best2"
printf "$hdr\n" | tee "$tmp/rounds.tsv"
# ratio A B prints A/B, or — when either is missing (E = 1).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "" || b == "" || b + 0 == 0) print "—"; else printf "%.3f", a / b}'; }
for r in $(seq "$rounds"); do
  # Alternate the order so that neither side always runs first.
  if [ $((r % 2)) -eq 1 ]; then
    run_ref; [ -z "$refp" ] || run_refp; run_hp; [ -z "$pe" ] || run_pe; [ -z "$sk" ] || run_sk
  else
    [ -z "$sk" ] || run_sk; [ -z "$pe" ] || run_pe; run_hp; [ -z "$refp" ] || run_refp; run_ref
  fi
  for v in "$ref_ms" "$bare_ms" "$hp_ms" "$hpbare_ms"; do
    [[ $v =~ ^[0-9.]+$ ]] || { echo "compare_c.sh: round $r printed no figure (ref $ref_ms, bare $bare_ms, hyperplane $hp_ms, hyperplane bare $hpbare_ms)" >&2; exit 1; }
  done
  line="$r\t$ref_ms\t${ref2_ms:-—}\t$bare_ms\t$hp_ms\t${hp2_ms:-—}\t$hpbare_ms"
  [ -z "$refp" ] || line="$line\t$refp_ms\t${refp2_ms:-—}"
  [ -z "$pe" ] || line="$line\t${hp2med_ms:-—}\t${pe_sep:-—}\t${pe_p32:-—}\t${pe_best:-—}\t${pe_best2:-—}\t${pe_best_name:-—}"
  [ -z "$sk" ] || line="$line\t${sk_ms:-—}"
  line="$line\t$(ratio "$hp_ms" "$ref_ms")\t$(ratio "$hp2_ms" "$ref2_ms")\t$(ratio "$hp_ms" "$bare_ms")\t$(ratio "$hp_ms" "$hpbare_ms")\t$(ratio "$ref_ms" "$bare_ms")"
  [ -z "$refp" ] || line="$line\t$(ratio "$hp_ms" "$refp_ms")\t$(ratio "$hp2_ms" "$refp2_ms")"
  [ -z "$pe" ] || line="$line\t$(ratio "$hp_ms" "$pe_best")\t$(ratio "$hp2med_ms" "$pe_best2")"
  [ -z "$sk" ] || line="$line\t$(ratio "$sk_ms" "$hp_ms")\t$(ratio "$sk_ms" "$hp2med_ms")"
  [ -z "$sk" ] || [ -z "$pe" ] || line="$line\t$(ratio "$sk_ms" "$pe_best2")"
  printf "$line\n" | tee -a "$tmp/rounds.tsv"
done

col() { awk -F'\t' -v c="$1" 'NR > 1 && $c != "—" {print $c}' "$tmp/rounds.tsv" | stat; }
idx() { awk -F'\t' -v n="$1" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == n) print i}' "$tmp/rounds.tsv"; }
echo
echo "summary over $rounds rounds: median [min–max]"
printf '%-48s %s\n' "C ref (sep.w32u32.s.uni), ms/epoch" "$(col "$(idx ref_ms)")"
printf '%-48s %s\n' "C ref, epochs 2..E, ms/epoch" "$(col "$(idx ref2_ms)")"
[ -z "$refp" ] || printf '%-48s %s\n' "C ref on packed rows (ref -P), ms/epoch" "$(col "$(idx refp_ms)")"
[ -z "$refp" ] || printf '%-48s %s\n' "C ref -P, epochs 2..E, ms/epoch" "$(col "$(idx refp2_ms)")"
printf '%-48s %s\n' "C bare pass (one dot per row), ms" "$(col "$(idx bare_ms)")"
printf '%-48s %s\n' "hyperplane averaged Fit, ms/epoch" "$(col "$(idx hp_ms)")"
printf '%-48s %s\n' "hyperplane, epochs 2..E, ms/epoch" "$(col "$(idx hp2_ms)")"
[ -z "$pe" ] || printf '%-48s %s\n' "hyperplane, median of epochs 2..E, ms/epoch" "$(col "$(idx hp2med_ms)")"
printf '%-48s %s\n' "hyperplane bare pass (DotRowsF32), ms" "$(col "$(idx hp_bare_ms)")"
if [ -n "$pe" ]; then
  printf '%-48s %s\n' "pe sep.w32u32.s.uni, ms/epoch" "$(col "$(idx pe_sep_ms)")"
  printf '%-48s %s\n' "pe p32.w32u32.s.win, ms/epoch" "$(col "$(idx pe_p32_ms)")"
  printf '%-48s %s\n' "pe best, ms/epoch" "$(col "$(idx pe_best_ms)")"
  printf '%-48s %s\n' "pe best, median of epochs 2..E, ms/epoch" "$(col "$(idx pe_best2_ms)")"
  printf '%-48s %s\n' "pe variant fastest (rounds)" "$(awk -F'\t' -v c="$(idx pe_best)" 'NR > 1 {print $c}' "$tmp/rounds.tsv" | sort | uniq -c | awk '{printf "%s%s ×%d", (NR > 1 ? ", " : ""), $2, $1}')"
fi
if [ -n "$sk" ]; then
  printf '%-48s %s\n' "scikit-learn Perceptron, ms/epoch (whole fit)" "$(col "$(idx sk_ms)")"
  printf '%-48s %s\n' "ratio scikit-learn / hyperplane (fit)" "$(col "$(idx sk/hp)")"
  printf '%-48s %s\n' "ratio scikit-learn / hyperplane (epochs 2..E)" "$(col "$(idx sk/hp2med)")"
  [ -z "$pe" ] || printf '%-48s %s\n' "ratio scikit-learn / pe best (epochs 2..E)" "$(col "$(idx sk/pe_best2)")"
fi
perNNZ() { awk -F'\t' -v c="$1" -v n="$nnz" 'NR > 1 && $c != "—" {printf "%.3f\n", $c * 1e6 / n}' "$tmp/rounds.tsv" | stat; }
printf '%-48s %s\n' "C ref, ns per nonzero per epoch" "$(perNNZ "$(idx ref_ms)")"
printf '%-48s %s\n' "hyperplane, ns per nonzero per epoch" "$(perNNZ "$(idx hp_ms)")"
printf '%-48s %s\n' "hyperplane epochs 2..E, ns per nonzero" "$(perNNZ "$(idx hp2_ms)")"
printf '%-48s %s\n' "ratio hyperplane / C ref (per round)" "$(col "$(idx hp/ref)")"
printf '%-48s %s\n' "ratio, epochs 2..E, hyperplane / C ref" "$(col "$(idx hp2/ref2)")"
printf '%-48s %s\n' "ratio hyperplane / C bare pass" "$(col "$(idx hp/bare)")"
printf '%-48s %s\n' "ratio hyperplane / its bare pass" "$(col "$(idx hp/hp_bare)")"
printf '%-48s %s\n' "ratio C ref / C bare pass" "$(col "$(idx ref/bare)")"
[ -z "$refp" ] || printf '%-48s %s\n' "ratio hyperplane / C ref on packed rows" "$(col "$(idx hp/refp)")"
[ -z "$refp" ] || printf '%-48s %s\n' "ratio, epochs 2..E, hyperplane / C ref -P" "$(col "$(idx hp2/refp2)")"
[ -z "$pe" ] || printf '%-48s %s\n' "ratio hyperplane / best pe variant" "$(col "$(idx hp/pe_best)")"
[ -z "$pe" ] || printf '%-48s %s\n' "ratio, epochs 2..E, hyperplane / best pe" "$(col "$(idx hp2/pe_best2)")"
if [ -n "$pe" ] && [ -s "$tmp/pe_variants.tsv" ]; then
  # The fastest of each round is the least of several variants' figures,
  # which favours pe the more variants run level; the issue's "best pe
  # variant" is one variant: the one of least median over the rounds
  # (epochs 2..E), each round's ratio then taken to it.
  fixed=$(cut -f2 "$tmp/pe_variants.tsv" | sort -u | while read -r v; do
    echo "$(awk -F'\t' -v v="$v" '$2 == v {print $4}' "$tmp/pe_variants.tsv" | stat | cut -d' ' -f1) $v"
  done | sort -g | head -1 | cut -d' ' -f2)
  ratioTo() { # ratioTo VARIANT COLUMN FIELD: hyperplane's COLUMN over VARIANT's FIELD, per round
    awk -F'\t' -v v="$1" -v c="$(idx "$2")" -v f="$3" 'NR == FNR {if ($2 == v) x[$1] = $f; next}
      FNR > 1 && ($1 in x) && $c != "—" && x[$1] + 0 > 0 {printf "%.3f\n", $c / x[$1]}' "$tmp/pe_variants.tsv" "$tmp/rounds.tsv" | stat; }
  printf '%-48s %s\n' "pe's best variant by median (epochs 2..E)" "$fixed"
  printf '%-48s %s\n' "ratio hyperplane / that variant" "$(ratioTo "$fixed" hp_ms 3)"
  printf '%-48s %s\n' "ratio, epochs 2..E, hyperplane / that variant" "$(ratioTo "$fixed" hp2med_ms 4)"
  # Each variant's own figures and hyperplane's ratio to it (epochs 2..E),
  # for comparisons with a variant chosen for what it computes (a float64
  # accumulator, say, as hyperplane keeps).
  for v in $(cut -f2 "$tmp/pe_variants.tsv" | sort -u); do
    printf '%-48s %s; ratio, epochs 2..E: %s (hyperplane'"'"'s mean epoch over it: %s)\n' "pe $v, epochs 2..E, ms/epoch" \
      "$(awk -F'\t' -v v="$v" '$2 == v {print $4}' "$tmp/pe_variants.tsv" | stat)" "$(ratioTo "$v" hp2med_ms 4)" "$(ratioTo "$v" hp2_ms 4)"
  done
fi
if [ -n "$test" ]; then
  echo "test accuracy: C ref $ref_acc, hyperplane $hp_acc${pe:+, pe ${pe_acc:-—}}${sk:+, scikit-learn ${sk_acc:-—}}"
fi
