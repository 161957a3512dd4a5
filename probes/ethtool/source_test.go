package ethtool

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
)

func TestReadFake(t *testing.T) {
	perm := &probes.PermissionError{What: "CAP_NET_ADMIN (SIOCETHTOOL)", Err: os.ErrPermission}
	f := &Fake{Ifaces: map[string]FakeIface{
		"eth0":   {Driver: "mlx5_core", Stats: loadFixture(t, "mlx5_cx6dx_eth0_roce_pfc3_t0.txt")},
		"lo":     {},
		"locked": {Err: perm},
	}}
	raw, err := Read(f, "eth0")
	if err != nil {
		t.Fatal(err)
	}
	if raw.Iface != "eth0" || raw.Driver != "mlx5_core" || len(raw.Stats) != 195 {
		t.Errorf("Read = %s %s %d counters", raw.Iface, raw.Driver, len(raw.Stats))
	}
	raw.Stats["rx_packets"] = 0 // a copy: the fake keeps its answer
	if f.Ifaces["eth0"].Stats["rx_packets"] != 11873311 {
		t.Error("Read returned the fake's own map")
	}

	for _, tc := range []struct {
		iface string
		state probes.State
		is    []error
	}{
		{"lo", probes.StateNotSupported, []error{probes.ErrNotSupported}},
		{"nosuch0", probes.StateFailed, []error{ErrNoDevice, os.ErrNotExist}},
		{"locked", probes.StatePermissionDenied, []error{os.ErrPermission}},
	} {
		_, err := Read(f, tc.iface)
		for _, target := range tc.is {
			if !errors.Is(err, target) {
				t.Errorf("Read(%s) = %v, want it to match %v", tc.iface, err, target)
			}
		}
		if st := probes.StatusOf("ethtool "+tc.iface, err); st.State != tc.state {
			t.Errorf("StatusOf(Read(%s)) = %+v, want %s", tc.iface, st, tc.state)
		}
	}
	_, err = Read(f, "nosuch0")
	if !strings.Contains(err.Error(), `"nosuch0"`) {
		t.Errorf("not-found error %q does not name the interface", err)
	}
}

// A driver name that fails for another reason than a missing device does
// not lose the statistics.
func TestReadDriverNameFails(t *testing.T) {
	s := &stubOS{stats: map[string]uint64{"a": 1}, drvErr: errors.New("boom")}
	raw, err := Read(s, "x")
	if err != nil || raw.Driver != "" || raw.Stats["a"] != 1 {
		t.Errorf("Read = %+v, %v", raw, err)
	}
	s.drvErr = ErrNoDevice // vanished between the two calls
	if _, err := Read(s, "x"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("vanished: %v", err)
	}
}

type stubOS struct {
	stats  map[string]uint64
	drvErr error
}

func (s *stubOS) Stats(string) (map[string]uint64, error) { return s.stats, nil }
func (s *stubOS) DriverName(string) (string, error)       { return "d", s.drvErr }

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"eth0", "enp65s0f0np0", "a", "123456789012345", "bond0.100", "eth-x_y"} {
		if err := checkName(ok); err != nil {
			t.Errorf("checkName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "1234567890123456", "a/b", "a b", "eth0:1", ".", "..", "a\x00b", "a\tb"} {
		if err := checkName(bad); err == nil {
			t.Errorf("checkName(%q) = nil, want an error", bad)
		}
	}
}
