package sampler

import (
	"fmt"
	"strconv"
	"time"

	"github.com/rdmatop/rdmatop/probes"
)

// rasAnswer is what the nccl-ras source gave a sample, as recorded.
type rasAnswer struct {
	Status *probes.NCCLRAS `json:"status,omitempty"`
	Err    string          `json:"error,omitempty"`
}

// rasRankKey names a rank of a communicator.
type rasRankKey struct {
	comm string
	rank int
}

// rasRankState is what is wrong with a rank, worst last.
type rasRankState int

const (
	rasAsyncError rasRankState = iota + 1 // it answers, with an error pending or an init failure
	rasUnresponsive
	rasDead
)

// Event kinds of the nccl source from RAS.
const (
	KindRASRankError        = "nccl_ras_rank_error"
	KindRASRankUnresponsive = "nccl_ras_rank_unresponsive"
	KindRASRankDead         = "nccl_ras_rank_dead"
)

// rasEvents turns what RAS says of ranks into events when it changes: a
// rank newly unresponsive or dead (its process on which node, managing
// which GPU), or newly reporting an error. A rank that stays so is no new
// event; the snapshot carries RAS's answer every sample. A sample without
// an answer (the query failed) says nothing about ranks: absent is not
// healed.
func (s *Sampler) rasEvents(st *probes.NCCLRAS, now time.Time, snap *probes.Snapshot) {
	if st == nil {
		return
	}
	seen := map[rasRankKey]rasRankState{}
	add := func(k rasRankKey, state rasRankState, kind string, sev probes.Severity, detail string) {
		seen[k] = state
		if s.rasSeen[k] == state {
			return
		}
		snap.Events = append(snap.Events, probes.Event{Time: now, Source: "nccl", Kind: kind, Severity: sev, Detail: detail})
	}
	for _, c := range st.Communicators {
		for _, m := range c.Missing {
			k := rasRankKey{c.Hash, m.Rank}
			who := fmt.Sprintf("rank %d of communicator %s (%d ranks): %s", m.Rank, c.Hash, c.Size, m.NCCLRankOf)
			switch {
			case m.Status.ConsideredDead:
				add(k, rasDead, KindRASRankDead, probes.SevCritical, "NCCL RAS considers "+who+" dead (unreachable for 60 s)")
			case m.Status.Unresponsive:
				add(k, rasUnresponsive, KindRASRankUnresponsive, probes.SevCritical, "NCCL RAS cannot reach "+who)
			}
		}
		for _, r := range c.Ranks {
			// ncclResult_t: 0 ncclSuccess, 7 ncclInProgress (a
			// non-blocking call or initialisation under way) are no
			// error.
			if ok := func(v int) bool { return v == 0 || v == 7 }; ok(r.Status.AsyncError) && ok(r.Status.InitState) {
				continue
			}
			k := rasRankKey{c.Hash, r.Rank}
			add(k, rasAsyncError, KindRASRankError, probes.SevCritical, fmt.Sprintf(
				"NCCL RAS: rank %d of communicator %s (%s) reports init state %s, async error %s",
				r.Rank, c.Hash, r.NCCLRankOf, ncclResult(r.Status.InitState), ncclResult(r.Status.AsyncError)))
		}
	}
	s.rasSeen = seen
}

// ncclResult names an ncclResult_t (nccl.h).
func ncclResult(v int) string {
	names := []string{"ncclSuccess", "ncclUnhandledCudaError", "ncclSystemError", "ncclInternalError",
		"ncclInvalidArgument", "ncclInvalidUsage", "ncclRemoteError", "ncclInProgress"}
	if v >= 0 && v < len(names) {
		return fmt.Sprintf("%d (%s)", v, names[v])
	}
	return strconv.Itoa(v)
}
