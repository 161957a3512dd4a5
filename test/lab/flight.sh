#!/bin/bash
# rxe-lab job: the flight recorder on a real Soft-RoCE stack. Run from the
# repo root with `test/lab/run.sh flight`. Two serve runs with
# --flight-recorder, each while ib_write_bw runs from rxe0 to rxe1:
#   quiet/  no fault: the recorder must write nothing;
#   flap/   veth1 is set down for 3 s and up again (the time of each step is
#           in flap.txt, from the guest's clock, which rdmatop also reads):
#           the recorder must write one incident covering the flap.
# Results (in $LAB_OUT): quiet/, flap/ (the incident and its sidecar),
# quiet.err / flap.err (serve's stderr), flap.txt, write_bw-*.txt,
# check.txt (rdmatop check of the incident, in the guest).
set -u
cd "$LAB_IN"
fr="--interval 1s --before 5s --after 4s --keep 60s --cooldown 60s"

traffic() { # traffic NAME SECONDS
    ib_write_bw -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -D "$2" -s 4096 -F > /dev/null 2>&1 &
    sleep 1
    ib_write_bw -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -D "$2" -s 4096 -F "$RXE_IP_B" > "$LAB_OUT/write_bw-$1.txt" 2>&1 &
}

mkdir -p "$LAB_OUT/quiet" "$LAB_OUT/flap"
./rdmatop serve --listen 127.0.0.1:19879 -i "$RXE_NETDEV_A" --flight-recorder "$LAB_OUT/quiet" $fr 2> "$LAB_OUT/quiet.err" &
srv=$!
sleep 2
traffic quiet 8
sleep 10
kill -TERM $srv; wait $srv; echo "serve exit $?" >> "$LAB_OUT/quiet.err"
wait

./rdmatop serve --listen 127.0.0.1:19879 -i "$RXE_NETDEV_A" --flight-recorder "$LAB_OUT/flap" $fr 2> "$LAB_OUT/flap.err" &
srv=$!
sleep 2
traffic flap 14
sleep 5
echo "down $(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" > "$LAB_OUT/flap.txt"
ip link set "$RXE_NETDEV_B" down
sleep 3
ip link set "$RXE_NETDEV_B" up
echo "up $(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" >> "$LAB_OUT/flap.txt"
sleep 16 # the window closes 4 s after the last trigger; the emulated guest sees the port come back seconds late
{ exec 3<>/dev/tcp/127.0.0.1/19879 && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && grep '^rdmatop_flight' <&3; } > "$LAB_OUT/flap-metrics.txt" 2>&1
kill -TERM $srv; wait $srv; echo "serve exit $?" >> "$LAB_OUT/flap.err"
wait
for f in "$LAB_OUT"/flap/*.pcapng.gz; do
    ./rdmatop check "$f" > "$LAB_OUT/check.txt" 2>&1; echo "check exit $?" >> "$LAB_OUT/check.txt"
done
