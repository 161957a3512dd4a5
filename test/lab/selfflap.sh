#!/bin/bash
# rxe-lab job: the captured link itself flaps. Run from the repo root with
# `test/lab/run.sh selfflap`. Three runs, each capturing on veth0 while
# ib_write_bw runs from rxe0 (veth0) to rxe1 and veth0 is set down for
# 2 s and up again (flap-NAME.txt: the guest's clock at each step):
#   serve/   serve --flight-recorder -i veth0: one incident, its check;
#   record   record -i veth0: the recording and its check;
#   capture  capture -i veth0 --workers 2: the report.
#   jobend/  no flap: a job that ends well under --trigger-silence 10s
#            must write nothing (jobend.txt: its end and the QPs left).
# serve also goes through a second flap once the traffic has ended
# (flap-idle.txt, cpu-idle.txt), with 5 s of idle before it as the
# baseline: what the flap costs, free of the work the traffic makes.
# cpu-NAME.txt: the process's user+system CPU (clock ticks, /proc/PID/stat)
# at each step, so the CPU used while the link was down and after is
# known without rdmatop's word for it.
set -u
cd "$LAB_IN"
tck=$(getconf CLK_TCK)
cpu() { # cpu PID LABEL FILE
    local s; s=$(awk '{print $14 + $15}' "/proc/$1/stat" 2> /dev/null)
    echo "$2 $(date -u +%Y-%m-%dT%H:%M:%S.%NZ) ${s:-gone} $tck" >> "$3"
}
traffic() { # traffic NAME SECONDS
    ib_write_bw -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -D "$2" -s 4096 -F > /dev/null 2>&1 &
    sleep 1
    ib_write_bw -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -D "$2" -s 4096 -F "$RXE_IP_B" > "$LAB_OUT/write_bw-$1.txt" 2>&1 &
}
flap() { # flap NAME PID: veth0 down 2 s, CPU before, at up, 5 s after
    local f="$LAB_OUT/cpu-$1.txt"
    cpu "$2" before "$f"
    echo "down $(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" > "$LAB_OUT/flap-$1.txt"
    ip link set "$RXE_NETDEV_A" down
    sleep 2
    cpu "$2" down-end "$f"
    ip link set "$RXE_NETDEV_A" up
    echo "up $(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" >> "$LAB_OUT/flap-$1.txt"
    sleep 5
    cpu "$2" after5 "$f"
}
fr="--interval 1s --before 5s --after 4s --keep 60s --cooldown 60s"

mkdir -p "$LAB_OUT/serve"
./rdmatop serve --listen 127.0.0.1:19879 -i "$RXE_NETDEV_A" --flight-recorder "$LAB_OUT/serve" $fr 2> "$LAB_OUT/serve.err" &
srv=$!
sleep 2
traffic serve 16
sleep 5
flap serve $srv
sleep 10
cpu $srv idle-start "$LAB_OUT/cpu-idle.txt"
sleep 5
flap idle $srv
{ exec 3<>/dev/tcp/127.0.0.1/19879 && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && grep -E '^rdmatop_(flight|source)' <&3; } > "$LAB_OUT/serve-metrics.txt" 2>&1
cpu $srv end "$LAB_OUT/cpu-serve.txt"
kill -TERM $srv; wait $srv; echo "serve exit $?" >> "$LAB_OUT/serve.err"
wait
for f in "$LAB_OUT"/serve/*.pcapng.gz; do
    ./rdmatop check "$f" > "$LAB_OUT/check-serve.txt" 2>&1; echo "check exit $?" >> "$LAB_OUT/check-serve.txt"
done

./rdmatop record -i "$RXE_NETDEV_A" -o "$LAB_OUT/record.pcapng.gz" --snaplen 128 --duration 16s 2> "$LAB_OUT/record.err" &
rec=$!
sleep 1
traffic record 14
sleep 4
flap record $rec
wait $rec; echo "record exit $?" >> "$LAB_OUT/record.err"
wait
./rdmatop check "$LAB_OUT/record.pcapng.gz" > "$LAB_OUT/check-record.txt" 2>&1; echo "check exit $?" >> "$LAB_OUT/check-record.txt"

./rdmatop capture -i "$RXE_NETDEV_A" --workers 2 --duration 14s > "$LAB_OUT/capture.txt" 2> "$LAB_OUT/capture.err" &
cap=$!
sleep 1
traffic capture 12
sleep 4
flap capture $cap
wait $cap; echo "capture exit $?" >> "$LAB_OUT/capture.err"
wait

# jobend/: a job that ends well (its QPs destroyed, the kernel's QP1 left
# in RTS) under serve --flight-recorder --trigger-silence 10s: nothing
# may be written, however long the silence after it.
mkdir -p "$LAB_OUT/jobend"
./rdmatop serve --listen 127.0.0.1:19880 -i "$RXE_NETDEV_A" --flight-recorder "$LAB_OUT/jobend" \
    --interval 1s --before 5s --after 4s --keep 60s --cooldown 60s --trigger-silence 10s 2> "$LAB_OUT/jobend.err" &
srv=$!
sleep 2
traffic jobend 6
sleep 8
echo "job ended $(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" > "$LAB_OUT/jobend.txt"
rdma res show qp >> "$LAB_OUT/jobend.txt"
sleep 25
kill -TERM $srv; wait $srv; echo "serve exit $?" >> "$LAB_OUT/jobend.err"
wait
ls -la "$LAB_OUT/jobend" >> "$LAB_OUT/jobend.txt"
