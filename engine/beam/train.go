package beam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	sdk "github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	// Prism is the default runner.
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
)

var (
	// ErrOptions is wrapped by every error about Options.
	ErrOptions = errors.New("beam: bad options")
	// ErrStop, returned by Options.OnEpoch, stops training early: Train
	// returns the model as it stands and no error.
	ErrStop = errors.New("beam: stop training")
)

// Options configure Train. The zero value of every field but Shards and
// Workdir is its documented default.
type Options struct {
	// Shards are the cache files (hyperplane convert -shards) to learn,
	// on any file system Beam has registered: local paths, gs://, s3://.
	// Each should hold a random sample of the rows: a shard of one class
	// drags the mix towards it. A file matched twice is learned once, and
	// shards of convert -shards's names must come in whole sets (see
	// Shards).
	Shards []string
	// Workdir holds the mixed state, state-NNNN.hpmix (after the last
	// epoch, and every few epochs while training runs), the weights the
	// workers read and the deltas they write (the last epochs' are kept),
	// and, while training runs, a copy of every shard with its features
	// renumbered and the list of those features; it must be reachable
	// from every worker.
	Workdir string
	// Runner is the Beam runner's name; "" means "prism", Beam's local
	// runner in this process. Other runners take their settings from
	// Beam's own flags (--project, --region, --endpoint, ...).
	Runner string
	// PerEpochJobs runs one job per epoch instead of all epochs unrolled
	// into one job, so that OnEpoch sees every epoch and may stop early.
	PerEpochJobs bool
	// Config is the learner: Algorithm (Averaged or Plain), Rule, C,
	// Normalize, Bias, Seed, Epochs and the like, as for engine.Fit.
	// Epochs counts passes over all shards. Workers, Validation, Patience,
	// ClassWeight, Balanced, SampleWeight and TrainLoss are refused: the
	// shards are the workers, and the rest needs the data in one place.
	Config engine.Config
	// OnEpoch, with PerEpochJobs, is called after every epoch with the
	// model as it stands; an error stops training and Train returns that
	// model with the error, or with none for ErrStop.
	OnEpoch func(epoch int, m *engine.Model) error
	// Progress, when set, is called with every epoch's figures, in order
	// and once each, as soon as the mixing step has recorded them in the
	// work directory: while the one job of all epochs runs, Train looks
	// for them every ProgressPoll (a quarter of a second by default). It
	// runs on a goroutine of its own beside the job, one call at a time,
	// and should return quickly.
	Progress     func(Epoch)
	ProgressPoll time.Duration
	// KeepBytes bounds the memory in which a worker process keeps the
	// shards it learned, with their learners, from one epoch to the next,
	// so that it does not read them again: 0 means 1 GiB, a negative
	// value keeps none. A shard larger than engine.CacheWindow blocks
	// streams from its file every epoch and is not kept. Prism runs every
	// shard in this process; on other runners, a worker keeps the shards
	// the runner gave it last.
	KeepBytes int64
}

// Epoch is what one epoch changed and moved, as the mixing step records
// it in the work directory (epoch-NNNN.json).
type Epoch struct {
	// Epoch counts from 1.
	Epoch int
	// Updates is the number of examples that changed the weights, over
	// all shards; 0 means training has converged, and the epochs left
	// carry the state over.
	Updates int64
	// Shards is the number of shards learned (0 after convergence).
	Shards int
	// The bytes the epoch moved, counted as they were read and written:
	// WeightsBytes the weights that the shards read at the epoch's start,
	// all together; DeltaBytes the shards' sparse deltas, which the shards
	// write and the mixing step reads; StateBytes the state that the
	// mixing step read, StateWritten the state it wrote, and
	// WeightsWritten the weights it wrote for the shards of the next
	// epoch. The state is sparse and every shard reads the weights of its
	// own features only, so all of them grow with the features the shards
	// touch, not with the width. StateBytes is 0 when the mixing step
	// ran in the process that wrote the state, which it then took from
	// memory (Prism's steps all run in one process).
	WeightsBytes, DeltaBytes, StateBytes int64
	StateWritten, WeightsWritten         int64
	// FeaturesBytes is the lists of the shards' features that the mixing
	// step read to know which weights each shard needs: 0 where it ran
	// in the process that first read or wrote them, which keeps them.
	FeaturesBytes int64
	// ShardSeconds is the time of the slowest shard's task, from reading
	// its weights to writing its delta; MixSeconds that of the mixing
	// step, from reading the state to writing the next (the figures file
	// aside). The rest of an epoch's time is the runner's.
	ShardSeconds, MixSeconds float64
}

