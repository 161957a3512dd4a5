#!/bin/bash
# rxe-lab job: the labelled incident corpus (testdata/incidents/). Each
# incident is one `rdmatop record` (host ticks and RoCE packets of veth0 on
# one timeline) around one thing done on purpose to a real Soft-RoCE stack:
# a workload, a netem/tc fault, a fault program of shared/lab/faults, a
# configuration error. The label is what was done, never what rdmatop says.
#
# Run from the repository root with test/lab/incidents/run.sh (it builds
# rdmatop and copies it, memlock-qp.py and shared/lab/faults/rxe-faults.py
# into the guest):
#
#   test/lab/incidents/run.sh OUTDIR [NAME...]      # default: every incident
#
# Results in $LAB_OUT, per incident NAME:
#   NAME.pcapng.gz  rdmatop record -o ... -i veth0 --snaplen 128 --interval 1s
#                   (mtu-mismatch-lower: -i veth1)
#   NAME.truth.txt  the ground truth: what was done and when (guest unix
#                   time), tc -s counters, the workload's or fault
#                   program's own output, hw_counters of both devices
#                   before/after with deltas, softnet_stat and ip -s link
#                   before/after, the recorder's exit line.
# plus environment.txt (kernel, packages, rdmatop version). The labels and
# what each incident is are in testdata/incidents/MANIFEST.md.
#
# One recorder at a time (under TCG several starve each other's probes);
# one incident after the other. Variables (rxe-lab run -e VAR=VALUE):
#   INCIDENTS   names to run, space separated (default: all, in order below)
#   RATE_MIBPS  perftest's software rate limit for bandwidth workloads [1]
set -u
cd "$LAB_IN"
A=${RXE_DEV_A:-rxe0} B=${RXE_DEV_B:-rxe1}
NA=${RXE_NETDEV_A:-veth0} NB=${RXE_NETDEV_B:-veth1}
IPA=${RXE_IP_A:-192.168.77.1} IPB=${RXE_IP_B:-192.168.77.2}
GX=${RXE_GID_INDEX:-1}
RATE=(--rate_limit="${RATE_MIBPS:-1}" --rate_units=M --rate_limit_type=SW)
PORT=18600
tmp=$(mktemp -d /tmp/incidents.XXXXXX)

ALL="healthy-write healthy-read healthy-send healthy-atomic healthy-ud healthy-multiqp healthy-read-spurious
loss-fwd-0.5pct loss-fwd-2pct loss-fwd-10pct loss-rev-0.5pct loss-rev-2pct loss-rev-10pct
ack-loss-10pct ack-loss-30pct loss-after-capture-2pct reorder duplicate ce-mark link-flap
blackhole retry-linkdown rnr-recover rnr-exceeded access-write-rkey access-read-range
invreq-noaccess invreq-length remop mtu-mismatch-drop mtu-mismatch-lower memlock-perftest memlock-qp"

{
    uname -r
    dpkg-query -W -f='${Package} ${Version}\n' rdma-core perftest python3-pyverbs iproute2 2>/dev/null
    ./rdmatop --version
    rdma link show
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
    ./rdmatop record -o "$LAB_OUT/$N.pcapng.gz" -i "$REC_IF" --snaplen 128 --interval 1s --duration 120s \
        2> "$tmp/record.err" &
    REC=$!
    act "record-start rdmatop record -i $REC_IF --snaplen 128 --interval 1s (pid $REC)"
    sleep 2
}

