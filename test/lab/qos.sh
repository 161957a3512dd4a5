#!/bin/bash
# rxe-lab job: QoS per direction on a real Soft-RoCE stack. Run from the
# repo root with `test/lab/run.sh qos`. ib_write_bw's client (rxe0) sets
# the traffic class of its QP (--tclass=96: DSCP 24, Not-ECT); the server
# (rxe1) sets none. Each QP's GRH traffic class is its own process's
# setting, so the requests ride DSCP 24 and the responder's ACKs DSCP 0:
# one connection, two classes. Results (in $LAB_OUT): tclass.pcap
# (tcpdump on veth0, both directions), write_bw.txt, help.txt (perftest's
# options for the traffic class, as this guest's perftest has them).
set -u
cd "$LAB_IN"
ib_write_bw --help 2>&1 | grep -iE "tclass|tos|traffic" > "$LAB_OUT/help.txt"
tcpdump -U -Z root -i veth0 -w "$LAB_OUT/tclass.pcap" udp port 4791 2>/dev/null &
td=$!
sleep 1
ib_write_bw -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -n 200 -s 4096 -F > /dev/null 2>&1 &
sleep 1
ib_write_bw -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -n 200 -s 4096 -F --tclass=96 "$RXE_IP_B" > "$LAB_OUT/write_bw.txt" 2>&1
sleep 1
kill -INT $td; wait
