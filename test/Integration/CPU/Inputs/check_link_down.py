"""Checks a job whose host lost its link mid-step (mpi-cluster-link-down.test).

Usage: check_link_down.py DIR RANKS TIMEOUT_MS

DIR holds `log` (the emulated cluster's and mpirun's output, with the times
the link went down and up), and for each rank r: `r<r>.log` (its stderr)
and `s<r>` (`status S at T`, written by a shell around it when it ended).
Every rank must have failed (status 1) with an error naming the collective
(`<op> #<n> (`) and a peer that failed (`rank <k>`), and ended while the
link was still down, within 4 timeouts plus 3 s of it going down (a rank
waits one timeout for a descriptor, or half of one for data and then up to
one more for the liveness check; the rest is slack for a loaded machine).
"""
import os
import re
import sys

directory, ranks, timeout_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
log = open(os.path.join(directory, "log")).read()
down = re.search(r"link is down at ([0-9.]+)", log)
up = re.search(r"link is up at ([0-9.]+)", log)
if not down or not up:
    sys.exit("check_link_down: the link did not go down and up:\n" + log)
down, up = float(down.group(1)), float(up.group(1))
limit = down + 4 * timeout_ms / 1000 + 3
failures = []
error = re.compile(r"prec-run: error: rank (\d+): step \d+: .*"
                   r"\b(all_reduce|reduce_scatter|all_gather|all_to_all|"
                   r"broadcast|send|recv) #\d+ \(")
for rank in range(ranks):
    path = os.path.join(directory, "s%d" % rank)
    if not os.path.exists(path):
        failures.append("rank %d: did not end (or was killed)" % rank)
        continue
    status = re.match(r"status (\d+) at ([0-9.]+)", open(path).read())
    code, end = int(status.group(1)), float(status.group(2))
    text = open(os.path.join(directory, "r%d.log" % rank)).read()
    lines = [l for l in text.splitlines() if l.startswith("prec-run: error:")]
    if code != 1:
        failures.append("rank %d: exit status %d, expected 1" % (rank, code))
    if len(lines) != 1 or not error.search(lines[0]) or \
            int(error.search(lines[0]).group(1)) != rank or \
            not re.search(r"\brank (?!%d\b)\d+" % rank, lines[0].split(": ", 3)[-1]):
        failures.append("rank %d: no error naming a collective and a peer:\n%s"
                        % (rank, text))
    if not down <= end <= min(limit, up):
        failures.append("rank %d: ended %.2f s after the link went down (up "
                        "again after %.2f s, limit %.2f s)"
                        % (rank, end - down, up - down, limit - down))
if failures:
    sys.exit("check_link_down:\n" + "\n".join(failures))
print("check_link_down: %d ranks reported the lost link within %.2f s"
      % (ranks, limit - down))
