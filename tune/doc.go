// Package tune tunes the I/O parameters of an application with an empirical
// model, after the method built on H5Tuner: every layer of the parallel I/O
// stack has knobs (HDF5 file-access properties, MPI-IO hints, the stdio
// buffer, the application's own arguments and environment, the number of
// ranks), too many to try every combination.
//
// The pieces are:
//
//   - A parameter space (Space): named parameters (Param) with their
//     values, how each is applied (Kind), and constraints between them.
//     Spaces come from built-in presets (Preset) and from TOML files
//     (LoadSpace, ParseSpace); a configuration (Config) gives every
//     parameter one value.
//   - An empirical model (Fit): the objective, the I/O time of a run, as a
//     linear combination of terms prod_i x_i^{p_i}, p_i in {-1, 0, 1}, over
//     the numeric encodings of the values, selected greedily to minimise the
//     relative error of the fit.
//   - Search strategies (Strategy) that ask an Evaluator to run batches of
//     configurations: Exhaustive, Random, Genetic (a baseline after
//     H5Evolve) and ModelBased, which fits a model on a space-filling
//     sample, prunes the space to the best predicted configurations,
//     explores them, refits and runs the best of the refitted model.
//   - A tuning history (History) in one SQLite file: sessions, trials and
//     models, so that an interrupted session resumes without running a
//     configuration twice (Cached) and later sessions start warm.
//
// The package runs no program itself: executors (local, batch systems) that
// apply a configuration to a run (Space.Settings) and measure it implement
// Evaluator.
package tune
