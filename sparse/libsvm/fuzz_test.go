package libsvm

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/budget/budgettest"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// The seed corpora live in testdata/fuzz/FuzzReadLIBSVM and
// testdata/fuzz/FuzzScanner: valid files, every tolerated quirk (±1/0,
// multiclass and float labels, qid:, comments, empty rows, trailing
// blanks, CRLF, BOM, blank lines, no final newline) and every error kind
// (index 0, negative, out of order, repeated, 4000000000, NaN/Inf/overflow,
// value without index, binary garbage, gzip magic with garbage, a valid
// gzip file, a row longer than fuzzRestricted.MaxRowNNZ, a line longer
// than its MaxLineBytes, values and labels that round to zero), and the
// size fields: indices and qids past every limit, and more rows than
// fuzzBudget holds.
//
//	go test -run '^$' -fuzz '^FuzzReadLIBSVM$' -fuzztime 60s ./sparse/libsvm/
//	go test -run '^$' -fuzz '^FuzzScanner$' -fuzztime 60s ./sparse/libsvm/

// fuzzRestricted is a second option set, so the fuzzer also reaches
// ErrRowTooLong, ErrLineTooLong and the MaxDim range check with short
// inputs.
var fuzzRestricted = sparse.ReadOptions{MaxDim: 1000, MaxRowNNZ: 4, MaxLineBytes: 48}

// fuzzBudget is a MemoryBudget that a few dozen rows pass, so that the
// fuzzer reaches Read's budget check with short inputs.
const fuzzBudget = 2048

// fuzzMaxInput is the largest input for which the allocation bound is
// checked (the brief's "inputs under 64 KiB").
const fuzzMaxInput = 64 << 10

// fuzzAllocBound is the most a read of size bytes (after decompression)
// may allocate. The reader legitimately allocates a fixed ~200 KiB (a
// 64 KiB bufio.Reader, a 64 KiB first block, the gzip/flate state for
// compressed input) plus a constant factor of the input: per block it
// reserves at most n/2+1 labels (8 B) and row pointers (8 B) and n/4+1
// index/value pairs (8 B), then assemble copies what was found; a line
// longer than the block doubles the block buffer. That is well under
// 64 bytes per input byte, and no number in the input may size an
// allocation (an index of 4000000000 or a qid of 2^62 must not).
func fuzzAllocBound(size int) uint64 {
	return 8<<20 + 64*uint64(size)
}

// fuzzInput describes an input independently of the reader under test.
type fuzzInput struct {
	gz      bool   // starts with the gzip magic bytes
	text    []byte // the text the parser sees (decompressed if gz); nil if gz and decompression failed
	lines   int    // lines in text: '\n' count + 1
	rows    int    // non-blank, non-comment lines in text
	textLen int    // bytes the reader produces (for the allocation bound), even if decompression failed later
}

func describeInput(data []byte) fuzzInput {
	in := fuzzInput{gz: len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b}
	text := data
	if in.gz {
		text = nil
		in.textLen = len(data)
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			// Cap what we decompress: a 64 KiB gzip input can expand ~1000×.
			b, err := io.ReadAll(io.LimitReader(zr, 256<<20))
			in.textLen = max(len(b), len(data))
			if err == nil {
				text = b
			}
		}
		if text == nil {
			return in
		}
	}
	in.text = text
	in.textLen = max(in.textLen, len(text))
	t := text
	t = bytes.TrimPrefix(t, bom)
	in.lines = bytes.Count(t, []byte{'\n'}) + 1
	for len(t) > 0 {
		ln := t
		if k := bytes.IndexByte(t, '\n'); k >= 0 {
			ln, t = t[:k], t[k+1:]
		} else {
			t = nil
		}
		ln = bytes.TrimRight(ln, "\r")
		ln = bytes.TrimLeft(ln, " \t")
		if len(ln) > 0 && ln[0] != '#' {
			in.rows++
		}
	}
	return in
}

var fuzzSentinels = []error{sparse.ErrSyntax, sparse.ErrIndex, sparse.ErrIndexOrder, sparse.ErrIndexRange, sparse.ErrValue, sparse.ErrRowTooLong, sparse.ErrLineTooLong}

