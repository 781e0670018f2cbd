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
#   fentry: the lab detections (NAME.bats of each tool)
#           less the tests tagged vm:left-out, and all of tests/vm/kernel61.bats;
#   auto:   the CLI files (*_cli.bats, rung reporting and bad input) less those
#           tagged vm:left-out, and the rung tests of tests/vm/kernel61.bats.
# The arm64 guest (make vmtest ARCH=arm64: TCG emulating another
# architecture, slower still) runs one mode, arm64, with NETMEDIC_HOOKS=auto:
# the tests tagged vm:arm64, a subset: each CLI starts and says its
# rungs, each tool's lab pathology and a negative control, one remedy each.
# VM_SMOKE=1 (CI's, .ci/run, and make vmtest-matrix) is the smoke part, one
# mode with NETMEDIC_HOOKS=auto. On every kernel it first counts each CLI's
# start (vm_starts): loaded, attached, one interval. Then, on 6.1, the
# tests tagged vm:arm64-smoke (kernel61.bats's: the rungs, each CLI's first
# line, tcpstall's ACK storm; on x86 less the arm64 guest's own,
# vm:arm64-only); on any other kernel, where kernel61.bats would skip (a
# skip counts as failed), the tests tagged vm:matrix: each tool's lab
# detection and a negative control, which hold on every kernel.

# shellcheck source=SCRIPTDIR/../tools.sh
. tools/tools.sh

# each tool's NAME.bats and NAME_cli.bats; what they share in common_cli.bats
VM_FILES_fentry=../vm/kernel61.bats
VM_FILES_auto="../vm/kernel61.bats common_cli.bats"
VM_FILES_arm64=../vm/kernel61.bats
# shellcheck disable=SC2034 # read as VM_FILES_$mode
VM_FILES_smoke=../vm/kernel61.bats
# the smoke part on any other kernel: each tool's detection and control
# (the tests tagged vm:matrix)
VM_FILES_matrix=
for t in $(nm_tools); do
	VM_FILES_fentry+=" $t.bats"
	VM_FILES_auto+=" ${t}_cli.bats"
	VM_FILES_arm64+=" $t.bats"
	VM_FILES_matrix+=" $t.bats"
done
# the modes of this guest's architecture (VM_ARCH, from tools/vm/run.sh)
VM_MODES="fentry auto"
[ "${VM_SMOKE:-}" = 1 ] && VM_MODES=smoke
[ "${VM_ARCH:-x86}" = arm64 ] && VM_MODES=arm64
# vm_hooks MODE: the NETMEDIC_HOOKS of MODE
vm_hooks() { case $1 in arm64 | smoke) echo auto ;; *) echo "$1" ;; esac; }
# vm_jobs MODE: how many files run at once in MODE (NM_JOBS overrides).
# The x86 guest's two modes run two files side by side (its 2 vCPUs):
# 11.9 minutes where one at a time took 17.5, all 91 tests passed
# (2026-12-05, multi-threaded TCG); 14.1 minutes single-threaded, as x86
# guests now run (tools/vm/run.sh), 90 of 90 (2026-12-06). The tests tagged serial still run alone
# after them (tests/run-integration.sh). The arm64 guest, TCG emulating
# another architecture, runs one at a time: its labs' timings have no
# room for a sibling.
vm_jobs() { case $1 in fentry | auto | smoke) echo 2 ;; *) echo 1 ;; esac; }

# Which tests of those files run is in the files, as bats tags: vm:fentry
# and vm:auto (file_tags; kernel61.bats's rung tests have both), and
# vm:left-out on a host test that cannot pass on 6.1 for a kernel reason,
# its reason in the comment above it; each has a 6.1 counterpart in
# tests/vm/kernel61.bats.

# vm_tags MODE: the bats --filter-tags of the tests that run in MODE (the
# x86 guest's modes leave out the arm64 guest's own tests, vm:arm64-only)
# Tests tagged userspace never run in a guest: they give bad input and
# check the usage error, which comes before anything is loaded, so no
# kernel changes what they check, and the host suite runs the same
# command lines (issue #33: not two passes over the same command lines).
vm_tags() {
	if [ "$1" = arm64 ] && [ "${VM_SMOKE:-}" = 1 ]; then
		printf 'vm:arm64-smoke,!vm:left-out,!userspace'
		return
	fi
	if [ "$1" = smoke ]; then
		printf 'vm:arm64-smoke,!vm:left-out,!vm:arm64-only,!userspace'
		return
	fi
	printf 'vm:%s,!vm:left-out,!userspace' "$1"
	[ "$1" = arm64 ] || printf ',!vm:arm64-only'
	# the tests of a remedy's undo (signals, kill -9, --cleanup) do not
	# depend on the rung: not again under fentry (kernel61.bats's own
	# remedies, xpsflap --pin and tcpstall --fix, run on 6.1's tc and
	# sysfs, and the arm64 guest runs qdiscstuck --lock's)
	[ "$1" = fentry ] && printf ',!undo'
	return 0
}

