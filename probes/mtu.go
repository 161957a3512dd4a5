package probes

// roceOverhead is what the kernel subtracts from a netdev MTU to find the
// largest IB MTU RoCE can use over it (iboe_get_mtu in include/rdma/ib_addr.h):
// GRH 40, UDP 8, BTH 12, XRC ETH 4, AtomicETH 28, ICRC 4.
const roceOverhead = 40 + 8 + 12 + 4 + 28 + 4

// RoCEMTU returns the IB path MTU (256..4096) that a netdev MTU allows, or 0
// when it is too small for any.
func RoCEMTU(netdevMTU int) int {
	m := netdevMTU - roceOverhead
	for _, ib := range []int{4096, 2048, 1024, 512, 256} {
		if m >= ib {
			return ib
		}
	}
	return 0
}
