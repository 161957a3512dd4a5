package ui

import (
	"fmt"
	"strings"

	"github.com/rdmatop/rdmatop/internal/termtext"
	"github.com/rdmatop/rdmatop/probes"
)

// rasLine sums up NCCL's RAS answer for the QPs view: the job's
// communicators and ranks beside the QPs that carry them, and first of
// all the ranks RAS cannot reach. bad is set when a rank is missing.
func rasLine(st *probes.NCCLRAS) (line string, bad bool) {
	ranks, size := 0, 0
	var missing []string
	for _, c := range st.Communicators {
		ranks += len(c.Ranks)
		size += c.Size
		for _, m := range c.Missing {
			state := "unresponsive"
			if m.Status.ConsideredDead {
				state = "dead"
			}
			missing = append(missing, fmt.Sprintf("rank %d %s (%s)", m.Rank, state, m.NCCLRankOf))
		}
	}
	comms := "communicators"
	if len(st.Communicators) == 1 {
		comms = "communicator"
	}
	summary := fmt.Sprintf("%d of %d ranks answer in %d %s (NCCL %s)", ranks, size, len(st.Communicators), comms, st.NCCLVersion)
	line = "NCCL RAS: " + summary
	if len(missing) > 0 {
		// What is wrong first: a narrow terminal cuts the end.
		line = "NCCL RAS: " + strings.Join(missing, ", ") + "; " + summary
	}
	return termtext.Sanitize(line), len(missing) > 0
}
