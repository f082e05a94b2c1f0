package libsvm

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/internal/readopt"
)

// TestMaxNNZ: a data set with more nonzeros than ReadOptions.MaxNNZ is
// refused by the readers that load it whole (with a hint to stream it),
// at any worker count and block size, while the streaming readers ignore
// the cap; exactly MaxNNZ nonzeros load.
func TestMaxNNZ(t *testing.T) {
	var b strings.Builder
	for i := range 500 {
		b.WriteString("1 1:1 3:2 7:0.5\n") // 3 nonzeros a row
		if i%7 == 0 {
			b.WriteString("-1\n")
		}
	}
	data := []byte(b.String())
	const nnz = 1500
	for _, o := range []chunked{{sparse.ReadOptions{Workers: 1}, 0}, {sparse.ReadOptions{Workers: 4}, 0}, {sparse.ReadOptions{Workers: 3}, 64}} {
		t.Run(fmt.Sprintf("workers=%d/chunk=%d", o.Workers, o.chunk), func(t *testing.T) {
			o.MaxNNZ = nnz - 1
			_, err := read(bytes.NewReader(data), o.ReadOptions, o.chunk)
			if !errors.Is(err, sparse.ErrTooLarge) || !strings.Contains(err.Error(), "MaxNNZ = 1499") {
				t.Fatalf("%+v: err %v, want sparse.ErrTooLarge naming the cap", o, err)
			}
			o.MaxNNZ = nnz
			d, err := read(bytes.NewReader(data), o.ReadOptions, o.chunk)
			if err != nil || d.X.NNZ() != nnz {
				t.Fatalf("%+v at the cap: err %v", o, err)
			}
		})
	}
	sc := NewScanner(bytes.NewReader(data), sparse.ReadOptions{MaxNNZ: 1})
	rows := 0
	for sc.Scan() {
		rows++
	}
	if sc.Err() != nil || rows != 500+72 {
		t.Fatalf("Scanner with MaxNNZ 1: %d rows, err %v", rows, sc.Err())
	}
	if _, err := Read(bytes.NewReader(data), sparse.ReadOptions{MaxNNZ: -1}); !errors.Is(err, sparse.ErrBadOption) {
		t.Fatalf("MaxNNZ -1: err %v", err)
	}
}

// TestMaxNNZFirstProblem: whichever comes first in the file is reported,
// every time, at any worker count and block size: a bad line before the
// data pass MaxNNZ, or MaxNNZ passed before a bad line.
func TestMaxNNZFirstProblem(t *testing.T) {
	row := "1 1:1 2:2 3:3\n" // 3 nonzeros
	early := strings.Repeat(row, 100) + "bad\n" + strings.Repeat(row, 20000)
	late := strings.Repeat(row, 2000) + "bad\n" + strings.Repeat(row, 100)
	for _, o := range []chunked{{sparse.ReadOptions{Workers: 1}, 0}, {sparse.ReadOptions{Workers: 2}, 0}, {sparse.ReadOptions{Workers: 4}, 64}, {sparse.ReadOptions{Workers: 3}, 4096}} {
		t.Run(fmt.Sprintf("workers=%d/chunk=%d", o.Workers, o.chunk), func(t *testing.T) {
			o.MaxNNZ = 1000
			for k := range 20 {
				_, err := read(strings.NewReader(early), o.ReadOptions, o.chunk)
				var pe *sparse.ParseError
				if !errors.As(err, &pe) || pe.Line != 101 {
					t.Fatalf("%+v, run %d: %v; want the bad line 101, which comes before the 1000th nonzero", o, k, err)
				}
				if _, err := read(strings.NewReader(late), o.ReadOptions, o.chunk); !errors.Is(err, sparse.ErrTooLarge) {
					t.Fatalf("%+v, run %d: %v; want sparse.ErrTooLarge, which comes before the bad line 2001", o, k, err)
				}
			}
		})
	}
}

