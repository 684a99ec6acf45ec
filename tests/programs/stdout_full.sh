#!/usr/bin/env bash
# Runs one program twice: with its standard output on /dev/null it must succeed; on /dev/full (where
# every write fails with "No space left on device") it must say so and fail: a non-zero exit that
# is no signal, and exactly one line starting with "error:", about standard output. A result that
# was never written is not a success.
# Usage: stdout_full.sh PROGRAM [ARGS...]
set -u
if [ ! -w /dev/full ]; then
  echo "no writable /dev/full here: skipped"
  exit 77
fi
if ! "$@" > /dev/null 2> /dev/null; then
  echo "FAILED: $* does not succeed with its standard output on /dev/null"
  exit 1
fi
errors=$("$@" 2>&1 > /dev/full)
rc=$?
printf '%s\n' "$errors"
if [ "$rc" -eq 0 ]; then
  echo "FAILED: exit status 0 with its standard output on /dev/full: the result was lost silently"
  exit 1
fi
if [ "$rc" -ge 128 ]; then
  echo "FAILED: killed by a signal (status $rc)"
  exit 1
fi
count=$(printf '%s\n' "$errors" | grep -c '^error:')
if [ "$count" -ne 1 ]; then
  echo "FAILED: $count lines start with 'error:', not 1"
  exit 1
fi
if ! printf '%s\n' "$errors" | grep -qx 'error: standard output: No space left on device'; then
  echo "FAILED: the error line does not name standard output and its reason"
  exit 1
fi
echo "ok: exit $rc, one error line about standard output"
