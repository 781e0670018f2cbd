#!/usr/bin/env bats
# The man pages make install writes (make install-man: docs/NAME.md through
# lowdown): groff renders each without a warning, no Markdown is left in
# the text, and each holds its page's NAME, SYNOPSIS and OPTIONS. What a
# user expects of a man page: at most 250 lines at 80 columns, none wider;
# the sections NAME, SYNOPSIS, DESCRIPTION, OPTIONS, OUTPUT, EXIT STATUS,
# EXAMPLES and SEE ALSO, in that order, and no other (the rest is the
# tool's reference, docs/reference/NAME.md); 5 to 10 examples of a line
# each; and no path the package does not install. No root, no BPF, no
# build: it reads the docs and the pages, and installs the pages and the
# docs alone.

load helpers

# the longest page, in lines at 80 columns (MANWIDTH=80 man -l PAGE | wc -l)
MAN_MAX_LINES=250
# the sections of every page, in this order
MAN_SECTIONS=$'NAME\nSYNOPSIS\nDESCRIPTION\nOPTIONS\nOUTPUT\nEXIT STATUS\nEXAMPLES\nSEE ALSO'

setup_file() {
	MAN_ROOT=$(mktemp -d)
	export MAN_ROOT
	make -C "$ROOT" --no-print-directory install-man install-docs DESTDIR="$MAN_ROOT" PREFIX=/usr \
		>/dev/null
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

# at80 TOOL: the page as man shows it at 80 columns, in ASCII (the C
# locale: one byte a column)
at80() {
	LC_ALL=C MANWIDTH=80 man -l "$(page "$1")" 2>/dev/null
}

@test "man pages: each is at most $MAN_MAX_LINES lines at 80 columns, and no line is wider" {
	local t n wide
	for t in $(nm_programs); do
		n=$(at80 "$t" | wc -l)
		echo "$t: $n lines at 80 columns"
		[ "$n" -gt 20 ]
		[ "$n" -le "$MAN_MAX_LINES" ] || { echo "$t: more than $MAN_MAX_LINES lines"; false; }
		wide=$(at80 "$t" | awk 'length > 80')
		[ -z "$wide" ] || { echo "$t: wider than 80 columns:"; echo "$wide"; false; }
	done
}

@test "man pages: each has NAME, SYNOPSIS, DESCRIPTION, OPTIONS, OUTPUT, EXIT STATUS, EXAMPLES, SEE ALSO, in that order, and no other" {
	local t
	for t in $(nm_programs); do
		# a section's heading starts in column 1; the first line is the
		# page's header, the last its footer
		assert_equal "$t: $(text "$t" | sed '1d;$d' | grep '^[A-Z]' | paste -sd '|')" \
			"$t: $(printf '%s\n' "$MAN_SECTIONS" | paste -sd '|')"
	done
}

# An example is one line, a command line of the page's program (a pipe
# after it, a comment at its end); more than 10 is a tutorial, which the
# reference holds.
@test "man pages: EXAMPLES holds 5 to 10 examples, each one line that runs the page's program" {
	local t n line
	for t in $(nm_programs); do
		n=0
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			[[ $line =~ ^\ +$t(\ |$) ]] || { echo "$t: EXAMPLES: not a command line of $t: $line"; false; }
			n=$((n + 1))
		done < <(section "$(at80 "$t")" EXAMPLES)
		echo "$t: $n examples"
		[ "$n" -ge 5 ] && [ "$n" -le 10 ]
	done
}

# Every path a page names is one the package installs or one the tool uses
# on the host at run time. Installed: what make install writes with
# PREFIX=/usr (the man pages and docs, make install-man install-docs, here;
# the programs in /usr/sbin and their units, which need a build, by name).
# At run time: what the tools read or write on the host, never installed:
# /proc, /sys, the named namespaces (/run/netns), the journals
# (/run/netmedic, and the units' /run/netmedic-unit), node_exporter's
# textfile directory (Debian's, where the units write), the services
# database (port names), /dev/null, and /metrics, the HTTP path --listen
# serves. A path of the source tree (docs/..., tools/..., src/...) is never
# installed under that name: a page names none.
RUNTIME_PATHS='^/(proc|sys)(/|$)|^/run/netns(/|$)|^/run/netmedic(-unit)?(/|$)|^/var/lib/prometheus/node-exporter(/|$)|^/etc/services$|^/dev/null$|^/metrics$'

# page_paths TOOL: the paths the page names, one a line: absolute ones (a
# "/" after a space, a bracket or a quote: not fentry/fexit), and any that
# starts with a directory of the source tree
page_paths() {
	text "$1" | grep -oE '(^|[][[:space:](`"'\''=,])(/[[:alnum:]._@%+-]+)+|(^|[^[:alnum:]_./-])(docs|tools|src|tests|bpf|include|build)/[[:alnum:]_./-]*' |
		sed -E -e 's|^[^/[:alnum:]]||' -e 's|[.,;:]+$||' | sort -u
}

# installed PATH: whether make install DESTDIR=... PREFIX=/usr writes PATH
installed() {
	local p
	[ -e "$MAN_ROOT$1" ] && return 0
	for p in $(nm_programs); do
		case $1 in
		/usr/sbin/"$p" | /lib/systemd/system/"$p".service | /usr/lib/systemd/system/"$p".service) return 0 ;;
		esac
	done
	return 1
}

@test "man pages: every path a page names is installed, or one the tool uses at run time" {
	local t p n=0
	# what the pages point to for the rest: each tool's reference
	for t in $(nm_tools); do
		[ -s "$MAN_ROOT/usr/share/doc/netmedic/reference/$t.md" ]
	done
	for t in $(nm_programs); do
		while IFS= read -r p; do
			[ -n "$p" ] || continue
			n=$((n + 1))
			installed "$p" && continue
			[[ $p =~ $RUNTIME_PATHS ]] && continue
			echo "$t: names $p, which make install does not write and $t does not use at run time"
			false
		done < <(page_paths "$t")
	done
	# the pages name some: a parse that found none must not pass
	[ "$n" -ge 8 ]
}
