package deploy

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/rdmatop/rdmatop/exporter"
	"github.com/rdmatop/rdmatop/rules"
)

// The manifests decode strictly into the Kubernetes API types (an unknown
// or misspelt field is an error, as `kubectl apply --validate=strict`
// makes it), and the DaemonSet asks for what docs/exporter.md says: no
// privileged container, no host device, read-only host mounts, only
// NET_ADMIN added.
func TestManifestsDecodeStrictly(t *testing.T) {
	data, err := os.ReadFile("kubernetes/daemonset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatal(err)
		}
		kinds[meta.Kind] = true
		switch meta.Kind {
		case "DaemonSet":
			var ds appsv1.DaemonSet
			if err := yaml.UnmarshalStrict(doc, &ds); err != nil {
				t.Fatalf("DaemonSet: %v", err)
			}
			checkDaemonSet(t, &ds)
		case "Service":
			var svc corev1.Service
			if err := yaml.UnmarshalStrict(doc, &svc); err != nil {
				t.Fatalf("Service: %v", err)
			}
			if svc.Spec.Ports[0].TargetPort.StrVal != "metrics" {
				t.Errorf("Service targets %v", svc.Spec.Ports[0].TargetPort)
			}
		case "PodMonitor":
			var pm monitoringv1.PodMonitor
			if err := yaml.UnmarshalStrict(doc, &pm); err != nil {
				t.Fatalf("PodMonitor: %v", err)
			}
			if p := pm.Spec.PodMetricsEndpoints[0]; p.Port == nil || *p.Port != "metrics" || p.Interval != "30s" {
				t.Errorf("PodMonitor endpoint %+v (alerts.yaml's for: durations assume 30 s scrapes)", p)
			}
		default:
			t.Errorf("unexpected kind %q", meta.Kind)
		}
	}
	for _, k := range []string{"DaemonSet", "Service", "PodMonitor"} {
		if !kinds[k] {
			t.Errorf("no %s", k)
		}
	}
	// Strict decoding is what catches a slip: a misspelt field fails.
	var ds appsv1.DaemonSet
	if err := yaml.UnmarshalStrict([]byte("apiVersion: apps/v1\nkind: DaemonSet\nspec:\n  templat: {}\n"), &ds); err == nil {
		t.Error("a misspelt field decoded")
	}
}

func checkDaemonSet(t *testing.T, ds *appsv1.DaemonSet) {
	t.Helper()
	spec := ds.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers", len(spec.Containers))
	}
	c := spec.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.Privileged != nil && *sc.Privileged {
		t.Error("the container is privileged")
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("root filesystem writable or privilege escalation allowed")
	}
	// No capability and no root: every read serve makes without -i is
	// one the kernel answers for any user (the manifest's comment says
	// which and where in the kernel). It ran as root to hold NET_ADMIN,
	// which no read of serve's needs.
	if caps := sc.Capabilities; caps == nil || !slices.Equal(caps.Drop, []corev1.Capability{"ALL"}) || len(caps.Add) > 0 {
		t.Errorf("capabilities %+v, want drop ALL, add none", caps)
	}
	if sc.RunAsUser == nil || *sc.RunAsUser != 65534 || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Errorf("the container runs as user %v (runAsNonRoot %v), want 65534, non-root", ptrText(sc.RunAsUser), ptrText(sc.RunAsNonRoot))
	}
	// QP dumps show a process's QPs only to its PID namespace.
	if !spec.HostPID || !spec.HostNetwork {
		t.Errorf("hostPID %v, hostNetwork %v: QP dumps and the netdevs are the pod's own", spec.HostPID, spec.HostNetwork)
	}
	// The one writable mount is the flight recorder's directory, where
	// --flight-recorder writes: a directory of its own on the node.
	flightDir := ""
	if i := slices.Index(c.Args, "--flight-recorder"); i >= 0 && i+1 < len(c.Args) {
		flightDir = c.Args[i+1]
	}
	mounts := map[string]bool{}
	for _, m := range c.VolumeMounts {
		if !m.ReadOnly && (m.MountPath != flightDir || m.Name != "flight") {
			t.Errorf("mount %s is writable", m.MountPath)
		}
		mounts[m.Name] = true
	}
	if flightDir == "" {
		t.Error("the DaemonSet runs without the flight recorder")
	}
	for _, v := range spec.Volumes {
		if !mounts[v.Name] {
			t.Errorf("volume %s is not mounted", v.Name)
		}
		// An unprivileged container gets no host device (the runtime's
		// device cgroup refuses /dev/kmsg).
		if hp := v.HostPath; hp != nil && (strings.HasPrefix(hp.Path, "/dev/") || hp.Type != nil && (*hp.Type == corev1.HostPathCharDev || *hp.Type == corev1.HostPathBlockDev)) {
			t.Errorf("volume %s mounts the host device %s into an unprivileged container", v.Name, hp.Path)
		}
		if hp := v.HostPath; v.Name == "flight" && (hp == nil || hp.Path != "/var/lib/rdmatop/flight") {
			t.Errorf("the flight recorder writes to %+v, not a directory of its own on the node", hp)
		}
	}
	checkProbes(t, &c)
	checkScheduling(t, &spec)
	checkFlightDir(t, &spec, flightDir)
	for _, doc := range []string{"../README.md", "../docs/exporter.md"} {
		checkDocSaysPrivileges(t, doc, sc)
	}
}

