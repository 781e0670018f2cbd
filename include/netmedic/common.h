/* SPDX-License-Identifier: GPL-2.0 */
/* Types shared by BPF and userspace: BPF sees vmlinux.h, userspace linux/types.h. */
#ifndef NETMEDIC_COMMON_H
#define NETMEDIC_COMMON_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define NM_MAX_DEVS	8	/* --dev filters a tool resolves before load */
#define NM_MAX_NETNS	8	/* --netns: the namespaces a scope is narrowed to */

#define NM_AF_INET	2
#define NM_AF_INET6	10

#endif
