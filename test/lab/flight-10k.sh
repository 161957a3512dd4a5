#!/bin/bash
# rxe-lab job: the flight recorder's memory with 10,000 real QPs. Run from
# the repo root with `test/lab/run.sh flight-10k`. A pyverbs process opens
# 10,000 RC QPs on rxe0 and moves them to INIT (the kernel's QP table then
# holds them: `rdma res show qp` lists them, rdma netlink dumps them every
# tick); ib_write_bw runs beside for packets. serve --flight-recorder runs
# 70 s with --keep 60s, so its ring fills; /metrics and serve's resident
# memory are read every 10 s. Under emulation the kernel's dump of 10,000
# QPs takes over 2 s, so serve samples every 5 s with --probe-timeout 4s.
# Results (in $LAB_OUT): qps.txt (the QP count the kernel lists),
# snapshot.json.gz (one --once --json snapshot), mem.txt
# (time, rdmatop_flight_memory_bytes, serve's VmRSS and VmHWM), serve.err.
set -u
cd "$LAB_IN"
cat > qps.py <<'PY'
import sys, time
import pyverbs.enums as e
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
ctx = Context(name=sys.argv[1])
pd = PD(ctx)
cq = CQ(ctx, 16, None, None, 0)
cap = QPCap(max_send_wr=1, max_recv_wr=1, max_send_sge=1, max_recv_sge=1)
qps = []
for i in range(int(sys.argv[2])):
    qp = QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap))
    a = QPAttr(port_num=1)
    a.pkey_index = 0
    a.qp_access_flags = 0
    qp.to_init(a)
    qps.append(qp)
open(sys.argv[3], "w").write("%d\n" % len(qps))
while True:
    time.sleep(60)
PY
python3 qps.py "$RXE_DEV_A" 10000 "$LAB_OUT/made.txt" 2> "$LAB_OUT/qps.err" &
py=$!
for i in $(seq 1 120); do [ -s "$LAB_OUT/made.txt" ] && break; sleep 1; done
rdma res show qp | wc -l > "$LAB_OUT/qps.txt"
./rdmatop --once --json -i "$RXE_NETDEV_A" --probe-timeout 8s 2> "$LAB_OUT/once.err" | gzip > "$LAB_OUT/snapshot.json.gz"
ib_write_bw -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -D 80 -s 4096 -F > /dev/null 2>&1 &
sleep 1
ib_write_bw -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -D 80 -s 4096 -F "$RXE_IP_B" > "$LAB_OUT/write_bw.txt" 2>&1 &
mkdir -p "$LAB_OUT/flight"
./rdmatop serve --listen 127.0.0.1:19879 -i "$RXE_NETDEV_A" --flight-recorder "$LAB_OUT/flight" \
    --interval 5s --probe-timeout 4s --keep 60s --before 30s --trigger-silence 20s 2> "$LAB_OUT/serve.err" &
srv=$!
for i in $(seq 1 7); do
    sleep 10
    m=$({ exec 3<>/dev/tcp/127.0.0.1/19879 && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && grep '^rdmatop_flight_memory_bytes' <&3; } 2>&1)
    echo "$((i*10))s $m $(grep -E 'VmRSS|VmHWM' /proc/$srv/status | tr -s ' \t' ' ' | tr '\n' ' ')" >> "$LAB_OUT/mem.txt"
done
kill -TERM $srv; wait $srv; echo "serve exit $?" >> "$LAB_OUT/serve.err"
pkill -x ib_write_bw; kill $py
wait
