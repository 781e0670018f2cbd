#!/usr/bin/env bats
# Refusal on demand (NETMEDIC_REFUSE, docs/KERNELS.md): every program of
# every tool, taken from its BPF object, refused alone as a kernel would
# refuse it. A tool must start, name the loss and run; only a core hook
# (one whose rungs are all programs) left with no rung may stop it, with
# one line.

load helpers

TOOLS=$(nm_tools)

# args TOOL: the options that make TOOL declare every hook it has
args() { nm_every_hook_args "$1"; }

# progs TOOL: the programs of TOOL's object
progs() {
	"$BIN/nm-verify" --list "$BIN/$1.bpf.o" | awk '{ print $2 }'
}

# prog_state LISTING PROG: PROG's state in --list-hooks' program table
prog_state() {
	printf '%s\n' "$1" | awk -v p="$2" '$1 == p && NF >= 4 { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }'
}

@test "refuse: every program of every tool is on a rung of the hook ladder" {
	for t in $TOOLS; do
		run "$BIN/$t" $(args "$t") --list-hooks
		assert_success
		listing=$output
		for p in $(progs "$t"); do
			s=$(prog_state "$listing" "$p")
			[[ $s =~ ^(loaded|not\ loaded|refused|rung\ refused|not\ allowed|set\ aside)$ ]] ||
				fail "$t: program $p is on no rung (--list-hooks: '$s')"
		done
	done
}

@test "refuse: refusing any one program never stops a tool, and it names the loss" {
	for t in $TOOLS; do
		run "$BIN/$t" $(args "$t") --list-hooks
		assert_success
		listing=$output
		base=$("$BIN/$t" $(args "$t") -c 1 -i 0.2 --json 2>/dev/null | jq -c 'select(.type == "start") | .hooks')
		[ -n "$base" ] || fail "$t: no start record without refusals"
		for p in $(progs "$t"); do
			# -v: the first line names every refusal, a loss or not
			out=$(NETMEDIC_REFUSE=$p "$BIN/$t" $(args "$t") -c 1 -i 0.2 --json --table -v 2>"$BATS_TEST_TMPDIR/err") ||
				fail "$t with $p refused: exit $?: $(cat "$BATS_TEST_TMPDIR/err")"
			start=$(printf '%s\n' "$out" | jq -c 'select(.type == "start")')
			[ "$(printf '%s\n' "$out" | jq -s 'map(select(.type != "start")) | length')" -ge 1 ] ||
				fail "$t with $p refused: no report after the start record"
			why=$(printf '%s\n' "$start" | jq -r --arg p "$p" '.refused[$p] // ""')
			first=$(grep -m1 "^$t: kernel " "$BATS_TEST_TMPDIR/err")
			if [ "$(prog_state "$listing" "$p")" = loaded ]; then
				[ "$why" = "load: Operation not permitted (EPERM) by NETMEDIC_REFUSE" ] ||
					fail "$t with $p refused: start record says '$why'"
				[[ $first == *"refused: "*"$p (load: Operation not permitted (EPERM) by NETMEDIC_REFUSE)"* ]] ||
					fail "$t with $p refused: the first line does not name it: $first"
				l=$(NETMEDIC_REFUSE=$p "$BIN/$t" $(args "$t") --list-hooks)
				[ "$(prog_state "$l" "$p")" = refused ] ||
					fail "$t with $p refused: --list-hooks does not say it was"
			elif [ "$(prog_state "$listing" "$p")" = refused ]; then
				# the kernel refuses it already: NETMEDIC_REFUSE comes first, nothing else changes
				[ -n "$why" ] || fail "$t with $p refused twice: the start record does not name it"
				[ "$(printf '%s\n' "$start" | jq -c .hooks)" = "$base" ] ||
					fail "$t with $p refused twice: rungs changed"
			else
				# a program the tool would not load: nothing changes
				[ -z "$why" ] || fail "$t with unloaded $p refused: start record says '$why'"
				[ "$(printf '%s\n' "$start" | jq -c .hooks)" = "$base" ] ||
					fail "$t with unloaded $p refused: rungs changed"
			fi
		done
	done
}