# vm_left_out: "FILE: NAME: WHY" of each test tagged vm:left-out
vm_left_out() {
	local f m files
	for m in $VM_MODES; do
		files=VM_FILES_$m
		echo "${!files}"
	done | tr ' ' '\n' | awk 'NF && !seen[$0]++' | while read -r f; do
		awk -v f="$f" '
			/^# Left out in the 6.1 guest: / { why = substr($0, 30); next }
			why != "" && /^# bats test_tags=/ { left = ($0 ~ /[=,]vm:left-out(,|$)/); next }
			why != "" && /^# / { why = why " " substr($0, 3); next }
			/^@test "/ && left { n = $0; sub(/^@test "/, "", n); sub(/" \{$/, "", n)
				printf "  - %s: \"%s\": %s\n", f, n, why }
			{ why = ""; left = 0 }' "tests/integration/$f"
	done | awk '!seen[$0]++'
}

# vm_not61 MODE: MODE's files less kernel61.bats (6.1's own expectations)
vm_not61() {
	local files=VM_FILES_$1
	printf '%s' "${!files}" | tr ' ' '\n' | grep -v '^\.\./vm/kernel61\.bats$' | paste -sd' ' -
}

# vm_list_hooks HOOKS: each CLI's ladder on this kernel, printed; with
# HOOKS=auto also kept as JSON lines in /vmxfer/out/hooks.jsonl (run.sh keeps
# them by kernel, for docs/KERNELS.md's matrix: tools/kernels-doc.sh), with
# the remedies' companions too (tcpstall --fix=kick, xpsflap --pin)
vm_list_hooks() {
	local t
	for t in $(nm_tools); do
		echo "--- $t --list-hooks (NETMEDIC_HOOKS=$1, kernel $(uname -r))"
		NETMEDIC_HOOKS=$1 "$NETMEDIC_BUILD/$t" --list-hooks
		[ "$1" = auto ] && [ -d /vmxfer/out ] || continue
		NETMEDIC_HOOKS=auto "$NETMEDIC_BUILD/$t" $(nm_every_hook_args "$t") --list-hooks --json >>/vmxfer/out/hooks.jsonl ||
			echo "vmtest: $t --list-hooks --json failed"
	done
}

# vm_starts HOOKS: each CLI starts on this kernel (loads, attaches, runs
# one interval, exits 0), counted as a mode of its own, "starts"
vm_starts() {
	local t p=0 f=0 t0 rc
	t0=$(date +%s)
	for t in $(nm_tools); do
		echo "--- $t -c 1 -i 0.2 (NETMEDIC_HOOKS=$1, kernel $(uname -r))"
		rc=0
		NETMEDIC_HOOKS=$1 timeout -k 5 120 "$NETMEDIC_BUILD/$t" -c 1 -i 0.2 || rc=$?
		if [ "$rc" = 0 ]; then
			p=$((p + 1))
		else
			echo "vmtest: $t does not start on $(uname -r) (exit $rc)"
			f=$((f + 1))
		fi
	done
	echo "vmtest-mode: starts: $p passed, $f failed ($(( $(date +%s) - t0 )) s)"
	[ "$f" = 0 ]
}

vm_suite() {
	local mode hooks out rc=0 p files tags budget t0 jobs
	echo "vmtest: host tests left out in the 6.1 guest (each has a 6.1 counterpart in tests/vm/kernel61.bats):"
	vm_left_out
	for mode in $VM_MODES; do
		hooks=$(vm_hooks "$mode")
		echo "=== vmtest: mode $mode: NETMEDIC_HOOKS=$hooks; the rungs this run tests:"
		vm_list_hooks "$hooks"
		if [ "${VM_SMOKE:-}" = 1 ]; then
			vm_starts "$hooks" || rc=1
		fi
		files=VM_FILES_$mode
		tags=$(vm_tags "$mode")
		# kernel61.bats holds 6.1's expectations (it skips elsewhere): on
		# any other kernel the smoke part is each tool's detection and
		# control, the tests tagged vm:matrix, which hold on every kernel
		if [ "${VM_SMOKE:-}" = 1 ] && [[ $(uname -r) != 6.1.* ]]; then
			files=VM_FILES_matrix
			tags='vm:matrix,!userspace'
		elif [[ $(uname -r) != 6.1.* ]]; then
			# the whole suite on another kernel: the host's files, not 6.1's
			files=${files}_other
			printf -v "$files" '%s' "$(vm_not61 "$mode")"
		fi
		# each mode is bounded below run.sh's VM_TIMEOUT (1800 s): 960 + 720
		# + boot. On 2026-12-04 the same tests took 40% longer here than
		# before, and both modes ran out of 780 and 420 s (37 of 52 and
		# 34 of 51 passed by then, none failed for it).
		budget=${VM_MODE_BUDGET:-$(case $mode in auto) echo 720 ;; smoke) echo 600 ;; *) echo 960 ;; esac)}
		jobs=${NM_JOBS:-$(vm_jobs "$mode")}
		echo "=== vmtest: mode $mode: files ${!files} (tests/integration/), $jobs at a time"
		out=$(mktemp)
		t0=$(date +%s)
		NM_JOBS=$jobs NETMEDIC_HOOKS=$hooks BATS_FILES="-T ${!files}" BATS_FILTER_TAGS=$tags \
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
