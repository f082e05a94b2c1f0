package beam

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// A shard's features, the columns its renumbered copy numbers 0..n−1
// (trainShard), are found once, in the first epoch. The worker writes them
// to the work directory then (featuresPath) and keeps them in memory for
// the job's run, so that the weights the mixing step writes for the shard
// need only their values, in that order: half the bytes of values with
// their features, written and read every epoch. A worker that does not
// hold them (another process, a retry) reads the file.

// featuresPath is the file of shard index's features.
func featuresPath(workdir string, index int) string {
	return joinPath(workdir, fmt.Sprintf("features-%05d.bin", index))
}

// featuresMagic starts a features file: then the count n (8 bytes), the
// n features (4 bytes each), all little-endian, and the CRC-32C of all
// that (4 bytes).
const featuresMagic = "HPFEAT1\n"

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// encodeFeatures returns the features file of feat.
func encodeFeatures(feat []int32) []byte {
	b := make([]byte, 0, len(featuresMagic)+8+4*len(feat)+4)
	b = append(b, featuresMagic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(feat)))
	for _, j := range feat {
		b = binary.LittleEndian.AppendUint32(b, uint32(j))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32c))
}

// decodeFeatures decodes the features file b (of the file name) of a
// shard of a model dim wide: strictly increasing features in [0, dim).
func decodeFeatures(b []byte, name string, dim int) ([]int32, error) {
	bad := func(what string) error { return fmt.Errorf("%w: %s: %s", engine.ErrFormat, name, what) }
	h := len(featuresMagic) + 8
	if len(b) < h+4 || string(b[:len(featuresMagic)]) != featuresMagic {
		return nil, bad("not a features file")
	}
	n := binary.LittleEndian.Uint64(b[len(featuresMagic):])
	if n > uint64(len(b)-h-4)/4 || h+4*int(n)+4 != len(b) {
		return nil, bad(fmt.Sprintf("%d bytes for %d features", len(b), n))
	}
	end := len(b) - 4
	if crc32.Checksum(b[:end], crc32c) != binary.LittleEndian.Uint32(b[end:]) {
		return nil, bad("checksum mismatch")
	}
	feat := make([]int32, n)
	for i := range feat {
		j := int32(binary.LittleEndian.Uint32(b[h+4*i:]))
		if j < 0 || int(j) >= dim || (i > 0 && j <= feat[i-1]) {
			return nil, bad(fmt.Sprintf("features not strictly increasing in [0, %d)", dim))
		}
		feat[i] = j
	}
	return feat, nil
}

// featureCache holds the features of the shards a process learned in
// the job's run (one run at a time: another run's replace them).
var featureCache struct {
	sync.Mutex
	run  string
	feat map[int][]int32
}

// keepFeatures keeps the features of shard index of the job's run.
func keepFeatures(run string, index int, feat []int32) {
	featureCache.Lock()
	defer featureCache.Unlock()
	if featureCache.run != run || featureCache.feat == nil {
		featureCache.run, featureCache.feat = run, map[int][]int32{}
	}
	featureCache.feat[index] = feat
}

// shardFeaturesOf returns the features of shard index of the job's run,
// from featureCache or else from its file, and the bytes read.
func shardFeaturesOf(ctx context.Context, run, workdir string, index, dim int) ([]int32, int64, error) {
	featureCache.Lock()
	feat, ok := featureCache.feat[index]
	ok = ok && run != "" && featureCache.run == run
	featureCache.Unlock()
	if ok {
		return feat, 0, nil
	}
	name := featuresPath(workdir, index)
	b, n, err := readAll(ctx, name)
	if err != nil {
		return nil, n, err
	}
	feat, err = decodeFeatures(b, name, dim)
	if err == nil {
		keepFeatures(run, index, feat)
	}
	return feat, n, err
}
