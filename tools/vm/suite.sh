# shellcheck shell=bash
# Sourced by guest.sh inside the 6.1 guest: which bats files and tests run in
# which hook mode, which host tests are left out here and why, and the
# per-mode counts that tools/vm/run.sh sums into `vmtest: N passed, N failed`.
#
# Why a subset: under TCG (no usable KVM here) one pass of the whole suite
# takes about 9 minutes; two passes plus boot would crowd the 25-minute CI
# budget. On 6.1 `auto` resolves every hook to the same rung as `fentry`
# (tests/vm/kernel61.bats asserts it in both modes), so re-running the lab
# detections under `auto` would load the very same programs again. So:
#   fentry: the lab detections (xpsflap.bats, tcpstall.bats, qdiscstuck.bats)
#           less the exclusions below, and all of tests/vm/kernel61.bats;
#   auto:   the CLI files (*_cli.bats, rung reporting and bad input) less the
#           exclusions, and the rung tests of tests/vm/kernel61.bats.

VM_FILES_fentry="../vm/kernel61.bats xpsflap.bats tcpstall.bats qdiscstuck.bats"
VM_FILES_auto="../vm/kernel61.bats xpsflap_cli.bats tcpstall_cli.bats qdiscstuck_cli.bats"
# tests of kernel61.bats that run in auto mode (the rest run in fentry mode only)
VM_AUTO_VM_TESTS='^6\.1: (rung|the first line)'

# Host tests that cannot pass on 6.1 for a kernel reason; each has a
# 6.1 counterpart in tests/vm/kernel61.bats. "file|exact test name|why"
VM_EXCLUDE=(
"xpsflap.bats|xpsflap: the bridged flow is flagged on two queues, with switches and reordering|6.1 guest (TCG): the forwarded flow changes CPU, so queue, only 4-30 times per 4-s iperf3 run (~130k packets; 5,000-10,000 on the 6.18 host) and never while the queue it leaves has packets in flight (risky_switches 0): nothing can overtake, so .reordered is 0, which the host test requires > 0"
"xpsflap.bats|xpsflap --pin: switches and reordering fall to 0, XPS restored at exit|needs risky switches or reordering before --pin (none in the guest, see above), and expects the host's 'no act_skbedit'; the 6.1 guest has act_skbedit.ko, so xpsflap rightly says 'act_skbedit is present'"
"tcpstall.bats|tcpstall: quickack route + tcp_backlog_ack_defer=0 is an ACK storm, with both causes|6.1 has no tcp_backlog_ack_defer (6.7): the cause is no_backlog_ack_defer, not backlog_ack_defer_off"
"tcpstall.bats|tcpstall: controls, tcp_backlog_ack_defer=1 and no quickack route, are not storms|the defer=1 control needs the 6.7 sysctl; on 6.1 every backlog ACK is sent"
"tcpstall.bats|tcpstall --fix: the owned ratio falls in the same run; the sysctl is restored at exit|--fix's lever is the 6.7 sysctl; on 6.1 tcpstall says it has none"
"tcpstall.bats|tcpstall --fix: after kill -9, --cleanup restores tcp_backlog_ack_defer|no tcp_backlog_ack_defer on 6.1: nothing to journal or restore"
"tcpstall.bats|tcpstall on sock_diag (every iterator refused): the stopped reader's sender is rwnd_limited, a bulk sender is sampled|under TCG one sock_diag dump costs about 4 ms of CPU, so the sweeps' 5 % budget spaces them about 80 ms apart (40 ms on the host): the 2-s and 3-s flows are sampled too few times for the host's thresholds (seen: 4 samples of the bulk sender in 22 sweeps); the rung is the same code on both kernels"
"tcpstall_cli.bats|tcpstall: first line names the hook rungs; --list-hooks says why fentry is refused|asserts the host's tcp_push=iter/tcp; on 6.1 tcp_push gets its fexit rung"
"qdiscstuck.bats|qdiscstuck: LAB's stopped veth is driver_stopped within threshold + one interval, with tc's backlog|6.1's veth never stops its TX queue (it drops when the peer's ring is full): the burst drains, there is no driver-stopped queue to find"
"qdiscstuck.bats|qdiscstuck: a stopped child of mq is found; --fix=kick explains and does not kick it|same: no stopped veth queue on 6.1"
"qdiscstuck.bats|qdiscstuck --prom-file: states, backlog and stuck seconds of the stopped queue|same, and it expects the host's mode=\"tp_btf\" for __qdisc_run"
"qdiscstuck.bats|qdiscstuck as nobody with CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN (--netns): the stopped veth is driver_stopped|same: no stopped veth queue on 6.1 (qdiscstuck_cli.bats runs it as nobody there)"
"tcpstall.bats|tcpstall --fix as nobody: keeps CAP_NET_ADMIN only, the sysctl is set and restored at exit|--fix=defer's lever is the 6.7 sysctl; on 6.1 there is nothing to set (tcpstall_cli.bats checks what --fix keeps there)"
)