// Train learns a linear model from the shards by iterative parameter
// mixing on a Beam runner: every epoch each shard learns one pass from the
// mixed state, the shards' deltas are summed, and the sum is mixed into
// the next state, as engine.Fit does with Workers goroutines. The result
// is an ordinary model, which Save writes as the hyperplane CLI's .hpm.
func Train(ctx context.Context, opt Options) (*engine.Model, []Epoch, error) {
	return train(ctx, opt, false)
}

// train is Train; with made, the shards are caches the job made in the
// work directory (TrainText), not the caller's.
func train(ctx context.Context, opt Options, made bool) (*engine.Model, []Epoch, error) {
	j, err := newTrainJob(ctx, opt, made)
	if err != nil {
		return nil, nil, err
	}
	// The shards' renumbered copies (trainShard) serve this run only,
	// and so do the workers this process keeps open on them.
	defer func() {
		dropWorkers(j.runID)
		for i := range j.shards {
			removeFile(ctx, renumberedPath(opt.Workdir, i))
			removeFile(ctx, featuresPath(opt.Workdir, i))
		}
	}()
	if !opt.PerEpochJobs {
		return j.allEpochs()
	}
	return j.epochByEpoch()
}

// trainJob is one Train: its options and settings, the shards and their
// headers.
type trainJob struct {
	ctx    context.Context
	opt    Options
	st     settings
	shards []string
	hd     header
	runner string
	// runID tells this job's states in memory from those of any other
	// (keepState).
	runID string
	// keep is Options.KeepBytes resolved.
	keep int64
}

// newTrainJob checks opt, lists the shards and reads their headers, and
// writes the starting state in the work directory. Shards that are files
// the job writes are refused unless made says the job made them.
func newTrainJob(ctx context.Context, opt Options, made bool) (*trainJob, error) {
	st, err := settle(opt)
	if err != nil {
		return nil, err
	}
	shards, err := expand(ctx, opt.Shards)
	if err != nil {
		return nil, err
	}
	for _, name := range shards {
		// Training would overwrite it.
		if !made && WorkFile(opt.Workdir, name) {
			return nil, fmt.Errorf("%w: shard %s is a file the job writes in -workdir %s", ErrOptions, name, opt.Workdir)
		}
	}
	hd, err := readHeaders(ctx, shards)
	if err != nil {
		return nil, err
	}
	start, err := initState(st, hd)
	if err != nil {
		return nil, err
	}
	runID := newRunID()
	if err := writeState(ctx, opt.Workdir, runID, 0, start); err != nil {
		return nil, err
	}
	runner := opt.Runner
	if runner == "" {
		runner = "prism"
	}
	keep := opt.KeepBytes
	switch {
	case keep == 0:
		keep = defaultKeepBytes
	case keep < 0:
		keep = 0
	}
	return &trainJob{ctx: ctx, opt: opt, st: st, shards: shards, hd: hd, runner: runner, runID: runID, keep: keep}, nil
}

// run runs epochs first+1 to last as one pipeline.
func (j *trainJob) run(first, last int) error {
	p, s := sdk.NewPipelineWithRoot()
	in := sdk.Create(s, stateRef{Epoch: first})
	epochs(s, in, j, first, last)
	if _, err := sdk.Run(j.ctx, j.runner, p); err != nil {
		return fmt.Errorf("beam: epochs %d to %d: %w", first+1, last, err)
	}
	return nil
}

