package rdmanl

import (
	"io/fs"
	"strconv"
	"strings"
)

// CommFromProc reads PID/comm below a proc file system root (the caller
// passes os.DirFS("/proc"), a fixture, or a recorded tree). The PIDs in
// QP dumps are in the PID namespace of the caller, so procfs must be the
// one of that namespace.
func CommFromProc(proc fs.FS) CommFunc {
	return func(pid uint32) (string, bool) {
		b, err := fs.ReadFile(proc, strconv.FormatUint(uint64(pid), 10)+"/comm")
		if err != nil {
			return "", false
		}
		return strings.TrimRight(string(b), "\n"), true
	}
}
