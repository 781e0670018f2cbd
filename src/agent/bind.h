/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bind.h - the last include of a tool's loader (src/NAME/main.c) built with
 * -DNM_AGENT, in place of its skeleton: the agent's skeleton, whose maps,
 * programs and variables have the same names as each tool's
 * (bpf/netmedic.bpf.c includes every src/NAME/NAME.bpf.h), so that the
 * loader's code binds to it as it is; the ladder the agent made for its
 * object (lib/agent.h) in place of the tool's; and NM_MAIN making the
 * tool's detector (agent/detector.h) where the CLI has its main.
 */
#ifndef NETMEDIC_AGENT_BIND_H
#define NETMEDIC_AGENT_BIND_H

#include "netmedic.skel.h"
#include "agent_tools.h"
#include "agent/detector.h"
#include "lib/hooks.h"

/*
 * Each tool's skeleton type is the agent's (NAME_bpf: netmedic_bpf), and
 * its ladder the agent's copy (PFX_hook_decls: PFX_agent_decls), by the
 * renames build/agent_tools.h makes with NM_AGENT; that copy is the
 * ladder as the agent rewrote it before the load (nm_agent_decls).
 */
#define X(NAME, PFX)	extern struct nm_hook_decl PFX##_agent_decls[];
NM_AGENT_TOOLS
#undef X

/* the skeleton's open and destroy are the agent's, once for every detector */
#undef NM_SKEL_OPS
#define NM_SKEL_OPS(NAME, PREPARE, ATTACH, NHOOKS)					\
	static const struct nm_skel_ops skel_ops = {				\
		.open = nm_agent_open,						\
		.destroy = nm_agent_destroy,					\
		.prepare = PREPARE,						\
		.attach = ATTACH,						\
		.nhooks = NHOOKS,						\
	}

/* a report due in the detector's own loop (tcpstall's sweeps) is every detector's */
#define nm_run_report(t, skel)	nm_agent_report(skel)

/* the detector: its steps, its skel_ops, its command line's parser */
#undef NM_MAIN
#define NM_MAIN(NAME, PARSE, UNDO_CMD)							\
	const struct nm_detector NAME##_detector = {					\
		.name = #NAME, .tool = &tool, .ops = &skel_ops, .parse = PARSE,		\
		.undo_cmd = UNDO_CMD,							\
	}

#endif /* NETMEDIC_AGENT_BIND_H */
