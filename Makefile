# netrepro: `make reproduce` sets up, builds, runs the default specs and writes the HTML reports;
# `make test` runs every test suite. Emulated runs and the end-to-end tests need root.

VENV := .venv
PYTHON := $(VENV)/bin/python
SNAKEMAKE := $(VENV)/bin/snakemake
CORES ?= 2
DEFAULT_SPECS := configs/liu95cool.yaml
SNAKEMAKE_ARGS ?=

.PHONY: all setup build reproduce test test-c test-r test-python lint bench-link bench-tools bench-sim clean

all: build

setup:
	bash envs/setup.sh

build: setup
	$(MAKE) -C tools all

reproduce: build
	@for spec in $(DEFAULT_SPECS); do \
		echo "== $$spec"; \
		$(SNAKEMAKE) --cores $(CORES) --configfile $$spec $(SNAKEMAKE_ARGS) || exit 1; \
	done
	@echo "Reports: $(CURDIR)/reports/html/index.html"

test: build test-c test-r test-python

test-c:
	$(MAKE) -C tools test

test-r:
	Rscript reports/tests/testthat.R

# pytest runs last: its summary is the suite's closing line.
test-python: setup
	$(PYTHON) -m pytest -q tests

lint: setup
	@for spec in $(DEFAULT_SPECS); do $(SNAKEMAKE) --lint --configfile $$spec || exit 1; done

bench-link: build
	$(PYTHON) benchmarks/link/bench_link.py

bench-tools: build
	$(PYTHON) benchmarks/tools/bench_tools.py

bench-sim: build
	$(PYTHON) benchmarks/sim/bench_sim.py

clean:
	$(MAKE) -C tools clean
	rm -rf reports/html .snakemake logs
