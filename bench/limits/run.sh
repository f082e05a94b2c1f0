#!/usr/bin/env bash
# Inputs that used to take the machine down, lose files or give silent
# wrong answers, run against one hyperplane binary with a table of exit
# status, wall time and peak memory. Usage: bench/limits/run.sh BIN [NAME]
#   BIN  : path to a hyperplane binary (go build -o /tmp/hp ./cmd/hyperplane)
#   NAME : label for the results file (default: basename of BIN) -> RESULTS-NAME.md
# Inputs (about 200 MB, made once by inputs.sh), work files and results go
# to $LIMITS_DIR (default /tmp/hyperplane-limits).
# Every reproducer runs under `timeout -k 5 60` inside a memory cap of 6 GiB
# (cgroup v1/v2 memory limit when one can be created; else an RSS watchdog that
# SIGKILLs the process group above 6 GiB), with a per-file write limit
# (ulimit -f, 16 GiB) so a runaway writer cannot fill the disk.
# Peak RSS and wall time come from /usr/bin/time -v.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
BIN="$(readlink -f "${1:?usage: run.sh BIN [NAME]}")"
NAME="${2:-$(basename "$BIN")}"
CAP_BYTES=$((6 * 1024 * 1024 * 1024))
FSIZE_KB=$((16 * 1024 * 1024))
TLIM=60
OUT="${LIMITS_DIR:-/tmp/hyperplane-limits}"
mkdir -p "$OUT"
OUTMD="$OUT/RESULTS-$NAME.md"
W="$OUT/work-$NAME"
L="$W/logs"
IN="$OUT/inputs"

"$HERE/inputs.sh" "$IN" >/dev/null
rm -rf "$W"; mkdir -p "$L"; cd "$W"
ln -s "$IN" in

# ---------- memory cap method ----------
CGBASE=""; CGVER=""
if [ -z "${NO_CGROUP:-}" ]; then
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then           # cgroup v2
    rel=$(awk -F: '$1=="0"{print $3}' /proc/self/cgroup)
    cand="/sys/fs/cgroup${rel}/issue16-$$"
    if mkdir "$cand" 2>/dev/null && [ -f "$cand/memory.max" ]; then CGBASE=$cand; CGVER=2; else rmdir "$cand" 2>/dev/null; fi
  else                                                          # cgroup v1
    rel=$(awk -F: '$2=="memory"{print $3}' /proc/self/cgroup)
    cand="/sys/fs/cgroup/memory${rel}/issue16-$$"
    if mkdir "$cand" 2>/dev/null && [ -f "$cand/memory.limit_in_bytes" ]; then CGBASE=$cand; CGVER=1; else rmdir "$cand" 2>/dev/null; fi
  fi
