package procinfo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/rdmatop/rdmatop/probes/owner"
)

// ErrProcessGone is matched (errors.Is) by the error for a PID that no
// longer exists — the usual fate of a QP owner between two samples; it is
// not a failure of the source.
var ErrProcessGone = errors.New("process has exited")

// ProcessGoneError names the PID that vanished.
type ProcessGoneError struct {
	PID int
	Err error
}

func (e *ProcessGoneError) Error() string { return fmt.Sprintf("pid %d: %v", e.PID, ErrProcessGone) }
func (e *ProcessGoneError) Unwrap() error { return e.Err }
func (e *ProcessGoneError) Is(target error) bool {
	return target == ErrProcessGone
}

// Limit is a resource limit in bytes, or unlimited.
type Limit struct {
	Bytes     uint64 `json:"bytes,omitempty"`
	Unlimited bool   `json:"unlimited,omitempty"`
}

func (l Limit) String() string {
	if l.Unlimited {
		return "unlimited"
	}
	return strconv.FormatUint(l.Bytes, 10)
}

// limitOf turns procfs's value (RLIM_INFINITY for "unlimited") into a Limit.
func limitOf(v uint64) Limit {
	if v == math.MaxUint64 {
		return Limit{Unlimited: true}
	}
	return Limit{Bytes: v}
}

// Process is what rdmatop needs to know about a QP owner.
type Process struct {
	PID  int    `json:"pid"`
	Comm string `json:"comm"`
	// MemlockSoft/Hard are RLIMIT_MEMLOCK ("Max locked memory"): how much
	// memory the process may pin, which bounds its memory registrations.
	MemlockSoft Limit `json:"memlock_soft"`
	MemlockHard Limit `json:"memlock_hard"`
	// VmLck is mlock()ed memory, VmPin pinned memory (RDMA registrations
	// on current kernels); absent for kernel threads and zombies.
	VmLckBytes *uint64 `json:"vmlck_bytes,omitempty"`
	VmPinBytes *uint64 `json:"vmpin_bytes,omitempty"`
	// Owner is what its cgroup says: container and pod. Empty when the
	// cgroup names none or could not be read (CgroupErr says why).
	Owner     owner.Owner `json:"owner,omitzero"`
	CgroupErr string      `json:"cgroup_error,omitempty"`
}

// MemlockSnapshot returns the soft memlock limit as the snapshot model's
// QP fields carry it.
func (p Process) MemlockSnapshot() (soft *uint64, unlimited bool) {
	if p.MemlockSoft.Unlimited {
		return nil, true
	}
	v := p.MemlockSoft.Bytes
	return &v, false
}

// gone reports whether err means the process no longer exists.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

func (f *FS) procErr(pid int, what string, err error) error {
	if gone(err) {
		return &ProcessGoneError{PID: pid, Err: err}
	}
	return readError(f.path(strconv.Itoa(pid), what), err)
}

// Process reads one process. A PID that does not exist (or vanishes
// while being read) gives a *ProcessGoneError.
func (f *FS) Process(pid int) (Process, error) {
	p := Process{PID: pid}
	pr, err := f.proc.Proc(pid)
	if err != nil {
		return p, f.procErr(pid, "", err)
	}
	if p.Comm, err = pr.Comm(); err != nil {
		return p, f.procErr(pid, "comm", err)
	}
	lim, err := pr.Limits() // procfs parses the soft limits only
	if err != nil {
		return p, f.procErr(pid, "limits", err)
	}
	p.MemlockSoft = limitOf(lim.LockedMemory)
	raw, err := os.ReadFile(f.path(strconv.Itoa(pid), "limits"))
	if err != nil {
		return p, f.procErr(pid, "limits", err)
	}
	if p.MemlockHard, err = hardMemlock(raw); err != nil {
		return p, fmt.Errorf("%s: %w", f.path(strconv.Itoa(pid), "limits"), err)
	}
	st, err := pr.NewStatus()
	if err != nil {
		return p, f.procErr(pid, "status", err)
	}
	// procfs leaves absent keys at 0; see which are present.
	status, err := os.ReadFile(f.path(strconv.Itoa(pid), "status"))
	if err != nil {
		return p, f.procErr(pid, "status", err)
	}
	if hasKey(status, "VmLck") {
		v := st.VmLck
		p.VmLckBytes = &v
	}
	if hasKey(status, "VmPin") {
		v := st.VmPin
		p.VmPinBytes = &v
	}
	// The owner is a label: a cgroup file that cannot be read (or a
	// recording made before owners were recorded) leaves it unknown, and
	// what was read above stands.
	if cgs, err := pr.Cgroups(); err != nil {
		p.CgroupErr = readError(f.path(strconv.Itoa(pid), "cgroup"), err).Error()
	} else {
		p.Owner = owner.FromCgroups(cgs)
	}
	return p, nil
}

// Processes reads several processes. PIDs that are gone are listed in
// gone, not treated as errors; other failures are joined in err.
func (f *FS) Processes(pids []int) (procs []Process, goneIDs []int, err error) {
	var errs []error
	for _, pid := range pids {
		p, e := f.Process(pid)
		switch {
		case e == nil:
			procs = append(procs, p)
		case errors.Is(e, ErrProcessGone):
			goneIDs = append(goneIDs, pid)
		default:
			errs = append(errs, e)
		}
	}
	return procs, goneIDs, errors.Join(errs...)
}

// hardMemlock reads the hard limit of "Max locked memory" from a
// /proc/<pid>/limits file (procfs.ProcLimits keeps soft limits only).
func hardMemlock(limits []byte) (Limit, error) {
	for _, line := range strings.Split(string(limits), "\n") {
		rest, ok := strings.CutPrefix(line, "Max locked memory")
		if !ok {
			continue
		}
		f := strings.Fields(rest) // soft, hard, units
		if len(f) < 2 {
			return Limit{}, fmt.Errorf("malformed line %q", line)
		}
		if f[1] == "unlimited" {
			return Limit{Unlimited: true}, nil
		}
		v, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return Limit{}, fmt.Errorf("line %q: hard limit: %v", line, err)
		}
		return limitOf(v), nil
	}
	return Limit{}, errors.New(`no "Max locked memory" line`)
}

// hasKey reports whether a /proc status file has a "key:" line.
func hasKey(status []byte, key string) bool {
	k := []byte(key + ":")
	return bytes.HasPrefix(status, k) || bytes.Contains(status, append([]byte{'\n'}, k...))
}
