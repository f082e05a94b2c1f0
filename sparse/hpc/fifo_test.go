//go:build unix

package hpc

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/libsvm"
)

// TestReadFileFIFO: sparse.ReadFile reads a named pipe once, as a stream,
// telling HPSC from LIBSVM by the bytes it peeks at: none are lost.
func TestReadFileFIFO(t *testing.T) {
	d := randCacheDataset(rand.New(rand.NewPCG(5, 6)), 300, 20, 50, false)
	var svm bytes.Buffer
	if err := libsvm.Write(&svm, d); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"HPSC": cacheBytes(t, d, 500), "LIBSVM": svm.Bytes()} {
		fifo := filepath.Join(t.TempDir(), "in")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no named pipes here:", err)
		}
		errc := make(chan error, 1)
		go func() {
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err == nil {
				_, err = f.Write(data)
				f.Close()
			}
			errc <- err
		}()
		got, err := sparse.ReadFile(fifo, sparse.ReadOptions{Dim: d.X.Cols})
		if werr := <-errc; werr != nil {
			t.Fatal(werr)
		}
		if err != nil {
			t.Fatalf("%s through a named pipe: %v", name, err)
		}
		if diff := diffDatasets(d, got); diff != "" {
			t.Fatalf("%s through a named pipe: %s", name, diff)
		}
	}
}
