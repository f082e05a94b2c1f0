package text

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse/budget"
)

// lyingFrame returns a zstd frame whose header states size bytes of
// content and whose one raw block holds five.
func lyingFrame(size uint32) []byte {
	f := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	f = append(f, 0xA0) // single segment, a 4-byte content size
	f = binary.LittleEndian.AppendUint32(f, size)
	f = append(f, 5<<3|1, 0, 0) // the last block: raw, 5 bytes
	return append(f, "abcde"...)
}

// TestInflateStatedSize: a terms part whose frame states 2 GiB but holds
// five bytes is refused having allocated about what it holds, not what
// it states, though the budget would allow the stated size; a frame that
// holds what it states inflates.
func TestInflateStatedSize(t *testing.T) {
	defer budget.Set(budget.Set(16 << 30))
	const stated = 1<<31 - 256
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := inflateTerms(lyingFrame(stated), make([]byte, 1), 1, stated-10, nil, budget.NewMeter(0))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "but its blocks hold 5 at most") {
		t.Errorf("error %v, want ErrFormat saying its blocks hold 5 bytes", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("allocated %d bytes for a frame of 5", grew)
	}
	dec, err := newTermsDecoder(5)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	got, err := inflateFrame(dec, lyingFrame(5), []byte("xy"), 5)
	if err != nil || string(got) != "xyabcde" {
		t.Errorf("a truthful frame: %q, %v", got, err)
	}
	if _, err := inflateFrame(dec, lyingFrame(5), nil, 4); err == nil || !strings.Contains(err.Error(), "more than the 4 bytes") {
		t.Errorf("a frame longer than stated: %v", err)
	}
}

// TestDecodeCountsWhatItBuilds: a featurizer whose JSON lists millions of
// one-letter terms, a few MiB of data but many times that decoded, is
// refused by the budget before it is decoded: the heap it allocates stays
// within twice the budget.
func TestDecodeCountsWhatItBuilds(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"format":"hyperplane.text.Featurizer","version":1,"hash":"xxh64-gram1","ngrams":1,"tf":"count","docs":1,"labels":{"numeric":false,"names":["a","b"]},"vocabulary":[`)
	for i := range 3 << 20 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"a"`)
	}
	b.WriteString("]}")
	data := b.Bytes()
	defer budget.Set(budget.Set(64 << 20))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFeaturizer(bytes.NewReader(data))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, budget.ErrExceeded) || errors.Is(err, ErrFormat) {
		t.Errorf("error %v, want budget.ErrExceeded alone", err)
	}
	// ReadFeaturizer copies the data (grown by doubling): the rest must
	// stay small.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 2*64<<20 {
		t.Errorf("allocated %d MiB for %d MiB of JSON under a 64 MiB budget", grew>>20, len(data)>>20)
	}
}