// model loads the model of the state after epoch e.
func (j *trainJob) model(e int) (*engine.Model, error) {
	return loadModel(j.ctx, statePath(j.opt.Workdir, e), j.st)
}

// allEpochs runs every epoch in one pipeline.
func (j *trainJob) allEpochs() (*engine.Model, []Epoch, error) {
	E := j.st.Epochs
	stop := j.watch()
	err := j.run(0, E)
	reported := stop()
	if err != nil {
		return nil, nil, err
	}
	var figs []Epoch
	for e := 1; e <= E; e++ {
		f, err := readFigures(j.ctx, j.opt.Workdir, e)
		if err != nil {
			return nil, nil, err
		}
		figs = append(figs, f)
		if e > reported && j.opt.Progress != nil {
			j.opt.Progress(f)
		}
	}
	m, err := j.model(E)
	return m, figs, err
}

// watch starts looking for the figures of the job's epochs as the mixing
// step records them, and calls Options.Progress with each, in order. The
// function it returns stops the watch and returns the last epoch
// reported. A figures file that cannot be read or decoded yet (being
// written, or on a store that shows it late), or one of another run, is
// looked for again at the next poll.
func (j *trainJob) watch() (stop func() int) {
	if j.opt.Progress == nil {
		return func() int { return 0 }
	}
	poll := j.opt.ProgressPoll
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	done := make(chan struct{})
	last := make(chan int, 1)
	go func() {
		e := 0
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-done:
				last <- e
				return
			case <-t.C:
			}
			e = j.reportFrom(e)
		}
	}()
	return func() int {
		close(done)
		return <-last
	}
}

// reportFrom calls Options.Progress with the figures of the epochs after
// epoch e that this job's run has recorded, in order up to the first
// that it has not (or that cannot be read yet), and returns the last
// epoch reported.
func (j *trainJob) reportFrom(e int) int {
	for e < j.st.Epochs {
		f, err := readFiguresOf(j.ctx, j.opt.Workdir, e+1)
		if err != nil || f.Run != j.runID || f.Epoch.Epoch != e+1 {
			break
		}
		e++
		j.opt.Progress(f.Epoch)
	}
	return e
}

// epochByEpoch runs a pipeline per epoch (Options.PerEpochJobs), calls
// OnEpoch after each, and stops after an epoch without updates.
func (j *trainJob) epochByEpoch() (*engine.Model, []Epoch, error) {
	E := j.st.Epochs
	var figs []Epoch
	for e := range E {
		if err := j.run(e, e+1); err != nil {
			return nil, figs, err
		}
		f, err := readFigures(j.ctx, j.opt.Workdir, e+1)
		if err != nil {
			return nil, figs, err
		}
		figs = append(figs, f)
		if j.opt.Progress != nil {
			j.opt.Progress(f)
		}
		// As Fit does, stop after an epoch without updates, and count the
		// epochs left in the average as the weights would stay.
		last := e+1 == E || f.Updates == 0
		if j.opt.OnEpoch == nil && !last {
			continue
		}
		var m *engine.Model
		if f.Updates == 0 && e+1 < E {
			m, err = carried(j.ctx, j.opt.Workdir, e+1, E-e-1, j.hd.ShardRows, j.st)
		} else {
			m, err = j.model(e + 1)
		}
		if err != nil {
			return nil, figs, err
		}
		if j.opt.OnEpoch != nil {
			if err := j.opt.OnEpoch(e+1, m); err != nil {
				if errors.Is(err, ErrStop) {
					return m, figs, nil
				}
				return m, figs, err
			}
		}
		if last {
			return m, figs, nil
		}
	}
	return nil, nil, fmt.Errorf("%w: no epochs", ErrOptions)
}

// newRunID returns a name for a job's run that no other run has.
func newRunID() string {
	return fmt.Sprintf("%d-%d-%x", os.Getpid(), time.Now().UnixNano(), rand.Uint64())
}

