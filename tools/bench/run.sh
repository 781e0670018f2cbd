#!/usr/bin/env bash
# make bench: what every netmedic CLI costs, beside what users would run
# instead (bpftrace), on the netns labs of tools/lab. Prints a table and
# writes docs/PERFORMANCE.md and docs/performance.png.
#
#   1. Per-event cost (bpf_stats: run_time_ns / run_cnt from each program's
#      fdinfo) of every hot-path program, with empty tp_btf programs and
#      empty bpftrace probes on the same hooks, and the bpftrace script a
#      user would write for the same question, all attached at once and fed
#      by the same lab traffic (median of NMB_REPS windows).
#   2. Throughput A/B/C/D: iperf3 over the xpsflap lab path with no tool (A),
#      all three CLIs attached (B), empty programs on the same hooks (C, the
#      floor) and no tool again (D, the VM's noise), in rotating order,
#      NMB_PAIRS rounds; CPU and RSS of the CLIs meanwhile.
#   3. Scale: tcpstall's sweep over idle established loopback sockets,
#      qdiscstuck's netlink sweep over NMB_QDISCS qdiscs, xpsflap with
#      NMB_FLOWS flows churning through its 65536-slot flow table.
#   4. Host-wide (hostwide): NMB_HW_NS namespaces, each a 4-queue veth
#      into a bridge netns with an mq root and its children, and each CLI
#      that takes a scope run with no --netns: CPU and wall time per
#      report, CPU, RSS and fds, beside the same run on the host alone.
#   5. Cost at a fixed load (load): iperf3 -b NMB_LOAD_RATE over the
#      xpsflap lab path, TSO off and on, in rotating rounds: no tool, each
#      CLI alone, the three CLIs, empty programs on their hooks and the
#      three bpftrace scripts; the host's CPU time from /proc/stat, as
#      extra CPU per GB and ns per packet over no tool.
#
# Run by `make bench` (NETMEDIC_BUILD = absolute build dir). Needs root.
# Every namespace it makes starts with LAB_PREFIX (default nmb-) and is
# removed at exit; kernel.bpf_stats_enabled is put back as found.
#
# Knobs (environment): NMB_REPS (3), NMB_SECS (4: seconds per traffic
# window), NMB_PAIRS (8: rounds of the throughput A/B/C/D), NMB_TSO_ROUNDS
# (6: rounds of A/B/D with TSO on), NMB_AB_SECS (8: seconds per iperf3
# run), NMB_SOCKS ("0 10000 50000"), NMB_QDISCS (1000),
# NMB_FLOWS (100000), NMB_HW_NS (200), NMB_LOAD_RATE (1G), NMB_LOAD_SECS
# (8), NMB_LOAD_ROUNDS (4), NMB_DOC (docs/PERFORMANCE.md; "-"
# writes no doc, and the plot into build/bench/out), NMB_PHASES ("cost ab
# scale hostwide load": the phases to run; a run of some of them prints
# their sections that stand alone, hostwide's and load's, into
# build/bench/out-partial,
# and writes no doc, whose tables need every phase).
set -u
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../tools.sh
. "$ROOT/tools/tools.sh"
BUILD=${NETMEDIC_BUILD:-$ROOT/build}
BB=$BUILD/bench
OUT=$BB/out
LAB=$ROOT/tools/lab
export LAB_PREFIX=${LAB_PREFIX:-nmb-}
export NETMEDIC_BUILD=$BUILD
export NETMEDIC_RUN_DIR=${NETMEDIC_RUN_DIR:-/run/netmedic-bench}
REPS=${NMB_REPS:-3}
SECS=${NMB_SECS:-4}
PAIRS=${NMB_PAIRS:-8}
TSO_ROUNDS=${NMB_TSO_ROUNDS:-6}
ABSECS=${NMB_AB_SECS:-8}
SOCKS=${NMB_SOCKS:-0 10000 50000}
NQDISCS=${NMB_QDISCS:-1000}
NFLOWS=${NMB_FLOWS:-100000}
HW_NS=${NMB_HW_NS:-200}
LOAD_RATE=${NMB_LOAD_RATE:-1G}
LOAD_SECS=${NMB_LOAD_SECS:-8}
LOAD_ROUNDS=${NMB_LOAD_ROUNDS:-4}
ALL_PHASES="cost ab scale hostwide load"
PHASES=${NMB_PHASES:-$ALL_PHASES}
DOC=${NMB_DOC:-$ROOT/docs/PERFORMANCE.md}
# the plot goes beside the doc (its link is relative); with no doc, into $OUT
if [ "$DOC" = - ]; then PNG=$OUT/performance.png; else PNG=$(dirname "$DOC")/performance.png; fi
CLK=$(getconf CLK_TCK)
T0=$(date +%s)

NS_SOCK=${LAB_PREFIX}sc-sock
NS_QD=${LAB_PREFIX}sc-qd
HW=${LAB_PREFIX}hw-	# the host-wide phase's namespaces: HW1.., HWbr

