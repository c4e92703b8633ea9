#!/bin/sh
# run_view.sh — the view-sharding family (issue 35) through the runner: the committed corpus on
# the ref and local backends (the ref backend also per torch release), and under mpirun at 2 and 4 ranks on the mpi backend (every rank's
# view computed by its own process: shc_family.compute_rank per rank); a corpus with one
# verdict and one output placement changed must fail on each backend, naming the test, so the
# passes above are not vacuous.  MPI parts skip with the reason when MPI is absent.
. "$(dirname "$0")/testlib.sh"
use_tmpdir
need_golden view-sharding
F=view-sharding
n=$(grep -ho '"numberOfTests": *[0-9]*' "$G/$F"/*.json | sed 's/.*: *//' \
  | awk '{s += $1} END {print s}')
"$S" registry --names families | grep -qx $F && tap_ok "the family is registered" \
  || tap_not_ok "the family is registered" "$("$S" registry --names families 2>&1 | head -c 300)"
expect_passes "ref backend, $F" "$S" run --backend ref --family $F --golden "$G"
out=$("$S" run --backend ref --family $F --golden "$G" 2>&1 | tail -n 1)
[ "$out" = "$n passed, 0 failed, 0 skipped" ] && tap_ok "ref backend ran every test ($n)" \
  || tap_not_ok "ref backend ran every test ($n)" "$out"
expect_passes "local backend, $F" "$S" run --backend local --family $F --golden "$G"
# each release's answers (byVersion): the reference computes 2.11's and 2.12's rule when the
# run names the release; 2.11 answers 752 tests otherwise than 2.13, so a reference that
# ignored the release would fail them here
for v in 2.11 2.12; do
  expect_passes "ref backend, $F, judged as torch $v" "$S" run --backend ref --family $F \
    --golden "$G" --torch-version $v
done

# The tampered corpus: tc 51 (reshape(3, 32) of [12, 8] S(0) on 2 ranks: the local op fails on
# rank 0) said correct, and tc 1's output placement said S(0) where torch's rule gives R.
mkdir -p "$tmp/g"
cp -r "$G/$F" "$tmp/g/"
sed -i -e 's/\("tcId":51,.*"verdict":\)"local-error"/\1"correct"/' \
  -e 's/\("tcId":1,.*"inputTarget":"R","output":\)"R"/\1"S(0)"/' "$tmp/g/$F/one-dim.json"
write_manifest "$tmp/g"
tampered() { # DESC CMD...: exit 1, both tampered tests failed by name, nothing else
  desc=$1; shift
  out=$("$@" 2>&1); rc=$?
  fails=$(printf '%s\n' "$out" | grep -E "^Fail +$F tc [0-9]+ " \
    | sed -E 's/^Fail +[^ ]+ tc ([0-9]+) .*/\1/' | sort -un | paste -sd, -)
  [ "$rc" -eq 1 ] && [ "$fails" = "1,51" ] && tap_ok "$desc" \
    || tap_not_ok "$desc" "exit $rc, failed tests: $fails" "$(printf '%s\n' "$out" | tail -n 4)"
}
tampered "ref backend fails the tampered tests" "$S" run --backend ref --family $F --golden "$tmp/g"
tampered "local backend fails the tampered tests" "$S" run --backend local --family $F \
  --golden "$tmp/g"

if ! have_mpi; then
  for np in 2 4; do tap_skip "mpi backend at $np ranks, $F" "mpirun not found"; done
elif ! have_mpi_build; then
  for np in 2 4; do tap_skip "mpi backend at $np ranks, $F" "shardcheck built without MPI"; done
else
  export OMPI_MCA_mpi_warn_on_fork=0
  [ "${SHARDCHECK_SANITIZED:-0}" = 1 ] \
    && export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  for np in 2 4; do
    expect_passes "mpi backend at $np ranks, $F" "$MPIRUN" --oversubscribe --allow-run-as-root \
      -np $np "$S" run --backend mpi --family $F --golden "$G" --timeout 60
  done
  tampered "mpi backend at 2 ranks fails the tampered tests" "$MPIRUN" --oversubscribe \
    --allow-run-as-root -np 2 "$S" run --backend mpi --family $F --golden "$tmp/g" --timeout 60
fi
tap_done
