#!/bin/bash
# rxe-lab job: the held-out EVALUATION set of labelled RoCE incidents
# (testdata/evalset/). Same method as the tuning corpus job
# (test/lab/incidents/incidents.sh), other incidents: other seeds, rates,
# verbs, message sizes, MTU, intensities and capture sides. Each incident is
# one `rdmatop record` (host ticks and the RoCE packets of one veth on one
# timeline) around one thing done on purpose to a real Soft-RoCE stack. The
# label is what was done, never what rdmatop says. Nobody tunes rules on
# these recordings; they only measure.
#
# Run from the repository root with test/lab/evalset/run.sh (it copies
# rdmatop and shared/lab/faults/rxe-faults.py into the guest):
#
#   test/lab/evalset/run.sh OUTDIR NAME...
#   RXE_MTU=4500 test/lab/evalset/run.sh OUTDIR NAME...   # the *-mtu4k ones
#
# Results in $LAB_OUT, per incident NAME:
#   NAME.pcapng.gz  rdmatop record -o ... -i IFACE --snaplen 128 --interval 1s
#                   (IFACE veth0, the requester's side, or veth1 for the
#                   incidents recorded at the receiver, see REC_IF below)
#   NAME.truth.txt  the ground truth: what was done and when (guest unix
#                   time), tc -s counters, the workload's or fault
#                   program's own output, hw_counters of both devices
#                   before/after with deltas, softnet_stat and ip -s link
#                   before/after, the recorder's exit line.
# plus environment.txt (kernel, packages, rdmatop version, MTUs).
# The labels are in testdata/evalset/incidents.json and MANIFEST.md.
#
# Differences from the tuning job: net.core.netdev_max_backlog is raised to
# 100000 for the whole job (full-speed runs would otherwise overflow the
# veth backlog: loss nobody asked for); netem gets `limit 100000` so that
# its own queue never drops; many workloads run at full speed (no perftest
# rate limit), the others at 2 or 5 MiB/s; workloads run on vCPU 0 and
# the recorder on vCPU 1 (see WL below).
#
# One recorder at a time, one incident after the other. Variables
# (rxe-lab run -e VAR=VALUE):
#   INCIDENTS   names to run, space separated (required)
set -u
cd "$LAB_IN"
A=${RXE_DEV_A:-rxe0} B=${RXE_DEV_B:-rxe1}
NA=${RXE_NETDEV_A:-veth0} NB=${RXE_NETDEV_B:-veth1}
IPA=${RXE_IP_A:-192.168.77.1} IPB=${RXE_IP_B:-192.168.77.2}
GX=${RXE_GID_INDEX:-1}
PORT=18700
tmp=$(mktemp -d /tmp/evalset.XXXXXX)
BACKLOG=100000
sysctl -qw net.core.netdev_max_backlog=$BACKLOG
# Workloads and fault programs run on CPU 0, the recorder on CPU 1. rxe
# does its work in the context that posts or receives: with the two
# perftest processes free to run on both vCPUs, packets are handed to two
# per-CPU backlogs and reach the responder out of order (a full-speed
# WRITE on a clean wire drew PSN sequence NAKs and go-back-N in a trial):
# reordering nobody asked for.
NCPU=$(nproc)
WL=(taskset -c 0)
# The recorder also runs at nice -10 and writes into guest RAM (copied to
# $LAB_OUT at the end): writing through the 9p share stalled it for
# seconds under load in trials (missing ticks, frames lost in its ring).
REC_PIN=(nice -n -10 taskset -c $((NCPU > 1 ? 1 : 0)))

amtu() { ibv_devinfo -d "$1" | awk '/active_mtu/{print $2}'; }
{
    uname -r
    dpkg-query -W -f='${Package} ${Version}\n' rdma-core perftest python3-pyverbs iproute2 2>/dev/null
    ./rdmatop --version
    rdma link show
    echo "$NA mtu $(cat /sys/class/net/$NA/mtu) ($A active_mtu $(amtu "$A")), $NB mtu $(cat /sys/class/net/$NB/mtu) ($B active_mtu $(amtu "$B"))"
    echo "net.core.netdev_max_backlog $(sysctl -n net.core.netdev_max_backlog)"
    echo "vCPUs $(nproc); workloads: ${WL[*]}; recorder: ${REC_PIN[*]}"
} > "$LAB_OUT/environment.txt" 2>&1

# ---------------------------------------------------------------- helpers
now() { date +%s.%N; }
act() { echo "$(now) $*" >> "$TL"; }         # one action on the timeline
sect() { printf '\n## %s\n' "$*" >> "$T"; }   # a section of the truth file (after the timeline)
hwc() {
    local d f
    for d in "$A" "$B"; do
        for f in /sys/class/infiniband/$d/ports/1/hw_counters/*; do
            printf '%s\t%s\t%s\n' "$d" "${f##*/}" "$(cat "$f")"
        done
    done
}

# begin NAME [IFACE]: start the truth file and the recorder, then 2 s of
# recording before anything happens.
begin() {
    N=$1; REC_IF=${2:-$NA}
    T=$tmp/body TL=$tmp/timeline
    : > "$T"; : > "$TL"
    hwc > "$tmp/hwc.before"
    cat /proc/net/softnet_stat > "$tmp/softnet.before"
    ip -s link show "$NA" > "$tmp/link.before" 2>&1; ip -s link show "$NB" >> "$tmp/link.before" 2>&1
    "${REC_PIN[@]}" ./rdmatop record -o "$tmp/$N.pcapng.gz" -i "$REC_IF" --snaplen 128 --interval 1s --duration 120s \
        2> "$tmp/record.err" &
    REC=$!
    act "record-start ${REC_PIN[*]} rdmatop record -i $REC_IF --snaplen 128 --interval 1s (pid $REC)"
    act "config $NA mtu $(cat /sys/class/net/$NA/mtu) ($A active_mtu $(amtu "$A")), $NB mtu $(cat /sys/class/net/$NB/mtu) ($B active_mtu $(amtu "$B")), net.core.netdev_max_backlog $(sysctl -n net.core.netdev_max_backlog)"
    sleep 2
}

# end [POST]: POST s more of recording (3), stop the recorder, write the
# counters into the truth file.
end() {
    sleep "${1:-3}"
    act "record-stop"
    kill -INT "$REC" 2> /dev/null; wait "$REC"; local rc=$?
    cp "$tmp/$N.pcapng.gz" "$LAB_OUT/" && rm -f "$tmp/$N.pcapng.gz"
    hwc > "$tmp/hwc.after"
    sect "hw_counters (device, counter, before, after, delta)"
    join -t $'\t' <(awk -F'\t' '{print $1":"$2"\t"$3}' "$tmp/hwc.before" | sort) \
                  <(awk -F'\t' '{print $1":"$2"\t"$3}' "$tmp/hwc.after" | sort) |
        awk -F'\t' '{split($1,k,":"); printf "%s\t%s\t%s\t%s\t%+d\n", k[1], k[2], $2, $3, $3-$2}' >> "$T"
    sect "/proc/net/softnet_stat (before, after; column 2: packets dropped at a full backlog)"
    { cat "$tmp/softnet.before"; echo "--- after"; cat /proc/net/softnet_stat; } >> "$T"
    sect "ip -s link (before, after)"
    { cat "$tmp/link.before"; echo "--- after"; ip -s link show "$NA"; ip -s link show "$NB"; } >> "$T" 2>&1
    sect "recorder"
    { cat "$tmp/record.err"; echo "record exit $rc"; } >> "$T"
    { echo "# incident $N (rxe-lab guest, $(uname -r)); times are guest unix seconds"
      printf '\n## timeline\n'; cat "$TL"; cat "$T"; } > "$LAB_OUT/$N.truth.txt"
    echo "$(now) $N done (record exit $rc)"
}

