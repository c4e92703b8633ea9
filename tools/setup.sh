#!/usr/bin/env bash
# tools/setup.sh — install everything shardcheck needs on a fresh Debian machine (as root).
#   bash tools/setup.sh          # Debian packages only (build, MPI, Check, oracles)
#   bash tools/setup.sh --venv   # ... and the Python venv for the harness (torch 2.13.0, jax, cuRAND,
#                                #     Megatron-core 0.19.2 as sources: tools/harness/peers.txt)
#   bash tools/setup.sh --browser  # ... and chromium (report_html.sh loads the HTML report headless)
#   bash tools/setup.sh --release X  # ... and a venv for torch release X too ($SHARDCHECK_VENV_X,
#                                #     default .venv-torch-X; the test command's 2.15 stage)
#   bash tools/setup.sh --fuzz   # ... and clang with libFuzzer, for `make fuzz` only (optional: CI
#                                #     replays the fuzz corpora with gcc, see fuzz/README.md)
# Idempotent: packages already installed are not fetched again.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pkgs=(build-essential autoconf automake libtool autoconf-archive pkg-config
      check libjansson-dev libssl-dev libopenmpi-dev openmpi-bin lcov librandom123-dev
      python3-venv time)  # time: GNU time, the child's own peak RSS in bench_verify_mbps.sh
venv=0
releases=()
prev=""
for a in "$@"; do
  [ "$prev" = --release ] && { releases+=("$a"); prev=""; continue; }
  prev=$a
  case $a in
    --release) ;;
    --venv) venv=1 ;;
    --browser) pkgs+=(chromium) ;;
    --fuzz) pkgs+=(clang libclang-rt-14-dev) ;;
  esac
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ "$venv" = 1 ]; then
  bash "$here/tools/harness/setup_venv.sh" "$here/.venv"
fi
for r in "${releases[@]}"; do
  var="SHARDCHECK_VENV_${r//./_}"
  bash "$here/tools/harness/setup_venv.sh" --release "$r" "${!var:-$here/.venv-torch-$r}"
done
