#!/usr/bin/env bash
# What the programs show a user, recorded from a fixed set of command
# lines, so that a change meant to move code only (issue "A tool is a
# folder") can be checked to change none of it:
#
#   tools/behaviour.sh record DIR    every case's output into DIR
#   tools/behaviour.sh check DIR     record again, and diff against DIR
#
# Per program (the CLIs and the agent): --help, --version, --print-caps,
# --list-hooks and --list-fixes (this kernel's: record and check on the
# same host), a set of bad command lines (their message and exit code),
# and a short run in an empty netns: its JSON records' keys by record
# type, and its metrics' names, labels, HELP and TYPE. Values (times,
# counts, inodes) are left out: they differ between two runs of the same
# code. Root, for the BPF and the netns. NETMEDIC_BUILD: the programs
# (default build/).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=SCRIPTDIR/tools.sh
. tools/tools.sh
B=${NETMEDIC_BUILD:-build}
NS=nm-behaviour

usage() { echo "usage: $0 record|check DIR" >&2; exit 2; }
[ $# = 2 ] || usage

# case NAME CMD...: stdout, stderr and the exit code, pids and the netns
# inode masked
case_run() {
	local out=$OUT/$1
	shift
	"$@" >"$out.out" 2>"$out.err" </dev/null
	echo "exit $?" >"$out.rc"
	sed -i -E -e 's/\b(pid|PID) [0-9]+/\1 N/g' -e "s/$NS_INO/NSINO/g" "$out.out" "$out.err"
}

# The keys of each JSON record type, arrays' indices folded: the schema as
# the records show it.
json_keys() {
	jq -r '(.type // "?") as $t | [paths(scalars) | map(if type == "number" then "[]" else tostring end)
		| join(".")] | unique[] | "\($t) \(.)"' "$1" 2>/dev/null | sort -u
}

# A textfile's metric names and label names; HELP and TYPE lines whole.
prom_shape() {
	grep '^#' "$1" | sort -u
	grep -v '^#' "$1" | sed -E -e 's/=("[^"]*")/=""/g' -e 's/ [^ ]+$//' | sort -u
}

record() {
	OUT=$1
	mkdir -p "$OUT" || exit 1
	ip netns del "$NS" 2>/dev/null
	ip netns add "$NS" || { echo "behaviour: cannot add netns $NS" >&2; exit 1; }
	ip -n "$NS" link set lo up
	NS_INO=$(stat -L -c %i "/run/netns/$NS")
	local p
	for p in $(nm_programs); do
		case_run "$p.help" "$B/$p" --help
		case_run "$p.version" "$B/$p" --version
		case_run "$p.print-caps" "$B/$p" --print-caps
		case_run "$p.list-hooks" "$B/$p" --list-hooks
		# shellcheck disable=SC2046 # options without spaces
		case_run "$p.list-hooks-all" "$B/$p" --list-hooks $(nm_every_hook_args "$p")
		case_run "$p.list-fixes" "$B/$p" --list-fixes
		case_run "$p.bad-option" "$B/$p" --no-such-option
		case_run "$p.bad-interval" "$B/$p" --interval=0
		case_run "$p.bad-count" "$B/$p" --count=x
		case_run "$p.bad-netns" "$B/$p" --netns=/nonexistent
		case_run "$p.bad-prom-file" "$B/$p" --prom-file=/
		case_run "$p.bad-hooks" "$B/$p" --hooks=none
		case_run "$p.extra-arg" "$B/$p" extra
		"$B/$p" --netns "$NS" --json -c 2 -i 1 --prom-file "$OUT/$p.prom.raw" \
			>"$OUT/$p.json.raw" 2>"$OUT/$p.run.err" </dev/null
		echo "exit $?" >"$OUT/$p.run.rc"
		json_keys "$OUT/$p.json.raw" >"$OUT/$p.json-keys"
		prom_shape "$OUT/$p.prom.raw" >"$OUT/$p.metrics"
		rm -f "$OUT/$p.json.raw" "$OUT/$p.prom.raw" "$OUT/$p.run.err"
	done
	ip netns del "$NS"
}

case $1 in
record) record "$2" ;;
check)
	tmp=$(mktemp -d) || exit 1
	trap 'rm -rf "$tmp"' EXIT
	record "$tmp"
	if diff -r "$2" "$tmp"; then
		echo "behaviour: the same as $2 ($(find "$tmp" -type f | wc -l) files)"
	else
		echo "behaviour: differs from $2 (the lines above)" >&2
		exit 1
	fi
	;;
*) usage ;;
esac
