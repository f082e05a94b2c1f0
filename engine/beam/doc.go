// Package beam trains hyperplane's linear models across machines on
// Apache Beam, by iterative parameter mixing (McDonald, Hall & Mann 2010)
// over shards of cache files, as engine.Fit does with Workers goroutines
// in one process.
//
// One epoch is one stage of the pipeline: the reference to the mixed
// state fans out into one task per shard; Reshuffle lets the runner spread
// the tasks over its workers; each worker learns its shard for one epoch
// (engine.Learner.PartialFitCache, streamed), starting from the weights
// it reads from the work directory; its sparse delta (engine.Mix.Delta:
// only the features the shard touched) goes to a Combine, which gathers
// the epoch's deltas; and the mixing step merges them in shard order
// (engine.Mix.Merge) and writes the next state. Merging in shard order
// makes the result independent of the runner and the order of its
// bundles: without shuffling, the model is Fit's with as many Workers as
// shards, bit for bit.
//
// The weights travel as files, not as a side input: a side input is
// re-materialized for every bundle, and a runner such as Dataflow caps
// the size of a job's graph. All epochs run as one unrolled job by
// default, since a cluster runner takes minutes to start a job;
// Options.PerEpochJobs runs one job per epoch, so that Options.OnEpoch
// can watch (for instance, the accuracy on a validation set) and stop.
//
// The runner is Prism, Beam's local runner, in the process, unless
// Options.Runner names another (dataflow, flink, spark), which then takes
// its settings from Beam's flags. Beam's types and functions are
// registered by reflect.Type (beam.RegisterType) rather than with the
// generic register helpers, whose generated code costs seconds of
// compilation each and gains nothing for a few elements per epoch.
package beam
