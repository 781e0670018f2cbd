// SPDX-License-Identifier: GPL-2.0
/*
 * qdiscstuck's act step (qdiscstuck_act.h): the I/O of the remedies, the
 * policy being qs_fix_plan's and qs_lock_plan's (src/qdiscstuck/plan.c).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "qdiscstuck/qdiscstuck.h"
#include "qdiscstuck/judge.h"
#include "qdiscstuck/plan.h"
#include "lib/netns.h"
#include "qdiscstuck/act.h"
#include "qdiscstuck/records.h"
#include "lib/rtnl.h"
#include "lib/sysfs.h"

#define TOOL		"qdiscstuck"
#define KICK_TRIES	32
#define TC_H_ROOT_	0xffffffffU

/* ---- kick ---- */

static uint64_t kicks_on(const struct qs_act *qa, unsigned int ifindex, unsigned int queue)
{
	struct qs_txq_key k = { .netns = qa->o->netns_ino, .ifindex = ifindex, .queue = queue };
	struct qs_txq v;

	if (bpf_map_lookup_elem(qa->txqs_fd, &k, &v))
		return 0;
	return v.kicks;
}

/* The CPUs whose XPS map sends to tx-queue, as a mask of the first 64. */
static uint64_t xps_cpus(const char *dev, unsigned int queue)
{
	char path[128], buf[256];

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues/tx-%u/xps_cpus", dev, queue);
	if (nm_sysfs_line(path, buf, sizeof(buf)))
		return 0;
	return qs_xps_mask(buf);
}

/*
 * A frame nobody takes: IPv4 protocol 253 (RFC 3692, experiments), TTL 1,
 * to a locally administered MAC that is not the peer's, so the receiver
 * drops it as PACKET_OTHERHOST. The source address varies with 'salt' so
 * that the flow hash, and with it the queue the kernel picks, varies
 * where no XPS map decides.
 */
static size_t kick_frame(unsigned char *buf, const unsigned char *src_mac, unsigned int salt)
{
	static const unsigned char dst[6] = { 0x02, 0x6e, 0x6d, 0x6b, 0x6b, 0x00 };
	unsigned char *ip = buf + 14;
	uint32_t sum = 0;

	memset(buf, 0, 60);
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src_mac, 6);
	buf[12] = 0x08;
	ip[0] = 0x45;
	ip[3] = 46 - 0;		/* total length 46: a minimum-size frame */
	ip[8] = 1;		/* TTL */
	ip[9] = 253;
	ip[12] = 198, ip[13] = 18, ip[14] = 255, ip[15] = salt & 0xff;
	ip[16] = 198, ip[17] = 18, ip[18] = 255, ip[19] = 255;
	for (int i = 0; i < 20; i += 2)
		sum += ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[10] = ~sum >> 8, ip[11] = ~sum & 0xff;
	return 60;
}

struct kick_result {
	bool reached;
	int attempts;
	int stray;		/* frames that went to another queue */
};

static int kick_send(int fd, unsigned int ifindex, const unsigned char *mac, unsigned int salt)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = ifindex, .sll_halen = 6 };
	unsigned char frame[64];
	size_t len = kick_frame(frame, mac, salt);

	memcpy(sll.sll_addr, frame, 6);
	return sendto(fd, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0 ? -errno : 0;
}

