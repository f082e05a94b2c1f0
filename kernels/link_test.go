package kernels

import (
	"go/build"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestNoasmLinksNoVek: a noasm build promises portable Go only, and vek32
// ships AVX2 assembly that picks itself by CPU, whatever our tier. The
// build of this package (and of the command) with -tags noasm must not
// depend on vek at all; the amd64 build with assembly does, for RBF's
// vectorized passes.
func TestNoasmLinksNoVek(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(build.Default.GOROOT, "bin", "go")
	}
	deps := func(tags ...string) string {
		args := append([]string{"list", "-deps"}, tags...)
		args = append(args, ".", "../cmd/hyperplane")
		out, err := exec.Command(goTool, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if d := deps("-tags", "noasm"); strings.Contains(d, "github.com/viterin/vek") {
		t.Errorf("a noasm build depends on vek:\n%s", d)
	}
	if runtime.GOARCH == "amd64" {
		if d := deps(); !strings.Contains(d, "github.com/viterin/vek/vek32") {
			t.Errorf("the amd64 build no longer uses vek32; update RBF.Apply's documentation")
		}
	}
}