// checkReadError checks an error from Read or Scanner for input in.
// Text errors must be *ParseErrors wrapping a sentinel with a sane line and
// column. The one legitimate exception: a corrupt gzip stream yields the
// decompressor's error wrapped (documented on Read: "Read and
// decompression errors are returned wrapped"), which wraps no sentinel.
func checkReadError(t *testing.T, who string, in fuzzInput, err error) {
	t.Helper()
	var pe *sparse.ParseError
	if errors.As(err, &pe) {
		if !errors.Is(err, pe.Err) || !isSentinel(pe.Err) {
			t.Fatalf("%s: sparse.ParseError %q wraps %v, not a parse sentinel", who, err, pe.Err)
		}
		if in.text == nil {
			// Parse error inside a gzip stream that later turned out
			// corrupt: the line is counted in the part decompressed so far.
			if pe.Line < 1 {
				t.Fatalf("%s: %q: line %d < 1", who, err, pe.Line)
			}
		} else if pe.Line < 1 || pe.Line > in.lines+1 {
			t.Fatalf("%s: %q: line %d outside [1, %d]", who, err, pe.Line, in.lines+1)
		}
		if pe.Col < 1 {
			t.Fatalf("%s: %q: column %d < 1", who, err, pe.Col)
		}
		return
	}
	if isSentinelErr(err) {
		t.Fatalf("%s: sentinel error %q is not a *sparse.ParseError", who, err)
	}
	if in.gz && isDecompressErr(err) {
		return
	}
	t.Fatalf("%s: error %q (%T) wraps none of the package's sentinels", who, err, errors.Unwrap(err))
}

func isSentinel(e error) bool {
	for _, s := range fuzzSentinels {
		if e == s {
			return true
		}
	}
	return false
}

func isSentinelErr(err error) bool {
	for _, s := range fuzzSentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

func isDecompressErr(err error) bool {
	var ce flate.CorruptInputError
	var ie flate.InternalError
	return errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.As(err, &ce) || errors.As(err, &ie)
}

// sameErrors reports whether two failed reads failed the same way: the
// same text, or (only for gzip input, see checkReadError) both with a
// decompression error. Read discards a whole block when the
// decompressor fails inside it, while Scanner parses line by line, so on a
// corrupt gzip stream one may report a parse error in text the other never
// parsed; then we accept any two valid errors.
func sameErrors(in fuzzInput, a, b error) bool {
	if a.Error() == b.Error() {
		return true
	}
	return in.gz && in.text == nil
}

// allocDuring returns the bytes allocated while f ran.
func allocDuring(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// checkDataset checks a successful read.
func checkDataset(t *testing.T, who string, in fuzzInput, opt sparse.ReadOptions, d *sparse.Dataset) {
	t.Helper()
	if err := d.Validate(); err != nil {
		t.Fatalf("%s: result fails Validate: %v", who, err)
	}
	if d.X.Rows != len(d.Y) || d.Len() != len(d.Y) {
		t.Fatalf("%s: %d rows, %d labels", who, d.X.Rows, len(d.Y))
	}
	if in.text == nil {
		t.Fatalf("%s: succeeded on a gzip stream that does not decompress", who)
	}
	if d.X.Rows != in.rows {
		t.Fatalf("%s: %d rows, input has %d non-blank non-comment lines", who, d.X.Rows, in.rows)
	}
	if opt.Dim == 0 && d.X.Rows > 0 {
		// Cols is the largest index: some row ends at column Cols-1.
		want := 0
		for i := range d.X.Rows {
			if a, b := d.X.Indptr[i], d.X.Indptr[i+1]; b > a {
				want = max(want, int(d.X.Ind[b-1])+1)
			}
		}
		if d.X.Cols != want {
			t.Fatalf("%s: Cols %d, largest index %d", who, d.X.Cols, want)
		}
	}
	if opt.MaxDim > 0 && d.X.Cols > opt.MaxDim {
		t.Fatalf("%s: Cols %d > MaxDim %d", who, d.X.Cols, opt.MaxDim)
	}
	if opt.MaxRowNNZ > 0 {
		for i := range d.X.Rows {
			if n := d.X.Indptr[i+1] - d.X.Indptr[i]; n > int64(opt.MaxRowNNZ) {
				t.Fatalf("%s: row %d has %d > MaxRowNNZ features", who, i, n)
			}
		}
	}
}

func FuzzReadLIBSVM(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		in := describeInput(data)
		for _, opt := range []sparse.ReadOptions{{}, fuzzRestricted} {
			var d1 *sparse.Dataset
			var err1 error
			alloc := allocDuring(func() {
				o := opt
				o.Workers = 1
				d1, err1 = Read(bytes.NewReader(data), o)
			})
			if len(data) < fuzzMaxInput && alloc > fuzzAllocBound(in.textLen) {
				t.Fatalf("Read allocated %d bytes for %d input bytes (%d after decompression), bound %d",
					alloc, len(data), in.textLen, fuzzAllocBound(in.textLen))
			}
			if err1 != nil {
				checkReadError(t, "Workers=1", in, err1)
			} else {
				checkDataset(t, "Workers=1", in, opt, d1)
			}

			// Workers 4, with default and with tiny blocks (so that
			// blocks split the input at many line ends), must give the
			// identical result or the identical error.
			o4 := opt
			o4.Workers = 4
			for _, v := range []struct {
				name  string
				opt   sparse.ReadOptions
				chunk int
			}{{"Workers=4", o4, 0}, {"Workers=4 tiny blocks", o4, minChunkSize}} {
				d4, err4 := read(bytes.NewReader(data), v.opt, v.chunk)
				switch {
				case (err1 == nil) != (err4 == nil):
					t.Fatalf("%s: error %v; Workers=1 error %v", v.name, err4, err1)
				case err1 != nil:
					checkReadError(t, v.name, in, err4)
					// Same blocks, any worker count: the same error. With
					// tiny blocks, a corrupt gzip stream may fail after
					// a block with a parse error was already cut (see
					// sameErrors), so only that case may differ.
					if err1.Error() != err4.Error() && (v.chunk == 0 || !sameErrors(in, err1, err4)) {
						t.Fatalf("%s: error %q; Workers=1 error %q", v.name, err4, err1)
					}
				default:
					if diff := diffDatasets(d1, d4); diff != "" {
						t.Fatalf("%s differs from Workers=1: %s", v.name, diff)
					}
				}
			}

			checkBudget(t, in, data, opt, d1, err1)

			// Scanner (collected into a Dataset by scanAll, whose Builder
			// infers Cols as Read does) must agree.
			ds, errs := scanAll(bytes.NewReader(data), opt)
			switch {
			case (err1 == nil) != (errs == nil):
				t.Fatalf("Scanner error %v; Read error %v", errs, err1)
			case err1 != nil:
				checkReadError(t, "Scanner", in, errs)
				if !sameErrors(in, err1, errs) {
					t.Fatalf("Scanner error %q; Read error %q", errs, err1)
				}
			default:
				if diff := diffDatasets(d1, ds); diff != "" {
					t.Fatalf("Scanner differs from Read: %s", diff)
				}
			}
		}
	})
}

