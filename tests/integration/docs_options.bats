#!/usr/bin/env bats
# The docs cannot drift from the option tables: the long options each
# tool's --help prints are the option terms of the OPTIONS of its man page
# (docs/NAME.md) and of its reference (docs/reference/NAME.md, each at
# length), both ways; the man page's text of each is what --help prints;
# and README's common options are the ones the --help of the tools list
# under "Common options". (tests/unit/test_optdoc.c checks that the text
# is the option tables'.) No root, no BPF, no lab: --help and the docs
# only.

load helpers

# help_opts TOOL: the long options --help prints, one a line, sorted. An
# option's line starts "  -x, --name", "  -x, -y, --name" (an alias) or
# "      --name"; wrapped text is indented further, so a "--name" inside it
# is not taken.
help_opts() {
	"$BIN/$1" --help | sed -n 's/^\(  \(-[^-], \)\+\|      \)--\([a-z][a-z0-9-]*\).*/--\3/p' | sort -u
}

# help_common TOOL: those of them listed under " Common options:"
help_common() {
	"$BIN/$1" --help | awk '/^ Common options:$/ { on = 1; next } on && /^$/ { exit } on' |
		sed -n 's/^\(  \(-[^-], \)\+\|      \)--\([a-z][a-z0-9-]*\).*/--\3/p' | sort -u
}

# doc_opts FILE: the long options named by the terms of FILE's OPTIONS (up
# to its first subsection), sorted. A term is a line that starts in column
# 1 and is followed by ":   " (a definition list); code fences are skipped.
doc_opts() {
	awk '/^## / { on = ($0 == "## OPTIONS"); next } /^### / { on = 0 }
		on && /^ *```/ { f = !f; next } on && !f' "$1" |
		awk '/^:   / && prev ~ /^[^ :]/ { print prev } { prev = $0 }' |
		sed -e 's/[`*]//g' -e 's/\\//g' | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}

# differ WHAT A B: fail naming what is in one list only
differ() {
	local only_a only_b
	only_a=$(comm -23 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | paste -sd ' ')
	only_b=$(comm -13 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | paste -sd ' ')
	[ -z "$only_a$only_b" ] && return 0
	echo "$1: only in --help: ${only_a:-none}; only in the doc: ${only_b:-none}"
	return 1
}

@test "docs: each tool's OPTIONS, in its man page and its reference, documents exactly the long options its --help prints" {
	local t n=0 h d doc
	for t in $(nm_tools); do
		h=$(help_opts "$t")
		# a parse that found nothing must not pass as agreement
		[ "$(printf '%s\n' "$h" | grep -c .)" -ge 10 ] || { echo "$t: --help: $h"; false; }
		for doc in "docs/$t.md" "docs/reference/$t.md"; do
			d=$(doc_opts "$ROOT/$doc")
			[ "$(printf '%s\n' "$d" | grep -c .)" -ge 10 ] || { echo "$doc: $d"; false; }
			differ "$doc OPTIONS" "$h" "$d"
		done
		n=$((n + 1))
	done
	[ "$n" -ge 3 ]
}

# help_texts TOOL: "--name<TAB>text" for each option --help prints, its
# text on one line, one space between words. An option's line starts as
# help_opts says; its text goes on after the term, then on lines indented
# to argp's doc column.
help_texts() {
	"$BIN/$1" --help | awk '
		function out() { if (name != "") print name "\t" text; name = "" }
		/^  (-[^-], )+--[a-z]|^      --[a-z]/ {
			out()
			match($0, /--[a-z][a-z0-9-]*/)
			name = substr($0, RSTART, RLENGTH)
			text = $0
			sub(/^ +(-[^-], )*--[^ ]+ */, "", text)
			next
		}
		/^                    +[^ ]/ && name != "" { t = $0; sub(/^ +/, "", t); text = text " " t; next }
		{ out() }
		END { out() }' | sed -e 's/  */ /g' -e 's/\t /\t/' | sort
}

