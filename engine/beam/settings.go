package beam

import (
	"fmt"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// settings are the learner's settings as the workers receive them: the
// fields of engine.Config that a shard's epoch uses, in a form Beam can
// serialize with the DoFn (a Config holds a callback and a map keyed by
// float64, which it cannot).
type settings struct {
	Algorithm    engine.Algorithm
	Rule         engine.Rule
	C            float64
	Alpha        float64
	Normalize    bool
	Epochs       int
	LearningRate float64
	Bias         engine.BiasMode
	BiasScale    float64
	InitScale    float64
	Margin       float64
	NoShuffle    bool
	Seed         uint64
	MaxClasses   int
	MaxDim       int
	MemoryBudget int64
}

// defaultEpochs is engine.Config's default number of epochs.
const defaultEpochs = 10

// settle checks opt and returns the workers' settings.
func settle(opt Options) (settings, error) {
	c := opt.Config
	bad := func(format string, a ...any) (settings, error) {
		return settings{}, fmt.Errorf("%w: "+format, append([]any{ErrOptions}, a...)...)
	}
	switch {
	case c.Algorithm != engine.Averaged && c.Algorithm != engine.Plain:
		return bad("parameter mixing trains the averaged and plain perceptrons, not %v", c.Algorithm)
	case c.Workers > 1:
		return bad("Workers %d: the shards are the workers", c.Workers)
	case c.Validation != 0 || c.Patience != 0 || c.ClassWeight != nil || c.Balanced || c.SampleWeight != nil || c.TrainLoss:
		return bad("Validation, Patience, ClassWeight, Balanced, SampleWeight and TrainLoss need the data in one place")
	case c.OnEpoch != nil:
		return bad("Config.OnEpoch is not called; use Options.OnEpoch with PerEpochJobs")
	case opt.OnEpoch != nil && !opt.PerEpochJobs:
		return bad("OnEpoch needs PerEpochJobs: an unrolled job returns only at its end")
	case c.Epochs < 0:
		return bad("Epochs %d is negative", c.Epochs)
	case opt.Workdir == "":
		return bad("no Workdir")
	}
	s := settings{
		Algorithm: c.Algorithm, Rule: c.Rule, C: c.C, Alpha: c.Alpha, Normalize: c.Normalize,
		Epochs: c.Epochs, LearningRate: c.LearningRate, Bias: c.Bias, BiasScale: c.BiasScale,
		InitScale: c.InitScale, Margin: c.Margin, NoShuffle: c.NoShuffle, Seed: c.Seed,
		MaxClasses: c.MaxClasses, MaxDim: c.MaxDim, MemoryBudget: c.MemoryBudget,
	}
	if s.Epochs == 0 {
		s.Epochs = defaultEpochs
	}
	return s, nil
}

// config returns the engine.Config of s.
func (s settings) config() engine.Config {
	return engine.Config{
		Algorithm: s.Algorithm, Rule: s.Rule, C: s.C, Alpha: s.Alpha, Normalize: s.Normalize,
		Epochs: s.Epochs, LearningRate: s.LearningRate, Bias: s.Bias, BiasScale: s.BiasScale,
		InitScale: s.InitScale, Margin: s.Margin, NoShuffle: s.NoShuffle, Seed: s.Seed,
		MaxClasses: s.MaxClasses, MaxDim: s.MaxDim, MemoryBudget: s.MemoryBudget,
	}
}
