package saved

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

// check on the sosreport fixture (testdata/sosreport, sos's layout with
// real outputs) finds what its dumps hold, whether the report is a
// directory or a tarball.
func TestSosreport(t *testing.T) {
	dir := sosDir
	tgz := filepath.Join(t.TempDir(), "sosreport-roce01.tar.gz")
	txz := filepath.Join(t.TempDir(), "sosreport-roce01.tar.xz")
	writeTar(t, dir, tgz, func(w io.Writer) io.WriteCloser { return gzip.NewWriter(w) })
	writeTar(t, dir, txz, func(w io.Writer) io.WriteCloser {
		x, err := xz.NewWriter(w)
		if err != nil {
			t.Fatal(err)
		}
		return x
	})
	for _, p := range []string{dir, tgz, txz} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			res := load(t, p)
			s := last(res)
			mlx5 := portOf(t, s, "", 0, "enp175s0f0")
			if got := value(t, mlx5, "rx_prio0_bytes"); got != 2202570777997 {
				t.Errorf("enp175s0f0 rx_prio0_bytes %d", got)
			}
			if len(mlx5.PFC) != 0 {
				t.Errorf("mlx5 PFC %+v: none in this dump", mlx5.PFC)
			}
			bnxt := portOf(t, s, "", 0, "ens2f0np0")
			if len(bnxt.PFC) != 8 {
				t.Errorf("bnxt_en PFC on %d priorities, want 8", len(bnxt.PFC))
			}
			if len(s.Devices) != 2 || len(s.Config.GIDs) == 0 {
				t.Errorf("devices %v GIDs %d: ibv_devinfo -v not read", s.Devices, len(s.Config.GIDs))
			}
			kinds := map[string]int{}
			for _, e := range s.Events {
				kinds[e.Kind]++
			}
			if kinds["pcie_power"] != 1 || kinds["module_event"] != 1 {
				t.Errorf("events %v", kinds)
			}
			var sos *Input
			for i := range res.Inputs {
				if res.Inputs[i].Kind == KindSosreport {
					sos = &res.Inputs[i]
				}
			}
			if sos == nil || !strings.Contains(strings.Join(sos.Read, " "), "5 files") ||
				!strings.Contains(strings.Join(sos.Ignored, " "), "2 other files") {
				t.Errorf("sosreport summary %+v", sos)
			}
			if n := len(res.Inputs); n != 6 {
				t.Errorf("%d inputs, want the 5 outputs and the report: %+v", n, res.Inputs)
			}
		})
	}
}

// writeTar packs dir as sos does: one top directory.
func writeTar(t *testing.T, dir, out string, compress func(io.Writer) io.WriteCloser) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	top := filepath.Base(dir)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := compress(f)
	if _, err := zw.Write(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}
