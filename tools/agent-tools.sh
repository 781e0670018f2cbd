#!/bin/sh
# agent-tools.sh NAME... > build/agent_tools.h (the Makefile's rule, NAME
# its TOOLS): the agent's detectors, for src/agent and bpf/netmedic.bpf.c,
# so that a tool's own files are all a new detector needs.
#
# Each tool says its part in one line of its src/NAME/hooks.h:
#	#define NM_DETECTOR_NAME	PFX, RANK
# PFX is the prefix of its names (PFX_hook_decls, PFX_shared_progs,
# PFX_on_queue() in src/NAME/NAME.bpf.h); RANK orders the detectors: their
# handlers on net_dev_queue, each step of the agent, the output. TOOLS'
# order (alphabetical) is not theirs.
#
# The header: NM_AGENT_TOOLS, an X-macro of X(NAME, PFX) in rank order,
# the names for the agent's help, and what a macro cannot write: the
# includes, and a detector's renames (agent/bind.h, built with -DNM_AGENT).
#
# agent-tools.sh --names NAME...: the detectors' names alone, a line each,
# in rank order (tools/tools.sh: nm_detectors, for the tests).
set -eu

names_only=
[ "${1:-}" = --names ] && { names_only=1; shift; }
[ $# -gt 0 ] || { echo "usage: $0 [--names] NAME..." >&2; exit 2; }
src=$(dirname "$0")/../src

# "RANK NAME PFX", a line each
dets=$(for t in "$@"; do
	f=$src/$t/hooks.h
	l=$(sed -n "s/^#define NM_DETECTOR_${t}[[:space:]]\{1,\}\([a-z0-9_]\{1,\}\), *\([0-9]\{1,\}\)$/\2 $t \1/p" "$f")
	if [ "$(echo "$l" | grep -c .)" != 1 ]; then
		echo "$0: $f: not one line '#define NM_DETECTOR_$t PFX, RANK'" >&2
		exit 1
	fi
	echo "$l"
done) || exit 1
dup=$(echo "$dets" | awk '{ print $1 }' | sort -n | uniq -d)
if [ -n "$dup" ]; then
	echo "$0: two detectors of rank $dup (src/*/hooks.h: NM_DETECTOR_*)" >&2
	exit 1
fi
dets=$(echo "$dets" | sort -n -k1,1)
if [ -n "$names_only" ]; then
	echo "$dets" | awk '{ print $2 }'
	exit 0
fi

# "a, b, c" and "a, b and c"
names=$(echo "$dets" | awk '{ print $2 }' | paste -sd, - | sed 's/,/, /g')
names_and=$(echo "$names" | sed 's/\(.*\), /\1 and /')

echo "/* Written by tools/agent-tools.sh (make), from src/NAME/hooks.h: do not edit. */"
echo "#ifndef NETMEDIC_AGENT_TOOLS_H"
echo "#define NETMEDIC_AGENT_TOOLS_H"
echo
echo "/* the detectors in rank order, X(NAME, PFX) */"
echo "#define NM_AGENT_TOOLS \\"
echo "$dets" | awk '{ printf "\tX(%s, %s)%s\n", $2, $3, NR < n ? " \\" : "" }' n="$(echo "$dets" | wc -l)"
echo "#define NM_AGENT_NAMES \"$names\""
echo "#define NM_AGENT_NAMES_AND \"$names_and\""
echo
echo "#ifdef __bpf__"
echo "$dets" | awk '{ printf "#include \"%s/%s.bpf.h\"\n", $2, $2 }'
echo "#else"
echo "$dets" | awk '{ printf "#include \"%s/hooks.h\"\n", $2 }'
echo "#endif"
echo
echo "#ifdef NM_AGENT"
echo "/* a detector's skeleton is the agent's; its ladder, the agent's copy */"
echo "$dets" | awk '{ printf "#define %s_bpf netmedic_bpf\n#define %s_hook_decls %s_agent_decls\n", $2, $3, $3 }'
echo "#endif"
echo
echo "#endif"
