#!/usr/bin/env bats
# The conventions every CLI shares (src/lib/cli.c, caps, sinks), checked
# for every tool of the Makefile's TOOLS: bad common options answered by
# one line and exit 2, a kernel or a user that cannot run it by one line
# and exit 1, capabilities named, none kept by root once attached. What
# is a tool's own (its options, its hooks, its remedies) stays in its
# NAME_cli.bats.

# the 6.1 guest runs these in its auto mode (tools/vm/suite.sh)
# bats file_tags=vm:auto
load helpers

setup() {
	TMP=$(mktemp -d)
	BG_PID=
}

teardown() {
	stop_bg KILL
	rm -rf "$TMP"
}

# refused STATUS TEXT CMD...: CMD exits STATUS with one line on stderr,
# and that line holds TEXT; status 2 (bad input, run as "$BIN/TOOL ..."):
# in the usage errors' one format
refused() {
	local status=$1 text=$2
	shift 2
	run --separate-stderr "$@"
	assert_failure "$status"
	if [ "$status" = 2 ]; then
		output=$stderr assert_usage_error "${1##*/}"
	else
		output=$stderr assert_one_line_error
	fi
	[[ $stderr == *"$text"* ]] || fail "$*: $stderr"
}

# takes_dev TOOL: TOOL watches devices (--dev), as its --help says
# (tcpstall watches sockets and refuses --dev)
takes_dev() {
	"$BIN/$1" --help | grep -qE '^ +--dev[ =]'
}

# bats test_tags=userspace
@test "common CLI: --help, -h, -? and --usage on stdout, --version names the tool, an unknown option exit 2" {
	local t a
	for t in $(nm_tools); do
		for a in --help -h '-?' --usage; do
			run --separate-stderr "$BIN/$t" "$a"
			assert_success
			[ -z "$stderr" ]
			assert_line --index 0 --regexp "^Usage: $t "
		done
		run --separate-stderr "$BIN/$t" --help
		for a in -i -c --json --prom-file --netns --hooks --list-hooks --bpf-stats --print-caps --cleanup; do
			assert_output --regexp "(^| )$a[ =,]"
		done
		# -h where users look for it first: on --help's own line
		assert_line --regexp '^  -h, -\?, --help +Give this help list$'
		for a in --version -V; do
			run --separate-stderr "$BIN/$t" "$a"
			assert_success
			assert_output --regexp "^$t \(netmedic\) [0-9]"
		done
		run --separate-stderr "$BIN/$t" --no-such-option
		assert_failure 2
		assert_equal "$stderr" "$t: unrecognized option '--no-such-option'"
	done
}

# #37: getopt's own lines named the program by the path it was run by
# ("./tcpstall: unrecognized option"), with argp's "Try" line after them;
# the tools' said "tcpstall: invalid --port ..." and "tcpstall: error:
# --prom-file ...". Bad input, whoever finds it, is now one line,
# "TOOL: what is wrong", and exit 2.
# bats test_tags=userspace
@test "common CLI: every usage error is one line, 'TOOL: what is wrong', exit 2, however the tool was run" {
	local t a
	for t in $(nm_programs); do
		for a in "--no-such-option|unrecognized option '--no-such-option'" \
			"-i|option requires an argument -- 'i'" \
			"--interval|option '--interval' requires an argument" \
			"-i 0|invalid interval '0': seconds from 0.01 to 86400" \
			"stray|unexpected argument 'stray'" \
			"--netns=|invalid --netns '': empty" \
			"--prom-file $TMP/missing/x.prom -c 1|--prom-file $TMP/missing/x.prom: directory $TMP/missing does not exist"; do
			# by a path, as a user in the build directory runs it
			run --separate-stderr bash -c 'cd "$1" && shift && "$@"' _ "$BIN" "./$t" ${a%%|*}
			assert_failure 2
			output=$stderr assert_usage_error "$t"
			assert_equal "$stderr" "$t: ${a#*|}"
		done
	done
}

