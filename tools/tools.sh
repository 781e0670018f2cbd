# shellcheck shell=bash
# Sourced by the scripts and tests that do something for every CLI.
# nm_tools: the CLIs, one a line, from one place: the Makefile's TOOLS,
# which make exports as NETMEDIC_TOOLS to every command it runs; run by
# hand, by the Makefile's own rule: every src/NAME.c is a CLI.
nm_tools() {
	local f
	if [ -n "${NETMEDIC_TOOLS:-}" ]; then
		# shellcheck disable=SC2086 # a list of names without spaces
		printf '%s\n' $NETMEDIC_TOOLS
		return
	fi
	for f in "$(dirname "${BASH_SOURCE[0]}")"/../src/*.c; do
		f=${f##*/}
		echo "${f%.c}"
	done
}