# netem_roce DEV ARGS...: netem on DEV's egress for RoCE packets only
# (UDP 4791, via a prio qdisc and a u32 filter; the perftest TCP control
# connection is not touched). netem's own queue limit is raised to 100000
# packets so that delaying, reordering or duplicating drops nothing.
netem_roce() {
    local dev=$1; shift
    tc qdisc add dev "$dev" root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
    tc qdisc add dev "$dev" parent 1:1 handle 10: netem limit 100000 "$@"
    tc filter add dev "$dev" parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
        match ip dport 4791 0xffff flowid 1:1
    act "inject netem on $dev egress, RoCE only: limit 100000 $*"
}
# netem_clear DEV: RoCE stops going through netem (the filter goes; the
# priomap sends everything to the plain band), netem drains (1 s, or more
# for long delays), then its counters are filed and it is removed.
netem_clear() {
    local dev=$1
    tc filter del dev "$dev" parent 1: prio 1
    act "clear netem on $dev (filter removed; netem drains ${2:-1} s, then is deleted)"
    sleep "${2:-1}"
    sect "tc -s qdisc show dev $dev (at removal)"
    tc -s qdisc show dev "$dev" >> "$T"
    tc qdisc del dev "$dev" root
}
# window DEV PRE DUR DRAIN NETEM ARGS...: PRE s after the traffic flows,
# netem on DEV for DUR s; DRAIN s to drain before it is deleted.
window() {
    local dev=$1 pre=$2 dur=$3 drain=$4; shift 4
    flowing; sleep "$pre"; netem_roce "$dev" "$@"; sleep "$dur"; netem_clear "$dev" "$drain"
}

# perf_bg TOOL SERVER_DEV CLIENT_DEV SERVER_IP "COMMON ARGS" "CLIENT ARGS":
# a perftest pair (server first), the client in the background; perf_wait
# waits for both and files their output.
perf_bg() {
    PT=$1 PSD=$2 PCD=$3 PIP=$4 PCOM=$5 PCLI=$6
    PORT=$((PORT + 1))
    PSENT0=$(sent "$PCD")
    # shellcheck disable=SC2086
    "${WL[@]}" $PT -d "$PSD" -x "$GX" -p "$PORT" $PCOM > "$tmp/srv.txt" 2>&1 &
    PSRV=$!
    sleep 1.5
    act "traffic-start $PT server on $PSD, client on $PCD: $PCOM $PCLI -p $PORT (both ${WL[*]})"
    # shellcheck disable=SC2086
    timeout "${PERF_TIMEOUT:-60}" "${WL[@]}" $PT -d "$PCD" -x "$GX" -p "$PORT" $PCOM $PCLI "$PIP" > "$tmp/cli.txt" 2>&1 &
    PCLIENT=$!
}
perf_wait() {
    wait "$PCLIENT"; local rc=$?
    act "traffic-end client exit $rc"
    ( sleep 10; kill "$PSRV" 2> /dev/null ) & local k=$!
    wait "$PSRV"; local rs=$?
    kill "$k" 2> /dev/null; wait "$k" 2> /dev/null
    sect "$PT client ($PCD) exit $rc"; cat "$tmp/cli.txt" >> "$T"
    sect "$PT server ($PSD) exit $rs"; cat "$tmp/srv.txt" >> "$T"
}
fwd() { perf_bg "$1" "$B" "$A" "$IPB" "$2" "${3:-}"; }   # client (requester) rxe0, server rxe1
rev() { perf_bg "$1" "$A" "$B" "$IPA" "$2" "${3:-}"; }   # client (requester) rxe1, server rxe0
rate() { echo "--rate_limit=$1 --rate_units=M --rate_limit_type=SW"; }
sent() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts"; }
# flowing: wait (up to 30 s) until the perftest client's device has sent
# 20 packets since the client started: its connection setup takes 1 to 5 s
# under TCG, so a fixed sleep can miss the traffic (a trial put a whole
# fault window before the first packet).
flowing() {
    local i
    for i in $(seq 300); do
        [ $(($(sent "$PCD") - PSENT0)) -ge 20 ] && break
        sleep 0.1
    done
    act "traffic-flowing $PCD sent_pkts +$(($(sent "$PCD") - PSENT0)) since the client started"
}

# fault ARGS...: shared/lab/faults/rxe-faults.py, A = rxe0 requester.
fault() {
    act "fault-start ${WL[*]} python3 rxe-faults.py $*"
    "${WL[@]}" python3 ./rxe-faults.py "$@" > "$tmp/tool.out" 2>&1; local rc=$?
    act "fault-end exit $rc"
    sect "rxe-faults.py $* (exit $rc)"; cat "$tmp/tool.out" >> "$T"
}

# flap DEV PRE DOWN: PRE s after the traffic flows, DEV down for DOWN s.
flap() {
    flowing; sleep "$2"
    ip link set "$1" down; act "inject ip link set $1 down"
    sleep "$3"
    ip link set "$1" up; act "clear ip link set $1 up"
}

# ingress_on DEV N / ingress_off DEV: drop 1 RoCE packet in N on DEV's
# ingress (after a capture on the peer); off files the filter's counters.
ingress_on() {
    tc qdisc add dev "$1" ingress
    tc filter add dev "$1" parent ffff: protocol ip prio 1 u32 match ip protocol 17 0xff \
        match ip dport 4791 0xffff action gact pass random netrand drop "$2"
    act "inject tc ingress on $1: u32 UDP 4791, gact pass random netrand drop $2 (1 in $2 dropped)"
}
ingress_off() {
    sect "tc -s filter show dev $1 ingress (at removal)"; tc -s filter show dev "$1" ingress >> "$T"
    tc qdisc del dev "$1" ingress; act "clear ingress filter on $1"
}

