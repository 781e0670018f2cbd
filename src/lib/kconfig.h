/* SPDX-License-Identifier: GPL-2.0 */
/* The running kernel's build options, where the system keeps them. */
#ifndef NETMEDIC_KCONFIG_H
#define NETMEDIC_KCONFIG_H

/*
 * The value of a numeric option (e.g. "CONFIG_HZ") from /proc/config.gz or
 * /boot/config-$(uname -r); -1 when neither file has it. Read in userspace
 * and handed to BPF as rodata: a __kconfig extern makes the whole load fail
 * on a system without either file.
 */
long nm_kconfig_long(const char *name);

/*
 * One line of such a file: when it sets name ("CONFIG_HZ=250"), its value
 * (strtol base 0, as the files write hex too) into *v and 0; else -1.
 */
int nm_kconfig_line(const char *line, const char *name, long *v);

#endif