// ptrText is *p, or "unset".
func ptrText[T any](p *T) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}

// checkFlightDir: the kubelet creates the flight recorder's directory
// owned by root, which the container's user cannot write; one init
// container gives it to that user, as root with CAP_CHOWN alone.
func checkFlightDir(t *testing.T, spec *corev1.PodSpec, flightDir string) {
	t.Helper()
	if len(spec.InitContainers) != 1 {
		t.Fatalf("%d init containers, want the flight directory's", len(spec.InitContainers))
	}
	ic := spec.InitContainers[0]
	if want := []string{"chown", "65534:65534", flightDir}; !slices.Equal(ic.Command, want) || len(ic.Args) > 0 {
		t.Errorf("init container %s runs %q %q, want %q", ic.Name, ic.Command, ic.Args, want)
	}
	sc := ic.SecurityContext
	if sc == nil || sc.Privileged != nil && *sc.Privileged || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || !slices.Equal(sc.Capabilities.Add, []corev1.Capability{"CHOWN"}) {
		t.Errorf("init container %s: security context %+v, want CAP_CHOWN alone", ic.Name, sc)
	}
	if len(ic.VolumeMounts) != 1 || ic.VolumeMounts[0].Name != "flight" || ic.VolumeMounts[0].MountPath != flightDir {
		t.Errorf("init container %s mounts %+v, want the flight directory alone", ic.Name, ic.VolumeMounts)
	}
}

// checkDocSaysPrivileges: the DaemonSet's entry in doc says what the
// container is granted: its user, and no capability when none is added
// (README said "two capabilities" while the manifest added one).
func checkDocSaysPrivileges(t *testing.T, doc string, sc *corev1.SecurityContext) {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	i := strings.Index(text, "- `deploy/kubernetes/daemonset.yaml`")
	if i < 0 {
		t.Fatalf("%s has no entry for deploy/kubernetes/daemonset.yaml", doc)
	}
	entry := text[i:]
	if j := strings.Index(entry[1:], "\n- "); j >= 0 {
		entry = entry[:j+1]
	}
	entry = strings.Join(strings.Fields(entry), " ")
	if n := regexp.MustCompile(`\b(one|two|three|four) capabilit`).FindString(entry); n != "" {
		t.Errorf("%s says %q of the DaemonSet", doc, n)
	}
	for _, c := range sc.Capabilities.Add {
		if !strings.Contains(entry, string(c)) {
			t.Errorf("%s does not name the capability %s the DaemonSet adds", doc, c)
		}
	}
	if len(sc.Capabilities.Add) == 0 && !strings.Contains(entry, "no capability") {
		t.Errorf("%s does not say the DaemonSet adds no capability: %q", doc, entry)
	}
	if u := ptrText(sc.RunAsUser); !strings.Contains(entry, "user "+u) {
		t.Errorf("%s does not say the DaemonSet runs as user %s", doc, u)
	}
}

