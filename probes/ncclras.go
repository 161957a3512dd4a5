package probes

import "fmt"

// NCCLRAS is what NCCL's RAS endpoint (NCCL 2.24 and later, JSON since
// 2.28.7) said of the jobs on this host: their communicators, the ranks
// that answered and those RAS could not reach. The JSON names are NCCL's
// own (docs/userguide troubleshooting/ras.rst), so probes/ncclras
// decodes its answer straight into these types.
type NCCLRAS struct {
	Addr          string             `json:"addr" expr:"addr"` // where it was asked (host:port)
	NCCLVersion   string             `json:"nccl_version" expr:"nccl_version"`
	Timestamp     string             `json:"timestamp" expr:"timestamp"` // NCCL's, local time without a zone
	Communicators []NCCLCommunicator `json:"communicators" expr:"communicators"`
	RAS           struct {
		CollectionS float64 `json:"collection_time_sec" expr:"collection_time_sec"`
		Timeouts    int     `json:"timeouts_count" expr:"timeouts_count"`
	} `json:"ras" expr:"ras"`
}

// NCCLCommunicator is one communicator as RAS gathered it.
type NCCLCommunicator struct {
	Hash         string            `json:"hash" expr:"hash"`
	Size         int               `json:"size" expr:"size"`
	RanksCount   int               `json:"ranks_count" expr:"ranks_count"`
	MissingCount int               `json:"missing_ranks_count" expr:"missing_ranks_count"`
	Ranks        []NCCLRank        `json:"ranks" expr:"ranks"`
	Missing      []NCCLMissingRank `json:"missing_ranks" expr:"missing_ranks"`
}

// NCCLRankOf names a rank and the process that runs it.
type NCCLRankOf struct {
	Rank    int    `json:"rank" expr:"rank"`
	Host    string `json:"host" expr:"host"` // its node, by NCCL's bootstrap address
	PID     int    `json:"pid" expr:"pid"`
	CUDADev int    `json:"cuda_dev" expr:"cuda_dev"`
	NVMLDev int    `json:"nvml_dev" expr:"nvml_dev"`
}

// String names the process the way rdmatop writes it everywhere.
func (r NCCLRankOf) String() string {
	return fmt.Sprintf("process %d on node %s managing GPU %d", r.PID, r.Host, r.CUDADev)
}

// NCCLRank is a rank that answered RAS.
type NCCLRank struct {
	NCCLRankOf
	Status struct {
		// InitState: 0 initialised, 7 (ncclInProgress) initialising,
		// another value an error; AsyncError: what ncclCommGetAsyncError
		// would return (0: none).
		InitState      int  `json:"init_state" expr:"init_state"`
		AsyncError     int  `json:"async_error" expr:"async_error"`
		FinalizeCalled bool `json:"finalize_called" expr:"finalize_called"`
		DestroyFlag    bool `json:"destroy_flag" expr:"destroy_flag"`
		AbortFlag      bool `json:"abort_flag" expr:"abort_flag"`
	} `json:"status" expr:"status"`
}

// NCCLMissingRank is a rank of the communicator that gave RAS no data:
// unresponsive (RAS could not reach its process), or considered dead
// (unreachable for 60 s, given up on).
type NCCLMissingRank struct {
	NCCLRankOf
	Status struct {
		Unresponsive   bool `json:"unresponsive" expr:"unresponsive"`
		ConsideredDead bool `json:"considered_dead" expr:"considered_dead"`
	} `json:"status" expr:"status"`
}