# want PHASE: PHASE is one of NMB_PHASES; all_phases: every phase is
want() { [[ " ${PHASES//,/ } " == *" $1 "* ]]; }
all_phases() { local p; for p in $ALL_PHASES; do want "$p" || return 1; done; }
for p in ${PHASES//,/ }; do
	[[ " $ALL_PHASES " == *" $p "* ]] || { echo "bench: NMB_PHASES: no phase '$p' (phases: $ALL_PHASES)" >&2; exit 1; }
done
# a run of some phases keeps a full run's raw data (NMB_REPORT_ONLY redoes its report)
all_phases || OUT=$BB/out-partial

die() { echo "bench: $*" >&2; exit 1; }
log() { echo "bench: [$(($(date +%s) - T0))s] $*" >&2; }

[ "$(id -u)" = 0 ] || die "must run as root"
for t in $(nm_tools) nm-tcp; do
	[ -x "$BUILD/$t" ] || die "$BUILD/$t is missing (make all)"
done

# ---- packages: tools/deps.txt, installed by make deps (make bench runs it) ----
command -v bpftrace >/dev/null && command -v gnuplot >/dev/null ||
	die "bpftrace or gnuplot is not installed (make deps: tools/deps.txt)"

# ---- cleanup: only what this run started or made ----
PIDS=""
STATS_OLD=""
TRACEFS_MOUNTED=""
cleanup() {
	local p
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	sleep 0.5
	for p in $PIDS; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	PIDS=""
	if [ -n "$STATS_OLD" ]; then
		sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"
		STATS_OLD=""
	fi
	"$LAB/xpsflap.sh" down >/dev/null 2>&1
	"$LAB/tcpstall.sh" down >/dev/null 2>&1
	"$LAB/qdiscstuck.sh" down >/dev/null 2>&1
	ip netns del "$NS_SOCK" 2>/dev/null
	ip netns del "$NS_QD" 2>/dev/null
	hw_down
	rmdir "$NETMEDIC_RUN_DIR" 2>/dev/null	# empty: no remedy is used
	if [ -n "$TRACEFS_MOUNTED" ]; then
		umount /sys/kernel/tracing 2>/dev/null
		TRACEFS_MOUNTED=""
	fi
	return 0
}
# hw_down: the host-wide phase's namespaces, each with its devices
hw_down() {
	ip netns list 2>/dev/null | awk -v p="$HW" 'index($1, p) == 1 {print "netns del " $1}' |
		ip -batch - 2>/dev/null
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# bpftrace finds tracepoints through tracefs, which a fresh machine of this
# kind does not mount (the CLIs need none: tp_btf and raw_tp); mounted for
# the run, unmounted at exit
if { want cost || want load; } && ! grep -q ' /sys/kernel/tracing tracefs ' /proc/mounts; then
	mount -t tracefs nodev /sys/kernel/tracing || die "cannot mount tracefs on /sys/kernel/tracing (bpftrace needs it)"
	TRACEFS_MOUNTED=1
fi

# start NAME CMD...: run CMD in the background, output in $OUT/NAME.out;
# its pid is in $LASTPID (and in PIDS, for cleanup).
start() {
	local name=$1
	shift
	"$@" >"$OUT/$name.out" 2>"$OUT/$name.err" &
	LASTPID=$!
	PIDS="$PIDS $LASTPID"
}
# stop PID...: SIGINT (the CLIs print and exit), then wait.
stop() {
	local p q
	for p in "$@"; do kill -INT "$p" 2>/dev/null; done
	for p in "$@"; do
		for q in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		PIDS=$(echo "$PIDS" | tr ' ' '\n' | grep -vx "$p" | tr '\n' ' ')
	done
	return 0
}
# wait_for FILE PATTERN PID: until FILE has PATTERN (15 s at most)
wait_for() {
	local i
	for i in $(seq 150); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || break
		sleep 0.1
	done
	echo "bench: $1 never showed '$2':" >&2
	tail -n 5 "$1" "${1%.out}.err" >&2
	return 1
}

# cpu_idle: "idle total" jiffies of all CPUs (idle and iowait count as idle)
cpu_idle() { awk '/^cpu / {print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9; exit}' /proc/stat; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
hwm_kb() { awk '/^VmHWM:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
now_s() { date +%s.%N; }
median() { sort -g | awk '{a[NR] = $1} END {if (!NR) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
fmt() { awk -v v="$1" -v d="${2:-0}" 'BEGIN {if (v == "nan" || v == "") print "n/a"; else printf "%.*f\n", d, v}'; }
pct() { awk -v v="$1" 'BEGIN {if (v == "nan" || v == "") print "n/a"; else printf "%.0f\n", 100 * v}'; }

# progs PID: "prog_id run_cnt run_time_ns" of every BPF program PID holds open
progs() {
	local f
	for f in /proc/"$1"/fd/*; do
		[ "$(readlink "$f" 2>/dev/null)" = anon_inode:bpf-prog ] || continue
		awk '/^prog_id:/ {i = $2} /^run_time_ns:/ {t = $2} /^run_cnt:/ {c = $2}
		     END {if (i) print i, c, t}' "/proc/$1/fdinfo/${f##*/}" 2>/dev/null
	done | sort -u
}
declare -A PNAME
prog_name() {
	[ -n "${PNAME[$1]:-}" ] || PNAME[$1]=$(bpftool prog show id "$1" -j 2>/dev/null | jq -r '.name // "?"')
	echo "${PNAME[$1]}"
}
# hook_of NAME: the kernel hook a program runs at
hook_of() {
	case $1 in
	e_ndq | xf_pick_tp | xf_pick_tp_read | ts_queue_tp | qs_queue_tp | *net_dev_queue*) echo net_dev_queue ;;
	e_xmit | xf_xmit_tp | *net_dev_start_xmit*) echo net_dev_start_xmit ;;
	e_tcp_probe | ts_rcv_tp | *tcp_probe*) echo tcp_probe ;;
	*net_dev_start_x*) echo net_dev_start_xmit ;;
	e_send_len | ts_send_len_tp) echo sock_send_length ;;
	e_recv_len | ts_recv_len_tp) echo sock_recv_length ;;
	e_kfree_skb | ts_drop_tp) echo kfree_skb ;;
	e_qdisc_deq | qs_dequeue_tp | *qdisc_dequeue*) echo qdisc_dequeue ;;
	e_qdisc_enq | qs_enqueue_tp | *qdisc_enqueue*) echo qdisc_enqueue ;;
	ts_state_tp) echo inet_sock_set_state ;;
	ts_sweep) echo iter/tcp ;;
	ts_sweep_tagged) echo iter/bpf_sk_storage_map ;;
	ts_sweep_fast) echo iter/tcp ;;
	*) echo other ;;
	esac
}
# snap FILE LABEL PID [LABEL PID]...: "label id cnt ns" for each program
snap() {
	local f=$1
	shift
	: >"$f"
	while [ $# -gt 1 ]; do
		progs "$2" | sed "s/^/$1 /" >>"$f"
		shift 2
	done
}
# delta PHASE REP BEFORE AFTER: append "phase rep label hook name events ns_per_event" to cost.tsv
delta() {
	local phase=$1 rep=$2 label id cnt ns name
	join -1 2 -2 2 <(sort -k2,2 "$3") <(sort -k2,2 "$4") |
		awk '{dc = $6 - $3; dt = $7 - $4; if (dc > 0) print $2, $1, dc, dt / dc}' |
		while read -r label id cnt ns; do
			name=$(prog_name "$id")
			echo "$phase $rep $label $(hook_of "$name") $name $cnt $ns"
		done >>"$OUT/cost.tsv"
}

# get PHASE LABEL HOOK [NAME]: median ns/event (getev: events) from cost-median.tsv
get() { awk -v p="$1" -v l="$2" -v h="$3" -v n="${4:-}" '$1 == p && $2 == l && $3 == h && (n == "" || $4 == n) {v = $6; exit} END {print (v == "" ? "nan" : v)}' "$OUT/cost-median.tsv"; }
getev() { awk -v p="$1" -v l="$2" -v h="$3" -v n="${4:-}" '$1 == p && $2 == l && $3 == h && (n == "" || $4 == n) {v = $5; exit} END {print (v == "" ? "nan" : v)}' "$OUT/cost-median.tsv"; }
REPORT_ONLY=${NMB_REPORT_ONLY:-0}	# 1: redo the report from the last run's $OUT
if [ "$REPORT_ONLY" != 1 ]; then
rm -rf "$OUT"
mkdir -p "$OUT" "$NETMEDIC_RUN_DIR"

# ---- helpers: empty programs and workload generators ----
log "building bench helpers into $BB"
for o in empty floor; do
	clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$BUILD" -c "$ROOT/tools/bench/$o.bpf.c" \
		-o "$BB/$o.bpf.o" || die "cannot build $o.bpf.o"
done
for h in nmb-load nmb-socks nmb-flows; do
	gcc -O2 -Wall -Wextra -o "$BB/$h" "$ROOT/tools/bench/$h.c" -lbpf || die "cannot build $h"
done

fi
KERNEL=$(uname -r)
NCPU=$(nproc)
CPUMODEL=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
MEM=$(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
BTV=$(bpftrace --version 2>/dev/null | awk '{print $2}')
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -n "$(git -C "$ROOT" status --porcelain -- src bpf include 2>/dev/null)" ] && REV="$REV+local changes"

# =====================================================================
# 1. Per-event cost, side by side
# =====================================================================
if [ "$REPORT_ONLY" != 1 ]; then
if want cost; then
STATS_OLD=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
: >"$OUT/cost.tsv"

# cost_phase PHASE CLI-CMD... -- TRAFFIC-CMD...: the CLI, the empty
# programs, empty bpftrace probes and src/PHASE/bench.bt attached at once; REPS
# traffic windows, a bpf_stats snapshot around each.
cost_phase() {
	local phase=$1 cli=() traffic=() r cpid epid bepid btpid
	shift
	while [ "$1" != -- ]; do cli+=("$1"); shift; done
	shift
	traffic=("$@")
	start "$phase-cli" "${cli[@]}"; cpid=$LASTPID
	start "$phase-empty" "$BB/nmb-load" "$BB/empty.bpf.o" 600; epid=$LASTPID
	start "$phase-btempty" bpftrace "$ROOT/tools/bench/empty.bt"; bepid=$LASTPID
	start "$phase-bt" bpftrace "$ROOT/src/$phase/bench.bt"; btpid=$LASTPID
	wait_for "$OUT/$phase-cli.out" '"type":"start"' $cpid &&
		wait_for "$OUT/$phase-empty.out" '^ready' $epid &&
		wait_for "$OUT/$phase-btempty.out" '^Attaching' $bepid &&
		wait_for "$OUT/$phase-bt.out" '^Attaching' $btpid || die "cost phase $phase: a program did not attach"
	sleep 1
	for r in $(seq "$REPS"); do
		snap "$OUT/snap0" netmedic $cpid empty_tp_btf $epid empty_bpftrace $bepid bpftrace $btpid
		"${traffic[@]}" >"$OUT/$phase-traffic-$r.out" 2>&1
		snap "$OUT/snap1" netmedic $cpid empty_tp_btf $epid empty_bpftrace $bepid bpftrace $btpid
		delta "$phase" "$r" "$OUT/snap0" "$OUT/snap1"
	done
	# names while the programs live (delta's cache is lost with its subshell)
	while read -r _ id _; do
		echo "$id $(prog_name "$id")"
	done <"$OUT/snap1" >"$OUT/$phase-names.txt"
	stop $btpid $bepid $epid $cpid
}

log "cost: xpsflap lab (iperf3 through the bridge and the 2-queue veth), $REPS x ${SECS}s"
"$LAB/xpsflap.sh" up >/dev/null || die "xpsflap lab up failed"
# no --netns: every netns, as --netns without --dev watched before the scope (#18)
cost_phase xpsflap "$BUILD/xpsflap" --json -i 1 -- \
	"$LAB/xpsflap.sh" traffic "$SECS"
"$LAB/xpsflap.sh" down
# the picks on one-queue devices (xs0, xsm), which xpsflap leaves after one
# load, and all its picks since it attached (its last snapshot's run_cnt)
{
	jq -s 'map(select(.type == "interval")) | last | .one_queue_picks // 0' "$OUT/xpsflap-cli.out"
	awk 'NR == FNR {n[$1] = $2; next} $1 == "netmedic" && n[$2] ~ /^xf_pick_tp/ {print $3}' \
		"$OUT/xpsflap-names.txt" "$OUT/snap1"
} | paste -sd ' ' >"$OUT/xf-onequeue.txt"

log "cost: tcpstall lab (ACK storm: quickack route, backlog_ack_defer 0), $REPS x ${SECS}s"
"$LAB/tcpstall.sh" up >/dev/null || die "tcpstall lab up failed"
cost_phase tcpstall "$BUILD/tcpstall" --netns ${LAB_PREFIX}ts-rcv --json -i 1 -- \
	"$LAB/tcpstall.sh" storm "$SECS"
"$LAB/tcpstall.sh" down

log "cost: qdiscstuck lab (busy, root replaced by a 20 Gbit/s tbf: iperf3), $REPS x ${SECS}s"
"$LAB/qdiscstuck.sh" up busy >/dev/null || die "qdiscstuck lab up failed"
# pfifo_fast sends by bypass while empty (no qdisc events); this kernel has no
# fq_codel/fq/sfq/prio: a tbf far above the path's rate enqueues and dequeues
# every packet without shaping it
ip netns exec ${LAB_PREFIX}qs-a tc qdisc replace dev qa root tbf rate 20gbit burst 1mb latency 50ms ||
	die "cannot set tbf on qa"
cost_phase qdiscstuck "$BUILD/qdiscstuck" --netns ${LAB_PREFIX}qs-a --json -i 1 -- \
	"$LAB/qdiscstuck.sh" traffic "$SECS"
"$LAB/qdiscstuck.sh" down

sysctl -qw kernel.bpf_stats_enabled="$STATS_OLD"
STATS_OLD=""

# medians over the windows: "phase label hook name events(median) ns(median)"
awk '{k = $1 " " $3 " " $4 " " $5; print k, $6, $7}' "$OUT/cost.tsv" | sort -k1,4 |
	awk '{k = $1 " " $2 " " $3 " " $4; if (k != p && p != "") print p; p = k} END {print p}' |
	while read -r ph lb hk nm; do
		ev=$(awk -v k="$ph $lb $hk $nm" '$1 " " $3 " " $4 " " $5 == k {print $6}' "$OUT/cost.tsv" | median)
		ns=$(awk -v k="$ph $lb $hk $nm" '$1 " " $3 " " $4 " " $5 == k {print $7}' "$OUT/cost.tsv" | median)
		echo "$ph $lb $hk $nm $ev $ns"
	done >"$OUT/cost-median.tsv"
fi

# =====================================================================
# 2. Throughput A/B, all three CLIs attached
# =====================================================================
if want ab; then
log "throughput A/B/C/D: $PAIRS rounds of four ${ABSECS}s iperf3 runs, in rotating order"
"$LAB/xpsflap.sh" up >/dev/null || die "xpsflap lab up failed"
ab_run() {	# ab_run ROUND A|B|C|D (A and D: no tool), into $AB_TSV (ROUND ARM Gbit/s)
	local gbps x t q c0x c0t c0q t0 t1 f s0 s1
	if [ "$2" = C ]; then
		start ab-floor "$BB/nmb-load" "$BB/floor.bpf.o" 600; f=$LASTPID
		wait_for "$OUT/ab-floor.out" '^ready' $f || die "A/B: the floor programs did not attach"
		sleep 0.5
	fi
	if [ "$2" = B ]; then
		start ab-xpsflap "$BUILD/xpsflap" --json -i 1; x=$LASTPID	# every netns
		start ab-tcpstall "$BUILD/tcpstall" --netns ${LAB_PREFIX}xf-snd --json -i 1; t=$LASTPID
		start ab-qdiscstuck "$BUILD/qdiscstuck" --netns ${LAB_PREFIX}xf-mid --json -i 1; q=$LASTPID
		wait_for "$OUT/ab-xpsflap.out" '"type":"start"' $x &&
			wait_for "$OUT/ab-tcpstall.out" '"type":"start"' $t &&
			wait_for "$OUT/ab-qdiscstuck.out" '"type":"start"' $q || die "A/B: a CLI did not start"
		sleep 0.5
		c0x=$(cpu_ticks $x) c0t=$(cpu_ticks $t) c0q=$(cpu_ticks $q)
	fi
	t0=$(now_s) s0=$(cpu_idle)
	gbps=$("$LAB/xpsflap.sh" traffic "$ABSECS" 2>/dev/null | jq -r '.end.sum_received.bits_per_second / 1e9' 2>/dev/null)
	t1=$(now_s) s1=$(cpu_idle)
	# how idle the CPUs were: a CPU-bound flow would leave none
	[ "$2" = A ] && echo "$s0 $s1" | awk '{print 100 * ($3 - $1) / ($4 - $2)}' >>"${AB_TSV%.tsv}-idle.txt"
	if [ "$2" = B ]; then
		awk -v w="$(awk -v a="$t1" -v b="$t0" 'BEGIN {print a - b}')" -v k="$CLK" -v a="$(($(cpu_ticks $x) - c0x))" \
			-v b="$(($(cpu_ticks $t) - c0t))" -v c="$(($(cpu_ticks $q) - c0q))" \
			-v ra="$(rss_kb $x)" -v rb="$(rss_kb $t)" -v rc="$(rss_kb $q)" 'BEGIN {
			print "xpsflap", 100 * a / k / w, ra; print "tcpstall", 100 * b / k / w, rb
			print "qdiscstuck", 100 * c / k / w, rc }' >>"${AB_TSV%.tsv}-clis.tsv"
		stop $x $t $q
	fi
	[ "$2" = C ] && stop $f
	echo "$1 $2 ${gbps:-nan}" >>"$AB_TSV"
}
# ab_rounds NAME ROUNDS ARM...: ROUNDS rounds of the arms into $OUT/NAME.tsv,
# the order rotating (A B C D, B C D A, ...) so that no arm always runs first
ab_rounds() {
	local n=$2 i j arms m
	AB_TSV=$OUT/$1.tsv
	: >"$AB_TSV"
	: >"${AB_TSV%.tsv}-idle.txt"
	: >"${AB_TSV%.tsv}-clis.tsv"
	shift 2
	arms=("$@")
	m=$#
	for i in $(seq "$n"); do
		for j in $(seq 0 $((m - 1))); do
			ab_run "$i" "${arms[(i - 1 + j) % m]}"
		done
	done
}
# D is a second run with no tool: D/A is what the ratios look like with no
# difference at all, this VM's noise.
ab_rounds ab "$PAIRS" A B C D
"$LAB/xpsflap.sh" down
# The same path with veth's default TSO on xqm: one event per GSO skb
# instead of one per segment, as on a NIC with TSO. No C arm, for time.
log "throughput with TSO on: $TSO_ROUNDS rounds of three ${ABSECS}s iperf3 runs (A B D)"
"$LAB/xpsflap.sh" up --tso on >/dev/null || die "xpsflap lab up --tso on failed"
ab_rounds abt "$TSO_ROUNDS" A B D
"$LAB/xpsflap.sh" down
AB_A=$(awk '$2 == "A" {print $3}' "$OUT/ab.tsv" | median)
AB_B=$(awk '$2 == "B" {print $3}' "$OUT/ab.tsv" | median)
AB_C=$(awk '$2 == "C" {print $3}' "$OUT/ab.tsv" | median)
# round_ratio VAR X Y [SET]: X/Y per round of $OUT/SET.tsv (ab) into $OUT/VAR.txt;
# VAR_RATIO (median), VAR_MIN, VAR_MAX
round_ratio() {
	local f=$OUT/$1.txt
	awk -v x="$2" -v y="$3" '{v[$1, $2] = $3; n = $1 > n ? $1 : n}
		END {for (i = 1; i <= n; i++) if (v[i, y] > 0 && v[i, x] != "") print v[i, x] / v[i, y]}' \
		"$OUT/${4:-ab}.tsv" >"$f"
	printf -v "$1_RATIO" '%s' "$(median <"$f")"
	printf -v "$1_MIN" '%s' "$(sort -g "$f" | head -1)"
	printf -v "$1_MAX" '%s' "$(sort -g "$f" | tail -1)"
}
round_ratio AB B A
round_ratio AC C A
round_ratio AD D A
round_ratio BC B C
round_ratio TB B A abt
round_ratio TD D A abt
TSO_A=$(awk '$2 == "A" {print $3}' "$OUT/abt.tsv" | median)
TSO_B=$(awk '$2 == "B" {print $3}' "$OUT/abt.tsv" | median)
AB_IDLE=$(median <"$OUT/ab-idle.txt")
TSO_IDLE=$(median <"$OUT/abt-idle.txt")
for t in $(nm_tools); do
	eval "LAB_CPU_$t=\$(awk -v t=$t '\$1 == t {print \$2}' \"\$OUT/ab-clis.tsv\" | median)"
	eval "LAB_RSS_$t=\$(awk -v t=$t '\$1 == t {print \$3}' \"\$OUT/ab-clis.tsv\" | median)"
