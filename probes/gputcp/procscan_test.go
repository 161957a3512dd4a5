package gputcp

import "testing"

func TestGPUFile(t *testing.T) {
	for path, want := range map[string]bool{
		"/dev/nvidia0": true, "/dev/nvidia7": true, "/dev/nvidia15": true, "/dev/kfd": true,
		"/dev/nvidiactl": false, "/dev/nvidia-uvm": false, "/dev/nvidia-caps/nvidia-cap1": false,
		"/dev/nvidia": false, "/dev/dri/renderD128": false, "/dev/infiniband/uverbs0": false,
		"socket:[123]": false, "/home/u/dev/nvidia0": false,
	} {
		if got := gpuFile(path); got != want {
			t.Errorf("gpuFile(%q) = %v, want %v", path, got, want)
		}
	}
}
