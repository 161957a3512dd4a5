#!/bin/bash
# rxe-lab job: live capture on two rings of a PACKET_FANOUT group
# (--workers 2) on a real Soft-RoCE stack. Two host pairs SEND at
# once over veth0 (192.168.77.1 -> .2, the lab's own, and 192.168.79.1 ->
# .2, added here with their own RoCEv2 GIDs), with 2% netem loss on
# veth0's RoCE egress: the kernel hands each pair to its own ring (see
# capture.FanoutShard), and every Frame merges both. Run from the repo
# root with `test/lab/run.sh fanout`. Results (in $LAB_OUT):
#   once-workers2.json  --once --json -i veth0 --workers 2
#   once-workers1.json  the same with one ring, right after
#   screen-fanout.txt   rdmatop -i veth0 --workers 2 under tmux, flows view
#   gids.txt, send_bw-*.txt, tc.txt
set -u
cd "$LAB_IN"
uname -r > "$LAB_OUT/versions.txt"; ./rdmatop --version >> "$LAB_OUT/versions.txt"

# A second host pair on the same wire, routed across the veth as the lab
# routes its own (policy rules: local addresses must not use loopback).
A2=192.168.79.1 B2=192.168.79.2
ip addr add $A2/24 dev veth0
ip addr add $B2/24 dev veth1
ip route add $B2 dev veth0 src $A2 table 103
ip route add $A2 dev veth1 src $B2 table 104
ip rule add pref 12 iif lo to $B2 lookup 103
ip rule add pref 13 iif lo to $A2 lookup 104
gid_index() {  # dev ip
    local hex f
    hex=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$2" | tr . ' '))
    for f in /sys/class/infiniband/$1/ports/1/gids/*; do
        if [ "$(cat "$f" 2>/dev/null)" = "$hex" ]; then basename "$f"; return 0; fi
    done
    return 1
}
GA2= GB2=
for _ in $(seq 1 100); do
    GA2=$(gid_index "$RXE_DEV_A" $A2 || true); GB2=$(gid_index "$RXE_DEV_B" $B2 || true)
    [ -n "$GA2" ] && [ -n "$GB2" ] && break
    sleep 0.1
done
echo "pair 1 gid $RXE_GID_INDEX; pair 2 gids $GA2 $GB2" > "$LAB_OUT/gids.txt"
ping -c1 -W2 -I veth0 $B2 >> "$LAB_OUT/gids.txt" 2>&1

tc qdisc add dev veth0 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
tc qdisc add dev veth0 parent 1:1 handle 10: netem loss 2%
tc filter add dev veth0 parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
   match ip dport 4791 0xffff flowid 1:1

# Two SEND streams for 40 s, each on its own perftest port; -e
# waits for completions on events: four busy-polling perftests starve
# the two vCPUs of TCG (a stream then fails with retries exceeded), and
# with -e perftest counts iterations, not time: timeout stops them.
timeout 40 ib_send_bw -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -p 18515 -n 1000000 -s 4096 -F -e > /dev/null 2>&1 &
s1=$!
timeout 40 ib_send_bw -d "$RXE_DEV_B" -x "$GB2" -p 18516 -n 1000000 -s 4096 -F -e > /dev/null 2>&1 &
s2=$!
sleep 1
timeout 40 ib_send_bw -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -p 18515 -n 1000000 -s 4096 -F -e "$RXE_IP_B" > "$LAB_OUT/send_bw-1.txt" 2>&1 &
c1=$!
timeout 40 ib_send_bw -d "$RXE_DEV_A" -x "$GA2" -p 18516 -n 1000000 -s 4096 -F -e $B2 > "$LAB_OUT/send_bw-2.txt" 2>&1 &
c2=$!
sleep 4

# The rdmatop runs take turns (under TCG side by side they starve).
./rdmatop --once --json -i veth0 --workers 2 --interval 3s > "$LAB_OUT/once-workers2.json" 2> "$LAB_OUT/once-workers2.err"
./rdmatop --once --json -i veth0 --workers 1 --interval 3s > "$LAB_OUT/once-workers1.json" 2> "$LAB_OUT/once-workers1.err"
if command -v tmux > /dev/null; then
  tmux new-session -d -s lab -x 160 -y 45 "./rdmatop -i veth0 --workers 2 2> $LAB_OUT/screen.err"
  sleep 6
  tmux send-keys -t lab 3; sleep 2
  tmux capture-pane -p -t lab > "$LAB_OUT/screen-fanout.txt"
  tmux send-keys -t lab q; sleep 1
else
  echo "no tmux in this guest (build the lab with RXE_LAB_EXTRA_PACKAGES=tmux)" > "$LAB_OUT/screen.err"
fi
wait $c1 $c2 $s1 $s2
tc -s qdisc show dev veth0 > "$LAB_OUT/tc.txt"
