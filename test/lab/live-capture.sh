#!/bin/bash
# rxe-lab job: rdmatop's live capture on a real Soft-RoCE link with netem
# loss, next to tcpdump on the same interface. Run from the repo root with
#   test/lab/run.sh live-capture
# Results (in $LAB_OUT): live.json (rdmatop capture), wire.pcap (tcpdump),
# tc.txt (netem's drop count), versions.txt.
set -u
cd "$LAB_IN"
uname -r > "$LAB_OUT/versions.txt"; ./rdmatop --version >> "$LAB_OUT/versions.txt"

# netem only on RoCE packets leaving veth0, as in shared/testdata/rxe (job D).
tc qdisc add dev veth0 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
tc qdisc add dev veth0 parent 1:1 handle 10: netem loss 1%
tc filter add dev veth0 parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
   match ip dport 4791 0xffff flowid 1:1

./rdmatop capture -i veth0 --duration 40s --json > "$LAB_OUT/live.json" 2> "$LAB_OUT/live.err" &
live=$!
tcpdump -U -i veth0 -w "$LAB_OUT/wire.pcap" udp port 4791 2> "$LAB_OUT/tcpdump.txt" &
dump=$!
sleep 3
ib_write_bw -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -n 400 -s 4096 -F > /dev/null 2>&1 &
srv=$!
sleep 1
ib_write_bw -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -n 400 -s 4096 -F "$RXE_IP_B" > "$LAB_OUT/write_bw.txt" 2>&1
wait $srv
ib_read_bw -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -n 100 -s 4096 -F > /dev/null 2>&1 &
srv=$!
sleep 1
ib_read_bw -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -n 100 -s 4096 -F "$RXE_IP_B" > "$LAB_OUT/read_bw.txt" 2>&1
wait $srv
sleep 2
kill -INT $dump; wait $dump
wait $live; echo "rdmatop exit $?" >> "$LAB_OUT/live.err"
tc -s qdisc show dev veth0 > "$LAB_OUT/tc.txt"
