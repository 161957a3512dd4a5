package owner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/prometheus/procfs"
)

const fixtures = "../../testdata/owner/"

// read reads a fixture as /proc/1/cgroup of a scratch root, through
// procfs as the sampler does.
func read(t *testing.T, name string) []procfs.Cgroup {
	t.Helper()
	b, err := os.ReadFile(fixtures + name)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "1", "cgroup"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := procfs.NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	p, err := fs.Proc(1)
	if err != nil {
		t.Fatal(err)
	}
	cgs, err := p.Cgroups()
	if err != nil {
		t.Fatal(err)
	}
	return cgs
}

// Every fixture of testdata/owner (real /proc/<pid>/cgroup text and
// cgroup paths from public reports, MANIFEST.md), with what it says read
// by eye from the file: runtime and id from the scope or directory name,
// pod UID and QoS class from the pod slice or directory.
func TestRealCgroupLayouts(t *testing.T) {
	const (
		guaranteed = "guaranteed"
		burstable  = "burstable"
		besteffort = "besteffort"
	)
	cases := map[string]Owner{
		// Docker alone: cgroupfs (/docker/ID) and systemd (docker-ID.scope).
		"docker-cgroupfs-v1-1.cgroup": {Runtime: "docker", ContainerID: "2403ccfe427f1dc7b6120dccb9ac58c2f8456950380d587a9f33ea7f00dd303d"},
		"docker-cgroupfs-v1-2.cgroup": {Runtime: "docker", ContainerID: "a2ffe0e97ac22657a2a023ad628e9df837c38a03b1ebc904d3f6d644eb1a1a81"},
		"docker-cgroupfs-v1-3.cgroup": {Runtime: "docker", ContainerID: "5dace3de0735f73d2b5048f12d41a71741a02e49668de921fdae62f7e65dc498"},
		"docker-systemd-v1-1.cgroup":  {Runtime: "docker", ContainerID: "10824577d0d1d1e21ad4a8c3c08803584b76cc01ae2c33ccf9b071a55da7e21a"},
		// Kubernetes, cgroupfs driver: the id alone names no runtime.
		"k8s-cgroupfs-v1-1.cgroup": {ContainerID: "34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376",
			PodUID: "74c13223-5a00-11e9-b385-42010a80018d", QoS: besteffort},
		"k8s-cgroupfs-v2-1.cgroup": {ContainerID: "a3804295d867b752119eab99a9e6364fdf7fe6a4be5af0b11f9915fa7b64ff95",
			PodUID: "dfd874dc-ab52-4793-af47-d06b78b68337", QoS: besteffort},
		"k8s-cgroupfs-v2-2.cgroup": {ContainerID: "a6fa3112ac317b1f2e8986a1fb4b783add5cf3ee6b6c9947dc513a6984da88fb",
			PodUID: "bd445127-8720-434d-b38c-d308e9ff9b59", QoS: burstable},
		// Kubernetes, systemd driver: containerd, CRI-O, docker.
		"k8s-containerd-systemd-v1-1.cgroup": {Runtime: "containerd", ContainerID: "aaefb9d8feed2d453b543f6d928cede7a4dbefa6a0ae7c9b990dd234c56e93b9",
			PodUID: "2fc932ce-fdcc-454b-97bd-aadfdeb4c340", QoS: burstable},
		"k8s-containerd-systemd-v2-1.cgroup": {Runtime: "containerd", ContainerID: "8564224395a4fbf7f2792baa22ee16dfc8f8e862e20342d3b2bcc211a3939af6",
			PodUID: "dc430cd3-34b7-4ea6-be26-ddfd88d7ddff", QoS: guaranteed},
		"k8s-containerd-systemd-v2-2.cgroup": {Runtime: "containerd", ContainerID: "a09bc17f5aa29b0dbdec9ede5f46cf1396d2405917ab02e6f1eb1019f388396e",
			PodUID: "1e597579-417e-482f-bf65-5fe170c3aebd", QoS: besteffort}, // kind: kubelet-kubepods-… slices
		"k8s-crio-systemd-v1-1.cgroup": {Runtime: "cri-o", ContainerID: "5eed917563583925ffdbd40a64efb2aaffe58638e57add8becaf460fe74f5b1c",
			PodUID: "a5c1f8d5-1919-434d-add7-4afaafdaef89", QoS: burstable},
		"k8s-crio-systemd-v2-1.cgroup": {Runtime: "cri-o", ContainerID: "805b902ed98fdc1409c76e9aa94964787a904c80f46fc3ee74283509108f5e73",
			PodUID: "35550f44-f691-427e-b57d-ab6127d2cb65", QoS: burstable},
		"k8s-docker-systemd-v1-1.cgroup": {Runtime: "docker", ContainerID: "ee82e2aba6a09214a9f0e766b6c0bcb3647cc922ee2e95d552314b117bfe7a5e",
			PodUID: "7f282c81-59bd-4373-a196-3a1f7e0a526a", QoS: guaranteed},
		// CRI-O's monitor sits in the pod's slice, outside the container.
		"k8s-crio-conmon-systemd-v1-1.cgroup": {PodUID: "207aaad1-659f-4db8-88e0-46e0cdcc3004", QoS: burstable},
		// The systemd driver's "slice:prefix:id" made literally under
		// containerd.service (kubelet and runtime disagree on the driver);
		// the first is a static pod, whose UID is a 32-digit hash.
		"k8s-containerd-mismatch-v1-1.cgroup": {Runtime: "containerd", ContainerID: "79fedb3bd23ca77c9d9ccb41909038316f713df22b54b7d942b71d3812e7c74e",
			PodUID: "36b6d6be73b1065af369b3985edafa09", QoS: burstable},
		"k8s-containerd-mismatch-v1-2.cgroup": {Runtime: "containerd", ContainerID: "0f99ad5f45163ed14ab8eaf92ed34bb4a631d007f8755a7d79be614bcb0df0ef",
			PodUID: "ff49d0be-16b7-4a49-bb9e-8ec1f1f4e27f", QoS: burstable},
		// Podman: root, rootless, a user's machine.slice; conmon is not
		// the container.
		"podman-root-v2-1.cgroup":        {Runtime: "podman", ContainerID: "a2bc7b153f034b17f358cde43a7f8c7475147e8a0d1b2573c26473244ec44ce4"},
		"podman-rootless-v2-1.cgroup":    {Runtime: "podman", ContainerID: "2504b790675718f38df14eb544badb0ec8df966dc81298329067fa5e0eb6d27b"},
		"podman-user0-v2-1.cgroup":       {Runtime: "podman", ContainerID: "cf21d19260ace8544fe8b769fc2638bf2c0873dfbfff0b6253f0569b26a1d5eb"},
		"podman-conmon-root-v2-1.cgroup": {},
		// Plain host processes: a session, a service, a user's app and a
		// `podman unshare` shell are in no container.
		"host-v2-1.cgroup": {}, "host-v2-2.cgroup": {}, "host-v2-3.cgroup": {}, "host-v2-4.cgroup": {}, "host-v2-5.cgroup": {},
		"host-hybrid-1.cgroup": {}, "host-hybrid-2.cgroup": {}, "host-v1-1.cgroup": {},
	}
	files, err := filepath.Glob(fixtures + "*.cgroup")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		want, ok := cases[name]
		if !ok {
			t.Errorf("%s: no expectation (every fixture is checked)", name)
			continue
		}
		got := FromCgroups(read(t, name))
		if got.Cgroup == "" || got.Cgroup == "/" {
			t.Errorf("%s: no cgroup path kept: %+v", name, got)
		}
		got.Cgroup = ""
		if got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
		if got.Named() != (want.ContainerID != "" || want.PodUID != "") {
			t.Errorf("%s: Named %v", name, got.Named())
		}
	}
}

