#!/usr/bin/env bats
# The man pages make install writes (make install-man: docs/NAME.md through
# lowdown): groff renders each without a warning, no Markdown is left in
# the text, and each holds its page's NAME, SYNOPSIS and OPTIONS. No root,
# no BPF: it reads the docs and the pages only.

load helpers

setup_file() {
	MAN_ROOT=$(mktemp -d)
	export MAN_ROOT
	make -C "$ROOT" --no-print-directory install-man DESTDIR="$MAN_ROOT" PREFIX=/usr >/dev/null
}

teardown_file() {
	rm -rf "$MAN_ROOT"
}

page() {
	echo "$MAN_ROOT/usr/share/man/man8/$1.8"
}

# text TOOL: the page as man shows it, on lines too long to wrap or
# hyphenate, so that what the doc says is found as it says it
text() {
	MANWIDTH=1000 man -l "$(page "$1")"
}

# section TEXT NAME: the lines of section NAME, its heading excluded
section() {
	printf '%s\n' "$1" | awk -v s="$2" '/^[A-Z]/ { on = ($0 == s); next } on'
}

# doc_section TOOL NAME: the lines of "## NAME" in docs/TOOL.md
doc_section() {
	awk -v s="## $2" '/^## / { on = ($0 == s); next } on' "$ROOT/docs/$1.md"
}

# Markdown to the words man shows: no emphasis, code or escapes, one space
plain() {
	sed -e 's/\*\*//g' -e 's/`//g' -e 's/\*\([^*]*\)\*/\1/g' -e 's/\\\([_*|\\]\)/\1/g' \
		-e 's/\\$//' | tr -s ' \t\n' '   ' | sed -e 's/^ //' -e 's/ $//'
}

squeeze() {
	tr -s ' \t\n' '   ' | sed -e 's/^ //' -e 's/ $//'
}

# fenced CHARS TOOL: how often CHARS occurs inside the doc's code fences
fenced() {
	awk '/^ *```/ { f = !f; next } f' "$ROOT/docs/$2.md" | grep -oF -- "$1" | wc -l
}

@test "man pages: make install-man writes each tool's page and the agent's, section 8" {
	local n=0 t
	for t in $(nm_programs); do
		[ -s "$(page "$t")" ]
		run grep -c "^\.TH \"${t^^}\" \"8\" \"[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]\" \"netmedic\"" "$(page "$t")"
		assert_output 1
		n=$((n + 1))
	done
	[ "$n" -ge 4 ]
}

# Line breaking and adjusting depend on the terminal's width: at 80
# columns the widest tables (hooks, metrics, privileges) are squeezed, as
# lowdown's tbl tables are. Every other warning is the page's fault.
@test "man pages: groff renders each without a warning, man -l too" {
	local t
	for t in $(nm_programs); do
		run groff -t -man -Tutf8 -ww -Wbreak -z "$(page "$t")"
		assert_success
		printf '%s\n' "$output" | grep -v -e 'around line [0-9]*:$' -e 'table wider than line width' \
			-e 'table squeezed horizontally' -e 'column separation set to zero' | {
			! grep .
		}
		run --separate-stderr text "$t"
		assert_success
		[ -z "$stderr" ] || { echo "$t: $stderr"; false; }
	done
}

@test "man pages: no Markdown left: **, \`, \\* and \\_ only where the doc's code has them" {
	local t s out
	for t in $(nm_programs); do
		out=$(MANWIDTH=80 man -l "$(page "$t")" 2>/dev/null)
		for s in '**' '`' '\*' '\_'; do
			assert_equal "$t $s $(printf '%s\n' "$out" | grep -oF -- "$s" | wc -l)" \
				"$t $s $(fenced "$s" "$t")"
		done
	done
}

@test "man pages: each holds its doc's NAME and SYNOPSIS" {
	local t out want line
	for t in $(nm_programs); do
		out=$(text "$t")
		want=$(doc_section "$t" NAME | plain)
		[ -n "$want" ]
		assert_equal "$(section "$out" NAME | squeeze)" "$want"
		# each form of the command on a line of its own
		n=0
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			want=$(printf '%s\n' "$line" | plain)
			section "$out" SYNOPSIS | squeeze_lines | grep -qxF -- "$want" ||
				{ echo "$t: SYNOPSIS lacks: $want"; false; }
			n=$((n + 1))
		done < <(doc_section "$t" SYNOPSIS)
		[ "$n" -ge 2 ]
	done
}

squeeze_lines() {
	sed -e 's/[[:space:]]\+/ /g' -e 's/^ //' -e 's/ $//'
}

# The options are a definition list: a term ("`--opt=ARG`", "**--opt** *ARG*"),
# then ":   text", its further lines indented. Each term is a line of OPTIONS, and the first
# paragraph of its text follows it, word for word.
@test "man pages: each holds its doc's OPTIONS, every term and its text" {
	local t out opts n term desc
	for t in $(nm_programs); do
		out=$(text "$t")
		opts=$(section "$out" OPTIONS | squeeze_lines)
		n=0
		while IFS=$'\t' read -r term desc; do
			printf '%s\n' "$opts" | grep -qxF -- "$term" || { echo "$t: OPTIONS lacks $term"; false; }
			printf '%s\n' "$opts" | squeeze | grep -qF -- "$term $desc" ||
				{ echo "$t: OPTIONS: $term lacks: $desc"; false; }
			n=$((n + 1))
		done < <(doc_section "$t" OPTIONS | awk '
			indesc && /^    [^ `]/ { d = d " " substr($0, 5); next }
			indesc { print term "\t" d; indesc = 0 }
			/^:   / && prev ~ /^[^ :]/ { term = prev; d = substr($0, 5); indesc = 1 }
			{ prev = $0 }
			END { if (indesc) print term "\t" d }' | while IFS=$'\t' read -r term desc; do
				printf '%s\t%s\n' "$(printf '%s' "$term" | plain)" "$(printf '%s' "$desc" | plain)"
			done)
		echo "$t: $n options"
		[ "$n" -ge 5 ]
	done
}
