package sampler

import "github.com/rdmatop/rdmatop/probes"

// HostInfo names the host below root (its hostname and kernel release, as
// the live sources report them), for a recording's header.
func HostInfo(root string) probes.HostInfo { return hostInfo(root) }
