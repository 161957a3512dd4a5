#!/bin/bash
# rxe-lab job (boot with --no-topo): the wire-truth campaign. Sets up the
# two-point topology (topo.sh), then for every run of $SPECS (one line a
# run, see specs.txt) impairs the middle of the path with netem (or tbf,
# red: docs/wiretruth.md), or the sender's own egress before its capture point, runs
# one perftest workload between rxe0 and rxe1 over IPv4 or IPv6 GIDs,
# untagged or on VLAN 100, and captures full frames on veth0 and on veth1
# at once. Per run NAME, in $LAB_OUT/NAME/:
#   veth0.pcap veth1.pcap  tcpdump -s 0 on each side of the fault
#   meta.txt               the spec, tc -s of the impairment at removal,
#                          tcpdump's own drop counts, hw_counters deltas,
#                          the workload's output
# tools/wiretruth turns the two captures into the run's truth.
set -u
cd "$LAB_IN"
bash ./topo.sh || { echo "topology failed"; exit 3; }
set -a; . /run/rxe-topo.env; set +a
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

# tcin WHERE: tc in mid (the middle of the path) or in the root namespace
# (src: the sender's own egress, before its capture point).
tcin() {
    if [ "$1" = mid ]; then echo "ip netns exec mid tc"; else echo "tc"; fi
}

