#!/bin/bash
# topo.sh: the two-point topology of the wire-truth campaign, set up in an
# rxe-lab guest started with --no-topo. The fault sits in the middle:
#
#   rxe0 on veth0 (192.168.77.1) ==veth== m0 [ns mid: br0] m1 ==veth== veth1 (192.168.77.2) rxe1
#
# Both Soft-RoCE devices stay in the root namespace (rxe cannot carry RC
# traffic between namespaces; shared/lab/README.md) and policy routing
# sends traffic between their addresses out of veth0/veth1, as rxe-topo
# does. The only way from veth0 to veth1 is through the bridge in "mid",
# where a qdisc on m1's egress impairs A->B and one on m0's egress B->A.
# A capture on veth0 and one on veth1 then see every packet on both sides
# of the fault. Writes /run/rxe-topo.env like rxe-topo.
set -euo pipefail
A=veth0 B=veth1 DA=rxe0 DB=rxe1
IPA=192.168.77.1 IPB=192.168.77.2
MTU=${RXE_MTU:-1500}
modprobe crc32_generic; modprobe -q crc32-pclmul || true
for m in rdma_rxe veth bridge ib_uverbs rdma_ucm; do modprobe "$m"; done
ip netns add mid
ip link add "$A" address 02:00:00:00:77:01 type veth peer name m0 netns mid
ip link add "$B" address 02:00:00:00:77:02 type veth peer name m1 netns mid
ip -n mid link add br0 type bridge stp_state 0 forward_delay 0
for d in m0 m1 br0; do ip -n mid link set "$d" mtu "$MTU"; done
ip -n mid link set m0 master br0; ip -n mid link set m1 master br0
for d in m0 m1 br0 lo; do ip -n mid link set "$d" up; done
for d in all default "$A" "$B"; do
    sysctl -qw net.ipv4.conf.$d.rp_filter=0
    sysctl -qw net.ipv4.conf.$d.accept_local=1
done
ip link set "$A" mtu "$MTU"; ip link set "$B" mtu "$MTU"
ip addr add "$IPA/24" dev "$A"; ip addr add "$IPB/24" dev "$B"
ip link set "$A" up; ip link set "$B" up
ip rule add pref 100 lookup local
ip rule del pref 0 lookup local
ip route add "$IPB" dev "$A" src "$IPA" table 101
ip route add "$IPA" dev "$B" src "$IPB" table 102
ip rule add pref 10 iif lo to "$IPB" lookup 101
ip rule add pref 11 iif lo to "$IPA" lookup 102
rdma link add "$DA" type rxe netdev "$A"
rdma link add "$DB" type rxe netdev "$B"
gid_index() {  # dev ip
    local hex f
    hex=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$2" | tr . ' '))
    for f in /sys/class/infiniband/$1/ports/1/gids/*; do
        [ "$(cat "$f" 2>/dev/null)" = "$hex" ] && { basename "$f"; return 0; }
    done
    return 1
}
GA=
for _ in $(seq 1 100); do
    GA=$(gid_index "$DA" "$IPA" || true); GB=$(gid_index "$DB" "$IPB" || true)
    [ -n "$GA" ] && [ -n "$GB" ] && break
    sleep 0.1
done
[ -n "$GA" ] || { echo "topo: IPv4 GIDs did not appear" >&2; exit 1; }
for _ in 1 2 3 4 5; do ping -c1 -W2 -I "$A" "$IPB" > /dev/null && break; sleep 1; done
ping -c1 -W2 -I "$A" "$IPB" > /dev/null || { echo "topo: ping through mid failed" >&2; exit 1; }
cat > /run/rxe-topo.env <<ENV
RXE_DEV_A=$DA
RXE_DEV_B=$DB
RXE_NETDEV_A=$A
RXE_NETDEV_B=$B
RXE_IP_A=$IPA
RXE_IP_B=$IPB
RXE_GID_INDEX=$GA
ENV
