#!/bin/sh
# mkman.sh - turn a netmedic documentation page into a man page.
#
#   tools/mkman.sh docs/NAME.md > NAME.8
#
# POSIX sh + awk (mawk, gawk, busybox). The page is Markdown written the way
# docs/*.md are written; this is what is understood:
#
#   # name(8)               first line: .TH NAME 8 (name and section)
#   ## HEADING              .SH HEADING       ### Sub   .SS Sub
#   text lines              filled paragraphs (a blank line separates them);
#                           a line ending in "\" or two spaces breaks (.br)
#   - item / * item         bullet list (.IP \(bu); "  - item" nests once;
#                           indented lines after a blank line continue it
#   1. item                 numbered list
#   term                    definition list (.TP), pandoc style: the term
#   :   description         line, then ": " and the description; further
#                           paragraphs of it indented by 4 spaces
#   ``` ... ```             code (.nf/.fi), also inside list items when
#                           indented; no inline markup is applied there
#   | a | b |               tables are kept as preformatted text
#   > quote                 indented paragraph
#   **bold**, `code`        \fB...\fR      *emphasis*, _emphasis_  \fI...\fR
#   [text](url)             text (url)     <url>  url
#   <!-- comment -->        dropped
#
# Backslashes, leading dots and quotes are escaped, "-" becomes \- (so that
# options copy and paste as ASCII), and a few common non-ASCII characters
# become roff glyphs (— – ‘ ’ “ ” → ← ≥ ≤ × …). Indented (4-space) code
# blocks, setext headings and HTML are not supported: use fences.
#
# The date in .TH is SOURCE_DATE_EPOCH if set, else the date of the page's
# last commit, else today.
set -eu

prog=${0##*/}
if [ $# -ne 1 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
	echo "usage: $prog docs/NAME.md > NAME.8" >&2
	exit 2
fi
md=$1
if [ ! -f "$md" ] || [ ! -r "$md" ]; then
	echo "$prog: cannot read $md" >&2
	exit 1
fi

date=
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d 2>/dev/null ||
		date -u -r "$SOURCE_DATE_EPOCH" +%Y-%m-%d 2>/dev/null) || date=
fi
if [ -z "$date" ] && command -v git >/dev/null 2>&1; then
	date=$(cd "$(dirname "$md")" &&
		git log -1 --format=%cd --date=short -- "$(basename "$md")" 2>/dev/null) || date=
fi
[ -n "$date" ] || date=$(date +%Y-%m-%d)

base=$(basename "$md")
exec awk -v date="$date" -v src="$md" -v base="${base%.md}" '
# ---- strings ----

# Literal (not regex) replacement of every "from" in s: no awk-dependent
# backslash rules in gsub replacements.
function repl(s, from, to,    out, i, n) {
	n = length(from)
	out = ""
	while ((i = index(s, from)) > 0) {
		out = out substr(s, 1, i - 1) to
		s = substr(s, i + n)
	}
	return out s
}

function uni(s) {
	s = repl(s, "\342\200\224", "\\(em")	# em dash
	s = repl(s, "\342\200\223", "\\(en")	# en dash
	s = repl(s, "\342\200\230", "\\(oq")
	s = repl(s, "\342\200\231", "\\(cq")
	s = repl(s, "\342\200\234", "\\(lq")
	s = repl(s, "\342\200\235", "\\(rq")
	s = repl(s, "\342\206\222", "\\(->")
	s = repl(s, "\342\206\220", "\\(<-")
	s = repl(s, "\342\211\245", "\\(>=")
	s = repl(s, "\342\211\244", "\\(<=")
	s = repl(s, "\303\227", "\\(mu")
	s = repl(s, "\342\200\246", "...")
	s = repl(s, "\302\240", "\\ ")		# no-break space
	return s
}

# Verbatim text (code blocks, headings): only roff escaping.
function esc(s) {
	s = repl(s, "\\", "\\e")
	s = repl(s, "-", "\\-")
	return uni(s)
}

# A line of output text must not start with a control character.
function guard(s) {
	return s ~ /^[.\047]/ ? "\\&" s : s
}

function expand_tabs(s,    out, i, c) {
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\t") {
			out = out " "
			while (length(out) % 8)
				out = out " "
		} else {
			out = out c
		}
	}
	return out
}

