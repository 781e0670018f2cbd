#!/usr/bin/env bats
# --listen: every tool serves its metrics over HTTP (libmicrohttpd), the
# same families as its --prom-file, from a thread that holds nothing;
# refused input and a port in use are said, before anything is loaded.
load helpers

setup() {
	TMP=$(mktemp -d)
	BG_PID=
	PORT=$(free_port)
}

teardown() {
	stop_bg KILL
	ip netns del nm-listen-ns 2>/dev/null || true
	rm -rf "$TMP"
}

# families FILE: the metric families a text exposition declares, sorted
families() {
	awk '$1 == "#" && $2 == "TYPE" { print $3 }' "$1" | sort
}

# until_interval: the background run's first report is out
until_interval() {
	for _ in $(seq 100); do
		grep -q '"type":"interval"' "$TMP/out" && return 0
		sleep 0.1
	done
	return 1
}

@test "--listen: each tool and the agent serve /metrics, the families of its --prom-file; 503 before a report" {
	local t code
	. "$ROOT/tools/tools.sh"
	for t in $(nm_programs); do
		start_bg "$TMP/out" "$BIN/$t" --json -i 2 --listen "$PORT" --prom-file "$TMP/$t.prom"
		# the server is up by the first line; the first report one interval on
		code=$(curl -s -o "$TMP/body" -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
		echo "$t before its first report: $code $(cat "$TMP/body")"
		[ "$code" = 503 ]
		until_interval
		# past the rename: both hold the same report's families
		sleep 0.3
		curl -s -D "$TMP/headers" -o "$TMP/metrics" "http://127.0.0.1:$PORT/metrics"
		grep -i '^content-type: text/plain; version=0.0.4' "$TMP/headers"
		families "$TMP/metrics" >"$TMP/served"
		families "$TMP/$t.prom" >"$TMP/filed"
		diff "$TMP/filed" "$TMP/served"
		# the tool's own families (the agent's: every detector's) and the self metrics
		if [ "$t" = netmedic ]; then
			for d in $(nm_tools); do grep -q "^${d}_" "$TMP/served"; done
		else
			grep -q "^${t}_" "$TMP/served"
		fi
		grep -q '^netmedic_' "$TMP/served"
		# promtool parses what is served (it is what Prometheus scrapes)
		promtool check metrics <"$TMP/metrics"
		stop_bg INT
	done
}

@test "--listen with the agent's --prom-split: /metrics holds what the split textfiles hold together" {
	start_bg "$TMP/out" "$BIN/netmedic" --json -i 2 --listen "$PORT" --prom-file "$TMP/nm.prom" --prom-split
	until_interval
	sleep 0.3
	curl -s -o "$TMP/metrics" "http://127.0.0.1:$PORT/metrics"
	stop_bg INT
	# nm.prom (the program stats) and nm-NAME.prom for each detector
	[ "$(ls "$TMP"/nm*.prom | wc -l)" = $(($(nm_tools | wc -l) + 1)) ]
	for t in $(nm_tools); do [ -s "$TMP/nm-$t.prom" ]; done
	cat "$TMP"/nm*.prom >"$TMP/all"
	families "$TMP/all" | sort -u >"$TMP/filed"
	families "$TMP/metrics" >"$TMP/served"
	diff "$TMP/filed" "$TMP/served"
}

@test "--listen: other paths 404, other methods 405; the server thread holds no capability" {
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json -i 0.5 --listen "127.0.0.1:$PORT"
	until_interval
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/")" = 404 ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics/x")" = 404 ]
	[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x=1 "http://127.0.0.1:$PORT/metrics")" = 405 ]
	curl -sI "http://127.0.0.1:$PORT/metrics" | grep -q '^HTTP/1.1 200'
	# loopback only: PORT alone is 127.0.0.1
	ss -Htln "sport = :$PORT" | awk '{ print $4 }' | grep -qx "127.0.0.1:$PORT"
	local t named=0
	for t in /proc/$BG_PID/task/*; do
		grep -q '^Name:.nm-listen$' "$t/status" || continue
		named=$((named + 1))
		grep '^CapEff\|^CapPrm\|^NoNewPrivs' "$t/status"
		[ "$(awk '/^CapEff/ { print $2 }' "$t/status")" = 0000000000000000 ]
		[ "$(awk '/^CapPrm/ { print $2 }' "$t/status")" = 0000000000000000 ]
		[ "$(awk '/^NoNewPrivs/ { print $2 }' "$t/status")" = 1 ]
	done
	[ "$named" = 1 ]
}

@test "--listen: IPv6, and with --netns bound in the tool's own namespace" {
	ip netns add nm-listen-ns
	start_bg "$TMP/out" "$BIN/xpsflap" --json -i 0.5 --listen "[::1]:$PORT" --netns nm-listen-ns
	until_interval
	curl -s -g "http://[::1]:$PORT/metrics" | grep -q '^xpsflap_'
	# the socket is the host's, not the watched namespace's
	ss -Htln "sport = :$PORT" | grep -q .
	[ -z "$(ip netns exec nm-listen-ns ss -Htln "sport = :$PORT")" ]
}

@test "--listen: a bad value -> exit 2 naming it; a port in use -> exit 1 before any load" {
	local a
	for a in localhost:9435 0 70000 '::1:9435' '1.2.3.4.5:80' ''; do
		run --separate-stderr "$BIN/tcpstall" --listen "$a" -c 1
		assert_failure 2
		[[ $stderr == *"invalid --listen '$a': "* ]] || fail "$a: $stderr"
	done
	start_bg "$TMP/out" "$BIN/qdiscstuck" --json -i 5 --listen "$PORT"
	run --separate-stderr "$BIN/tcpstall" --json -c 1 --listen "$PORT"
	assert_failure 1
	[ "$stderr" = "tcpstall: error: --listen 127.0.0.1:$PORT: bind: Address already in use" ]
	# nothing was loaded: no first line
	[ -z "$output" ]
	# an address this host does not have
	run --separate-stderr "$BIN/tcpstall" --json -c 1 --listen "198.19.255.254:$PORT"
	assert_failure 1
	[[ $stderr == *"--listen 198.19.255.254:$PORT: bind: Cannot assign requested address" ]]
}

@test "--listen --print-caps: a port below 1024 needs CAP_NET_BIND_SERVICE, one above nothing more" {
	run --separate-stderr "$BIN/xpsflap" --listen 127.0.0.1:943 --print-caps
	assert_success
	assert_line --regexp $'^CAP_NET_BIND_SERVICE\t--listen\ta port below 1024$'
	run --separate-stderr "$BIN/xpsflap" --listen 9435 --print-caps
	assert_success
	refute_line --partial CAP_NET_BIND_SERVICE
	# as nobody with what monitoring needs, a high port serves
	start_bg "$TMP/out" as_nobody bpf,perfmon "$BIN/xpsflap" --json -i 0.5 --listen "$PORT"
	until_interval
	curl -sf "http://127.0.0.1:$PORT/metrics" | grep -q '^xpsflap_'
}
