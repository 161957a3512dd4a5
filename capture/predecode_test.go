package capture

import (
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
)

// A frame decoded ahead by the analyzer's Predecoder (on the reader's
// goroutine in a replay) is analysed exactly as Packet analyses it: the
// same summary, flows and anomalies, on every capture of the oracle set
// (Ethernet, cooked and raw links, VLANs, RoCEv1, truncated and malformed
// packets, bad ICRCs), with the ICRC checked and not.
func TestPacketDecodedSameAsPacket(t *testing.T) {
	for _, path := range oracleCaptures(t) {
		for _, cfg := range []Config{{}, {NoICRC: true}} {
			direct, ahead := NewAnalyzer(cfg), NewAnalyzer(cfg)
			pd := ahead.Predecoder()
			if pd == nil {
				t.Fatal("an analyzer that does not sample the ICRC has no Predecoder")
			}
			src, err := pcapfile.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			var dec Predecoded
			for {
				data, ci, link, err := src.ReadPacket()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				direct.Packet(data, ci, link)
				pd.Decode(data, ci, link, &dec)
				ahead.PacketDecoded(data, ci, &dec)
			}
			src.Close()
			a, _ := json.Marshal(direct.Summary())
			b, _ := json.Marshal(ahead.Summary())
			if string(a) != string(b) {
				t.Errorf("%s (NoICRC %v): decoded ahead differs from Packet:\n%s\n%s", filepath.Base(path), cfg.NoICRC, a, b)
			}
		}
	}
}

// An analyzer that samples the ICRC decides packet by packet: it has no
// Predecoder.
func TestNoPredecoderWhileSampling(t *testing.T) {
	a := NewAnalyzer(Config{})
	a.SampleICRC(16)
	if a.Predecoder() != nil {
		t.Error("a sampling analyzer gave a Predecoder")
	}
}
