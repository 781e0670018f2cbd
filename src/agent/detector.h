/* SPDX-License-Identifier: GPL-2.0 */
/*
 * detector.h - a tool's loader as one detector of the netmedic agent.
 *
 * Each src/NAME/main.c is built twice: as its CLI, and with -DNM_AGENT (its
 * skeleton the agent's, src/agent/bind.h) as a detector the agent runs
 * beside the others in one process, on one BPF object
 * (bpf/netmedic.bpf.c). The steps are the CLI's own (struct nm_tool);
 * the agent runs each of them for every detector where nm_run() runs it
 * once (src/agent/netmedic.c).
 */
#ifndef NETMEDIC_AGENT_DETECTOR_H
#define NETMEDIC_AGENT_DETECTOR_H

#include "agent_tools.h"
#include "lib/run.h"
#include "lib/skel.h"

struct nm_detector {
	const char *name;
	const struct nm_tool *tool;		/* its steps, options (tool->o) and rungs (tool->hooks) */
	const struct nm_skel_ops *ops;		/* its prepare and attach; open and destroy are the agent's */
	/*
	 * Its CLI's command line into its state, argv[0] its name: with no
	 * argument its defaults, else its own options (netmedic --opts).
	 */
	void (*parse)(int argc, char **argv);
	const char *undo_cmd;			/* the one command its journals may run to undo */
};

/* each tool's, NAME_detector (NM_MAIN in agent/bind.h) */
#define X(NAME, PFX)	extern const struct nm_detector NAME##_detector;
NM_AGENT_TOOLS
#undef X

/* The agent's skeleton, for the detectors' skel_ops (src/agent/netmedic.c). */
void *nm_agent_open(const struct bpf_object_open_opts *opts);
void nm_agent_destroy(void *skel);
/*
 * A report due in a detector's own loop (tcpstall's sweeps): every
 * detector's report, one textfile. 0, or non-zero ends the loop.
 */
int nm_agent_report(void *skel);

#endif /* NETMEDIC_AGENT_DETECTOR_H */
