package capture

import (
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdmatop/rdmatop/capture/pcapfile"
	"github.com/rdmatop/rdmatop/capture/roce"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/internal/wiretruth"
)

// The wire-truth campaign (testdata/wiretruth, test/lab/twopoint): real
// Soft-RoCE runs with a netem impairment between two captures, and the
// truth of every packet from tools/wiretruth, which matches the two
// captures by their bytes. Every run is replayed from each capture point
// and each flow's counts must equal what that point can see of the truth.
// `go test ./capture -run TestWireTruth -update-wiretruth` rewrites the
// campaign table, testdata/wiretruth/CAMPAIGN.md.

var updateWireTruth = flag.Bool("update-wiretruth", false, "rewrite testdata/wiretruth/CAMPAIGN.md")

const wireTruthDir = "../testdata/wiretruth/"

// truthRun is one committed run: truth.json beside its two captures.
type truthRun struct {
	Run  string `json:"run"`
	Spec string `json:"spec"`
	wiretruth.Truth
}

// wtCounts names the counts compared, in table order. The comparison and
// each count's tolerance, argued there, are wiretruth.FlowTruth.Compare's
// (tools/campaign-score judges the randomized campaign with them too).
var wtCounts = wiretruth.CountNames

type wtResult struct {
	run, point, kind, fault, verb string
	side                          string // up or down: where the point sits for this flow
	counts                        map[string][2]uint64
	agree                         map[string]bool
}

func loadTruthRuns(t *testing.T) []truthRun {
	t.Helper()
	paths, err := filepath.Glob(wireTruthDir + "*/truth.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	var runs []truthRun
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		var r truthRun
		err = json.NewDecoder(z).Decode(&r)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		runs = append(runs, r)
	}
	return runs
}

