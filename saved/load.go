package saved

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/sampler"
)

// Result is what Load made of its inputs.
type Result struct {
	// Inputs lists every file looked at, in order, with what it was.
	Inputs []Input `json:"inputs"`
	// Snapshots is the host model, oldest first: one per reading of the
	// most-read counters (see the package doc).
	Snapshots []*probes.Snapshot `json:"-"`
	// Summary says in a line what the model holds.
	Summary string `json:"summary"`
}

// ErrNothingRead is returned when no input held anything rdmatop reads.
var ErrNothingRead = errors.New("nothing rdmatop reads")

// timeZero: kernel log lines carry times since boot, and no input says
// when the host booted.
var timeZero time.Time

// Looked lists what Load recognises, for the message when it found none.
const Looked = "ethtool -S, sysfs counter listings (grep . FILES, find | cat, head), rdma [-j] statistic show, " +
	"rdma [-j] res show qp, rdma [-j] link show, ip [-j] -s link, mlnx_qos -i, dmesg / journalctl -k, " +
	"ibv_devinfo -v, mlxconfig query, NCCL logs (NCCL_DEBUG output), sosreports"

// loader carries one Load.
type loader struct {
	h       *host
	unnamed int // netdevs of dumps that name none
	// trees are sysfs files copied into a sosreport or directory, by the
	// root they were found under, read once all are in.
	trees     map[string]tree
	treeOrder []string
	kevents   []kmsg.Event // classified kernel log lines, mapped to devices at the end
}

// Load reads the files, directories and archives at paths. A path that
// does not exist or cannot be read is an error; a file in it that is not
// recognised is reported in Result.Inputs, never fatal. When nothing at
// all was read, the error wraps ErrNothingRead and the Result still lists
// the inputs.
func Load(paths []string) (*Result, error) {
	if len(paths) == 0 {
		return nil, errNoInput
	}
	var w walker
	for _, p := range paths {
		if err := w.walk(p); err != nil {
			return nil, err
		}
	}
	l := &loader{h: newHost()}
	res := &Result{}
	for _, root := range w.roots {
		res.Inputs = append(res.Inputs, l.sysfsRoot(root))
	}
	sosOther := map[string]int{}
	sosRead := map[string]int{}
	for _, f := range w.files {
		in := l.recognise(f)
		if in.Kind == KindSysfsFile {
			continue // read with its tree below
		}
		if f.sos {
			root := sosRoot(f.path, f.name)
			if !in.Usable() {
				sosOther[root]++
				continue
			}
			sosRead[root]++
		}
		res.Inputs = append(res.Inputs, in)
	}
	res.Inputs = append(res.Inputs, l.finishTrees()...)
	res.Inputs = append(res.Inputs, w.inputs...)
	for root, n := range sosRead {
		in := Input{Path: root, Kind: KindSosreport}
		in.read("%s with RoCE data (listed above)", plural(n, "file"))
		if o := sosOther[root]; o > 0 {
			in.ignore("%d other files: not outputs rdmatop reads", o)
		}
		res.Inputs = append(res.Inputs, in)
	}
	for root, n := range sosOther {
		if sosRead[root] == 0 {
			in := Input{Path: root, Kind: KindSosreport}
			in.ignore("%d files, none with RoCE data (sos's networking plugin writes ethtool -S, the infiniband plugin ibv_devinfo -v)", n)
			res.Inputs = append(res.Inputs, in)
		}
	}
	l.finishEvents()
	res.Summary = l.h.describe()
	if l.h.empty() {
		return res, fmt.Errorf("%w in %s: looked for %s", ErrNothingRead, strings.Join(paths, ", "), Looked)
	}
	res.Snapshots = l.h.snapshots("saved "+strings.Join(paths, " "), sampler.PortViews)
	return res, nil
}

// sosRoot is the sosreport a file belongs to: the archive, or the path up
// to the directory holding sos_commands.
func sosRoot(p, name string) string {
	if i := strings.Index(p, archivePrefix); i >= 0 {
		return p[:i]
	}
	rel := strings.TrimSuffix(p, name)
	if rel == "" {
		return path.Dir(p)
	}
	return strings.TrimSuffix(rel, "/")
}