@test "refuse: a core hook with no rung left stops the tool with one line naming program, errno and fix" {
	ncore=0
	for t in $TOOLS; do
		run "$BIN/$t" $(args "$t") --list-hooks
		assert_success
		listing=$output
		# core: every rung of the hook (the first table) holds a program
		# (the second table); a virtual or "none" rung holds none
		core=$(printf '%s\n' "$listing" | awk '
			$2 ~ /^[0-9]+$/ { rung[$1 " " $2] = 1 }
			$3 ~ /^[0-9]+$/ { prog[$2 " " $3] = 1 }
			END {
				for (r in rung) { split(r, a, " "); seen[a[1]] = 1; if (!(r in prog)) opt[a[1]] = 1 }
				for (h in seen) if (!opt[h]) print h
			}')
		for h in $core; do
			all=$(printf '%s\n' "$listing" | awk -v h="$h" '$2 == h && $3 ~ /^[0-9]+$/ { print $1 }' |
				paste -sd, -)
			ncore=$((ncore + 1))
			NETMEDIC_REFUSE=$all run --separate-stderr "$BIN/$t" $(args "$t") -c 1 -i 0.2
			assert_failure 1
			output=$stderr assert_one_line_error
			[[ $stderr == "$t: error: hook $h: no rung left on this kernel: "*": load: Operation not permitted (EPERM) by NETMEDIC_REFUSE; unset NETMEDIC_REFUSE" ]] ||
				fail "$t, hook $h refused whole: $stderr"
		done
	done
	# xpsflap's pick and qdiscstuck's __qdisc_run at least
	[ "$ncore" -ge 2 ]
}

@test "refuse: a lost optional part is 0 in netmedic_feature_enabled; the refusal is a metric and a --list-hooks verdict" {
	prom=$BATS_TEST_TMPDIR/q.prom
	NETMEDIC_REFUSE=qs_sample,qs_sample_key run "$BIN/qdiscstuck" -c 1 -i 0.2 --prom-file "$prom"
	assert_success
	# what is lost, on the first line; which program was refused, with -v
	assert_line --index 0 --partial ", netns all; lost: sampler (scheduling state is not sampled: judged by events alone)"
	[[ ${lines[0]} != *"refused: "* ]]
	NETMEDIC_REFUSE=qs_sample,qs_sample_key run --separate-stderr "$BIN/qdiscstuck" -c 1 -i 0.2 -v
	assert_success
	assert_line --index 0 --partial "; refused: qs_sample (load: Operation not permitted (EPERM) by NETMEDIC_REFUSE), qs_sample_key (load: Operation not permitted (EPERM) by NETMEDIC_REFUSE); lost: sampler (scheduling state is not sampled: judged by events alone)"
	grep -qx 'netmedic_feature_enabled{tool="qdiscstuck",feature="sampler"} 0' "$prom"
	grep -qx 'netmedic_feature_enabled{tool="qdiscstuck",feature="qdisc_enqueue"} 1' "$prom"
	grep -qx 'netmedic_prog_refused_info{tool="qdiscstuck",hook="sampler",program="qs_sample",stage="load",errno="EPERM",source="NETMEDIC_REFUSE"} 1' "$prom"
	grep -qx 'netmedic_hook_info{tool="qdiscstuck",hook="sampler",mode="none",program="none"} 1' "$prom"
	promtool check metrics <"$prom"
	NETMEDIC_REFUSE=qs_sample,qs_sample_key run "$BIN/qdiscstuck" --list-hooks
	assert_success
	assert_line --regexp '^sampler +1 +raw_tp +qs_sample: load: Operation not permitted \(EPERM\) by NETMEDIC_REFUSE$'
	assert_line --regexp '^sampler +3 +none +chosen: scheduling state is not sampled: judged by events alone$'
	assert_line --regexp '^qs_sample +sampler +1 +refused$'
}

@test "refuse: NETMEDIC_REFUSE takes section prefixes: every tp_btf program refused, the raw_tp rungs serve" {
	NETMEDIC_REFUSE=tp_btf/ run --separate-stderr "$BIN/xpsflap" -c 1 -i 0.2 --json
	assert_success
	hooks=$(printf '%s\n' "$output" | jq -c 'select(.type == "start") | .hooks')
	assert_equal "$hooks" '{"netdev_pick_tx":"raw_tp/net_dev_queue","net_dev_xmit":"raw_tp/net_dev_start_xmit"}'
	NETMEDIC_REFUSE=fexit/,ts_sweep_fast,iter/bpf_sk_storage_map run --separate-stderr "$BIN/tcpstall" -c 1 -i 0.2 -v
	assert_success
	assert_line --index 0 --partial " fast_sweep=none "
	assert_line --index 0 --partial "lost: fast_sweep (every sweep samples every socket)"
	assert_line --index 0 --partial "(all sockets every 10ms, senders tagged by none)"
}