// writeState writes the state after epoch e and the weights that every
// worker starts the next epoch from, and keeps the state in memory for the
// first mixing step of the job's run.
func writeState(ctx context.Context, workdir, run string, e int, m *engine.Mix) error {
	if _, err := writeMix(ctx, statePath(workdir, e), m); err != nil {
		return err
	}
	w, err := weightsOf(m)
	if err != nil {
		return err
	}
	if _, err = writeMix(ctx, weightsPath(workdir, e), w); err != nil {
		return err
	}
	keepState(run, statePath(workdir, e), m)
	return nil
}

// carried returns the model of the state after epoch e followed by n
// epochs without an update.
func carried(ctx context.Context, workdir string, e, n int, rows []int64, st settings) (*engine.Model, error) {
	name := statePath(workdir, e)
	mix, _, err := readMix(ctx, name)
	if err != nil {
		return nil, err
	}
	if st.Algorithm == engine.Averaged {
		for range n {
			if err := mix.Merge(unchanged(mix, rows)); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return mix.Model(st.config())
}

// figures is what the mixing step records of an epoch: its figures, and
// the run of the job, by which a watch tells them from a file that an
// earlier job left in the work directory.
type figures struct {
	Epoch
	Run string
}

// readFigures reads what the mixing step recorded of epoch e.
func readFigures(ctx context.Context, workdir string, e int) (Epoch, error) {
	f, err := readFiguresOf(ctx, workdir, e)
	return f.Epoch, err
}

// readFiguresOf is readFigures with the run that recorded them.
func readFiguresOf(ctx context.Context, workdir string, e int) (figures, error) {
	var f figures
	b, _, err := readAll(ctx, statsPath(workdir, e))
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s: %w", statsPath(workdir, e), err)
	}
	return f, nil
}

// loadModel reads a state file and returns its model.
func loadModel(ctx context.Context, name string, st settings) (*engine.Model, error) {
	mix, _, err := readMix(ctx, name)
	if err != nil {
		return nil, err
	}
	m, err := mix.Model(st.config())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// Shards returns the files Train learns for patterns, the globs of
// Options.Shards: each pattern's matches, sorted, in the order of the
// patterns. A file that more than one pattern matches is learned once,
// where it was first matched: the patterns describe a set of files, and a
// shard learned twice would weigh twice in every epoch's mix. Local paths
// are the same file by device and inode (atomicfile.SameFile), so that
// a link or another spelling counts too; other file systems' names by
// their text. Shards named as hyperplane convert -shards names them,
// NAME-KKKKK-of-NNNNN.hpc, must come in whole sets (hpc.CheckShards): a
// glob that misses some would train on part of the data without a word.
// A pattern that matches nothing, and an incomplete set, are errors
// wrapping ErrOptions.
func Shards(ctx context.Context, patterns []string) ([]string, error) {
	return expand(ctx, patterns)
}

// expand is Shards.
func expand(ctx context.Context, patterns []string) ([]string, error) {
	if len(patterns) == 0 {
		return nil, fmt.Errorf("%w: no shards", ErrOptions)
	}
	var out []string
	var local []localFile // the local files of out, to find one named twice
	seen := map[string]bool{}
	add := func(name string) {
		if isRemote(name) {
			if !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
			return
		}
		fi, err := os.Stat(name)
		if err != nil {
			// Listed but gone: reading it will say so.
			out = append(out, name)
			return
		}
		for _, l := range local {
			if os.SameFile(l.fi, fi) {
				return
			}
		}
		local = append(local, localFile{name, fi})
		out = append(out, name)
	}
	for _, pat := range patterns {
		fs, err := filesystem.New(ctx, pat)
		if err != nil {
			return nil, err
		}
		names, err := fs.List(ctx, pat)
		fs.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pat, err)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%w: %s matches no file", ErrOptions, pat)
		}
		slices.Sort(names)
		for _, n := range names {
			add(n)
		}
	}
	// The sets are told by absolute names, whatever the globs' spelling.
	abs := make([]string, len(out))
	for i, n := range out {
		abs[i] = n
		if !isRemote(n) {
			if a, err := filepath.Abs(n); err == nil {
				abs[i] = a
			}
		}
	}
	if err := hpc.CheckShards(abs); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return out, nil
}

