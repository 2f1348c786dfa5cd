#!/bin/bash
# An emulated cluster on one machine: N hosts, each a network namespace with
# its own hostname, linked to a switch (a bridge in a namespace of its own)
# by a veth pair rate-limited with htb in both directions. COMMAND runs in
# the switch's namespace with Open MPI configured to launch across the hosts,
# so `mpirun -np N*M ...` inside it puts M ranks on each host: shared memory
# inside a host, TCP over the rate-limited links between hosts.
# Everything the script creates is removed when it ends, also on failure or
# a signal. Needs root, `ip netns` and `unshare`. See docs/Runtime.md,
# "An emulated cluster".
#
# Usage: emulated-cluster.sh [OPTIONS] -- COMMAND [ARG...]
#        emulated-cluster.sh --check
#   --hosts N            hosts (default 2)
#   --ranks-per-host M   slots per host in the hostfile (default 2)
#   --rate RATE          each link's rate, a tc rate such as 1gbit, 10gbit,
#                        or `none` for no limit (default 1gbit)
#   --link-down H:S[:D]  take host H's link down S seconds (a decimal) after
#                        COMMAND starts, and up again D seconds later
#                        (default: it stays down until COMMAND ends)
#   --link-down-when FILE:REGEX
#                        count --link-down's S seconds from when a line of
#                        FILE (written by COMMAND) first matches REGEX
#   --check              create and remove one namespace; exit 0 when the
#                        cluster can be created here
# Exits with COMMAND's status (2 on a usage error, 3 when the cluster cannot
# be created). Inside COMMAND: OMPI_MCA_orte_default_hostfile,
# OMPI_MCA_plm_rsh_agent, OMPI_MCA_{oob,btl}_tcp_if_include are set, and
# PREC_CLUSTER_HOSTS lists the hosts' addresses.
set -u

hosts=2
ranks=2
rate=1gbit
link_down=
when=
usage() {
  sed -n '12,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case $1 in
  --hosts) hosts=${2:-}; shift 2 || usage ;;
  --ranks-per-host) ranks=${2:-}; shift 2 || usage ;;
  --rate) rate=${2:-}; shift 2 || usage ;;
  --link-down) link_down=${2:-}; shift 2 || usage ;;
  --link-down-when) when=${2:-}; shift 2 || usage ;;
  --check)
    probe=prec-cluster-probe-$$
    ip netns add "$probe" 2>/dev/null && ip netns delete "$probe" &&
      command -v unshare >/dev/null && command -v tc >/dev/null && exit 0
    echo "emulated-cluster: cannot create a network namespace here" \
         "(needs root, ip netns, unshare and tc)" >&2
    exit 3 ;;
  --) shift; break ;;
  *) echo "emulated-cluster: unknown option '$1'" >&2; usage ;;
  esac
done
[ $# -gt 0 ] || usage
case $hosts in ''|*[!0-9]*) usage ;; esac
case $ranks in ''|*[!0-9]*) usage ;; esac
[ "$hosts" -ge 1 ] && [ "$hosts" -le 250 ] && [ "$ranks" -ge 1 ] || usage
down_host= down_after= down_for=
if [ -n "$link_down" ]; then
  IFS=: read -r down_host down_after down_for <<<"$link_down"
  case $down_host in ''|*[!0-9]*) usage ;; esac
  [ "$down_host" -lt "$hosts" ] || usage
  [ -n "$down_after" ] || usage
