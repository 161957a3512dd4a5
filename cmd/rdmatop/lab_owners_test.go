package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/probes"
)

const labOwners = "../../testdata/lab/owners/"

// testdata/lab/owners: ib_write_bw's two ends on the real rxe stack, one in
// a cgroup named as a kubelet pod's containerd container, one as a docker
// container (MANIFEST.md). --once --json and the replayed recording give
// each QP its owner as the job placed it: the QPs by pid from iproute2,
// the cgroup path from the kernel's /proc/PID/cgroup.
func TestLabQPOwners(t *testing.T) {
	read := func(name string) []byte {
		b, err := os.ReadFile(labOwners + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var iproute []struct {
		Dev  string `json:"ifname"`
		LQPN uint32 `json:"lqpn"`
		PID  *int   `json:"pid"`
	}
	if err := json.Unmarshal(read("rdma-res-qp.json"), &iproute); err != nil {
		t.Fatal(err)
	}
	var server, client int
	if _, err := fmt.Sscanf(string(read("pids.txt")), "server %d client %d", &server, &client); err != nil {
		t.Fatal(err)
	}
	cgroupOf := func(name string) string {
		return strings.TrimSpace(strings.TrimPrefix(string(read(name)), "0::"))
	}
	type want struct{ runtime, id, podUID, pod, cgroup string }
	byPID := map[int]want{
		server: {"containerd", "4f1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
			"0d4c6a1e-6b1f-4c2a-9e3d-2f1a0b9c8d7e", "ml/trainer-0", cgroupOf("server.cgroup")},
		client: {"docker", "9c0e7a5b3d1f2e4c6a8b0d9f7e5c3a1b2d4f6e8a0c9b7d5f3e1a2c4b6d8f0e9a", "", "", cgroupOf("client.cgroup")},
	}
	check := func(where string, qps []probes.QP) {
		t.Helper()
		n := 0
		for _, ip := range iproute {
			if ip.PID == nil {
				continue
			}
			w := byPID[*ip.PID]
			for _, q := range qps {
				if q.Device != ip.Dev || q.LQPN != ip.LQPN {
					continue
				}
				n++
				if q.Runtime != w.runtime || q.ContainerID != w.id || q.PodUID != w.podUID || q.Pod != w.pod || q.Cgroup != w.cgroup {
					t.Errorf("%s: %s QP %d (pid %d): runtime %q id %q pod_uid %q pod %q cgroup %q, want %+v",
						where, q.Device, q.LQPN, *ip.PID, q.Runtime, q.ContainerID, q.PodUID, q.Pod, q.Cgroup, w)
				}
			}
		}
		if n != 2 {
			t.Errorf("%s: %d of the two ib_write_bw QPs found", where, n)
		}
	}
	var once probes.Snapshot
	if err := json.Unmarshal(read("once.json"), &once); err != nil {
		t.Fatal(err)
	}
	check("--once --json", once.QPs)

	var out, errb bytes.Buffer
	if code := run([]string{"replay", labOwners + "record.bundle.gz", "--json"}, &out, &errb); code != 0 && code != 1 {
		t.Fatalf("replay exit %d: %s", code, errb.String())
	}
	var doc struct {
		Snapshots []probes.Snapshot `json:"snapshots"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	last := doc.Snapshots[len(doc.Snapshots)-1]
	check("replay of the recording", last.QPs)
}
