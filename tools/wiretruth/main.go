// Command wiretruth writes what the network did to every RoCEv2 packet of
// a wire-truth run (test/lab/twopoint): it reads the run's two full-frame
// captures, one on each side of the impairment, and writes truth.json.gz
// (internal/wiretruth) and the captures cut to 128 bytes, all gzipped, the
// form testdata/wiretruth keeps:
//
//	go run ./tools/wiretruth -dir /tmp/wt/loss1-write -write testdata/wiretruth/loss1-write
package main

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rdmatop/rdmatop/internal/wiretruth"
)

// snaplen of the committed captures: every RoCEv2 header (Ethernet, IPv6,
// UDP, BTH and the largest extended headers) fits in 128 bytes.
const snaplen = 128

func main() {
	dir := flag.String("dir", "", "the run's directory: veth0.pcap, veth1.pcap and meta.txt")
	out := flag.String("write", "", "where to write truth.json and the cut captures (default: -dir)")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "usage: wiretruth -dir RUN [-write OUT]")
		os.Exit(2)
	}
	if *out == "" {
		*out = *dir
	}
	if err := run(*dir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "wiretruth:", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	sides := []string{"veth0", "veth1"}
	var caps [2][]wiretruth.Packet
	for i, s := range sides {
		var err error
		if caps[i], err = wiretruth.ReadPcap(wiretruth.FullCapture(dir, s)); err != nil {
			return err
		}
	}
	t, err := wiretruth.Analyze(sides[0], caps[0], sides[1], caps[1])
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	doc := struct {
		Run  string `json:"run"`
		Spec string `json:"spec,omitempty"`
		*wiretruth.Truth
	}{Run: filepath.Base(filepath.Clean(dir)), Spec: specOf(filepath.Join(dir, "meta.txt")), Truth: t}
	if err := writeTruth(filepath.Join(out, "truth.json.gz"), doc); err != nil {
		return err
	}
	for _, s := range sides {
		if err := cut(wiretruth.FullCapture(dir, s), filepath.Join(out, s+".pcap.gz")); err != nil {
			return err
		}
	}
	if meta, err := os.ReadFile(filepath.Join(dir, "meta.txt")); err == nil && filepath.Clean(dir) != filepath.Clean(out) {
		if err := os.WriteFile(filepath.Join(out, "meta.txt"), meta, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeTruth writes the truth as gzipped JSON (a run's events run to
// tens of thousands).
func writeTruth(path string, doc any) error {
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	o, err := os.Create(path)
	if err != nil {
		return err
	}
	z := gzip.NewWriter(o)
	if _, err := z.Write(append(b, '\n')); err != nil {
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	return o.Close()
}

func specOf(meta string) string {
	b, err := os.ReadFile(meta)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(b), "\n") {
		if s, ok := strings.CutPrefix(l, "spec: "); ok {
			return s
		}
	}
	return ""
}

// cut writes a pcap's frames cut to snaplen, gzipped.
func cut(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	o, err := os.Create(out)
	if err != nil {
		return err
	}
	z := gzip.NewWriter(o)
	w := pcapgo.NewWriterNanos(z)
	if err := w.WriteFileHeader(snaplen, r.LinkType()); err != nil {
		return err
	}
	for {
		data, ci, err := r.ReadPacketData()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		if len(data) > snaplen {
			data = data[:snaplen]
		}
		ci.CaptureLength = len(data)
		if err := w.WritePacket(ci, data); err != nil {
			return err
		}
	}
	if err := z.Close(); err != nil {
		return err
	}
	return o.Close()
}
