#!/usr/bin/env bash
# make faults, in the 6.1 guest (tools/vm/run.sh's VM_CMD): each part
# writes its figures and logs to /vmxfer/out, which the host copies back.
set -u
out=/vmxfer/out
mkdir -p "$out"
rc=0
# shellcheck source=tsq.sh
. tools/faults/tsq.sh
faults_tsq "$out" || rc=1
if [ -r tools/faults/qdisc.sh ] && [ -e "$NETMEDIC_BUILD/faults/modules/nm_qdisc_inject.ko" ]; then
	# shellcheck source=/dev/null
	. tools/faults/qdisc.sh
	faults_qdisc "$out" || rc=1
	if [ -r tools/faults/qdisc-mq.sh ]; then
		# shellcheck source=/dev/null
		. tools/faults/qdisc-mq.sh
		faults_qdisc_mq "$out" || rc=1
	fi
fi
exit $rc
