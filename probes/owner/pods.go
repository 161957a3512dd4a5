package owner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// PodsDir is where the kubelet keeps a directory per pod on the node,
// named NAMESPACE_NAME_UID (relative to the node's root, as in fs.FS). It
// is the node's own record of which pod a UID is, readable without the
// API server or the container runtime's socket.
const PodsDir = "var/log/pods"

// Pod is a pod's namespace and name.
type Pod struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
}

func (p Pod) String() string { return p.Namespace + "/" + p.Name }

// Pods maps pod UIDs to their namespace and name.
type Pods map[string]Pod

// ErrNoPods is matched (errors.Is) when the node has no PodsDir: not a
// Kubernetes node, or one whose kubelet keeps its logs elsewhere. Pods are
// then unknown, not absent.
var ErrNoPods = errors.New("no /" + PodsDir + " (not a Kubernetes node, or its kubelet logs elsewhere)")

// A namespace and a pod name are DNS labels and subdomains: lowercase
// letters, digits, '-' and '.', never '_', so the directory name splits
// at its underscores without ambiguity.
var dnsNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$`)

// ReadPods lists PodsDir of fsys (the node's root). Entries that are not
// a pod's directory are skipped.
func ReadPods(fsys fs.FS) (Pods, error) {
	ents, err := fs.ReadDir(fsys, PodsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoPods
	}
	if err != nil {
		return nil, fmt.Errorf("/%s: %w", PodsDir, err)
	}
	pods := Pods{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		ns, rest, ok := strings.Cut(e.Name(), "_")
		if !ok {
			continue
		}
		name, uid, ok := strings.Cut(rest, "_")
		if !ok || !dnsNameRE.MatchString(ns) || !dnsNameRE.MatchString(name) || !uidRE.MatchString(uid) {
			continue
		}
		pods[uid] = Pod{Namespace: ns, Name: name}
	}
	return pods, nil
}

// Materialize creates under dst the pod directories src (a recorded
// fsrec.Tree of the node's root, or any fs.FS) lists in PodsDir, empty, so
// that ReadPods(os.DirFS(dst)) reads what the recorded node had. Nothing
// is created when src has no PodsDir; it writes only below dst.
func Materialize(src fs.FS, dst string) error {
	pods, err := ReadPods(src)
	if errors.Is(err, ErrNoPods) {
		return nil
	}
	if err != nil {
		return err
	}
	for uid, p := range pods {
		d := filepath.Join(dst, filepath.FromSlash(PodsDir), p.Namespace+"_"+p.Name+"_"+uid)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	return nil
}