# end [POST]: POST s more of recording (3), stop the recorder, write the
# counters into the truth file.
end() {
    sleep "${1:-3}"
    act "record-stop"
    kill -INT "$REC" 2> /dev/null; wait "$REC"; local rc=$?
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
# connection is not touched).
netem_roce() {
    local dev=$1; shift
    tc qdisc add dev "$dev" root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
    tc qdisc add dev "$dev" parent 1:1 handle 10: netem "$@"
    tc filter add dev "$dev" parent 1: protocol ip prio 1 u32 match ip protocol 17 0xff \
        match ip dport 4791 0xffff flowid 1:1
    act "inject netem on $dev egress, RoCE only: $*"
}
# netem_clear DEV: RoCE stops going through netem (the filter goes; the
# priomap sends everything to the plain band), netem drains for 1 s, then
# its counters are filed and it is removed. (Deleting a netem that still
# holds packets would drop them: a loss nobody asked for.)
netem_clear() {
    local dev=$1
    tc filter del dev "$dev" parent 1: prio 1
    act "clear netem on $dev (filter removed; netem drains 1 s, then is deleted)"
    sleep 1
    sect "tc -s qdisc show dev $dev (at removal)"
    tc -s qdisc show dev "$dev" >> "$T"
    tc qdisc del dev "$dev" root
}

# perf_bg TOOL SERVER_DEV CLIENT_DEV SERVER_IP "COMMON ARGS" "CLIENT ARGS":
# a perftest pair (server first), the client in the background; perf_wait
# waits for both and files their output.
perf_bg() {
    PT=$1 PSD=$2 PCD=$3 PIP=$4 PCOM=$5 PCLI=$6
    PORT=$((PORT + 1))
    # shellcheck disable=SC2086
    $PT -d "$PSD" -x "$GX" -p "$PORT" $PCOM > "$tmp/srv.txt" 2>&1 &
    PSRV=$!
    sleep 1.5
    act "traffic-start $PT server on $PSD, client on $PCD: $PCOM $PCLI -p $PORT"
    # shellcheck disable=SC2086
    timeout "${PERF_TIMEOUT:-60}" $PT -d "$PCD" -x "$GX" -p "$PORT" $PCOM $PCLI "$PIP" > "$tmp/cli.txt" 2>&1 &
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

# fault ARGS...: shared/lab/faults/rxe-faults.py, A = rxe0 requester.
fault() {
    act "fault-start python3 rxe-faults.py $*"
    python3 ./rxe-faults.py "$@" > "$tmp/tool.out" 2>&1; local rc=$?
    act "fault-end exit $rc"
    sect "rxe-faults.py $* (exit $rc)"; cat "$tmp/tool.out" >> "$T"
}

# ---------------------------------------------------------------- incidents
W=(-s 4096 -F)   # 4 KiB messages: 4 packets each at RoCE MTU 1024

healthy_bw() {   # healthy_bw NAME TOOL "ARGS"
    begin "$1"
    perf_bg "$2" "$B" "$A" "$IPB" "$3" "${RATE[*]}"
    perf_wait
    end
}

loss() {   # loss NAME NETEM_DEV PCT DIRECTION(fwd: rxe0 writes to rxe1, rev: rxe1 writes to rxe0)
    local n=$1 dev=$2 pct=$3 dir=$4
    begin "$n"
    if [ "$dir" = fwd ]; then
        perf_bg ib_write_bw "$B" "$A" "$IPB" "${W[*]} -D 10" "${RATE[*]}"
    else
        perf_bg ib_write_bw "$A" "$B" "$IPA" "${W[*]} -D 10" "${RATE[*]}"
    fi
    sleep 3
    netem_roce "$dev" loss "$pct%"
    sleep 5
    netem_clear "$dev"
    perf_wait
    end
}

inc() {
    case $1 in
    healthy-write)  healthy_bw "$1" ib_write_bw "${W[*]} -D 8 -u 18" ;;
    healthy-read)   healthy_bw "$1" ib_read_bw "${W[*]} -D 8 -u 18" ;;
    healthy-send)   healthy_bw "$1" ib_send_bw "${W[*]} -D 8 -u 18" ;;
    healthy-atomic)
        # perftest's rate limiter refuses atomics: a fixed count instead.
        begin "$1"
        perf_bg ib_atomic_bw "$B" "$A" "$IPB" "-F -n 4000 -u 18 -A FETCH_AND_ADD" ""
        perf_wait; end ;;
    healthy-ud)
        # UD SENDs in five runs of 500 messages: fewer than the receiver's
        # 512 posted receives, so none can find its receive queue empty
        # (UD has no flow control; a full-speed run overruns it under TCG).
        begin "$1"
        for _ in 1 2 3 4 5; do
            perf_bg ib_send_bw "$B" "$A" "$IPB" "-c UD -s 1024 -F -n 500" ""
            perf_wait
        done
        end ;;
    healthy-multiqp) healthy_bw "$1" ib_write_bw "${W[*]} -q 8 -D 8 -u 18" ;;
    healthy-read-spurious)
        # READ-heavy at full speed with the default QP timeout 14 (67 ms):
        # 16 outstanding 64 KiB READs are more than the emulated responder
        # returns within the timer while the recorder captures, so rxe's
        # requester retransmits although nothing is lost. The backlog is
        # raised for this one: at its default (1000) the READ responses
        # overflow veth0's backlog (veth1 TX dropped, rxe1 send_err, and
        # RNR NAKs for the replies rxe1 failed to send) - real loss.
        sysctl -qw net.core.netdev_max_backlog=100000
        begin "$1"
        act "config sysctl net.core.netdev_max_backlog=100000 (default 1000)"
        perf_bg ib_read_bw "$B" "$A" "$IPB" "-s 65536 -o 16 -F -D 2" ""
        perf_wait; end
        sysctl -qw net.core.netdev_max_backlog=1000 ;;
    loss-fwd-0.5pct) loss "$1" "$NA" 0.5 fwd ;;
    loss-fwd-2pct)   loss "$1" "$NA" 2 fwd ;;
    loss-fwd-10pct)  loss "$1" "$NA" 10 fwd ;;
    loss-rev-0.5pct) loss "$1" "$NB" 0.5 rev ;;
    loss-rev-2pct)   loss "$1" "$NB" 2 rev ;;
    loss-rev-10pct)  loss "$1" "$NB" 10 rev ;;
    ack-loss-10pct)  loss "$1" "$NB" 10 fwd ;;   # rxe0 writes; veth1's RoCE egress is rxe1's ACKs only
    ack-loss-30pct)  loss "$1" "$NB" 30 fwd ;;
    loss-after-capture-2pct)
        # Captured on the sender (veth0); 1 in 50 RoCE packets dropped on
        # the receiver's ingress (veth1), after the capture point.
        begin "$1"
        perf_bg ib_write_bw "$B" "$A" "$IPB" "${W[*]} -D 10" "${RATE[*]}"
        sleep 3
        tc qdisc add dev "$NB" ingress
        tc filter add dev "$NB" parent ffff: protocol ip prio 1 u32 match ip protocol 17 0xff \
            match ip dport 4791 0xffff action gact pass random netrand drop 50
        act "inject tc ingress on $NB: u32 UDP 4791, gact pass random netrand drop 50 (1 in 50 dropped)"
        sleep 5
        sect "tc -s filter show dev $NB ingress (at removal)"; tc -s filter show dev "$NB" ingress >> "$T"
        tc qdisc del dev "$NB" ingress; act "clear ingress filter on $NB"
        perf_wait; end ;;
    reorder)
        begin "$1"
        perf_bg ib_write_bw "$B" "$A" "$IPB" "${W[*]} -D 10 -u 18" "${RATE[*]}"
        sleep 3; netem_roce "$NA" delay 5ms reorder 25% 50%; sleep 5; netem_clear "$NA"
        perf_wait; end ;;
    duplicate)
        begin "$1"
        perf_bg ib_write_bw "$B" "$A" "$IPB" "${W[*]} -D 10 -u 18" "${RATE[*]}"
        sleep 3; netem_roce "$NA" duplicate 5%; sleep 5; netem_clear "$NA"
        perf_wait; end ;;
    ce-mark)
        # ECT(0) traffic (--tclass=2 on both QPs); netem marks 10 % of the
        # requests CE instead of dropping them (loss ... ecn). rxe sends
        # no CNP for a CE-marked packet.
        begin "$1"
        perf_bg ib_write_bw "$B" "$A" "$IPB" "${W[*]} -D 10 -u 18 --tclass=2" "${RATE[*]}"
        sleep 3; netem_roce "$NA" loss 10% ecn; sleep 5; netem_clear "$NA"
        perf_wait; end ;;
    link-flap)
        begin "$1"
        perf_bg ib_write_bw "$B" "$A" "$IPB" "${W[*]} -D 10 -u 18" "${RATE[*]}"
        sleep 3
        ip link set "$NB" down; act "inject ip link set $NB down"
        sleep 2
        ip link set "$NB" up; act "clear ip link set $NB up"
        perf_wait; end ;;
    blackhole)
        begin "$1"
        fault --seed 1 --hold 4 --count 3 --size 1024 --retry-cnt 3 --timeout 16 retry --method blackhole
        end ;;
    retry-linkdown)
        begin "$1"
        fault --seed 1 --hold 4 --count 3 --size 1024 --retry-cnt 3 --timeout 16 retry --method linkdown
        end ;;
    rnr-recover)
        begin "$1"
        fault --seed 1 --hold 4 --count 3 --size 256 --rnr-retry 7 --min-rnr-timer 24 rnr --stall 1.5
        end ;;
    rnr-exceeded)
        begin "$1"
        fault --seed 1 --hold 4 --count 2 --size 256 --rnr-retry 2 --min-rnr-timer 24 rnr
        end ;;
    access-write-rkey)
        begin "$1"
        fault --seed 1 --hold 3 --size 512 access --cases write-rkey
        end ;;
    access-read-range)
        begin "$1"
        fault --seed 1 --hold 3 --size 512 access --cases read-range
        end ;;
    invreq-noaccess)
        begin "$1"
        fault --seed 1 --hold 4 --size 256 invreq --cause noaccess
        end ;;
    invreq-length)
        begin "$1"
        fault --seed 1 --hold 4 --size 256 invreq --cause length
        end ;;
    remop)
        begin "$1"
        fault --seed 1 --hold 4 --size 128 remop
        end ;;
    mtu-mismatch-drop)
        # veth0 (rxe0) at MTU 4500 (RoCE MTU 4096), veth1 (rxe1) left at
        # 1500: rxe0's QP uses path MTU 4096 (ibv_rc_pingpong -m 4096; the
        # server side keeps 1024), its ~4.2 kB frames exceed veth1's MTU.
        # veth drops them in the sender's transmit (veth0 TX dropped),
        # so rxe0 sees a send error (send_err) and resends at once, in a
        # tight loop (~10,000 tries/s): a hardware NIC would see nothing
        # and resend after each ACK timeout. The client is stopped after 2 s.
        ip link set "$NA" mtu 4500; sleep 1
        begin "$1"
        act "config $NA mtu 4500 (rxe0 active_mtu $(ibv_devinfo -d "$A" | awk '/active_mtu/{print $2}')), $NB mtu 1500 (rxe1 active_mtu $(ibv_devinfo -d "$B" | awk '/active_mtu/{print $2}'))"
        # (perftest agrees on the smaller MTU with its peer, and its
        # --dont_xchg_versions is refused by this version.)
        PORT=$((PORT + 1))
        ibv_rc_pingpong -d "$B" -g "$GX" -p "$PORT" -s 4096 -n 20 > "$tmp/srv.txt" 2>&1 &
        local_srv=$!
        sleep 1
        act "traffic-start ibv_rc_pingpong -d $A -g $GX -s 4096 -n 20 -m 4096 $IPB (server on $B: -s 4096 -n 20, path MTU 1024)"
        timeout 2 ibv_rc_pingpong -d "$A" -g "$GX" -p "$PORT" -s 4096 -n 20 -m 4096 "$IPB" > "$tmp/cli.txt" 2>&1
        rc=$?
        act "traffic-end client exit $rc (124: killed by timeout 2)"
        kill "$local_srv" 2> /dev/null; wait "$local_srv" 2> /dev/null
        sect "ibv_rc_pingpong client ($A, -m 4096) exit $rc"; cat "$tmp/cli.txt" >> "$T"
        sect "ibv_rc_pingpong server ($B, killed)"; cat "$tmp/srv.txt" >> "$T"
        end
        ip link set "$NA" mtu 1500; sleep 1 ;;
    mtu-mismatch-lower)
        # The reverse: veth1 (rxe1) at 4500, veth0 (rxe0) at 1500; rxe0
        # writes at path MTU 1024 to a peer whose port allows 4096.
        # Recorded on veth1, the host with the larger MTU.
        ip link set "$NB" mtu 4500; sleep 1
        begin "$1" "$NB"
        act "config $NB mtu 4500 (rxe1 active_mtu $(ibv_devinfo -d "$B" | awk '/active_mtu/{print $2}')), $NA mtu 1500 (rxe0 active_mtu $(ibv_devinfo -d "$A" | awk '/active_mtu/{print $2}'))"
        perf_bg ib_write_bw "$B" "$A" "$IPB" "${W[*]} -D 8 -u 18" "${RATE[*]}"
        perf_wait
        end
        ip link set "$NB" mtu 1500; sleep 1 ;;
    memlock-perftest)
        # The client (rxe0) runs with RLIMIT_MEMLOCK 64 KiB and without
        # CAP_IPC_LOCK (root ignores the limit): its ibv_reg_mr fails; three
        # tries.
        begin "$1"
        for i in 1 2 3; do
            PORT=$((PORT + 1))
            ib_write_bw -d "$B" -x "$GX" -p "$PORT" -s 65536 -F -D 3 > "$tmp/srv.txt" 2>&1 &
            local_srv=$!
            sleep 1
            act "try $i: ulimit -l 64; setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock ib_write_bw -d $A -s 65536 -D 3 $IPB"
            ( ulimit -l 64; exec setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock \
                timeout 15 ib_write_bw -d "$A" -x "$GX" -p "$PORT" -s 65536 -F -D 3 "$IPB" ) > "$tmp/cli.txt" 2>&1
            rc=$?
            act "try $i: client exit $rc"
            sleep 1; kill "$local_srv" 2> /dev/null; wait "$local_srv" 2> /dev/null
            sect "try $i: ib_write_bw client ($A, memlock 64 KiB, no CAP_IPC_LOCK) exit $rc"; cat "$tmp/cli.txt" >> "$T"
            sect "try $i: ib_write_bw server ($B, unlimited)"; cat "$tmp/srv.txt" >> "$T"
            sleep 1
        done
        end ;;
    memlock-qp)
        begin "$1"
        act "start: ulimit -l 64; setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock python3 memlock-qp.py --dev $A --size 4194304 --duration 8"
        ( ulimit -l 64; exec setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock \
            python3 ./memlock-qp.py --dev "$A" --size 4194304 --every 1 --duration 8 ) > "$tmp/tool.out" 2>&1
        rc=$?
        act "end: memlock-qp.py exit $rc"
        sect "memlock-qp.py (exit $rc)"; cat "$tmp/tool.out" >> "$T"
        end ;;
    *) echo "unknown incident $1" >&2; return 2 ;;
    esac
}

for n in ${INCIDENTS:-$ALL}; do
    echo "$(now) $n start"
    inc "$n"
done
rm -rf "$tmp"