# Inline Markdown to roff. Placeholders keep markup apart from text until
# the end: \001 \fB, \002 \fI, \003 \fR, \017 backslash, \006 *, \007 _,
# \016 `, \005 [, \021 \% (code and bold words are not hyphenated), \022 \:.
function inl(s,    n, i, p, out, seg, t, u, inner, before, after) {
	s = repl(s, "\\\\", "\017")
	s = repl(s, "\\`", "\016")
	n = split(s, p, "`")
	out = ""
	for (i = 1; i <= n; i++) {
		seg = p[i]
		if (i % 2 == 0 && (i < n || n % 2 == 1)) {
			seg = repl(seg, "\\", "\017")
			seg = repl(seg, "*", "\006")
			seg = repl(seg, "_", "\007")
			seg = repl(seg, "[", "\005")
			# long paths may break after a slash (\:), without a hyphen
			if (length(seg) > 24)
				seg = repl(seg, "/", "/\022")
			out = out "\001\021" repl(seg, " ", " \021") "\003"
			continue
		}
		if (i % 2 == 0)
			seg = "`" seg		# an unmatched backtick
		seg = repl(seg, "\\*", "\006")
		seg = repl(seg, "\\_", "\007")
		seg = repl(seg, "\\[", "\005")
		seg = repl(seg, "\\]", "]")
		seg = repl(seg, "\\<", "<")
		seg = repl(seg, "\\>", ">")
		seg = repl(seg, "\\#", "#")
		seg = repl(seg, "\\|", "|")
		seg = repl(seg, "\\", "\017")
		out = out seg
	}
	s = out

	# images, then links
	while (match(s, /!\[[^]]*\]\([^)]*\)/)) {
		t = substr(s, RSTART + 2, RLENGTH - 2)
		t = substr(t, 1, index(t, "]") - 1)
		s = substr(s, 1, RSTART - 1) t substr(s, RSTART + RLENGTH)
	}
	while (match(s, /\[[^]]*\]\([^)]*\)/)) {
		t = substr(s, RSTART + 1, RLENGTH - 1)
		u = substr(t, index(t, "](") + 2)
		u = substr(u, 1, length(u) - 1)
		t = substr(t, 1, index(t, "](") - 1)
		if (u != t && u !~ /^#/ && u ~ /^[a-z]+:/)
			t = t " (" u ")"
		s = substr(s, 1, RSTART - 1) t substr(s, RSTART + RLENGTH)
	}
	while (match(s, /<[a-z]+:[^ >]+>/))
		s = substr(s, 1, RSTART - 1) substr(s, RSTART + 1, RLENGTH - 2) substr(s, RSTART + RLENGTH)

	while (match(s, /\*\*[^*]+\*\*/))
		s = substr(s, 1, RSTART - 1) "\001\021" repl(substr(s, RSTART + 2, RLENGTH - 4), " ", " \021") \
		    "\003" substr(s, RSTART + RLENGTH)
	while (match(s, /\*[^* \t][^*]*\*/)) {
		inner = substr(s, RSTART + 1, RLENGTH - 2)
		if (inner ~ /[ \t]$/)
			s = substr(s, 1, RSTART - 1) "\006" substr(s, RSTART + 1)
		else
			s = substr(s, 1, RSTART - 1) "\002" inner "\003" substr(s, RSTART + RLENGTH)
	}
	while (match(s, /_[^_ \t][^_]*_/)) {
		inner = substr(s, RSTART + 1, RLENGTH - 2)
		before = RSTART > 1 ? substr(s, RSTART - 1, 1) : ""
		after = substr(s, RSTART + RLENGTH, 1)
		if (inner ~ /[ \t]$/ || before ~ /[A-Za-z0-9]/ || after ~ /[A-Za-z0-9]/)
			s = substr(s, 1, RSTART - 1) "\007" substr(s, RSTART + 1)
		else
			s = substr(s, 1, RSTART - 1) "\002" inner "\003" substr(s, RSTART + RLENGTH)
	}

	# \% must start the whole word: within a word it is a hyphenation point
	n = split(s, p, / /)
	s = ""
	for (i = 1; i <= n; i++) {
		if (index(p[i], "\021"))
			p[i] = "\021" repl(p[i], "\021", "")
		s = s (i > 1 ? " " : "") p[i]
	}

	s = repl(s, "\017", "\\e")
	s = repl(s, "-", "\\-")
	s = uni(s)
	s = repl(s, "\001", "\\fB")
	s = repl(s, "\002", "\\fI")
	s = repl(s, "\003", "\\fR")
	s = repl(s, "\006", "*")
	s = repl(s, "\007", "_")
	s = repl(s, "\016", "`")
	s = repl(s, "\005", "[")
	s = repl(s, "\021", "\\%")
	s = repl(s, "\022", "\\:")
	return s
}

