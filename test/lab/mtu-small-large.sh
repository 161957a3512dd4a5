#!/bin/bash
# rxe-lab job (boot with -e RXE_MTU=4500): an MTU mismatch where small
# messages get through. Both ports run RoCE MTU 4096 (veth MTU 4500); at
# veth1's ingress, after both captures' taps, u32 filters drop every RoCE
# frame whose IP total length is 2048 to 6143 bytes: a hop whose MTU is
# below 2048 (RoCE sets DF, so a router drops what does not fit). (On
# veth0's egress the qdisc would drop them before A's own capture sees
# them.) One connection,
# ib_write_bw -a: messages of 2 B to 1 KiB fit and are acknowledged, the
# first 2 KiB one never arrives and the requester resends it until its
# retries run out. The truth is how the fault is made and the filters' own
# drop counters (tc -s filter). Run from the repo root:
#   in=$(mktemp -d); cp test/lab/mtu-small-large.sh $in/
#   flock /tmp/rxe-lab.lock ../shared/lab/rxe-lab run -q -i $in -o OUT -t 240 -e RXE_MTU=4500 $in/mtu-small-large.sh
# Results in $LAB_OUT: mtu.pcap (tcpdump -s 0 on veth0: A's side),
# filters.txt, client.txt, server.txt, hw_counters.txt.
set -u
cd "$LAB_IN"
uname -r > "$LAB_OUT/versions.txt"
ibv_devinfo -d rxe0 | grep active_mtu >> "$LAB_OUT/versions.txt"
ibv_devinfo -d rxe1 | grep active_mtu >> "$LAB_OUT/versions.txt"
m="match ip protocol 17 0xff match ip dport 4791 0xffff"
tc qdisc add dev veth1 ingress
# IP total length & 0xf800: 0x0800 is 2048..4095, 0x1000 is 4096..6143.
# shellcheck disable=SC2086
tc filter add dev veth1 parent ffff: protocol ip prio 1 u32 $m match u16 0x0800 0xf800 at 2 action drop
# shellcheck disable=SC2086
tc filter add dev veth1 parent ffff: protocol ip prio 2 u32 $m match u16 0x1000 0xf800 at 2 action drop
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
tc -s filter show dev veth1 ingress > "$LAB_OUT/filters.txt"
for d in rxe0 rxe1; do
    for f in /sys/class/infiniband/$d/ports/1/hw_counters/*; do
        printf '%s %s %s\n' "$d" "${f##*/}" "$(cat "$f")"
    done
done > "$LAB_OUT/hw_counters.txt"
