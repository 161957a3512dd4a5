package kmsg

import (
	"testing"
)

// vendorLine is a line built from a kernel printk format string, with the
// event it must classify to.
type vendorLine struct {
	raw                        string
	kind                       Kind
	sev                        string
	driver, pci, ibdev, netdev string
	fields                     map[string]string
}

// vendorLines: mlx5, bnxt_re and irdma messages under every kind of
// device name the kernel prints: the PCI function, the RDMA device as the
// kernel names it (mlx5_0, bnxt_re0, irdma0) or as rdma-core's udev rules
// rename it (rocep33s0f0, ibp59s0f0, iwp24s0f1), and the netdev. These
// are synthetic (built from the format strings cited), unlike
// testdata/kmsg/lines.json.
var vendorLines = []vendorLine{
	// drivers/infiniband/hw/mlx5/cq.c, mlx5_handle_error_cqe: mlx5_ib_warn
	// is dev_warn on the ib_device: "infiniband <ibdev>: %s:%d:(pid %d): ".
	{raw: "[ 8123.000001] infiniband rocep33s0f0: mlx5_handle_error_cqe:332:(pid 0): WC error: 12, message: transport retry counter exceeded",
		kind: KindErrCQE, sev: "warning", driver: "infiniband", ibdev: "rocep33s0f0", fields: map[string]string{"wc_status": "12"}},
	{raw: "[ 8123.000002] infiniband ibp59s0f0: mlx5_handle_error_cqe:332:(pid 0): WC error: 5, message: Work Request Flushed Error",
		kind: KindErrCQE, sev: "warning", ibdev: "ibp59s0f0", fields: map[string]string{"wc_status": "5"}},
	{raw: "[ 8123.000003] infiniband mlx5_3: mlx5_handle_error_cqe:332:(pid 0): WC error: 10, message: remote access error",
		kind: KindErrCQE, sev: "warning", ibdev: "mlx5_3"},
	// drivers/net/ethernet/mellanox/mlx5/core/en_main.c: netdev_info
	// "Link up"/"Link down", with netdev_printk's registration state.
	{raw: "[ 8124.000000] mlx5_core 0000:3b:00.0 enp59s0f0np0: Link up",
		kind: KindLinkUp, sev: "info", driver: "mlx5_core", pci: "0000:3b:00.0", netdev: "enp59s0f0np0"},
	{raw: "[ 8125.000000] mlx5_core 0000:3b:00.1 enp59s0f1np1 (unregistering): Link down",
		kind: KindLinkDown, sev: "warning", driver: "mlx5_core", pci: "0000:3b:00.1", netdev: "enp59s0f1np1"},
	// drivers/net/ethernet/mellanox/mlx5/core/events.c: port module event,
	// on a PCI function in a 5-digit (VMD) domain.
	{raw: "[ 8126.000000] mlx5_core 10000:01:00.0: Port module event: module 1, Cable unplugged",
		kind: KindModuleEvent, sev: "warning", driver: "mlx5_core", pci: "10000:01:00.0", fields: map[string]string{"module": "1", "status": "Cable unplugged"}},

	// drivers/infiniband/hw/bnxt_re/ib_verbs.c: ibdev_err, which prints
	// "<parent driver> <parent> <ibdev>: " with the bnxt_en PCI function
	// as parent (drivers/infiniband/core/device.c, __ibdev_printk).
	{raw: "[  900.000001] bnxt_en 0000:21:00.0 rocep33s0f0: Failed to create HW QP",
		kind: KindDriverError, sev: "warning", driver: "bnxt_en", pci: "0000:21:00.0", ibdev: "rocep33s0f0", fields: map[string]string{"error": "Failed to create HW QP"}},
	{raw: "[  900.000002] bnxt_en 0000:21:00.1 bnxt_re1: Failed to destroy HW QP",
		kind: KindDriverError, sev: "warning", pci: "0000:21:00.1", ibdev: "bnxt_re1"},
	// drivers/infiniband/hw/bnxt_re/main.c: dev_err on the ib_device.
	{raw: "[  900.000003] infiniband rocep33s0f0: Couldn't change QP1 state to INIT: -110",
		kind: KindDriverError, sev: "warning", driver: "infiniband", ibdev: "rocep33s0f0"},
	// drivers/net/ethernet/broadcom/bnxt/bnxt.c, bnxt_report_link.
	{raw: "[  901.000000] bnxt_en 0000:21:00.0 ens1f0np0: NIC Link is Up, 25000 Mbps (NRZ) full duplex, Flow control: ON - receive & transmit",
		kind: KindLinkUp, sev: "info", driver: "bnxt_en", pci: "0000:21:00.0", netdev: "ens1f0np0", fields: map[string]string{"speed": "25000 Mbps"}},

	// drivers/infiniband/hw/irdma/main.c, irdma_idc_event_handler:
	// ibdev_err with the ice PCI function as parent (irdma_init_rdma_device
	// sets ibdev.dev.parent to the PCI device).
	{raw: "[ 7000.000001] ice 0000:3b:00.0 irdma0: critical PE Error, GLPE_CRITERR=0x00011424",
		kind: KindFWFatal, sev: "critical", driver: "ice", pci: "0000:3b:00.0", ibdev: "irdma0", fields: map[string]string{"criterr": "0x00011424"}},
	{raw: "[ 7000.000002] ice 0000:3b:00.0 rocep59s0f0: HMC Error",
		kind: KindFWFatal, sev: "critical", pci: "0000:3b:00.0", ibdev: "rocep59s0f0", fields: map[string]string{"error": "HMC Error"}},
	// drivers/infiniband/hw/irdma/hw.c, irdma_process_aeq (X722 iWARP via
	// i40e, renamed iwp24s0f1).
	{raw: "[ 7001.000000] i40e 0000:18:00.1 iwp24s0f1: abnormal ae_id = 0x503 bool qp=1 qp_id = 5, ae_src=0",
		kind: KindDriverError, sev: "warning", driver: "i40e", pci: "0000:18:00.1", ibdev: "iwp24s0f1", fields: map[string]string{"ae_id": "0x503", "qp_id": "5", "is_qp": "1"}},
	// drivers/net/ethernet/intel/ice/ice_main.c, ice_print_link_msg.
	{raw: "[ 7002.000000] ice 0000:3b:00.0 enp59s0f0: NIC Link is up 100 Gbps Full Duplex, Requested FEC: RS-FEC, Negotiated FEC: RS-FEC, Autoneg Advertised: On, Autoneg Negotiated: True, Flow Control: None",
		kind: KindLinkUp, sev: "info", driver: "ice", pci: "0000:3b:00.0", netdev: "enp59s0f0", fields: map[string]string{"speed": "100 Gbps"}},
}