// The path kept is the one that named the owner, else the first that
// is not the root; a process at the root of every hierarchy has none.
func TestOwnerPathChoice(t *testing.T) {
	o := FromCgroups(read(t, "docker-cgroupfs-v1-1.cgroup")) // 0:: is containerd.service, v1 lines /docker/ID
	if !strings.HasPrefix(o.Cgroup, "/docker/") {
		t.Errorf("kept %q", o.Cgroup)
	}
	if o := FromCgroups(read(t, "host-hybrid-2.cgroup")); o.Cgroup != "/user.slice/user-1000.slice/session-2.scope" {
		t.Errorf("host process: kept %q", o.Cgroup)
	}
	if o := Of("/", "/", ""); o != (Owner{}) {
		t.Errorf("root everywhere: %+v", o)
	}
	// Near misses name nothing: a short id, a UID of the wrong shape, a
	// runtime prefix nobody uses.
	for _, p := range []string{
		"/system.slice/docker-10824577d0d1.scope",
		"/kubepods/burstable/podnot-a-uid/34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea0337",
		"/machine.slice/lxc-34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376.scope",
		"/x.slice:unknown:34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376",
	} {
		if o := Parse(p); o.Named() {
			t.Errorf("%s: %+v", p, o)
		}
	}
}

// The node's pod directories name namespace and pod by UID (kubelet:
// /var/log/pods/NAMESPACE_NAME_UID, MANIFEST.md); other entries are
// skipped, a node without the directory is ErrNoPods, and Materialize
// rebuilds what a recording listed.
func TestReadPods(t *testing.T) {
	fsys := fstest.MapFS{
		// The directory of the real listing in the MANIFEST (fluent-operator #855).
		"var/log/pods/kube-system_kube-apiserver-pa-drs-cluster_8b1e9057c80f383869339e73f7286d7b/kube-apiserver/0.log": {},
		"var/log/pods/ml_trainer-0_0d4c6a1e-6b1f-4c2a-9e3d-2f1a0b9c8d7e/main/0.log":                                    {},
		"var/log/pods/not_a_pod/x":                                       {},
		"var/log/pods/Upper_case_0d4c6a1e-6b1f-4c2a-9e3d-2f1a0b9c8d7f/x": {},
		"var/log/pods/stray.log":                                         {},
	}
	pods, err := ReadPods(fsys)
	if err != nil {
		t.Fatal(err)
	}
	want := Pods{
		"8b1e9057c80f383869339e73f7286d7b":     {Namespace: "kube-system", Name: "kube-apiserver-pa-drs-cluster"},
		"0d4c6a1e-6b1f-4c2a-9e3d-2f1a0b9c8d7e": {Namespace: "ml", Name: "trainer-0"},
	}
	if len(pods) != len(want) {
		t.Errorf("pods %v", pods)
	}
	for uid, p := range want {
		if pods[uid] != p {
			t.Errorf("%s: %v, want %v", uid, pods[uid], p)
		}
	}
	if pods["0d4c6a1e-6b1f-4c2a-9e3d-2f1a0b9c8d7e"].String() != "ml/trainer-0" {
		t.Error(pods)
	}
	if _, err := ReadPods(fstest.MapFS{}); !errors.Is(err, ErrNoPods) {
		t.Errorf("no directory: %v", err)
	}
	dst := t.TempDir()
	if err := Materialize(fsys, dst); err != nil {
		t.Fatal(err)
	}
	again, err := ReadPods(os.DirFS(dst))
	if err != nil || len(again) != len(want) || again["8b1e9057c80f383869339e73f7286d7b"] != want["8b1e9057c80f383869339e73f7286d7b"] {
		t.Errorf("materialized: %v %v", again, err)
	}
}

// Any path parses without a panic, and what it names has the shape of
// what it names.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(fixtures + "*.cgroup")
	for _, name := range files {
		b, _ := os.ReadFile(name)
		for line := range strings.SplitSeq(string(b), "\n") {
			if _, path, ok := strings.Cut(line, ":"); ok {
				_, path, _ = strings.Cut(path, ":")
				f.Add(path)
			}
		}
	}
	f.Fuzz(func(t *testing.T, path string) {
		o := Parse(path)
		if o.ContainerID != "" && !idRE.MatchString(o.ContainerID) {
			t.Errorf("%q: container id %q", path, o.ContainerID)
		}
		if o.PodUID != "" && !uidRE.MatchString(o.PodUID) {
			t.Errorf("%q: pod UID %q", path, o.PodUID)
		}
		if o.Runtime != "" && o.ContainerID == "" {
			t.Errorf("%q: a runtime without a container", path)
		}
	})
}
