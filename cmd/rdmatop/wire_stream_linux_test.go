//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdmatop/rdmatop/capture"
	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/internal/netnstest"
)

// streamFrames are the frames of a real Soft-RoCE capture with loss.
func streamFrames(t *testing.T) [][]byte {
	t.Helper()
	src, err := pcapfile.Open("../../testdata/rxe/pcap/lossy1.pcap")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out [][]byte
	for {
		data, _, _, err := src.ReadPacket()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bytes.Clone(data))
	}
}

// waitLine waits until r gives a line containing want, or fails t.
func waitLine(t *testing.T, r io.Reader, want string, deadline time.Duration) {
	t.Helper()
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if strings.Contains(sc.Text(), want) {
				found <- true
				io.Copy(io.Discard, r) // keep the writer from blocking
				return
			}
		}
		found <- false
	}()
	select {
	case ok := <-found:
		if !ok {
			t.Fatalf("ended without a line containing %q", want)
		}
	case <-time.After(deadline):
		t.Fatalf("no line containing %q within %v", want, deadline)
	}
}

// The live wire from a sniffer's stream is the live wire: the same
// traffic on a veth, captured by rdmatop through AF_PACKET and by
// tcpdump -U -w - piped into rdmatop capture --wire -, gives the same
// flows, totals, anomalies and findings. The stream's end ends the
// capture and its report.
func TestWireStreamMatchesAFPacket(t *testing.T) {
	tcpdump, err := exec.LookPath("tcpdump")
	if err != nil {
		t.Skip("needs tcpdump (Debian package tcpdump; .ci/run installs it)")
	}
	ns := netnstest.New(t, "wire")
	ns.Veth(t, "veth0", "wire0")
	bin := buildRdmatop(t)
	frames := streamFrames(t)
	n := strconv.Itoa(len(frames))

	var afOut, streamOut, streamErr bytes.Buffer
	// One ring (a fanout group numbers flows and packets by shard), and
	// tcpdump's times in nanoseconds (its default is microseconds), so
	// that both number and time every packet alike.
	af := exec.Command("ip", "netns", "exec", ns.Name, bin, "capture", "-i", "veth0", "--workers", "1", "--json", "--count", n, "--duration", "2m")
	af.Stdout = &afOut
	afErr, err := af.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	td := exec.Command("ip", "netns", "exec", ns.Name, tcpdump, "-i", "veth0", "-U", "-B", "65536",
		"--time-stamp-precision=nano", "-w", "-", "-c", n, "udp port 4791")
	tdErr, err := td.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	st := exec.Command(bin, "capture", "--wire", "-", "--json")
	if st.Stdin, err = td.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	st.Stdout, st.Stderr = &streamOut, &streamErr
	for _, c := range []*exec.Cmd{af, td, st} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
	waitLine(t, afErr, "capturing RoCE on veth0", 30*time.Second)
	waitLine(t, tdErr, "listening on veth0", 30*time.Second)

	sender := ns.Sender(t, "wire0")
	for i, f := range frames {
		sender.SendFrame(t, f)
		if i%200 == 199 {
			time.Sleep(5 * time.Millisecond) // the sniffer's ring and pipe drain
		}
	}
	wait := func(c *exec.Cmd, what string) {
		done := make(chan error, 1)
		go func() { done <- c.Wait() }()
		select {
		case err := <-done:
			var ee *exec.ExitError
			if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) { // 1: findings
				t.Fatalf("%s: %v", what, err)
			}
		case <-time.After(90 * time.Second):
			t.Fatalf("%s did not end within 90 s of the last frame", what)
		}
	}
	wait(af, "rdmatop capture -i veth0")
	wait(td, "tcpdump")
	wait(st, "rdmatop capture --wire -")

	var a, s struct {
		capture.Summary
		Findings []struct {
			Rule    string            `json:"rule"`
			Objects map[string]string `json:"objects"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(afOut.Bytes(), &a); err != nil {
		t.Fatalf("AF_PACKET capture's JSON: %v\n%.500s", err, afOut.String())
	}
	if err := json.Unmarshal(streamOut.Bytes(), &s); err != nil {
		t.Fatalf("stream capture's JSON: %v\n%.500s\n%s", err, streamOut.String(), streamErr.String())
	}
	if a.RoCEPackets != uint64(len(frames)) || s.RoCEPackets != a.RoCEPackets {
		t.Fatalf("RoCE packets: AF_PACKET %d, stream %d, sent %d", a.RoCEPackets, s.RoCEPackets, len(frames))
	}
	if s.Format != "pcap stream" || s.File != "stdin" || s.Interface != "" {
		t.Errorf("the stream is described as %q %q, interface %q", s.File, s.Format, s.Interface)
	}
	if !reflect.DeepEqual(a.Totals, s.Totals) {
		t.Errorf("totals differ:\nAF_PACKET %+v\nstream    %+v", a.Totals, s.Totals)
	}
	if !reflect.DeepEqual(a.Flows, s.Flows) {
		t.Errorf("flows differ:\nAF_PACKET %+v\nstream    %+v", a.Flows, s.Flows)
	}
	if !reflect.DeepEqual(a.Anomalies, s.Anomalies) || len(a.Anomalies) == 0 {
		t.Errorf("anomalies differ (or none: %d)", len(a.Anomalies))
	}
	if !reflect.DeepEqual(a.Findings, s.Findings) || len(a.Findings) == 0 {
		t.Errorf("findings differ (or none):\nAF_PACKET %+v\nstream    %+v", a.Findings, s.Findings)
	}
}

// --once --json with the wire from standard input: the wire it prints is
// the analysis replay gives of the same capture, and its status says
// where the stream ended.
func TestOnceWireStream(t *testing.T) {
	bin := buildRdmatop(t)
	const file = "../../testdata/rxe/pcap/lossy1.pcap"
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	once := exec.Command(bin, "--once", "--json", "--wire", "-", "--interval", "2s")
	once.Stdin = bytes.NewReader(raw)
	out, err := once.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatalf("--once --json --wire -: %v", err)
	}
	var got struct {
		Wire   capture.Summary `json:"wire"`
		Status []struct {
			Source, State, Detail string
		} `json:"status"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%.500s", err, out)
	}
	rep, err := exec.Command(bin, "replay", file, "--json").Output()
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		t.Fatal(err)
	}
	var want capture.Summary
	if err := json.Unmarshal(rep, &want); err != nil {
		t.Fatal(err)
	}
	// --once's wire is its interval: rates over the interval, the first
	// PSN the interval saw. The counts are the capture's.
	if want.RoCEPackets == 0 || got.Wire.RoCEPackets != want.RoCEPackets || !reflect.DeepEqual(got.Wire.Totals, want.Totals) {
		t.Errorf("--once's wire differs from replay's:\n%+v\n%+v", got.Wire.Totals, want.Totals)
	}
	if len(got.Wire.Flows) != len(want.Flows) {
		t.Fatalf("%d flows, replay %d", len(got.Wire.Flows), len(want.Flows))
	}
	for i, w := range want.Flows {
		g := got.Wire.Flows[i]
		g.Gbps, g.FirstPSN, g.FirstTS = w.Gbps, w.FirstPSN, w.FirstTS
		if !reflect.DeepEqual(g, w) {
			t.Errorf("flow %d: --once %+v\nreplay %+v", w.ID, got.Wire.Flows[i], w)
		}
	}
	ended := false
	for _, s := range got.Status {
		ended = ended || s.Source == "capture stdin" && strings.Contains(s.Detail, "stdin ended after 4972 packets")
	}
	if !ended {
		t.Errorf("no status says where the stream ended: %+v", got.Status)
	}
}