// TestClassifyVendorLines: every vendor line classifies to its kind and
// names the device it concerns, whatever the device is called.
func TestClassifyVendorLines(t *testing.T) {
	for _, l := range vendorLines {
		recs := ParseLines(l.raw)
		if len(recs) != 1 {
			t.Fatalf("%q: %d records", l.raw, len(recs))
		}
		e, ok := Classify(recs[0])
		if !ok {
			t.Errorf("%q: not classified, want %s", l.raw, l.kind)
			continue
		}
		if e.Kind != l.kind || string(e.Severity) != l.sev {
			t.Errorf("%q: %s/%s, want %s/%s", l.raw, e.Kind, e.Severity, l.kind, l.sev)
		}
		if l.driver != "" && e.Driver != l.driver {
			t.Errorf("%q: driver %q, want %q", l.raw, e.Driver, l.driver)
		}
		if e.PCI != l.pci || e.IBDev != l.ibdev || e.Netdev != l.netdev {
			t.Errorf("%q: pci %q ibdev %q netdev %q, want %q %q %q", l.raw, e.PCI, e.IBDev, e.Netdev, l.pci, l.ibdev, l.netdev)
		}
		for k, v := range l.fields {
			if e.Fields[k] != v {
				t.Errorf("%q: field %s = %q, want %q", l.raw, k, e.Fields[k], v)
			}
		}
	}
}

// TestFillDeviceThirdName: the name after "<driver> <parent>" is an RDMA
// device when its form says so or its driver only prints for RDMA
// devices, and a netdev otherwise ("ib…" names are ambiguous: systemd
// gives IPoIB netdevs the same ones).
func TestFillDeviceThirdName(t *testing.T) {
	for _, c := range []struct{ msg, ibdev, netdev string }{
		{"mlx5_core 0000:3b:00.0 rocep59s0f0: x", "rocep59s0f0", ""},
		{"mlx5_core 0000:3b:00.0 mlx5_2: x", "mlx5_2", ""},
		{"mlx5_core 0000:3b:00.0 roceP2p1s0f0: x", "roceP2p1s0f0", ""},
		{"mlx5_core 0000:3b:00.0 rocex0002c9a0b1c2: x", "rocex0002c9a0b1c2", ""},
		{"bnxt_en 0000:12:00.0 bnxt_re0: x", "bnxt_re0", ""},
		{"ice 0000:3b:00.0 irdma1: x", "irdma1", ""},
		{"mlx4_core 0000:c3:00.0 ibp195s0: renamed from ib0", "", "ibp195s0"},
		{"mlx5_core 0000:3b:00.0 enp59s0f0np0: x", "", "enp59s0f0np0"},
		{"mlx5_core 0000:3b:00.0 (unnamed net_device) (uninitialized): x", "", ""},
		// by construction: a parent bound to an RDMA-only driver
		{"mlx5_ib.rdma mlx5_core.rdma.0 ibp59s0f0: x", "ibp59s0f0", ""},
		{"infiniband ibp59s0f0: x", "ibp59s0f0", ""},
	} {
		var e Event
		fillDevice(&e, c.msg)
		if e.IBDev != c.ibdev || e.Netdev != c.netdev {
			t.Errorf("%q: ibdev %q netdev %q, want %q %q", c.msg, e.IBDev, e.Netdev, c.ibdev, c.netdev)
		}
	}
	for _, n := range []string{"eth0", "ens1f0np0", "ib0", "mlx5", "roce", "rxe", "bnxt_re"} {
		if isRDMAName(n) {
			t.Errorf("%q taken for an RDMA device name", n)
		}
	}
}