// TestWorkersCapped: an absurd worker count is capped at sparse.MaxReadWorkers
// rather than sizing the reader's queues by it.
func TestWorkersCapped(t *testing.T) {
	o, err := readopt.Normalize(sparse.ReadOptions{Workers: 1 << 40})
	if err != nil || o.Workers != sparse.MaxReadWorkers {
		t.Fatalf("Workers 2^40: %d, %v", o.Workers, err)
	}
	d, err := Read(strings.NewReader("1 1:1\n-1 2:1\n"), sparse.ReadOptions{Workers: 1 << 40})
	if err != nil || d.X.Rows != 2 {
		t.Fatalf("read with Workers 2^40: %v", err)
	}
}

// endless is an input of prefix followed by fill repeated for ever,
// never held in memory. It counts the bytes served and, so that a reader
// that does not stop fails the test instead of the machine, returns
// errServedTooMuch past limit bytes.
type endless struct {
	prefix []byte
	fill   []byte
	served int64
	limit  int64
}

var errServedTooMuch = errors.New("test input: read far past the limit under test")

func (e *endless) Read(p []byte) (int, error) {
	if e.served >= e.limit {
		return 0, errServedTooMuch
	}
	p = p[:min(int64(len(p)), e.limit-e.served)]
	n := 0
	for n < len(p) {
		at := e.served + int64(n)
		if at < int64(len(e.prefix)) {
			n += copy(p[n:], e.prefix[at:])
			continue
		}
		k := (at - int64(len(e.prefix))) % int64(len(e.fill))
		n += copy(p[n:], e.fill[k:])
	}
	e.served += int64(n)
	return n, nil
}

// TestMaxLineBytesEndless: a line that never ends (a few bytes of gzip
// can decompress to one) is refused once MaxLineBytes+1 bytes of it have
// arrived, by Read at any worker count and by Scanner, with a
// *ParseError naming the file and the line, rather than buffered until
// memory runs out. The default limit applies with MaxLineBytes 0.
func TestMaxLineBytesEndless(t *testing.T) {
	prefix := []byte("1 1:1\n-1 2:1\n\n1 ")
	for _, max := range []int{0, 1 << 20, 100} {
		limit := max
		if max == 0 {
			limit = sparse.DefaultMaxLineBytes
		}
		want := fmt.Sprintf("train.svm:4:%d: line longer than %d bytes", limit+1, limit)
		check := func(who string, in *endless, err error) {
			t.Helper()
			var pe *sparse.ParseError
			if !errors.Is(err, sparse.ErrLineTooLong) || !errors.As(err, &pe) || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("MaxLineBytes %d, %s: error %v, want %q…", max, who, err, want)
			}
			// The line and one buffered read of the source, no more.
			if in.served > int64(limit)+1<<20 {
				t.Errorf("MaxLineBytes %d, %s: read %d bytes", max, who, in.served)
			}
		}
		opts := []chunked{{sparse.ReadOptions{Workers: 1}, 0}, {sparse.ReadOptions{Workers: 3}, 0}, {sparse.ReadOptions{Workers: 2}, 64}}
		if max == 0 {
			opts = opts[:1] // 64 MiB a read: once is enough
		}
		for _, o := range opts {
			o.MaxLineBytes, o.Name = max, "train.svm"
			in := &endless{prefix: prefix, fill: bytes.Repeat([]byte("a"), 4096), limit: int64(limit) + 16<<20}
			_, err := read(in, o.ReadOptions, o.chunk)
			check(fmt.Sprintf("Read %+v", o), in, err)
		}
		in := &endless{prefix: prefix, fill: bytes.Repeat([]byte("a"), 4096), limit: int64(limit) + 16<<20}
		sc := NewScanner(in, sparse.ReadOptions{MaxLineBytes: max, Name: "train.svm"})
		rows := 0
		for sc.Scan() {
			rows++
		}
		check("Scanner", in, sc.Err())
		if rows != 2 || sc.Line() != 4 {
			t.Errorf("Scanner: %d rows before the error at line %d", rows, sc.Line())
		}
	}
}

