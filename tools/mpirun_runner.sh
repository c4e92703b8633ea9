#!/bin/sh
echo "mpirun_runner.sh: not written yet" >&2; exit 2