# pingpong_mtu NAME NETDEV_A_MTU PMTU SIZE: rxe0's netdev at a larger MTU
# than veth1's, ibv_rc_pingpong -m PMTU from rxe0 (the server on rxe1 keeps
# its own), client stopped after 2 s.
pingpong_mtu() {
    local n=$1 m=$2 pm=$3 sz=$4 old rc
    old=$(cat /sys/class/net/$NA/mtu)
    ip link set "$NA" mtu "$m"; sleep 1
    begin "$n"
    PORT=$((PORT + 1))
    "${WL[@]}" ibv_rc_pingpong -d "$B" -g "$GX" -p "$PORT" -s "$sz" -n 20 > "$tmp/srv.txt" 2>&1 &
    local srv=$!
    sleep 1
    act "traffic-start ${WL[*]} ibv_rc_pingpong -d $A -g $GX -s $sz -n 20 -m $pm $IPB (server on $B: -s $sz -n 20, its default path MTU)"
    timeout 2 "${WL[@]}" ibv_rc_pingpong -d "$A" -g "$GX" -p "$PORT" -s "$sz" -n 20 -m "$pm" "$IPB" > "$tmp/cli.txt" 2>&1
    rc=$?
    act "traffic-end client exit $rc (124: killed by timeout 2)"
    kill "$srv" 2> /dev/null; wait "$srv" 2> /dev/null
    sect "ibv_rc_pingpong client ($A, -m $pm) exit $rc"; cat "$tmp/cli.txt" >> "$T"
    sect "ibv_rc_pingpong server ($B, killed)"; cat "$tmp/srv.txt" >> "$T"
    end
    ip link set "$NA" mtu "$old"; sleep 1
}