// TestMemoryBudget: Read counts the rows and nonzeros it holds
// against ReadOptions.MemoryBudget (0: budget.Default()) as they arrive.
// Data that fit load at the exact budget; one byte less gives an error
// wrapping budget.ErrExceeded that names the input, says what was read and
// suggests streaming, at any worker count and block size, while the
// Scanner ignores the budget. A bad line before the budget is passed is
// reported instead, and one after it is not.
func TestMemoryBudget(t *testing.T) {
	const rows = 3000
	data := strings.Repeat("1 1:1 4:2\n", rows) // 2 nonzeros a row
	need := libsvmLoadBytes(rows, 2*rows, false)
	if need != 2*(rows*16+2*rows*8) {
		t.Fatalf("libsvmLoadBytes = %d", need)
	}
	for _, o := range []chunked{{sparse.ReadOptions{Workers: 1}, 0}, {sparse.ReadOptions{Workers: 4}, 0}, {sparse.ReadOptions{Workers: 3}, 64}} {
		t.Run(fmt.Sprintf("workers=%d/chunk=%d", o.Workers, o.chunk), func(t *testing.T) {
			o.Name = "big.svm"
			o.MemoryBudget = need
			if d, err := read(strings.NewReader(data), o.ReadOptions, o.chunk); err != nil || d.Len() != rows {
				t.Fatalf("%+v at the budget: err %v", o, err)
			}
			o.MemoryBudget = need - 1
			_, err := read(strings.NewReader(data), o.ReadOptions, o.chunk)
			if !errors.Is(err, budget.ErrExceeded) || !strings.Contains(err.Error(), "big.svm") ||
				!strings.Contains(err.Error(), "rows, with") || !strings.Contains(err.Error(), "stream it instead") {
				t.Fatalf("%+v over the budget: err %v", o, err)
			}
			// With query ids a row costs 8 bytes more.
			q := strings.Repeat("1 qid:3 1:1 4:2\n", rows)
			o.MemoryBudget = need
			if _, err := read(strings.NewReader(q), o.ReadOptions, o.chunk); !errors.Is(err, budget.ErrExceeded) {
				t.Fatalf("%+v, qids: err %v", o, err)
			}
			o.MemoryBudget = 1000
			early := "1 1:1\nbad\n" + data
			var pe *sparse.ParseError
			if _, err := read(strings.NewReader(early), o.ReadOptions, o.chunk); !errors.As(err, &pe) || pe.Line != 2 {
				t.Fatalf("%+v: %v; want the bad line 2, before the budget is passed", o, err)
			}
			if _, err := read(strings.NewReader(data+"bad\n"), o.ReadOptions, o.chunk); !errors.Is(err, budget.ErrExceeded) {
				t.Fatalf("%+v: %v; want the budget, passed before the bad last line", o, err)
			}
		})
	}
	if _, err := scanAll(strings.NewReader(data), sparse.ReadOptions{MemoryBudget: 1}); err != nil {
		t.Fatalf("Scanner with a budget of 1 byte: %v", err)
	}

	// 0 means budget.Default().
	defer budget.Set(budget.Set(need - 1))
	if _, err := Read(strings.NewReader(data), sparse.ReadOptions{}); !errors.Is(err, budget.ErrExceeded) {
		t.Fatalf("budget.Default() below the data: err %v", err)
	}
}

// TestMemoryBudgetEndless: endless rows of "1 1:1" (a small gzip file can
// hold a billion of them) are refused soon after their memory passes the
// budget, not read to the end.
func TestMemoryBudgetEndless(t *testing.T) {
	const mem = 8 << 20
	for _, w := range []int{1, 2} {
		in := &endless{fill: bytes.Repeat([]byte("1 1:1\n"), 1000), limit: 1 << 30}
		_, err := Read(in, sparse.ReadOptions{MemoryBudget: mem, Workers: w})
		if !errors.Is(err, budget.ErrExceeded) {
			t.Fatalf("Workers %d: err %v", w, err)
		}
		// 6 bytes a row hold 32 bytes of row and nonzero, twice over;
		// a few blocks are in flight when the budget is passed.
		if max := int64(mem)/64*6 + int64(4*w+4)*defaultChunkSize; in.served > max {
			t.Errorf("Workers %d: read %d bytes, want at most %d", w, in.served, max)
		}
	}
}
