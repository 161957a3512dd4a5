package sampler

import "github.com/rdmatop/rdmatop/probes"

// gpuAnswer is what the gpu-tcp source gave a sample, as recorded.
type gpuAnswer struct {
	Procs []probes.GPUProcess `json:"procs,omitempty"`
	Err   string              `json:"error,omitempty"`
}