// checkBudget reads data again with opt and the tiny fuzzBudget, at one
// and at several workers with tiny blocks, and checks the outcome against
// d1 and err1, the read without a budget: the same data set when it fits
// the budget, else an error wrapping budget.ErrExceeded and no sentinel;
// the same error when the read without a budget failed, or the budget
// error if it was passed before the bad line.
func checkBudget(t *testing.T, in fuzzInput, data []byte, opt sparse.ReadOptions, d1 *sparse.Dataset, err1 error) {
	t.Helper()
	for _, o := range []chunked{{sparse.ReadOptions{Workers: 1}, 0}, {sparse.ReadOptions{Workers: 3}, minChunkSize}} {
		o.MaxDim, o.MaxRowNNZ, o.MaxLineBytes, o.MemoryBudget = opt.MaxDim, opt.MaxRowNNZ, opt.MaxLineBytes, fuzzBudget
		d, err := read(bytes.NewReader(data), o.ReadOptions, o.chunk)
		fits := d1 != nil && libsvmLoadBytes(int64(d1.Len()), d1.X.NNZ(), d1.QID != nil) <= fuzzBudget
		switch {
		case errors.Is(err, budget.ErrExceeded):
			if fits || isSentinelErr(err) || !strings.Contains(err.Error(), "stream it instead") {
				t.Fatalf("budget %d, %+v: error %q; without a budget: %v", fuzzBudget, o, err, err1)
			}
		case err != nil:
			checkReadError(t, "with a budget", in, err)
			if err1 == nil || !sameErrors(in, err, err1) {
				t.Fatalf("budget %d, %+v: error %q; without a budget: %v", fuzzBudget, o, err, err1)
			}
		case !fits:
			t.Fatalf("budget %d, %+v: read data needing %d bytes (without a budget: %v)", fuzzBudget, o, libsvmLoadBytes(int64(d.Len()), d.X.NNZ(), d.QID != nil), err1)
		default:
			if diff := diffDatasets(d1, d); diff != "" {
				t.Fatalf("budget %d, %+v differs from the read without one: %s", fuzzBudget, o, diff)
			}
		}
	}
}

