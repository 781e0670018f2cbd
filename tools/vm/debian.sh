# shellcheck shell=bash
# Sourced by tools/vm/run.sh and tools/faults/: which Debian package each
# kernel of the matrix is, and apt-get on Debian's suites without the host's
# apt setup. The caller sets VM_ARCH (x86, arm64), DEBARCH (amd64, arm64)
# and, for apt, VMDIR (the cache: build/vm).

# kernel_of KERNEL: "SUITE PACKAGE" of KERNEL on this architecture. The
# generic flavour (the -cloud- one has no 9p), the ABI pinned as 6.1's
# always was: a run names what it booted, and what is cached is not fetched
# again. Each the newest ABI of its series when written (2026-12-05):
# bullseye-security's linux-image-amd64 (5.10.262-1) depends on 5.10.0-46,
# bookworm-security holds 6.12.118 (bookworm-backports only 6.12.95).
# arm64's 5.10: bullseye-security lists 5.10.0-43 to -46 for arm64 too, but
# deb.debian.org answers 404 for each of their .debs; 5.10.0-32 (5.10.223,
# the bullseye point release's) is the newest it serves.
# newest: what unstable's linux-image-ARCH depends on, looked up each run.
kernel_of() {
	case $VM_ARCH:$1 in
	x86:5.10) echo "bullseye linux-image-5.10.0-46-$DEBARCH-unsigned" ;;
	arm64:5.10) echo "bullseye linux-image-5.10.0-32-$DEBARCH-unsigned" ;;
	*:6.1) echo "bookworm linux-image-6.1.0-57-$DEBARCH-unsigned" ;;
	x86:6.12) echo "bookworm linux-image-6.12.118+deb12-$DEBARCH-unsigned" ;;
	x86:newest) echo "sid -" ;;
	*) return 1 ;;
	esac
}

# --- Debian's package lists, a private state per suite: apt-get with its
# own sources list, lists and cache under build/vm/apt/SUITE-ARCH, no dpkg
# status, one architecture. The host's apt setup (/etc/apt/sources.list*,
# /var/lib/apt) is neither read nor changed; its apt.conf.d (a proxy) is read.
MIRROR=${VM_DEBIAN_MIRROR:-http://deb.debian.org}
APTO=()
# apt_use SUITE: APTO for SUITE's state, its sources list written
apt_use() {
	local d=$VMDIR/apt/$1-$DEBARCH k=/usr/share/keyrings/debian-archive-keyring.gpg
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/none" || return 1
	case $1 in
	sid) echo "deb [signed-by=$k] $MIRROR/debian sid main" ;;
	# the point release, its updates, and the security archive: where a
	# stable release's new kernel ABIs land first
	*) printf 'deb [signed-by=%s] %s\n' "$k" "$MIRROR/debian $1 main" "$k" "$MIRROR/debian $1-updates main" \
		"$k" "$MIRROR/debian-security $1-security main" ;;
	esac >"$d/sources.list" || return 1
	# downloads as root (APT::Sandbox::User): these directories are not
	# _apt's; gpgv still checks each suite's signature
	APTO=(-o Dir::Etc::SourceList="$d/sources.list" -o Dir::Etc::SourceParts="$d/none"
		-o Dir::Etc::Preferences="$d/none/preferences" -o Dir::Etc::PreferencesParts="$d/none"
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" -o Dir::State::status=/dev/null
		-o APT::Architecture="$DEBARCH" -o APT::Architectures::="$DEBARCH" -o APT::Sandbox::User=root)
}
# apt_update: fetch apt_use's lists; apt's complaints when one fails
apt_update() {
	local out
	out=$(timeout 300 apt-get -q "${APTO[@]}" update 2>&1) && return 0
	grep -E '^(W|E|Err):' <<<"$out" >&2
	return 1
}
apt_has() { apt-cache "${APTO[@]}" show "$1" >/dev/null 2>&1; }
