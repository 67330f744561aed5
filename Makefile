# iolens build, test and benchmark targets. `make` builds bin/iolens and
# bin/iolens-facility (the facility commands, which iolens runs).

GO        ?= go
BIN       := bin/iolens
VERSION   := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/iolens/iolens/internal/cli.Version=$(VERSION)
FUZZTIME  ?= 60s
# Debian packages the tests need beyond Go; `make test` installs those
# missing, `make deps` all of them.
DEBIAN_PACKAGES := gcc g++ libc6-dev binutils make patch openmpi-bin libopenmpi-dev mpich libmpich-dev \
	libhdf5-openmpi-dev libpnetcdf-dev pkg-config gfortran python3 procps \
	chromium slurm-wlm munge
# Debian packages the demo needs: a C compiler and Open MPI.
DEMO_PACKAGES := gcc libc6-dev openmpi-bin libopenmpi-dev
# Where `make demo` writes its program, log and page.
DEMO_DIR  ?= demo/out

.PHONY: all build test test-corpus demo bench bench-compare bench-prefetch bench-tune bench-store fuzz deps clean
.PHONY: vendor-echarts

all: build

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/iolens
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN)-facility ./cmd/iolens-facility

# Installs the missing Debian packages, then vets and runs every test.
test:
	sh scripts/debian-packages.sh $(DEBIAN_PACKAGES)
	$(GO) vet ./...
	$(GO) test ./...

# Builds and measures every program of the static analysis's training
# corpus under the collector (go test measures one in six).
test-corpus:
	sh scripts/debian-packages.sh $(DEBIAN_PACKAGES)
	$(GO) test ./static/corpus -run TestMeasureCorpus -all-corpus -timeout 60m

# Records a small MPI program with a known I/O problem and diagnoses it.
demo:
	@sh scripts/debian-packages.sh $(DEMO_PACKAGES)
	@$(MAKE) -s build
	@sh demo/demo.sh $(BIN) $(DEMO_DIR)

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
# Throughput of one core (lines/s): the C/C++ and Fortran front-ends and the whole static chain.
	$(GO) test -run '^$$' -bench 'Parse|Analyze' -cpu 1 ./static ./static/cfront ./static/fortran

# iolens against the reference tools, whole processes, on the sample logs
# (or LOGS): DARSHAN_PARSER=/path/to/darshan-parser DRISHTI=drishti make bench-compare
RUNS ?= 11
LOGS ?= testdata/darshan-logs
bench-compare: build
	$(GO) run ./bench/compare -iolens $(BIN) -runs $(RUNS) $(LOGS)

# Prefetching against no prefetching on pgea-like PnetCDF and HDF5
# workloads whose inputs (PREFETCH_GIB GiB, in PREFETCH_DIR on a disk) are
# evicted from the page cache before every run, with the disk's reads capped
# at PREFETCH_MBPS MB/s (0: no cap; a virtual disk's speed drifts); then the
# collector's added cost per call with --learn.
PREFETCH_DIR ?= /var/tmp/iolens-bench-prefetch
PREFETCH_GIB ?= 2
PREFETCH_MBPS ?= 500
bench-prefetch: build
	@sh scripts/debian-packages.sh $(DEMO_PACKAGES) libpnetcdf-dev libhdf5-openmpi-dev pkg-config
	$(GO) run ./bench/prefetch -iolens $(BIN) -dir $(PREFETCH_DIR) -size $(PREFETCH_GIB) -read-mbps $(PREFETCH_MBPS)
	$(GO) test -run '^$$' -bench Overhead -benchtime 11x ./collector

# Model-based tuning against exhaustive search (the ground truth, measured
# once into TUNE_DIR), the genetic algorithm and random search, on the
# IOR-like kernel with 4 ranks (Open MPI's ROMIO; 2 segments of 1 MiB per
# rank in strided 1 KiB collective transfers: -block, -xfer, -segments of
# bench/tune) and 729 configurations of ROMIO hints. The ground truth takes
# about 20 minutes; an interrupted measurement resumes where it stopped.
TUNE_DIR ?= /var/tmp/iolens-bench-tune
bench-tune: build
	@sh scripts/debian-packages.sh $(DEMO_PACKAGES)
	$(GO) run ./bench/tune -dir $(TUNE_DIR)

# The facility dataset at scale: STORE_LOGS synthetic logs generated once
# into STORE_DIR (7 GB for 100,000), ingested from a cold page cache at 10,000
# and STORE_LOGS logs (logs/s, peak RSS), counter-only logs, two ingesters
# into one dataset, sharded ingests and store compact, the baseline of one
# parser process per log and of parse --json loaded into DuckDB, then the
# overview, top-N, job list and web pages on the largest ingest replicated
# STORE_REPLICAS times (1,000,000 jobs). DARSHAN_PARSER=/path/to/darshan-parser
# times it as the baseline instead of iolens parse.
STORE_DIR ?= /var/tmp/iolens-bench-store
STORE_LOGS ?= 100000
STORE_REPLICAS ?= 10
bench-store: build
	$(GO) run ./bench/store -bench $(STORE_DIR) -iolens $(BIN) -sizes 10000,$(STORE_LOGS) -replicas $(STORE_REPLICAS)

# Run every fuzz target of every package for FUZZTIME each.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$target ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s $$pkg; \
		done; \
	done

deps:
ifneq ($(strip $(DEBIAN_PACKAGES)),)
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEBIAN_PACKAGES)
endif
	$(GO) mod download
	$(MAKE) vendor-echarts

# Apache ECharts for the HTML report, from the npm registry. The files are
# committed under report/assets/echarts (go:embed needs them at build time);
# this checks them against SHA256SUMS and fetches them with npm only when
# missing or different. Upgrade: make vendor-echarts ECHARTS_VERSION=x.y.z UPDATE=1
ECHARTS_VERSION ?= 6.1.0
vendor-echarts:
	UPDATE=$(UPDATE) sh report/assets/echarts/vendor.sh $(ECHARTS_VERSION)

clean:
	rm -rf bin demo/out
