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
# The randomized campaign's other networks (docs/wiretruth.md):
# IPv6 GIDs on veth0/veth1 and IPv4 and IPv6 GIDs on VLAN 100 above them
# (8021q). RoCE puts an upper VLAN device's addresses in the port's GID
# table with that device as the GID's netdev, and rxe sends on it, so the
# same rxe0/rxe1 carry them: a run picks its network by GID index. They
# are added after the IPv4 GID was found (its index stays what it was),
# with policy routing like the IPv4 addresses'; a failure here only
# leaves that network's index empty (its runs then fail and say so).
# perftest's TCP control connection stays on the untagged IPv4 addresses.
extra_networks() {
    local vid=100 ha hb
    ip -6 rule add pref 100 lookup local
    ip -6 rule del pref 0 lookup local
    ip link add link "$A" name "$A.$vid" type vlan id $vid
    ip link add link "$B" name "$B.$vid" type vlan id $vid
    for d in "$A.$vid" "$B.$vid"; do
        echo 0 > "/proc/sys/net/ipv4/conf/$d/rp_filter"    # sysctl reads the dot as a level
        echo 1 > "/proc/sys/net/ipv4/conf/$d/accept_local"
        ip link set "$d" up
    done
    ip addr add 192.168.78.1/24 dev "$A.$vid"; ip addr add 192.168.78.2/24 dev "$B.$vid"
    ip route add 192.168.78.2 dev "$A.$vid" src 192.168.78.1 table 101
    ip route add 192.168.78.1 dev "$B.$vid" src 192.168.78.2 table 102
    ip rule add pref 12 iif lo to 192.168.78.2 lookup 101
    ip rule add pref 13 iif lo to 192.168.78.1 lookup 102
    # IPv6: fd77::/64 untagged, fd78::/64 on the VLAN; no DAD (the GID
    # must be usable at once) and fixed neighbours (no ND across mid).
    local net sa sb da db
    for net in "fd77 $A $B" "fd78 $A.$vid $B.$vid"; do
        read -r pfx da db <<< "$net"
        sa=$pfx::1 sb=$pfx::2
        ip -6 addr add "$sa/64" dev "$da" nodad; ip -6 addr add "$sb/64" dev "$db" nodad
        ip -6 route add "$sb" dev "$da" src "$sa" table 101
        ip -6 route add "$sa" dev "$db" src "$sb" table 102
        ip -6 rule add pref 10 iif lo to "$sb" lookup 101
        ip -6 rule add pref 11 iif lo to "$sa" lookup 102
        ip -6 neigh replace "$sb" lladdr 02:00:00:00:77:02 dev "$da" nud permanent
        ip -6 neigh replace "$sa" lladdr 02:00:00:00:77:01 dev "$db" nud permanent
    done
    sleep 1
    for _ in $(seq 1 20); do
        GA6=$(gid_of "$DA" fd77:0000:0000:0000:0000:0000:0000:0001 || true)
        GB6=$(gid_of "$DB" fd77:0000:0000:0000:0000:0000:0000:0002 || true)
        GAV4=$(gid_of "$DA" 0000:0000:0000:0000:0000:ffff:c0a8:4e01 || true)
        GBV4=$(gid_of "$DB" 0000:0000:0000:0000:0000:ffff:c0a8:4e02 || true)
        GAV6=$(gid_of "$DA" fd78:0000:0000:0000:0000:0000:0000:0001 || true)
        GBV6=$(gid_of "$DB" fd78:0000:0000:0000:0000:0000:0000:0002 || true)
        [ -n "$GA6" ] && [ -n "$GB6" ] && [ -n "$GAV4" ] && [ -n "$GBV4" ] && [ -n "$GAV6" ] && [ -n "$GBV6" ] && break
        sleep 0.5
    done
    # perftest passes one -x to both ends: the indices must agree.
    for p in "GA6 GB6" "GAV4 GBV4" "GAV6 GBV6"; do
        read -r ha hb <<< "$p"
        [ "${!ha}" = "${!hb}" ] || { echo "topo: GID index differs: $ha=${!ha} $hb=${!hb}" >&2; eval "$ha="; }
    done
    echo "topo: GID indices: IPv4 $GA, IPv6 ${GA6:-none}, VLAN $vid IPv4 ${GAV4:-none}, VLAN $vid IPv6 ${GAV6:-none}" >&2
    ping -c1 -W2 -I "$A.$vid" 192.168.78.2 > /dev/null || echo "topo: ping over VLAN $vid failed" >&2
    ping -6 -c1 -W2 -I "$A" fd77::2 > /dev/null || echo "topo: ping6 fd77::2 failed" >&2
    ping -6 -c1 -W2 -I "$A.$vid" fd78::2 > /dev/null || echo "topo: ping6 over VLAN $vid failed" >&2
    return 0
}
gid_of() {  # dev gid-hex: the RoCE v2 GID index holding that GID
    # One grep over the table (1024 entries: a cat each is minutes under TCG).
    local f i
    for f in $(grep -lxF "$2" /sys/class/infiniband/$1/ports/1/gids/* 2> /dev/null); do
        i=$(basename "$f")
        grep -q 'RoCE v2' "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2> /dev/null || continue
        echo "$i"; return 0
    done
    return 1
}
GA6= GAV4= GAV6=
extra_networks || echo "topo: the extra networks (IPv6, VLAN) failed" >&2
cat > /run/rxe-topo.env <<ENV
RXE_DEV_A=$DA
RXE_DEV_B=$DB
RXE_NETDEV_A=$A
RXE_NETDEV_B=$B
RXE_IP_A=$IPA
RXE_IP_B=$IPB
RXE_GID_INDEX=$GA
RXE_GID_INDEX6=$GA6
RXE_GID_INDEX_VLAN=$GAV4
RXE_GID_INDEX6_VLAN=$GAV6
RXE_VLAN=100
ENV
