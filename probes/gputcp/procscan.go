package gputcp

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// proc is a GPU process as its /proc entry shows it.
type proc struct {
	pid     int
	comm    string
	gpus    []string // GPU device files it holds, sorted
	sockets []uint32 // inodes of its sockets, every kind
	netns   string   // "net:[4026531840]"
}

// gpuFile tells a GPU device file by the path a descriptor links to:
// /dev/nvidiaN is NVIDIA GPU N (nvidiactl and nvidia-uvm are held by any
// CUDA process, with or without a GPU of its own), /dev/kfd the AMD
// compute driver every ROCm process opens.
func gpuFile(path string) bool {
	if path == "/dev/kfd" {
		return true
	}
	n, ok := strings.CutPrefix(path, "/dev/nvidia")
	if !ok || n == "" {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// readProc reads pid's descriptors under procDir (root/proc); ok is false
// when it holds no GPU file, or is gone, or cannot be read.
func readProc(procDir string, pid int) (p proc, ok bool) {
	dir := filepath.Join(procDir, strconv.Itoa(pid))
	f, err := os.Open(filepath.Join(dir, "fd"))
	if err != nil {
		return p, false
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	p.pid = pid
	for _, n := range names {
		l, err := os.Readlink(filepath.Join(dir, "fd", n))
		if err != nil {
			continue // closed since the listing
		}
		if s, ok := strings.CutPrefix(l, "socket:["); ok {
			if ino, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 32); err == nil {
				p.sockets = append(p.sockets, uint32(ino))
			}
		} else if gpuFile(l) && !slices.Contains(p.gpus, l) {
			p.gpus = append(p.gpus, l)
		}
	}
	if len(p.gpus) == 0 {
		return p, false
	}
	slices.Sort(p.gpus)
	if b, err := os.ReadFile(filepath.Join(dir, "comm")); err == nil {
		p.comm = strings.TrimSuffix(string(b), "\n")
	}
	p.netns, _ = os.Readlink(filepath.Join(dir, "ns", "net"))
	return p, true
}

// pids lists the processes under procDir.
func pids(procDir string) ([]int, error) {
	f, err := os.Open(procDir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out, nil
}