fi
when_file=${when%%:*}
when_regex=${when#*:}
[ -z "$when" ] || { [ -n "$link_down" ] && [ "$when_file" != "$when" ]; } || usage

# Names carry the PID, so that concurrent runs never collide; the subnet is
# private to the run's namespaces (none of its addresses exists outside).
id=prec$$
subnet=10.213.0.0/24
switch_addr=10.213.0.254
switch=$id-switch
dir=$(mktemp -d "/tmp/$id-cluster.XXXXXX") || exit 3
namespaces=()
child=
downer=

cleanup() {
  # A second signal (Ctrl-C again) must not cut the removal short.
  trap "" INT TERM HUP
  trap - EXIT
  [ -n "$child" ] && kill "$child" 2>/dev/null
  [ -n "$downer" ] && kill "$downer" 2>/dev/null
  # Processes left in the run's namespaces (orted, ranks) are the run's own.
  for ns in "${namespaces[@]}"; do
    pids=$(ip netns pids "$ns" 2>/dev/null)
    [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
  done
  # Deleting a namespace deletes the veth ends and the bridge in it.
  for ns in "${namespaces[@]}"; do
    ip netns delete "$ns" 2>/dev/null
  done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

fail() {
  echo "emulated-cluster: $*" >&2
  exit 3
}

limit() { # NS DEV
  [ "$rate" = none ] && return 0
  ip netns exec "$1" tc qdisc add dev "$2" root handle 1: htb default 10 r2q 1000 &&
    ip netns exec "$1" tc class add dev "$2" parent 1: classid 1:10 htb \
      rate "$rate" ceil "$rate"
}

ip netns add "$switch" || fail "cannot create a network namespace (needs root)"
namespaces+=("$switch")
ip -n "$switch" link set lo up &&
  ip -n "$switch" link add br0 type bridge &&
  ip -n "$switch" addr add "$switch_addr/24" dev br0 &&
  ip -n "$switch" link set br0 up || fail "cannot create the switch"

: >"$dir/hostfile"
: >"$dir/hosts"
addresses=
for ((h = 0; h < hosts; h++)); do
  ns=$id-h$h
  addr=10.213.0.$((h + 1))
  ip netns add "$ns" || fail "cannot create namespace $ns"
  namespaces+=("$ns")
  ip -n "$ns" link set lo up &&
    ip -n "$switch" link add "h$h" type veth peer name eth0 netns "$ns" &&
    ip -n "$switch" link set "h$h" master br0 &&
    ip -n "$switch" link set "h$h" up &&
    ip -n "$ns" addr add "$addr/24" dev eth0 &&
    ip -n "$ns" link set eth0 up || fail "cannot link host $h"
  limit "$ns" eth0 && limit "$switch" "h$h" ||
    fail "cannot limit host $h's link to $rate"
  echo "$addr slots=$ranks" >>"$dir/hostfile"
  echo "$addr $ns $id-h$h" >>"$dir/hosts"
  addresses="$addresses${addresses:+ }$addr"
done

# Open MPI's launch agent: `agent [-x ...] HOST COMMAND...` runs COMMAND in
# HOST's namespace under HOST's own hostname.
cat >"$dir/agent" <<EOF
#!/bin/bash
while [ \$# -gt 0 ] && [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1; shift
while read -r addr ns name; do
  if [ "\$addr" = "\$host" ]; then
    exec ip netns exec "\$ns" unshare --uts /bin/sh -c \\
      'hostname "\$0" && exec /bin/sh -c "\$*"' "\$name" "\$@"
  fi
done <"$dir/hosts"
echo "emulated-cluster: unknown host '\$host'" >&2
exit 1
EOF
chmod +x "$dir/agent"

export OMPI_MCA_orte_default_hostfile=$dir/hostfile
export OMPI_MCA_plm_rsh_agent=$dir/agent
export OMPI_MCA_oob_tcp_if_include=$subnet
export OMPI_MCA_btl_tcp_if_include=$subnet
export PREC_CLUSTER_HOSTS=$addresses

ip netns exec "$switch" unshare --uts /bin/sh -c \
  'hostname "$0" && exec "$@"' "$id-switch" "$@" &
child=$!
if [ -n "$down_host" ]; then
  (
    if [ -n "$when" ]; then
      until grep -qE "$when_regex" "$when_file" 2>/dev/null; do sleep 0.1; done
    fi
    sleep "$down_after" && ip -n "$switch" link set "h$down_host" down &&
      echo "emulated-cluster: host $down_host's link is down at $(date +%s.%N)" >&2 &&
      [ -n "$down_for" ] && sleep "$down_for" &&
      ip -n "$switch" link set "h$down_host" up &&
      echo "emulated-cluster: host $down_host's link is up at $(date +%s.%N)" >&2
  ) &
  downer=$!
fi
wait "$child"
status=$?
child=
exit "$status"
