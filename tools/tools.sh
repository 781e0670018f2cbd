# shellcheck shell=bash
# Sourced by the scripts and tests that do something for every CLI.
# the tree's root, whatever the directory later calls run in
NM_TREE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# nm_tools: the CLIs, one a line, from one place: the Makefile's TOOLS (in
# the order the agent runs them),
# which make exports as NETMEDIC_TOOLS to every command it runs; run by
# hand, read from the Makefile's line itself.
nm_tools() {
	if [ -n "${NETMEDIC_TOOLS:-}" ]; then
		# shellcheck disable=SC2086 # a list of names without spaces
		printf '%s\n' $NETMEDIC_TOOLS
		return
	fi
	sed -n 's/^TOOLS := //p' "$NM_TREE/Makefile" | tr ' ' '\n'
}
# nm_programs: what is installed, packaged and given a unit and a man page:
# the CLIs and the agent (the Makefile's AGENT, NETMEDIC_AGENT)
nm_programs() {
	nm_tools
	echo "${NETMEDIC_AGENT:-netmedic}"
}
# nm_every_hook_args TOOL: the options that make TOOL declare every hook it
# has (a remedy's companion program is declared only when that remedy is
# asked for): every_hook_args of the tool's own src/TOOL/tool.sh
nm_every_hook_args() {
	local f="$NM_TREE/src/$1/tool.sh"
	[ -r "$f" ] || return 0
	# shellcheck disable=SC1090 # the tool's file, by its name
	(. "$f" && echo "${every_hook_args:-}")
}
# nm_scope_tools BUILD NS_A NS_B: the CLIs that take a scope (watch more
# than one netns, lib/scope.h), one a line: those that accept two --netns,
# asked with two real namespaces (lib/cli refuses a second one for a tool
# that watches one, before anything else answers)
nm_scope_tools() {
	local t
	for t in $(nm_tools); do
		"$1/$t" --netns "$2" --netns "$3" --print-caps >/dev/null 2>&1 && echo "$t"
	done
	return 0
}
