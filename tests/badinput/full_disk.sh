#!/usr/bin/env bash
# A lesson program on a full disk: it must stop with one "error:" line naming the file it could not
# write, exit non-zero, and leave no cut file under a final name.
#
#   full_disk.sh [--limit-kib N] [--needs PATH] -- PROGRAM [ARGS...]
#
# Every argument @OUT@ stands for an output folder the script makes. A full disk is simulated
# without root: `ulimit -f N` limits each file the program writes to N KiB. SIGXFSZ keeps its
# default action (it would kill the process): the program must ignore it itself, so that a write
# past the limit fails with EFBIG ("File too large") and is reported.
#
# 1. reference: the program without the limit must succeed; its files are the complete ones.
# 2. fresh:     with the limit, into an empty folder.
# 3. over old:  with the limit, into a folder holding the reference's files (an earlier run).
# After 2 and 3: exit status non-zero and not a signal, exactly one line starting with "error:" that
# names one of the program's files, no crash or stack trace, every file under a final name complete
# (PNG: ends with IEND; CSV: whole lines, each with the header's number of fields; others: the
# reference's size), no file the reference run did not write (a temporary left behind); in 3 also
# every old file still there (but run.txt, the earlier run's manifest, which a run removes when it
# starts) and the one named by the error unchanged; and no run.txt after a run that failed.
#
# Exit status: 0 passed, 1 failed, 2 wrong usage, 77 skipped (the --needs path is missing).
set -uo pipefail

limit_kib=4
needs=""
while [[ $# -gt 0 && $1 != -- ]]; do
  case $1 in
    --limit-kib) limit_kib=${2:?--limit-kib needs a number}; shift 2 ;;
    --needs) needs=${2:?--needs needs a path}; shift 2 ;;
    *) echo "usage: $0 [--limit-kib N] [--needs PATH] -- PROGRAM [ARGS...]" >&2; exit 2 ;;
  esac
done
[[ ${1:-} == -- ]] && shift
if [[ $# -eq 0 || ! $limit_kib =~ ^[0-9]+$ ]]; then
  echo "usage: $0 [--limit-kib N] [--needs PATH] -- PROGRAM [ARGS...]" >&2
  exit 2
fi
if [[ -n $needs && ! -e $needs ]]; then
  echo "skipped: $needs is missing"
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/full_disk_XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL ($phase): $*"
  failures=$((failures + 1))
}

# The command with every @OUT@ replaced by folder $1.
command_for() {
  local out=$1 arg
  shift
  command_args=()
  for arg in "$@"; do command_args+=("${arg//@OUT@/$out}"); done
}

# Runs the command into folder $1 with the file size limit $2 ("" for none); stdout and stderr
# go through a pipe (a pipe has no size limit) into $1.log, the exit status into $rc.
run_into() {
  local out=$1 limit=$2
  shift 2
  command_for "$out" "$@"
  if [[ -n $limit ]]; then
    (ulimit -f "$limit" && exec "${command_args[@]}") 2>&1 | tr '\r' '\n' >"$out.log"
  else
    "${command_args[@]}" 2>&1 | tr '\r' '\n' >"$out.log"
  fi
  rc=${PIPESTATUS[0]}
}

# Files under folder $1, relative to it, one a line, sorted.
files_under() { (cd "$1" && find . -type f | sed 's|^\./||' | LC_ALL=C sort); }

# True when file $1 is complete: see the header of this script.
is_complete() {
  local file=$1 reference=$2
  case $file in
    *.png)
      [[ $(tail -c 12 "$file" | od -An -tx1 | tr -d ' \n') == 0000000049454e44ae426082 ]] ;;
    *.csv)
      [[ -s $file && $(tail -c 1 "$file" | od -An -tx1 | tr -d ' \n') == 0a ]] || return 1
      awk -F, 'NR == 1 { fields = NF } NF != fields { bad = 1 } END { exit bad }' "$file" ;;
    *)
      [[ $(stat -c %s "$file") == $(stat -c %s "$reference") ]] ;;
  esac
}

phase=reference
run_into "$work/reference" "" "$@"
if [[ $rc -ne 0 ]]; then
  echo "FAIL (reference): the program fails without a size limit (exit $rc):"
  cat "$work/reference.log"
  exit 1
fi
reference_files=$(files_under "$work/reference")
if [[ -z $reference_files ]]; then
  echo "FAIL (reference): the program wrote no file under @OUT@"
  exit 1
fi

check_limited_run() {
  local out=$1 log=$1.log start=$failures
  if [[ $rc -eq 0 ]]; then
    fail "exit status 0 with files limited to $limit_kib KiB (a smaller --limit-kib makes a write fail)"
  elif [[ $rc -ge 128 ]]; then
    fail "killed by signal $((rc - 128)) instead of reporting the error"
  fi
  local error_lines
  error_lines=$(grep -c '^error:' "$log")
  [[ $error_lines -eq 1 ]] || fail "$error_lines lines start with 'error:', expected exactly one"
  if grep -Eq 'terminate called|what\(\):|Aborted|core dumped|Segmentation fault|stack trace|^#[0-9]+ ' "$log"; then
    fail "the output shows a crash or a stack trace"
  fi
  named=""
  local name error_line
  error_line=$(grep -m1 '^error:' "$log")
  while IFS= read -r name; do
    [[ -n $error_line && $error_line == *"$out/$name"* ]] && named=$name
  done <<<"$reference_files"
  [[ -n $named ]] || fail "the error line names none of the program's files under $out"
  while IFS= read -r name; do
    if [[ ! -e $work/reference/$name ]]; then
      fail "$name was left behind (the reference run writes no such file)"
    elif ! is_complete "$out/$name" "$work/reference/$name"; then
      fail "$name is not complete ($(stat -c %s "$out/$name") bytes)"
    fi
  done < <(files_under "$out")
  [[ -e $out/run.txt ]] && fail "run.txt is there: a run that failed must not look finished"
  if [[ $failures -gt $start ]]; then
    echo "--- output of the run limited to $limit_kib KiB:"
    cat "$log"
  fi
}

phase=fresh
mkdir "$work/fresh"
run_into "$work/fresh" "$limit_kib" "$@"
check_limited_run "$work/fresh"

phase="over old"
cp -a "$work/reference" "$work/old"
run_into "$work/old" "$limit_kib" "$@"
check_limited_run "$work/old"
while IFS= read -r name; do
  [[ $(basename "$name") == run.txt ]] && continue  # the earlier run's manifest goes when a run starts
  [[ -e $work/old/$name ]] || fail "$name, written by an earlier run, is gone"
done <<<"$reference_files"
if [[ -n $named ]] && ! cmp -s "$work/old/$named" "$work/reference/$named"; then
  fail "$named, which could not be written, no longer holds the earlier run's file"
fi

if [[ $failures -gt 0 ]]; then
  echo "full_disk: $failures check(s) failed"
  exit 1
fi
echo "full_disk: passed (files limited to $limit_kib KiB: $(grep -m1 '^error:' "$work/fresh.log"))"
