#!/bin/sh
# setup_venv.sh — create or update the harness venv (default: $REPO/.venv).
#
# What it is for: the reference harness (tools/harness) and the C tests' cuRAND
# oracle need torch 2.13.0, jax, jsonschema, pytest, numpy and CUDA 13.0's
# cuRAND (nvidia-curand 10.4.0.35: headers and libcurand's host generator), NCCL
# (nvidia-nccl-cu13 2.32.3: nccl.h for the cuda backend's NCCL communicator, which
# loads libnccl.so.2 at run time),
# and installs the harness's public package shardcheck_harness (a .pth file), and the outside
# peers of tools/harness/peers.txt as sources under VENV/peers (Megatron-core 0.19.2, whose
# wheel is for Python 3.12, and veScale 0.0.1: pip installs each --target with
# --python-version 3.12 --ignore-requires-python --no-deps, hash-checked;
# adapters/_megatron_common.py and adapters/_vescale_common.py load them).
# Idempotent: an existing venv is reused; pip skips what is already installed.
# Usage: tools/harness/setup_venv.sh [VENV_DIR]   (or SHARDCHECK_VENV=DIR)
#        tools/harness/setup_venv.sh --release X DIR: a venv for another torch release X (the
#          harness's needs only: torch X, numpy, jsonschema); torch X is the registry's default
#          wheel (CUDA, which runs on a CPU with its CUDA library packages, about 4 GB), installed
#          with PIP_CONSTRAINT=/dev/null so the pinned release's constraint does not apply;
#          triton is left out and pip keeps no cache (disk: see below).
#          Reused when DIR's python already imports torch X.
# How it is tested: .ci/run and the README test command run it on a fresh clone.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
python=${PYTHON:-python3}
if [ "${1:-}" = --release ]; then
  rel=${2:?--release X DIR}; venv=${3:?--release X DIR}
  have=$("$venv/bin/python" -c 'import torch; print(torch.__version__.split("+")[0])' 2>/dev/null || true)
  if [ "$have" = "$rel" ]; then echo "setup_venv: $venv has torch $rel"; exit 0; fi
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  # Disk, not time, is what this venv costs (CI once ran out of it: ENOSPC in the build beside
  # it).  --no-cache-dir: the CUDA wheels (about 3 GB) are not kept a second time in pip's cache.
  # --no-compile: pip would byte-compile every module of torch and its CUDA packages, of which
  # the release check imports a small part (Python compiles those on first import).
  # triton (about 1 GB) is left out: torch imports it only for its compilers (inductor), which
  # the harness never uses; `import torch` and torch.distributed run without it (pip then says
  # torch's triton requirement is unmet: expected).  So torch goes
  # in --no-deps and then its own requirements (its metadata, markers evaluated), less triton.
  pipx="env PIP_CONSTRAINT=/dev/null $venv/bin/python -m pip install --quiet --no-compile --no-cache-dir"
  $pipx --no-deps "torch==$rel" packaging
  "$venv/bin/python" - >"$venv/torch-requires.txt" <<'PY'
from importlib.metadata import requires
from packaging.requirements import Requirement
for line in requires("torch") or []:
    req = Requirement(line)
    if req.name == "triton" or (req.marker and not req.marker.evaluate({"extra": ""})):
        continue
    print(line.split(";")[0].strip())
PY
  $pipx -r "$venv/torch-requires.txt" numpy==2.4.6 jsonschema==4.26.0 jsonschema-rs==0.58.3
  "$venv/bin/python" -c 'import torch; print("setup_venv: torch", torch.__version__)'
  exit 0
fi
venv=${1:-${SHARDCHECK_VENV:-$repo/.venv}}

if [ ! -x "$venv/bin/python" ]; then
  echo "setup_venv: creating $venv"
  "$python" -m venv "$venv"
fi
pip="$venv/bin/python -m pip"
# Skip the network round trip when every pin is already satisfied.
if "$venv/bin/python" - "$here/requirements.txt" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version, PackageNotFoundError
need = [l.split("#")[0].strip() for l in open(sys.argv[1])]
need = [l for l in need if l] + ["nvidia-curand==10.4.0.35", "nvidia-nccl-cu13==2.32.3"]
for req in need:
    name, want = req.split("==")
    try:
        got = version(name).split("+")[0]
    except PackageNotFoundError:
        sys.exit(1)
    if got != want:
        sys.exit(1)
PY
then
  echo "setup_venv: $venv is up to date"
else
  $pip install --quiet -r "$here/requirements.txt"
  $pip install --quiet nvidia-curand==10.4.0.35
  $pip install --quiet nvidia-nccl-cu13==2.32.3
fi
# Outside peers, pinned by hash (peers.txt, one line each): sources for the megatron_* and
# vescale_* adapters, each in VENV/peers/NAME-VERSION apart from the venv's packages (never
# imported as their packages: adapters/_megatron_common.py and _vescale_common.py say why).
# --python-version 3.12 --ignore-requires-python: Megatron-core's wheel is cp312-only
# (veScale's is py3-none-any, which any of them admits).
grep -E '^[A-Za-z0-9_.-]+==' "$here/peers.txt" | while read -r req rest; do
  name=${req%%==*} ver=${req#*==}
  dir="$venv/peers/$name-$ver"
  if [ -f "$dir/$(echo "$name" | tr - _)-$ver.dist-info/METADATA" ]; then
    echo "setup_venv: $name $ver at $dir"
    continue
  fi
  rm -rf "$dir"
  printf '%s %s\n' "$req" "$rest" >"$venv/peers-$name.txt"
  $pip install --quiet --target "$dir" --python-version 3.12 --only-binary=:all: --no-deps \
    --ignore-requires-python --require-hashes -r "$venv/peers-$name.txt" </dev/null
  echo "setup_venv: $name $ver installed at $dir"
done
# The public harness package (shardcheck_harness): a .pth file puts
# tools/harness on the venv's path, so adapters import it with no path edits.
site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
printf '%s\n' "$here" > "$site/shardcheck_harness.pth"
"$venv/bin/python" -c "import shardcheck_harness" ||
  { echo "setup_venv: shardcheck_harness does not import from $venv" >&2; exit 1; }
"$venv/bin/python" -c "import torch, jax, jsonschema; print('setup_venv: torch', torch.__version__, 'jax', jax.__version__)"
curand=$("$venv/bin/python" -c "import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], 'cu13'))" 2>/dev/null || true)
if [ -n "$curand" ] && [ -f "$curand/include/curand.h" ]; then
  echo "setup_venv: cuRAND at $curand (configure --with-curand=$curand)"
else
  echo "setup_venv: warning: cuRAND headers not found under the venv" >&2
fi
