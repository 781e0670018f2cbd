/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agent.h - the netmedic agent's ladder: one BPF object (bpf/netmedic.bpf.c)
 * for every detector it runs, and one program per tracepoint they share.
 *
 * Each detector declares its ladder for its own object (src/NAME/hooks.c).
 * In the agent, the rungs of a detector's programs on the shared
 * tracepoint (net_dev_queue) become the agent's rungs of that tracepoint,
 * the same rungs in the same order for every detector: whichever
 * detectors take the tracepoint then choose the same program, which runs
 * each one's handler (rodata flags, nm_agent_queue_flags). A rung of the
 * detector's own (fexit, say) comes first as before: that detector's
 * handler then stays off in the shared program.
 */
#ifndef NETMEDIC_LIB_AGENT_H
#define NETMEDIC_LIB_AGENT_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include "lib/hooks.h"

/* What kind of attach a detector's own program on the shared tracepoint is. */
enum nm_shared_kind {
	NM_SHARED_NONE,
	NM_SHARED_TP_BTF,
	NM_SHARED_RAW_TP,
};

/* A detector's program on the shared tracepoint, in its own object. */
struct nm_shared_prog {
	const char *prog;
	enum nm_shared_kind kind;
};

/*
 * The hooks of detector PFX (build/agent_tools.h): its table's, as
 * src/NAME/hooks.h declares it, sized by its enum's PFX_NR_HOOKS (upper
 * case, which a macro cannot make of PFX).
 */
#define NM_AGENT_NR_HOOKS(PFX)	((int)(sizeof(PFX##_hook_decls) / sizeof(PFX##_hook_decls[0])))

/* The agent's programs on net_dev_queue (bpf/netmedic.bpf.c). */
#define NM_AGENT_QUEUE_PREFIX	"nm_queue_"

/*
 * The agent's ladder for a detector: out[i] is in[i] with each run of
 * consecutive rungs whose programs are the detector's own on the shared
 * tracepoint (own, ended by a NULL prog) replaced by the agent's rungs of
 * the same kind: tp_btf by "nm_queue_tp" (needs bpf_rdonly_cast) and
 * "nm_queue_tp_read", raw_tp by "nm_queue_raw". Such a rung keeps the
 * first replaced rung's can and when. Returns how many hooks changed, or
 * -1 when a hook would have more than NM_MAX_RUNGS rungs.
 */
int nm_agent_decls(const struct nm_hook_decl *in, int n, const struct nm_shared_prog *own,
		   struct nm_hook_decl *out);

/* Whether one of these hooks' chosen rung is a program of the agent's on net_dev_queue. */
bool nm_agent_takes_queue(const struct nm_hook *hooks, int n);

/*
 * The option of opts (argp's, ended by an all-zero entry) that tok gives
 * ("-i", "--interval=1") or abbreviates as getopt takes it ("--inter=5": a
 * prefix of its long name), or NULL. --opts refuses the common options.
 */
const struct argp_option *nm_agent_option_of(const struct argp_option *opts, const char *tok);

/*
 * --prom-split's textfile of detector name: file's name with "-name"
 * before its ".prom", or after it without one. 0, or -ENAMETOOLONG.
 */
int nm_agent_split_name(char *buf, size_t len, const char *file, const char *name);

#endif /* NETMEDIC_LIB_AGENT_H */
