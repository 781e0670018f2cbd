/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sockdiag.h - TCP sockets of a network namespace through
 * NETLINK_SOCK_DIAG (inet_diag, libmnl), as `ss -tmi` reads them: no BPF.
 *
 * Includes <linux/tcp.h> for struct tcp_info: do not include it together
 * with <netinet/tcp.h>, whose struct tcp_info has the same name.
 */
#ifndef NETMEDIC_LIB_SOCKDIAG_H
#define NETMEDIC_LIB_SOCKDIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>

struct nlmsghdr;

/* TCP states as the kernel numbers them (include/net/tcp_states.h). */
enum {
	NM_TCP_ESTABLISHED = 1,
	NM_TCP_SYN_SENT,
	NM_TCP_SYN_RECV,
	NM_TCP_FIN_WAIT1,
	NM_TCP_FIN_WAIT2,
	NM_TCP_TIME_WAIT,
	NM_TCP_CLOSE,
	NM_TCP_CLOSE_WAIT,
	NM_TCP_LAST_ACK,
	NM_TCP_LISTEN,
	NM_TCP_CLOSING,
	NM_TCP_NEW_SYN_RECV,
};

/* a states mask, as idiag_states takes it */
#define NM_TCPF(state)		(1U << (state))

/* the SK_MEMINFO_* entries kept; a newer kernel's extra entries are dropped */
#define NM_DIAG_MEMINFO_MAX	SK_MEMINFO_VARS

/* One socket of a dump. */
struct nm_diag_sock {
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t state;		/* NM_TCP_* */
	uint16_t lport;		/* host order */
	uint16_t rport;		/* host order */
	uint8_t laddr[16];	/* AF_INET: the first 4 bytes, the rest 0 */
	uint8_t raddr[16];
	uint32_t inode;
	/*
	 * Bytes of info the kernel filled in, at most sizeof(info). Older
	 * kernels give a shorter tcp_info: fields past info_len are unknown
	 * (they read as 0 here, which does not mean 0). 0: no INET_DIAG_INFO.
	 */
	uint32_t info_len;
	struct tcp_info info;
	uint32_t meminfo_len;	/* entries of meminfo the kernel gave, at most NM_DIAG_MEMINFO_MAX */
	uint32_t meminfo[NM_DIAG_MEMINFO_MAX];	/* indexed by SK_MEMINFO_* */
	bool has_cgroup_id;	/* INET_DIAG_CGROUP_ID: kernels 5.7+ with cgroup socket data */
	uint64_t cgroup_id;
};

/* True when the kernel's tcp_info of d reaches field f (a struct tcp_info member). */
#define NM_DIAG_HAS(d, f) \
	(offsetof(struct tcp_info, f) + sizeof((d)->info.f) <= (d)->info_len)

/*
 * Parses one SOCK_DIAG_BY_FAMILY answer into out. 0, or -EINVAL when it is
 * not an inet_diag message of AF_INET or AF_INET6, or its attributes do
 * not validate.
 */
int nm_sockdiag_parse(const struct nlmsghdr *nlh, struct nm_diag_sock *out);

/* Called per socket; a non-zero return stops the dump and is returned. */
typedef int (*nm_diag_cb)(const struct nm_diag_sock *d, void *arg);

/*
 * Dumps the TCP sockets of the current network namespace, IPv4 and IPv6
 * (in one walk of the kernel's tables where it takes the legacy request),
 * in the states of the mask states (NM_TCPF(NM_TCP_ESTABLISHED) | ...),
 * with tcp_info, meminfo and the cgroup id. port 0: every socket; else
 * only those with that local or remote port (the kernel filters). d is
 * valid during the callback only. 0, the callback's return, or -errno with
 * a one-line reason in err. Not reentrant (one receive buffer).
 */
int nm_sockdiag_tcp_dump(uint32_t states, uint16_t port, nm_diag_cb cb, void *arg,
			 char *err, size_t errlen);

struct mnl_socket;

/*
 * The same on nl, a NETLINK_SOCK_DIAG socket kept by the caller: the
 * sockets of the netns nl was made in (nm_nl_open_in), whichever netns
 * the thread is in now.
 */
int nm_sockdiag_tcp_dump_on(struct mnl_socket *nl, uint32_t states, uint16_t port, nm_diag_cb cb,
			    void *arg, char *err, size_t errlen);

/* the room nm_sockdiag_find_request needs, and the reply of an exact lookup */
#define NM_DIAG_FIND_BUF	8192

/*
 * The request of an exact lookup: SOCK_DIAG_BY_FAMILY without NLM_F_DUMP,
 * an inet_diag_req_v2 of id's family, addresses and ports (the rest of id
 * unused), any cookie (INET_DIAG_NOCOOKIE). Put at buf; its header.
 */
struct nlmsghdr *nm_sockdiag_find_request(void *buf, const struct nm_diag_sock *id, uint32_t seq);

/*
 * The TCP socket of id's 4-tuple in the calling thread's netns, through a
 * socket of this call's: one lookup in the kernel's hash tables, no walk
 * (no tcp_info or meminfo asked for). 0 with out filled; -ENOENT when
 * there is none: closed, or only a listener on the local port, which the
 * kernel's lookup falls back to. Else -errno with a one-line reason in err.
 */
int nm_sockdiag_tcp_find(const struct nm_diag_sock *id, struct nm_diag_sock *out, char *err,
			 size_t errlen);

#endif
