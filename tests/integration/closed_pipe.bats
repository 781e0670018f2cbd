#!/usr/bin/env bats
# A reader that goes away (`TOOL --json | head -1`, `| grep -m1`, `| jq`):
# every CLI and the agent end within seconds of the closed pipe, by the
# SIGPIPE they ignored while they ran (exit status 141, as cat or bcc's
# tools; lib/output.h: nm_out_exit_status), and a remedy running then is
# undone first, as on SIGTERM: nothing applied, no journal left.
# (Not pipes.bats: its initials would be prometheus.bats', and its labs'
# names would change; helpers.bash, file_id.)
load helpers

XF=$LAB/xpsflap.sh
QS=$LAB/qdiscstuck.sh

setup() {
	TMP=$(mktemp -d)
	BG_PID=
}

teardown() {
	for t in $(nm_programs); do "$BIN/$t" --cleanup >/dev/null 2>&1; done
	"$XF" down
	"$QS" down
	rm -rf "$TMP"
}

# piped OUT CMD...: CMD's standard output read by `head -1`, which ends at
# its first line and closes the pipe; that line in OUT, CMD's standard
# error in OUT.err. Sets RC (CMD's exit status: 124 when it still ran 60 s
# on) and SECS (how long it ran).
piped() {
	local out=$1 t0
	shift
	t0=$(date +%s.%N)
	# its status through a file: the pipeline's is head's
	{ rc=0; timeout 60 "$@" 2>"$out.err" || rc=$?; echo "$rc" >"$out.rc"; } | head -1 >"$out"
	RC=$(cat "$out.rc")
	SECS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	echo "$*: exit $RC after $SECS s; its line: $(cat "$out"); its stderr:"
	cat "$out.err"
}

# ended_by_pipe: the run ended by the closed pipe, within seconds of it (the
# load, under ASan as nobody, takes a few), not by timeout
ended_by_pipe() {
	[ "$RC" = 141 ]
	awk -v s="$SECS" 'BEGIN { exit !(s < 30) }'
}

@test "closed pipe: each CLI and the agent, --json -i 0.5 | head -1: one valid JSON line, then the end" {
	for t in $(nm_programs); do
		piped "$TMP/$t" "$BIN/$t" --json -i 0.5
		ended_by_pipe
		[ "$(wc -l <"$TMP/$t")" = 1 ]
		[ "$(jq -r .type "$TMP/$t")" = start ]
	done
}

@test "closed pipe: the table too (xpsflap -i 0.5 | head -1), and grep -m1 as a reader" {
	piped "$TMP/out" "$BIN/xpsflap" -i 0.5
	ended_by_pipe
	grep -q "^xpsflap: kernel " "$TMP/out"
	t0=$(date +%s)
	{ rc=0; timeout 60 "$BIN/qdiscstuck" --json -i 0.5 2>"$TMP/grep.err" || rc=$?; echo "$rc" >"$TMP/grep.rc"; } |
		grep -m1 '"type":"interval"' >"$TMP/grep"
	echo "qdiscstuck | grep -m1: exit $(cat "$TMP/grep.rc") after $(($(date +%s) - t0)) s; its stderr:"
	cat "$TMP/grep.err"
	[ "$(cat "$TMP/grep.rc")" = 141 ]
	jq -e '.type == "interval"' "$TMP/grep"
}

# bats test_tags=undo
@test "closed pipe: xpsflap --pin ends through it with the XPS maps and tc restored, no journal left" {
	"$XF" up --queues 2 --xps on
	piped "$TMP/out" "$BIN/xpsflap" --netns ${LAB_PREFIX}xf-mid --dev xqm --pin --json -i 0.5
	ended_by_pipe
	[ "$(jq -r .pin "$TMP/out")" = true ]
	# it had pinned, and it undid that on its way out
	grep -q "xps_cpus 1 -> 0" "$TMP/out.err"
	grep -q "restored" "$TMP/out.err"
	assert_equal "$(lab_xps_get xf-mid xqm 0)" 1
	assert_equal "$(lab_xps_get xf-mid xqm 1)" 2
	assert_equal "$(lab_exec xf-mid tc filter show dev xqm egress)" ""
	! lab_exec xf-mid tc qdisc show dev xqm | grep -q clsact
	[ -z "$(ls "$RUN_DIR" 2>/dev/null | grep xpsflap)" ]
}

# bats test_tags=undo
@test "closed pipe: qdiscstuck --lock ends through it with pfifo_fast back, no journal left" {
	"$QS" up mq
	piped "$TMP/out" "$BIN/qdiscstuck" --netns ${LAB_PREFIX}qs-a --lock qa:1 --json -i 0.5
	ended_by_pipe
	[ "$(jq -r .type "$TMP/out")" = start ]
	# it had locked (before its first line), and it undid that on its way out
	grep -q "lock: restoring the lockless qdiscs" "$TMP/out.err"
	qs_unlocked
}

# The agent's JSON stream is its stdout as well; its detector's remedy is the CLI's.
# bats test_tags=undo
@test "closed pipe: netmedic --opts xpsflap=--pin ends through it with everything restored" {
	"$XF" up --queues 2 --xps on
	piped "$TMP/out" "$BIN/netmedic" --detect=xpsflap --netns ${LAB_PREFIX}xf-mid --dev xqm \
		--opts 'xpsflap=--pin' --json -i 0.5
	ended_by_pipe
	[ "$(jq -r .tool "$TMP/out")" = xpsflap ]
	assert_equal "$(lab_xps_get xf-mid xqm 0)" 1
	assert_equal "$(lab_xps_get xf-mid xqm 1)" 2
	assert_equal "$(lab_exec xf-mid tc filter show dev xqm egress)" ""
	[ -z "$(ls "$RUN_DIR" 2>/dev/null | grep xpsflap)" ]
}
