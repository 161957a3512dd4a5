package buildinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	for _, c := range []struct {
		in   Info
		want string
	}{
		{Info{Version: "v1.2.3", Revision: "0123456789abcdef0123"}, "v1.2.3"},
		{Info{Version: "devel", Revision: "0123456789abcdef0123"}, "devel+0123456789ab"},
		{Info{Version: "devel", Revision: "0123456789abcdef0123", Modified: true}, "devel+0123456789ab (modified)"},
		{Info{Version: "devel"}, "devel"},
	} {
		if got := c.in.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.in, got, c.want)
		}
	}
	if got := Read("v9.9.9", "").Version; got != "v9.9.9" {
		t.Errorf("override: %q", got)
	}
}

// -ldflags' revision is the one the binary says it is, with no time or
// modified flag of another checkout's.
func TestReadRevision(t *testing.T) {
	in := Read("v9.9.9", "0123456789abcdef0123456789abcdef01234567")
	if in.Version != "v9.9.9" || in.Revision != "0123456789abcdef0123456789abcdef01234567" || in.Time != "" || in.Modified {
		t.Errorf("Read with a revision: %+v", in)
	}
	if got := Read("", "0123456789abcdef0123").String(); got != "devel+0123456789ab" {
		t.Errorf("a devel build with a revision says %q", got)
	}
}

// A binary built in this git checkout knows its revision.
func TestBuiltBinaryKnowsItsRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	dirs, _ := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir").Output()
	if d := strings.Fields(string(dirs)); len(d) == 2 && d[0] != d[1] {
		// Go looks for a .git directory; a linked worktree has a .git file.
		t.Skip("a linked git worktree: go build records no revision here (golang/go#58218); make build stamps it with -ldflags")
	}
	bin := filepath.Join(t.TempDir(), "rdmatop")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "../../cmd/rdmatop")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), string(rev[:12])) {
		t.Errorf("rdmatop --version = %q, want revision %s", out, rev[:12])
	}
}
