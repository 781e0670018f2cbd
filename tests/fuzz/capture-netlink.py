#!/usr/bin/env python3
# Writes the seeds of fuzz_rtnl and fuzz_sockdiag: the raw replies of the
# dumps netmedic sends (lib/rtnl.c, lib/sockdiag.c), one recv() a file, as
# the kernel of the netns it runs in gives them. Not part of any build;
# run it as root (in a lab netns: ip netns exec NS ...) to refresh them:
#   capture-netlink.py OUTDIR PREFIX
import os
import socket
import struct
import sys

NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
NLMSG_DONE = 3
RTM_GETQDISC, TCA_DUMP_INVISIBLE = 38, 10
TCPDIAG_GETSOCK, SOCK_DIAG_BY_FAMILY = 18, 20
INET_DIAG_INFO, INET_DIAG_SKMEMINFO = 2, 7
EXT = 1 << (INET_DIAG_INFO - 1) | 1 << (INET_DIAG_SKMEMINFO - 1)
STATES = 0xfff  # every TCP state, for more kinds of socket


def dump(proto, msg_type, payload, out):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
    s.bind((0, 0))
    hdr = struct.pack("=IHHII", 16 + len(payload), msg_type, NLM_F_REQUEST | NLM_F_DUMP, 1, 0)
    s.send(hdr + payload)
    n = 0
    while True:
        buf = s.recv(32768)
        n += 1
        with open(f"{out}-{n}", "wb") as f:
            f.write(buf)
        if len(buf) >= 6 and struct.unpack_from("=H", buf, 4)[0] == NLMSG_DONE:
            break
    s.close()


def main():
    outdir, prefix = sys.argv[1], sys.argv[2]
    os.makedirs(f"{outdir}/rtnl", exist_ok=True)
    os.makedirs(f"{outdir}/sockdiag", exist_ok=True)
    # struct tcmsg, then an empty TCA_DUMP_INVISIBLE attribute
    tcm = struct.pack("=BxxxiIII", 0, 0, 0, 0, 0) + struct.pack("=HH", 4, TCA_DUMP_INVISIBLE)
    dump(socket.NETLINK_ROUTE, RTM_GETQDISC, tcm, f"{outdir}/rtnl/{prefix}-qdisc")
    # struct inet_diag_req (legacy: both families) with an empty sockid
    sockid = bytes(48)
    req = struct.pack("=BBBB", 0, 0, 0, EXT) + sockid + struct.pack("=II", STATES, 0)
    dump(4, TCPDIAG_GETSOCK, req, f"{outdir}/sockdiag/{prefix}-tcpdiag")
    # struct inet_diag_req_v2 for AF_INET6
    req = struct.pack("=BBBBI", socket.AF_INET6, socket.IPPROTO_TCP, EXT, 0, STATES) + sockid
    dump(4, SOCK_DIAG_BY_FAMILY, req, f"{outdir}/sockdiag/{prefix}-inet6")


main()