// localFile is a local shard and what Stat said of it.
type localFile struct {
	name string
	fi   os.FileInfo
}

// isRemote reports whether name is on a file system other than the local
// one (gs://, s3://, ...).
func isRemote(name string) bool { return strings.Contains(name, "://") }

// WorkFile reports whether name is one of the files Train writes in
// workdir (the state, weights, deltas and figures of every epoch, the
// shards' renumbered copies, and TrainText's counts, featurizer and
// featurized shards), which a caller writing files of its own, a
// model beside them, must not choose, nor a shard be.
func WorkFile(workdir, name string) bool {
	dir, base := path.Split(filepath.ToSlash(name))
	if isRemote(name) || isRemote(workdir) {
		if strings.TrimSuffix(dir, "/") != strings.TrimSuffix(workdir, "/") {
			return false
		}
	} else if !atomicfile.SameFile(filepath.Clean(dir+"."), filepath.Clean(workdir)) {
		return false
	}
	return workName.MatchString(base)
}

// workName matches the names of statePath, weightsPath, shardWeightsPath,
// deltaPath, renumberedPath, featuresPath and statsPath, and of textCountsPath,
// featurizerPath and textShardPath.
var workName = regexp.MustCompile(`^((state|weights)-[0-9]{4,}\.hpmix|(weights|delta)-[0-9]{4,}-shard-[0-9]{5,}\.hpmix|renumbered-[0-9]{5,}\.hpc|features-[0-9]{5,}\.bin|epoch-[0-9]{4,}\.json|text-counts\.json|text-featurizer\.bin|text-[0-9]{5,}-of-[0-9]{5,}\.hpc)$`)

// readHeaders reads every shard's header: the model's classes are the
// union of the shards' labels, its width the widest shard's.
func readHeaders(ctx context.Context, shards []string) (header, error) {
	var all header
	for _, name := range shards {
		fs, err := filesystem.New(ctx, name)
		if err != nil {
			return all, err
		}
		r, err := fs.OpenRead(ctx, name)
		if err != nil {
			fs.Close()
			return all, fmt.Errorf("%s: %w", name, err)
		}
		h, err := readHeader(r, name)
		r.Close()
		fs.Close()
		if err != nil {
			return all, fmt.Errorf("%s: %w", name, err)
		}
		all.Rows += h.Rows
		all.ShardRows = append(all.ShardRows, h.Rows)
		all.Cols = max(all.Cols, h.Cols)
		for _, l := range h.Labels {
			if i, ok := slices.BinarySearch(all.Labels, l); !ok {
				all.Labels = slices.Insert(all.Labels, i, l)
			}
		}
	}
	if all.Rows == 0 {
		return all, fmt.Errorf("%w: the shards hold no rows", engine.ErrNoData)
	}
	return all, nil
}

// header is what Train needs of a shard before learning it.
type header struct {
	Labels []float64
	Cols   int
	Rows   int64
	// ShardRows are the rows of every shard, when header sums them.
	ShardRows []int64
}

// SaveModel writes m, a model (.hpm) or a text model (.hptm) as
// TrainText returns, as a file to name on any Beam file system. A local name is written as atomicfile.Write writes: replaced
// whole or not at all, or, for /dev/stdout, a device or a FIFO, as a
// stream (Beam's local file system would truncate what the name leads to,
// a log the shell opened for appending too).
func SaveModel(ctx context.Context, m io.WriterTo, name string) error {
	if !isRemote(name) {
		return atomicfile.Write(name, func(w io.Writer) error {
			_, err := m.WriteTo(w)
			return err
		})
	}
	_, err := writeWith(ctx, name, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
	return err
}