# bats test_tags=userspace
@test "common CLI: bad -i, -c and --hooks -> exit 2, 'invalid', alone or before good ones" {
	local t a
	for t in $(nm_tools); do
		for a in "-i 0" "-i abc" "-i -1" "-c 0" "-c x" "-c -1" "--hooks nope"; do
			run --separate-stderr "$BIN/$t" $a
			assert_failure 2
			[[ $stderr == *invalid* ]] || fail "$t $a: $stderr"
			# a later good value does not hide it
			run --separate-stderr "$BIN/$t" $a -c 1 -i 0.2
			assert_failure 2
			[[ $stderr == *invalid* ]] || fail "$t $a -c 1 -i 0.2: $stderr"
		done
	done
}

@test "common CLI: unknown device -> exit 2, one line naming it; a tool without --dev refuses it" {
	local t
	for t in $(nm_tools); do
		if takes_dev "$t"; then
			refused 2 "unknown device 'nm-no-such-dev'" "$BIN/$t" --dev nm-no-such-dev -c 1
		else
			refused 2 --dev "$BIN/$t" --dev lo -c 1
			# before anything else answers
			refused 2 --dev "$BIN/$t" --dev lo --print-caps
			refused 2 --dev "$BIN/$t" --dev lo --cleanup
		fi
	done
}

@test "common CLI: unknown --netns -> exit 2, one line" {
	local t
	for t in $(nm_tools); do
		refused 2 "--netns nm-no-such-ns" "$BIN/$t" --netns nm-no-such-ns -c 1
	done
}

# Every tool takes a set of --netns (a scope, lib/scope.h); a tool that
# watched one would be refused by nm_netns_usage (tests/unit/test_cli.c).
@test "common CLI: two --netns, one unknown -> it is named, exit 2, one line" {
	local t
	for t in $(nm_tools); do
		# past the parse: the first unknown one is named
		refused 2 "--netns nm-no-such-ns: cannot open netns" \
			"$BIN/$t" --netns /proc/self/ns/net --netns nm-no-such-ns -c 1
	done
}

@test "common CLI: no kernel BTF, or a file that holds none -> exit 1, one line naming it" {
	local t p
	for t in $(nm_tools); do
		for p in /nonexistent/vmlinux /nonexistent; do
			NETMEDIC_BTF=$p refused 1 "no kernel BTF at $p:" "$BIN/$t" -c 1
		done
		# there, but no BTF: named, and said so (not "Unknown error 4001")
		NETMEDIC_BTF=/etc/passwd refused 1 "NETMEDIC_BTF=/etc/passwd: not a BTF file" "$BIN/$t" -c 1
	done
}

@test "common CLI: a kernel older than 5.10 -> exit 1, one line naming it and what it lacks" {
	local t
	for t in $(nm_programs); do
		NETMEDIC_TEST_RELEASE=5.4.0-150-generic refused 1 \
			"kernel 5.4.0-150-generic is older than 5.10, the oldest netmedic runs on: it lacks tp_btf programs (5.5)" \
			"$BIN/$t" -c 1
		NETMEDIC_TEST_RELEASE=5.9.16 refused 1 "kernel 5.9.16 is older than 5.10" "$BIN/$t" -c 1
	done
}

# #37: /proc's refusal (ENOENT) was said as "No such file or directory" of
# a directory that is there: the reason is its file system, which takes no
# new files, as sysfs (EACCES, even for root).
@test "common CLI: --prom-file in a missing or unwritable directory -> exit 2, one line with the true reason" {
	local t
	for t in $(nm_tools); do
		refused 2 "does not exist" "$BIN/$t" --prom-file "$TMP/missing/x.prom" -c 1
		refused 2 "--prom-file /proc/$t.prom: cannot create files in directory /proc: it is on a proc file system, which takes no new files" \
			"$BIN/$t" --prom-file "/proc/$t.prom" -c 1
		[[ $stderr != *"No such file or directory"* ]]
		refused 2 "--prom-file /sys/$t.prom: cannot create files in directory /sys: it is on a sysfs file system, which takes no new files" \
			"$BIN/$t" --prom-file "/sys/$t.prom" -c 1
	done
}

