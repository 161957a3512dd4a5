package sampler

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/probes"
	"github.com/rdmatop/rdmatop/probes/bundle"
	"github.com/rdmatop/rdmatop/probes/rdmanl"
)

// ownerRoot builds a node root for the real rxe QP dump's owners (pids
// 208, 209, 211, 212): each a real process's /proc files
// (testdata/procinfo/proc/675) with a real cgroup file of another layout
// (testdata/owner), and the kubelet's directory of one pod.
func ownerRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	cgroups := map[int]string{
		208: "k8s-containerd-systemd-v2-1.cgroup", // a guaranteed pod, containerd
		209: "k8s-cgroupfs-v1-1.cgroup",           // a pod the node's directory does not name
		211: "docker-systemd-v1-1.cgroup",         // docker, no pod
		212: "host-v2-1.cgroup",                   // a login session: no container
	}
	for pid, cg := range cgroups {
		dir := filepath.Join(root, "proc", strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"comm", "limits", "status"} {
			copyFile(t, fixtures+"procinfo/proc/675/"+f, filepath.Join(dir, f))
		}
		copyFile(t, fixtures+"owner/"+cg, filepath.Join(dir, "cgroup"))
	}
	for _, f := range []string{"meminfo", "buddyinfo"} {
		copyFile(t, fixtures+"procinfo/proc/"+f, filepath.Join(root, "proc", f))
	}
	pod := filepath.Join(root, "var/log/pods/ml_trainer-0_dc430cd3-34b7-4ea6-be26-ddfd88d7ddff/main")
	if err := os.MkdirAll(pod, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Each QP carries what its owner's cgroup says, and the pod's name where
// the node names it; a recording replays the same.
func TestQPOwnersDownToPod(t *testing.T) {
	base := fixtures + "rxe-netlink/netlink/"
	var ex []rdmanl.Exchange
	for _, d := range []string{"link", "res_show_qp", "statistic_show"} {
		ex = append(ex, loadExchanges(t, base+d)...)
	}
	fsys := rxeTree(t, "sysfs-final.tar.gz", func(string) bool { return false })
	root := ownerRoot(t)
	rec := NewRecorder(Sources{FS: fsys, RDMA: rdmanl.NewReplay(ex), ProcRoot: root, Label: "fixture"}, Options{})
	now := time.Unix(1_800_000_000, 0)
	snap, tick, err := rec.Sample(context.Background(), now)
	if err != nil {
		t.Fatal(err)
	}
	byPID := map[int]probes.QP{}
	for _, q := range snap.QPs {
		if q.PID != nil {
			byPID[*q.PID] = q
		}
	}
	check := func(pid int, runtime, id, podUID, qos, pod string) {
		t.Helper()
		q, ok := byPID[pid]
		if !ok {
			t.Fatalf("no QP of pid %d", pid)
		}
		if q.Runtime != runtime || q.ContainerID != id || q.PodUID != podUID || q.PodQoS != qos || q.Pod != pod || q.Cgroup == "" {
			t.Errorf("pid %d: runtime %q id %q pod_uid %q qos %q pod %q cgroup %q", pid, q.Runtime, q.ContainerID, q.PodUID, q.PodQoS, q.Pod, q.Cgroup)
		}
	}
	check(208, "containerd", "8564224395a4fbf7f2792baa22ee16dfc8f8e862e20342d3b2bcc211a3939af6", "dc430cd3-34b7-4ea6-be26-ddfd88d7ddff", "guaranteed", "ml/trainer-0")
	check(209, "", "34dc0b5e626f2c5c4c5170e34b10e7654ce36f0fcd532739f4445baabea03376", "74c13223-5a00-11e9-b385-42010a80018d", "besteffort", "")
	check(211, "docker", "10824577d0d1d1e21ad4a8c3c08803584b76cc01ae2c33ccf9b071a55da7e21a", "", "", "")
	check(212, "", "", "", "", "")
	// In the JSON (docs/nccl.md lists the owner's fields there).
	if b, _ := json.Marshal(byPID[209]); !bytes.Contains(b, []byte(`"pod_qos_class":"besteffort"`)) {
		t.Errorf("QP JSON without its pod's QoS class: %s", b)
	}

	var buf bytes.Buffer
	w, err := bundle.NewPcapngWriter(&buf, bundle.Header{Interval: "1s"}, bundle.PcapngOptions{Gzip: true})
	if err != nil {
		t.Fatal(err)
	}
	w.WriteTick(tick)
	w.Close()
	r, err := bundle.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	src, err := ReplaySources(rt, "", "fixture", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	src.Status = rt.Status
	live, _ := json.Marshal(snap.QPs)
	replayed, _ := json.Marshal(New(src, Options{}).Sample(context.Background(), now).QPs)
	if !bytes.Equal(live, replayed) {
		t.Errorf("QPs replay differently:\nlive   %.600s\nreplay %.600s", live, replayed)
	}
}