# man_texts TOOL: the same of the OPTIONS of docs/TOOL.md, the man page:
# each term's long option and its text, Markdown escapes undone
man_texts() {
	awk '/^## / { on = ($0 == "## OPTIONS"); next } on' "$ROOT/docs/$1.md" | awk '
		function out() { if (name != "") print name "\t" text; name = "" }
		/^:   / && prev ~ /^`/ {
			out()
			match(prev, /--[a-z][a-z0-9-]*/)
			name = substr(prev, RSTART, RLENGTH)
			text = substr($0, 5)
			next
		}
		/^    [^ ]/ && name != "" { text = text " " substr($0, 5); next }
		{ out(); prev = $0 }
		END { out() }' | sed -e 's/\\\(.\)/\1/g' -e 's/  */ /g' | sort
}

# The man page is the short form: each option's text there is --help's,
# word for word (make docs writes it from the same argp table).
@test "docs: each tool's man page gives each option the text its --help prints" {
	local t h d
	for t in $(nm_tools); do
		h=$(help_texts "$t")
		d=$(man_texts "$t")
		[ "$(printf '%s\n' "$h" | grep -c .)" -ge 10 ] || { echo "$t: --help: $h"; false; }
		assert_equal "$t: $d" "$t: $h"
	done
}

# README's common options: those of every tool's --help (a tool may not
# take one: tcpstall, --dev), and each that not every tool takes says
# which do, "(... xpsflap and qdiscstuck only)", naming every tool that
# lists it and none that does not.
@test "docs: README's common options are the tools' Common options, and say which tools take those not all take" {
	local t o all para readme note n=0
	all=$(for t in $(nm_tools); do help_common "$t"; done | sort -u)
	[ "$(printf '%s\n' "$all" | grep -c .)" -ge 10 ]
	# the paragraph's first sentence: "Common options (...): `-i/--interval SEC`, ..."
	para=$(awk '/^Common options/ { on = 1 } on && /^$/ { exit } on' "$ROOT/README.md" |
		tr '\n' ' ' | sed 's/\. .*//')
	readme=$(printf '%s\n' "$para" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u)
	differ "README.md's common options" "$all" "$readme"
	for t in $(nm_tools); do
		for o in $all; do
			# README's words on o: its code span and what follows, up to the next
			note=$(printf '%s\n' "$para" | grep -o -- "\`[^\`]*$o\( [^\`]*\)\?\`[^\`]*" | head -1)
			[ -n "$note" ] || { echo "README.md: no $o"; false; }
			if help_common "$t" | grep -qx -- "$o"; then
				[[ $note != *" only"* || $note == *"$t"* ]] ||
					{ echo "$t takes $o; README.md says: $note"; false; }
			else
				[[ $note == *" only"* && $note != *"$t"* ]] ||
					{ echo "$t does not take $o; README.md says: $note"; false; }
				n=$((n + 1))
			fi
		done
	done
	# tcpstall's --dev, at least, is one such
	[ "$n" -ge 1 ]
}

# docs/KERNELS.md's matrix is written from the kernels' own --list-hooks
# (make kernels-doc), never by hand: its region is what tools/kernels-doc.sh
# makes of docs/kernels/, which holds every kernel of the matrix (x86: 5.10,
# 6.1, 6.12, the newest; arm64: 5.10, 6.1), each with every CLI's ladder.
@test "docs: KERNELS.md's matrix is the kernels' own --list-hooks, every kernel of the matrix" {
	run "$ROOT/tools/kernels-doc.sh" "$ROOT/docs/kernels" --check "$ROOT/docs/KERNELS.md"
	assert_success
	local f t want
	for want in x86-5.10 x86-6.1 x86-6.12 arm64-5.10 arm64-6.1; do
		ls "$ROOT/docs/kernels/$want".*.jsonl >/dev/null || fail "no docs/kernels/$want.*.jsonl"
	done
	# the newest: a Debian unstable kernel past the 6.x series
	ls "$ROOT"/docs/kernels/x86-[7-9].*.jsonl >/dev/null || fail "no newest kernel in docs/kernels"
	for f in "$ROOT"/docs/kernels/*.jsonl; do
		for t in $(nm_tools); do
			jq -se --arg t "$t" 'any(.[]; .type == "rung" and .tool == $t)' "$f" >/dev/null || fail "$f: no rungs of $t"
		done
	done
}