# ---- output ----

function emit(s) {
	print s
	fresh = 0
}

# A new paragraph; none is needed right after a heading.
function para() {
	if (!fresh)
		emit(".PP")
	fresh = 0
}

# One line of running text.
function text(s,    brk) {
	brk = 0
	if (s ~ /  +$/ || s ~ /(^|[^\\])(\\\\)*\\$/) {
		brk = 1
		if (s ~ /\\$/)
			s = substr(s, 1, length(s) - 1)
	}
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	if (s != "")
		emit(guard(inl(s)))
	if (brk)
		emit(".br")
}

function indent_of(s) {
	match(s, /^ */)
	return RLENGTH
}

function end_table() {
	if (intable) {
		emit(".fi")
		emit(".RE")
		intable = 0
	}
}

function end_quote() {
	if (inquote) {
		emit(".RE")
		inquote = 0
	}
}

# Leave any list or definition list.
function end_lists() {
	while (depth > 1) {
		emit(".RE")
		depth--
	}
	depth = 0
	ctx = ""
}

function end_blocks() {
	end_table()
	end_quote()
	end_lists()
}

function flush_held() {
	if (!held_set)
		return
	held_set = 0
	para()
	text(held)
	inpara = 1
}

function heading(level, s) {
	flush_held()
	end_blocks()
	gsub(/`|\*\*/, "", s)
	sub(/[ \t#]+$/, "", s)
	s = repl(esc(s), "\"", "\\(dq")
	emit((level <= 2 ? ".SH \"" : ".SS \"") s "\"")
	fresh = 1
	inpara = 0
}

function item(ind, tag, width,    want) {
	end_table()
	end_quote()
	if (ctx != "list") {
		end_lists()
		ctx = "list"
	}
	want = (ind >= 2 && depth >= 1) ? 2 : 1
	if (want == 2 && depth < 2) {
		emit(".RS " itemw[1])
		depth = 2
	} else if (want == 1 && depth == 2) {
		emit(".RE")
		depth = 1
	}
	if (depth < 1)
		depth = 1
	itemw[depth] = width
	emit(".IP " tag " " width)
	fresh = 0
	inpara = 1
}

function open_code(ind, fence,    initem) {
	flush_held()
	end_table()
	end_quote()
	initem = (ctx == "list" || ctx == "dl") && ind >= 2
	if (initem) {
		emit(ctx == "dl" ? ".IP" : ".IP \"\" " itemw[depth])
	} else {
		end_lists()
		para()
		emit(".RS 4")
	}
	emit(".nf")
	incode = 1
	code_item = initem
	code_ind = ind
	code_fence = fence
	inpara = 0
}

function close_code() {
	emit(".fi")
	if (!code_item)
		emit(".RE")
	incode = 0
}

function code_line(s,    n) {
	n = indent_of(s)
	s = substr(s, (n < code_ind ? n : code_ind) + 1)
	s = expand_tabs(s)
	sub(/[ \t]+$/, "", s)
	emit(s == "" ? "\\&" : guard(esc(s)))
}

function table_line(s) {
	if (s ~ /^[ \t]*\|?[ \t:|-]*-[ \t:|-]*$/)
		return		# the |---|---| row
	if (!intable) {
		flush_held()
		end_quote()
		end_lists()
		para()
		emit(".RS 4")
		emit(".nf")
		intable = 1
	}
	gsub(/`|\*\*/, "", s)
	sub(/^[ \t]+/, "", s)
	sub(/[ \t]+$/, "", s)
	emit(guard(esc(s)))
}

