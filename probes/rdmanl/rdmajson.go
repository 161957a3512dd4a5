package rdmanl

import (
	"encoding/json"
	"fmt"
)

// rdmaQP is one object of `rdma -j res show qp` (iproute2's JSON).
type rdmaQP struct {
	IfIndex *uint32 `json:"ifindex"`
	IfName  string  `json:"ifname"`
	Port    *uint32 `json:"port"`
	LQPN    *uint32 `json:"lqpn"`
	RQPN    *uint32 `json:"rqpn"`
	Type    string  `json:"type"`
	State   string  `json:"state"`
	RQPSN   *uint32 `json:"rq-psn"`
	SQPSN   *uint32 `json:"sq-psn"`
	PathMig *string `json:"path-mig-state"`
	PDN     *uint32 `json:"pdn"`
	PID     *uint32 `json:"pid"`
	Comm    string  `json:"comm"`
}

// ParseRdmaJSONQPs reads the output of `rdma -j [-d] res show qp` into
// QPs, for captures taken with iproute2 (lab timelines, bug reports).
// rdma's "comm" becomes KernOwner for QPs without a pid, else Comm.
func ParseRdmaJSONQPs(b []byte) ([]QP, error) {
	var in []rdmaQP
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("rdma -j res show qp: %w", err)
	}
	out := make([]QP, 0, len(in))
	for i, r := range in {
		if r.IfIndex == nil || r.LQPN == nil {
			return nil, fmt.Errorf("rdma -j res show qp: entry %d has no ifindex or lqpn", i)
		}
		q := QP{DevIndex: *r.IfIndex, Dev: r.IfName, LQPN: *r.LQPN}
		var ok bool
		if q.Type, ok = ParseQPType(r.Type); !ok {
			return nil, fmt.Errorf("rdma -j res show qp: entry %d: unknown type %q", i, r.Type)
		}
		if q.State, ok = ParseQPState(r.State); !ok {
			return nil, fmt.Errorf("rdma -j res show qp: entry %d: unknown state %q", i, r.State)
		}
		if r.PathMig != nil {
			if q.PathMig, ok = ParsePathMigState(*r.PathMig); !ok {
				return nil, fmt.Errorf("rdma -j res show qp: entry %d: unknown path-mig-state %q", i, *r.PathMig)
			}
			q.HasPathMig = true
		}
		set := func(dst *uint32, has *bool, src *uint32) {
			if src != nil {
				*dst = *src
				if has != nil {
					*has = true
				}
			}
		}
		set(&q.Port, nil, r.Port)
		set(&q.RQPN, &q.HasRQPN, r.RQPN)
		set(&q.RQPSN, &q.HasRQPSN, r.RQPSN)
		set(&q.SQPSN, nil, r.SQPSN)
		set(&q.PDN, &q.HasPDN, r.PDN)
		set(&q.PID, &q.HasPID, r.PID)
		if q.HasPID {
			q.Comm = r.Comm
		} else {
			q.KernOwner = r.Comm
		}
		out = append(out, q)
	}
	return out, nil
}