# #37: options of which the run could honour one only passed silently
# (--cleanup with -c undid and exited, -c unused). Two jobs that each end
# the run, or one of them with what only a run of reports uses: refused,
# one line naming both and why, exit 2, before anything is done.
# bats test_tags=userspace
@test "common CLI: --cleanup, --list-hooks, --list-fixes with each other, -c, -i, --prom-file or --listen -> exit 2, one line naming both" {
	local t a
	for t in $(nm_programs); do
		for a in "--cleanup --list-hooks|--cleanup and --list-hooks: each does its one job and exits; give one of them" \
			"--list-hooks -c 2|--list-hooks and -c: --list-hooks probes the hooks, then exits: no report to count" \
			"--list-hooks -i 5|--list-hooks and -i: --list-hooks probes the hooks, then exits: no report to space" \
			"--cleanup --prom-file $TMP/x.prom|--cleanup and --prom-file: --cleanup undoes what a killed instance left, then exits: no metrics to write" \
			"--listen 9435 --list-hooks|--list-hooks and --listen: --list-hooks probes the hooks, then exits: no metrics to serve"; do
			refused 2 "$t: ${a#*|}" "$BIN/$t" ${a%%|*}
		done
		[ ! -e "$TMP/x.prom" ]
	done
	# --list-fixes is the CLIs' (the agent refuses it in --opts)
	for t in $(nm_tools); do
		refused 2 "$t: --cleanup and --list-fixes: each does its one job and exits; give one of them" \
			"$BIN/$t" --list-fixes --cleanup
		refused 2 "$t: --list-fixes and -c: --list-fixes probes the remedies, then exits: no report to count" \
			"$BIN/$t" --list-fixes -c 1
	done
}

# #37: --list-hooks --json printed the text tables. One JSON line a row of
# each table, the columns as keys, with the tool and time every record has;
# the agent's carry each detector's name.
@test "common CLI: --list-hooks --json writes a JSON line a row of both tables, with tool and time" {
	local t tools t0 json agent=${NETMEDIC_AGENT:-netmedic}
	for t in $(nm_programs); do
		tools=$t
		[ "$t" != "$agent" ] || tools=$(nm_tools | paste -sd ' ')
		t0=$(date +%s)
		run --separate-stderr "$BIN/$t" --list-hooks --json
		assert_success
		# each line an object of the two records, the columns its keys, stamped
		echo "$output" | jq -e --arg tools " $tools " --argjson t0 "$t0" --argjson t1 "$(date +%s)" '
			(.tool | type == "string") and (.tool as $t | $tools | contains(" " + $t + " ")) and
			.time >= $t0 and .time <= $t1 and
			(if .type == "rung" then keys_unsorted == ["type", "tool", "time", "hook", "rung", "program", "verdict"]
			 elif .type == "program" then keys_unsorted == ["type", "tool", "time", "program", "hook", "rung", "state"]
			 else false end)' >/dev/null || { echo "$output"; false; }
		json=$output
		# a line for each row of the tables (not their headers, nor the agent's NAME: lines)
		run "$BIN/$t" --list-hooks
		assert_success
		assert_equal "$(printf '%s\n' "$json" | grep -c .)" \
			"$(printf '%s\n' "$output" | grep -vcE '^(HOOK|PROGRAM) |^$|^[a-z]+:$')"
		# the chosen rung of each hook, as the table says it
		assert_equal "$(printf '%s\n' "$json" | jq -r 'select(.type == "rung" and (.verdict | startswith("chosen"))) | "\(.hook) \(.rung) \(.program)"' | sort)" \
			"$(printf '%s\n' "$output" | awk 'NF >= 4 && $2 ~ /^[0-9]+$/ && $4 ~ /^chosen/ { print $1, $2, $3 }' | sort)"
	done
}

# #37: --list-fixes --json printed the text table too: one JSON line a
# remedy, the table's columns as keys, with the tool and time.
@test "common CLI: --list-fixes --json writes a JSON line a remedy, its line's columns as keys" {
	local t json
	for t in $(nm_tools); do
		run --separate-stderr "$BIN/$t" --list-fixes --json
		assert_success
		echo "$output" | jq -e --arg t "$t" '.type == "fix" and .tool == $t and (.time | type == "number")
			and keys_unsorted == ["type", "tool", "time", "fix", "lever", "verdict"]' >/dev/null ||
			{ echo "$output"; false; }
		json=$(echo "$output" | jq -r '"\(.fix) \(.verdict)"')
		# each remedy and its verdict, as the table says them
		run "$BIN/$t" --list-fixes
		assert_success
		assert_equal "$json" "$(printf '%s\n' "$output" | sed 1d |
			sed -E 's/^([^ ]+) .* (not allowed: .*|allowed( by .*)?)$/\1 \2/')"
	done
}

