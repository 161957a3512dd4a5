#!/bin/bash
# rxe-lab job: QP owners down to the pod on a real Soft-RoCE stack. Run
# from the repo root with `test/lab/run.sh owners`. The kernel's own
# cgroups are the truth: the job creates cgroup v2 directories named as
# the kubelet (systemd driver) and docker name them, starts ib_write_bw's
# server inside the "pod" and its client inside the "docker container",
# and writes the kubelet's pod directory. Results (in $LAB_OUT):
# once.json (rdmatop --once --json during traffic), record.bundle.gz
# (rdmatop record over the same time), rdma-res-qp.json (iproute2's QP
# list with PIDs), server.cgroup / client.cgroup (/proc/PID/cgroup of
# each), pids.txt.
set -u
cd "$LAB_IN"
grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts || { mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup; }
uid=0d4c6a1e-6b1f-4c2a-9e3d-2f1a0b9c8d7e
pod=/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid//-/_}.slice
ctr=4f1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9
dock=9c0e7a5b3d1f2e4c6a8b0d9f7e5c3a1b2d4f6e8a0c9b7d5f3e1a2c4b6d8f0e9a
mkdir -p "$pod/cri-containerd-$ctr.scope" "/sys/fs/cgroup/system.slice/docker-$dock.scope"
mkdir -p "/var/log/pods/ml_trainer-0_$uid/main"

./rdmatop record -o "$LAB_OUT/record.bundle.gz" --interval 1s --duration 7s 2> "$LAB_OUT/record.err" &
rec=$!
sleep 1
sh -c "echo \$\$ > $pod/cri-containerd-$ctr.scope/cgroup.procs && exec ib_write_bw -d $RXE_DEV_B -x $RXE_GID_INDEX -D 4 -s 4096 -F" > /dev/null 2>&1 &
srv=$!
sleep 1
sh -c "echo \$\$ > /sys/fs/cgroup/system.slice/docker-$dock.scope/cgroup.procs && exec ib_write_bw -d $RXE_DEV_A -x $RXE_GID_INDEX -D 4 -s 4096 -F $RXE_IP_B" > "$LAB_OUT/write_bw.txt" 2>&1 &
cli=$!
sleep 2
echo "server $srv client $cli" > "$LAB_OUT/pids.txt"
cat "/proc/$srv/cgroup" > "$LAB_OUT/server.cgroup"
cat "/proc/$cli/cgroup" > "$LAB_OUT/client.cgroup"
rdma -j res show qp > "$LAB_OUT/rdma-res-qp.json" 2>&1
./rdmatop --once --json --interval 500ms > "$LAB_OUT/once.json" 2> "$LAB_OUT/once.err"
wait $cli $srv
wait $rec; echo "record exit $?" >> "$LAB_OUT/record.err"