static int open_kick_socket(const char *dev, unsigned char *mac)
{
	unsigned int mark = QS_KICK_MARK;
	struct ifreq ifr = {};
	int fd = socket(AF_PACKET, SOCK_RAW, 0);	/* protocol 0: send only */

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		memset(mac, 0, 6);
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	/* the mark lets the BPF side see where the frame was queued */
	if (setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/*
 * Puts one frame on dev's TX queue 'queue', through the qdisc (no
 * PACKET_QDISC_BYPASS): its enqueue runs the qdisc again. The kernel
 * picks the queue: from the sending CPU's XPS map when there is one (so
 * send from a CPU mapped to the queue), else from the flow hash (so vary
 * the frame). The BPF side counts where each frame went.
 */
static int kick(const struct qs_act *qa, const char *dev, unsigned int ifindex,
		unsigned int queue, struct kick_result *res)
{
	uint64_t xps = xps_cpus(dev, queue), before = kicks_on(qa, ifindex, queue);
	int ncpu = libbpf_num_possible_cpus(), fd, ret = 0;
	unsigned char mac[6];
	cpu_set_t old, set;

	memset(res, 0, sizeof(*res));
	fd = open_kick_socket(dev, mac);
	if (fd < 0)
		return fd;
	sched_getaffinity(0, sizeof(old), &old);
	for (int i = 0; i < KICK_TRIES && !res->reached && !ret; i++) {
		int cpu = i % ncpu;

		if (xps) {
			/* only the CPUs whose XPS map names this queue */
			while (!(xps & (1ULL << (cpu & 63))))
				cpu = (cpu + 1) % ncpu;
		}
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			continue;
		ret = kick_send(fd, ifindex, mac, i);
		res->attempts++;
		res->reached = kicks_on(qa, ifindex, queue) > before;
		if (!res->reached && !ret)
			res->stray++;
	}
	sched_setaffinity(0, sizeof(old), &old);
	close(fd);
	return ret;
}

static void json_kick(const char *dev, unsigned int queue, const struct kick_result *k,
		      const char *why, uint64_t start_ns)
{
	/* mono_ns: when the first frame went: its enqueue is what runs the qdisc */
	struct qs_kick_row r = { .mono_ns = start_ns, .txq = queue, .reached = k->reached,
				 .attempts = k->attempts, .stray = k->stray, .why = why };

	snprintf(r.dev, sizeof(r.dev), "%s", dev);
	nm_rec_json_at(stdout, &qs_kick_rec, &r, "qdiscstuck", time(NULL));
}

/* A kick's outcome into line (made or not), or why it could not be sent into err. */
static int do_kick(const struct qs_act *qa, const char *dev, unsigned int ifindex,
		   unsigned int queue, const char *why, char *line, size_t len, char *err, size_t errlen)
{
	uint64_t start_ns = nm_mono_ns();
	struct kick_result k;
	int ret = kick(qa, dev, ifindex, queue, &k);

	if (ret) {
		snprintf(err, errlen, "kick %s tx-%u: %s", dev, queue, strerror(-ret));
		return ret;
	}
	if (qa->o->json)
		json_kick(dev, queue, &k, why, start_ns);
	if (k.reached)
		snprintf(line, len, "kick: %s tx-%u: one frame queued there (%d attempt(s), %d elsewhere): its enqueue runs the qdisc; the next report shows whether the backlog moved",
			 dev, queue, k.attempts, k.stray);
	else
		snprintf(line, len, "kick: %s tx-%u: no frame reached that queue in %d attempts (%d went elsewhere): the kernel picks queues by XPS map or flow hash, not by request",
			 dev, queue, k.attempts, k.stray);
	return k.reached ? 0 : -EAGAIN;
}

/* --fix=kick's lever: one frame sent on the queue (AF_PACKET) runs the qdisc. */
static int probe_kick(const struct nm_fix *f, char *why, size_t len)
{
	int fd = socket(AF_PACKET, SOCK_RAW, 0);

	(void)f;
	if (fd < 0) {
		snprintf(why, len, "AF_PACKET socket: %s", strerror(errno));
		return -errno;
	}
	close(fd);
	return 0;
}

/* --list-fixes: each remedy, its lever, and whether this kernel allows it. */
enum { QFIX_KICK, QFIX_LOCK, QFIX_LOCK_BPF };
const struct nm_fix qs_fixes[QS_NFIXES] = {
	[QFIX_KICK] = { "kick", "a frame on the stuck TX queue (AF_PACKET): the qdisc runs", probe_kick, NULL, NULL },
	[QFIX_LOCK] = { "lock", "tc qdisc replace: pfifo (locked) for pfifo_fast", nm_fix_probe_cmd, "tc", NULL },
	/* the struct_ops lever a locked BPF FIFO would use (6.16+); not used yet */
	[QFIX_LOCK_BPF] = { "lock-bpf", "struct_ops Qdisc_ops: a BPF FIFO (6.16+; netmedic has none yet)",
			    nm_fix_probe_btf_type, "bpf_struct_ops_Qdisc_ops", NULL },
};

/* ---- lock ---- */

/* CONFIG_NET_SCH_BPF builds the bpf_qdisc kfuncs: their presence in BTF tells. */
static bool kernel_has_bpf_qdisc(void)
{
	char why[128];

	return !nm_fix_probe_btf_type(&qs_fixes[QFIX_LOCK_BPF], why, sizeof(why));
}

static int lock_open(struct nm_exec *x, const struct nm_action *a, char *err, size_t len)
{
	char key[64], nspath[256];
	const struct nm_opts *o = ((struct qs_act *)x->arg)->o;

	(void)a;
	if (kernel_has_bpf_qdisc())
		nm_info(o, "lock: this kernel builds BPF qdiscs (CONFIG_NET_SCH_BPF), but netmedic has no struct_ops FIFO yet: using the kernel's pfifo, which runs under the root qdisc lock");
	else
		nm_info(o, "lock: this kernel has no BPF qdiscs (CONFIG_NET_SCH_BPF is not set): using the kernel's pfifo, which runs under the root qdisc lock");
	snprintf(key, sizeof(key), "%lu-lock", o->netns_ino);
	return nm_journal_open(&x->j, TOOL, key,
			       o->netns ? nm_netns_path(o->netns, nspath, sizeof(nspath)) : NULL,
			       err, len);
}

static int txqueuelen(const char *dev)
{
	char path[128];
	long v;

	snprintf(path, sizeof(path), "/sys/class/net/%s/tx_queue_len", dev);
	v = nm_sysfs_long(path, 1000);
	return v >= 1 && v <= 0x7fffffff ? (int)v : 1000;
}

struct find_ctx {
	unsigned int ifindex;
	unsigned int queue;
	struct nm_qdisc_stats mq, child;
	bool have_mq, have_child, have_root;
	struct nm_qdisc_stats root;
};

static int find_q(const struct nm_qdisc_stats *q, void *arg)
{
	struct find_ctx *c = arg;

	if (q->parent == TC_H_ROOT_) {
		c->root = *q;
		c->have_root = true;
		if (qs_kind_is_mq(q->kind)) {
			c->mq = *q;
			c->have_mq = true;
		}
	}
	return 0;
}

static int find_child(const struct nm_qdisc_stats *q, void *arg)
{
	struct find_ctx *c = arg;

	if (c->have_mq && q->parent == ((c->mq.handle & 0xffff0000U) | (c->queue + 1))) {
		c->child = *q;
		c->have_child = true;
	}
	return 0;
}

/* The qdisc the TX queue runs: the mq child, or the root of a one-queue device. */
static int queue_qdisc(const char *dev, unsigned int ifindex, unsigned int queue,
		       struct find_ctx *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	c->ifindex = ifindex;
	c->queue = queue;
	if (nm_rtnl_qdisc_dump(ifindex, find_q, c, err, errlen) ||
	    nm_rtnl_qdisc_dump(ifindex, find_child, c, err, errlen))
		return -1;
	if (c->have_child)
		return 0;
	if (c->have_root && !c->have_mq && queue == 0 && nm_ifindex_ntxq(ifindex) == 1) {
		c->child = c->root;
		c->have_child = true;
		return 0;
	}
	snprintf(err, errlen, "%s tx-%u has no qdisc of its own (root %s%s)", dev, queue,
		 c->have_root ? c->root.kind : "none",
		 c->have_mq ? "" : ": only the children of mq, or the root of a one-queue device, can be replaced");
	return -1;
}

/*
 * A lock check (x->call): reads the qdisc the queue runs, after its kick,
 * and carries out what qs_lock_plan makes of it: a note, or the replace by
 * pfifo of the same limit (journaled first; only while it holds nothing).
 */
static int lock_check(struct nm_exec *x, const struct qs_fix_target *t, char *err, size_t len)
{
	struct qs_lock_facts f = {};
	struct nm_plan p = {};
	struct find_ctx c;
	int ret;

	if (queue_qdisc(t->dev, t->ifindex, t->queue, &c, err, len))
		return -EIO;
	snprintf(f.kind, sizeof(f.kind), "%s", c.child.kind);
	f.parent = c.child.parent;
	f.handle = c.child.handle;
	f.qlen = c.child.qlen;
	f.backlog = c.child.backlog;
	f.limit = txqueuelen(t->dev);
	ret = qs_lock_plan(t->dev, t->queue, &f, &p);
	if (ret)
		snprintf(err, len, "%s tx-%u: %s", t->dev, t->queue, strerror(-ret));
	else if (nm_exec_plan(x, &p))
		ret = -EIO;	/* said by the executor */
	nm_plan_free(&p);
	return ret;
}

/* The executor's calls: a kick's frame, a lock's check. */
static int fix_call(struct nm_exec *x, struct nm_action *a, char *err, size_t len)
{
	struct qs_fix_target t;

	if (qs_fix_target(a, &t)) {
		snprintf(err, len, "not a queue: %s", a->target);
		return -EINVAL;
	}
	if (a->remedy == QS_FIX_LOCK)
		return lock_check(x, &t, err, len);
	return do_kick(x->arg, t.dev, t.ifindex, t.queue, a->val, a->line, sizeof(a->line), err, len);
}

void qs_act_init(struct qs_act *qa, const struct nm_opts *o)
{
	*qa = (struct qs_act){ .o = o, .txqs_fd = -1 };
	qa->x = (struct nm_exec){ .tool = TOOL, .log = stderr, .home_fd = -1, .call = fix_call,
				  .open = lock_open, .arg = qa,
				  .restoring = "lock: restoring the lockless qdiscs", .unrestored = "" };
}

int qs_act_resolve(const struct qs_act *qa, const char *arg, const char *opt, char *dev,
		   unsigned int *ifindex, unsigned int *queue)
{
	const struct nm_opts *o = qa->o;

	qs_parse_dev_queue(arg, dev, IF_NAMESIZE, queue);
	*ifindex = if_nametoindex(dev);
	if (!*ifindex)
		return nm_err(o, NM_EXIT_USAGE, "%s: unknown device '%s'%s%s", opt, dev,
			      o->netns ? " in netns " : "", o->netns ? o->netns : "");
	if ((int)*queue >= nm_ifindex_ntxq(*ifindex))
		return nm_err(o, NM_EXIT_USAGE, "%s: %s has %d TX queue(s): no tx-%u", opt, dev,
			      nm_ifindex_ntxq(*ifindex), *queue);
	return 0;
}

int qs_act_kick(struct qs_act *qa, const char *dev, unsigned int ifindex, unsigned int queue)
{
	struct nm_plan p = {};
	int ret;

	ret = qs_plan_kick(&p, dev, ifindex, queue, 0, 0, "--kick") < 0 || nm_exec_plan(&qa->x, &p) ?
	      NM_EXIT_RUNTIME : 0;
	nm_plan_free(&p);
	return ret;
}

int qs_act_lock(struct qs_act *qa, const char *dev, unsigned int ifindex, unsigned int queue)
{
	struct nm_plan p = {};
	int ret;

	ret = qs_plan_lock_check(&p, dev, ifindex, queue) < 0 || nm_exec_plan(&qa->x, &p) ?
	      NM_EXIT_RUNTIME : 0;
	nm_plan_free(&p);
	if (!ret && !nm_journal_count(qa->x.j))
		ret = NM_EXIT_RUNTIME;	/* said why: not lockless, or not empty */
	return ret;
}

void qs_act_remedies(struct qs_act *qa, const struct qs_fix_row *rows, size_t n, unsigned int fix,
		     uint64_t now_ns)
{
	struct nm_plan p = {};
	int ret;

	ret = qs_fix_plan(rows, n, fix, now_ns, &p);
	if (ret)
		nm_info(qa->o, "warning: no remedies at this sweep: %s", strerror(-ret));
	else
		nm_exec_plan(&qa->x, &p);
	nm_plan_free(&p);
}

int qs_act_stop(struct qs_act *qa)
{
	return nm_exec_undo(&qa->x) ? NM_EXIT_RUNTIME : 0;
}