@test "common CLI: --prom-file naming a device node or a symlink -> exit 2, one line, left as it was" {
	local t
	mknod "$TMP/null" c 1 3
	ln -s x.prom "$TMP/link.prom"
	for t in $(nm_tools); do
		refused 2 "$TMP/null is a character device, not a regular file" \
			"$BIN/$t" --prom-file "$TMP/null" -c 1 -i 0.2
		[ -c "$TMP/null" ]
		refused 2 "$TMP/link.prom is a symbolic link" "$BIN/$t" --prom-file "$TMP/link.prom" -c 1 -i 0.2
		[ -L "$TMP/link.prom" ] && [ ! -e "$TMP/x.prom" ]
	done
}

@test "common CLI: not root, no capabilities -> exit 1, one line naming CAP_BPF" {
	local t
	for t in $(nm_tools); do
		refused 1 "loading BPF programs needs CAP_BPF (bpf()); missing" as_nobody "" "$BIN/$t" -c 1
	done
}

@test "common CLI: the one capability missing is named, with what needs it (CAP_PERFMON, --netns, --bpf-stats)" {
	local t
	for t in $(nm_tools); do
		refused 1 "loading BPF programs needs CAP_PERFMON (tracing programs); missing" \
			as_nobody bpf "$BIN/$t" -c 1
		refused 1 "$t: error: --netns needs CAP_SYS_ADMIN (setns); missing" \
			as_nobody bpf,perfmon "$BIN/$t" --netns nm-no-such-ns -c 1
		refused 1 "--netns needs CAP_SYS_PTRACE (another process's /proc/PID/ns); missing" \
			as_nobody bpf,perfmon,sys_admin "$BIN/$t" --netns /proc/1/ns/net -c 1
		refused 1 "--bpf-stats needs CAP_SYS_ADMIN (BPF_ENABLE_STATS); missing" \
			as_nobody bpf,perfmon "$BIN/$t" --bpf-stats -c 1
	done
}

# The run's user is the pass's: root, or nobody in tests/run-all.sh's nobody
# pass, where tests/as-nobody.sh runs every CLI (a guard on that pass).
@test "common CLI: the suite's runs are root's, or nobody's in the nobody pass" {
	local t uid
	for t in $(nm_tools); do
		start_bg "$TMP/$t.out" "$BIN/$t" -i 1
		uid=$(awk '$1 == "Uid:" { print $3 }' "/proc/$BG_PID/status")
		stop_bg TERM
		[ "$uid" = "$([ -n "${NM_REAL_BUILD:-}" ] && echo 65534 || echo 0)" ] || fail "$t ran as uid $uid"
	done
}

# The one exception: a host-wide run (no --netns) keeps what the names
# and sockets of other namespaces (and tcpstall's sweeps of them) need,
# CAP_SYS_PTRACE (19) and CAP_SYS_ADMIN (21), and nothing else; with one
# --netns (its own namespace's names) it keeps none.
# bats test_tags=root
@test "common CLI: once attached, root holds no capability, not even in the bounding set; no_new_privs" {
	local t want
	for t in $(nm_tools); do
		want=$(caps_mask 0000000000280000)
		start_bg "$TMP/$t.out" "$BIN/$t" -i 1
		assert_equal "$t $(proc_status "$BG_PID" CapEff)" "$t $want"
		assert_equal "$t $(proc_status "$BG_PID" CapPrm)" "$t $want"
		assert_equal "$t $(proc_status "$BG_PID" CapBnd)" "$t $want"
		assert_equal "$t $(proc_status "$BG_PID" NoNewPrivs)" "$t 1"
		stop_bg TERM
	done
	for t in $(nm_tools); do
		start_bg "$TMP/$t.one" "$BIN/$t" --netns /proc/self/ns/net -i 1
		assert_equal "$t $(proc_status "$BG_PID" CapEff)" "$t $(caps_mask 0)"
		assert_equal "$t $(proc_status "$BG_PID" CapBnd)" "$t $(caps_mask 0)"
		stop_bg TERM
	done
}
