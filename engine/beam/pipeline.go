package beam

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"time"

	sdk "github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	// Local paths work everywhere; the command adds gs:// and s3://.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/engine/beam/internal/gather"
	"github.com/hyperplane-ml/hyperplane/internal/iox"
)

func init() {
	// Registration by reflect.Type keeps the compile cheap: the generic
	// register.DoFnNxM helpers generate code per signature, and the few
	// elements here (one per shard and epoch) gain nothing from it.
	for _, v := range []any{stateRef{}, task{}, part{}, gathered{}, fanFn{}, trainFn{}, gatherFn{}, advanceFn{}} {
		sdk.RegisterType(reflect.TypeOf(v))
	}
}

// The files of the work directory, for the state after epoch e (0: the
// start): the whole state, which only the mixing step reads; the weights
// the workers start the next epoch from, of every feature after epoch 0
// (all zero) and after that one file per shard, of its features only;
// every shard's delta of epoch e (counted from 0); the epoch's figures;
// and every shard's cache with its features renumbered (trainShard).
func statePath(workdir string, e int) string {
	return joinPath(workdir, fmt.Sprintf("state-%04d.hpmix", e))
}
func weightsPath(workdir string, e int) string {
	return joinPath(workdir, fmt.Sprintf("weights-%04d.hpmix", e))
}
func shardWeightsPath(workdir string, e, index int) string {
	return joinPath(workdir, fmt.Sprintf("weights-%04d-shard-%05d.hpmix", e, index))
}
func deltaPath(workdir string, e, index int) string {
	return joinPath(workdir, fmt.Sprintf("delta-%04d-shard-%05d.hpmix", e, index))
}
func renumberedPath(workdir string, index int) string {
	return joinPath(workdir, fmt.Sprintf("renumbered-%05d.hpc", index))
}
func statsPath(workdir string, e int) string {
	return joinPath(workdir, fmt.Sprintf("epoch-%04d.json", e))
}

