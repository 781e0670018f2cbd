#!/bin/sh
# A CLI as nobody (uid and gid 65534, no groups) holding exactly the
# capabilities it asks for with --print-caps, inherited and ambient, so that
# they are its effective set: what a unit with DynamicUser and
# AmbientCapabilities would give it. tests/run-all.sh makes a build
# directory of these, one a CLI ($NM_REAL_BUILD holds the real ones), and
# runs the integration suite against it: every tool invocation of the suite
# then runs unprivileged. A caller that is not root (a test's own setpriv)
# gets the real binary as it is.
real=${NM_REAL_BUILD:?}/$(basename "$0")
[ "$(id -u)" = 0 ] || exec "$real" "$@"
nobody="--reuid=65534 --regid=65534 --clear-groups"
# shellcheck disable=SC2086 # $nobody: three options
caps=$(setpriv $nobody "$real" --print-caps "$@" 2>/dev/null |
	sed -n 's/^CAP_\([A-Z_]*\)\t.*/+\1/p' | tr 'A-Z' 'a-z' | sort -u | paste -sd, -)
[ -n "$caps" ] || exec setpriv $nobody "$real" "$@"
exec setpriv $nobody --inh-caps="$caps" --ambient-caps="$caps" "$real" "$@"
