#!/bin/bash
# rxe-lab job: the host probes on a real Soft-RoCE stack. Run from the repo
# root with `test/lab/run.sh probes`. Results (in $LAB_OUT): once-idle.json
# (rdmatop --once --json before traffic), record.bundle.gz (rdmatop record
# during ib_write_bw and a link flap), actions.txt (when what happened),
# rdma-res-qp.json / rdma-statistic.json (iproute2's view mid-run).
set -u
cd "$LAB_IN"
uname -r > "$LAB_OUT/versions.txt"
./rdmatop --once --json --interval 500ms > "$LAB_OUT/once-idle.json" 2> "$LAB_OUT/once-idle.err"

./rdmatop record -o "$LAB_OUT/record.bundle.gz" --interval 1s --duration 14s 2> "$LAB_OUT/record.err" &
rec=$!
sleep 2
date +%s.%N | sed 's/^/traffic-start /' >> "$LAB_OUT/actions.txt"
ib_write_bw -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -D 4 -s 4096 -F > /dev/null 2>&1 &
srv=$!
sleep 1
ib_write_bw -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -D 4 -s 4096 -F "$RXE_IP_B" > "$LAB_OUT/write_bw.txt" 2>&1 &
cli=$!
sleep 2
rdma -j res show qp > "$LAB_OUT/rdma-res-qp.json" 2>&1
rdma -j statistic show > "$LAB_OUT/rdma-statistic.json" 2>&1
wait $cli $srv
date +%s.%N | sed 's/^/traffic-end /' >> "$LAB_OUT/actions.txt"
sleep 1
date +%s.%N | sed 's/^/link-down /' >> "$LAB_OUT/actions.txt"
ip link set "$RXE_NETDEV_B" down
sleep 2
date +%s.%N | sed 's/^/link-up /' >> "$LAB_OUT/actions.txt"
ip link set "$RXE_NETDEV_B" up
wait $rec; echo "record exit $?" >> "$LAB_OUT/record.err"
