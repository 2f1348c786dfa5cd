#!/bin/bash
# Usage: mpi-lost-rank.sh MODE MPIRUN-COMMAND... PROGRAM
# Runs PROGRAM on 8 ranks (MPIRUN-COMMAND ends with the rank count and its
# flags) with rank 5 lost in the middle of a collective; `timeout` turns a
# hang into a failure, and no process of PROGRAM may outlive the job.
#   exit     rank 5 finalizes its world: the job exits 0 and each of the 7
#            survivors reported an error.
#   kill     rank 5 gets SIGKILL, under `--enable-recovery` (Open MPI keeps
#            the job alive): each of the 7 survivors reported an error naming
#            the call, left MPI unfinalized (precrtFinalize says why) and
#            exited non-zero. Open MPI 4.1's mpirun then exits 0
#            whatever its processes return, so each rank's status is printed
#            by a shell around it.
#   kill-no-recovery
#            rank 5 gets SIGKILL under mpirun's defaults: mpirun ends the job
#            itself, with a non-zero status.
# The job's output (the survivors' reports, and for the kills the noise that
# Open MPI makes on purpose: `Killed`, `rank status 137`, `PMIX ERROR`,
# `mpiexec noticed ... signal 9`) is captured and checked, and printed only
# when a check fails.
mode=$1
shift
program=${*: -1}
launcher=("${@:1:$#-1}")
case $mode in
exit)
  out=$(timeout 120 "${launcher[@]}" "$program" exit 2>&1)
  status=$? ;;
kill)
  # shellcheck disable=SC2016
  out=$(timeout 120 "${launcher[@]}" --enable-recovery sh -c \
        '"$0" kill; echo "rank status $?"' "$program" 2>&1)
  status=$? ;;
kill-no-recovery)
  out=$(timeout 120 "${launcher[@]}" "$program" kill 2>&1)
  status=$? ;;
*)
  echo "mpi-lost-rank.sh: unknown mode '$mode'" >&2
  exit 2 ;;
esac
fail() {
  echo "$out" >&2
  echo "mpi-lost-rank ($mode): $*" >&2
  exit 1
}
if pgrep -f "^$program " >/dev/null; then
  fail "processes of $program outlived the job"
fi
[ "$status" -ne 124 ] || fail "the job hung (killed after 120 s)"
reports=$(echo "$out" | grep -c ': reported after ')
case $mode in
exit)
  [ "$status" -eq 0 ] && [ "$reports" -eq 7 ] ||
    fail "exit status $status, $reports of 7 survivors reported" ;;
kill)
  named=$(echo "$out" |
          grep ': reported after .*all_reduce #' | grep -c 'rank 5')
  unfinalized=$(echo "$out" | grep -c \
    'precrtFinalize: MPI is left unfinalized: MPI_COMM_WORLD rank 5 stopped')
  failed=$(echo "$out" | grep -c '^rank status 3$')
  # The one rank killed: 128 + SIGKILL.
  killed=$(echo "$out" | grep -c '^rank status 137$')
  [ "$reports" -eq 7 ] && [ "$named" -eq 7 ] && [ "$unfinalized" -eq 7 ] &&
    [ "$failed" -eq 7 ] && [ "$killed" -eq 1 ] ||
    fail "$reports of 7 survivors reported, $named named rank 5 and the" \
         "all_reduce, $unfinalized left MPI unfinalized naming rank 5," \
         "$failed exited with status 3, $killed was killed" ;;
kill-no-recovery)
  [ "$status" -ne 0 ] || fail "the job exited 0 after losing a rank"
  echo "$out" | grep -q 'process rank 5 .*signal 9' ||
    fail "mpirun did not say that rank 5 was killed by signal 9" ;;
esac
exit 0
