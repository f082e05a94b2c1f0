package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
)

// TestConfigCheck: Check accepts the zero Config and refuses each bad
// option with ErrConfig, and with the very error Fit and FitKernel give
// for it on real data, so a caller that checks first learns what fitting
// would say.
func TestConfigCheck(t *testing.T) {
	X := &sparse.CSR{Rows: 2, Cols: 2, Indptr: []int64{0, 1, 2}, Ind: []int32{0, 1}, Val: []float32{1, 1}}
	y := []float64{-1, 1}
	if err := (Config{}).Check(); err != nil {
		t.Fatalf("zero Config: %v", err)
	}
	if err := (KernelConfig{}).Check(); err != nil {
		t.Fatalf("zero KernelConfig: %v", err)
	}
	for _, c := range []Config{
		{Epochs: -1},
		{Workers: MaxWorkers + 1},
		{Rule: PA, C: 1},
		{Algorithm: Voted, Workers: 2},
		{Validation: 1},
		{Rule: Pegasos, Alpha: -1},
	} {
		err := c.Check()
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: Check gave %v, want ErrConfig", c, err)
			continue
		}
		if _, _, ferr := Fit(context.Background(), X, y, c); ferr == nil || ferr.Error() != err.Error() {
			t.Errorf("%+v: Check gave %q, Fit %v", c, err, ferr)
		}
	}
	for _, c := range []KernelConfig{
		{Config: Config{Epochs: -1}},
		{Config: Config{Normalize: true}},
		{Config: Config{Algorithm: Batch}},
		{Config: Config{Rule: Pegasos}},
		{MaxSupportVectors: -1, Config: Config{Algorithm: Plain}},
		{MaxSupportVectors: 5},
	} {
		err := c.Check()
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: Check gave %v, want ErrConfig", c, err)
			continue
		}
		if _, _, ferr := FitKernel(context.Background(), X, y, c); ferr == nil || ferr.Error() != err.Error() {
			t.Errorf("%+v: Check gave %q, FitKernel %v", c, err, ferr)
		}
	}
	// What only the kernel learners refuse, the linear ones take.
	if err := (Config{Normalize: true}).Check(); err != nil {
		t.Errorf("Normalize refused for a linear learner: %v", err)
	}
}

// A service checks a learner's options when a request names them, before
// it reads any data.
func ExampleConfig_Check() {
	for _, cfg := range []Config{{Rule: PA2, C: 0.5}, {Rule: PA, C: 0.5}} {
		fmt.Println(cfg.Check())
	}
	// Output:
	// <nil>
	// engine: bad config: C is the parameter of rules PA1 and PA2, not pa
}
