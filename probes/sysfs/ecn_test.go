package sysfs

import (
	"errors"
	"reflect"
	"syscall"
	"testing"
	"testing/fstest"

	"github.com/rdmatop/rdmatop/probes"
)

func TestReadECN(t *testing.T) {
	f := fixture("mlx5-roce-cx6dx-t0")
	e, err := ReadECN(f, "eth0")
	if err != nil {
		t.Fatal(err)
	}
	np, ok1 := e.NP()
	rp, ok2 := e.RP()
	if !ok1 || !ok2 || len(e.Points) != 2 || len(e.Errors) != 0 {
		t.Fatalf("points %v errors %v", e.Points, e.Errors)
	}
	onlyPrio3 := map[int]bool{0: false, 1: false, 2: false, 3: true, 4: false, 5: false, 6: false, 7: false}
	if !reflect.DeepEqual(np.Enabled, onlyPrio3) || !reflect.DeepEqual(rp.Enabled, onlyPrio3) {
		t.Errorf("enabled np %v rp %v", np.Enabled, rp.Enabled)
	}
	if !reflect.DeepEqual(np.Params, map[string]uint64{"cnp_802p_prio": 6, "cnp_dscp": 48, "min_time_between_cnps": 4}) {
		t.Errorf("np params %v", np.Params)
	}
	if len(rp.Params) != 16 || rp.Params["rpg_time_reset"] != 300 || rp.Params["rpg_byte_reset"] != 32767 || rp.Params["dce_tcp_g"] != 1019 || rp.Params["rpg_max_rate"] != 0 {
		t.Errorf("rp params %v", rp.Params)
	}
	e1, err := ReadECN(f, "eth1")
	if np1, _ := e1.NP(); err != nil || np1.Enabled[3] {
		t.Errorf("eth1 ECN should be off on prio 3: %v %v", np1.Enabled, err)
	}
	// Upstream kernels (and IPoIB) have no ecn/.
	if _, err := ReadECN(fixture("mlx5-ib-cx6"), "ib0"); !errors.Is(err, probes.ErrNotSupported) {
		t.Errorf("no ecn/: %v", err)
	}
	// A broken knob is noted; the rest is read.
	m := mapCopy(t, "mlx5-roce-cx6dx-t0")
	ecn := "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/net/eth0/ecn/"
	m[ecn+"roce_np/enable/5"].Data = []byte("yes\n")
	ff := &faultFS{MapFS: m, readErr: map[string]error{"sys/class/net/eth0/ecn/roce_rp/rpg_gd": syscall.EACCES}}
	e, err = ReadECN(ff, "eth0")
	np, _ = e.NP()
	rp, _ = e.RP()
	if err != nil || len(e.Errors) != 2 || len(np.Enabled) != 7 || len(rp.Params) != 15 {
		t.Errorf("errors %v np %v rp %d", e.Errors, np.Enabled, len(rp.Params))
	}
}

func TestReadCCParams(t *testing.T) {
	dir := "sys/kernel/debug/mlx5/0000:3b:00.0/cc_params/"
	m := fstest.MapFS{
		dir + "rp_time_reset":         {Data: []byte("300\n")},
		dir + "np_cnp_dscp":           {Data: []byte("48\n")},
		dir + "np_cnp_prio_mode":      {Data: []byte("1\n")},
		dir + "rp_clamp_tgt_rate_ati": {Data: []byte("1\n")},
	}
	c, err := ReadCCParams(m, "0000:3b:00.0")
	want := map[string]uint64{"rp_time_reset": 300, "np_cnp_dscp": 48, "np_cnp_prio_mode": 1, "rp_clamp_tgt_rate_ati": 1}
	if err != nil || !reflect.DeepEqual(c.Params, want) {
		t.Errorf("params %v %v", c.Params, err)
	}
	// Not root: debugfs is 0700.
	f := &faultFS{MapFS: m, dirErr: map[string]error{dir[:len(dir)-1]: syscall.EACCES}}
	var pe *probes.PermissionError
	if _, err := ReadCCParams(f, "0000:3b:00.0"); !errors.As(err, &pe) || probes.StatusOf("cc_params", err).State != probes.StatePermissionDenied {
		t.Errorf("EACCES: %v", err)
	}
	// Listed, but every file 0600.
	f = &faultFS{MapFS: m, readErr: map[string]error{}}
	for k := range m {
		f.readErr[k] = syscall.EACCES
	}
	if _, err := ReadCCParams(f, "0000:3b:00.0"); !errors.As(err, &pe) {
		t.Errorf("all files EACCES: %v", err)
	}
	// One unreadable file: noted, the rest read.
	f.readErr = map[string]error{dir + "np_cnp_dscp": syscall.EIO}
	if c, err := ReadCCParams(f, "0000:3b:00.0"); err != nil || len(c.Params) != 3 || len(c.Errors) != 1 {
		t.Errorf("one EIO: %v %v", c, err)
	}
	if _, err := ReadCCParams(fstest.MapFS{}, "0000:3b:00.0"); !errors.Is(err, probes.ErrNotSupported) {
		t.Errorf("no debugfs: %v", err)
	}
}
