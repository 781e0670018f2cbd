#!/usr/bin/env bash
# The rules and the dashboard, checked without a server (make check-rules;
# make test runs it as a phase of its own, tests/run-all.sh):
# - promtool check rules and promtool test rules (netmedic.test.yml);
# - every alert has a test that fires it: with its expr made one that never
#   fires, promtool test rules must fail;
# - every alert has a for:, a severity and a summary;
# - every metric the rules and the dashboard name is one the CLIs write (the
#   `.prom =` fields of src/*/records.c, src/lib/selfstats.c) or
#   node_exporter's textfile collector's; every recording rule the
#   dashboard reads is defined;
# - every expr of the dashboard parses (as a recording rule, through
#   promtool check rules; $instance as ".+").
# The query of a real server is tests/integration/prometheus.bats'.
# Prints "prometheus: N passed, M failed" last, and fails if any failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
rules=$here/netmedic.rules.yml
tests=$here/netmedic.test.yml
dash=$here/netmedic-dashboard.json
p=0 f=0
ok() { p=$((p + 1)); echo "ok: $*"; }
nok() { f=$((f + 1)); echo "FAILED: $*"; }
for t in promtool jq; do
	command -v $t >/dev/null || { echo "prometheus: $t is not installed (make deps)"; echo "prometheus: 0 passed, 1 failed"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=SCRIPTDIR/../tools.sh
. "$root/tools/tools.sh"
# the CLIs' names, as alternatives of an ERE and of a sed BRE: a|b, a\|b
tools_re=$(nm_tools | paste -sd'|')
tools_sed=${tools_re//|/\\|}

if out=$(promtool check rules "$rules" 2>&1); then ok "promtool check rules"; else echo "$out"; nok "promtool check rules"; fi
if out=$(cd "$here" && promtool test rules "$tests" 2>&1); then ok "promtool test rules"; else echo "$out"; nok "promtool test rules"; fi

# the alerts, in the file's order
alerts=$(sed -n 's/^ *- alert: *\([A-Za-z0-9_]*\)$/\1/p' "$rules")
[ -n "$alerts" ] || nok "no alert found in $rules"
cp "$tests" "$tmp/"
for a in $alerts; do
	# the alert's expr (one line, or a block scalar) replaced by one that never fires
	awk -v name="$a" '
		$0 ~ "^ *- alert: " name "$" { inalert = 1; print; next }
		inalert && /^ *expr:/ { ind = match($0, /[^ ]/); print substr($0, 1, ind - 1) "expr: vector(0) > 1"; skip = 1; inalert = 0; next }
		skip { i = match($0, /[^ ]/); if (i > ind) next; skip = 0 }
		{ print }' "$rules" >"$tmp/netmedic.rules.yml"
	if cmp -s "$rules" "$tmp/netmedic.rules.yml"; then
		nok "$a: its expr was not found"
	elif ! promtool check rules "$tmp/netmedic.rules.yml" >/dev/null 2>&1; then
		nok "$a: the rules with its expr replaced do not load"
	elif (cd "$tmp" && promtool test rules netmedic.test.yml >/dev/null 2>&1); then
		nok "$a: no test fires it (the tests pass with its expr never true)"
	else
		ok "$a: a test fires it"
	fi
	# its block: up to the next rule
	blk=$(awk -v name="$a" '$0 ~ "^ *- alert: " name "$" { on = 1; next } on && /^ *- (alert|record):/ { exit } on' "$rules")
	miss=
	grep -qE '^ *for: *[0-9]+[smh]' <<<"$blk" || miss="$miss for:"
	grep -qE '^ *severity: *(critical|warning|info)$' <<<"$blk" || miss="$miss severity"
	grep -qE '^ *summary:' <<<"$blk" || miss="$miss summary"
	if [ -z "$miss" ]; then ok "$a: for:, severity and summary"; else nok "$a: no$miss"; fi
done

# the metric names the CLIs write
{
	sed -n 's/.*\.prom = "\(\('"$tools_sed"'\)_[a-z0-9_]*\)".*/\1/p' "$root"/src/*/records.c
	grep -o '"netmedic_[a-z0-9_]*"' "$root/src/lib/selfstats.c" | tr -d '"'
	# histograms' series
	sed -n 's/.*\.prom = "\([a-z0-9_]*\)", *\.kind = NM_PROM_HISTOGRAM.*/\1/p' "$root"/src/*/records.c
	grep -B3 'NM_PROM_HISTOGRAM' "$root"/src/*/records.c | sed -n 's/.*\.prom = "\([a-z0-9_]*\)".*/\1/p' |
		while read -r h; do printf '%s_bucket\n%s_sum\n%s_count\n' "$h" "$h" "$h"; done
	# node_exporter's textfile collector
	printf '%s\n' node_textfile_mtime_seconds node_textfile_scrape_error
} | sort -u >"$tmp/known"
if ! grep -q '^tcpstall_stalls_total$' "$tmp/known" || ! grep -q '^netmedic_map_entries$' "$tmp/known"; then
	nok "the metric names of src/lib were not found"
fi
jq -r '.. | objects | select(has("expr")) | .expr' "$dash" >"$tmp/exprs"
for src in "$rules" "$tmp/exprs"; do
	name=$([ "$src" = "$rules" ] && echo "the rules" || echo "the dashboard")
	grep -v '^ *#' "$src" | grep -oE '(^|[^A-Za-z0-9_:])('"$tools_re"'|netmedic|node_textfile)_[A-Za-z0-9_]+' |
		sed 's/^[^a-z]//' | sort -u >"$tmp/used"
	unknown=$(comm -23 "$tmp/used" "$tmp/known")
	if [ -z "$unknown" ] && [ -s "$tmp/used" ]; then
		ok "$name name only metrics the CLIs write ($(wc -l <"$tmp/used") names)"
	else
		nok "$name name metrics no CLI writes: $unknown"
	fi
done
sed -n 's/^ *- record: *\([^ ]*\)$/\1/p' "$rules" | sort -u >"$tmp/records"
grep -oE '[a-z_]+:[a-z0-9_]+:[a-z0-9_]+' "$tmp/exprs" | sort -u >"$tmp/read"
undef=$(comm -23 "$tmp/read" "$tmp/records")
if [ -z "$undef" ]; then ok "the dashboard reads $(wc -l <"$tmp/read") recording rules, all defined"; else nok "the dashboard reads undefined records: $undef"; fi

# every panel has an expr, and every expr parses
n=$(jq '[.panels[] | select(.type != "row")] | length' "$dash")
bad=$(jq -r '.panels[] | select(.type != "row") | select(([.targets[]?.expr] | length) == 0) | .title' "$dash")
if [ "$n" -gt 0 ] && [ -z "$bad" ]; then ok "the dashboard's $n panels each have an expr"; else nok "panels without an expr: $bad"; fi
i=0
while IFS= read -r e; do
	i=$((i + 1))
	jq -n --arg e "${e//\$instance/.+}" '{groups: [{name: "dashboard", rules: [{record: "dashboard:expr:check", expr: $e}]}]}' >"$tmp/expr.json"
	if out=$(promtool check rules "$tmp/expr.json" 2>&1); then
		ok "dashboard expr $i parses"
	else
		echo "$out"
		nok "dashboard expr $i does not parse: $e"
	fi
done < <(jq -r '.panels[] | select(.type != "row") | .targets[].expr' "$dash")

echo "prometheus: $p passed, $f failed"
[ "$f" = 0 ]
