/* SPDX-License-Identifier: GPL-2.0 */
/*
 * agent.h - the netmedic agent's command line: --opts NAME=ARGS, whose
 * words a tool's own parser reads, and --prom-split's textfiles.
 */
#ifndef NETMEDIC_LIB_AGENT_H
#define NETMEDIC_LIB_AGENT_H

#include <argp.h>
#include <stddef.h>

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
