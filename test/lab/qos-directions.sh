#!/bin/bash
# rxe-lab job: QoS marked differently per direction, on a real Soft-RoCE
# stack, recorded with host ticks. Run from the repo root with
# `test/lab/run.sh qos-directions`. rxe copies a QP's GRH traffic class
# into the IP TOS byte of the packets it sends, so how each direction is
# marked is set here, not inferred:
#   srv106/  the server (rxe1, the responder) sets --tclass=106 (DSCP 26,
#            ECT(0)); the client (rxe0, the requester) sets none (DSCP 0,
#            Not-ECT). ib_write_bw: requests one way, ACKs the other.
#   read106/ the same classes with ib_read_bw: the READ responses (the
#            data) ride DSCP 26 ECT(0), the READ requests DSCP 0 Not-ECT.
#   both106/ both sides set --tclass=106: one class both ways (the
#            negative).
# tc pedit on one direction was tried: the guest has no act_csum, so the
# rewritten packets carry a wrong IPv4 header checksum and the receiver
# drops them all (a loss test, not a QoS one).
# Each directory has rec.pcapng.gz (rdmatop record -i veth0: host ticks
# and packets), wire.pcap (tcpdump on veth0) and bw.txt.
set -u
cd "$LAB_IN"

run() { # run NAME BW SERVER_ARGS CLIENT_ARGS
    local d="$LAB_OUT/$1"; mkdir -p "$d"
    tcpdump -U -Z root -i veth0 -w "$d/wire.pcap" udp port 4791 2>/dev/null &
    local td=$!
    ./rdmatop record -i "$RXE_NETDEV_A" --interval 1s --duration 8s -o "$d/rec.pcapng.gz" 2> "$d/record.err" &
    local rec=$!
    sleep 2
    $2 -d "$RXE_DEV_B" -x "$RXE_GID_INDEX" -n 300 -s 4096 -F $3 > /dev/null 2>&1 &
    sleep 1
    $2 -d "$RXE_DEV_A" -x "$RXE_GID_INDEX" -n 300 -s 4096 -F $4 "$RXE_IP_B" > "$d/bw.txt" 2>&1
    wait $rec; echo "record exit $?" >> "$d/record.err"
    sleep 1
    kill -INT $td; wait
}

run srv106 ib_write_bw --tclass=106 ""
run read106 ib_read_bw --tclass=106 ""
run both106 ib_write_bw --tclass=106 --tclass=106

