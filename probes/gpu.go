package probes

// GPUProcess is a process that holds a GPU's device file, and what its TCP
// sockets moved (probes/gputcp). A training job that cannot use RDMA
// still runs: NCCL falls back to TCP sockets, and the only trace on the
// host is a GPU process moving its collective traffic over TCP.
type GPUProcess struct {
	PID  int    `json:"pid" expr:"pid"`
	Comm string `json:"comm,omitempty" expr:"comm"`
	// GPUFiles are the GPU device files it holds open, as its mount
	// namespace names them ("/dev/nvidia0", "/dev/kfd").
	GPUFiles []string `json:"gpu_files" expr:"gpu_files"`
	// NetNS is its network namespace ("net:[4026531840]"), where its
	// sockets were read.
	NetNS string `json:"netns,omitempty" expr:"netns"`
	// TCPSockets counts its TCP sockets that are not listening (those
	// connecting, connected or closing).
	TCPSockets int `json:"tcp_sockets" expr:"tcp_sockets"`
	// TCPSentPerSec and TCPRecvPerSec are the bytes per second its TCP
	// sockets had acknowledged by their peers and received, over the time
	// since the previous sample (RFC 4898 HCThruOctetsAcked and
	// HCThruOctetsReceived, tcp_info bytes_acked and bytes_received).
	// Nil when unknown: the first sample that saw the process.
	TCPSentPerSec *float64 `json:"tcp_sent_per_s,omitempty" expr:"tcp_sent_per_s"`
	TCPRecvPerSec *float64 `json:"tcp_recv_per_s,omitempty" expr:"tcp_recv_per_s"`
	// Peers are the remote ends (address:port) of the sockets that moved
	// the most in the interval, busiest first, at most MaxGPUPeers.
	Peers []string `json:"peers,omitempty" expr:"peers"`
}

// MaxGPUPeers bounds GPUProcess.Peers: enough to name the other ranks a
// process talks to on a page, not a list of every connection.
const MaxGPUPeers = 4
