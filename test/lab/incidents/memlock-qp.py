#!/usr/bin/env python3
"""memlock-qp: a QP owner that cannot register its buffer.

Runs in the rxe-lab guest (python3-pyverbs). Opens DEV, creates a PD, a CQ
and an RC QP (moved to INIT, so that `rdma res show qp` and rdmatop list it
with this process as its owner), then tries every --every seconds, for
--duration seconds, to register a --size byte buffer with ibv_reg_mr. Run it
with a small RLIMIT_MEMLOCK and without CAP_IPC_LOCK (root ignores the
limit), e.g.

    ulimit -l 64
    setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock python3 memlock-qp.py

and every registration fails with ENOMEM (Cannot allocate memory): the
kernel's ib_umem_get refuses to pin more than the limit. One line per step:
<unix time> <event> key=value...
"""
import argparse
import os
import resource
import sys
import time

import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.pyverbs_error import PyverbsError
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr


def log(event, **kv):
    print(f"{time.time():.6f} {event} " + " ".join(f"{k}={v}" for k, v in kv.items()), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dev", default=os.environ.get("RXE_DEV_A", "rxe0"))
    ap.add_argument("--size", type=int, default=4 << 20, help="bytes to register per try")
    ap.add_argument("--every", type=float, default=1.0)
    ap.add_argument("--duration", type=float, default=8.0)
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_MEMLOCK)
    with open("/proc/self/status") as f:
        capeff = next((l.split()[1] for l in f if l.startswith("CapEff:")), "?")
    log("start", pid=os.getpid(), dev=a.dev, memlock_soft=soft, memlock_hard=hard,
        cap_eff=capeff, cap_ipc_lock=bool(int(capeff, 16) & (1 << 14)) if capeff != "?" else "?")
    ctx = Context(name=a.dev)
    pd = PD(ctx)
    cq = CQ(ctx, 64, None, None, 0)
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq,
                           cap=QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1, max_recv_sge=1)))
    attr = QPAttr(port_num=1)
    attr.pkey_index = 0
    attr.qp_access_flags = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
    qp.to_init(attr)
    log("qp", qpn=hex(qp.qp_num), state="INIT")
    access = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE | e.IBV_ACCESS_REMOTE_READ
    end = time.monotonic() + a.duration
    tries = fails = 0
    while time.monotonic() < end:
        tries += 1
        try:
            mr = MR(pd, a.size, access)
            log("reg_mr", size=a.size, result="ok", lkey=hex(mr.lkey))
            mr.close()
        except PyverbsError as ex:
            fails += 1
            log("reg_mr", size=a.size, result="failed", error=str(ex).replace(" ", "_"))
        time.sleep(a.every)
    log("summary", tries=tries, failed=fails, qpn=hex(qp.qp_num))
    qp.close()
    cq.close()
    pd.close()
    ctx.close()
    log("end")
    return 0 if fails else 1


if __name__ == "__main__":
    sys.exit(main())
