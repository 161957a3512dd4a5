package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// check A B on two captures of the lab's campaign (testdata/wiretruth):
// the verdict names the segment the netem loss was placed in, with the
// packets the lab's truth counted there (397, A to B, in loss5-write);
// a clean run loses nothing; unrelated captures are an input error.
func TestCheckTwoPoints(t *testing.T) {
	const dir = "../../testdata/wiretruth/"
	out, stderr, code := runCLI(t, "check", dir+"loss5-write/veth0.pcap.gz", dir+"loss5-write/veth1.pcap.gz")
	if code != exitFindings || !strings.Contains(out, "verdict  lost between the capture at A and the capture at B: 397 packets of 1 flow") ||
		!strings.Contains(out, "nothing lost from B to A") {
		t.Errorf("loss5-write: exit %d\n%s%s", code, out, stderr)
	}
	out, stderr, code = runCLI(t, "check", dir+"clean-write/veth0.pcap.gz", dir+"clean-write/veth1.pcap.gz", "--json")
	var doc struct {
		Verdict  string `json:"verdict"`
		Segments []struct {
			Upstream string `json:"upstream"`
			Sent     uint64 `json:"sent"`
			Lost     uint64 `json:"lost"`
		} `json:"segments"`
		Offset struct {
			Known bool `json:"known"`
		} `json:"clock_offset"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("clean-write --json: exit %d, %v\n%s%s", code, err, out, stderr)
	}
	if len(doc.Segments) != 2 || doc.Segments[0].Lost+doc.Segments[1].Lost != 0 || !doc.Offset.Known ||
		!strings.Contains(doc.Verdict, "nothing lost from A to B (2,000 packets)") {
		t.Errorf("clean-write: %+v", doc)
	}
	_, stderr, code = runCLI(t, "check", dir+"loss5-write/veth0.pcap.gz", dir+"dup5-send/veth1.pcap.gz")
	if code != exitUsage || !strings.Contains(stderr, "share no RoCE packet") {
		t.Errorf("unrelated captures: exit %d, %s", code, stderr)
	}
}

// replay A B reports the same comparison, and exits 0: a replay tells,
// a check judges.
func TestReplayTwoPoints(t *testing.T) {
	const dir = "../../testdata/wiretruth/loss5-write/"
	out, stderr, code := runCLI(t, "replay", dir+"veth0.pcap.gz", dir+"veth1.pcap.gz", "--report")
	if code != 0 || !strings.Contains(out, "verdict  lost between the capture at A and the capture at B: 397 packets") {
		t.Errorf("replay A B: exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code := runCLI(t, "replay", "a", "b", "c"); code != exitUsage || !strings.Contains(stderr, "two captures to compare") {
		t.Errorf("replay a b c: exit %d, %s", code, stderr)
	}
}

// Delays are written with three significant digits.
func TestShortDelay(t *testing.T) {
	for ns, want := range map[int64]string{950: "950ns", 21_500: "21.5µs", 23_572_500: "23.6ms", 2_777_500: "2.78ms", 29_024_500: "29ms", 1_234_567_890: "1.23s"} {
		if got := short(ns); got != want {
			t.Errorf("short(%d) = %q, want %q", ns, got, want)
		}
	}
}