function title(s,    name, sect, manual) {
	s = substr(s, 3)
	sub(/^[ \t]+/, "", s)
	name = s
	sect = "8"
	if (match(s, /^[^ \t(]+\([0-9][a-z]*\)/)) {
		name = substr(s, 1, index(s, "(") - 1)
		sect = substr(s, index(s, "(") + 1)
		sect = substr(sect, 1, index(sect, ")") - 1)
	}
	emit_th(name, sect)
}

function emit_th(name, sect,    manual) {
	manual = "netmedic Manual"
	if (sect ~ /^1/) manual = "User Commands"
	else if (sect ~ /^5/) manual = "File Formats Manual"
	else if (sect ~ /^7/) manual = "Miscellaneous Information Manual"
	else if (sect ~ /^8/) manual = "System Manager\047s Manual"
	emit(".\\\" Generated by tools/mkman.sh from " src "; edit that file instead.")
	emit(".TH \"" esc(toupper(name)) "\" \"" sect "\" \"" date "\" \"netmedic\" \"" manual "\"")
	have_th = 1
	fresh = 1
}

# ---- blocks ----

function block(line,    ind, rest, m) {
	if (!have_th) {
		if (line ~ /^[ \t]*$/)
			return
		if (line ~ /^# /) {
			title(line)
			return
		}
		emit_th(base, "8")
	}

	# a held line followed by ": " is a definition term
	if (held_set) {
		if (line ~ /^:[ \t]/) {
			held_set = 0
			end_lists()
			emit(".TP 7")
			text(held)
			ctx = "dl"
			sub(/^:[ \t]+/, "", line)
			text(line)
			inpara = 1
			return
		}
		flush_held()
	}

	if (intable && line !~ /^[ \t]*\|/)
		end_table()

	if (line ~ /^[ \t]*$/) {
		inpara = 0
		return
	}
	if (line ~ /^#+[ \t]/) {
		match(line, /^#+/)
		rest = substr(line, RLENGTH + 1)
		sub(/^[ \t]+/, "", rest)
		heading(RLENGTH, rest)
		return
	}
	ind = indent_of(line)
	if (line ~ /^ *(```|~~~)/) {
		rest = substr(line, ind + 1)
		match(rest, /^(`+|~+)/)
		open_code(ind, substr(rest, 1, RLENGTH))
		return
	}
	rest = line
	gsub(/[ \t]/, "", rest)
	if (rest ~ /^(---+|\*\*\*+|___+)$/)
		return		# horizontal rule (setext headings are not supported)
	if (line ~ /^[ \t]*\|/) {
		table_line(line)
		return
	}
	if (line ~ /^ *>/) {
		flush_held()
		end_table()
		if (!inquote) {
			end_lists()
			para()
			emit(".RS 4")
			inquote = 1
		}
		sub(/^ *> ?/, "", line)
		if (line ~ /^[ \t]*$/)
			emit(".sp")
		else
			text(line)
		inpara = 1
		return
	}
	end_quote()
	if (line ~ /^ *[-*+][ \t]+[^ \t]/) {
		rest = line
		sub(/^ *[-*+][ \t]+/, "", rest)
		item(ind, "\\(bu", 2)
		text(rest)
		return
	}
	if (line ~ /^ *[0-9]+[.)][ \t]+[^ \t]/) {
		rest = substr(line, ind + 1)
		match(rest, /^[0-9]+/)
		m = substr(rest, 1, RLENGTH)
		# only "1." may interrupt a paragraph, as in CommonMark
		if (!(inpara && ctx != "list" && m + 0 != 1)) {
			sub(/^[0-9]+[.)][ \t]+/, "", rest)
			item(ind, m ".", 4)
			text(rest)
			return
		}
	}
	if (inpara) {
		if (ctx == "dl" && line ~ /^:[ \t]/) {
			emit(".IP")
			sub(/^:[ \t]+/, "", line)
		}
		text(line)
		return
	}
	# first line of a paragraph
	if (ctx == "list" && ind >= 2) {
		emit(".IP \"\" " itemw[depth])
		text(line)
		inpara = 1
		return
	}
	if (ctx == "dl" && (ind >= 2 || line ~ /^:[ \t]/)) {
		emit(".IP")
		sub(/^:[ \t]+/, "", line)
		text(line)
		inpara = 1
		return
	}
	end_lists()
	held = line
	held_set = 1
}

BEGIN {
	fresh = 1
	ctx = ""
}

{
	sub(/\r$/, "")
	line = $0
	if (incomment) {
		if (index(line, "-->"))
			incomment = 0
		next
	}
	if (incode) {
		if (line ~ /^ *(```|~~~)[ \t]*$/ && index(line, code_fence) &&
		    substr(line, indent_of(line) + 1, 1) == substr(code_fence, 1, 1)) {
			close_code()
			next
		}
		code_line(line)
		next
	}
	if (line ~ /^[ \t]*<!--/) {
		if (!index(line, "-->"))
			incomment = 1
		next
	}
	block(line)
}

END {
	if (!have_th)
		emit_th(base, "8")
	flush_held()
	if (incode)
		close_code()
	end_blocks()
}
' "$md"
