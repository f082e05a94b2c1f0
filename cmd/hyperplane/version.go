package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/hyperplane-ml/hyperplane/asm"
)

var versionCmd = &command{
	name:  "version",
	short: "show the module version, the source revision and the Go toolchain",
	long: `Version prints what the build records about itself: the module version
("(devel)" for a build from a source tree), the VCS revision and time it was
built from and whether the tree had uncommitted changes, the Go version, the
platform, and the SIMD tier in use, so that a benchmark report or a bug
report says which code ran.`,
	flags: func(fs *flag.FlagSet) func([]string, io.Writer) error {
		asJSON := fs.Bool("json", false, "print the report as JSON")
		return func(args []string, out io.Writer) error {
			if len(args) > 0 {
				return fmt.Errorf("%w: version takes no arguments", errUsage)
			}
			v := buildVersion()
			if *asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			rev := v.Revision
			if rev == "" {
				rev = "unknown"
			}
			if v.Modified {
				rev += " (modified)"
			}
			fmt.Fprintf(out, "hyperplane %s\nrevision: %s %s\ngo:       %s %s/%s\ntier:     %s\n", v.Version, rev, v.Time, v.Go, v.OS, v.Arch, v.Tier)
			return nil
		}
	},
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
		}
	}
	return v
}
