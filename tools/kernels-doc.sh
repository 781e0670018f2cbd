#!/usr/bin/env bash
# docs/KERNELS.md's matrix, written from what the runs printed: each file
# docs/kernels/ARCH-KVER.jsonl holds every CLI's `--list-hooks --json` on
# that kernel (make vmtest and make vmtest-matrix keep them by kernel under
# build/vm/hooks/, the host's comes from its own run: make kernels-doc).
# One row a tool's hook, one column a kernel: the rung it took there, or
# "lost"; then, per kernel, what each lost part costs, in the tools' words.
#
# Usage: kernels-doc.sh DIR             print the region
#        kernels-doc.sh DIR --write DOC  put it between DOC's markers
#        kernels-doc.sh DIR --check DOC  exit 1 when DOC's region differs
#        kernels-doc.sh DIR --host BUILD this host's file, from BUILD's CLIs
#          (it replaces an older build of the same version: a host's kernel
#          changes between runs, the guests' are pinned packages)
set -euo pipefail
DIR=${1:?usage: kernels-doc.sh DIR [--write|--check DOC]}
BEGIN='<!-- kernels-doc: begin (tools/kernels-doc.sh writes this from docs/kernels/*.jsonl: make kernels-doc) -->'
END='<!-- kernels-doc: end -->'

# the files, oldest kernel first, x86 before arm64 for one version
files() {
	local f b
	for f in "$DIR"/*.jsonl; do
		[ -e "$f" ] || continue
		b=${f##*/}
		b=${b%.jsonl}
		printf '%s %s %s\n' "$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"${b#*-}")" "$([ "${b%%-*}" = x86 ] && echo 0 || echo 1)" "$f"
	done | sort -V -k1,1 -k2,2 | awk '{ print $3 }'
}

# col FILE: its column's heading, "5.10 x86 (5.10.0-46-amd64)"
col() {
	local b=${1##*/}
	b=${b%.jsonl}
	local arch=${b%%-*} kver=${b#*-}
	local mm
	mm=$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$kver")
	printf '%s %s (`%s`)' "$mm" "$arch" "$kver"
}

# chosen FILE: "TOOL HOOK LABEL" for each hook, LABEL "lost" for a none rung
chosen() {
	jq -r 'select(.type == "rung" and (.verdict | startswith("chosen")))
		| "\(.tool) \(.hook) \(if .program == "none" then "lost" else .program end)"' "$1"
}

region() {
	local f fs=() heads=() sep='|---|---|' row
	mapfile -t fs < <(files)
	[ "${#fs[@]}" -gt 0 ] || { echo "kernels-doc: no $DIR/*.jsonl" >&2; return 1; }
	for f in "${fs[@]}"; do
		heads+=("$(col "$f")")
		sep+='---|'
	done
	echo "$BEGIN"
	echo
	printf '| tool | hook |'
	printf ' %s |' "${heads[@]}"
	echo
	echo "$sep"
	# rows in the order the newest kernel lists them (it declares every hook)
	chosen "${fs[-1]}" | while read -r t h _; do
		printf '| %s | %s |' "$t" "$h"
		for f in "${fs[@]}"; do
			row=$(chosen "$f" | awk -v t="$t" -v h="$h" '$1 == t && $2 == h { print $3; exit }')
			case $row in
			lost) printf ' **lost** |' ;;
			'') printf ' — |' ;;
			*) printf ' `%s` |' "$row" ;;
			esac
		done
		echo
	done
	echo
	echo 'What each kernel refused, above the rung each hook took, and what it loses (a `none` rung), as'
	echo '`--list-hooks` says:'
	echo
	for f in "${fs[@]}"; do
		# (a rung the --fix=kick ladder holds twice is said once)
		row=$({ jq -r 'select(.type == "rung" and (.verdict | startswith("chosen") or . == "not needed" | not))
				| "  - \(.tool) \(.hook): \(.verdict)"' "$f"
			jq -r 'select(.type == "rung" and .program == "none" and (.verdict | startswith("chosen")))
				| "  - \(.tool) \(.hook) **lost**: \(.verdict | sub("^chosen: "; ""))"' "$f"; } | awk '!seen[$0]++')
		if [ -n "$row" ]; then
			printf -- '- **%s**:\n%s\n' "$(col "$f")" "$row"
		else
			printf -- '- **%s**: nothing\n' "$(col "$f")"
		fi
	done
	echo
	echo "$END"
}

# host BUILD: DIR/ARCH-KVER.jsonl of this kernel, as the guests' are made
host() {
	local arch kver mm t
	case $(uname -m) in x86_64) arch=x86 ;; aarch64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
	kver=$(uname -r)
	mm=$(sed -E 's/^([0-9]+\.[0-9]+).*/\1/' <<<"$kver")
	# shellcheck source=tools.sh
	. "$(dirname "$0")/tools.sh"
	rm -f "$DIR/$arch-$mm".*.jsonl
	for t in $(nm_tools); do
		# shellcheck disable=SC2046 # options without spaces
		NETMEDIC_HOOKS=auto "$1/$t" $(nm_every_hook_args "$t") --list-hooks --json
	done >"$DIR/$arch-$kver.jsonl"
}

case ${2:-} in
'') region ;;
--host) host "${3:?--host BUILD}" ;;
--write | --check)
	doc=${3:?--write/--check DOC}
	grep -qxF "$BEGIN" "$doc" && grep -qxF "$END" "$doc" || { echo "kernels-doc: $doc has no markers" >&2; exit 1; }
	new=$(mktemp)
	trap 'rm -f "$new" "$new.r"' EXIT
	region >"$new.r"
	awk -v b="$BEGIN" -v e="$END" -v r="$new.r" '
		$0 == b { while ((getline l < r) > 0) print l; skip = 1; next }
		$0 == e { skip = 0; next }
		!skip' "$doc" >"$new"
	rm -f "$new.r"
	if [ "$2" = --check ]; then
		cmp -s "$new" "$doc" || { echo "kernels-doc: $doc's matrix differs from $DIR (make kernels-doc)" >&2; diff "$doc" "$new" >&2 || true; exit 1; }
	else
		cat "$new" >"$doc"
	fi
	;;
*) echo "kernels-doc: $2: --write or --check" >&2; exit 2 ;;
esac
