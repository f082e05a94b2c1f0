package main

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestInterruptedWithoutOut: an interrupted train with no -o says how many
// epochs ran and that nothing was saved, without "model saved: false" or
// the "context canceled" of the cause, which errors.Is still finds.
func TestInterruptedWithoutOut(t *testing.T) {
	r := &trainResult{Epochs: 3}
	err := r.finish(nil, nil, nil, trainOpts{}, nil, context.Canceled)
	if err == nil || err.Error() != "interrupted after 3 epochs (no -o: nothing saved)" {
		t.Fatalf("got %v; want the interrupt after 3 epochs and nothing saved", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v does not wrap context.Canceled", err)
	}
	for _, bad := range []string{"model saved", "context canceled"} {
		if strings.Contains(err.Error(), bad) {
			t.Errorf("%q says %q", err, bad)
		}
	}
}
