#!/bin/bash
# rxe-lab job (boot with -e RXE_MTU=4500): an MTU mismatch where small
# messages get through. veth0 (A) keeps MTU 4500 (RoCE MTU 4096); veth1 (B)
# is set to 1500, so the veth drops every frame longer than B accepts
# (is_skb_forwardable) while B's own frames stay small. One connection,
# ib_write_bw -a: sizes 2 B to 1 KiB fit a 1500-byte frame and are
# acknowledged, the first 2 KiB message never arrives and the requester
# resends it until its retries run out. The truth is how the fault is
# made (the MTUs) and veth1's drop counter. Run from the repo root:
#   flock /tmp/rxe-lab.lock ../shared/lab/rxe-lab run -q -i DIR -o OUT -t 240 -e RXE_MTU=4500 test/lab/mtu-small-large.sh
# (DIR holding nothing but this job). Results in $LAB_OUT: mtu.pcap
# (tcpdump -s 0 on veth0), links.txt (ip -s link before and after),
# client.txt, server.txt, hw_counters.txt.
set -u
cd "$LAB_IN"
uname -r > "$LAB_OUT/versions.txt"
ip link set veth1 mtu 1500
sleep 1
ibv_devinfo -d rxe0 | grep active_mtu >> "$LAB_OUT/versions.txt"
ibv_devinfo -d rxe1 | grep active_mtu >> "$LAB_OUT/versions.txt"
ip -s link show dev veth1 > "$LAB_OUT/links.txt"
tcpdump -U -i veth0 -s 0 -w "$LAB_OUT/mtu.pcap" udp port 4791 2> "$LAB_OUT/tcpdump.txt" &
dump=$!
sleep 2
ib_write_bw -d rxe1 -x "$RXE_GID_INDEX" -a -n 20 -F > "$LAB_OUT/server.txt" 2>&1 &
srv=$!
sleep 1.5
timeout 60 ib_write_bw -d rxe0 -x "$RXE_GID_INDEX" -a -n 20 -F "$RXE_IP_B" > "$LAB_OUT/client.txt" 2>&1
echo "client exit $?" >> "$LAB_OUT/client.txt"
( sleep 10; kill "$srv" 2> /dev/null ) & k=$!
wait "$srv"; echo "server exit $?" >> "$LAB_OUT/server.txt"
kill "$k" 2> /dev/null
sleep 1
kill -INT $dump; wait $dump
echo "## after" >> "$LAB_OUT/links.txt"
ip -s link show dev veth1 >> "$LAB_OUT/links.txt"
for d in rxe0 rxe1; do
    for f in /sys/class/infiniband/$d/ports/1/hw_counters/*; do
        printf '%s %s %s\n' "$d" "${f##*/}" "$(cat "$f")"
    done
done > "$LAB_OUT/hw_counters.txt"
