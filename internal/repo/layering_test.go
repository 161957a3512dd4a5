package repo

import (
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/rdmatop/rdmatop/"

// layers ranks every package of the module (by path prefix, the longest
// match wins): a package imports only packages of its own rank or below.
// From the bottom: shared helpers and the wire format; the probes' model;
// the sources (one per OS interface) and the capture; what combines
// sources (the sampler, the QoS view); what reads a whole host (saved
// outputs) and the rules; the pipeline; its consumers; the commands.
// The design's direction: cmd → ui, monitor → rules → probes, capture.
var layers = map[string]int{
	"internal":             0,
	"deploy":               0, // the manifests, embedded
	"capture/roce":         0,
	"probes/internal":      0,
	"probes/alias":         0,
	"probes/fsrec":         0,
	"probes/owner":         0,
	"probes":               1,
	"probes/":              2,
	"capture":              2,
	"capture/scenario":     2,
	"internal/bundletest":  2,
	"probes/sampler":       3,
	"qos":                  3,
	"rules":                4,
	"saved":                4,
	"monitor":              5,
	"ui":                   6,
	"flight":               6,
	"exporter":             6,
	"cmd":                  7,
	"demo":                 7,
	"tools":                7,
	"capture/scenario/cmd": 7,
}

// rank is the layer of module package p ("probes/dcb"), or -1.
func rank(p string) int {
	best, r := -1, -1
	for prefix, l := range layers {
		match := p == prefix || strings.HasSuffix(prefix, "/") && strings.HasPrefix(p, prefix) ||
			strings.HasPrefix(p, prefix+"/")
		if match && len(prefix) > best {
			best, r = len(prefix), l
		}
	}
	return r
}

// osAdapters are the packages that talk to the OS; the screen reads
// Frames and never imports one.
var osAdapters = []string{"probes/sysfs", "probes/ethtool", "probes/rdmanl", "probes/dcb", "probes/kmsg",
	"probes/rtnl", "probes/procinfo", "probes/owner", "probes/sampler", "probes/internal/nlsock", "capture/live"}

// TestLayering fails when a package imports one of a higher layer, when
// the screen imports an OS adapter, or when a package below the screen
// imports Charm's.
func TestLayering(t *testing.T) {
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git work tree (%v)", err)
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = strings.TrimSpace(string(root))
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	n := 0
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		p := strings.TrimPrefix(f[0], module)
		r := rank(p)
		if r < 0 {
			t.Errorf("%s: in no layer (add it to layers)", p)
			continue
		}
		n++
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, "charm.land/") || strings.HasPrefix(imp, "github.com/charmbracelet/") {
				if r < rank("ui") {
					t.Errorf("%s (layer %d) imports %s: only the screen and above use Charm", p, r, imp)
				}
				continue
			}
			if !strings.HasPrefix(imp, module) {
				continue
			}
			q := strings.TrimPrefix(imp, module)
			if rq := rank(q); rq > r {
				t.Errorf("%s (layer %d) imports %s (layer %s)", p, r, q, strconv.Itoa(rq))
			}
			if p == "ui" || strings.HasPrefix(p, "ui/") {
				if slices.Contains(osAdapters, q) {
					t.Errorf("%s imports the OS adapter %s", p, q)
				}
			}
		}
	}
	if n < 30 {
		t.Errorf("go list named %d packages: not this module?", n)
	}
}
