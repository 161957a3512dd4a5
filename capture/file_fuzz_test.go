package capture

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// FuzzFileSource feeds arbitrary bytes to the capture file reader and the
// analyzer: no panic, and every failure is a clean error.
func FuzzFileSource(f *testing.F) {
	for _, p := range []string{"../testdata/rxe/faults/invreq/capture.pcap", "../testdata/rxe/faults/remop/capture.pcap",
		"../testdata/pcaps/scapy-roce-uts_cnp-connectx4lx.pcap", "../testdata/pcaps/pcapplusplus-pr1603_softroce-rdma-read-req.pcap"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		var gz bytes.Buffer
		w := gzip.NewWriter(&gz)
		w.Write(data)
		w.Close()
		f.Add(gz.Bytes())
	}
	ng, err := os.ReadFile("../testdata/pcaps/oferby-proxy_roce.pcapng")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ng[:4096])
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := pcapfile.NewReader("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		a := NewAnalyzer(Config{TrackerConfig: TrackerConfig{MaxFlows: 4, MaxAnomalies: 8}})
		for range 10000 { // bounded: a pcapng can declare huge blocks
			data, ci, link, err := src.ReadPacket()
			if err == io.EOF {
				break
			}
			if err != nil {
				var ie *pcapfile.InputError
				if !errors.As(err, &ie) && !errors.Is(err, io.ErrUnexpectedEOF) {
					// pcapgo's own errors are acceptable, but must be errors.
					_ = err.Error()
				}
				break
			}
			a.Packet(data, ci, link)
		}
		s := a.Summary()
		if s.Packets != s.RoCEPackets+s.NonRoCEPackets {
			t.Fatalf("packets %d != RoCE %d + other %d", s.Packets, s.RoCEPackets, s.NonRoCEPackets)
		}
	})
}
