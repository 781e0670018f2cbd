// SPDX-License-Identifier: GPL-2.0
/* qdiscstuck's CLI: the tool value of main.c, run alone (lib/run.h). */
#include "lib/run.h"
#include "qdiscstuck/hooks.h"

const char *argp_program_version = "qdiscstuck (netmedic) " NETMEDIC_VERSION;
const char *argp_program_bug_address = "the netmedic issue tracker";

int main(int argc, char **argv)
{
	return nm_main(&qdiscstuck_tool, argc, argv);
}