# vm_regex NAME: a bats --filter regex matching exactly NAME, with no
# spaces or glob characters (run-integration.sh word-splits BATS_FILES)
vm_regex() { printf '%s' "$1" | sed 's/[^A-Za-z0-9]/./g'; }

# vm_filter MODE: one regex for the tests of MODE's files that run in MODE
vm_filter() {
	local mode=$1 f name e skip alts=() files
	files=VM_FILES_$mode
	for f in ${!files}; do
		while IFS= read -r name; do
			skip=
			for e in "${VM_EXCLUDE[@]}"; do
				[ "${e%%|*}" = "$f" ] || continue
				e=${e#*|}
				[ "${e%%|*}" = "$name" ] && skip=1
			done
			if [ "$f" = ../vm/kernel61.bats ] && [ "$mode" = auto ] && ! [[ $name =~ $VM_AUTO_VM_TESTS ]]; then
				skip=1
			fi
			[ -n "$skip" ] || alts+=("$(vm_regex "$name")")
		done < <(sed -n 's/^@test "\(.*\)" {$/\1/p' "tests/integration/$f")
	done
	local IFS='|'
	printf '^(%s)$' "${alts[*]}"
}

vm_list_hooks() {
	local t
	for t in xpsflap tcpstall qdiscstuck; do
		echo "--- $t --list-hooks (NETMEDIC_HOOKS=$1, kernel $(uname -r))"
		NETMEDIC_HOOKS=$1 "$NETMEDIC_BUILD/$t" --list-hooks
	done
}

vm_suite() {
	local mode e out rc=0 p f name why files budget t0
	echo "vmtest: host tests left out in the 6.1 guest (each has a 6.1 counterpart in tests/vm/kernel61.bats):"
	for e in "${VM_EXCLUDE[@]}"; do
		IFS='|' read -r f name why <<<"$e"
		echo "  - $f: \"$name\": $why"
	done
	for mode in fentry auto; do
		echo "=== vmtest: mode $mode: NETMEDIC_HOOKS=$mode; the rungs this run tests:"
		vm_list_hooks "$mode"
		files=VM_FILES_$mode
		# each mode is bounded below run.sh's VM_TIMEOUT (1380 s): 780 + 420 + boot
		budget=${VM_MODE_BUDGET:-$([ "$mode" = fentry ] && echo 780 || echo 420)}
		echo "=== vmtest: mode $mode: files ${!files} (tests/integration/)"
		out=$(mktemp)
		t0=$(date +%s)
		NETMEDIC_HOOKS=$mode BATS_FILES="-T -f $(vm_filter "$mode") ${!files}" \
			timeout -k 10 "$budget" tests/run-integration.sh | tee "$out"
		[ "${PIPESTATUS[0]}" = 0 ] || rc=1
		p=$(sed -n 's/^integration: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$out" | tail -1)
		[ -n "$p" ] || { p="0 1"; echo "vmtest: mode $mode: no closing line (timed out after $budget s?)"; }
		set -- $p
		echo "vmtest-mode: $mode: $1 passed, $2 failed ($(( $(date +%s) - t0 )) s)"
		rm -f "$out"
	done
	return $rc
}
