// SPDX-License-Identifier: GPL-2.0
/* xpsflap's CLI: the tool value of main.c, run alone (lib/run.h). */
#include "lib/run.h"
#include "xpsflap/hooks.h"

const char *argp_program_version = "xpsflap (netmedic) " NETMEDIC_VERSION;
const char *argp_program_bug_address = "the netmedic issue tracker";

int main(int argc, char **argv)
{
	return nm_main(&xpsflap_tool, argc, argv);
}
