package main

// Synthetic is one synthetic incident: a host that runs healthy for the
// first FaultAt ticks and then has the fault its label names. Step moves
// the host on by one tick (tick i >= 1). (Not a capture/scenario.Scenario,
// a wire exchange with its expected analysis, nor a demo.Scenario, a
// scripted screen.)
type Synthetic struct {
	Name           string
	TrueCause      string   // a rule id of `rdmatop rules`, or "healthy"
	AlsoAcceptable []string // other first findings an expert accepts (see MANIFEST.md)
	How            string   // one line
	Ticks          int      // ticks of Interval
	FaultAt        int      // first tick of the fault (Ticks: none)
	Seed           uint64   // jitter of the counters
	Step           func(h *Host, i int)
}

// Traffic shapes of the fixture host (mlx5_0/eth0, 100 Gb/s): RDMA WRITEs
// of 4 KiB at about 8 GB/s, received (this host is the responder, ACKs go
// back) or sent (this host is the requester).
func receiver(h *Host) { h.Traffic(2_000_000, 250_000, 4150, 80, 3) }
func sender(h *Host)   { h.Traffic(250_000, 2_000_000, 80, 4150, 3) }

// Synthetics are the synthetic incidents, in corpus order. Rules with a
// `for` get more faulty ticks than it needs (30 s: at least 8 ticks of 5 s
// in a row; 60 s: at least 14).
var Synthetics = []Synthetic{
	{
		Name: "syn-healthy", TrueCause: "healthy", Ticks: 24, FaultAt: 24, Seed: 1,
		How: "synthetic mlx5 host receiving RoCE WRITEs at ~8 GB/s on PFC priority 3 with DCQCN answering a little ECN marking; nothing wrong",
		Step: func(h *Host, i int) {
			receiver(h)
			h.HealthyCongestion()
		},
	},
	{
		Name: "syn-pfc-backpressure", TrueCause: "pfc-pause-backpressure", Ticks: 24, FaultAt: 6, Seed: 2,
		How: "synthetic: from 30 s the switch pauses this sender's priority 3 ~21,000 times/s, 18% of the time (rx_prio3_pause, rx_prio3_pause_duration); throughput sags 30%",
		Step: func(h *Host, i int) {
			if i < 6 {
				sender(h)
				h.HealthyCongestion()
				return
			}
			h.Traffic(175_000, 1_400_000, 80, 4150, 3)
			marks := h.Jitter(120)
			h.Add("hw_counters/np_ecn_marked_roce_packets", marks)
			h.Add("hw_counters/np_cnp_sent", marks)
			h.Add("hw_counters/rp_cnp_handled", 100)
			h.Pause(21_000, 180_000, 1, 1)
		},
	},
	{
		Name: "syn-pfc-pause-storm", TrueCause: "pfc-pause-storm", AlsoAcceptable: []string{"host-rx-backpressure"},
		Ticks: 24, FaultAt: 6, Seed: 3,
		How: "synthetic: from 30 s this receiver's receive pipeline stalls; it pauses priority 3 99% of the time, the stall watchdog counts tx_pause_storm_warning_events then error_events, stops pausing and drops (rx_discards_phy)",
		Step: func(h *Host, i int) {
			if i < 6 {
				receiver(h)
				h.HealthyCongestion()
				return
			}
			switch {
			case i < 9:
				// Stalled: almost nothing gets in; pause sent back to back.
				h.Traffic(20_000, 3_000, 4150, 80, 3)
				h.Pause(2, 1, 130_000, 990_000)
				if i == 8 {
					h.eth["tx_pause_storm_warning_events"]++
				}
			default:
				// The watchdog gave up pausing (error event once): the
				// peer sends again and the NIC drops what it cannot take.
				if i == 9 {
					h.eth["tx_pause_storm_error_events"]++
				}
				h.Traffic(20_000, 3_000, 4150, 80, 3)
				h.Add("eth:rx_packets_phy", 1_900_000)
				h.Add("eth:rx_discards_phy", 1_900_000)
				h.Add("eth:rx_prio3_discards", 1_900_000)
				h.Add("eth:rx_buffer_passed_thres_phy", 50)
			}
		},
	},
	{
		Name: "syn-ecn-marked-no-cnp", TrueCause: "ecn-marked-no-cnp", Ticks: 24, FaultAt: 6, Seed: 4,
		How: "synthetic: from 30 s the switch marks ~45,000 of this receiver's RoCE packets/s CE, and its DCQCN notification point is off on priority 3 (ecn/roce_np/enable/3 = 0): np_cnp_sent stays flat",
		Step: func(h *Host, i int) {
			receiver(h)
			if i < 6 {
				h.HealthyCongestion()
				return
			}
			h.Set("net/eth0/ecn/roce_np/enable/3", "0\n")
			h.Add("hw_counters/np_ecn_marked_roce_packets", 45_000)
			h.Add("hw_counters/rp_cnp_handled", 100)
			h.Pause(4, 3, 1, 1)
		},
	},
	{
		Name: "syn-cnp-ignored", TrueCause: "cnp-ignored", Ticks: 24, FaultAt: 6, Seed: 5,
		How: "synthetic: from 30 s this sender's DCQCN reaction point is off on priority 3 (ecn/roce_rp/enable/3 = 0); ~30,000 CNPs/s arrive and are counted in rp_cnp_ignored, rp_cnp_handled stays flat",
		Step: func(h *Host, i int) {
			sender(h)
			if i < 6 {
				h.HealthyCongestion()
				return
			}
			h.Set("net/eth0/ecn/roce_rp/enable/3", "0\n")
			marks := h.Jitter(120)
			h.Add("hw_counters/np_ecn_marked_roce_packets", marks)
			h.Add("hw_counters/np_cnp_sent", marks)
			h.Add("hw_counters/rp_cnp_ignored", 30_000)
			h.Add("eth:rx_prio6_packets", 30_000)
			h.Pause(4, 3, 1, 1)
		},
	},
	{
		Name: "syn-dcqcn-misconfigured", TrueCause: "dcqcn-misconfigured", Ticks: 32, FaultAt: 6, Seed: 6,
		How: "synthetic: from 30 s this sender's DCQCN reaction point is tuned to recover far too fast (rpg_ai_rate 5->200, rpg_hai_rate 50->1000, rpg_time_reset 300->30) against a switch that marks early: ~250,000 CNPs/s handled, ~18% of the packets sent, throughput saw-tooths 0.9-1.8 Mpps",
		Step: func(h *Host, i int) {
			if i < 6 {
				sender(h)
				h.HealthyCongestion()
				return
			}
			h.Set("net/eth0/ecn/roce_rp/rpg_ai_rate", "200\n")
			h.Set("net/eth0/ecn/roce_rp/rpg_hai_rate", "1000\n")
			h.Set("net/eth0/ecn/roce_rp/rpg_time_reset", "30\n")
			tx := 1_800_000.0
			if i%2 == 1 {
				tx = 900_000
			}
			h.Traffic(tx/8, tx, 80, 4150, 3)
			marks := h.Jitter(120)
			h.Add("hw_counters/np_ecn_marked_roce_packets", marks)
			h.Add("hw_counters/np_cnp_sent", marks)
			h.Add("hw_counters/rp_cnp_handled", 250_000)
			h.Add("eth:rx_prio6_packets", 250_000)
			h.Pause(4, 3, 1, 1)
		},
	},
	{
		Name: "syn-phy-errors", TrueCause: "phy-errors", Ticks: 24, FaultAt: 6, Seed: 7,
		How: "synthetic: from 30 s a bad optic on this receiver's link: ~40 frames/s fail the FCS (rx_crc_errors_phy) with uncorrected symbol errors; the responder sees the resulting PSN gaps (out_of_sequence ~320/s)",
		Step: func(h *Host, i int) {
			receiver(h)
			h.HealthyCongestion()
			if i < 6 {
				return
			}
			h.Add("eth:rx_crc_errors_phy", 40)
			h.Add("eth:rx_symbol_err_phy", 40)
			h.Add("eth:rx_pcs_symbol_err_phy", 40)
			h.Add("eth:rx_err_lane_1_phy", 40)
			h.Add("eth:rx_corrected_bits_phy", 50_000)
			h.Add("hw_counters/out_of_sequence", 320)
		},
	},
	{
		Name: "syn-fec-marginal", TrueCause: "phy-fec-corrections-high", Ticks: 32, FaultAt: 6, Seed: 8,
		How: "synthetic: from 30 s FEC corrects ~3,000,000 bits/s on this 100 Gb/s link (pre-FEC BER 3e-5); no CRC or uncorrected symbol errors, nothing lost yet",
		Step: func(h *Host, i int) {
			receiver(h)
			h.HealthyCongestion()
			if i < 6 {
				return
			}
			h.Add("eth:rx_corrected_bits_phy", 3_000_000)
		},
	},
	{
		Name: "syn-host-rx-backpressure", TrueCause: "host-rx-backpressure", Ticks: 24, FaultAt: 6, Seed: 9,
		How: "synthetic: from 30 s this receiver cannot drain at line rate (PCIe writes stall: outbound_pci_stalled_wr); it pauses the switch on priority 3 ~9,000 times/s, 12% of the time, its buffer passes the threshold and ~30 packets/s are discarded",
		Step: func(h *Host, i int) {
			if i < 6 {
				receiver(h)
				h.HealthyCongestion()
				return
			}
			h.Traffic(1_700_000, 212_000, 4150, 80, 3)
			marks := h.Jitter(120)
			h.Add("hw_counters/np_ecn_marked_roce_packets", marks)
			h.Add("hw_counters/np_cnp_sent", marks)
			h.Add("hw_counters/rp_cnp_handled", 100)
			h.Pause(4, 3, 9_000, 120_000)
			h.Add("eth:outbound_pci_stalled_wr", 5_000)
			h.Add("eth:outbound_pci_stalled_wr_events", 900)
			h.Add("eth:rx_buffer_passed_thres_phy", 500)
			h.Add("eth:rx_discards_phy", 30)
			h.Add("eth:rx_prio3_discards", 30)
		},
	},
	{
		Name: "syn-pfc-not-enabled-roce-prio", TrueCause: "pfc-not-enabled-roce-prio", Ticks: 24, FaultAt: 6, Seed: 10,
		How: "synthetic: from 30 s most RoCE traffic (a new job that sets no traffic class, DSCP 0) arrives on priority 0, which has no PFC (PFC is on priority 3 only); the lossy queue drops some of it upstream (out_of_sequence ~60/s)",
		Step: func(h *Host, i int) {
			if i < 6 {
				receiver(h)
				h.HealthyCongestion()
				return
			}
			h.Traffic(400_000, 50_000, 4150, 80, 3)
			h.Traffic(1_600_000, 200_000, 4150, 80, 0)
			h.HealthyCongestion()
			h.Add("hw_counters/out_of_sequence", 60)
		},
	},
}