done
fi

# =====================================================================
# 3. Scale
# =====================================================================
# measure_cli NAME SECONDS CMD...: run a CLI, skip its first report, then
# CPU% of one core, RSS, and its JSON interval records over SECONDS.
# Sets M_CPU M_RSS M_HWM M_FDS M_WALL and leaves its output in $OUT/NAME.out.
measure_cli() {
	local name=$1 secs=$2 p c0 t0 c1 t1
	shift 2
	start "$name" "$@"; p=$LASTPID
	wait_for "$OUT/$name.out" '"type":"interval"' $p || die "$name did not report"
	c0=$(cpu_ticks $p) t0=$(now_s)
	cp "$OUT/$name.out" "$OUT/$name.out0"
	sleep "$secs"
	c1=$(cpu_ticks $p) t1=$(now_s)
	cp "$OUT/$name.out" "$OUT/$name.out1"
	M_RSS=$(rss_kb $p) M_HWM=$(hwm_kb $p) M_FDS=$(ls "/proc/$p/fd" | wc -l)
	M_WALL=$(awk -v a="$t1" -v b="$t0" 'BEGIN {print a - b}')
	M_CPU=$(awk -v a=$((c1 - c0)) -v k="$CLK" -v w="$M_WALL" 'BEGIN {print 100 * a / k / w}')
	stop $p
}

if want scale; then
# --- tcpstall: idle established loopback sockets ---
ip netns del "$NS_SOCK" 2>/dev/null
ip netns add "$NS_SOCK" || die "cannot create $NS_SOCK"
ip -n "$NS_SOCK" link set lo up
ip -n "$NS_SOCK" addr add 198.18.3.1/32 dev lo
ip netns exec "$NS_SOCK" sysctl -qw net.ipv4.ip_local_port_range="1024 60999" net.core.somaxconn=4096 \
	net.ipv4.tcp_max_syn_backlog=4096
: >"$OUT/socks.tsv"
for n in $SOCKS; do
	log "scale: tcpstall sweep over $n established loopback connections ($((2 * n)) sockets)"
	# one process per 8000 connections: the hard limit of open files may be
	# low (20000 here) and root may not raise it
	sp="" left=$n k=0
	while [ "$left" -gt 0 ]; do
		m=$((left < 8000 ? left : 8000))
		start "socks-$n-$k" ip netns exec "$NS_SOCK" "$BB/nmb-socks" 198.18.3.1 "$m" 180 $((61000 + k))
		sp="$sp $LASTPID"
		wait_for "$OUT/socks-$n-$k.out" '^ready' $LASTPID || die "cannot open $n connections"
		left=$((left - m)) k=$((k + 1))
	done
	ESTAB=$(ip netns exec "$NS_SOCK" ss -Htn state established | wc -l)
	echo "$n $ESTAB" >>"$OUT/socks-estab.txt"
	# each fast-sweep rung this kernel loads, and none (a full sweep every time)
	for v in auto none; do
		ref=""
		[ "$v" = none ] && ref=ts_sweep_tagged,ts_sweep_fast
		measure_cli "ts-scale-$n-$v" 8 env NETMEDIC_REFUSE="$ref" "$BUILD/tcpstall" --netns "$NS_SOCK" --json -i 1
		f=$OUT/ts-scale-$n-$v
		rung=$(grep -m1 '"type":"start"' "$f.out" | jq -r '.hooks.fast_sweep')
		s0=$(grep '"type":"interval"' "$f.out0" | tail -1 | jq .sweeps)
		s1=$(grep '"type":"interval"' "$f.out1" | tail -1 | jq .sweeps)
		# the sweep count is read at report times: scale by the reports' own times
		i0=$(grep -c '"type":"interval"' "$f.out0")
		i1=$(grep -c '"type":"interval"' "$f.out1")
		awk -v n="$n" -v s=$((s1 - s0)) -v iv=$((i1 - i0)) -v cpu="$M_CPU" -v rss="$M_RSS" -v r="$rung" 'BEGIN {
			# sweeps per second from reports 1 s apart; CPU per sweep from CPU%
			sps = iv > 0 ? s / iv : 0
			period = sps > 0 ? 1000 / sps : 0
			persweep = sps > 0 ? cpu * 10 / sps : 0
			printf "%d %.1f %.2f %.1f %.2f %d %s\n", n, sps, period, cpu, persweep, rss, r }' >>"$OUT/socks.tsv"
	done
	[ -n "$sp" ] && stop $sp
	sleep 1
done
ip netns del "$NS_SOCK"

# --- qdiscstuck: NQDISCS qdiscs (veth ends with a pfifo root each) ---
log "scale: qdiscstuck netlink sweep over $NQDISCS qdiscs ($NQDISCS veth ends with a pfifo root)"
ip netns del "$NS_QD" 2>/dev/null
ip netns add "$NS_QD" || die "cannot create $NS_QD"
ip netns exec "$NS_QD" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
npairs=$(((NQDISCS + 1) / 2))
for i in $(seq "$npairs"); do echo "link add v$i type veth peer name w$i"; done >"$OUT/qd-links.batch"
for i in $(seq "$npairs"); do echo "link set v$i up"; echo "link set w$i up"; done >>"$OUT/qd-links.batch"
ip -n "$NS_QD" -batch "$OUT/qd-links.batch" || die "cannot create the veths"
for i in $(seq "$npairs"); do
	echo "qdisc replace dev v$i root pfifo limit 1000"
	echo "qdisc replace dev w$i root pfifo limit 1000"
