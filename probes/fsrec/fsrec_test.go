package fsrec

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// Reads through a Recorder, then the same reads on the replayed Tree
// (after a JSON round trip), give the same answers, errors included.
func TestRecordAndReplay(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "sys/class/net/eth0"), 0o755)
	os.WriteFile(filepath.Join(root, "sys/class/net/eth0/mtu"), []byte("9000\n"), 0o644)
	os.Symlink("../../devices/pci0000:00/0000:3b:00.0", filepath.Join(root, "sys/class/net/eth0/device"))
	rec := NewRecorder(os.DirFS(root))

	type answer struct {
		Data  string
		Names []string
		Link  string
		Err   string
	}
	ask := func(fsys fs.FS) []answer {
		var out []answer
		b, err := fs.ReadFile(fsys, "sys/class/net/eth0/mtu")
		out = append(out, answer{Data: string(b), Err: errString(err)})
		ents, err := fs.ReadDir(fsys, "sys/class/net/eth0")
		var names []string
		for _, e := range ents {
			names = append(names, e.Name()+e.Type().String())
		}
		out = append(out, answer{Names: names, Err: errString(err)})
		l, err := fs.ReadLink(fsys, "sys/class/net/eth0/device")
		out = append(out, answer{Link: l, Err: errString(err)})
		_, err = fs.ReadFile(fsys, "sys/class/net/eth0/speed")
		out = append(out, answer{Err: errString(err)})
		return out
	}
	live := ask(rec)
	tree := rec.Take()
	js, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	var back Tree
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	replayed := ask(back)
	if !reflect.DeepEqual(live, replayed) {
		t.Errorf("live %+v\nreplay %+v", live, replayed)
	}
	if live[0].Data != "9000\n" || live[2].Link == "" || live[3].Err == "" {
		t.Errorf("unexpected live answers %+v", live)
	}
	if len(rec.Take()) != 0 {
		t.Error("Take did not start afresh")
	}
}

func TestRecordedErrno(t *testing.T) {
	tr := Tree{"sys/x": {Errno: int(syscall.EAGAIN)}, "sys/y": {Errno: int(syscall.EACCES)}}
	if _, err := tr.ReadFile("sys/x"); !errors.Is(err, syscall.EAGAIN) {
		t.Errorf("EAGAIN not replayed: %v", err)
	}
	if _, err := tr.ReadFile("sys/y"); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("EACCES not replayed as a permission error: %v", err)
	}
	if _, err := tr.ReadFile("sys/z"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("unrecorded path: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ":" + pe.Err.Error()
	}
	return err.Error()
}

// A failed readlink on a regular file does not spoil reading the file.
func TestReadLinkOnFile(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o644)
	rec := NewRecorder(os.DirFS(root))
	if _, err := fs.ReadLink(rec, "f"); err == nil {
		t.Fatal("readlink of a file succeeded")
	}
	if b, err := fs.ReadFile(rec, "f"); err != nil || string(b) != "x" {
		t.Fatalf("live read: %q %v", b, err)
	}
	tr := rec.Take()
	if _, err := tr.ReadLink("f"); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("replayed readlink: %v", err)
	}
	if b, err := tr.ReadFile("f"); err != nil || string(b) != "x" {
		t.Errorf("replayed read after a failed readlink: %q %v", b, err)
	}
}

func TestPortCounters(t *testing.T) {
	s := func(v string) *string { return &v }
	tree := Tree{
		"sys/class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer":                           {Data: s("42\n")},
		"sys/devices/pci0000:00/0000:00:02.0/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer": {Data: s("42\n")},
		"sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data":                              {Data: s("7")},
		"sys/class/infiniband/mlx5_0/ports/2/counters/port_rcv_data":                              {Data: s("9")},   // port 2: not read
		"sys/class/infiniband/mlx5_0/ports/1/hw_counters/unreadable":                              {Errno: 13},      // no data
		"sys/class/infiniband/mlx5_0/ports/1/hw_counters/garbage":                                 {Data: s("n/a")}, // not a number
		"sys/class/net/eth0/statistics/rx_packets":                                                {Data: s("1")},   // not RDMA
	}
	paths, values := PortCounters(tree)
	want := map[string]uint64{"mlx5_0/hw_counters/out_of_buffer": 42, "mlx5_0/counters/port_rcv_data": 7}
	if len(values) != len(want) {
		t.Fatalf("values %v, want %v", values, want)
	}
	for id, v := range want {
		if values[id] != v {
			t.Errorf("%s = %d, want %d", id, values[id], v)
		}
	}
	if p := paths["mlx5_0/hw_counters/out_of_buffer"]; len(p) != 2 || p[0] > p[1] {
		t.Errorf("paths of out_of_buffer %v: want both keys, sorted", p)
	}
}
