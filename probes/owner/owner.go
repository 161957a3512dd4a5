// Package owner tells what a process belongs to from its cgroup: the
// container runtime and the container's id, and the Kubernetes pod (its
// UID from the cgroup, its namespace and name from the node's kubelet log
// directories, Pods).
//
// It reads names only: a cgroup path is what /proc/<pid>/cgroup says, and
// the layouts recognised are those container runtimes and the kubelet
// create (systemd and cgroupfs drivers, cgroup v1 and v2). A path that
// names no container says nothing, rather than a guess: a process in
// /system.slice/foo.service has no container, and a runtime this package
// does not know leaves Runtime empty even where the id is plain.
package owner

import (
	"regexp"
	"strings"

	"github.com/prometheus/procfs"
)

// Owner is what a process's cgroup says of it. Empty fields are unknown.
type Owner struct {
	Cgroup string `json:"cgroup,omitempty"` // the path the owner was read from
	// Runtime is containerd, cri-o, docker or podman; empty when the
	// layout does not say (the kubelet's cgroupfs driver names only the
	// container's id, whichever runtime made it).
	Runtime     string `json:"runtime,omitempty"`
	ContainerID string `json:"container_id,omitempty"` // 64 hex digits
	PodUID      string `json:"pod_uid,omitempty"`
	// QoS is the pod's Kubernetes QoS class: guaranteed, burstable or
	// besteffort (a guaranteed pod's cgroup sits directly under kubepods).
	QoS string `json:"qos,omitempty"`
}

// Named reports whether o names a container or a pod.
func (o Owner) Named() bool { return o.ContainerID != "" || o.PodUID != "" }

var (
	// A container's scope under the systemd driver: runtime prefix, id.
	// The conmon scopes (crio-conmon-, libpod-conmon-) hold the
	// runtime's monitor process, not the container: not matched.
	scopeRE = regexp.MustCompile(`^(cri-containerd|crio|docker|libpod)-([0-9a-f]{64})(?:\.scope)?$`)
	// A bare id: the cgroupfs driver's container directory.
	idRE = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// The pod slice of the systemd driver (the UID's dashes written as
	// underscores, as systemd unit names escape them; a kubelet whose
	// cgroup root is another slice prefixes its name, kind's
	// "kubelet-kubepods-…") and the cgroupfs driver's pod directory.
	podSliceRE = regexp.MustCompile(`^(?:[a-z0-9_-]+-)?kubepods(?:-(besteffort|burstable))?-pod([0-9a-f_]{32,36})\.slice$`)
	podDirRE   = regexp.MustCompile(`^pod([0-9a-f-]{32,36})$`)
	// A pod's UID: a UUID, or for a static pod (from a manifest on the
	// node) the kubelet's 32-hex-digit hash of it.
	uidRE = regexp.MustCompile(`^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$`)
)

var runtimes = map[string]string{
	"cri-containerd": "containerd",
	"crio":           "cri-o",
	"docker":         "docker",
	"libpod":         "podman",
}

// Parse reads one cgroup path. The innermost container wins (a container
// started inside another, docker in docker, is the owner).
func Parse(path string) Owner {
	o := Owner{Cgroup: path}
	parent := ""
	for seg := range strings.SplitSeq(path, "/") {
		if slice, prefix, id, ok := literalSystemdPath(seg); ok {
			// The systemd driver's "slice:prefix:id", created as one
			// directory by a runtime in cgroupfs mode (kubelet and
			// runtime disagreeing on the cgroup driver).
			if m := podSliceRE.FindStringSubmatch(slice); m != nil {
				o.setPod(strings.ReplaceAll(m[2], "_", "-"), m[1])
			}
			o.Runtime, o.ContainerID = runtimes[prefix], id
			parent = seg
			continue
		}
		switch {
		case seg == "":
			continue
		case scopeRE.MatchString(seg):
			m := scopeRE.FindStringSubmatch(seg)
			o.Runtime, o.ContainerID = runtimes[m[1]], m[2]
		case idRE.MatchString(seg):
			o.ContainerID, o.Runtime = seg, ""
			if parent == "docker" {
				o.Runtime = "docker"
			}
		case podSliceRE.MatchString(seg):
			m := podSliceRE.FindStringSubmatch(seg)
			o.setPod(strings.ReplaceAll(m[2], "_", "-"), m[1])
		case podDirRE.MatchString(seg):
			qos := ""
			if parent == "besteffort" || parent == "burstable" {
				qos = parent
			}
			o.setPod(podDirRE.FindStringSubmatch(seg)[1], qos)
		}
		parent = seg
	}
	return o
}

// literalSystemdPath splits a directory named "SLICE:PREFIX:ID" with a
// runtime's scope prefix and a container id.
func literalSystemdPath(seg string) (slice, prefix, id string, ok bool) {
	slice, rest, ok1 := strings.Cut(seg, ":")
	prefix, id, ok2 := strings.Cut(rest, ":")
	if !ok1 || !ok2 || !idRE.MatchString(id) {
		return "", "", "", false
	}
	if _, known := runtimes[prefix]; !known {
		return "", "", "", false
	}
	return slice, prefix, id, true
}

func (o *Owner) setPod(uid, qos string) {
	if !uidRE.MatchString(uid) {
		return
	}
	o.PodUID = uid
	o.QoS = qos
	if qos == "" {
		o.QoS = "guaranteed"
	}
}

// FromCgroups is Of for a process's cgroups as procfs reads them from
// /proc/<pid>/cgroup: the unified hierarchy's path (v2, or a hybrid
// host's "0::") first, then each v1 hierarchy's in the file's order.
func FromCgroups(cgs []procfs.Cgroup) Owner {
	paths := make([]string, 0, len(cgs))
	for _, c := range cgs {
		if c.HierarchyID == 0 {
			paths = append([]string{c.Path}, paths...)
		} else {
			paths = append(paths, c.Path)
		}
	}
	return Of(paths...)
}

// Of picks the owner from a process's cgroup paths, the unified (v2)
// hierarchy's first: the first path that names a container or pod, else
// the first that is not the root, else an empty Owner. A cgroup v1 or
// hybrid host lists one path per hierarchy, and they need not agree (a
// runtime may place a process in its memory cgroup only).
func Of(paths ...string) Owner {
	var first string
	for _, p := range paths {
		if o := Parse(p); o.Named() {
			return o
		}
		if first == "" && p != "/" && p != "" {
			first = p
		}
	}
	if first == "" {
		return Owner{}
	}
	return Owner{Cgroup: first}
}
