#!/bin/sh
# Usage: mpi-lost-rank.sh MODE MPIRUN-COMMAND... PROGRAM
# Runs PROGRAM MODE on 8 ranks (MPIRUN-COMMAND ends with the rank-count
# flag) and passes when each of the 7 survivors reported an error. `timeout`
# turns a hang into a failure.
mode=$1
shift
out=$(timeout 120 "$@" "$mode")
status=$?
echo "$out"
reports=$(echo "$out" | grep -c ': reported after ')
if [ "$status" -ne 0 ] || [ "$reports" -ne 7 ]; then
  echo "mpi-lost-rank ($mode): exit status $status, $reports of 7 survivors reported" >&2
  exit 1
fi
