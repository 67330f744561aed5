// Package model is the Code-Block I/O Characterization (CIOC) model of the
// Vidya method: it predicts the I/O intensity of a code block — the share
// of its run time spent in I/O, 0 for pure compute, 1 for pure I/O — from
// the block's static parameters (features.Params) and the machine
// (sysprof.System).
//
// Normalize maps the parameters to sixteen variables X1…X16 in [0, 1]
// (see Variables for each definition). X1–X15 follow the paper's P1–P15;
// X16 is a physical estimate of the I/O time share built from the
// machine's measured latencies and bandwidths (EstimateTimes). A Model is
// a linear function of the variables, clamped to [0, 1]; Predict is exactly
// 0 for a block without I/O.
//
// Fit estimates a model by ordinary least squares with backward stepwise
// elimination and returns a Table in the form of the paper's Table II;
// CrossValidate measures how well such fits generalise. Default returns
// the model shipped in cioc-v31.json, fitted by "iolens static train" on the
// corpus of workload programs in testdata/static/corpus measured with the
// collector; the programs of the held-out test set, testdata/static/test,
// are only used to evaluate it.
package model
