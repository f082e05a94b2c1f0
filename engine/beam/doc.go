// Package beam trains hyperplane's linear models across machines on
// Apache Beam, by iterative parameter mixing (McDonald, Hall & Mann 2010)
// over shards of cache files, as engine.Fit does with Workers goroutines
// in one process.
//
// One epoch is one stage of the pipeline: the reference to the mixed
// state fans out into one task per shard; Reshuffle lets the runner spread
// the tasks over its workers; each worker learns its shard for one epoch
// (engine.Learner.PartialFitCache, streamed), starting from the weights of
// its shard's features, which it reads from the work directory, and
// writes its sparse delta there (engine.Learner.Delta: the features it
// changed, and those it only saw by index); a Combine gathers the
// epoch's small references; and the mixing step merges the deltas in
// shard order (engine.Mix.Merge) into the sparse state and writes every
// shard's weights (the values of its features, whose list the shard
// keeps from the first epoch). The state stays in memory for the next
// mixing step and is written as a file every few epochs and after the
// last; a step in another process rebuilds it from the last file and the
// deltas since, or, once it has had to, has the state written after every
// epoch. Merging in shard order makes the
// result independent of the runner and the order of its bundles: without
// shuffling, the model is Fit's with as many Workers as shards, bit for
// bit, and with shuffling it is that of the same mixing done densely in
// one process.
//
// Nothing of an epoch grows with the model's width: the state is kept
// sparse (engine.Mix.Sparse), a shard reads the weights of its own
// features only, and it learns with a learner over those features alone,
// from a copy of its cache with the features renumbered 0..n−1 in their
// order (made in the first epoch, kept in the work directory while
// training runs). A row's nonzeros keep their order and the copy keeps
// the cache's blocks, which the learner's shuffle visits, so the
// arithmetic, and the bits, are those of a learner of the whole width.
// A worker keeps the copies it learned, with their learners, from one
// epoch to the next (engine.Learner.Restart), within Options.KeepBytes,
// so that a runner that gives it the same shard again (Prism always
// does) has it read once.
//
// The weights and the deltas travel as files, not as a side input or as
// elements: a side input is re-materialized for every bundle, a runner
// such as Dataflow caps the size of a job's graph, and an element is
// encoded and copied at every step on its way to the one mixing step. All epochs run as one unrolled job by
// default, since a cluster runner takes minutes to start a job;
// Options.PerEpochJobs runs one job per epoch, so that Options.OnEpoch
// can watch (for instance, the accuracy on a validation set) and stop.
//
// TrainText starts from labelled text instead (JSONL or TSV shards, gzip
// too) and featurizes it on the workers: a first job counts every shard's
// documents and labels, and with hashing its buckets' document
// frequencies, with a vocabulary its terms' (and their occurrences, to
// rank them by with MaxFeatures), and sums them (integer sums, terms
// merged by their text, so the runner's merge order does not matter),
// which fits the featurizer bit for bit as one text.FitFile on all the
// text would (text.FromDocumentFrequencies, text.FromTermFrequencies); a
// second job featurizes every shard into a cache in the work directory,
// its rows in a seeded random order; and the epochs above learn those
// caches. The result is a text model. A vocabulary's counts are never
// pruned: past a worker's memory budget the job fails (see TrainText).
//
// The runner is Prism, Beam's local runner, in the process, unless
// Options.Runner names another (dataflow, flink, spark), which then takes
// its settings from Beam's flags. Beam's types and functions are
// registered by reflect.Type (beam.RegisterType) rather than with the
// generic register helpers, whose generated code costs seconds of
// compilation each and gains nothing for a few elements per epoch.
package beam
