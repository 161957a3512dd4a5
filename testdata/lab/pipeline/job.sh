#!/bin/bash
# rxe-lab job: the joined pipeline on a real Soft-RoCE stack, during
# ib_write_bw with netem loss on veth0's RoCE egress. Run from the repo
# root with `test/lab/run.sh pipeline` (the screen part needs tmux in the
# guest: RXE_LAB_EXTRA_PACKAGES=tmux when building the lab; without it the
# job says so and skips that part). Results (in $LAB_OUT):
#   screen-*.txt      rdmatop -i veth0 under tmux: overview, QPs, flows
#   once-veth0.json   --once --json -i veth0 during the traffic
#   once-veth1.json   --once --json -i veth1 (only rxe1's QPs)
#   incident.pcapng.gz rdmatop record -o ... -i veth0 --duration 6s (gzip: ~2 MB)
#   rdma-res-qp.json  iproute2's QPs at the time, tc.txt netem's drops
set -u
cd "$LAB_IN"
uname -r > "$LAB_OUT/versions.txt"; ./rdmatop --version >> "$LAB_OUT/versions.txt"

# netem only on RoCE packets leaving veth0 (the perftest TCP control
# connection must not be hit).
tc qdisc add dev veth0 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
tc qdisc add dev veth0 parent 1:1 handle 10: netem loss 2%
tc filter add dev veth0 parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
   match ip dport 4791 0xffff flowid 1:1

# Traffic for about 35 s: WRITEs from rxe0 to rxe1 (a few MB/s under
# TCG). The rdmatop runs below take turns: under TCG two vCPUs are slow
# enough that the recorder, the screen and --once side by side starve
# each other's probes past their 2 s timeout.
ib_write_bw -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -D 35 -s 4096 -F > /dev/null 2>&1 &
srv=$!
sleep 1
ib_write_bw -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -D 35 -s 4096 -F "$RXE_IP_B" > "$LAB_OUT/write_bw.txt" 2>&1 &
cli=$!
sleep 3

./rdmatop record -o "$LAB_OUT/incident.pcapng.gz" -i veth0 --duration 6s 2> "$LAB_OUT/record.err"
echo "record exit $?" >> "$LAB_OUT/record.err"

if command -v tmux > /dev/null; then
  tmux new-session -d -s lab -x 160 -y 45 "./rdmatop -i veth0 2> $LAB_OUT/screen.err"
  sleep 5
  tmux capture-pane -p -t lab > "$LAB_OUT/screen-overview.txt"
  tmux send-keys -t lab 2; sleep 2
  tmux capture-pane -p -t lab > "$LAB_OUT/screen-qps.txt"
  tmux send-keys -t lab 3; sleep 2
  tmux capture-pane -p -t lab > "$LAB_OUT/screen-flows.txt"
  tmux send-keys -t lab q; sleep 1
  tmux has-session -t lab 2> /dev/null && echo "q did not quit" >> "$LAB_OUT/screen.err"
else
  echo "no tmux in this guest (build the lab with RXE_LAB_EXTRA_PACKAGES=tmux)" > "$LAB_OUT/screen.err"
fi

./rdmatop --once --json -i veth0 --interval 2s > "$LAB_OUT/once-veth0.json" 2> "$LAB_OUT/once-veth0.err"
./rdmatop --once --json -i veth1 --no-capture --interval 500ms > "$LAB_OUT/once-veth1.json" 2> "$LAB_OUT/once-veth1.err"
rdma -j res show qp > "$LAB_OUT/rdma-res-qp.json" 2>&1
wait $cli $srv
tc -s qdisc show dev veth0 > "$LAB_OUT/tc.txt"