// NFD's label for a node with RDMA: its built-in rule sets it when the
// kernel modules ib_uverbs and rdma_ucm are loaded
// (node-feature-discovery, source/custom/static_features.go).
const nfdRDMA = "feature.node.kubernetes.io/rdma.available"

// checkScheduling: the pods go to RDMA nodes only (NFD's label, or the
// one the kit documents for clusters without NFD), and tolerate taints by
// name, never every taint: the DaemonSet tolerated everything and had no
// selector.
func checkScheduling(t *testing.T, spec *corev1.PodSpec) {
	t.Helper()
	// Each term (the terms are ORed) as "key=value,…".
	terms := map[string]bool{}
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			var exprs []string
			for _, e := range term.MatchExpressions {
				exprs = append(exprs, fmt.Sprintf("%s %s %v", e.Key, e.Operator, e.Values))
			}
			terms[strings.Join(exprs, ", ")] = true
		}
	}
	for _, want := range []string{nfdRDMA + " In [true]", "rdmatop/rdma In [true]"} {
		if !terms[want] || len(spec.NodeSelector) > 0 {
			t.Errorf("node affinity terms %v, node selector %v: want a term of %s alone, the terms of either label", terms, spec.NodeSelector, want)
		}
	}
	for _, tol := range spec.Tolerations {
		if tol.Key == "" || tol.Effect == "" {
			t.Errorf("toleration %+v tolerates every taint (or every effect)", tol)
		}
	}
}

// checkProbes: the liveness probe asks whether the process works (/livez),
// the readiness probe whether there is something to watch (/readyz), two
// paths the exporter serves. One /healthz for both restarted the pod on a
// node without RDMA every few minutes.
func checkProbes(t *testing.T, c *corev1.Container) {
	t.Helper()
	path := func(p *corev1.Probe) string {
		if p == nil || p.HTTPGet == nil {
			return ""
		}
		return p.HTTPGet.Path
	}
	live, ready := path(c.LivenessProbe), path(c.ReadinessProbe)
	if live != "/livez" || ready != "/readyz" {
		t.Errorf("liveness probe %q, readiness probe %q: want /livez and /readyz", live, ready)
	}
	pack, err := rules.Default()
	if err != nil {
		t.Fatal(err)
	}
	h := exporter.Handler(exporter.New(exporter.Options{Pack: pack}), exporter.ServerOptions{})
	for _, p := range []string{live, ready} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code == http.StatusNotFound {
			t.Errorf("the exporter does not serve the probe's path %q", p)
		}
	}
}

// The alerts pass promtool (the one place it runs): the file exporter.Alerts
// generated is valid, and the unit tests in
// prometheus/alerts_test.yaml hold (for: durations, RdmatopDown,
// staleness on receipt time).
func TestAlertsPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (Debian package prometheus; .ci/run installs it)")
	}
	for _, args := range [][]string{{"check", "rules", "alerts.yaml"}, {"test", "rules", "alerts_test.yaml"}} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = "prometheus"
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// The binary the image is made of (make image builds it into
// deploy/rdmatop) is ignored by git: an image build leaves nothing to be
// committed by mistake.
func TestImageBinaryIgnored(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	if err := exec.Command(git, "rev-parse", "--git-dir").Run(); err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	if out, err := exec.Command(git, "check-ignore", "--no-index", "-v", "rdmatop").CombinedOutput(); err != nil {
		t.Errorf("git does not ignore deploy/rdmatop (%v %s): a built binary would be committed", err, out)
	}
}

