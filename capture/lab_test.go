package capture

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// testdata/lab/live-capture was recorded in the rxe-lab VM: rdmatop's live
// AF_PACKET capture and tcpdump side by side on a Soft-RoCE link with netem
// loss. The live analysis must equal the replay of tcpdump's file, and the
// loss it reports must be what netem dropped.
func TestLabLiveCaptureMatchesTcpdumpAndNetem(t *testing.T) {
	dir := "../testdata/lab/live-capture/"
	raw, err := os.ReadFile(dir + "live.json")
	if err != nil {
		t.Fatal(err)
	}
	var live Summary
	if err := json.Unmarshal(raw, &live); err != nil {
		t.Fatal(err)
	}
	replay := analyze(t, dir+"wire.pcap", Config{})
	if live.KernelDrops == nil || *live.KernelDrops != 0 {
		t.Errorf("live kernel drops %v", live.KernelDrops)
	}
	if live.Packets != replay.Packets || live.RoCEPackets != 2536 {
		t.Errorf("live saw %d packets (%d RoCE), tcpdump %d", live.Packets, live.RoCEPackets, replay.Packets)
	}
	// live.json was written before timer_episodes, timer_wait_us and the
	// ACK-sequence counts existed: those are compared nowhere here.
	replay.Totals.TimerEpisodes, replay.Totals.RepeatedACKs = 0, 0
	if !reflect.DeepEqual(live.Totals, replay.Totals) {
		t.Errorf("totals differ:\nlive   %+v\nreplay %+v", live.Totals, replay.Totals)
	}
	if !reflect.DeepEqual(live.Opcodes, replay.Opcodes) {
		t.Error("opcodes differ between live capture and replay")
	}
	// Two sockets stamp each packet independently (and tcpdump keeps
	// microseconds): everything but the times must agree.
	untimed := func(fs []FlowSummary) []FlowSummary {
		out := append([]FlowSummary(nil), fs...)
		for i := range out {
			out[i].FirstTS, out[i].LastTS, out[i].Gbps = "", "", 0
			out[i].RTTus = RTT{Samples: out[i].RTTus.Samples}
			out[i].TimerEpisodes, out[i].TimerWaitUs = 0, 0 // newer than live.json
			out[i].RepeatedACKs, out[i].ResendsAfterACK = 0, 0
			out[i].UndoneNAKEpisodes, out[i].UndoneTimerEpisodes = 0, 0
			out[i].UDPSrcPort, out[i].UDPSrcPortChanges = 0, 0 // newer than live.json
			out[i].JumboSent, out[i].JumboACKed = false, false // newer than live.json
			out[i].IPIDs = nil                                 // newer than live.json
		}
		return out
	}
	if !reflect.DeepEqual(untimed(live.Flows), untimed(replay.Flows)) {
		t.Errorf("flows differ between live capture and replay:\nlive   %+v\nreplay %+v", untimed(live.Flows), untimed(replay.Flows))
	}
	tc, err := os.ReadFile(dir + "tc.txt")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)qdisc netem.*?dropped (\d+)`).FindSubmatch(tc)
	if m == nil {
		t.Fatal("no netem drop count in tc.txt")
	}
	dropped, _ := strconv.ParseUint(string(m[1]), 10, 64)
	// Every dropped packet is a missing PSN of the WRITE flow (one packet
	// each; two drops in a row make one gap of 2) or a missing READ
	// request (one gap, whose PSNs are its responses); every gap got its
	// sequence-error NAK.
	var writes, reads uint64
	for _, f := range live.Flows {
		read := slices.ContainsFunc(f.Opcodes, func(o OpcodeCount) bool { return o.Name == "RC_RDMA_READ_REQUEST" })
		switch {
		case read:
			reads += f.PSNGaps
		case f.Requests > 0:
			writes += f.MissingPSNs
		}
	}
	if dropped != 17 || writes+reads != dropped || live.Totals.NAKs.PSNSequenceError != live.Totals.PSNGaps {
		t.Errorf("netem dropped %d; live capture: %d WRITE PSNs and %d READ requests missing, %d gaps, %d sequence-error NAKs",
			dropped, writes, reads, live.Totals.PSNGaps, live.Totals.NAKs.PSNSequenceError)
	}
}