// joinPath joins a directory and a name for any Beam file system (path.Join
// would fold the "//" of gs://bucket).
func joinPath(dir, name string) string {
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// stateRef says that the state after epoch Epoch is written, and whether
// that epoch made no update (training has converged).
type stateRef struct {
	Epoch     int
	Converged bool
}

// task is shard Index's part of epoch Epoch (counted from 0): learn the
// file Shard from the weights after the epoch before. Index −1 is the one
// task of an epoch after convergence, which carries the state over.
type task struct {
	Epoch int
	Index int
	Shard string
}

// part, gathered and gatherFn are an epoch's parts and their combiner
// (package gather). Merge needs the parts in shard order, whatever order
// the runner delivers them in, for results that do not depend on the
// runner: the mixing step sorts them (orderParts).
type (
	part     = gather.Part
	gathered = gather.Gathered
	gatherFn = gather.Fn
)

// fanFn turns the reference to an epoch's starting state into one task
// per shard. That reference arriving as its input is what orders the
// epochs of an unrolled job: an epoch's tasks exist only once the state it
// starts from is written.
type fanFn struct {
	Shards []string
}

func (f *fanFn) ProcessElement(ref stateRef, emit func(task)) {
	if ref.Converged {
		// As Fit does, stop learning after an epoch without updates; the
		// remaining epochs of the job carry the state over.
		emit(task{Epoch: ref.Epoch, Index: -1})
		return
	}
	for i, s := range f.Shards {
		emit(task{Epoch: ref.Epoch, Index: i, Shard: s})
	}
}

// trainFn runs one epoch of the online learner over a shard, starting from
// the weights of the work directory, and emits the shard's sparse delta.
//
// The shards of a bundle are learned at the same time, up to GOMAXPROCS
// at a time, and their parts emitted when the bundle finishes: a runner
// may hand one worker several shards in one bundle (Prism hands it all
// of them), and learning them one after the other would leave its other
// cores idle. Each shard writes its own files and the mixing step sorts
// the parts, so the order they finish in changes nothing.
type trainFn struct {
	Workdir  string
	Settings settings
	// Run names the job's run, under which the shards' features stay in
	// memory (keepFeatures); Dim is the model's width.
	Run string
	Dim int
	// Keep is the bytes of shards that a worker keeps in memory from
	// epoch to epoch (Options.KeepBytes, resolved).
	Keep int64

	run *bundleRun
}

// bundleRun is the shards of one bundle being learned.
type bundleRun struct {
	wg    sync.WaitGroup
	slots chan struct{}
	mu    sync.Mutex
	parts []part
	errs  []error
}

// StartBundle takes the emitter that Beam requires of every bundle
// method once FinishBundle emits.
func (f *trainFn) StartBundle(_ func(part)) {
	f.run = &bundleRun{slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// ProcessElement starts learning shard t once a slot is free, and emits
// nothing: FinishBundle emits the bundle's parts.
func (f *trainFn) ProcessElement(ctx context.Context, t task, _ func(part)) {
	r := f.run
	r.slots <- struct{}{}
	r.wg.Go(func() {
		defer func() { <-r.slots }()
		p, err := learnTask(f, ctx, t)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			r.errs = append(r.errs, err)
			return
		}
		r.parts = append(r.parts, p)
	})
}

// FinishBundle waits for the bundle's shards and emits their parts, or
// fails the bundle if any failed.
func (f *trainFn) FinishBundle(emit func(part)) error {
	r := f.run
	f.run = nil
	r.wg.Wait()
	if err := errors.Join(r.errs...); err != nil {
		return err
	}
	for _, p := range r.parts {
		emit(p)
	}
	return nil
}

// recoverTask, deferred, turns a panic of task t's goroutine into the
// error *err: unrecovered, it would end the worker's process.
func recoverTask(t task, err *error) {
	if v := recover(); v != nil {
		*err = fmt.Errorf("epoch %d, shard %s: panic: %v", t.Epoch+1, t.Shard, v)
	}
}

// learnTask is trainFn.trainTask; tests replace it.
var learnTask = (*trainFn).trainTask

// trainTask learns shard t.Index for one epoch and writes its delta; a
// panic is returned as an error, as the runner reports one in
// ProcessElement.
func (f *trainFn) trainTask(ctx context.Context, t task) (p part, err error) {
	defer recoverTask(t, &err)
	if t.Index < 0 {
		return part{Index: -1}, nil
	}
	t0 := time.Now()
	// The first epoch starts from zero weights, which one file holds for
	// every shard; later ones from the shard's own slice of the state.
	name := shardWeightsPath(f.Workdir, t.Epoch, t.Index)
	if t.Epoch == 0 {
		name = weightsPath(f.Workdir, t.Epoch)
	}
	start, read, err := readMix(ctx, name)
	if err != nil {
		return part{}, err
	}
	d, featRead, err := trainShard(ctx, f, start, t)
	if err != nil {
		return part{}, fmt.Errorf("epoch %d, shard %s: %w", t.Epoch+1, t.Shard, err)
	}
	read += featRead
	if _, err := writeMix(ctx, deltaPath(f.Workdir, t.Epoch, t.Index), d); err != nil {
		return part{}, err
	}
	return part{Index: t.Index, Read: read, Seconds: time.Since(t0).Seconds()}, nil
}

// advanceFn merges an epoch's deltas into the state it started from,
// writes the next state and weights, and emits the reference to them.
type advanceFn struct {
	// Epoch is the epoch mixed, counted from 0.
	Epoch   int
	Workdir string
	// Run names the job's run, under which the state stays in memory
	// (keepState).
	Run    string
	Shards int
	// Rows are the shards' rows, for the epochs after convergence.
	Rows     []int64
	Settings settings
	// Every is how often the state is written as a file (see write):
	// after every Every-th epoch, 1 or less for every epoch; Last is the
	// job's last epoch, whose state the driver reads.
	Every, Last int
}

func (f *advanceFn) ProcessElement(ctx context.Context, g gathered) (stateRef, error) {
	parts, err := orderParts(g.Parts, f.Shards)
	if err != nil {
		return stateRef{}, err
	}
	t0 := time.Now()
	e := f.Epoch
	fig := Epoch{Epoch: e + 1}
	if parts[0].Index < 0 {
		// Converged: the weights no longer move, so every shard would
		// learn its rows without an update. The averaged perceptron still
		// counts those epochs' weight vectors, as Fit does after it stops.
		st, read, err := f.loadState(ctx, e)
		if err != nil {
			return stateRef{}, err
		}
		fig.StateBytes = read
		if f.Settings.Algorithm != engine.Averaged {
			if err := f.write(ctx, e+1, st, nil, &fig, t0); err != nil {
				return stateRef{}, err
			}
			return stateRef{Epoch: e + 1, Converged: true}, nil
		}
		return f.merge(ctx, st, unchanged(st, f.Rows), &fig, t0)
	}
	// The state and the deltas, a few at a time (on an object store a
	// read is mostly waiting, and each file decodes on its own); they are
	// merged in shard order all the same.
	var st *engine.Mix
	deltas := make([]*engine.Mix, len(parts))
	read := make([]int64, len(parts))
	if err := each(len(parts)+1, func(i int) (err error) {
		if i == 0 {
			st, fig.StateBytes, err = f.loadState(ctx, e)
			return err
		}
		deltas[i-1], read[i-1], err = readMix(ctx, deltaPath(f.Workdir, e, i-1))
		return err
	}); err != nil {
		return stateRef{}, err
	}
	for i, p := range parts {
		fig.DeltaBytes += read[i]
		fig.WeightsBytes += p.Read
		fig.ShardSeconds = max(fig.ShardSeconds, p.Seconds)
	}
	fig.Shards = len(parts)
	return f.merge(ctx, st, deltas, &fig, t0)
}

// merge merges the deltas of epoch f.Epoch into st, the state it started
// from, writes the next state and weights, and returns the reference to
// them.
func (f *advanceFn) merge(ctx context.Context, st *engine.Mix, deltas []*engine.Mix, fig *Epoch, t0 time.Time) (stateRef, error) {
	e := f.Epoch
	if err := st.Merge(deltas); err != nil {
		return stateRef{}, fmt.Errorf("epoch %d: %w", e+1, err)
	}
	fig.Updates = st.Updates
	converged := st.Updates == 0
	if converged {
		// The epochs left carry the state over and read no weights.
		deltas = nil
	}
	if err := f.write(ctx, e+1, st, deltas, fig, t0); err != nil {
		return stateRef{}, err
	}
	return stateRef{Epoch: e + 1, Converged: converged}, nil
}

// write writes the state after epoch e where a file of it is due, the
// weights of every shard's features from it (its delta lists them all,
// changed or seen), and the figures; and it removes the files that
// nothing reads any more.
//
// The state is kept in memory for the next mixing step (keepState); its
// file is for a step that runs in another process or again after a
// failure. Written after every epoch, it would move as many bytes as the
// shards' deltas together. So it is written after every Every-th epoch
// and the last, and a step that finds no file of the state it starts
// from reads the last one written and merges the deltas of the epochs
// since, which are kept until then (loadState): the same merges in the
// same order, so the same bits. A step that read its state from a file
// has shown that the steps run in different processes, and writes the
// state after every epoch from then on.
func (f *advanceFn) write(ctx context.Context, e int, st *engine.Mix, deltas []*engine.Mix, fig *Epoch, t0 time.Time) error {
	keepFile := f.Every <= 1 || e%f.Every == 0 || e == f.Last || fig.StateBytes > 0
	// The state and every shard's weights, a few at a time: each is
	// sliced, encoded and written apart from the others.
	written, read := make([]int64, len(deltas)), make([]int64, len(deltas))
	if err := each(len(deltas)+1, func(i int) error {
		var err error
		if i == 0 {
			if keepFile {
				fig.StateWritten, err = writeMix(ctx, statePath(f.Workdir, e), st)
			}
			return err
		}
		// Every feature of the shard's rows, which it learned all of.
		feat, n, err := shardFeaturesOf(ctx, f.Run, f.Workdir, i-1, st.Dim)
		read[i-1] = n
		if err != nil {
			return err
		}
		w, err := st.WeightsAt(feat)
		if err != nil {
			return err
		}
		// Values only: the shard holds its features' list (trainShard).
		w.Dim, w.Features, w.Sparse = len(w.Features), nil, false
		written[i-1], err = writeMix(ctx, shardWeightsPath(f.Workdir, e, i-1), w)
		return err
	}); err != nil {
		return err
	}
	keepState(f.Run, statePath(f.Workdir, e), st)
	for i, n := range written {
		fig.WeightsWritten += n
		fig.FeaturesBytes += read[i]
	}
	fig.MixSeconds = time.Since(t0).Seconds()
	js, err := json.Marshal(figures{Epoch: *fig, Run: f.Run})
	if err != nil {
		return err
	}
	if _, err := writeAll(ctx, statsPath(f.Workdir, e), js); err != nil {
		return err
	}
	if e >= 2 {
		removeFile(ctx, weightsPath(f.Workdir, e-2))
		for i := range f.Shards {
			removeFile(ctx, shardWeightsPath(f.Workdir, e-2, i))
		}
	}
	f.removeOld(ctx, e)
	return nil
}

// removeOld removes, once the state after epoch e is recorded, the state
// files and deltas that no step can need any more: a step that runs
// again makes the state after epoch e from the one after e−1, which the
// last state file up to e−1 and the deltas since make. Those of earlier
// epochs go; files older than the window of two checkpoints were removed
// by earlier steps.
func (f *advanceFn) removeOld(ctx context.Context, e int) {
	last, ok := f.lastFile(ctx, e-1)
	if !ok {
		return
	}
	for x := max(0, last-max(f.Every, 1)-1); x < last; x++ {
		removeFile(ctx, statePath(f.Workdir, x))
		for i := range f.Shards {
			// deltaPath counts epochs from 0, the states from 1: the
			// deltas of epoch x made the state after x+1.
			removeFile(ctx, deltaPath(f.Workdir, x, i))
		}
	}
}

// lastFile returns the last epoch up to e after which the state was
// written as a file, and whether there is one.
func (f *advanceFn) lastFile(ctx context.Context, e int) (int, bool) {
	for x := e; x >= 0 && x >= e-max(f.Every, 1); x-- {
		if exists(ctx, statePath(f.Workdir, x)) {
			return x, true
		}
	}
	return 0, false
}

// loadState returns the state after epoch e, and the bytes read: from
// memory where this process kept it, else from its file, else (no file
// was written, see write) from the last file before it and the deltas of
// the epochs since, merged as the steps that made them did.
func (f *advanceFn) loadState(ctx context.Context, e int) (*engine.Mix, int64, error) {
	name := statePath(f.Workdir, e)
	if f.Every <= 1 || exists(ctx, name) || stateKept(f.Run, name) {
		return readState(ctx, f.Run, name)
	}
	c, ok := f.lastFile(ctx, e-1)
	if !ok {
		return readState(ctx, f.Run, name) // for its error
	}
	st, read, err := readMix(ctx, statePath(f.Workdir, c))
	if err != nil {
		return nil, read, err
	}
	for x := c; x < e; x++ {
		n, err := f.replay(ctx, st, x)
		read += n
		if err != nil {
			return nil, read, fmt.Errorf("the state after epoch %d from the one after %d: %w", e, c, err)
		}
	}
	return st, read, nil
}

// replay merges into st, the state after epoch x, what the mixing step
// of epoch x (counted from 0) merged: the shards' deltas, or after
// convergence the epoch without updates that the averaged learner still
// counts. It returns the bytes read.
func (f *advanceFn) replay(ctx context.Context, st *engine.Mix, x int) (int64, error) {
	fig, err := readFigures(ctx, f.Workdir, x+1)
	if err != nil {
		return 0, err
	}
	if fig.Shards == 0 {
		if f.Settings.Algorithm != engine.Averaged {
			return 0, nil
		}
		return 0, st.Merge(unchanged(st, f.Rows))
	}
	deltas := make([]*engine.Mix, fig.Shards)
	var read int64
	for i := range deltas {
		var n int64
		deltas[i], n, err = readMix(ctx, deltaPath(f.Workdir, x, i))
		read += n
		if err != nil {
			return read, err
		}
	}
	return read, st.Merge(deltas)
}

// exists reports whether the file name exists, on any Beam file system:
// a local one by its name (a listing would read the name as a glob), a
// remote one by listing it.
func exists(ctx context.Context, name string) bool {
	if !isRemote(name) {
		_, err := os.Stat(name)
		return err == nil
	}
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return false
	}
	defer fs.Close()
	found, err := fs.List(ctx, name)
	return err == nil && len(found) > 0
}

// each runs do(0) .. do(n−1), up to eachParallel at a time, and returns
// their errors joined.
func each(n int, do func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, eachParallel)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = do(i)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// eachParallel is how many files the mixing step reads or writes at a
// time: enough to hide an object store's latency, few enough for memory.
var eachParallel = max(8, runtime.GOMAXPROCS(0))

// stateCache is the state that this process wrote last, under its
// file's name and the run of the job that wrote it: the mixing step of
// the next epoch, when the runner gives it the same process (Prism always
// does), takes it from memory rather than read back and decode the file
// just written. It holds one state, and a step that takes it owns it
// (Merge changes it in place): a retried step reads the file.
var stateCache struct {
	sync.Mutex
	run, name string
	m         *engine.Mix
}

// keepState keeps m, just written to the file name by the job's run, in
// stateCache.
func keepState(run, name string, m *engine.Mix) {
	stateCache.Lock()
	defer stateCache.Unlock()
	stateCache.run, stateCache.name, stateCache.m = run, name, m
}

// stateKept reports whether stateCache holds the state of the file name
// of the job's run.
func stateKept(run, name string) bool {
	stateCache.Lock()
	defer stateCache.Unlock()
	return stateCache.m != nil && run != "" && stateCache.run == run && stateCache.name == name
}

// readState returns the state in the file name, written by the job's
// run: from stateCache when it holds it, which it gives up, with 0 bytes
// read; else read from the file.
func readState(ctx context.Context, run, name string) (*engine.Mix, int64, error) {
	stateCache.Lock()
	m := stateCache.m
	hit := m != nil && run != "" && stateCache.run == run && stateCache.name == name
	if hit {
		stateCache.run, stateCache.name, stateCache.m = "", "", nil
	}
	stateCache.Unlock()
	if hit {
		return m, 0, nil
	}
	return readMix(ctx, name)
}

// stateEvery is how often the mixing step of a job of several epochs
// writes the state as a file (see advanceFn.write). (A variable so that
// tests can change it.)
var stateEvery = 4

// epochs adds epochs first..last−1 of the job j to the pipeline after
// start, which holds the stateRef of the state before epoch first, and
// returns the PCollection of the stateRef after the last.
func epochs(s sdk.Scope, start sdk.PCollection, j *trainJob, first, last int) sdk.PCollection {
	workdir, run, st := j.opt.Workdir, j.runID, j.st
	// A job per epoch writes every state: the driver may read it.
	every := stateEvery
	if j.opt.PerEpochJobs {
		every = 1
	}
	for e := first; e < last; e++ {
		es := s.Scope(fmt.Sprintf("epoch%d", e+1))
		tasks := sdk.ParDo(es, &fanFn{Shards: j.shards}, start)
		// Reshuffle breaks the fusion of the fan-out with training, so a
		// runner may spread the shards over its workers.
		tasks = sdk.Reshuffle(es, tasks)
		parts := sdk.ParDo(es, &trainFn{Workdir: workdir, Settings: st, Run: run, Dim: j.hd.Cols, Keep: j.keep}, tasks)
		all := sdk.Combine(es, gatherFn{}, parts)
		start = sdk.ParDo(es, &advanceFn{Epoch: e, Workdir: workdir, Run: run, Shards: len(j.shards), Rows: j.hd.ShardRows, Settings: st,
			Every: every, Last: last}, all)
	}
	return start
}

// regularSize returns the size of the file r reads where the file tells
// it (a local one does), else 0.
func regularSize(r io.Reader) int64 {
	if f, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return 0
}

// readAll reads a whole file from any registered Beam file system, and
// returns the bytes read. A file that tells its size (a local one) is read
// into a buffer of that size, without the copies of growing one.
func readAll(ctx context.Context, name string) ([]byte, int64, error) {
	var b []byte
	n, err := readWith(ctx, name, func(r io.Reader) error {
		size := int64(0)
		if c, ok := r.(*iox.CountReader); ok {
			size = regularSize(c.R)
		}
		buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
		_, err := buf.ReadFrom(r)
		b = buf.Bytes()
		return err
	})
	return b, n, err
}

// readWith opens name for read and returns the bytes it read.
func readWith(ctx context.Context, name string, read func(io.Reader) error) (n int64, err error) {
	err = onFS(ctx, name, func(fs filesystem.Interface) error {
		r, err := fs.OpenRead(ctx, name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer r.Close()
		c := &iox.CountReader{R: r}
		err = read(c)
		if n = c.N; err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
	return n, err
}

// onFS calls f with the file system that holds name, and closes it once
// f has returned.
func onFS(ctx context.Context, name string, f func(fs filesystem.Interface) error) error {
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	return f(fs)
}

// writeAll writes a whole file; object stores commit it on Close. It
// returns the bytes written.
func writeAll(ctx context.Context, name string, data []byte) (int64, error) {
	return writeWith(ctx, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeWith creates name, writes it with write and returns the bytes
// written.
func writeWith(ctx context.Context, name string, write func(io.Writer) error) (n int64, err error) {
	err = onFS(ctx, name, func(fs filesystem.Interface) error {
		w, err := fs.OpenWrite(ctx, name)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		c := &iox.CountWriter{W: w}
		err = write(c)
		n = c.N
		if err != nil {
			w.Close()
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := w.Close(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
	return n, err
}

// removeFile removes a file that is no longer needed, where the file
// system can; a file left behind costs only space.
func removeFile(ctx context.Context, name string) {
	onFS(ctx, name, func(fs filesystem.Interface) error {
		if rm, ok := fs.(filesystem.Remover); ok {
			return rm.Remove(ctx, name)
		}
		return nil
	})
}