func TestWireTruthCampaign(t *testing.T) {
	runs := loadTruthRuns(t)
	if len(runs) < 40 {
		t.Errorf("the campaign holds %d runs, want at least 40", len(runs))
	}
	var results, zeroed []wtResult
	tmp := t.TempDir()
	for _, r := range runs {
		fault, verb := faultOf(r.Spec)
		for _, c := range r.Captures {
			path := filepath.Join(wireTruthDir, r.Run, c.Name+".pcap.gz")
			results = append(results, compareRun(t, r, c.Name, analyze(t, path, Config{}), fault, verb, true)...)
			z := filepath.Join(tmp, r.Run+"-"+c.Name+".pcap")
			zeroIPIDs(t, path, z)
			zeroed = append(zeroed, compareRun(t, r, c.Name, analyze(t, z, Config{}), fault, verb, false)...)
		}
	}
	table := campaignTable(runs, results, zeroed)
	if *updateWireTruth {
		if err := os.WriteFile(wireTruthDir+"CAMPAIGN.md", []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if got, err := os.ReadFile(wireTruthDir + "CAMPAIGN.md"); err != nil || string(got) != table {
		t.Errorf("testdata/wiretruth/CAMPAIGN.md is not current: go test ./capture -run TestWireTruth -update-wiretruth")
	}
}

// compareRun compares one capture point's analysis with the truth, and
// fails the test on a disagreement beyond tolerance when strict.
func compareRun(t *testing.T, r truthRun, point string, s *Summary, fault, verb string, strict bool) []wtResult {
	t.Helper()
	byKey := map[string]*FlowSummary{}
	for i := range s.Flows {
		f := &s.Flows[i]
		byKey[fmt.Sprintf("%s>%s/%d", f.Src, f.Dst, f.DestQP)] = f
	}
	var results []wtResult
	for i := range r.Flows {
		ft := &r.Flows[i]
		if ft.Seen[ft.Upstream].Packets == 0 {
			continue // no PSN stream to follow: ACKs, CNPs, UD
		}
		res := wtResult{run: r.Run, point: point, kind: ft.Kind, fault: fault, verb: verb,
			side: "down", counts: map[string][2]uint64{}, agree: map[string]bool{}}
		if point == ft.Upstream {
			res.side = "up"
		}
		f := byKey[fmt.Sprintf("%s>%s/%d", ft.Src, ft.Dst, ft.DstQP)]
		if f == nil {
			if strict && ft.Seen[point].Packets > 0 {
				t.Errorf("%s at %s: flow %s>%s qp %d not in the analysis", r.Run, point, ft.Src, ft.Dst, ft.DstQP)
			}
			continue
		}
		got := wiretruth.Counts{Missing: f.MissingPSNs, Duplicates: f.Duplicates, OutOfOrder: f.OutOfOrder,
			Resent: f.RetransmittedPackets, Episodes: f.GoBackN}
		for _, c := range ft.Compare(point, got) {
			res.counts[c.Name] = [2]uint64{c.Got, c.Want}
			res.agree[c.Name] = c.Agrees()
			if strict && !c.Agrees() {
				t.Errorf("%s at %s (%s, %s side): %s %d, truth %d (tolerance %d)", r.Run, point, ft.Kind, res.side, c.Name, c.Got, c.Want, c.Tolerance)
			}
		}
		results = append(results, res)
	}
	return results
}

// zeroIPIDs writes a copy of a capture with every IPv4 identification
// 0 (and the header checksum mended), as hardware RoCE NICs send.
func zeroIPIDs(t *testing.T, in, out string) {
	t.Helper()
	src, err := pcapfile.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pcapgo.NewWriterNanos(f)
	if err := w.WriteFileHeader(src.Snaplen, src.LinkType()); err != nil {
		t.Fatal(err)
	}
	for {
		data, ci, _, err := src.ReadPacket()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		b := append([]byte(nil), data...)
		if len(b) >= 34 && binary.BigEndian.Uint16(b[12:]) == 0x0800 {
			ip := b[14:34]
			ip[4], ip[5], ip[10], ip[11] = 0, 0, 0, 0
			var sum uint32
			for i := 0; i < 20; i += 2 {
				sum += uint32(binary.BigEndian.Uint16(ip[i:]))
			}
			for sum > 0xffff {
				sum = sum&0xffff + sum>>16
			}
			binary.BigEndian.PutUint16(ip[10:], ^uint16(sum))
			sealICRC(b, ci.CaptureLength == ci.Length)
		}
		if err := w.WritePacket(ci, b); err != nil {
			t.Fatal(err)
		}
	}
}

// sealICRC writes the ICRC of a whole untagged IPv4 RoCEv2 frame, which
// covers the IP identification: a NIC that sends ID 0 computes it so.
func sealICRC(b []byte, whole bool) {
	if !whole || len(b) < 14+20+8+roce.BTHLen+4 || binary.BigEndian.Uint16(b[36:]) != 4791 {
		return
	}
	ip, udp := b[14:34], b[34:]
	n := int(binary.BigEndian.Uint16(udp[4:]))
	if n < 8+roce.BTHLen+4 || n > len(udp) {
		return
	}
	binary.LittleEndian.PutUint32(udp[n-4:], roce.ICRCv4(ip, udp[:8], udp[8:n-4]))
}

// faultOf names a run's impairment and workload from its spec line
// (name | workload | A->B netem | B->A netem | perftest args).
func faultOf(spec string) (fault, verb string) {
	parts := strings.Split(spec, "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	if len(parts) < 4 {
		return "?", "?"
	}
	verb = strings.TrimSuffix(parts[1], "-lim")
	kind := func(netem string) string {
		var ks []string
		f := strings.Fields(netem)
		for i, w := range f {
			switch w {
			case "loss":
				if slices.Contains(f, "ecn") {
					ks = append(ks, "ce-mark")
				} else {
					ks = append(ks, "loss")
				}
			case "duplicate", "corrupt", "rate":
				ks = append(ks, w)
			case "reorder":
				ks = append(ks, "reorder")
			case "delay":
				if !slices.Contains(f, "reorder") && i == 0 {
					ks = append(ks, "delay")
				}
			}
		}
		return strings.Join(ks, "+")
	}
	var fs []string
	if k := kind(parts[2]); k != "" {
		fs = append(fs, k+" A→B")
	}
	if k := kind(parts[3]); k != "" {
		fs = append(fs, k+" B→A")
	}
	if len(fs) == 0 {
		return "none", verb
	}
	return strings.Join(fs, ", "), verb
}

func campaignTable(runs []truthRun, results, zeroed []wtResult) string {
	var b strings.Builder
	b.WriteString("# The wire-truth campaign: rdmatop against what the network did\n\n")
	b.WriteString("Generated by `go test ./capture -run TestWireTruth -update-wiretruth` from the runs in this\n")
	b.WriteString("directory (see [MANIFEST.md](MANIFEST.md) and [docs/wiretruth.md](../../docs/wiretruth.md)). Each\n")
	b.WriteString("run is replayed from both capture points; for every flow, rdmatop's counts are compared with\n")
	b.WriteString("what that point can see of the truth (`internal/wiretruth`: packets matched by their bytes\n")
	b.WriteString("across the impairment). A count agrees when it is within its tolerance: none for *missing*\n")
	b.WriteString("and *duplicates*; the corrupted packets for *out_of_order*; 1 % (at least 2) for *resent*; 1\n")
	b.WriteString("for *episodes* (counted at the sender's side only). The reasons are beside `FlowTruth.Compare` in\n")
	b.WriteString("`internal/wiretruth/agree.go`, and the test fails on any disagreement beyond them.\n\n")
	fmt.Fprintf(&b, "%d runs, %d flow observations.\n\n", len(runs), len(results))
	b.WriteString("## Agreement by fault and workload\n\n")
	b.WriteString("Flow observations within tolerance, of those compared.\n\n")
	agreementTable(&b, results)
	b.WriteString("\n## Without the sender's order: IPv4 IDs zeroed\n\n")
	b.WriteString("The same captures with every IPv4 identification set to 0, as hardware RoCE NICs send it.\n")
	b.WriteString("rdmatop then cannot tell a late packet from a resend nor a copy from a resend by the\n")
	b.WriteString("packet itself and falls back to PSNs and timing; this half is measured, not required.\n\n")
	agreementTable(&b, zeroed)
	b.WriteString("\n## Every observation\n\n")
	b.WriteString("rdmatop / truth for each count, as captured; **bold** beyond tolerance.\n\n")
	b.WriteString("| run | point | flow | side |")
	for _, k := range wtCounts {
		b.WriteString(" " + k + " |")
	}
	b.WriteString("\n|---|---|---|---|" + strings.Repeat("---|", len(wtCounts)) + "\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |", r.run, r.point, r.kind, r.side)
		for _, k := range wtCounts {
			c, ok := r.counts[k]
			switch {
			case !ok:
				b.WriteString(" – |")
			case r.agree[k]:
				fmt.Fprintf(&b, " %d / %d |", c[0], c[1])
			default:
				fmt.Fprintf(&b, " **%d / %d** |", c[0], c[1])
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// agreementTable writes, per fault and workload, how many observations
// of each count agree.
func agreementTable(b *strings.Builder, results []wtResult) {
	type agg struct{ agree, total int }
	byFault := map[string]map[string]*agg{}
	var order []string
	totals := map[string]*agg{}
	for _, r := range results {
		key := r.fault + " | " + r.verb
		if byFault[key] == nil {
			byFault[key] = map[string]*agg{}
			order = append(order, key)
		}
		for name, ok := range r.agree {
			for _, m := range []map[string]*agg{byFault[key], totals} {
				a := m[name]
				if a == nil {
					a = &agg{}
					m[name] = a
				}
				a.total++
				if ok {
					a.agree++
				}
			}
		}
	}
	slices.Sort(order)
	b.WriteString("| fault | workload |")
	for _, k := range wtCounts {
		b.WriteString(" " + k + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(wtCounts)) + "\n")
	row := func(f, v string, m map[string]*agg) {
		fmt.Fprintf(b, "| %s | %s |", f, v)
		for _, k := range wtCounts {
			if a := m[k]; a != nil {
				fmt.Fprintf(b, " %d/%d |", a.agree, a.total)
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
	for _, key := range order {
		f, v, _ := strings.Cut(key, " | ")
		row(f, v, byFault[key])
	}
	row("**all**", "", totals)
}
