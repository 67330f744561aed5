// Package knowledge learns how an application moves its data from one run
// to the next and uses what it learned to foresee the accesses of a run in
// progress, after the KNOWAC approach of He, Sun and Thakur (CLUSTER 2012).
//
// The input is the access sequences iolens records with --learn: for every
// rank, the ordered high-level accesses (PnetCDF variables, HDF5 datasets)
// and the POSIX extents each of them caused (see darshan.AccessSequence).
//
// The method has four parts:
//
//   - Run-specific file names (dates, time steps, job ids) are replaced by
//     logical names (see Namer), so that runs of the same application speak
//     of the same objects.
//   - Every run is folded into one accumulation graph per application
//     (Graph): a vertex is a distinct access (object, module, direction,
//     region) with how often it happened, how many bytes it moved, how long
//     it took and which file extents it touched; an edge says that one access
//     followed another on a rank, how often, and with what idle gap between
//     them. Runs that do the same thing strengthen the same path; a run that
//     does something else adds a branch, which merges back where the runs
//     agree again.
//   - The graphs live in a repository (Repo), one SQLite file that several
//     processes may update at once.
//   - While an application runs, a Matcher follows its accesses along the
//     graph and predicts the next ones (Predict) with the extents to fetch
//     and the time left to fetch them, so that a prefetcher can bring the
//     data in before it is asked for. Evaluate measures how well a graph
//     would have predicted a run it did not learn from.
package knowledge
