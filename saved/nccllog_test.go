package saved

import (
	"os"
	"path/filepath"
	"testing"
)

// A job's log is an NCCL log by its content, whatever its name and
// whatever else the job printed; its warnings are events beside the
// kernel log's, and a kernel log is never taken for it.
func TestNCCLLogByContent(t *testing.T) {
	dir := t.TempDir()
	nccl, err := os.ReadFile("../testdata/nccl/19-nccl2397-v2.30.4-retry-exc-newest-format-got-cqe.log")
	if err != nil {
		t.Fatal(err)
	}
	job := "epoch 3 step 1200 loss 1.93\n" + string(nccl) + "Traceback (most recent call last):\n  RuntimeError: NCCL communicator was aborted\n"
	if err := os.WriteFile(filepath.Join(dir, "dmesg.txt"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	res := load(t, dir, realDir+"dmesg_mlx5_pcie_insufficient_power_gpud.txt")
	if in := input(t, res, "dmesg.txt"); in.Kind != KindNCCLLog {
		t.Errorf("the job's log read as %q", in.Kind)
	}
	if in := input(t, res, "dmesg_mlx5_pcie_insufficient_power_gpud.txt"); in.Kind != KindKernelLog {
		t.Errorf("the kernel log read as %q", in.Kind)
	}
	host := res.Snapshots[len(res.Snapshots)-1]
	bySource := map[string]int{}
	for _, e := range host.Events {
		bySource[e.Source]++
	}
	if bySource["nccl"] != 3 || bySource["kmsg"] == 0 {
		t.Errorf("events by source %v, want the log's 3 NCCL warnings and the kernel log's events", bySource)
	}
}