done | head -n "$NQDISCS" >"$OUT/qd-tc.batch"
tc -n "$NS_QD" -batch "$OUT/qd-tc.batch" || die "cannot add the qdiscs"
QD_COUNT=$(tc -n "$NS_QD" qdisc show | grep -c '^qdisc pfifo')
measure_cli qd-scale-1 8 "$BUILD/qdiscstuck" --netns "$NS_QD" --json -i 1
QD1_CPU=$M_CPU QD1_RSS=$M_RSS
QD_SEEN=$(grep '"type":"interval"' "$OUT/qd-scale-1.out1" | tail -1 | jq .qdiscs)
measure_cli qd-scale-fast 5 "$BUILD/qdiscstuck" --netns "$NS_QD" --json -i 0.1
i0=$(grep -c '"type":"interval"' "$OUT/qd-scale-fast.out0")
i1=$(grep -c '"type":"interval"' "$OUT/qd-scale-fast.out1")
QDF_IV=$((i1 - i0)) QDF_CPU=$M_CPU QDF_RSS=$M_RSS
# CPU ms per sweep: CPU seconds over the window / sweeps in it
QD_MS=$(awk -v c="$M_CPU" -v w="$M_WALL" -v n="$QDF_IV" 'BEGIN {print (n > 0 ? c / 100 * w * 1000 / n : "nan")}')
# the same without qdiscs: the tool's fixed cost per report
ip netns del "$NS_QD"
ip netns add "$NS_QD"
measure_cli qd-scale-empty 5 "$BUILD/qdiscstuck" --netns "$NS_QD" --json -i 0.1
i0=$(grep -c '"type":"interval"' "$OUT/qd-scale-empty.out0")
i1=$(grep -c '"type":"interval"' "$OUT/qd-scale-empty.out1")
QD0_MS=$(awk -v c="$M_CPU" -v w="$M_WALL" -v n="$((i1 - i0))" 'BEGIN {print (n > 0 ? c / 100 * w * 1000 / n : "nan")}')
ip netns del "$NS_QD"

# --- xpsflap: NFLOWS UDP flows through the lab path, flow table of 65536 ---
log "scale: xpsflap with $NFLOWS flows churning through a flow table of 65536"
"$LAB/xpsflap.sh" up >/dev/null || die "xpsflap lab up failed"
start xf-scale "$BUILD/xpsflap" --netns ${LAB_PREFIX}xf-mid --dev xqm --max-flows 65536 --json -i 1
xp=$LASTPID
wait_for "$OUT/xf-scale.out" '"type":"interval"' $xp || die "xpsflap did not report"
XF_RSS0=$(rss_kb $xp) XF_C0=$(cpu_ticks $xp) XF_T0=$(now_s)
start xf-flows ip netns exec ${LAB_PREFIX}xf-snd "$BB/nmb-flows" 198.18.0.2 "$NFLOWS" 12
fp=$LASTPID
: >"$OUT/xf-rss.txt"
for i in $(seq 14); do
	sleep 1
	echo "$i $(rss_kb $xp)" >>"$OUT/xf-rss.txt"
done
wait $fp 2>/dev/null
PIDS=$(echo "$PIDS" | tr ' ' '\n' | grep -vx "$fp" | tr '\n' ' ')
XF_C1=$(cpu_ticks $xp) XF_T1=$(now_s)
XF_RSS1=$(rss_kb $xp) XF_HWM=$(hwm_kb $xp)
stop $xp
"$LAB/xpsflap.sh" down
XF_CPU=$(awk -v a=$((XF_C1 - XF_C0)) -v k="$CLK" -v w="$(awk -v a="$XF_T1" -v b="$XF_T0" 'BEGIN {print a - b}')" 'BEGIN {print 100 * a / k / w}')
XF_SENT=$(awk '{print $2}' "$OUT/xf-flows.out")
XF_ROUNDS=$(awk '{print $4}' "$OUT/xf-flows.out")
grep '"type":"interval"' "$OUT/xf-scale.out" >"$OUT/xf-intervals.json"
XF_EVICT=$(tail -1 "$OUT/xf-intervals.json" | jq .evictions)
XF_TRACKED=$(jq -s 'map(.flows_tracked) | max' "$OUT/xf-intervals.json")
XF_ACTIVE=$(jq -s 'map(.flows_active) | max' "$OUT/xf-intervals.json")
XF_RSS_MID=$(awk 'NR == 4 {print $2}' "$OUT/xf-rss.txt")
XF_RSS_END=$(awk 'NR == 13 {print $2}' "$OUT/xf-rss.txt")
XF_LINES=$(grep -c '"type":"flow"' "$OUT/xf-scale.out")
XF_JSON_MB=$(du -m "$OUT/xf-scale.out" | awk '{print $1}')
fi

# =====================================================================
# 4. Host-wide: HW_NS namespaces, the CLIs that take a scope
# =====================================================================
# hw_up N: N namespaces HW1..HWN, each a 4-queue veth (eI) up with an
# address, its peer (pI) in the bridge netns HWbr, and an mq root on eI
# with its four children (the default qdisc); ip and tc in batches
hw_up() {
	local n=$1 i
	hw_down
	{
		echo "netns add ${HW}br"
		for i in $(seq "$n"); do echo "netns add $HW$i"; done
	} | ip -batch - || return 1
	ip -n "${HW}br" link add br0 type bridge && ip -n "${HW}br" link set br0 up || return 1
	for i in $(seq "$n"); do
		echo "link add e$i numtxqueues 4 numrxqueues 4 netns $HW$i type veth peer name p$i netns ${HW}br"
	done | ip -batch - || return 1
	for i in $(seq "$n"); do echo "link set p$i master br0"; echo "link set p$i up"; done |
		ip -n "${HW}br" -batch - || return 1
	for i in $(seq "$n"); do
		printf 'link set lo up\nlink set e%d up\naddr add 198.19.%d.%d/16 dev e%d\n' \
			"$i" $((i / 250)) $((i % 250 + 1)) "$i" | ip -n "$HW$i" -batch - || return 1
		tc -n "$HW$i" qdisc add dev "e$i" root handle 1: mq || return 1
	done
}
# hw_measure TOOL SET: TOOL with no --netns, -i 1 for 8 s (CPU, RSS, fds,
# the namespaces it named) and -i 0.1 for 5 s (reports: CPU and wall time
# each); a line "TOOL SET ..." into $OUT/hw.tsv
hw_measure() {
	local t=$1 set=$2 cpu rss fds named iv ms wall
	measure_cli "hw-$t-$set" 8 "$BUILD/$t" --json -i 1
	cpu=$M_CPU rss=$M_RSS fds=$M_FDS
	named=$(grep '"type":"interval"' "$OUT/hw-$t-$set.out1" | tail -1 | jq -r '.netns_named // "n/a"')
	measure_cli "hw-$t-$set-fast" 5 "$BUILD/$t" --json -i 0.1
	iv=$(($(grep -c '"type":"interval"' "$OUT/hw-$t-$set-fast.out1") -
		$(grep -c '"type":"interval"' "$OUT/hw-$t-$set-fast.out0")))
	# CPU ms per report: CPU seconds over the window / reports in it;
	# wall ms per report: the window / reports (100 while a report takes less)
	ms=$(awk -v c="$M_CPU" -v w="$M_WALL" -v n="$iv" 'BEGIN {print (n > 0 ? c / 100 * w * 1000 / n : "nan")}')
	wall=$(awk -v w="$M_WALL" -v n="$iv" 'BEGIN {print (n > 0 ? w * 1000 / n : "nan")}')
	echo "$t $set $named $fds $cpu $rss $iv $ms $wall" >>"$OUT/hw.tsv"
}
if want hostwide; then
	ip netns add "${HW}a" && ip netns add "${HW}b" || die "cannot create ${HW}a, ${HW}b"
	HW_TOOLS=$(nm_scope_tools "$BUILD" "${HW}a" "${HW}b" | paste -sd ' ')
	hw_down
	[ -n "$HW_TOOLS" ] || die "host-wide: no CLI takes a scope (each refused --netns A --netns B)"
	: >"$OUT/hw.tsv"
	HW_BEFORE=$(ip netns list | wc -l)
	log "host-wide: $HW_TOOLS with no --netns, on the host alone ($HW_BEFORE named namespaces)"
	for t in $HW_TOOLS; do hw_measure "$t" alone; done
	log "host-wide: $HW_NS namespaces, each a 4-queue veth into a bridge netns and an mq root"
	t0=$(now_s)
	hw_up "$HW_NS" || die "cannot make the $HW_NS namespaces"
	HW_UP_S=$(awk -v a="$(now_s)" -v b="$t0" 'BEGIN {printf "%.1f", a - b}')
	HW_QDISCS=$(ip netns exec "${HW}1" tc qdisc show dev e1 | grep -c .)
	sleep 3	# the namespaces' first IPv6 packets (DAD, MLD) over
	for t in $HW_TOOLS; do hw_measure "$t" "ns$HW_NS"; done
	hw_down
fi