// The image builds as `make image` builds it: from the repository root
// (it used to build only from deploy/), with buildah and no base image to
// pull. It holds the static binary as its entrypoint, run as an
// unprivileged user by default, and the binary and the image's labels say
// the same version and revision: the ones git gives (they said "devel" and
// "" when go build could not read git, as in a worktree).
func TestImageBuilds(t *testing.T) {
	buildah, err := exec.LookPath("buildah")
	if err != nil {
		t.Skip("buildah is not installed (Debian package buildah; .ci/run installs it)")
	}
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	if os.Geteuid() != 0 {
		t.Skip("buildah builds here as root (vfs storage in a temporary directory)")
	}
	dir := t.TempDir()
	store := []string{"--root", filepath.Join(dir, "storage"), "--runroot", filepath.Join(dir, "run"), "--storage-driver", "vfs"}
	version, revision, stamp := imageStamp(t)
	args := append([]string{"-C", "..", "--no-print-directory", "image", "IMAGE=rdmatop:test",
		"IMAGE_BUILD=" + strings.Join(append(append([]string{buildah}, store...), "bud", "-q"), " ")}, stamp...)
	if out, err := exec.Command(mk, args...).CombinedOutput(); err != nil {
		t.Fatalf("make image: %v\n%s", err, out)
	}
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(buildah, append(slices.Clone(store), args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("buildah %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	cfg := run("inspect", "--type", "image", "--format", "{{.OCIv1.Config.Entrypoint}} {{.OCIv1.Config.Cmd}} {{.OCIv1.Config.User}} "+
		`{{index .OCIv1.Config.Labels "org.opencontainers.image.version"}} {{index .OCIv1.Config.Labels "org.opencontainers.image.revision"}}`, "rdmatop:test")
	if want := "[/rdmatop] [serve --listen :9879] 65534:65534 " + version + " " + revision; strings.TrimSpace(cfg) != want {
		t.Errorf("image config: %q, want %q", cfg, want)
	}
	// The binary in the image runs (static: scratch has no libc) and says
	// what it is.
	ctr := strings.TrimSpace(run("from", "rdmatop:test"))
	mnt := strings.TrimSpace(run("mount", ctr))
	defer func() {
		run("umount", ctr)
		run("rm", ctr)
	}()
	bin := filepath.Join(mnt, "rdmatop")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "rdmatop version "+version {
		t.Errorf("the image's /rdmatop --version: %v %q, want version %s", err, out, version)
	}
	if v, r := servedBuildInfo(t, bin); v != version || r != revision {
		t.Errorf("rdmatop_build_info{version=%q, revision=%q}, want %q, %q", v, r, version, revision)
	}
}

// imageStamp is the version and revision make image stamps: git's, from
// the Makefile's defaults, when this is a git checkout (stamp is then
// empty); otherwise fixed ones, passed to make as stamp.
func imageStamp(t *testing.T) (version, revision string, stamp []string) {
	t.Helper()
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		version, revision = "v0.0.0-imagetest", "0123456789abcdef0123456789abcdef01234567"
		return version, revision, []string{"VERSION=" + version, "REVISION=" + revision}
	}
	desc, err := exec.Command("git", "describe", "--tags", "--always", "--dirty").Output()
	if err != nil {
		t.Fatalf("git describe: %v", err)
	}
	return strings.TrimSpace(string(desc)), strings.TrimSpace(string(rev)), nil
}

// servedBuildInfo runs bin's exporter on a bundled capture and returns
// the version and revision of its rdmatop_build_info.
func servedBuildInfo(t *testing.T, bin string) (version, revision string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--listen", "127.0.0.1:0", "--replay", "../testdata/rxe/pcap/lossy1.pcap")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	m := regexp.MustCompile(`http://(\S+)/metrics`).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("rdmatop serve said %q (%v)", line, err)
	}
	info := regexp.MustCompile(`(?m)^rdmatop_build_info\{.*\}`)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + m[1] + "/metrics")
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if l := info.Find(body); l != nil {
			label := func(name string) string {
				if v := regexp.MustCompile(`[{,]` + name + `="([^"]*)"`).FindSubmatch(l); v != nil {
					return string(v[1])
				}
				return "(none)"
			}
			return label("version"), label("revision")
		}
	}
	t.Fatal("no rdmatop_build_info on /metrics in 20 s")
	return "", ""
}
