#!/usr/bin/env bash
# run-pass.sh PASS PHASE FILE...: as TAP, the tests of the integration
# FILEs (names in tests/integration) that pass PASS runs in PHASE: side
# (those not tagged serial, which may run beside others) or alone (those
# tagged serial). tests/run-all.sh defines each pass in the environment,
# NM_PASS_<PASS>_TAGS (its bats --filter-tags), _BUILD (NETMEDIC_BUILD)
# and, where set, _RUN_DIR (NETMEDIC_RUN_DIR), _REFUSE (NETMEDIC_REFUSE)
# and _REAL (NM_REAL_BUILD: the nobody pass's real CLIs).
# NM_PASS_ID=PASS goes to the tests: helpers.bash puts it in each file's
# lab names and journal folder, so that one file may run in two passes at
# the same moment (tcpstall.bats as nobody and with tp_btf refused).
set -u
pass=$1 phase=$2
shift 2
get() { local v="NM_PASS_${pass}_$1"; echo "${!v:-}"; }
tags=$(get TAGS)
build=$(get BUILD)
[ -n "$build" ] || { echo "run-pass.sh: no pass $pass (NM_PASS_${pass}_BUILD is not set)" >&2; exit 2; }
export NM_PASS_ID=$pass NETMEDIC_BUILD=$build
run_dir=$(get RUN_DIR) refuse=$(get REFUSE) real=$(get REAL)
[ -z "$run_dir" ] || export NETMEDIC_RUN_DIR=$run_dir
[ -z "$refuse" ] || export NETMEDIC_REFUSE=$refuse
[ -z "$real" ] || export NM_REAL_BUILD=$real
case $phase in
side) tags="${tags:+$tags,}!serial" ;;
alone) tags="${tags:+$tags,}serial" ;;
*) echo "run-pass.sh: phase side or alone, not $phase" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/integration" || exit 1
exec bats --tap --timing --filter-tags "$tags" "$@"
