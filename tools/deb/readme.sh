#!/usr/bin/env bash
# tools/deb/readme.sh: the package's README.Debian on stdout, from
# tools/deb/README.Debian with its counts and the CLIs' names filled in
# from the Makefile's list (tools/tools.sh), so that a tool added there is
# named and counted without an edit here. make deb installs it; a test
# (systemd.bats) reads it.
set -eu
cd "$(dirname "$0")/../.."
# shellcheck source=SCRIPTDIR/../tools.sh
. tools/tools.sh
# word N: N as English says it in running text (nine and under), else digits
word() {
	local w=(no one two three four five six seven eight nine)
	if [ "$1" -le 9 ]; then echo "${w[$1]}"; else echo "$1"; fi
}
sed -e "s|@N_PROGRAMS@|$(word "$(nm_programs | wc -l)")|g" \
	-e "s|@N_CLIS@|$(word "$(nm_tools | wc -l)")|g" \
	-e "s|@CLIS@|$(nm_tools | paste -sd, | sed 's/,/, /g')|g" tools/deb/README.Debian
