package kernels

import (
	"math"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"
)

// FuzzParse: any kernel spec either fails with ErrKernel or gives a kernel
// that passes Check, whose String parses back to the same kernel, and
// whose values on small rows are finite.
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 60s ./kernels/
func FuzzParse(f *testing.F) {
	for _, s := range []string{"rbf", "rbf:gamma=2", "poly:degree=3,gamma=0.5,coef0=1", "sigmoid:gamma=1e-3,coef0=-1", "linear",
		"rbf:gamma=NaN", "poly:degree=33", "poly:degree=1e9", "rbf:gamma=1e31", "rbf:gamma=2,gamma=3", "cubic", "rbf:", ":", "poly:degree=2,"} {
		f.Add(s)
	}
	x := []float32{0.5, -1, 2}
	z := []float32{1, 0.25, -0.5}
	f.Fuzz(func(t *testing.T, spec string) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		k, err := Parse(spec)
		if err != nil {
			return
		}
		if err := Check(k); err != nil {
			t.Fatalf("Parse(%q) = %v, which fails Check: %v", spec, k, err)
		}
		back, err := Parse(k.String())
		if err != nil || back.String() != k.String() {
			t.Fatalf("Parse(%q) = %v; its String %q parses to %v, %v", spec, k, k.String(), back, err)
		}
		if v := k.Dense(x, z); math.IsNaN(float64(v)) {
			t.Fatalf("%v on small rows: NaN", k)
		}
	})
}
