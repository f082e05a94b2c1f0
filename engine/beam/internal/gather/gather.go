// Package gather holds what an epoch of the Beam trainer emits from each
// shard and the combiner that brings those parts to the mixing step. The
// trainer (package beam) and the program that times Prism's own cost of
// such an epoch (internal/prismfloor) share it, so that the floor is taken
// with the very combiner the trainer runs.
package gather

// Part says that shard Index wrote its delta (Index −1: nothing, for a
// task that carries the state over), and counts the bytes of weights it
// read and the seconds it took. The deltas travel as files, as the
// weights do: through the runner, every delta would be encoded and copied
// at every step to the one mixing step.
type Part struct {
	Index   int
	Read    int64
	Seconds float64
}

// Gathered holds an epoch's parts in the order they came.
type Gathered struct {
	Parts []Part
}

// Fn combines an epoch's parts into one value for the mixing step, in the
// order the runner delivers them; the mixing step sorts them by shard.
type Fn struct{}

// CreateAccumulator returns an empty Gathered.
func (Fn) CreateAccumulator() Gathered { return Gathered{} }

// AddInput appends p to a.
func (Fn) AddInput(a Gathered, p Part) Gathered {
	a.Parts = append(a.Parts, p)
	return a
}

// MergeAccumulators appends b's parts to a's.
func (Fn) MergeAccumulators(a, b Gathered) Gathered {
	a.Parts = append(a.Parts, b.Parts...)
	return a
}

// ExtractOutput returns a.
func (Fn) ExtractOutput(a Gathered) Gathered { return a }
