# shellcheck shell=bash
# Sourced by the offline fetch tests.
# fake_network_tools <folder> writes fake network tools into
# <folder>/bin and puts them first on PATH. Each logs its call to <folder>/calls.log. curl copies
# file:// URLs to its --output (so local folders act as download sites) and fails on anything
# else; wget, npm and apt-get always fail.
fake_network_tools() {
  local work=$1 tool
  mkdir -p "$work/bin"
  for tool in wget npm apt-get; do
    cat >"$work/bin/$tool" <<EOF2
#!/bin/sh
echo "$tool \$*" >>"$work/calls.log"
echo "$tool: network disabled by the test" >&2
exit 1
EOF2
  done
  cat >"$work/bin/curl" <<EOF2
#!/usr/bin/env bash
# Fake curl: copies file:// URLs to --output, fails on anything else.
echo "curl \$*" >>"$work/calls.log"
out="" url=""
while [[ \$# -gt 0 ]]; do
  case \$1 in
    --output|-o) out=\$2; shift 2 ;;
    --connect-timeout|--speed-limit|--speed-time|--max-time) shift 2 ;;
    -*) shift ;;
    *) url=\$1; shift ;;
  esac
done
if [[ \$url == file://* && -f \${url#file://} ]]; then
  cp "\${url#file://}" "\$out"
  exit 0
fi
echo "curl: (6) network disabled by the test: \$url" >&2
exit 6
EOF2
  chmod +x "$work/bin"/*
  export PATH="$work/bin:$PATH"
}

# run_fetch <log name> <destination> [env assignments...]: runs the fetch script $script on the
# destination with the assignments, its output in $work/<log name>.out and echoed indented; a
# fresh $work/calls.log; returns the script's exit code.
run_fetch() {
  local log=$1 folder=$2 rc
  shift 2
  : >"$work/calls.log"
  set +e
  # shellcheck disable=SC2154  # $script is the sourcing test's
  env "$@" "$script" "$folder" >"$work/$log.out" 2>&1
  rc=$?
  set -e
  echo "--- $(basename "$script") ($log): exit $rc"
  sed 's/^/    /' "$work/$log.out"
  return $rc
}
