package probes

import "github.com/rdmatop/rdmatop/capture/roce"

// FormatQPN is rdmatop's one notation for a queue pair number: 0x and six
// lower-case hex digits (a QPN is 24 bits, as the BTH carries it), in
// findings, the screen, JSON object keys and exporter labels alike.
func FormatQPN(n uint32) string { return roce.QPN(n).String() }

// ContainerName is how rdmatop shows a container: its runtime and the
// first 12 digits of its id (as docker and crictl print it), or the id
// alone when the runtime is unknown.
func ContainerName(runtime, id string) string {
	if len(id) > 12 {
		id = id[:12]
	}
	if runtime == "" {
		return id
	}
	return runtime + "://" + id
}
