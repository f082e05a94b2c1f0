package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/hyperplane-ml/hyperplane/asm"
)

func newVersionCmd() *Command {
	return newReport(&Command{
		UsageLine: "version",
		Short:     "show the module version, the source revision and the Go toolchain",
		Long: `Version prints what the build records about itself: the module version
("(devel)" for a build from a source tree), the VCS revision and time it was
built from and whether the tree had uncommitted changes, the Go version, the
platform, and the SIMD tier in use, so that a benchmark report or a bug
report says which code ran.`,
	}, buildVersion, printVersion)
}

// printVersion prints what the build records about itself, v.
func printVersion(out io.Writer, v versionInfo) {
	rev := v.Revision
	if rev == "" {
		rev = "unknown (built without VCS information)"
	}
	if v.Time != "" {
		rev += " " + v.Time
	}
	if v.Modified {
		rev += " (modified)"
	}
	fmt.Fprintf(out, "hyperplane %s\nrevision: %s\ngo:       %s %s/%s\ntier:     %s\n", v.Version, rev, v.Go, v.OS, v.Arch, v.Tier)
}

// versionInfo is what a build knows about itself.
type versionInfo struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	Tier     string `json:"tier"`
	// GOAMD64 is the amd64 microarchitecture level the build targeted.
	GOAMD64 string `json:"goamd64,omitempty"`
}

func buildVersion() versionInfo {
	v := versionInfo{Module: "github.com/hyperplane-ml/hyperplane", Version: "(devel)", Go: runtime.Version(),
		OS: runtime.GOOS, Arch: runtime.GOARCH, Tier: asm.Active().String()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		case "GOAMD64":
			v.GOAMD64 = s.Value
		}
	}
	return v
}