# impair WHERE DEV "FAULT": the fault on DEV's egress, RoCE only (prio +
# u32 on UDP 4791, so perftest's TCP control connection is untouched).
# FAULT is netem's arguments, or a chain of qdiscs "KIND ARGS ; KIND ARGS"
# (netem, tbf, red), each the child of the one before it.
impair() {
    [ "$3" = - ] && return 0
    local tc parent=1:1 h=10 q proto=ip
    local m="match ip protocol 17 0xff match ip dport 4791 0xffff"
    tc=$(tcin "$1")
    $tc qdisc add dev "$2" root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
    IFS=';' read -ra qs <<< "$3"
    for q in "${qs[@]}"; do
        q=$(echo "$q" | xargs)
        case ${q%% *} in netem|tbf|red) ;; *) q="netem $q" ;; esac
        # shellcheck disable=SC2086
        $tc qdisc add dev "$2" parent $parent handle $h: $q
        parent=$h:1; h=$((h + 10))
    done
    case $NET in v6*)
        proto=ipv6; m="match ip6 protocol 17 0xff match ip6 dport 4791 0xffff" ;;
    esac
    # shellcheck disable=SC2086
    $tc filter add dev "$2" parent 1: protocol $proto prio 1 u32 $m flowid 1:1
    # In mid a VLAN's frames carry their tag: tc sees 802.1Q.
    case $1/$NET in mid/*vlan)
        # shellcheck disable=SC2086
        $tc filter add dev "$2" parent 1: protocol 802.1q prio 2 u32 $m flowid 1:1 ;;
    esac
}
clear_impair() {
    [ "$3" = - ] && return 0
    local tc; tc=$(tcin "$1")
    $tc filter del dev "$2" parent 1:
    sleep 1   # let netem drain: deleting it with packets queued would drop them
    $tc -s qdisc show dev "$2"
    $tc qdisc del dev "$2" root
}

# workload NAME: the server on rxe1, the client on rxe0 (requester A).
# NAME is one of the names below, or a whole perftest command ("ib_..."),
# run as it is at both ends (docs/wiretruth.md).
workload() {
    local rate="" args
    case $1 in
    *-lim) rate="--rate_limit=${RATE_MIBPS:-5} --rate_units=M --rate_limit_type=SW" ;;
    esac
    case ${1%-lim} in
    ib_*)    args=$1; rate="" ;;
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
    case $NET in
    v4) GX=$RXE_GID_INDEX ;;
    v6) GX=$RXE_GID_INDEX6 ;;
    v4-vlan) GX=$RXE_GID_INDEX_VLAN ;;
    v6-vlan) GX=$RXE_GID_INDEX6_VLAN ;;
    *) GX= ;;
    esac
    [ -n "$GX" ] || { echo "no GID index for network $NET (see topo.sh's output)" | tee -a "$o/meta.txt"; return 2; }
    # shellcheck disable=SC2086
    $args -F -d rxe1 -x "$GX" -p "$PORT" $EXTRA > "$o/server.txt" 2>&1 &
    local srv=$!
    sleep 1.5
    # shellcheck disable=SC2086
    timeout "${CLIENT_TIMEOUT:-90}" $args -F -d rxe0 -x "$GX" -p "$PORT" $EXTRA $rate "$RXE_IP_B" > "$o/client.txt" 2>&1
    echo "client exit $?" >> "$o/meta.txt"
    ( sleep 10; kill "$srv" 2> /dev/null ) & local k=$!
    wait "$srv"; echo "server exit $?" >> "$o/meta.txt"
    kill "$k" 2> /dev/null; wait "$k" 2> /dev/null
}

# run NAME WORKLOAD FWD REV [EXTRA perftest args [AT [NET]]]: AT is where
# the A->B and the B->A fault sit, "mid" (between the capture points, the
# default) or "src" (the sender's own egress: on veth0 for A->B, veth1 for
# B->A, before its capture point), one word for both or two; NET is v4
# (the default), v6, v4-vlan or v6-vlan.
run() {
    local name=$1 wl=$2 fwd=$3 rev=$4 at=${6:-} atf atr devf devr filter="udp port 4791" spec
    EXTRA=${5:-}
    NET=${7:-v4}; [ -z "$NET" ] && NET=v4
    read -r atf atr <<< "${at:-mid}"; atr=${atr:-$atf}
    devf=m1 devr=m0 sfx=""
    case $NET in *vlan) sfx=.$RXE_VLAN; filter="udp port 4791 or (vlan and udp port 4791)" ;; esac
    [ "$atf" = src ] && devf=veth0$sfx
    [ "$atr" = src ] && devr=veth1$sfx
    o=$LAB_OUT/$name; mkdir -p "$o"
    echo "$(date +%s.%N) $name start"
    spec="$name | $wl | $fwd | $rev | $EXTRA"
    [ -n "$at$NET" ] && [ "$at $NET" != " v4" ] && spec="$spec | $at | $NET"
    { echo "spec: $spec"
      echo "mtu: $(cat /sys/class/net/veth0/mtu)"; } > "$o/meta.txt"
    hwc > /tmp/hwc.before
    # shellcheck disable=SC2086
    tcpdump -i veth0 -s 0 -B 131072 -U -w /tmp/veth0.pcap $filter 2> /tmp/td0.txt &
    local t0=$!
    # shellcheck disable=SC2086
    tcpdump -i veth1 -s 0 -B 131072 -U -w /tmp/veth1.pcap $filter 2> /tmp/td1.txt &
    local t1=$!
    sleep 1.5
    impair "$atf" "$devf" "$fwd"; impair "$atr" "$devr" "$rev"
    workload "$wl"
    { if [ "$atf" = src ]; then echo "## fwd impairment ($devf egress, A->B, before the veth0 capture): $fwd"
      else echo "## fwd impairment (m1 egress, A->B): $fwd"; fi
      clear_impair "$atf" "$devf" "$fwd"
      if [ "$atr" = src ]; then echo "## rev impairment ($devr egress, B->A, before the veth1 capture): $rev"
      else echo "## rev impairment (m0 egress, B->A): $rev"; fi
      clear_impair "$atr" "$devr" "$rev"; } >> "$o/meta.txt" 2>&1
    sleep 1
    kill -INT "$t0" "$t1"; wait "$t0" "$t1"
    { echo "## tcpdump veth0"; cat /tmp/td0.txt; echo "## tcpdump veth1"; cat /tmp/td1.txt
      echo "## hw_counters delta"
      hwc | paste -d' ' /tmp/hwc.before - | awk '$6-$3 != 0 {print $1, $2, $6-$3}'
      echo "## client"; cat "$o/client.txt"; echo "## server"; cat "$o/server.txt"; } >> "$o/meta.txt"
    rm -f "$o/client.txt" "$o/server.txt"
    mv /tmp/veth0.pcap /tmp/veth1.pcap "$o/"
}

while IFS="|" read -r -u 3 name wl fwd rev extra at net; do
    name=$(echo "$name" | xargs); [ -z "$name" ] && continue
    case $name in \#*) continue ;; esac
    [ -n "${ONLY:-}" ] && ! echo " $ONLY " | grep -q " $name " && continue
    run "$name" "$(echo "$wl" | xargs)" "$(echo "$fwd" | xargs)" "$(echo "$rev" | xargs)" "$(echo "$extra" | xargs)" \
        "$(echo "$at" | xargs)" "$(echo "$net" | xargs)"
done 3< "${SPECS:-specs.txt}"
echo "$(date +%s.%N) campaign done"
