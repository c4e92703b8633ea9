# zygote.sh — sourced by tools/test_job.sh and tools/main_job.sh: one torch zygote for the job
# (tools/harness/torch_zygote.py), so that each torch worker `shardcheck run --backend torch`
# starts, and each harness family, is a fork of a process that imported torch already instead
# of a fresh import (about 3 CPU-s each).
#   zygote_start PYTHON LOG   start it, export SHARDCHECK_TORCH_ZYGOTE (its socket) and
#                             OMP_NUM_THREADS=1 (the workers' own, which the zygote must share)
#   zygote_wait               until it serves (a job whose first worker starts at once)
#   zygote_stop               stop it (its log's last line: the workers it forked, their CPU-s)
# Without it everything runs as before, each worker importing torch itself: SHARDCHECK_ZYGOTE=0
# skips it.  The socket lives in a directory of its own under TMPDIR (a UNIX socket's path has
# at most 107 bytes, which a deep clone could pass).
#   zygote_run PYTHON SCRIPT ARG...   run a Python script as PYTHON would, forked from the zygote
#                             where one runs for that PYTHON (else, or where it refuses, by exec)
# A zygote that cannot import torch exits (its log says why) and every client then execs.
zygote_pid= zygote_dir=
ZYGOTE_SCRIPT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../harness" && pwd)/torch_zygote.py
export ZYGOTE_SCRIPT
zygote_start() {
  [ "${SHARDCHECK_ZYGOTE:-1}" != 0 ] && [ -x "$1" ] || return 0
  zygote_dir=$(mktemp -d "${TMPDIR:-/tmp}/shardcheck-zygote.XXXXXX") || return 0
  export OMP_NUM_THREADS=1
  "$1" "$ZYGOTE_SCRIPT" serve "$zygote_dir/sock" >"$2" 2>&1 &
  zygote_pid=$!
  export SHARDCHECK_TORCH_ZYGOTE="$zygote_dir/sock"
}
zygote_wait() { # until it serves (at most 120 s; a zygote that died is not waited for)
  local i=0
  [ -n "$zygote_pid" ] || return 0
  while [ $i -lt 1200 ] && [ ! -S "$zygote_dir/sock" ] && kill -0 "$zygote_pid" 2>/dev/null; do
    sleep 0.1; i=$((i + 1))
  done
}
zygote_stop() {
  [ -n "$zygote_pid" ] || return 0
  kill -TERM "$zygote_pid" 2>/dev/null; wait "$zygote_pid" 2>/dev/null
  rm -rf "$zygote_dir"; zygote_pid=; unset SHARDCHECK_TORCH_ZYGOTE
}
zygote_run() {
  local py=$1; shift
  if [ -n "${SHARDCHECK_TORCH_ZYGOTE:-}" ]; then
    "$py" -S -u "$ZYGOTE_SCRIPT" client "$SHARDCHECK_TORCH_ZYGOTE" "$@"
  else "$py" "$@"; fi
}
export -f zygote_run
