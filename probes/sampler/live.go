package sampler

import (
	"os"
	"path/filepath"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/dcb"
	"github.com/rdmatop/rdmatop/probes/ethtool"
	"github.com/rdmatop/rdmatop/probes/gputcp"
	"github.com/rdmatop/rdmatop/probes/kmsg"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
	"github.com/rdmatop/rdmatop/probes/rtnl"
)

// LiveSources opens the host's sources. root is where the file probes
// read (/sys and /proc below it): "/" on the host, /host in a container, a
// fixture tree in tests. The netlink, ioctl and kmsg sources are the
// running kernel's whatever root is. Sources that cannot be opened are
// left nil and their reason is in the returned statuses. close releases
// what was opened.
func LiveSources(root string) (src Sources, close func(), opened []probes.Status) {
	if root == "" {
		root = "/"
	}
	src = Sources{FS: os.DirFS(root), Label: "live"}
	if root != "/" {
		src.Label = "root " + root
	}
	if _, err := os.Stat(filepath.Join(root, "proc", "meminfo")); err == nil {
		src.ProcRoot = root
		src.GPU = gputcp.New(root, 0)
	}
	var closers []func()
	if k, err := ethtool.Open(); err == nil {
		src.Ethtool = k
		closers = append(closers, func() { k.Close() })
	} else {
		opened = append(opened, probes.StatusOf("ethtool", err))
	}
	if k, err := rtnl.Open(); err == nil {
		src.Links = k
		closers = append(closers, func() { k.Close() })
	} else {
		opened = append(opened, probes.StatusOf("rtnetlink", err))
	}
	if c, err := rdmanl.Dial(2 * time.Second); err == nil {
		src.RDMA = c
		closers = append(closers, func() { c.Close() })
	} else {
		opened = append(opened, probes.StatusOf("rdma netlink", err))
	}
	if w, err := rtnl.WatchAddrs(time.Now); err == nil {
		src.Addrs = w
		closers = append(closers, func() { w.Close() })
	} else {
		opened = append(opened, probes.StatusOf("rtnetlink addresses", err))
	}
	if n, err := dcb.Open(); err == nil {
		src.DCB = n
		closers = append(closers, func() { n.Close() })
	} else {
		opened = append(opened, probes.StatusOf("dcb netlink", err))
	}
	if r, err := kmsg.Open(kmsg.Options{}); err == nil {
		src.Kmsg = r
		closers = append(closers, func() { r.Close() })
	} else {
		opened = append(opened, probes.StatusOf("kmsg", err))
	}
	src.Host = hostInfo(root)
	src.Opened = opened
	return src, func() {
		for _, c := range closers {
			c()
		}
	}, opened
}

func hostInfo(root string) probes.HostInfo {
	var h probes.HostInfo
	if b, err := os.ReadFile(filepath.Join(root, "proc", "sys", "kernel", "hostname")); err == nil {
		h.Hostname = trim(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(root, "proc", "sys", "kernel", "osrelease")); err == nil {
		h.Kernel = trim(string(b))
	}
	return h
}

func trim(s string) string {
	for len(s) > 0 && (s[len(s)-1] == '\n' || s[len(s)-1] == ' ') {
		s = s[:len(s)-1]
	}
	return s
}

// SetSources replaces the sources for the next sample (a replay moves to
// the next recorded tick); what was learned from earlier samples stays.
func (s *Sampler) SetSources(src Sources) { s.src = src }
