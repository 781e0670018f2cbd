# shellcheck shell=bash
# netmedic lab helpers: network namespaces as test hosts, veth pairs,
# bridges, multi-queue veths with XPS maps, qdiscs, bounded traffic.
#
# Source this file. Every namespace is named with the prefix "nm-" and
# recorded, so lab_down removes exactly what the lab created, even after a
# failure half-way. Addresses: 198.18.0.0/15 only, no default routes.

LAB_PREFIX=${LAB_PREFIX:-nm-}

lab_die() { echo "lab: $*" >&2; exit 1; }

lab_need_root() { [ "$(id -u)" = 0 ] || lab_die "must run as root"; }

# lab_ns NAME: create (or recreate) a namespace with lo up.
lab_ns() {
	local ns=$LAB_PREFIX$1
	ip netns del "$ns" 2>/dev/null
	ip netns add "$ns" || lab_die "cannot create netns $ns"
	ip -n "$ns" link set lo up
}

# lab_exec NAME CMD...: run CMD inside namespace NAME (sysfs of that netns).
lab_exec() { local ns=$LAB_PREFIX$1; shift; ip netns exec "$ns" "$@"; }

# lab_veth NS1 IF1 NS2 IF2 [QUEUES]: a veth pair between two namespaces.
lab_veth() {
	local q=${5:-1}
	ip link add "$2" numtxqueues "$q" numrxqueues "$q" netns "$LAB_PREFIX$1" type veth \
		peer name "$4" numtxqueues "$q" numrxqueues "$q" netns "$LAB_PREFIX$3" ||
		lab_die "cannot create veth $2/$4"
	ip -n "$LAB_PREFIX$1" link set "$2" up
	ip -n "$LAB_PREFIX$3" link set "$4" up
}

# lab_addr NS IF CIDR
lab_addr() {
	case $3 in 198.1[89].*) ;; *) lab_die "address $3 is outside 198.18.0.0/15" ;; esac
	ip -n "$LAB_PREFIX$1" addr add "$3" dev "$2" || lab_die "cannot add $3 to $2"
}

# lab_bridge NS BR IF...: a bridge enslaving the given interfaces.
lab_bridge() {
	local ns=$LAB_PREFIX$1 br=$2 i
	shift 2
	ip -n "$ns" link add "$br" type bridge || lab_die "cannot create bridge $br"
	for i in "$@"; do ip -n "$ns" link set "$i" master "$br"; done
	ip -n "$ns" link set "$br" up
}

# lab_xps NS IF QUEUE CPUMASK: the XPS CPU map of a TX queue (hex mask, 0 clears).
lab_xps() {
	lab_exec "$1" sh -c "echo $4 > /sys/class/net/$2/queues/tx-$3/xps_cpus" ||
		lab_die "cannot set XPS on $2 tx-$3"
}

# lab_xps_get NS IF QUEUE
lab_xps_get() { lab_exec "$1" cat "/sys/class/net/$2/queues/tx-$3/xps_cpus"; }

# lab_wait_ping NS ADDR: wait up to 5 s for ADDR to answer.
lab_wait_ping() {
	local i
	for i in $(seq 1 25); do
		lab_exec "$1" ping -c1 -W1 "$2" >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	lab_die "$2 does not answer from $1"
}

# lab_iperf SRV_NS SRV_ADDR CLI_NS SECONDS [iperf3 client args...]
# One bounded TCP flow; prints the client's JSON summary on stdout.
lab_iperf() {
	local srv=$1 addr=$2 cli=$3 secs=$4 spid rc slack=10 prev= a
	shift 4
	# the bound is for an iperf3 that hangs: 10 s past the run, and 1 s
	# more per 8 streams of -P, whose connects take seconds of their own
	# in a TCG guest (-P 128 in the 7.2 guest outran the 10 s)
	for a in "$@"; do
		[ "$prev" = -P ] && slack=$((slack + a / 8))
		prev=$a
	done
	lab_exec "$srv" timeout $((secs + slack + 5)) iperf3 -s -1 -B "$addr" >/dev/null 2>&1 &
	spid=$!
	sleep 0.3
	lab_exec "$cli" timeout $((secs + slack)) iperf3 -c "$addr" -t "$secs" -J "$@"
	rc=$?
	wait "$spid" 2>/dev/null
	return $rc
}

# lab_nstat NS COUNTER...: values of TCP extended counters (absolute, from /proc).
lab_nstat() {
	local ns=$1
	shift
	lab_exec "$ns" nstat -a -z "$@" 2>/dev/null | awk 'NR>1 && $1 !~ /^#/ {print $1, $2}'
}

# lab_down [SCENARIO]: delete the lab namespaces whose names start with
# $LAB_PREFIX$SCENARIO (every lab namespace without it), and with them
# every device in them. Scenarios pass their own prefix so that one
# scenario's teardown never removes another's hosts.
lab_down() {
	local ns
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		case $ns in "$LAB_PREFIX${1:-}"*) ip netns del "$ns" 2>/dev/null ;; esac
	done
	return 0
}
