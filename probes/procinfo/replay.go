package procinfo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
)

// Paths lists the files (relative to the root, fs.FS style) that Memory,
// Fragmentation and Process(pid) read for pids. A recorder reads these
// through probes/fsrec to store them in a bundle.
func Paths(pids []int) []string {
	out := []string{"proc/meminfo", "proc/buddyinfo"}
	for _, pid := range pids {
		d := "proc/" + strconv.Itoa(pid)
		out = append(out, d+"/comm", d+"/limits", d+"/status", d+"/cgroup")
	}
	return out
}

// Materialize copies the files Paths(pids) names from src (a recorded
// fsrec.Tree, or any fs.FS) into dst, so that New(dst, ...) reads them with
// the same parsers as the live host. Files src does not have are left out
// (a PID recorded as gone stays gone). It writes only below dst.
func Materialize(src fs.FS, dst string, pids []int) error {
	for _, p := range Paths(pids) {
		b, err := fs.ReadFile(src, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("materialize %s: %w", p, err)
		}
		out := filepath.Join(dst, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			return err
		}
	}
	// procfs needs the proc directory even when nothing was recorded.
	return os.MkdirAll(filepath.Join(dst, path.Clean("proc")), 0o755)
}
