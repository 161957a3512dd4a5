// Package buildinfo says which rdmatop this binary is: the module version
// and VCS revision the Go toolchain recorded in it (go build in a git
// checkout, go install …@version), so that --version and the exporter's
// build_info never say a bare "dev".
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Info describes the build.
type Info struct {
	Version   string // module version (v1.2.3), or "devel" for a local build
	Revision  string // VCS revision, "" when unknown
	Time      string // VCS commit time (RFC 3339), "" when unknown
	Modified  bool   // the working tree had uncommitted changes
	GoVersion string
}

// Read returns the binary's build information. version and revision,
// when set (from -ldflags "-X main.version=... -X main.revision=..."),
// override what the toolchain recorded: go build records no revision in a
// git worktree (golang/go#58218), without .git or with -buildvcs=false,
// and a container build often has neither.
func Read(version, revision string) Info {
	in := Info{Version: "devel"}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		in.GoVersion = bi.GoVersion
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			in.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.time":
				in.Time = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	if version != "" && version != "dev" {
		in.Version = version
	}
	if revision != "" && revision != in.Revision {
		// The toolchain's time and modified flag belong to the revision
		// it recorded (an enclosing checkout's, when any), not this one.
		in.Revision, in.Time, in.Modified = revision, "", false
	}
	return in
}

// String is the version for people: "v1.2.3", or "devel+0123abcd4567
// (modified)" for a local build, "devel" when nothing was recorded.
func (in Info) String() string {
	s := in.Version
	if in.Version == "devel" && in.Revision != "" {
		s += "+" + short(in.Revision)
		if in.Modified {
			s += " (modified)"
		}
	}
	return s
}

func short(rev string) string {
	rev = strings.TrimSpace(rev)
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
