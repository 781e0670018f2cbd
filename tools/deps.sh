#!/bin/sh
# Installs the Debian packages listed in tools/deps.txt that are missing.
# Runs apt-get only when something is missing, so `make test` stays quick.
set -eu
cd "$(dirname "$0")"
missing=""
for p in $(grep -v '^#' deps.txt); do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
