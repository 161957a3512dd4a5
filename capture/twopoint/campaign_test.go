package twopoint

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// truthFlow is a flow of the lab's truth (internal/wiretruth's
// truth.json): what the network did between the two capture points,
// matched packet by packet by their bytes.
type truthFlow struct {
	Src          string `json:"src"`
	Dst          string `json:"dst"`
	DstQP        uint32 `json:"dest_qp"`
	Upstream     string `json:"upstream"`
	Sent         uint64 `json:"sent"`
	Delivered    uint64 `json:"delivered"`
	Lost         uint64 `json:"lost"`
	Corrupted    uint64 `json:"corrupted"`
	Duplicated   uint64 `json:"duplicated"`
	Reordered    uint64 `json:"reordered"`
	MaxOvertaken uint64 `json:"max_overtaken"`
	CEMarked     uint64 `json:"ce_marked"`
	Resent       uint64 `json:"resent"`
	Episodes     struct {
		NAK   uint64 `json:"nak"`
		RNR   uint64 `json:"rnr"`
		Timer uint64 `json:"timer"`
	} `json:"resend_episodes"`
}

func loadTruth(t *testing.T, dir string) []truthFlow {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "truth.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		Flows []truthFlow `json:"flows"`
	}
	if err := json.NewDecoder(z).Decode(&tr); err != nil {
		t.Fatal(err)
	}
	return tr.Flows
}

// Every run of the wire-truth campaign (testdata/wiretruth: two captures
// on either side of a netem impairment, Soft-RoCE in a VM): the fates
// rdmatop gives each flow equal the truth's, counted by the lab's tool
// (internal/wiretruth) from the whole frames, matching packets by all
// their bytes. The committed captures keep 128 bytes a frame.
func TestCampaignAgreesWithTheTruth(t *testing.T) {
	if testing.Short() {
		t.Skip("every campaign run: in the full pass (the package has no goroutines for -race to watch)")
	}
	dirs, _ := filepath.Glob("../../testdata/wiretruth/*/truth.json.gz")
	if len(dirs) < 40 {
		t.Fatalf("%d runs in testdata/wiretruth", len(dirs))
	}
	var bad []string
	var resent, resentTruth uint64
	for _, tj := range dirs {
		dir := filepath.Dir(tj)
		run := filepath.Base(dir)
		r, err := CompareFiles(filepath.Join(dir, "veth0.pcap.gz"), filepath.Join(dir, "veth1.pcap.gz"), Options{})
		if err != nil {
			t.Errorf("%s: %v", run, err)
			continue
		}
		for _, tf := range loadTruth(t, dir) {
			var got *FlowFate
			for i := range r.Flows {
				f := &r.Flows[i]
				if f.Src == tf.Src && f.Dst == tf.Dst && f.DestQP == tf.DstQP {
					got = f
				}
			}
			if got == nil {
				bad = append(bad, fmt.Sprintf("%s %s->%s qp %d: not compared", run, tf.Src, tf.Dst, tf.DstQP))
				continue
			}
			if got.Sender != nil {
				resent += got.Sender.Resent
				resentTruth += tf.Resent
			}
			up := map[string]string{"veth0": "A", "veth1": "B"}[tf.Upstream]
			want := Fate{Sent: tf.Sent, Delivered: tf.Delivered, Lost: tf.Lost, Corrupted: tf.Corrupted, Duplicated: tf.Duplicated,
				Reordered: tf.Reordered, MaxOvertaken: tf.MaxOvertaken, CEMarked: tf.CEMarked}
			g := got.Fate
			// The lab's captures ran together: what one sent after the
			// other's last packet was lost.
			g.Lost, g.Unknown, g.Appeared = g.Lost+g.Unknown, 0, 0
			if r.A.Unchecked+r.B.Unchecked > 0 {
				// Headers only (the committed captures are cut at 128
				// bytes; the truth was taken from the whole ones): a
				// packet corrupted past its headers is delivered here,
				// one corrupted in them is told by the copy that matches
				// nothing. Arrived is what both can say.
				want.Delivered, want.Corrupted = want.Delivered+want.Corrupted, 0
				g.Delivered, g.Corrupted = g.Delivered+g.Corrupted, 0
			}
			if got.Upstream != up || g != want {
				bad = append(bad, fmt.Sprintf("%s %s->%s qp %d: upstream %s (truth %s)\n   got  %+v\n   want %+v", run, tf.Src, tf.Dst, tf.DstQP, got.Upstream, up, g, want))
			}
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d flows differ from the truth:\n%s", len(bad), strings.Join(bad, "\n"))
	}
	// What the senders did comes from each capture's own analysis: the
	// packets they sent again, against the truth's count of sendings of
	// the same bytes.
	t.Logf("senders resent %d packets, the truth %d", resent, resentTruth)
	if resentTruth == 0 || !near(resent, resentTruth) {
		t.Errorf("senders resent %d packets, the truth %d", resent, resentTruth)
	}
}