# ---------------------------------------------------------------- incidents
# Naming: -full = no perftest rate limit (a fixed message count, -n, and a
# fault, if any, in place for the whole transfer); -2m/-5m = perftest SW
# rate limit in MiB/s (healthy ones for -D seconds; with a fault, a fixed
# count, the fault injected 1-1.5 s after the traffic flows and removed
# 1.5-4 s later, see window and flap); -rx = recorded on veth1 (rxe1's
# side); -mtu4k = run in a VM started with RXE_MTU=4500 (RoCE MTU 4096 on
# both ends). Sizes and counts are chosen for roughly 10,000-20,000 packets
# per recording (the whole set must stay near 10 MB).
inc() {
    case $1 in
    # ---- healthy: nothing done to the wire; a large QP timeout so that
    # the emulator's slowness cannot fire the retransmit timer. rxe arms
    # its timer at a send and does not push it on while the QP is idle: a
    # rate-limited run at -u 18 (1.07 s) had 2 spurious timer rounds in a
    # trial (the timer expired during a later burst), so rate-limited runs
    # take -u 22 (17 s, longer than the run); full-speed runs, which end
    # within 4 s, take -u 20 (4.3 s).
    healthy-write-64k-full)
        begin "$1"; fwd ib_write_bw "-s 65536 -F -n 200 -u 20"; perf_wait; end ;;
    healthy-read-o16-full)
        begin "$1"; fwd ib_read_bw "-s 16384 -o 16 -F -n 800 -u 20"; perf_wait; end ;;
    healthy-send-2k-5m-rx)
        begin "$1" "$NB"; fwd ib_send_bw "-s 2048 -F -D 2 -u 22" "$(rate 5)"; perf_wait; end ;;
    healthy-atomic-cas-full)
        # perftest's rate limiter refuses atomics anyway.
        begin "$1"; fwd ib_atomic_bw "-F -n 3000 -o 4 -u 20 -A CMP_AND_SWAP"; perf_wait; end ;;
    healthy-ud-512-rx)
        # four runs of 400 UD SENDs of 512 bytes, fewer than the 512
        # receives posted (UD has no flow control).
        begin "$1" "$NB"
        for _ in 1 2 3 4; do fwd ib_send_bw "-c UD -s 512 -F -n 400"; perf_wait; done
        end ;;
    healthy-multiqp-4-full)
        begin "$1"; fwd ib_write_bw "-q 4 -s 8192 -F -n 350 -u 20"; perf_wait; end ;;
    healthy-write-16k-2m)
        begin "$1"; fwd ib_write_bw "-s 16384 -F -D 6 -u 22" "$(rate 2)"; perf_wait; end ;;
    healthy-write-mtu4k-full)
        begin "$1"; fwd ib_write_bw "-s 65536 -F -n 800 -u 20"; perf_wait; end ;;
    healthy-send-4k-mtu4k-full)
        begin "$1"; fwd ib_send_bw "-s 4096 -F -n 4000 -u 20"; perf_wait; end ;;
    healthy-read-mtu4k-5m)
        begin "$1"; fwd ib_read_bw "-s 65536 -o 4 -F -D 4 -u 22" "$(rate 5)"; perf_wait; end ;;

    # ---- packet-loss (default QP timeout 14)
    loss-fwd-0.2pct-full)
        begin "$1"; netem_roce "$NA" loss 0.2%
        fwd ib_write_bw "-s 65536 -F -n 250"; perf_wait; netem_clear "$NA"; end ;;
    loss-fwd-1pct-2m)
        begin "$1"; fwd ib_write_bw "-s 8192 -F -n 1500" "$(rate 2)"
        window "$NA" 1.5 3 1 loss 1%; perf_wait; end ;;
    loss-fwd-5pct-full-rx)
        # recorded on veth1, after the loss point.
        begin "$1" "$NB"; netem_roce "$NA" loss 5%
        fwd ib_write_bw "-s 4096 -F -n 1000"; perf_wait; netem_clear "$NA"; end ;;
    loss-send-20pct-2m)
        begin "$1"; fwd ib_send_bw "-s 4096 -F -n 2500" "$(rate 2)"
        window "$NA" 1.5 2.5 1 loss 20%; perf_wait; end ;;
    loss-ack-5pct-full)
        # rxe0 writes; veth1's RoCE egress is rxe1's ACKs only.
        begin "$1"; netem_roce "$NB" loss 5%
        fwd ib_write_bw "-s 16384 -F -n 1000"; perf_wait; netem_clear "$NB"; end ;;
    loss-after-capture-1in100-full)
        # captured at the sender (veth0); the drops happen at veth1's
        # ingress, after the capture point, for the whole transfer.
        begin "$1"; ingress_on "$NB" 100
        fwd ib_write_bw "-s 4096 -F -n 2000"; perf_wait; ingress_off "$NB"; end ;;
    loss-read-resp-1pct-full)
        # rxe0 reads from rxe1; veth1's RoCE egress is READ responses only.
        begin "$1"; netem_roce "$NB" loss 1%
        fwd ib_read_bw "-s 32768 -o 4 -F -n 300"; perf_wait; netem_clear "$NB"; end ;;
    loss-rev-send-2pct-full-rx)
        # rxe1 SENDs to rxe0; netem on veth1, recorded on veth1 (the
        # sender; the capture point is after the qdisc).
        begin "$1" "$NB"; netem_roce "$NB" loss 2%
        rev ib_send_bw "-s 4096 -F -n 1500"; perf_wait; netem_clear "$NB"; end ;;
    loss-fwd-3pct-mtu4k-full)
        begin "$1"; netem_roce "$NA" loss 3%
        fwd ib_write_bw "-s 16384 -F -n 1200"; perf_wait; netem_clear "$NA"; end ;;

    # ---- packet-reordering (no loss). Default QP timeout 14: at full
    # speed with -u 19 a trial stalled (some go-back-N rounds end on the
    # timer, 2.1 s each) and the client hit its 60 s timeout.
    reorder-write-2ms-full)
        begin "$1"; netem_roce "$NA" delay 2ms reorder 10% 25%
        fwd ib_write_bw "-s 65536 -F -n 100"; perf_wait; netem_clear "$NA"; end ;;
    reorder-read-resp-4ms-2m)
        # READ responses (veth1 egress) reordered.
        begin "$1"; fwd ib_read_bw "-s 4096 -F -n 2500" "$(rate 2)"
        window "$NB" 1.5 2 1 delay 4ms reorder 20%; perf_wait; end ;;
    reorder-write-10ms-2m-rx)
        begin "$1" "$NB"; fwd ib_write_bw "-s 4096 -F -n 3000" "$(rate 2)"
        window "$NA" 1.5 3 1 delay 10ms reorder 50%; perf_wait; end ;;
    reorder-write-1ms-mtu4k-full)
        begin "$1"; netem_roce "$NA" delay 1ms reorder 3%
        fwd ib_write_bw "-s 65536 -F -n 150"; perf_wait; netem_clear "$NA"; end ;;

    # ---- packet-duplication (no loss); -u 22 as for healthy runs, so that
    # no timer round adds retransmissions of its own
    dup-write-2pct-full)
        begin "$1"; netem_roce "$NA" duplicate 2%
        fwd ib_write_bw "-s 65536 -F -n 200 -u 22"; perf_wait; netem_clear "$NA"; end ;;
    dup-send-10pct-5m-rx)
        begin "$1" "$NB"; fwd ib_send_bw "-s 8192 -F -n 1900 -u 22" "$(rate 5)"
        window "$NA" 1 1.5 1 duplicate 10%; perf_wait; end ;;
    dup-read-3pct-full)
        # READ requests duplicated (veth0 egress).
        begin "$1"; netem_roce "$NA" duplicate 3%
        fwd ib_read_bw "-s 8192 -o 4 -F -n 1500 -u 22"; perf_wait; netem_clear "$NA"; end ;;
    dup-write-1pct-mtu4k-full)
        begin "$1"; netem_roce "$NA" duplicate 1%
        fwd ib_write_bw "-s 32768 -F -n 1500 -u 22"; perf_wait; netem_clear "$NA"; end ;;

    # ---- late-acks: nothing lost, answers later than the ACK timeout
    late-acks-delay120-u14-5m)
        # ACKs (veth1 egress) delayed 120 ms; QP timeout 14 = 67 ms.
        begin "$1"; fwd ib_write_bw "-s 4096 -F -n 5000 -u 14" "$(rate 5)"
        window "$NB" 1 2.5 2 delay 120ms; perf_wait; end ;;
    late-acks-read-delay200-u15-2m)
        # READ responses (veth1 egress) delayed 200 ms; QP timeout 15 = 134 ms.
        begin "$1"; fwd ib_read_bw "-s 16384 -o 2 -F -n 750 -u 15" "$(rate 2)"
        window "$NB" 1.5 3 2 delay 200ms; perf_wait; end ;;
    late-acks-read-o16-u10-full-rx)
        # READ-heavy at full speed: 16 outstanding 64 KiB READs (1024
        # response packets) with QP timeout 10 (4.2 ms): the emulated
        # responder answers later than that. (Pinned to one vCPU, the
        # default timeout 14 did not fire in trials.)
        begin "$1" "$NB"; fwd ib_read_bw "-s 65536 -o 16 -F -n 240 -u 10"; perf_wait; end ;;
    late-acks-read-o16-unpinned-full)
        # The tuning job's healthy-read-spurious construction: 16
        # outstanding 64 KiB READs at full speed for 2 s, default QP
        # timeout 14 (67 ms), the perftest pair NOT pinned (free to run
        # on both vCPUs, like the tuning job). Backlog raised (job-wide).
        local wl=("${WL[@]}"); WL=()
        begin "$1"; fwd ib_read_bw "-s 65536 -o 16 -F -D 2"; perf_wait; end
        WL=("${wl[@]}") ;;
    late-acks-delay80-u13-mtu4k-full)
        # ACKs (veth1 egress) delayed 80 ms; QP timeout 13 = 33.6 ms.
        begin "$1"; netem_roce "$NB" delay 80ms
        fwd ib_write_bw "-s 16384 -F -n 1000 -u 13"; perf_wait; netem_clear "$NB" 2; end ;;

    # ---- ecn-marked-no-cnp: ECT(0) traffic (--tclass=2), netem marks CE
    # instead of dropping (loss P% ecn); rxe sends no CNP; -u 22
    ce-mark-3pct-full)
        begin "$1"; netem_roce "$NA" loss 3% ecn
        fwd ib_write_bw "-s 8192 -F -n 1600 -u 22 --tclass=2"; perf_wait; netem_clear "$NA"; end ;;
    ce-mark-30pct-5m-rx)
        begin "$1" "$NB"; fwd ib_send_bw "-s 4096 -F -n 3800 -u 22 --tclass=2" "$(rate 5)"
        window "$NA" 1 1.5 1 loss 30% ecn; perf_wait; end ;;

    # ---- link-flap (the peer's link, veth1)
    link-flap-1s-5m)
        begin "$1"; fwd ib_write_bw "-s 8192 -F -n 2500 -u 18" "$(rate 5)"
        flap "$NB" 1.5 1; perf_wait; end ;;
    link-flap-4s-read-2m)
        begin "$1"; fwd ib_read_bw "-s 16384 -o 4 -F -n 1000 -u 19" "$(rate 2)"
        flap "$NB" 1.5 4; perf_wait; end ;;

    # ---- fault programs (shared/lab/faults/rxe-faults.py)
    blackhole-seed7)
        begin "$1"
        fault --seed 7 --hold 3 --count 5 --size 2048 --retry-cnt 2 --timeout 15 retry --method blackhole
        end ;;
    blackhole-seed23-rx)
        begin "$1" "$NB"
        fault --seed 23 --hold 3 --count 2 --size 4096 --retry-cnt 5 --timeout 14 retry --method blackhole --good-count 4
        end ;;
    rnr-recover-seed5)
        begin "$1"
        fault --seed 5 --hold 3 --count 5 --size 1024 --rnr-retry 7 --min-rnr-timer 20 rnr --stall 2.5
        end ;;
    rnr-exceeded-seed9-rx)
        begin "$1" "$NB"
        fault --seed 9 --hold 3 --count 3 --size 512 --rnr-retry 5 --min-rnr-timer 28 rnr
        end ;;
    rnr-recover-8k-mtu4k)
        # path MTU 4096 (--mtu 5): 8 KiB SENDs of 2 packets.
        begin "$1"
        fault --seed 31 --hold 3 --mtu 5 --size 8192 --buf 16384 --count 2 --rnr-retry 7 --min-rnr-timer 16 rnr --stall 1.0
        end ;;
    access-read-rkey)
        begin "$1"
        fault --seed 3 --hold 3 --size 1024 access --cases read-rkey --rkey-xor 0x1000
        end ;;
    access-write-range-rx)
        begin "$1" "$NB"
        fault --seed 4 --hold 3 --size 2048 access --cases write-range --extra 2
        end ;;
    invreq-noaccess-2k)
        begin "$1"
        fault --seed 13 --hold 3 --size 2048 invreq --cause noaccess
        end ;;
    remop-1k-rx)
        begin "$1" "$NB"
        fault --seed 17 --hold 3 --size 1024 remop
        end ;;

    # ---- mtu-mismatch
    mtu-mismatch-2048-drop)
        # veth0 at MTU 2200 (rxe0 RoCE MTU 2048), veth1 at 1500 (1024):
        # rxe0's 2 KiB-payload frames exceed veth1's MTU.
        pingpong_mtu "$1" 2200 2048 2048 ;;
    mtu-mismatch-lower-read-mtu4k)
        # In the RXE_MTU=4500 VM: veth1 lowered to 1500 (rxe1 RoCE MTU
        # 1024) before recording; rxe0 (4096) reads from rxe1 at 2 MiB/s,
        # which works at path MTU 1024. Recorded on veth0, the larger-MTU
        # host.
        ip link set "$NB" mtu 1500; sleep 1
        begin "$1"
        fwd ib_read_bw "-s 8192 -o 4 -F -D 6 -u 22" "$(rate 2)"; perf_wait
        end
        ip link set "$NB" mtu 4500; sleep 1 ;;
    # ================================================================
    # Evaluation set v2 (testdata/evalset2/): written and recorded before
    # any rule or model change after commit 831b705 (the later commits up
    # to the recording binary's change the capture ring, the recorder and
    # the netlink codec, not the analysis: replay --json is byte-identical
    # on all of testdata); nobody tunes on it. Other seeds, intensities, delays,
    # sizes and verbs than v1 and the tuning set. Batches (one VM each):
    #   A: v2-healthy-* (default MTU), v2-loss-*
    #   B: v2-reorder-*, v2-dup-*, v2-late-acks-*, v2-ce-*
    #   C: v2-link-flap-*, the fault programs, v2-mtu-mismatch-2048-3000
    #   D (RXE_MTU=4500): the v2-*-mtu4k ones
    #   E: v2-reorder-send-3ms-full, v2-dup-send-3pct-full-rx, which
    #      replace two of B whose netem window passed (almost) no packet
    #   F: v2-invreq-noaccess-8k

    # ---- healthy
    v2-healthy-write-4k-full)
        begin "$1"; fwd ib_write_bw "-s 4096 -F -n 3000 -u 20"; perf_wait; end ;;
    v2-healthy-read-o4-32k-full)
        begin "$1"; fwd ib_read_bw "-s 32768 -o 4 -F -n 400 -u 20"; perf_wait; end ;;
    v2-healthy-send-1k-full-rx)
        begin "$1" "$NB"; fwd ib_send_bw "-s 1024 -F -n 5000 -u 20"; perf_wait; end ;;
    v2-healthy-atomic-faa-full-rx)
        begin "$1" "$NB"; fwd ib_atomic_bw "-F -n 3000 -o 8 -u 20 -A FETCH_AND_ADD"; perf_wait; end ;;
    v2-healthy-ud-1k-full)
        begin "$1"
        for _ in 1 2 3; do fwd ib_send_bw "-c UD -s 1024 -F -n 300"; perf_wait; done
        end ;;
    v2-healthy-multiqp-8-2m)
        begin "$1"; fwd ib_write_bw "-q 8 -s 4096 -F -D 4 -u 22" "$(rate 2)"; perf_wait; end ;;
    v2-healthy-read-o1-5m-rx)
        begin "$1" "$NB"; fwd ib_read_bw "-s 8192 -o 1 -F -D 4 -u 22" "$(rate 5)"; perf_wait; end ;;
    v2-healthy-write-256k-full)
        begin "$1"; fwd ib_write_bw "-s 262144 -F -n 40 -u 20"; perf_wait; end ;;
    v2-healthy-send-8k-mtu4k-full)
        begin "$1"; fwd ib_send_bw "-s 8192 -F -n 2000 -u 20"; perf_wait; end ;;
    v2-healthy-write-2k-mtu4k-2m)
        begin "$1"; fwd ib_write_bw "-s 2048 -F -D 5 -u 22" "$(rate 2)"; perf_wait; end ;;

    # ---- packet-loss (default QP timeout 14)
    v2-loss-fwd-0.5pct-full)
        begin "$1"; netem_roce "$NA" loss 0.5%
        fwd ib_write_bw "-s 32768 -F -n 400"; perf_wait; netem_clear "$NA"; end ;;
    v2-loss-fwd-2pct-5m-rx)
        begin "$1" "$NB"; fwd ib_write_bw "-s 4096 -F -n 4000" "$(rate 5)"
        window "$NA" 1 2.5 1 loss 2%; perf_wait; end ;;
    v2-loss-ack-2pct-full-rx)
        # ACKs lost on veth1's egress; recorded on veth1 (before the loss:
        # AF_PACKET sees an egress frame after the qdisc, so the lost ACKs
        # are not in the recording).
        begin "$1" "$NB"; netem_roce "$NB" loss 2%
        fwd ib_write_bw "-s 8192 -F -n 1500"; perf_wait; netem_clear "$NB"; end ;;
    v2-loss-read-resp-3pct-full-rx)
        begin "$1" "$NB"; netem_roce "$NB" loss 3%
        fwd ib_read_bw "-s 16384 -o 8 -F -n 300"; perf_wait; netem_clear "$NB"; end ;;
    v2-loss-send-1pct-full)
        begin "$1"; netem_roce "$NA" loss 1%
        fwd ib_send_bw "-s 4096 -F -n 3000"; perf_wait; netem_clear "$NA"; end ;;
    v2-loss-after-capture-1in50-2m)
        begin "$1"; fwd ib_write_bw "-s 4096 -F -n 3000" "$(rate 2)"
        flowing; ingress_on "$NB" 50; sleep 3; ingress_off "$NB"; perf_wait; end ;;
    v2-loss-burst-full)
        # correlated loss: netem loss 1% 25% (bursts).
        begin "$1"; netem_roce "$NA" loss 1% 25%
        fwd ib_write_bw "-s 16384 -F -n 800"; perf_wait; netem_clear "$NA"; end ;;
    v2-loss-fwd-1pct-mtu4k-full)
        begin "$1"; netem_roce "$NA" loss 1%
        fwd ib_write_bw "-s 32768 -F -n 600"; perf_wait; netem_clear "$NA"; end ;;

    # ---- packet-reordering (no loss)
    v2-reorder-write-5ms-full)
        begin "$1"; netem_roce "$NA" delay 5ms reorder 5% 50%
        fwd ib_write_bw "-s 65536 -F -n 120"; perf_wait; netem_clear "$NA"; end ;;
    v2-reorder-send-3ms-2m)
        begin "$1"; fwd ib_send_bw "-s 4096 -F -n 2500" "$(rate 2)"
        window "$NA" 1.5 2.5 1 delay 3ms reorder 25%; perf_wait; end ;;
    v2-reorder-write-1ms-full-rx)
        begin "$1" "$NB"; netem_roce "$NA" delay 1ms reorder 20%
        fwd ib_write_bw "-s 16384 -F -n 500"; perf_wait; netem_clear "$NA"; end ;;
    v2-reorder-send-3ms-full)
        # Replaces v2-reorder-send-3ms-2m, whose window passed no packet
        # (as v1's loss-send-20pct-2m: ib_send_bw with the SW rate limit
        # and a late window): netem for the whole transfer.
        begin "$1"; netem_roce "$NA" delay 3ms reorder 25%
        fwd ib_send_bw "-s 4096 -F -n 1500"; perf_wait; netem_clear "$NA"; end ;;
    v2-reorder-write-2ms-mtu4k-full)
        begin "$1"; netem_roce "$NA" delay 2ms reorder 8%
        fwd ib_write_bw "-s 65536 -F -n 150"; perf_wait; netem_clear "$NA"; end ;;

    # ---- packet-duplication (no loss); -u 22
    v2-dup-write-5pct-full)
        begin "$1"; netem_roce "$NA" duplicate 5%
        fwd ib_write_bw "-s 16384 -F -n 600 -u 22"; perf_wait; netem_clear "$NA"; end ;;
    v2-dup-send-3pct-2m-rx)
        begin "$1" "$NB"; fwd ib_send_bw "-s 4096 -F -n 2500 -u 22" "$(rate 2)"
        window "$NA" 1 2.5 1 duplicate 3%; perf_wait; end ;;
    v2-dup-send-3pct-full-rx)
        # Replaces v2-dup-send-3pct-2m-rx (its window passed 4 packets).
        begin "$1" "$NB"; netem_roce "$NA" duplicate 3%
        fwd ib_send_bw "-s 4096 -F -n 2500 -u 22"; perf_wait; netem_clear "$NA"; end ;;
    v2-dup-ack-5pct-full)
        # ACKs (veth1 egress) duplicated.
        begin "$1"; netem_roce "$NB" duplicate 5%
        fwd ib_write_bw "-s 8192 -F -n 1500 -u 22"; perf_wait; netem_clear "$NB"; end ;;
    v2-dup-read-resp-2pct-full)
        # READ responses (veth1 egress) duplicated.
        begin "$1"; netem_roce "$NB" duplicate 2%
        fwd ib_read_bw "-s 16384 -o 4 -F -n 400 -u 22"; perf_wait; netem_clear "$NB"; end ;;

    # ---- late-acks: nothing lost, answers later than the ACK timeout
    v2-late-acks-delay100-u13-full)
        # ACKs (veth1 egress) delayed 100 ms; QP timeout 13 = 33.6 ms.
        begin "$1"; netem_roce "$NB" delay 100ms
        fwd ib_write_bw "-s 8192 -F -n 800 -u 13"; perf_wait; netem_clear "$NB" 2; end ;;
    v2-late-acks-delay150-u14-2m-rx)
        # ACKs delayed 150 ms for 2.5 s; QP timeout 14 = 67 ms.
        begin "$1" "$NB"; fwd ib_write_bw "-s 4096 -F -n 3000 -u 14" "$(rate 2)"
        window "$NB" 1 2.5 2 delay 150ms; perf_wait; end ;;
    v2-late-acks-read-delay90-u13-full)
        # READ responses delayed 90 ms; QP timeout 13 = 33.6 ms.
        begin "$1"; netem_roce "$NB" delay 90ms
        fwd ib_read_bw "-s 8192 -o 2 -F -n 300 -u 13"; perf_wait; netem_clear "$NB" 2; end ;;
    v2-late-acks-send-delay60-u12-full)
        # ACKs delayed 60 ms; QP timeout 12 = 16.8 ms.
        begin "$1"; netem_roce "$NB" delay 60ms
        fwd ib_send_bw "-s 4096 -F -n 1500 -u 12"; perf_wait; netem_clear "$NB" 2; end ;;

    # ---- ecn-marked-no-cnp; -u 22
    v2-ce-mark-10pct-full-rx)
        begin "$1" "$NB"; netem_roce "$NA" loss 10% ecn
        fwd ib_write_bw "-s 8192 -F -n 1500 -u 22 --tclass=2"; perf_wait; netem_clear "$NA"; end ;;
    v2-ce-mark-1pct-2m)
        begin "$1"; fwd ib_send_bw "-s 4096 -F -n 2500 -u 22 --tclass=2" "$(rate 2)"
        window "$NA" 1 2.5 1 loss 1% ecn; perf_wait; end ;;

    # ---- link-flap
    v2-link-flap-2s-send-5m)
        begin "$1"; fwd ib_send_bw "-s 4096 -F -n 4000 -u 18" "$(rate 5)"
        flap "$NB" 1.5 2; perf_wait; end ;;
    v2-link-flap-own-1s-2m-rx)
        # the requester's own link (veth0) flaps; recorded on veth1.
        begin "$1" "$NB"; fwd ib_write_bw "-s 8192 -F -n 1500 -u 18" "$(rate 2)"
        flap "$NA" 1.5 1; perf_wait; end ;;

    # ---- fault programs
    v2-blackhole-seed41)
        begin "$1"
        fault --seed 41 --hold 3 --count 3 --size 1024 --retry-cnt 3 --timeout 14 retry --method blackhole --good-count 3
        end ;;
    v2-blackhole-seed57-rx)
        begin "$1" "$NB"
        fault --seed 57 --hold 3 --count 4 --size 8192 --retry-cnt 4 --timeout 15 retry --method blackhole
        end ;;
    v2-rnr-recover-seed12)
        begin "$1"
        fault --seed 12 --hold 3 --count 4 --size 2048 --rnr-retry 7 --min-rnr-timer 24 rnr --stall 1.5
        end ;;
    v2-rnr-exceeded-seed19-rx)
        begin "$1" "$NB"
        fault --seed 19 --hold 3 --count 2 --size 4096 --rnr-retry 3 --min-rnr-timer 20 rnr
        end ;;
    v2-access-write-rkey-seed8)
        begin "$1"
        fault --seed 8 --hold 3 --size 4096 access --cases write-rkey --rkey-xor 0x40
        end ;;
    v2-access-read-range-seed6-rx)
        begin "$1" "$NB"
        fault --seed 6 --hold 3 --size 512 access --cases read-range --extra 3
        end ;;
    v2-invreq-length-4k)
        # A SEND longer than the receive: rxe-faults.py documents that Linux
        # 6.1's rxe answers it with NAK "remote operational error" (WC
        # status 11, as this run's output shows), so it is labelled so.
        begin "$1"
        fault --seed 21 --hold 3 --size 4096 invreq --cause length
        end ;;
    v2-invreq-noaccess-8k)
        # NAK "invalid request": a WRITE to a QP without remote write
        # access (v2-invreq-length-4k turned out a remote operational error).
        begin "$1"
        fault --seed 33 --hold 3 --size 8192 --buf 16384 invreq --cause noaccess
        end ;;
    v2-remop-2k)
        begin "$1"
        fault --seed 29 --hold 3 --size 2048 remop
        end ;;

    # ---- mtu-mismatch
    v2-mtu-mismatch-2048-3000)
        # veth0 at MTU 2200 (RoCE 2048), veth1 at 1500: 3000-byte
        # messages at path MTU 2048 from rxe0.
        pingpong_mtu "$1" 2200 2048 3000 ;;
    v2-mtu-mismatch-lower-send-mtu4k)
        # In the RXE_MTU=4500 VM: veth1 lowered to 1500 (RoCE 1024); rxe0
        # (4096) SENDs 16 KiB messages at 5 MiB/s. Recorded on veth0.
        ip link set "$NB" mtu 1500; sleep 1
        begin "$1"
        fwd ib_send_bw "-s 16384 -F -D 4 -u 22" "$(rate 5)"; perf_wait
        end
        ip link set "$NB" mtu 4500; sleep 1 ;;
    # ================================================================
    # Evaluation set v3 (testdata/evalset3/): written and recorded at
    # commit d9d4fb7, after v2's misses were looked at; nobody tunes on it.
    # Other seeds, intensities, delays, sizes and verbs than v1, v2 and the
    # tuning set. Batches (one VM each):
    #   A: v3-healthy-*, v3-loss-* (default MTU)
    #   B: v3-reorder-*, v3-dup-*, v3-late-acks-* (default MTU)
    #   C: v3-ce-*, v3-link-flap-*, the fault programs, v3-mtu-mismatch-*
    #   D (RXE_MTU=4500): the v3-*-mtu4k ones
    #   E: three replacements (below, before the mtu-mismatch ones)

    # ---- healthy
    v3-healthy-write-32k-full)
        begin "$1"; fwd ib_write_bw "-s 32768 -F -n 500 -u 20"; perf_wait; end ;;
    v3-healthy-read-o8-16k-full-rx)
        begin "$1" "$NB"; fwd ib_read_bw "-s 16384 -o 8 -F -n 800 -u 20"; perf_wait; end ;;
    v3-healthy-send-2k-full)
        begin "$1"; fwd ib_send_bw "-s 2048 -F -n 4000 -u 20"; perf_wait; end ;;
    v3-healthy-atomic-cas-o2-rx)
        begin "$1" "$NB"; fwd ib_atomic_bw "-F -n 2000 -o 2 -u 20 -A CMP_AND_SWAP"; perf_wait; end ;;
    v3-healthy-multiqp-2-5m)
        begin "$1"; fwd ib_write_bw "-q 2 -s 16384 -F -D 4 -u 22" "$(rate 5)"; perf_wait; end ;;
    v3-healthy-ud-256-full-rx)
        begin "$1" "$NB"
        for _ in 1 2 3; do fwd ib_send_bw "-c UD -s 256 -F -n 400"; perf_wait; done
        end ;;
    v3-healthy-write-128k-mtu4k-full)
        begin "$1"; fwd ib_write_bw "-s 131072 -F -n 150 -u 20"; perf_wait; end ;;
    v3-healthy-read-mtu4k-2m)
        begin "$1"; fwd ib_read_bw "-s 32768 -o 2 -F -D 4 -u 22" "$(rate 2)"; perf_wait; end ;;

    # ---- packet-loss (default QP timeout 14)
    v3-loss-fwd-1.5pct-full)
        begin "$1"; netem_roce "$NA" loss 1.5%
        fwd ib_write_bw "-s 16384 -F -n 600"; perf_wait; netem_clear "$NA"; end ;;
    v3-loss-fwd-0.3pct-full-rx)
        begin "$1" "$NB"; netem_roce "$NA" loss 0.3%
        fwd ib_write_bw "-s 65536 -F -n 200"; perf_wait; netem_clear "$NA"; end ;;
    v3-loss-send-3pct-5m)
        begin "$1"; fwd ib_send_bw "-s 2048 -F -n 5000" "$(rate 5)"
        window "$NA" 1 3 1 loss 3%; perf_wait; end ;;
    v3-loss-read-resp-1pct-full)
        # READ responses (veth1 egress) lost; recorded at the requester.
        begin "$1"; netem_roce "$NB" loss 1%
        fwd ib_read_bw "-s 32768 -o 4 -F -n 400"; perf_wait; netem_clear "$NB"; end ;;
    v3-loss-ack-3pct-full)
        # ACKs (veth1 egress) lost; recorded at the requester.
        begin "$1"; netem_roce "$NB" loss 3%
        fwd ib_write_bw "-s 4096 -F -n 2500"; perf_wait; netem_clear "$NB"; end ;;
    v3-loss-after-capture-1in30-full)
        # captured at the sender; 1 in 30 dropped at veth1's ingress.
        begin "$1"; ingress_on "$NB" 30
        fwd ib_write_bw "-s 8192 -F -n 1000"; perf_wait; ingress_off "$NB"; end ;;
    v3-loss-burst-2pct-full-rx)
        # correlated loss: netem loss 2% 50%; recorded after the loss.
        begin "$1" "$NB"; netem_roce "$NA" loss 2% 50%
        fwd ib_write_bw "-s 8192 -F -n 1000"; perf_wait; netem_clear "$NA"; end ;;
    v3-loss-fwd-0.5pct-mtu4k-full)
        begin "$1"; netem_roce "$NA" loss 0.5%
        fwd ib_write_bw "-s 65536 -F -n 300"; perf_wait; netem_clear "$NA"; end ;;

    # ---- packet-reordering (no loss)
    v3-reorder-write-3ms-full)
        begin "$1"; netem_roce "$NA" delay 3ms reorder 15%
        fwd ib_write_bw "-s 32768 -F -n 200"; perf_wait; netem_clear "$NA"; end ;;
    v3-reorder-write-2ms-full-rx)
        begin "$1" "$NB"; netem_roce "$NA" delay 2ms reorder 30%
        fwd ib_write_bw "-s 8192 -F -n 800"; perf_wait; netem_clear "$NA"; end ;;
    v3-reorder-send-1ms-full-rx)
        begin "$1" "$NB"; netem_roce "$NA" delay 1ms reorder 10%
        fwd ib_send_bw "-s 4096 -F -n 2000"; perf_wait; netem_clear "$NA"; end ;;
    v3-reorder-read-resp-2ms-full)
        # READ responses (veth1 egress) reordered; recorded at the requester.
        begin "$1"; netem_roce "$NB" delay 2ms reorder 10%
        fwd ib_read_bw "-s 16384 -o 4 -F -n 300"; perf_wait; netem_clear "$NB"; end ;;
    v3-reorder-write-4ms-5m)
        begin "$1"; fwd ib_write_bw "-s 4096 -F -n 5000" "$(rate 5)"
        window "$NA" 1 3 1 delay 4ms reorder 20%; perf_wait; end ;;
    v3-reorder-write-1ms-mtu4k-full)
        begin "$1"; netem_roce "$NA" delay 1ms reorder 15%
        fwd ib_write_bw "-s 65536 -F -n 200"; perf_wait; netem_clear "$NA"; end ;;

    # ---- packet-duplication (no loss); -u 22
    v3-dup-write-3pct-full-rx)
        begin "$1" "$NB"; netem_roce "$NA" duplicate 3%
        fwd ib_write_bw "-s 8192 -F -n 1000 -u 22"; perf_wait; netem_clear "$NA"; end ;;
    v3-dup-send-5pct-full)
        begin "$1"; netem_roce "$NA" duplicate 5%
        fwd ib_send_bw "-s 2048 -F -n 3000 -u 22"; perf_wait; netem_clear "$NA"; end ;;
    v3-dup-read-req-5pct-full-rx)
        # READ requests (veth0 egress) duplicated; recorded at the responder.
        begin "$1" "$NB"; netem_roce "$NA" duplicate 5%
        fwd ib_read_bw "-s 4096 -o 8 -F -n 1500 -u 22"; perf_wait; netem_clear "$NA"; end ;;
    v3-dup-ack-3pct-full-rx)
        # ACKs (veth1 egress) duplicated; recorded on veth1.
        begin "$1" "$NB"; netem_roce "$NB" duplicate 3%
        fwd ib_write_bw "-s 4096 -F -n 2500 -u 22"; perf_wait; netem_clear "$NB"; end ;;

    # ---- late-acks: nothing lost, answers later than the ACK timeout
    v3-late-acks-delay50-u11-full)
        # ACKs (veth1 egress) delayed 50 ms; QP timeout 11 = 8.4 ms.
        begin "$1"; netem_roce "$NB" delay 50ms
        fwd ib_write_bw "-s 4096 -F -n 1000 -u 11"; perf_wait; netem_clear "$NB" 2; end ;;
    v3-late-acks-delay200-u15-full-rx)
        # ACKs delayed 200 ms; QP timeout 15 = 134 ms; recorded on veth1.
        begin "$1" "$NB"; netem_roce "$NB" delay 200ms
        fwd ib_write_bw "-s 16384 -F -n 500 -u 15"; perf_wait; netem_clear "$NB" 2; end ;;
    v3-late-acks-read-delay120-u14-5m)
        # READ responses delayed 120 ms for 3 s; QP timeout 14 = 67 ms.
        begin "$1"; fwd ib_read_bw "-s 8192 -o 2 -F -n 1500 -u 14" "$(rate 5)"
        window "$NB" 1 3 2 delay 120ms; perf_wait; end ;;
    v3-late-acks-send-delay80-u13-full-rx)
        # ACKs delayed 80 ms; QP timeout 13 = 33.6 ms; recorded on veth1.
        begin "$1" "$NB"; netem_roce "$NB" delay 80ms
        fwd ib_send_bw "-s 8192 -F -n 800 -u 13"; perf_wait; netem_clear "$NB" 2; end ;;
    v3-late-acks-read-o8-u9-full)
        # READ-heavy at full speed: 8 outstanding 32 KiB READs with QP
        # timeout 9 (2.1 ms): the emulated responder answers later than
        # that, and the requester re-issues READs it is being answered.
        begin "$1"; fwd ib_read_bw "-s 32768 -o 8 -F -n 300 -u 9"; perf_wait; end ;;

    # ---- ecn-marked-no-cnp; -u 22
    v3-ce-mark-5pct-full)
        begin "$1"; netem_roce "$NA" loss 5% ecn
        fwd ib_write_bw "-s 16384 -F -n 800 -u 22 --tclass=2"; perf_wait; netem_clear "$NA"; end ;;
    v3-ce-mark-20pct-2m-rx)
        begin "$1" "$NB"; fwd ib_send_bw "-s 2048 -F -n 4000 -u 22 --tclass=2" "$(rate 2)"
        window "$NA" 1 2.5 1 loss 20% ecn; perf_wait; end ;;

    # ---- link-flap
    v3-link-flap-3s-write-2m)
        begin "$1"; fwd ib_write_bw "-s 4096 -F -n 3000 -u 18" "$(rate 2)"
        flap "$NB" 1.5 3; perf_wait; end ;;
    v3-link-flap-own-2s-read-5m-rx)
        # the requester's own link (veth0) flaps; recorded on veth1.
        begin "$1" "$NB"; fwd ib_read_bw "-s 8192 -o 2 -F -n 2500 -u 18" "$(rate 5)"
        flap "$NA" 1.5 2; perf_wait; end ;;

    # ---- fault programs
    v3-blackhole-seed63)
        begin "$1"
        fault --seed 63 --hold 3 --count 2 --size 4096 --retry-cnt 2 --timeout 16 retry --method blackhole
        end ;;
    v3-blackhole-seed71-rx)
        begin "$1" "$NB"
        fault --seed 71 --hold 3 --count 3 --size 2048 --retry-cnt 6 --timeout 14 retry --method blackhole --good-count 2
        end ;;
    v3-rnr-recover-seed44-rx)
        begin "$1" "$NB"
        fault --seed 44 --hold 3 --count 3 --size 4096 --rnr-retry 7 --min-rnr-timer 18 rnr --stall 2.0
        end ;;
    v3-rnr-exceeded-seed52)
        begin "$1"
        fault --seed 52 --hold 3 --count 4 --size 1024 --rnr-retry 2 --min-rnr-timer 26 rnr
        end ;;
    v3-access-write-range-seed15)
        begin "$1"
        fault --seed 15 --hold 3 --size 1024 access --cases write-range --extra 5
        end ;;
    v3-access-read-rkey-seed27-rx)
        begin "$1" "$NB"
        fault --seed 27 --hold 3 --size 2048 access --cases read-rkey --rkey-xor 0x200
        end ;;
    v3-invreq-noaccess-1k-rx)
        begin "$1" "$NB"
        fault --seed 37 --hold 3 --size 1024 invreq --cause noaccess
        end ;;
    v3-remop-512-rx)
        begin "$1" "$NB"
        fault --seed 39 --hold 3 --size 512 remop
        end ;;

    # ---- E: replacements for three of A-C whose fault did not act,
    # found in their truth files before any scoring (see
    # testdata/evalset3/MANIFEST.md)
    v3-loss-gemodel-full-rx)
        # Replaces v3-loss-burst-2pct-full-rx, whose netem "loss 2% 50%"
        # dropped nothing: bursts from netem's Gilbert-Elliott model.
        begin "$1" "$NB"; netem_roce "$NA" loss gemodel 1% 30%
        fwd ib_write_bw "-s 8192 -F -n 1000"; perf_wait; netem_clear "$NA"; end ;;
    v3-ce-mark-20pct-full-rx)
        # Replaces v3-ce-mark-20pct-2m-rx, whose window passed no packet:
        # netem for the whole transfer.
        begin "$1" "$NB"; netem_roce "$NA" loss 20% ecn
        fwd ib_send_bw "-s 2048 -F -n 4000 -u 22 --tclass=2"; perf_wait; netem_clear "$NA"; end ;;
    v3-late-acks-read-delay60-u12-full)
        # Replaces v3-late-acks-read-o8-u9-full, whose requester never
        # timed out: READ responses (veth1 egress) delayed 60 ms, QP
        # timeout 12 = 16.8 ms.
        begin "$1"; netem_roce "$NB" delay 60ms
        fwd ib_read_bw "-s 16384 -o 2 -F -n 400 -u 12"; perf_wait; netem_clear "$NB" 2; end ;;

    # ---- mtu-mismatch
    v3-mtu-mismatch-2048-4000)
        # veth0 at MTU 2200 (RoCE 2048), veth1 at 1500: 4000-byte
        # messages at path MTU 2048 from rxe0.
        pingpong_mtu "$1" 2200 2048 4000 ;;
    v3-mtu-mismatch-3000-8k)
        # veth0 at MTU 3000 (RoCE 2048), veth1 at 1500: 8 KiB messages.
        pingpong_mtu "$1" 3000 2048 8192 ;;
    *) echo "unknown incident $1" >&2; return 2 ;;
    esac
}

for n in ${INCIDENTS:?INCIDENTS is required}; do
    echo "$(now) $n start"
    inc "$n"
done
rm -rf "$tmp"
