#!/usr/bin/env bash
# make faults, the TSQ part's figures: matches nm_tsq_inject's log of
# injected stalls with tcpstall's stall records, run by run, and prints
# the "tsq" object of build/faults/summary.json on stdout.
# Usage: tsq-report.sh OUTDIR THRESHOLD_MS [SETS]
# SETS: how many sets of runs were measured, the last one reported
# (tools/faults/tsq.sh: a set is measured again when the guest was too
# busy to judge a tail); 1 unless given.
#
# An injected stall is long when it lasted at least the threshold (from the
# injection to the socket's next transmit of new data, as the module dates
# them). It is detected when tcpstall listed a stall of the same socket
# whose time overlaps it; named right when that stall's cause is tsq_idle;
# timed right when its length is within 10% of the injected one, or within
# one sweep (the interval records' sweep_wait_ms, the most of the run).
# ended_before_delack: long ones that ended before TCP_DELACK_MIN (40 ms),
# that is, before the client's delayed ACK would have: what a kick cuts.
set -euo pipefail
out=$1 thr=$2 sets=${3:-1}
inj=$out/tsq-injections.txt

# the run's stall records: sport dport start_ns ms cause by
stalls() { jq -r 'select(.type == "stall") | [.sport, .dport, .start_mono_ns, .ms, .cause, .by] | @tsv' "$1"; }
sweep_ms() { jq -s '[.[] | select(.type == "interval") | .sweep_wait_ms] | max // 10' "$1"; }

# match PHASE JSON: "injected long detected named timed misnamed" of one run
match() {
	local phase=$1 json=$2
	awk -v p="$phase" -v thr="$thr" -v sw="$(sweep_ms "$json")" -F'\t' '
	FNR == NR { n++; sp[n] = $1; dp[n] = $2; st[n] = $3; ms[n] = $4; ca[n] = $5; next }
	/^#/ { next }
	{
		split($0, f, " ")
		if (f[1] != p) next
		inj++
		if (f[3] == 0) next
		d = (f[3] - f[2]) / 1e6
		if (d < thr) next
		long++
		# ended before the delayed-ACK timeout (TCP_DELACK_MIN, 40 ms): cut short
		if (d < 40) cut++
		best = 0
		for (i = 1; i <= n; i++) {
			if (sp[i] != f[4] || dp[i] != f[5]) continue
			s = st[i]; e = st[i] + ms[i] * 1e6
			if (s > f[3] || e < f[2]) continue
			# the overlapping stall named tsq_idle wins over one named otherwise
			if (!best || (ca[i] == "tsq_idle" && ca[best] != "tsq_idle")) best = i
		}
		if (!best) next
		det++
		if (ca[best] != "tsq_idle") { mis++; next }
		named++
		tol = d * 0.1 > sw ? d * 0.1 : sw
		if (ms[best] - d <= tol && d - ms[best] <= tol) timed++
	}
	END { printf "%d %d %d %d %d %d %d\n", inj, long, det, named, timed, mis, cut }
	' <(stalls "$json") "$inj"
}

wrk_p() {
	local w=$out/tsq-$1.wrk
	if [ -r "$w" ] && grep -q '^WRKJSON ' "$w"; then
		sed -n 's/^WRKJSON //p' "$w" | jq -c '{p50_ms, p99_ms, p999_ms, p9999_ms, max_ms, requests, errors}'
	else
		echo null
	fi
}

# window NAME: "warm-up rounds, fix seen (ns; 0: never, -1: no --fix),
# measured start and end (ns)" of a run, from tsq.sh's NAME.window
window() {
	awk '$1 == "warmup_rounds" { w = $2 } $1 == "fix_seen" { f = $2 } $1 == "measured" { a = $2; b = $3 }
		END { printf "%d %s %s %s\n", w, f == "" ? -1 : f, a == "" ? 0 : a, b == "" ? 0 : b }' \
		"$out/tsq-$1.window" 2>/dev/null || echo "0 -1 0 0"
}

# in_window PHASE A B: injections of PHASE that began within [A, B]
in_window() {
	awk -v p="$1" -v a="$2" -v b="$3" '!/^#/ && $1 == p && $2 >= a && $2 <= b { n++ } END { print n + 0 }' "$inj"
}

run_obj() {
	local name=$1 phase=$2 w f a b
	read -r i l d n t m c < <(match "$phase" "$out/tsq-$name.json")
	read -r w f a b < <(window "$name")
	# fix_before_measured: the --fix's sysctl change was seen before the
	# measured run began (null: the run had no --fix to wait for)
	jq -nc --argjson i "$i" --argjson l "$l" --argjson d "$d" --argjson n "$n" --argjson t "$t" --argjson m "$m" \
		--argjson c "$c" --argjson w "$w" --argjson f "$f" --argjson a "$a" \
		--argjson im "$(in_window "$phase" "$a" "$b")" '{injected: $i, injected_long: $l, seen: $d,
		 detected: $n, timed: $t, misnamed: $m, ended_before_delack: $c, warmup_rounds: $w,
		 injected_measured: $im,
		 fix_before_measured: (if $f < 0 then null else ($f > 0 and $f <= $a) end)}'
}

# kick_run: run_obj of the --fix=kick run, with what tcpstall said of its kicks:
# its tcp_push rung, when it kicks (kick_at), its thread's priority, the
# timer's requests, the kicks done and the oldest stall a kick found (its
# age, over the intervals)
kick_run() {
	local j=$out/tsq-on_kick.json
	run_obj on_kick 4 | jq -c --slurpfile r "$j" '. + {
		tcp_push: ([$r[] | select(.type == "start") | .hooks.tcp_push][0] // null),
		kick_at: ([$r[] | select(.type == "start") | .kick_at][0] // null),
		kicker: ([$r[] | select(.type == "start") | .kicker][0] // null),
		kick_due: ([$r[] | select(.type == "interval") | .kick_due // 0] | max // 0),
		kicks_done: ([$r[] | select(.type == "interval") | .kicks.done] | max // 0),
		kick_age_max_ms: ([$r[] | select(.type == "interval") | .kick_age_max_ms // 0] | max // 0)}'
}

fp=$(stalls "$out/tsq-off.json" | awk -F'\t' '$5 == "tsq_idle"' | wc -l)
on=$(run_obj on 2)
fix=$(run_obj on_autocork_fix 3)
kickrun=$(kick_run)
jq -nc --argjson on "$on" --argjson fix "$fix" --argjson kick "$kickrun" --argjson fp "$fp" \
	--argjson thr "$thr" --argjson sets "$sets" --argjson woff "$(wrk_p off)" --argjson won "$(wrk_p on)" \
	--argjson wfix "$(wrk_p on_autocork_fix)" --argjson wkick "$(wrk_p on_kick)" \
	--arg causes "$(stalls "$out/tsq-on.json" | cut -f5 | sort | uniq -c | awk '{printf "%s%s:%s", s, $2, $1; s=","}')" '
	{injected: $on.injected, injected_long: $on.injected_long, detected: $on.detected,
	 false_positives_off: $fp, threshold_ms: $thr, sets: $sets,
	 timed: $on.timed, seen: $on.seen, misnamed: $on.misnamed,
	 stall_causes_on: ($causes | split(",") | map(select(. != "") | split(":") | {(.[0]): (.[1] | tonumber)}) | add // {}),
	 runs: {on: $on, on_autocork_fix: $fix, on_kick: $kick},
	 wrk: {off: $woff, on: $won, on_autocork_fix: $wfix, on_kick: $wkick}}'
