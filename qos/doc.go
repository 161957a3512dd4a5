// Package qos puts a host's QoS settings beside the classes its RoCE
// traffic rides on the wire, per direction.
//
// The host side is what the probes read: the trust mode, DSCP→priority
// map, PFC and ETS of DCB netlink (or a saved `mlnx_qos`), and the DCQCN
// notification and reaction points per priority of MLNX_OFED's ecn/
// directory. The wire side is each captured flow's DSCP, ECN codepoints
// and PCP, of its data and, apart, of its CNPs.
//
// Host is the one lookup of a class's priority and of what a priority has
// (PFC, its traffic class's transmission selection, ECN): the rules call
// it, and the QoS table (Table) is built with it. Absent is not off: a
// setting the host did not report is unknown, and so is a lookup whose
// netdevs disagree.
package qos