fi
if [ -n "$CGBASE" ]; then METHOD="cgroup v$CGVER memory limit 6 GiB (child cgroup per run, $CGBASE/rNN; OOM kill detected via memory.oom_control / memory.events)"
else METHOD="RSS watchdog (sum of VmRSS of the run's process group polled every 0.2 s, SIGKILL above 6 GiB)"; fi
cleanup_cg() { [ -n "$CGBASE" ] && { for d in "$CGBASE"/*/; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done; rmdir "$CGBASE" 2>/dev/null; }; }
trap cleanup_cg EXIT

esc() { sed -e 's/|/\\|/g' -e 's/\r//g' | tr -d '\000' | cut -c1-220; }
joinlines() { awk 'NF{printf "%s%s", (n++ ? " ⏎ " : ""), $0}'; }

ROWS=()
N=0
# runit ID "display command" cmd args...   (runs in $W; sets RC WALL RSS KILLED ERR3 OUT1)
runit() {
  local id=$1 disp=$2; shift 2
  SKIP=""; if [ -n "${ONLY:-}" ] && ! [[ $id =~ $ONLY ]]; then SKIP=1; RC=""; WALL=""; RSS=""; KILLED=""; ERR3=""; OUT1=""; return; fi
  N=$((N + 1))
  local cg="" tf="$L/$id.time"
  rm -f "$tf"
  if [ -n "$CGBASE" ]; then
    cg="$CGBASE/r$N"; mkdir "$cg"
    if [ "$CGVER" = 1 ]; then echo $CAP_BYTES > "$cg/memory.limit_in_bytes"; echo $CAP_BYTES > "$cg/memory.memsw.limit_in_bytes" 2>/dev/null
    else echo $CAP_BYTES > "$cg/memory.max"; echo 0 > "$cg/memory.swap.max" 2>/dev/null; fi
  fi
  local t0=$(date +%s.%N)
  (
    [ -n "$cg" ] && echo $BASHPID > "$cg/cgroup.procs"
    ulimit -f $FSIZE_KB
    exec /usr/bin/time -v -o "$tf" timeout -k 5 $TLIM "$@"
  ) >"$L/$id.out" 2>"$L/$id.err" &
  local pid=$! wd_killed=0
  if [ -z "$cg" ]; then  # watchdog
    while kill -0 $pid 2>/dev/null; do
      local tpid pg tot=0
      tpid=$(pgrep -P $pid | head -1)   # $pid is /usr/bin/time; its child is timeout, which leads its own process group
      if [ -n "$tpid" ]; then
        for p in $(pgrep -g "$tpid" 2>/dev/null); do
          r=$(awk '/VmRSS/{print $2}' /proc/$p/status 2>/dev/null); tot=$((tot + ${r:-0}))
        done
        if [ $((tot * 1024)) -gt $CAP_BYTES ]; then kill -KILL -- -"$tpid" 2>/dev/null; wd_killed=1; fi
      fi
      sleep 0.2
    done
  fi
  wait $pid; RC=$?
  local t1=$(date +%s.%N)
  WALL=$(awk -F': ' '/Elapsed \(wall clock\)/{n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; printf "%.2f", s}' "$tf" 2>/dev/null)
  [ -z "$WALL" ] && WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')
  local kb; kb=$(awk -F': ' '/Maximum resident/{print $2}' "$tf" 2>/dev/null)
  RSS=$(awk -v k="${kb:-0}" 'BEGIN{ if (k>=1048576) printf "%.2f GiB", k/1048576; else printf "%.1f MiB", k/1024 }')
  KILLED=""
  if [ -n "$cg" ]; then
    local ook=0
    if [ "$CGVER" = 1 ]; then ook=$(awk '/oom_kill /{print $2}' "$cg/memory.oom_control")
      local mx; mx=$(cat "$cg/memory.max_usage_in_bytes"); RSS="$RSS (cg peak $(awk -v b=$mx 'BEGIN{printf "%.2f GiB", b/2^30}'))"
    else ook=$(awk '/oom_kill /{print $2}' "$cg/memory.events"); fi
    [ "${ook:-0}" -gt 0 ] && KILLED="killed at 6 GiB cap after $WALL s"
    rmdir "$cg" 2>/dev/null
  elif [ $wd_killed = 1 ]; then KILLED="killed at 6 GiB cap after $WALL s"; fi
  [ "$RC" = 124 ] && KILLED="${KILLED:+$KILLED; }timed out at ${TLIM} s"
  [ "$RC" = 137 ] && [ -z "$KILLED" ] && KILLED="SIGKILL (rc 137)"
  ERR3=$(tail -n 3 "$L/$id.err" | esc | joinlines)
  # Go crash: prefix the headline, the signal line and the first non-runtime frame
  local pan; pan=$( { grep -m1 -E '^(panic|fatal error)' "$L/$id.err"; grep -m1 -E '^\[signal' "$L/$id.err"; \
      grep -E '^[a-z0-9./_-]+\.[A-Za-z(*]' "$L/$id.err" | grep -v -E '^(runtime|internal|syscall)[./]' | head -1 | cut -c1-100; } | esc | joinlines)
  [ -n "$pan" ] && ERR3="$pan … $ERR3"
  # long non-crash stderr (e.g. an error followed by usage text): keep its first line too
  if [ -z "$pan" ] && [ "$(grep -c . "$L/$id.err")" -gt 3 ]; then ERR3="$(grep -m1 . "$L/$id.err" | esc) … $ERR3"; fi
  OUT1=$(grep -v '^\s*$' "$L/$id.out" | tail -n 2 | esc | joinlines)
  echo "[$id] rc=$RC wall=${WALL}s rss=$RSS $KILLED" >&2
}
# emit ID "display" "notes"
emit() {
  [ -n "$SKIP" ] && return
  local notes="$3"
  [ -n "$KILLED" ] && notes="**$KILLED**${notes:+; $notes}"
  ROWS+=("| $1 | \`$2\` | $RC | $WALL | $RSS | ${ERR3:-—} | ${notes:-—} |")
}
size_of() { if [ -e "$1" ]; then stat -c %s "$1"; else echo "absent"; fi; }
human() { [ "$1" = absent ] && { echo absent; return; }; awk -v b="$1" 'BEGIN{ if(b>=2^30) printf "%.2f GiB", b/2^30; else if (b>=2^20) printf "%.1f MiB", b/2^20; else printf "%d B", b}'; }
lsdir() { (cd "$1" && for f in $(ls -A); do printf '%s=%s ' "$f" "$(human "$(stat -c %s "$f")")"; done); }
sha() { sha256sum "$1" 2>/dev/null | cut -c1-12 || echo absent; }

H=bin   # shown as $BIN in the table
# 1
runit 1 "" "$BIN" train in/r1_idx2147483647.svm
emit 1 "\$BIN train in/r1_idx2147483647.svm" "stdout: ${OUT1:-—}"
# 2
runit 2 "" "$BIN" train -epochs 1 in/r2_idx1e9.svm
emit 2 "\$BIN train -epochs 1 in/r2_idx1e9.svm" "stdout: ${OUT1:-—}"
# 3
runit 3a "" "$BIN" train -epochs 1 in/r3_1000labels_w300000.svm
emit 3a "\$BIN train -epochs 1 in/r3_1000labels_w300000.svm" "input $(human "$(size_of in/r3_1000labels_w300000.svm)"); stdout: ${OUT1:-—}"
runit 3b "" "$BIN" train -epochs 1 in/r3_1000labels_w1000000.svm
emit 3b "\$BIN train -epochs 1 in/r3_1000labels_w1000000.svm" "input $(human "$(size_of in/r3_1000labels_w1000000.svm)"); stdout: ${OUT1:-—}"
# 4
runit 4 "" "$BIN" train -threads 128 -epochs 1 in/r4_w1e6.svm
emit 4 "\$BIN train -threads 128 -epochs 1 in/r4_w1e6.svm" "stdout: ${OUT1:-—}"
# 5
for b in 28 30; do
  mkdir -p r5_$b
  runit 5-$b "" "$BIN" convert -idf -bits $b -save-featurizer r5_$b/f.feat in/r5_docs.jsonl r5_$b/out.svm
  emit 5-$b "\$BIN convert -idf -bits $b -save-featurizer r5_$b/f.feat in/r5_docs.jsonl r5_$b/out.svm" "written: $(lsdir r5_$b)"
  rm -rf r5_$b
done
# 6
runit 6a "" "$BIN" stats in/r6_4GiB_line.gz
emit 6a "\$BIN stats in/r6_4GiB_line.gz" "stdout: ${OUT1:-—}"
runit 6b "" "$BIN" train in/r6_4GiB_line.gz
emit 6b "\$BIN train in/r6_4GiB_line.gz" "stdout: ${OUT1:-—}"
mkdir -p r6out
runit 6c "" "$BIN" convert in/r6_4GiB_line.gz r6out/out.hpc
emit 6c "\$BIN convert in/r6_4GiB_line.gz r6out/out.hpc" "files left in r6out/: $(lsdir r6out)"
rm -rf r6out
# 7
runit 7 "" "$BIN" stats in/r7_1GiB_rows.gz
emit 7 "\$BIN stats in/r7_1GiB_rows.gz" "stdout: ${OUT1:-—}"
# 8
mkdir -p r8
runit 8 "" "$BIN" gen -kind separable -rows 1 -dim 100000000 r8/out.svm
emit 8 "\$BIN gen -kind separable -rows 1 -dim 100000000 r8/out.svm" "written: $(lsdir r8); stdout: ${OUT1:-—}"
rm -rf r8
# 9
runit 9a "" "$BIN" convert in/r9_200k.svm r9.hpc
emit 9a "\$BIN convert in/r9_200k.svm r9.hpc" "cache $(human "$(size_of r9.hpc)")"
if [ -s r9.hpc ]; then
  half=$(( $(stat -c %s r9.hpc) / 2 ))
  ( sleep 1; truncate -s $half r9.hpc; echo "truncated to $half at $(date +%s.%N)" > "$L/9b.trunc" ) &
  tp=$!
  runit 9b "" "$BIN" train -stream -epochs 50 r9.hpc
  wait $tp
  emit 9b "\$BIN train -stream -epochs 50 r9.hpc  # truncate -s half r9.hpc at t=1 s" "cache truncated to $(human $half) at 1 s; stdout: ${OUT1:-—}"
fi
rm -f r9.hpc
# 10 data loss
cp in/data.svm d1.svm; s0=$(sha d1.svm)
runit 10a "" "$BIN" train -o d1.svm d1.svm
emit 10a "\$BIN train -o data.svm data.svm" "input sha256 before $s0 after $(sha d1.svm), size $(human "$(size_of d1.svm)") — $( [ "$s0" = "$(sha d1.svm)" ] && echo survived || echo '**input overwritten**')"
runit 10b0 "" "$BIN" train -o m.hpm in/data.svm
emit 10b0 "\$BIN train -o m.hpm data.svm  # setup for 10b" "model $(human "$(size_of m.hpm)")"
cp in/data.svm d2.svm; s0=$(sha d2.svm)
runit 10b "" "$BIN" predict -model m.hpm -o d2.svm d2.svm
emit 10b "\$BIN predict -model m.hpm -o data.svm data.svm" "input sha256 before $s0 after $(sha d2.svm), size $(human "$(size_of d2.svm)"), $(wc -l < d2.svm 2>/dev/null) lines — $( [ "$s0" = "$(sha d2.svm)" ] && echo survived || echo '**input overwritten**')"
cp in/x.jsonl x.jsonl; s0=$(sha x.jsonl)
runit 10c "" "$BIN" convert x.jsonl x.jsonl
emit 10c "\$BIN convert x.jsonl x.jsonl" "input sha256 before $s0 after $(sha x.jsonl), size $(human "$(size_of x.jsonl)") — $( [ "$s0" = "$(sha x.jsonl)" ] && echo survived || echo '**input overwritten**'): $(head -c 80 x.jsonl 2>/dev/null | tr '\n' ' ' | esc)"
# expected conversion from the regular file
"$BIN" convert in/data.svm expected.svm >/dev/null 2>&1
cmpnote() { if [ ! -e "$1" ]; then echo "no output"; elif cmp -s "$1" expected.svm; then echo "output identical to regular-file convert ($(wc -l < "$1") rows)"; else echo "**output differs** from regular-file convert: $(wc -l < "$1") rows vs $(wc -l < expected.svm), $(human "$(size_of "$1")") vs $(human "$(size_of expected.svm)")"; fi; }
runit 10d "" sh -c "cat in/data.svm | '$BIN' convert /dev/stdin out_d.svm"
emit 10d "cat data.svm | \$BIN convert /dev/stdin out.svm" "$(cmpnote out_d.svm)"
runit 10e "" sh -c "cat in/data.svm.gz | '$BIN' convert /dev/stdin out_e.svm"
emit 10e "cat data.svm.gz | \$BIN convert /dev/stdin out.svm" "$(cmpnote out_e.svm)"
rm -f out_d.svm out_e.svm expected.svm
runit 10f "" "$BIN" train -o /missing/dir/m.hpm in/data.svm
emit 10f "\$BIN train -o /missing/dir/m.hpm data.svm" "$(grep -q '^train:' "$L/10f.out" 2>/dev/null && echo 'trained first (train: line printed)' || echo 'no training output'); stdout: ${OUT1:-—}"
# 11 silent wrong answers
runit 11a "" "$BIN" train -o m1e20.hpm in/r11_1e20.svm
emit 11a "\$BIN train -o m1e20.hpm in/r11_1e20.svm" "stdout: ${OUT1:-—}"
runit 11b "" "$BIN" predict -scores -model m1e20.hpm in/r11_1e20.svm
emit 11b "\$BIN predict -scores -model m1e20.hpm in/r11_1e20.svm" "$(grep -qi nan "$L/11b.out" && echo '**NaN scores**' || echo 'no NaN'); output: $(head -3 "$L/11b.out" | esc | joinlines)"
# 0-valued flags: compare the mistakes per epoch with the same run at the flag's default value
mist() { grep -o 'mistakes: \[[^]]*\]' "$L/$1.out" 2>/dev/null; }
for pair in "-epochs 0|-epochs 10" "-lr 0|" "-algo averaged -lr 0|-algo averaged -lr 1" "-bias-scale 0|-bias-scale 1" "-bias augmented -bias-scale 0|-bias augmented -bias-scale 1"; do
  f=${pair%%|*}; ref=${pair#*|}
  id="11c$(echo "$f" | tr -dc 'a-z0-9')"
  runit "$id" "" "$BIN" train $f -test in/data.svm in/data.svm
  r_rc=$RC; r_err=$ERR3; r_wall=$WALL; r_rss=$RSS; r_out=$OUT1; r_k=$KILLED
  cmpn=""
  if [ -n "$ref" ] && [ "$RC" = 0 ]; then
    runit "${id}ref" "" "$BIN" train $ref -test in/data.svm in/data.svm
    if [ -n "$(mist "$id")" ] && [ "$(mist "$id")" = "$(mist "${id}ref")" ]; then cmpn="; **mistakes identical to \`$ref\` → 0 silently treated as the default**"
    elif [ -n "$(mist "$id")" ]; then cmpn="; mistakes differ from \`$ref\`"; fi
    RC=$r_rc; ERR3=$r_err; WALL=$r_wall; RSS=$r_rss; OUT1=$r_out; KILLED=$r_k; SKIP=""
    [ -n "${ONLY:-}" ] && ! [[ $id =~ $ONLY ]] && SKIP=1
  fi
  ep=$(mist "$id" | awk -F'[][]' '{print split($2,a," ")}')
  emit "$id" "\$BIN train $f -test data.svm data.svm" "$( [ "$RC" = 0 ] && echo accepted || echo rejected)${ep:+, ran $ep epochs}$cmpn; stdout: ${OUT1:-—}"
done
mkdir -p r11d; cp in/data.svm r11d/data.svm
cd r11d; runit 11d "" "$BIN" train -o '' data.svm
emit 11d "\$BIN train -o '' data.svm" "files in dir after: $(lsdir .); $(grep -q '^model:' "$L/11d.out" 2>/dev/null && echo 'model line printed' || echo '**no model written, no warning**'); stdout: ${OUT1:-—}"
cd "$W"; rm -rf r11d
runit 11e "" "$BIN" stats in/r11_f32range.svm
emit 11e "\$BIN stats in/r11_f32range.svm  # 1:1e-50 and 1:3.4e39" "stdout: $(grep -v '^\s*$' "$L/11e.out" | esc | joinlines)"
runit 11f "" "$BIN" train -o mf32.hpm in/r11_f32range.svm
emit 11f "\$BIN train -o mf32.hpm in/r11_f32range.svm" "stdout: ${OUT1:-—}"
runit 11g "" "$BIN" stats in/r11_1e-50.svm
emit 11g "\$BIN stats in/r11_1e-50.svm  # rows 1 1:1e-50, -1 2:1" "stdout: $(grep -v '^\s*$' "$L/11g.out" | esc | joinlines)"

{
  echo "# Limits reproducers — $NAME"
  echo
  echo "- binary: \`$BIN\` (sha256 $(sha256sum "$BIN" | cut -c1-16))"
  echo "- date: $(date -u +%FT%TZ); host: $(nproc) cores, $(awk '/MemTotal/{printf "%.0f GiB", $2/2^20}' /proc/meminfo) RAM"
  echo "- limits: \`timeout -k 5 $TLIM\`; memory cap: $METHOD; \`ulimit -f\` 16 GiB per file"
  echo "- peak RSS and wall: \`/usr/bin/time -v\` (max RSS of the largest process); 'cg peak' is the cgroup's max usage (includes page cache)"
  echo "- exit status: 124 = timed out, 137 = SIGKILL (OOM kill at the cap when so marked); full logs in \`work-$NAME/logs/\`"
  echo
  echo "| # | command | exit | wall s | peak RSS | stderr (last 3 lines) | notes |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${ROWS[@]}"
} > "$OUTMD"
echo "wrote $OUTMD" >&2