# =====================================================================
# 5. Cost at a fixed load: the host's CPU time at one offered rate
# =====================================================================
# idle_jiffies: the time all CPUs spent idle, in iowait or stolen by
# another guest, in ticks. A tickless kernel keeps idle time exact (it is
# measured when a CPU goes idle and wakes), while user, system and softirq
# are sampled at ticks: on this VM they missed most of a forwarded flow's
# softirq time (5 to 141 ticks for the same 3-s run). So the busy time is
# what is not idle: CPUs x wall time - idle.
idle_jiffies() { awk '/^cpu / {print $5 + $6 + $9; exit}' /proc/stat; }
# dev_counter NS DEV COUNTER: a device's statistics counter, read in its netns
dev_counter() { ip netns exec "$LAB_PREFIX$1" cat "/sys/class/net/$2/statistics/$3" 2>/dev/null || echo 0; }
# load_attach ARM: what ARM runs beside the flow, started and attached;
# its pids in LOAD_PIDS. N: nothing. A CLI's name: that CLI alone; C:
# every CLI; each as its unit runs it (every netns, --json), at -i 1. A:
# the agent with the three detectors, the same way. E:
# empty tp_btf programs on the hooks the CLIs attach (floor.bpf.o). T:
# each CLI's bpftrace script of section 1, at once.
load_attach() {
	local t p tools
	LOAD_PIDS=""
	case $1 in
	N) return 0 ;;
	C) mapfile -t tools < <(nm_tools); set -- "${tools[@]}" ;;
	A) set -- "${NETMEDIC_AGENT:-netmedic}" ;;
	E)
		start load-floor "$BB/nmb-load" "$BB/floor.bpf.o" 600; LOAD_PIDS=$LASTPID
		wait_for "$OUT/load-floor.out" '^ready' "$LASTPID" || die "load: the floor programs did not attach"
		return 0 ;;
	T)
		for t in $(nm_tools); do
			start "load-bt-$t" bpftrace "$ROOT/src/$t/bench.bt"; p=$LASTPID
			LOAD_PIDS="$LOAD_PIDS $p"
			wait_for "$OUT/load-bt-$t.out" '^Attaching' "$p" || die "load: src/$t/bench.bt did not attach"
		done
		return 0 ;;
	*) set -- "$1" ;;
	esac
	for t in "$@"; do
		start "load-$t" "$BUILD/$t" --json -i 1; p=$LASTPID
		LOAD_PIDS="$LOAD_PIDS $p"
		wait_for "$OUT/load-$t.out" '"type":"start"' "$p" || die "load: $t did not start"
	done
}
# load_run TSO ROUND ARM: one LOAD_SECS iperf3 run at LOAD_RATE with ARM
# attached (started before, stopped after the run): a line "TSO ROUND ARM
# busy_s wall_s bytes packets" into $OUT/load.tsv, the bytes and packets
# xqm sent (the forwarding device: with TSO off a packet is a segment,
# with TSO on a GSO skb, the unit the per-packet hooks fire on)
load_run() {
	local i0 i1 t0 t1 y0 y1 k0 k1
	load_attach "$3"
	sleep 1	# the CLIs' first sweeps and reports are not the load's
	y0=$(dev_counter xf-mid xqm tx_bytes) k0=$(dev_counter xf-mid xqm tx_packets)
	i0=$(idle_jiffies) t0=$(now_s)
	"$LAB/xpsflap.sh" traffic "$LOAD_SECS" -b "$LOAD_RATE" >/dev/null 2>&1 ||
		log "load: the iperf3 run of round $2, arm $3 (TSO $1) failed"
	i1=$(idle_jiffies) t1=$(now_s)
	y1=$(dev_counter xf-mid xqm tx_bytes) k1=$(dev_counter xf-mid xqm tx_packets)
	# shellcheck disable=SC2086 # a list of pids
	[ -z "$LOAD_PIDS" ] || stop $LOAD_PIDS
	awk -v tso="$1" -v r="$2" -v a="$3" -v i=$((i1 - i0)) -v k="$CLK" -v c="$NCPU" -v t0="$t0" \
		-v t1="$t1" -v y=$((y1 - y0)) -v n=$((k1 - k0)) \
		'BEGIN {print tso, r, a, c * (t1 - t0) - i / k, t1 - t0, y, n}' >>"$OUT/load.tsv"
}
LOAD_ARMS="N $(nm_tools | paste -sd ' ') C A E T"
if want load; then
	: >"$OUT/load.tsv"
	for tso in off on; do
		log "load: TSO $tso at xqm, iperf3 -b $LOAD_RATE for ${LOAD_SECS}s, $LOAD_ROUNDS rounds of arms $LOAD_ARMS, the order rotating"
		"$LAB/xpsflap.sh" up --tso "$tso" >/dev/null || die "xpsflap lab up --tso $tso failed"
		read -r -a arms <<<"$LOAD_ARMS"
		for i in $(seq "$LOAD_ROUNDS"); do
			for j in $(seq 0 $((${#arms[@]} - 1))); do
				load_run "$tso" "$i" "${arms[(i - 1 + j) % ${#arms[@]}]}"
			done
		done
		"$LAB/xpsflap.sh" down
	done
fi

RUN_S=$(($(date +%s) - T0))	# the measuring run's length, for a report redone later
declare -p RUN_S AB_A AB_B AB_C AB_RATIO AB_MIN AB_MAX AC_RATIO AC_MIN AC_MAX BC_RATIO AD_RATIO AD_MIN AD_MAX AB_IDLE \
	TB_RATIO TB_MIN TB_MAX TD_RATIO TD_MIN TD_MAX TSO_A TSO_B TSO_IDLE LAB_CPU_xpsflap LAB_RSS_xpsflap LAB_CPU_tcpstall \
	LAB_RSS_tcpstall LAB_CPU_qdiscstuck LAB_RSS_qdiscstuck QD_COUNT QD1_CPU QD1_RSS QD_SEEN QDF_IV \
	QDF_CPU QDF_RSS QD_MS QD0_MS npairs XF_RSS0 XF_RSS1 XF_HWM XF_CPU XF_SENT XF_ROUNDS XF_EVICT \
	XF_TRACKED XF_ACTIVE XF_RSS_MID XF_RSS_END XF_LINES XF_JSON_MB HW_TOOLS HW_BEFORE HW_UP_S HW_QDISCS \
	LOAD_RATE LOAD_SECS LOAD_ROUNDS REV DATE T0 >"$OUT/vars.sh" 2>/dev/null
else
	. "$OUT/vars.sh"
fi

# =====================================================================
# Report
# =====================================================================
# hw_report: the host-wide section (stands alone: a run of that phase only prints it)
hw_report() {
	cat <<EOF
### Host-wide: $HW_NS namespaces, every CLI that takes a scope

How: $HW_NS namespaces, each a veth with 4 TX queues (\`ip link add ... numtxqueues 4\`) up with an address
in 198.19.0.0/16, its peer in one bridge netns, and an \`mq\` root on it with its 4 children (the default
qdisc): $HW_QDISCS qdiscs a netns, made in $HW_UP_S s; no traffic. Each CLI that takes a scope
(\`--netns A --netns B\` accepted: $HW_TOOLS) runs with no \`--netns\`: \`--json -i 1\` for 8 s after its first
report (CPU from /proc/PID/stat, RSS from VmRSS, open fds, the namespaces its interval record says it
named), then \`--json -i 0.1\` for 5 s: the reports made, CPU ms per report (CPU time over the window /
reports) and wall ms per report (the window / reports: 100 while a report takes less than the
interval). The same runs on the host alone ($HW_BEFORE namespaces named in /run/netns, besides the
host's own) come first; the difference is what the $HW_NS namespaces cost.

| CLI | namespaces | named | fds | CPU % of one core (-i 1) | RSS MiB | reports in 5 s (-i 0.1) | CPU ms per report | wall ms per report |
|---|---|---:|---:|---:|---:|---:|---:|---:|
$(awk '{printf "| %s | %s | %s | %d | %.1f | %.1f | %d | %.2f | %.1f |\n", $1, ($2 == "alone" ? "host alone" : "+" substr($2, 3)),
	$3, $4, $5, $6 / 1024, $7, $8, $9}' "$OUT/hw.tsv")
EOF
}
# load_stats TSO ARM: over the rounds, the arm's figures beside no tool (N)
# of the same round, each as "median min max": Gbit/s, extra CPU ms per s,
# extra CPU ms per GB, extra ns per packet; nan where no round has them
load_stats() {
	awk -v tso="$1" -v arm="$2" '
		$1 == tso { busy[$2, $3] = $4; wall[$2, $3] = $5; by[$2, $3] = $6; pk[$2, $3] = $7; n = $2 > n ? $2 : n }
		function med(a, m,   i, j, t) {
			for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		}
		function out(a, m,   i, lo, hi) {
			if (!m) return "nan nan nan"
			lo = hi = a[1]
			for (i = 2; i <= m; i++) { lo = a[i] < lo ? a[i] : lo; hi = a[i] > hi ? a[i] : hi }
			return med(a, m) " " lo " " hi
		}
		END {
			for (r = 1; r <= n; r++) {
				if (!((r, arm) in busy) || !((r, "N") in busy) || by[r, arm] <= 0 || pk[r, arm] <= 0) continue
				m++
				# busy CPU seconds per second of the run, over N of the same round
				x = busy[r, arm] / wall[r, arm] - busy[r, "N"] / wall[r, "N"]
				g[m] = by[r, arm] * 8 / wall[r, arm] / 1e9
				e[m] = x * 1000
				c[m] = x * wall[r, arm] * 1000 / (by[r, arm] / 1e9)
				p[m] = x * wall[r, arm] * 1e9 / pk[r, arm]
			}
			print out(g, m), out(e, m), out(c, m), out(p, m)
		}' "$OUT/load.tsv"
}
# load_targets TSO: the agent's two targets, each with its figures and verdict
load_targets() {
	local a e t cheap=nan c name= arm
	a=$(load_stats "$1" A | awk '{print $7}')
	e=$(load_stats "$1" E | awk '{print $7}')
	t=$(load_stats "$1" T | awk '{print $7}')
	for arm in $(nm_tools); do
		c=$(load_stats "$1" "$arm" | awk '{print $7}')
		if [ -z "$name" ] || awk -v c="$c" -v m="$cheap" 'BEGIN {exit !(c != "nan" && (m == "nan" || c < m))}'; then
			cheap=$c name=$arm
		fi
	done
	awk -v a="$a" -v e="$e" -v t="$t" -v c="$cheap" -v n="$name" 'BEGIN {
		v1 = (a == "nan" || c == "nan") ? "not measured" : (a <= c ? "met" : "missed")
		printf "- Target 1, A no more than the cheapest CLI alone (%s): A %s ms per GB, %s %s: %s.\n", n,
			a == "nan" ? "n/a" : sprintf("%.1f", a), n, c == "nan" ? "n/a" : sprintf("%.1f", c), v1
		v2 = (a == "nan" || e == "nan" || t == "nan") ? "not measured" : \
			(t <= 0 ? "not readable (T costs nothing above N here)" : ((a - e) <= 0.2 * t ? "met" : "missed"))
		printf "- Target 2, A above E at most 0.2x T: A - E = %s ms per GB, 0.2x T = %s: %s.\n",
			(a == "nan" || e == "nan") ? "n/a" : sprintf("%.1f", a - e), t == "nan" ? "n/a" : sprintf("%.1f", 0.2 * t), v2
	}'
}
# load_report: the fixed-load section (stands alone: a run of that phase only prints it)
load_report() {
	local tso arm name
	cat <<EOF
## 4. Cost at a fixed load

How: the xpsflap lab path (one TCP flow, forwarded through the bridge and xqm's two queues), iperf3 at a
fixed offered rate below the path's capacity, \`-b $LOAD_RATE\` for ${LOAD_SECS} s, with TSO off at xqm (every segment
a packet) and on (veth's default: one GSO skb of up to 64 KiB). Each run has one arm attached, started
before and stopped after it: N no tool; each CLI alone; C the three; each as
its unit runs it (every network namespace, \`--json -i 1\`); E empty \`tp_btf\` programs on the hooks the
three attach, as many times (tools/bench/floor.bpf.c: the floor any tool on these hooks pays); T the
three bpftrace scripts of section 1 at once (what a user would run for the same questions). $LOAD_ROUNDS rounds
of the arms, the order rotating. The figure is the host's busy CPU time per second of the run (every
CPU's time that was not idle, iowait or stolen, from /proc/stat: a tickless kernel keeps those exact,
while its user, system and softirq times are sampled at ticks and, on this VM, missed most of the
flow's softirq time), minus that of the N run of the same round: everything the arm adds, in the
kernel's hooks and in its processes. Per GB: that
over the GB xqm sent; per packet: over the packets xqm sent (tx_packets: segments with TSO off, GSO
skbs with TSO on). Medians of the rounds, with their range (min to max); a figure below 0 is this VM's
noise (the arm cost less than the run to run spread). bpf_stats off.

A is the agent, \`netmedic --json -i 1\`: the three detectors in one process, one program on
net_dev_queue for the three. Its targets (issue #19), per TSO setting, on the medians of extra CPU per
GB: A at most the cheapest CLI alone; A's own work above E at most 0.2x T's above N (T's figure is
already above N).

EOF
	for tso in off on; do
		echo "**TSO $tso at xqm.**"
		echo
		echo "| arm | Gbit/s | extra CPU, ms per s | extra CPU per GB, ms | extra ns per packet |"
		echo "|---|---:|---:|---:|---:|"
		for arm in $(nm_tools) C A E T; do
			case $arm in
			C) name="C: the three CLIs" ;;
			A) name="A: the agent (netmedic)" ;;
			E) name="E: empty programs (floor)" ;;
			T) name="T: the three bpftrace scripts" ;;
			*) name="$arm alone" ;;
			esac
			load_stats "$tso" "$arm" | awk -v n="$name" '
				function f(v, d) { return v == "nan" ? "n/a" : sprintf("%.*f", d, v) }
				{ printf "| %s | %s | %s (%s to %s) | %s (%s to %s) | %s (%s to %s) |\n", n, f($1, 2),
					f($4, 1), f($5, 1), f($6, 1), f($7, 1), f($8, 1), f($9, 1), f($10, 0), f($11, 0), f($12, 0) }'
		done
		echo
		load_targets "$tso"
		echo
	done
	echo "The raw runs: \`build/bench/out/load.tsv\` (TSO, round, arm, busy CPU s, wall s, bytes, packets)."
}
if ! all_phases; then
	{
		echo "# netmedic bench: phases $PHASES only"
		echo
		echo "Kernel $KERNEL, $NCPU CPUs ($CPUMODEL), netmedic $REV, $(date -u '+%Y-%m-%d %H:%M UTC'). A run of every"
		echo "phase writes docs/PERFORMANCE.md; this one wrote no doc. Raw data in \`$OUT/\`."
		echo
		want hostwide && hw_report
		want load && load_report
		for p in cost ab scale; do
			want "$p" && echo "Phase $p ran; its sections need every phase (a full run prints them)."
		done
	} >"$OUT/report-partial.md"
	cat "$OUT/report-partial.md"
	log "phases $PHASES: no doc written"
	exit 0
fi
TARGET_NS=150
# share of xf_pick_tp's events on one-queue devices, and the estimated cost of
# the others: the one-queue events taken at the empty program's cost
read -r XF_ONEQ XF_PICKS <"$OUT/xf-onequeue.txt" || true
XF_ONEQ_SHARE=$(awk -v a="${XF_ONEQ:-0}" -v b="${XF_PICKS:-0}" 'BEGIN {print (b > 0 ? a / b : "nan")}')
# row HOOK-LABEL PHASE HOOK NETMEDIC-PROG: one row of the side-by-side table
ROWS=$OUT/rows.tsv
: >"$ROWS"
row() {
	local ph=$1 hk=$2 nm=$3 e b be bt ev net bnet
	ev=$(getev "$ph" netmedic "$hk" "$nm")
	b=$(get "$ph" netmedic "$hk" "$nm")
	e=$(get "$ph" empty_tp_btf "$hk")
	be=$(get "$ph" empty_bpftrace "$hk")
	bt=$(get "$ph" bpftrace "$hk")
	echo "$ph $hk $nm ${ev:-nan} ${e:-nan} ${b:-nan} ${be:-nan} ${bt:-nan}" >>"$ROWS"
}
row xpsflap net_dev_queue xf_pick_tp
row xpsflap net_dev_start_xmit xf_xmit_tp
row tcpstall net_dev_queue ts_queue_tp
row tcpstall tcp_probe ts_rcv_tp
row tcpstall sock_recv_length ts_recv_len_tp
row tcpstall kfree_skb ts_drop_tp
row tcpstall sock_send_length ts_send_len_tp
row qdiscstuck qdisc_dequeue qs_dequeue_tp
row qdiscstuck qdisc_enqueue qs_enqueue_tp
row qdiscstuck net_dev_queue qs_queue_tp

# per question: netmedic's programs that answer it vs the bpftrace script
# (per packet: the sum of the per-hook costs, weighted by events per packet)
qsum() {	# qsum PHASE LABEL HOOK...: sum over hooks of events*ns, and the events of the first hook
	local ph=$1 lb=$2 tot=0 ev1="" h ev ns
	shift 2
	for h in "$@"; do
		ev=$(getev "$ph" "$lb" "$h"); ns=$(get "$ph" "$lb" "$h")
		[ -z "$ev" ] && continue
		[ -z "$ev1" ] && ev1=$ev
		tot=$(awk -v t="$tot" -v e="$ev" -v n="$ns" 'BEGIN {print t + e * n}')
	done
	awk -v t="$tot" -v e="${ev1:-0}" 'BEGIN {print (e > 0 ? t / e : "nan")}'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "nan" || b == "nan" || b + 0 <= 0 || a == "" || b == "") print "nan"; else print a / b}'; }
sub0() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "nan" || b == "nan" || a == "" || b == "") print "nan"; else print a - b}'; }
verdict() { awk -v v="$1" -v t="$2" -v d="${3:-le}" 'BEGIN {if (v == "nan" || v == "") print "n/a";
	else if ((d == "le" && v <= t) || (d == "ge" && v >= t)) print "MET"; else print "MISSED"}'; }

# question rows: "question netmedic_ns bpftrace_ns netmedic_net bpftrace_net"
XQ_NM=$(get xpsflap netmedic net_dev_queue); XQ_BT=$(get xpsflap bpftrace net_dev_queue)
XQ_NME=$(get xpsflap empty_tp_btf net_dev_queue); XQ_BTE=$(get xpsflap empty_bpftrace net_dev_queue)
# xpsflap per packet: pick + xmit (one of each per segment, TSO is off on xqm)
XP_NM=$(qsum xpsflap netmedic net_dev_queue net_dev_start_xmit)
TQ_NM=$(qsum tcpstall netmedic net_dev_queue tcp_probe); TQ_BT=$(qsum tcpstall bpftrace net_dev_queue tcp_probe)
TQ_NME=$(qsum tcpstall empty_tp_btf net_dev_queue tcp_probe); TQ_BTE=$(qsum tcpstall empty_bpftrace net_dev_queue tcp_probe)
QQ_NM=$(qsum qdiscstuck netmedic qdisc_dequeue qdisc_enqueue); QQ_BT=$(qsum qdiscstuck bpftrace qdisc_dequeue qdisc_enqueue)
QQ_NME=$(qsum qdiscstuck empty_tp_btf qdisc_dequeue qdisc_enqueue); QQ_BTE=$(qsum qdiscstuck empty_bpftrace qdisc_dequeue qdisc_enqueue)

{
	echo "question bpftrace_probe netmedic_ns bpftrace_ns ratio netmedic_net bpftrace_net ratio_net"
	for q in "xpsflap_switches net_dev_queue $XQ_NM $XQ_BT $XQ_NME $XQ_BTE" \
		"xpsflap_all_programs net_dev_queue+start_xmit $XP_NM $XQ_BT $(sub0 "$XP_NM" "$(qsum xpsflap empty_tp_btf net_dev_queue net_dev_start_xmit)") $XQ_BTE" \
		"tcpstall_acks net_dev_queue+tcp_probe $TQ_NM $TQ_BT $TQ_NME $TQ_BTE" \
		"qdiscstuck_dequeue qdisc_dequeue+enqueue $QQ_NM $QQ_BT $QQ_NME $QQ_BTE"; do
		set -- $q
		if [ "$1" = xpsflap_all_programs ]; then
			nn=$5
		else
			nn=$(sub0 "$3" "$5")
		fi
		bn=$(sub0 "$4" "$6")
		echo "$1 $2 $3 $4 $(ratio "$3" "$4") $nn $bn $(ratio "$nn" "$bn")"
	done
} >"$OUT/questions.tsv"

# ---- the plot ----
awk '{printf "\"%s\\n%s\" %s %s %s %s\n", $1, $2, $5, $6, $7, $8}' "$ROWS" |
	sed 's/nan/0/g' >"$OUT/plot-cost.dat"
awk '{print $1, $2, $3}' "$OUT/ab.tsv" >"$OUT/plot-ab.dat"
gnuplot <<EOF 2>"$OUT/gnuplot.err" || log "gnuplot failed: $(cat "$OUT/gnuplot.err")"
set terminal pngcairo size 1400,620 font ",10" noenhanced
set output "$PNG"
set multiplot layout 1,2 title "netmedic make bench - kernel $KERNEL, $NCPU CPUs, $DATE"
set origin 0,0
set size 0.68,0.95
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set ylabel "ns per event (bpf_stats run_time_ns / run_cnt, median)"
set xtics rotate by -30 font ",8"
set key top left
set grid ytics
set title "Per-event cost: netmedic vs empty tp_btf vs bpftrace (same hooks, same traffic)"
plot "$OUT/plot-cost.dat" using 2:xtic(1) title "empty tp_btf", \
     "" using 3 title "netmedic", \
     "" using 4 title "empty bpftrace probe", \
     "" using 5 title "bpftrace script (same question)", \
     $TARGET_NS with lines lw 2 dt 2 lc rgb "red" title "target 150 ns"
set origin 0.68,0
set size 0.32,0.95
set style data linespoints
unset xtics
set xtics 1
set xlabel "round"
set ylabel "iperf3 Gbit/s (xpsflap lab)"
set title sprintf("Throughput: B/A %.3f (target >= 0.97), C/A %.3f", $AB_RATIO, $AC_RATIO)
set key bottom left
set yrange [0:*]
plot "< awk '\$2==\"A\"' $OUT/plot-ab.dat" using 1:3 pt 7 title "A: no tool", \
     "< awk '\$2==\"B\"' $OUT/plot-ab.dat" using 1:3 pt 5 title "B: three CLIs attached", \
     "< awk '\$2==\"C\"' $OUT/plot-ab.dat" using 1:3 pt 9 title "C: empty programs, same hooks", \
     "< awk '\$2==\"D\"' $OUT/plot-ab.dat" using 1:3 pt 6 title "D: no tool again (noise)"
unset multiplot
EOF

# ---- the table (stdout) and docs/PERFORMANCE.md ----
report() {
	local ph hk nm ev e b be bt
	cat <<EOF
# netmedic performance

Written by \`make bench\` (tools/bench/run.sh) on $DATE. Do not edit by hand: run \`make bench\` again.

**Machine:** kernel $KERNEL, $NCPU CPUs ($CPUMODEL), $MEM RAM, a noisy VM. netmedic $REV, bpftrace $BTV.
Figures are medians; ratios are steadier than absolute figures on this VM. Raw data of the run is in
\`build/bench/out/\`.

![per-event cost and throughput A/B](performance.png)

## Targets

| target | measured | verdict |
|---|---|---|
| xpsflap per-packet program at net_dev_queue <= $TARGET_NS ns/event | $(fmt "$XQ_NM") ns ($(fmt "$(sub0 "$XQ_NM" "$XQ_NME")") ns above the empty program); $(pct "$XF_ONEQ_SHARE") % of the events were on one-queue devices, left at once; on the others about $(fmt "$(awk -v a="$XQ_NM" -v e="$XQ_NME" -v s="$XF_ONEQ_SHARE" 'BEGIN {print (s == "nan" || s >= 1 ? "nan" : (a - s * e) / (1 - s))}')") ns | $(verdict "$XQ_NM" $TARGET_NS) |
| xpsflap per-packet program at net_dev_start_xmit <= $TARGET_NS ns/event | $(fmt "$(get xpsflap netmedic net_dev_start_xmit)") ns ($(fmt "$(sub0 "$(get xpsflap netmedic net_dev_start_xmit)" "$(get xpsflap empty_tp_btf net_dev_start_xmit)")") ns above empty) | $(verdict "$(get xpsflap netmedic net_dev_start_xmit)" $TARGET_NS) |
| tcpstall per-packet program at net_dev_queue <= $TARGET_NS ns/event | $(fmt "$(get tcpstall netmedic net_dev_queue)") ns ($(fmt "$(sub0 "$(get tcpstall netmedic net_dev_queue)" "$(get tcpstall empty_tp_btf net_dev_queue)")") ns above empty) | $(verdict "$(get tcpstall netmedic net_dev_queue)" $TARGET_NS) |
| tcpstall per-packet program at tcp_probe <= $TARGET_NS ns/event | $(fmt "$(get tcpstall netmedic tcp_probe)") ns ($(fmt "$(sub0 "$(get tcpstall netmedic tcp_probe)" "$(get tcpstall empty_tp_btf tcp_probe)")") ns above empty) | $(verdict "$(get tcpstall netmedic tcp_probe)" $TARGET_NS) |
EOF
	while read -r q p a b r an bn rn; do
		# all of xpsflap's programs answer more than the bpftrace script
		# does (reordering): section 1 shows it, it is not a target
		[ "$q" = question ] || [ "$q" = xpsflap_all_programs ] && continue
		echo "| $q: netmedic <= 0.3x bpftrace per event ($p) | $(fmt "$r" 2)x ($(fmt "$a") vs $(fmt "$b") ns); net of empty programs $(fmt "$rn" 2)x | $(verdict "$r" 0.3) (net: $(verdict "$rn" 0.3)) |"
	done <"$OUT/questions.tsv"
	cat <<EOF
| iperf3 throughput with all three CLIs >= 0.97 of without | $(fmt "$AB_RATIO" 3) (rounds $(fmt "$AB_MIN" 3)-$(fmt "$AB_MAX" 3)); empty programs on the same hooks alone (C/A): $(fmt "$AC_RATIO" 3); no tool at all (D/A, this VM's noise): $(fmt "$AD_RATIO" 3) (rounds $(fmt "$AD_MIN" 3)-$(fmt "$AD_MAX" 3)) | $(verdict "$AB_RATIO" 0.97 ge) |
| the same, TSO on at xqm (veth's default; one event per GSO skb, as with a NIC's TSO) | $(fmt "$TB_RATIO" 3) (rounds $(fmt "$TB_MIN" 3)-$(fmt "$TB_MAX" 3)); no tool at all (D/A): $(fmt "$TD_RATIO" 3) (rounds $(fmt "$TD_MIN" 3)-$(fmt "$TD_MAX" 3)) | $(verdict "$TB_RATIO" 0.97 ge) |

A verdict is on the raw bpf_stats figure, which includes what the kernel spends calling a program with stats
on (the empty program's figure); the figure "above empty" is the program's own work. Where a target is
MISSED, the row says by how much: measured vs target.

## 1. Per-event cost, side by side

How: \`kernel.bpf_stats_enabled=1\` for this section only (restored to $(fmt "$(sysctl -n kernel.bpf_stats_enabled)") after).
For each CLI, one lab, and attached at once to the same hooks: the CLI (\`--json -i 1\`, every device),
empty \`tp_btf\` programs (tools/bench/empty.bpf.c, loaded by tools/bench/nmb-load.c), empty bpftrace
probes (tools/bench/empty.bt, perf-event tracepoints) and the bpftrace script a user would write for the
same question (src/NAME/bench.bt). $REPS traffic windows of ${SECS} s each; around each window every
program's \`run_time_ns\` and \`run_cnt\` are read from \`/proc/PID/fdinfo\` of the process that holds it;
ns/event = delta run_time_ns / delta run_cnt, median of the windows. Events are the median count per window
(every process's packets on the host fire these hooks, not only the lab's).

- xpsflap lab: iperf3 from nmb-xf-snd through a bridge onto the 2-queue veth xqm (XPS on, TSO off).
- tcpstall lab: nm-tcp ACK storm (quickack route, tcp_backlog_ack_defer=0, reader page-faulting while it owns
  the socket); tcpstall in the receiver's netns.
- qdiscstuck lab: iperf3 through qa, whose pfifo_fast root (the busy control) is replaced by a tbf at
  20 Gbit/s (far above the path's rate, so not shaping): an empty pfifo_fast sends by bypass, without qdisc
  events, and this kernel has no fq_codel, fq, sfq or prio.

| CLI | hook | netmedic program | events/window | empty tp_btf ns | netmedic ns | empty bpftrace ns | bpftrace script ns |
|---|---|---|---:|---:|---:|---:|---:|
EOF
	while read -r ph hk nm ev e b be bt; do
		echo "| $ph | $hk | $nm | $(fmt "$ev") | $(fmt "$e") | $(fmt "$b") | $(fmt "$be") | $(fmt "$bt") |"
	done <"$ROWS"
	cat <<EOF

Per question (netmedic's programs that answer it vs the bpftrace script; for two hooks, the cost per event
of the first hook with the second's events added, weighted by their counts):

| question | hooks | netmedic ns | bpftrace ns | ratio | netmedic above empty | bpftrace above empty | ratio above empty |
|---|---|---:|---:|---:|---:|---:|---:|
EOF
	while read -r q p a b r an bn rn; do
		[ "$q" = question ] && continue
		echo "| $q | $p | $(fmt "$a") | $(fmt "$b") | $(fmt "$r" 2) | $(fmt "$an") | $(fmt "$bn") | $(fmt "$rn" 2) |"
	done <"$OUT/questions.tsv"
	cat <<EOF

xpsflap leaves a device with one TX queue after one load (it cannot flap there): in the xpsflap lab, xs0
(the data's first hop) and xsm (the ACKs' last), $(pct "$XF_ONEQ_SHARE") % of xf_pick_tp's events here. Its
figures are over all events, as the bpftrace script's, which tracks every device as a user's script would.

\`xpsflap_all_programs\` is all the time xpsflap's two programs spent (the pick at net_dev_queue and the
reordering check at net_dev_start_xmit, which the bpftrace script has no equivalent of) divided by the
net_dev_queue events: the ratio is then netmedic's total time over bpftrace's total time for the same traffic.
net_dev_queue fires once per skb (a GSO skb on this path: TSO is on at the sender), net_dev_start_xmit once
per segment (TSO is off on xqm), so there are many more xmit events than queue events. bpftrace's
probes are perf-event tracepoints: the kernel first builds the trace record (net_dev_queue copies the device
name, for one) and bpf_stats does not count that; tp_btf programs get the raw arguments. So the bpftrace
figures here are a lower bound of what bpftrace costs per event. The CLI is started first, so on every
event its program runs first of all on the tracepoint and takes the cache misses on the skb and the device
that the programs after it find warm: with two builds of one CLI attached at once, the one attached first
measured 20-40 ns more per event than the other. That is the position of a tool alone on the hook, and the
least favourable to netmedic here.

CPU time, from the same windows: each CLI's programs' run time per second of its lab's traffic (events x
ns/event, summed over its programs, iterators and samplers included), the share of one CPU, and what the
empty programs cost for the same events (the part any tool on these hooks pays). bpf_stats is on, so
both include its clock reads. They do not hang on one flow's timing, as the throughput A/B below does.

| CLI | programs' time, ms per s | % of one CPU | empty programs for the same events, ms per s |
|---|---:|---:|---:|
EOF
	for ph in $(nm_tools); do
		awk -v ph="$ph" -v secs="$SECS" '
			$1 == ph && $2 == "empty_tp_btf" {empty[$3] = $6}
			$1 == ph && $2 == "netmedic" {n++; hook[n] = $3; ev[n] = $5; ns[n] = $6}
			END {
				for (i = 1; i <= n; i++) {
					t += ev[i] * ns[i]
					if (hook[i] in empty) e += ev[i] * empty[hook[i]]
				}
				printf "| %s | %.1f | %.1f | %.1f |\n", ph, t / secs / 1e6, t / secs / 1e7, e / secs / 1e6
			}' "$OUT/cost-median.tsv"
	done
	cat <<EOF

## 2. Throughput A/B

How: the xpsflap lab; \`tools/lab/xpsflap.sh traffic $ABSECS\` (iperf3, one TCP flow, forwarded through the bridge
and xqm) with no tool (A), with xpsflap (every device), tcpstall (sender's netns, 10 ms sweep) and
qdiscstuck (every device), each \`--json -i 1\`, started before and stopped after the run (B), and with
empty \`tp_btf\` programs on the tracepoints the three CLIs attach here, as many times as they attach them
(C: tools/bench/floor.bpf.c; net_dev_queue three times), and once more with no tool (D). C is the floor:
what any tool observing these hooks costs before it does any work. D/A is a ratio with no difference
behind it: how far this VM alone moves a ratio. $PAIRS rounds of the four runs, the order rotating (A B C
D, B C D A, ...); each ratio is taken within a round, then the median of the rounds. bpf_stats off.

| round | A: no tool Gbit/s | B: three CLIs Gbit/s | C: empty programs Gbit/s | D: no tool Gbit/s | B/A | C/A | D/A |
|---:|---:|---:|---:|---:|---:|---:|---:|
EOF
	awk '{v[$1, $2] = $3; n = $1 > n ? $1 : n} END {for (i = 1; i <= n; i++) if (v[i, "A"] > 0)
		printf "| %d | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f | %.3f |\n", i, v[i, "A"], v[i, "B"], v[i, "C"],
			v[i, "D"], v[i, "B"] / v[i, "A"], v[i, "C"] / v[i, "A"], v[i, "D"] / v[i, "A"]}' "$OUT/ab.tsv"
	cat <<EOF

Medians: A $(fmt "$AB_A" 2), B $(fmt "$AB_B" 2), C $(fmt "$AB_C" 2) Gbit/s. Median of the round ratios: **B/A $(fmt "$AB_RATIO" 3)**
(rounds $(fmt "$AB_MIN" 3)-$(fmt "$AB_MAX" 3)), **C/A $(fmt "$AC_RATIO" 3)** (rounds $(fmt "$AC_MIN" 3)-$(fmt "$AC_MAX" 3)), B/C $(fmt "$BC_RATIO" 3),
**D/A $(fmt "$AD_RATIO" 3)** (rounds $(fmt "$AD_MIN" 3)-$(fmt "$AD_MAX" 3)). C/A is the part of the CLIs' cost paid for calling programs on
these hooks at all, B/C the CLIs' own work above it; a ratio inside D/A's range of rounds cannot be told
from no difference by this run.

The CPUs were $(fmt "${AB_IDLE:-nan}" 0) % idle during the A runs (median, /proc/stat). While they have idle time, the
flow is not CPU-bound: its throughput is set by the serial path each segment takes, so every nanosecond
added per segment (net_dev_start_xmit and tcp_probe fire once per segment) shows in it, more than the CPU
time the programs take. Read the rounds and D/A, not one ratio.

**With TSO on.** The lab turns TSO off on xqm so that xpsflap's tests see every segment on the two
queues; that is the worst case for per-packet programs. \`tools/lab/xpsflap.sh up --tso on\` keeps veth's
default instead: the GSO skb leaves xqm whole, so net_dev_start_xmit and the receiver's tcp_probe fire once
per skb of up to 64 KiB, as with a NIC that segments. $TSO_ROUNDS rounds of A, B and D, the order rotating:

| round | A: no tool Gbit/s | B: three CLIs Gbit/s | D: no tool Gbit/s | B/A | D/A |
|---:|---:|---:|---:|---:|---:|
$(awk '{v[$1, $2] = $3; n = $1 > n ? $1 : n} END {for (i = 1; i <= n; i++) if (v[i, "A"] > 0)
	printf "| %d | %.2f | %.2f | %.2f | %.3f | %.3f |\n", i, v[i, "A"], v[i, "B"], v[i, "D"],
		v[i, "B"] / v[i, "A"], v[i, "D"] / v[i, "A"]}' "$OUT/abt.tsv")

Medians: A $(fmt "$TSO_A" 2), B $(fmt "$TSO_B" 2) Gbit/s; **B/A $(fmt "$TB_RATIO" 3)** (rounds $(fmt "$TB_MIN" 3)-$(fmt "$TB_MAX" 3)),
**D/A $(fmt "$TD_RATIO" 3)** (rounds $(fmt "$TD_MIN" 3)-$(fmt "$TD_MAX" 3)); the CPUs were $(fmt "${TSO_IDLE:-nan}" 0) % idle during the A runs.

CPU of the CLIs during the B runs (utime+stime from /proc/PID/stat over the iperf3 run, % of one core) and
RSS at its end (VmRSS), medians over the $PAIRS B runs. /proc/PID/stat counts in ticks of 1/$CLK s: over a
${ABSECS} s run, 0.0 means less than one tick (< $(awk -v k="$CLK" -v s="$ABSECS" 'BEGIN {printf "%.1f", 100 / k / s}') %).
xpsflap's and tcpstall's RSS include their flow tables, BPF arrays they map read-only to read in place
(65536 slots each by default: 16 MiB for xpsflap, 11 MiB for tcpstall). That memory is the map's, allocated
by the kernel when the map is made, whether or not a process maps it.

| CLI | CPU % of one core | RSS MiB |
|---|---:|---:|
| xpsflap | $(fmt "$LAB_CPU_xpsflap" 1) | $(awk -v r="$LAB_RSS_xpsflap" 'BEGIN {printf "%.1f", r / 1024}') |
| tcpstall | $(fmt "$LAB_CPU_tcpstall" 1) | $(awk -v r="$LAB_RSS_tcpstall" 'BEGIN {printf "%.1f", r / 1024}') |
| qdiscstuck | $(fmt "$LAB_CPU_qdiscstuck" 1) | $(awk -v r="$LAB_RSS_qdiscstuck" 'BEGIN {printf "%.1f", r / 1024}') |

## 3. Scale

### tcpstall: sweep over established loopback sockets

How: tools/bench/nmb-socks.c opens N idle established connections over 198.18.3.1 on lo in a netns
(2N sockets, both ends); \`tcpstall --netns ... --json -i 1\` with the default 10 ms sweep; after its first
report, 8 s measured: sweeps per second from the JSON \`sweeps\` counter, CPU from /proc/PID/stat,
RSS from VmRSS. CPU per sweep = CPU time / sweeps. Idle connections never send, so they are not tagged,
and the fast sweeps (every 10 ms) sample none of them; the full sweep (iter/tcp, once a second) samples
them all. Each row is one fast-sweep rung: the one this kernel chose (\`iter/bpf_sk_storage_map\` walks
the tagged sockets only; \`iter/tcp\`, where map iterators are refused, walks every socket and looks up
its tag), and \`none\` (NETMEDIC_REFUSE of both rungs: every sweep is a full one). A host whose sockets
all send keeps them tagged, and every fast sweep then samples them all.

| connections (sockets) | fast sweep rung | sweeps/s | sweep period ms | CPU % of one core | CPU ms per sweep | RSS MiB |
|---:|---|---:|---:|---:|---:|---:|
EOF
	awk '{printf "| %d (%d) | %s | %.1f | %.2f | %.1f | %.2f | %.1f |\n", $1, 2 * $1, $7, $2, $3, $4, $5, $6 / 1024}' "$OUT/socks.tsv"
	cat <<EOF

### qdiscstuck: netlink sweep over $NQDISCS qdiscs

How: $npairs veth pairs in one netns ($QD_COUNT pfifo roots, the veths up, no traffic); this kernel has no
dummy module. \`qdiscstuck --netns ... --json\`; qdiscs reported by the tool: $QD_SEEN.

| run | figure |
|---|---|
| -i 1 (default), 8 s: CPU % of one core | $(fmt "$QD1_CPU" 1) |
| -i 1: RSS MiB | $(awk -v r="$QD1_RSS" 'BEGIN {printf "%.1f", r / 1024}') |
| -i 0.1, 5 s: reports | $QDF_IV |
| -i 0.1: CPU ms per sweep (report) with $QD_COUNT qdiscs | $(fmt "$QD_MS" 2) |
| -i 0.1: CPU ms per sweep in an empty netns | $(fmt "$QD0_MS" 2) |

### xpsflap: $NFLOWS flows through a flow table of 65536

How: the xpsflap lab; tools/bench/nmb-flows.c sends 1-byte UDP datagrams from nmb-xf-snd over $NFLOWS
distinct 5-tuples, round after round, for 12 s ($XF_SENT datagrams, $XF_ROUNDS full rounds);
\`xpsflap --dev xqm --max-flows 65536 --json -i 1\`; RSS sampled every second.

| figure | value |
|---|---|
| flows tracked (max over reports) | $XF_TRACKED of 65536 |
| flows active in one report (max) | $XF_ACTIVE |
| evictions (JSON \`evictions\`, last report) | $XF_EVICT |
| picks of untracked flows (JSON \`untracked_picks\`, last report) | $(tail -1 "$OUT/xf-intervals.json" | jq .untracked_picks) |
| RSS before traffic / after 4 s / after 13 s (MiB) | $(awk -v a="$XF_RSS0" -v b="$XF_RSS_MID" -v c="$XF_RSS_END" 'BEGIN {printf "%.1f / %.1f / %.1f", a / 1024, b / 1024, c / 1024}') |
| peak RSS (VmHWM, MiB) | $(awk -v r="$XF_HWM" 'BEGIN {printf "%.1f", r / 1024}') |
| CPU % of one core during the churn | $(fmt "$XF_CPU" 1) |
| JSON flow records written / MiB | $XF_LINES / $XF_JSON_MB |
| RSS each second (KiB) | $(awk '{printf "%s%s", (NR > 1 ? " " : ""), $2}' "$OUT/xf-rss.txt") |

The flow table is an array of 65536 slots, read in place (mmap) once per report, so \`flows_tracked\`
cannot pass its size and RSS does not grow with the flows. A flow may sit in one of two slots; a new flow
takes a free one, or one whose flow was not picked in this interval or the one before (an eviction). Here
every flow comes back within a second, so no flow goes stale: the table keeps the flows it has (evictions
stay near 0), and the packets of flows that found both slots taken are counted as untracked picks. That is
the designed behaviour under churn beyond the table's size: the flows already followed keep their history,
rather than every flow being evicted before it can show a switch.

$(hw_report)

### CPU and RSS of each CLI

| CLI | setting | CPU % of one core | RSS MiB |
|---|---|---:|---:|
| xpsflap | lab iperf3 flow (B runs) | $(fmt "$LAB_CPU_xpsflap" 1) | $(awk -v r="$LAB_RSS_xpsflap" 'BEGIN {printf "%.1f", r / 1024}') |
| xpsflap | $NFLOWS-flow churn | $(fmt "$XF_CPU" 1) | $(awk -v r="$XF_RSS1" 'BEGIN {printf "%.1f", r / 1024}') |
| tcpstall | lab iperf3 sender (B runs) | $(fmt "$LAB_CPU_tcpstall" 1) | $(awk -v r="$LAB_RSS_tcpstall" 'BEGIN {printf "%.1f", r / 1024}') |
EOF
	awk '$7 != "none" {printf "| tcpstall | %d idle connections | %.1f | %.1f |\n", $1, $4, $6 / 1024}' "$OUT/socks.tsv"
	cat <<EOF
| qdiscstuck | lab (B runs) | $(fmt "$LAB_CPU_qdiscstuck" 1) | $(awk -v r="$LAB_RSS_qdiscstuck" 'BEGIN {printf "%.1f", r / 1024}') |
| qdiscstuck | $QD_COUNT qdiscs, -i 1 | $(fmt "$QD1_CPU" 1) | $(awk -v r="$QD1_RSS" 'BEGIN {printf "%.1f", r / 1024}') |
$(awk -v n="$HW_NS" '$2 != "alone" {printf "| %s | no --netns, %d namespaces, -i 1 | %.1f | %.1f |\n", $1, n, $5, $6 / 1024}' "$OUT/hw.tsv")

$(load_report)

Whole run: ${RUN_S:-$(($(date +%s) - T0))} s.
EOF
}
report >"$OUT/report.md"
cat "$OUT/report.md"
if [ "$DOC" != - ]; then
	cp "$OUT/report.md" "$DOC"
	log "wrote $DOC and $PNG"
fi
