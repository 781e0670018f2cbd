#!/usr/bin/env bats
# Every BPF program of every tool, the fallback rungs included, loads on this
# kernel's verifier (the tools themselves load only the rung they choose).

load helpers

@test "every program of every BPF object passes this kernel's verifier" {
	run "$BIN/nm-verify" "$BIN"/*.bpf.o
	echo "$output"
	assert_success
	[ "$(echo "$output" | grep -c ' loaded,')" -eq "$(ls "$BIN"/*.bpf.o | wc -l)" ]
}
