package bounds

import "testing"

func panicMessage(f func()) (msg any) {
	defer func() { msg = recover() }()
	f()
	return nil
}

func TestMessages(t *testing.T) {
	for _, c := range []struct {
		f    func()
		want string
	}{
		{func() { Len("asm", "DotF32", 3, 4) }, "asm.DotF32: length mismatch 3 != 4"},
		{func() { Index("kern", "X", []int32{0, 5, -1}, 5) }, "kern.X: index ind[1] = 5 out of range [0, 5)"},
		{func() { Index("kern", "X", []int32{0, -1}, 5) }, "kern.X: index ind[1] = -1 out of range [0, 5)"},
		// A kernel that reports an index no slot of ind holds still panics.
		{func() { Index("asm", "Y", []int32{0, 1}, 5) }, "asm.Y: an index out of range [0, 5)"},
	} {
		if got := panicMessage(c.f); got != c.want {
			t.Errorf("panic %v, want %q", got, c.want)
		}
	}
}
