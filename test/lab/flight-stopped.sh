#!/bin/bash
# rxe-lab job: the flight recorder's traffic-stopped trigger on a real
# Soft-RoCE stack. Run from the repo root with `test/lab/run.sh
# flight-stopped`. serve --flight-recorder runs while ib_write_bw runs
# from rxe0 to rxe1; 6 s in, both perftest processes are stopped
# (SIGSTOP) for 14 s and then continued: the job hangs with its QPs in
# RTS, which no transport error reports (an idle QP has nothing to time
# out). With --trigger-silence 5s the recorder must write one incident,
# triggered by traffic-stopped.
# Truth (in $LAB_OUT): stopped.txt (the guest's clock at SIGSTOP and
# SIGCONT), qps.txt (rdma res show qp while stopped: the QPs' states),
# counters.txt (rxe0's sent_pkts at SIGSTOP and 10 s later: unchanged
# when nothing was sent). Results: stopped/ (the incident), serve.err,
# check.txt (rdmatop check of the incident), metrics.txt.
set -u
cd "$LAB_IN"
mkdir -p "$LAB_OUT/stopped"
./rdmatop serve --listen 127.0.0.1:19879 -i "$RXE_NETDEV_A" --flight-recorder "$LAB_OUT/stopped" \
    --interval 1s --before 5s --after 3s --keep 60s --cooldown 60s --trigger-silence 5s 2> "$LAB_OUT/serve.err" &
srv=$!
sleep 2
ib_write_bw -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -D 40 -s 4096 -F > /dev/null 2>&1 &
sleep 1
ib_write_bw -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -D 40 -s 4096 -F "$RXE_IP_B" > "$LAB_OUT/write_bw.txt" 2>&1 &
sleep 6
pkill -STOP -x ib_write_bw
echo "stop $(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" > "$LAB_OUT/stopped.txt"
sent() { cat /sys/class/infiniband/"$RXE_DEV_A"/ports/1/hw_counters/sent_pkts; }
echo "sent_pkts at stop $(sent)" > "$LAB_OUT/counters.txt"
sleep 2
rdma res show qp > "$LAB_OUT/qps.txt" 2>&1
sleep 8
echo "sent_pkts 10 s later $(sent)" >> "$LAB_OUT/counters.txt"
sleep 4
pkill -CONT -x ib_write_bw
echo "cont $(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" >> "$LAB_OUT/stopped.txt"
sleep 8
{ exec 3<>/dev/tcp/127.0.0.1/19879 && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && grep '^rdmatop_flight' <&3; } > "$LAB_OUT/metrics.txt" 2>&1
kill -TERM $srv; wait $srv; echo "serve exit $?" >> "$LAB_OUT/serve.err"
pkill -x ib_write_bw
wait
for f in "$LAB_OUT"/stopped/*.pcapng.gz; do
    ./rdmatop check "$f" > "$LAB_OUT/check.txt" 2>&1; echo "check exit $?" >> "$LAB_OUT/check.txt"
done
