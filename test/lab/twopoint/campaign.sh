#!/bin/bash
# rxe-lab job (boot with --no-topo): the wire-truth campaign. Sets up the
# two-point topology (topo.sh), then for every run of $SPECS (one line a
# run, see specs.txt) impairs the middle of the path with netem, runs one
# perftest workload between rxe0 and rxe1, and captures full frames on
# veth0 and on veth1 at once. Per run NAME, in $LAB_OUT/NAME/:
#   veth0.pcap veth1.pcap  tcpdump -s 0 on each side of the fault
#   meta.txt               the spec, tc -s of the impairment at removal,
#                          tcpdump's own drop counts, hw_counters deltas,
#                          the workload's output
# tools/wiretruth turns the two captures into the run's truth.
set -u
cd "$LAB_IN"
bash ./topo.sh || { echo "topology failed"; exit 3; }
set -a; . /run/rxe-topo.env; set +a
GX=$RXE_GID_INDEX
PORT=18700
uname -r > "$LAB_OUT/environment.txt"
dpkg-query -W -f='${Package} ${Version}\n' rdma-core perftest iproute2 tcpdump >> "$LAB_OUT/environment.txt" 2>&1
ibv_devinfo -d rxe0 | grep -E 'active_mtu|max_qp_rd_atom' >> "$LAB_OUT/environment.txt"

hwc() {
    local d f
    for d in rxe0 rxe1; do
        for f in /sys/class/infiniband/$d/ports/1/hw_counters/*; do
            printf '%s %s %s\n' "$d" "${f##*/}" "$(cat "$f")"
        done
    done
}

# impair DEV "NETEM ARGS": netem on DEV's egress in mid, RoCE only (prio
# + u32 on UDP 4791, so perftest's TCP control connection is untouched).
impair() {
    [ "$2" = - ] && return 0
    ip netns exec mid tc qdisc add dev "$1" root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
    # shellcheck disable=SC2086
    ip netns exec mid tc qdisc add dev "$1" parent 1:1 handle 10: netem $2
    ip netns exec mid tc filter add dev "$1" parent 1: protocol ip prio 1 u32 \
        match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:1
}
clear_impair() {
    [ "$2" = - ] && return 0
    ip netns exec mid tc filter del dev "$1" parent 1: prio 1
    sleep 1   # let netem drain: deleting it with packets queued would drop them
    ip netns exec mid tc -s qdisc show dev "$1"
    ip netns exec mid tc qdisc del dev "$1" root
}

# workload NAME: the server on rxe1, the client on rxe0 (requester A).
workload() {
    local rate="" args
    case $1 in
    *-lim) rate="--rate_limit=${RATE_MIBPS:-5} --rate_units=M --rate_limit_type=SW" ;;
    esac
    case ${1%-lim} in
    write)   args="ib_write_bw -s 4096 -n ${N:-500}" ;;
    write64) args="ib_write_bw -s 65536 -n ${N64:-40}" ;;
    read1)   args="ib_read_bw -s 4096 -o 1 -n ${N:-500}" ;;
    read16)  args="ib_read_bw -s 65536 -o 16 -n ${N64:-40}" ;;
    send)    args="ib_send_bw -s 4096 -n ${N:-500}" ;;
    atomic)  args="ib_atomic_bw -A FETCH_AND_ADD -n ${NA:-1000}"; rate="" ;;
    ud)      args="ib_send_bw -c UD -s 1024 -n ${NU:-400}" ;;
    multiqp) args="ib_write_bw -s 4096 -q 4 -n ${N:-200}" ;;
    *) echo "unknown workload $1"; return 2 ;;
    esac
    PORT=$((PORT + 1))
    # shellcheck disable=SC2086
    $args -F -d rxe1 -x "$GX" -p "$PORT" $EXTRA > "$o/server.txt" 2>&1 &
    local srv=$!
    sleep 1.5
    # shellcheck disable=SC2086
    timeout 90 $args -F -d rxe0 -x "$GX" -p "$PORT" $EXTRA $rate "$RXE_IP_B" > "$o/client.txt" 2>&1
    echo "client exit $?" >> "$o/meta.txt"
    ( sleep 10; kill "$srv" 2> /dev/null ) & local k=$!
    wait "$srv"; echo "server exit $?" >> "$o/meta.txt"
    kill "$k" 2> /dev/null; wait "$k" 2> /dev/null
}

run() {  # NAME WORKLOAD FWD-NETEM REV-NETEM [EXTRA perftest args]
    local name=$1 wl=$2 fwd=$3 rev=$4
    EXTRA=${5:-}
    o=$LAB_OUT/$name; mkdir -p "$o"
    echo "$(date +%s.%N) $name start"
    { echo "spec: $name | $wl | $fwd | $rev | $EXTRA"
      echo "mtu: $(cat /sys/class/net/veth0/mtu)"; } > "$o/meta.txt"
    hwc > /tmp/hwc.before
    tcpdump -i veth0 -s 0 -B 32768 -U -w /tmp/veth0.pcap udp port 4791 2> /tmp/td0.txt &
    local t0=$!
    tcpdump -i veth1 -s 0 -B 32768 -U -w /tmp/veth1.pcap udp port 4791 2> /tmp/td1.txt &
    local t1=$!
    sleep 1.5
    impair m1 "$fwd"; impair m0 "$rev"
    workload "$wl"
    { echo "## fwd impairment (m1 egress, A->B): $fwd"; clear_impair m1 "$fwd"
      echo "## rev impairment (m0 egress, B->A): $rev"; clear_impair m0 "$rev"; } >> "$o/meta.txt" 2>&1
    sleep 1
    kill -INT "$t0" "$t1"; wait "$t0" "$t1"
    { echo "## tcpdump veth0"; cat /tmp/td0.txt; echo "## tcpdump veth1"; cat /tmp/td1.txt
      echo "## hw_counters delta"
      hwc | paste -d' ' /tmp/hwc.before - | awk '$6-$3 != 0 {print $1, $2, $6-$3}'
      echo "## client"; cat "$o/client.txt"; echo "## server"; cat "$o/server.txt"; } >> "$o/meta.txt"
    rm -f "$o/client.txt" "$o/server.txt"
    mv /tmp/veth0.pcap /tmp/veth1.pcap "$o/"
}

while IFS="|" read -r -u 3 name wl fwd rev extra; do
    name=$(echo "$name" | xargs); [ -z "$name" ] && continue
    case $name in \#*) continue ;; esac
    [ -n "${ONLY:-}" ] && ! echo " $ONLY " | grep -q " $name " && continue
    run "$name" "$(echo "$wl" | xargs)" "$(echo "$fwd" | xargs)" "$(echo "$rev" | xargs)" "$(echo "$extra" | xargs)"
done 3< "${SPECS:-specs.txt}"
echo "$(date +%s.%N) campaign done"
