#!/usr/bin/env bash
# make demo: for each CLI, tools/demo/NAME.sh reproduces its pathology in the
# lab, runs the CLI, prints the diagnosis and tears the lab down. Needs root.
set -u
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" = 0 ] || { echo "demo: must run as root" >&2; exit 1; }
rc=0
for d in "$here"/demo/*.sh; do
	bash "$d" || { echo "demo: $(basename "$d") failed" >&2; rc=1; }
done
exit $rc
