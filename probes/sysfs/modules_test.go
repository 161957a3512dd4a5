package sysfs

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// Loaded is what sys/module lists; without sys/module nothing is known.
func TestReadModules(t *testing.T) {
	fsys := fstest.MapFS{"sys/module/nvidia/refcnt": {Data: []byte("12\n")}, "sys/module/ib_core/refcnt": {Data: []byte("9\n")}}
	loaded, ok, err := ReadModules(fsys, append([]string{"nvidia"}, PeerMemModules...)...)
	if err != nil || !ok || !slices.Equal(loaded, []string{"nvidia"}) {
		t.Errorf("ReadModules = %v, %v, %v; want [nvidia], known", loaded, ok, err)
	}
	if loaded, ok, err := ReadModules(fstest.MapFS{"sys/class/x": {}}, "nvidia"); ok || err != nil || loaded != nil {
		t.Errorf("without sys/module: %v, %v, %v; want unknown", loaded, ok, err)
	}
}

// On this host, the modules /proc/modules lists are loaded by
// ReadModules too, and a name it does not list is not.
func TestReadModulesHost(t *testing.T) {
	b, err := os.ReadFile("/proc/modules")
	if err != nil || len(b) == 0 {
		t.Skipf("no /proc/modules here (%v): a kernel without loadable modules", err)
	}
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[:3] {
		names = append(names, strings.Fields(l)[0])
	}
	const absent = "rdmatop_no_such_module"
	loaded, ok, err := ReadModules(os.DirFS("/"), append(names, absent)...)
	if err != nil || !ok || !slices.Equal(loaded, names) {
		t.Errorf("ReadModules(%v) = %v, %v, %v; /proc/modules lists %v", append(names, absent), loaded, ok, err, names)
	}
}
