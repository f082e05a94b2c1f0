package bench

import (
	"context"
	"fmt"
	"path"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// BenchmarkRules times an epoch of every large-margin learner against the
// averaged perceptron on the same data in the same run: fits alternate,
// the first epoch of each (which also checks the data and allocates) is
// left out, and each learner reports its median epoch and its ratio to
// the perceptron's median. The data are imdb.train (binary) and 20
// Newsgroups (20 classes) from ../shared/data, as files give them and
// with rows normalized (Config.Normalize, train's default).
func BenchmarkRules(b *testing.B) {
	for _, set := range []string{"text/imdb/imdb.train.svm.gz", "text/20newsgroups/20ng.train.svm.gz"} {
		d := sharedData(b, set)
		fit := func(cfg engine.Config) ([]engine.EpochStats, error) {
			_, st, err := engine.Fit(context.Background(), d.X, d.Y, cfg)
			return st, err
		}
		name := set[len("text/"):]
		name = name[:len(name)-len(".train.svm.gz")]
		for _, norm := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/normalize=%v", path.Base(name), norm), func(b *testing.B) {
				learners := []engine.Config{{}, {Rule: engine.PA}, {Rule: engine.PA1}, {Rule: engine.PA2}, {Rule: engine.Pegasos}}
				times := make([][]time.Duration, len(learners))
				for b.Loop() {
					for k, cfg := range learners {
						cfg.Normalize = norm
						e, _, _ := epochTimes(b, fit, cfg, nil)
						times[k] = append(times[k], e...)
					}
				}
				base := medianDur(times[0])
				b.ReportMetric(float64(base.Microseconds())/1e3, "ms/epoch-perceptron")
				for k, cfg := range learners[1:] {
					m := medianDur(times[k+1])
					b.ReportMetric(float64(m)/float64(base), cfg.Rule.String()+"/perceptron")
				}
			})
		}
	}
}
