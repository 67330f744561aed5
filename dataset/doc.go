// Package dataset is the facility dataset: every Darshan log of a machine
// as rows of a few tables (jobs, files, insights, ranks, errors) in Parquet
// files that DuckDB, Spark, Trino or pandas read as they are.
//
// A dataset is a directory with one subdirectory per table, and in each
// one subdirectory per month partition in the Hive layout
// ("jobs/month=2026-11/"): a job's rows, in every table, are in the
// partition of the month (UTC) it started, an error's in that of the month
// of the ingest. Months, not days: a facility's jobs of one day make files
// far too small to read well, and a reader opens every file a query
// spans. The dataset only grows: each ingest batch adds one new file per
// table and partition, named after the batch, written under a temporary
// name and renamed into place, so that readers never see half a file and
// any number of ingesters (processes, hosts of a Slurm array) can add to
// one dataset at once without a lock. Compact merges the files of each
// partition into one, and moves the daily partitions ("date=2026-11-25")
// of a dataset written by an earlier version into their month.
//
// The schema of each table is that of the row types Job, File, Insight,
// Rank and Error (their parquet tags name the columns); docs/dataset.md
// describes it for users of other tools.
package dataset