// FuzzScanner drives the Scanner row by row (with a reader returning one
// byte per Read and the smallest buffer, then with the defaults) and
// checks each row as it comes, then compares with Read.
func FuzzScanner(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		// Under a small budget, within twice it (see budgettest.Within).
		defer budgettest.Within(t, 64<<20)()
		in := describeInput(data)
		for _, opt := range []sparse.ReadOptions{{}, fuzzRestricted} {
			type variant struct {
				name  string
				r     io.Reader
				chunk int
			}
			var first *sparse.Dataset
			var firstErr error
			for k, v := range []variant{
				{"default", bytes.NewReader(data), 0},
				{"one byte per Read", oneByteReader{bytes.NewReader(data)}, minChunkSize},
			} {
				var got *sparse.Dataset
				var err error
				alloc := allocDuring(func() { got, err = scanRows(t, v.name, in, v.r, opt, v.chunk) })
				if k == 0 && len(data) < fuzzMaxInput && alloc > fuzzAllocBound(in.textLen) {
					t.Fatalf("Scanner allocated %d bytes for %d input bytes (%d after decompression), bound %d",
						alloc, len(data), in.textLen, fuzzAllocBound(in.textLen))
				}
				if err != nil {
					checkReadError(t, "Scanner "+v.name, in, err)
				} else {
					checkDataset(t, "Scanner "+v.name, in, opt, got)
				}
				if k == 0 {
					first, firstErr = got, err
					continue
				}
				switch {
				case (err == nil) != (firstErr == nil):
					t.Fatalf("Scanner %s: error %v; default error %v", v.name, err, firstErr)
				case err != nil:
					if !sameErrors(in, firstErr, err) {
						t.Fatalf("Scanner %s: error %q; default error %q", v.name, err, firstErr)
					}
				default:
					if diff := diffDatasets(first, got); diff != "" {
						t.Fatalf("Scanner %s differs from default: %s", v.name, diff)
					}
				}
			}

			o := opt
			o.Workers = 2
			d, err := Read(bytes.NewReader(data), o)
			switch {
			case (err == nil) != (firstErr == nil):
				t.Fatalf("Read error %v; Scanner error %v", err, firstErr)
			case err != nil:
				if !sameErrors(in, err, firstErr) {
					t.Fatalf("Read error %q; Scanner error %q", err, firstErr)
				}
			default:
				if diff := diffDatasets(d, first); diff != "" {
					t.Fatalf("Read differs from Scanner: %s", diff)
				}
			}
		}
	})
}

// scanRows reads r with a Scanner (its first buffer chunk bytes), checking
// each row: its Vector is valid with Dim one more than its last index
// (Scanner infers Dim per row, so unlike Read's Cols it is compared row by
// row, not globally), its features respect the options, Line() increases
// and stays within the input, and after an error Line() is the error's line
// and Scan stays false.
func scanRows(t *testing.T, who string, in fuzzInput, r io.Reader, opt sparse.ReadOptions, chunk int) (*sparse.Dataset, error) {
	t.Helper()
	sc := newScanner(r, opt, chunk)
	b := sparse.NewBuilder(0)
	y := []float64{}
	var qid []int64
	has := false
	prevLine := 0
	for sc.Scan() {
		label, v := sc.Row()
		if err := v.Validate(); err != nil {
			t.Fatalf("%s: row at line %d invalid: %v", who, sc.Line(), err)
		}
		wantDim := 0
		if len(v.Ind) > 0 {
			wantDim = int(v.Ind[len(v.Ind)-1]) + 1
		}
		if v.Dim != wantDim {
			t.Fatalf("%s: row at line %d: Dim %d, want %d", who, sc.Line(), v.Dim, wantDim)
		}
		if opt.MaxRowNNZ > 0 && len(v.Ind) > opt.MaxRowNNZ {
			t.Fatalf("%s: row at line %d has %d > MaxRowNNZ features", who, sc.Line(), len(v.Ind))
		}
		if l := sc.Line(); l <= prevLine || (in.text != nil && l > in.lines) {
			t.Fatalf("%s: Line() = %d after %d, input has %d lines", who, l, prevLine, in.lines)
		}
		prevLine = sc.Line()
		if err := b.Add(v.Ind, v.Val); err != nil {
			t.Fatalf("%s: sparse.Builder.Add: %v", who, err)
		}
		y = append(y, label)
		q, ok := sc.QID()
		qid = append(qid, q)
		has = has || ok
	}
	err := sc.Err()
	if err != nil {
		var pe *sparse.ParseError
		if errors.As(err, &pe) && pe.Line != sc.Line() {
			t.Fatalf("%s: sparse.ParseError line %d, Line() %d", who, pe.Line, sc.Line())
		}
		if sc.Scan() {
			t.Fatalf("%s: Scan true after error %v", who, err)
		}
		return nil, err
	}
	d := &sparse.Dataset{X: b.Build(), Y: y}
	if has {
		d.QID = qid
	}
	return d, nil
}
