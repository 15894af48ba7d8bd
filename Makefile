# netrepro: `make reproduce` sets up, builds, runs the default specs and writes the HTML reports;
# `make test` runs every test suite. Emulated runs and the end-to-end tests need root.

VENV := .venv
PYTHON := $(VENV)/bin/python
SNAKEMAKE := $(VENV)/bin/snakemake
CORES ?= 2
# Emulated in real time at the quick profile (needs root).
DEFAULT_SPECS := configs/liu95cool.yaml
# Tahoe-stack specs, run in virtual time at the paper's scale (minutes, no root needed).
# liu95cool-tahoe.yaml comes after liu95cool.yaml's emulated results: its report shows both.
SIM_SPECS := configs/comer94.yaml configs/liu95db.yaml configs/ishikura.yaml configs/milliner.yaml \
	configs/liu95cool-tahoe.yaml
SNAKEMAKE_ARGS ?=

.PHONY: all setup build reproduce study test test-c test-r test-python lint bench-link bench-tools bench-sim bench-crossval bench-clean bench-faults bench-reproduce bench-seeds coverage fit clean

all: build

setup:
	bash envs/setup.sh

build: setup
	$(MAKE) -C tools all

# Every spec first writes its results (target all_results, which names every result, so an
# experiment whose results folder was deleted is measured again). Then the virtual-time specs'
# reports render $(CORES) at a time (target paper_report): a render runs on one core, and one
# after another they left the other idle for minutes. liu95cool.yaml's report is the one
# liu95cool-tahoe.yaml renders, with both setups; it renders first, the longest of them, while
# the others share the second core. The index comes last, once, from every scorecard. A failed
# render stops make with its paper's log named.
reproduce: build
	@for spec in $(DEFAULT_SPECS); do \
		echo "== $$spec"; \
		$(SNAKEMAKE) all_results --cores $(CORES) --configfile $$spec $(SNAKEMAKE_ARGS) || exit 1; \
	done
	@for spec in $(SIM_SPECS); do \
		echo "== $$spec (virtual time, paper profile)"; \
		$(SNAKEMAKE) all_results --cores $(CORES) --configfile $$spec $(SNAKEMAKE_ARGS) \
			--config backend=sim profile=paper || exit 1; \
	done
	@echo "== the reports, $(CORES) at a time"
	@printf '%s\n' $(SIM_SPECS) | tac | xargs -P $(CORES) -I {} $(SNAKEMAKE) paper_report --cores 1 \
		--configfile {} $(SNAKEMAKE_ARGS) --config backend=sim profile=paper --quiet
	@$(SNAKEMAKE) --cores 1 --configfile $(lastword $(SIM_SPECS)) $(SNAKEMAKE_ARGS) \
		--config backend=sim profile=paper --forcerun render_index --quiet -- reports/html/index.html
	@echo "Reports: $(CURDIR)/reports/html/index.html"

# A commented starting spec for a study of one's own: make study NAME=my-study [TOOL=ttcp] [LINK=ethernet-10]
study: setup
	@test -n "$(NAME)" || { echo "usage: make study NAME=my-study [TOOL=pingx|ttcp|mftp|ipcbench] [LINK=atm-oc3-155]"; exit 2; }
	$(PYTHON) -m netrepro.new "$(NAME)" --tool "$(or $(TOOL),pingx)" --link "$(or $(LINK),atm-oc3-155)"

# The C tests first (their binaries build on both cores), then pytest in two parts with the R
# tests beside them. pytest's emulated-network tests (marker netlab, tests/conftest.py) run first,
# one at a time: their links run in real time, and their timing suffers from work beside them (the
# linkemu timed-frame test failed beside the R tests at equal priority; a 125 Mb/s link check fell
# 7 % short beside the other tests, which keep both cores busy, even at nice 19). The R tests, one
# process, run beside them at the lowest priority, on the time they leave: a session of its own is
# a scheduling group of its own where Linux has autogroups, and nice acts only inside a group, so
# the group gets nice 19 as well. pytest's other tests then run on every core (pytest-xdist; tests
# that share a fixture wider than one test carry an xdist_group, so one worker builds it). The R
# tests' output is held back and shown after pytest's, so the two do not mix; all run to the end
# and the last line names any suite that failed. When the recipe ends, however it ends, the R
# tests are stopped with every process they started (their own process group) and the logs and
# pytest's temporary folders are removed. Each suite's failures are named again at the very end,
# where CI's tail shows them.
PYTEST = $(PYTHON) -m pytest -q -rs -p no:cacheprovider
test: build test-c
	@logs=$$(mktemp -d --tmpdir netrepro-tests.XXXXXX); \
	setsid sh -c 'echo 19 >/proc/self/autogroup 2>/dev/null; exec nice -n 19 Rscript reports/tests/testthat.R' \
		>"$$logs/r.log" 2>&1 & r_tests=$$!; \
	trap '[ -z "$$r_tests" ] || kill -TERM -$$r_tests 2>/dev/null; rm -rf "$$logs"' EXIT; \
	trap 'exit 130' INT; trap 'exit 143' TERM; \
	echo "== pytest -m netlab: the emulated-network tests, one at a time"; \
	{ $(PYTEST) -m netlab --basetemp="$$logs/netlab-tmp" tests; echo $$? >"$$logs/netlab.status"; } \
		2>&1 | tee "$$logs/netlab.log"; \
	echo "== pytest -m 'not netlab' -n $(CORES): the other tests, on every core"; \
	{ $(PYTEST) -m "not netlab" -n $(CORES) --dist loadgroup --basetemp="$$logs/other-tmp" tests; \
		echo $$? >"$$logs/other.status"; } 2>&1 | tee "$$logs/other.log"; \
	netlab_status=$$(cat "$$logs/netlab.status" 2>/dev/null || echo 1); \
	other_status=$$(cat "$$logs/other.status" 2>/dev/null || echo 1); \
	wait $$r_tests; r_status=$$?; r_tests=""; \
	echo "== R tests (Rscript reports/tests/testthat.R), run beside pytest"; cat "$$logs/r.log"; \
	for part in netlab other; do \
		grep -qE '^(FAILED|ERROR) ' "$$logs/$$part.log" || continue; \
		echo "== pytest's failures again ($$part)"; grep -E '^(FAILED|ERROR) ' "$$logs/$$part.log"; \
	done; \
	failed=""; [ $$r_status -eq 0 ] || failed="$$failed R"; \
	[ $$netlab_status -eq 0 ] || failed="$$failed pytest-netlab"; [ $$other_status -eq 0 ] || failed="$$failed pytest"; \
	if [ -n "$$failed" ]; then echo "make test: failed:$$failed"; exit 1; fi; \
	echo "make test: the C, R and pytest suites passed"

test-c:
	$(MAKE) -C tools -j$(CORES) test

test-r:
	Rscript reports/tests/testthat.R

test-python: setup
	$(PYTEST) tests

lint: setup
	@for spec in $(DEFAULT_SPECS) $(SIM_SPECS); do $(SNAKEMAKE) --lint --configfile $$spec || exit 1; done

bench-link: build
	$(PYTHON) benchmarks/link/bench_link.py

bench-tools: build
	$(PYTHON) benchmarks/tools/bench_tools.py

# Installs ns-3 (envs/bench-packages.txt) to time the same transfer beside netsim; then times
# liu95cool-tahoe.yaml's paper profile (benchmarks/results/sim-liu95cool.md).
bench-sim: build
	bash envs/setup.sh envs/bench-packages.txt
	$(PYTHON) benchmarks/sim/bench_sim.py
	$(PYTHON) benchmarks/sim/bench_liu95cool.py

# make reproduce on a fresh clone of HEAD, timed stage by stage (root; an idle machine, as for
# make reproduce itself): benchmarks/results/reproduce.md.
bench-reproduce: setup
	$(PYTHON) benchmarks/reproduce/bench_reproduce.py

# make reproduce's virtual-time specs on fresh clones, once with the specs' seeds and twice with
# others (root for milliner's RPC, about 45 minutes): which era-host verdicts the seed decides,
# in benchmarks/results/seeds.md.
bench-seeds: setup
	$(PYTHON) benchmarks/seeds/bench_seeds.py

# Runs what is missing of the compared cases (root, emulation), then compares: about 30 minutes for
# the cases' runs, and when a new build sets the kept ones aside, Table 1's emulated extra seeds
# and repeats take about half a minute a pair and seed more, some 3 hours in all.
bench-crossval: build
	$(PYTHON) benchmarks/crossval/bench_crossval.py --run

# 20 consecutive emulated smoke trials leave the machine as found (root, Mininet; ~4 minutes).
bench-clean: build
	$(PYTHON) benchmarks/faults/bench_cleanliness.py --trials 20

# Line coverage of the Tahoe stack's TCP by the C suites, built apart with gcov (tools/build-cov).
coverage: setup
	$(MAKE) -C tools coverage
	$(PYTHON) benchmarks/coverage/coverage.py
# Every fault case of issue 32, emulated signals included (root, Mininet; about 3 minutes):
# writes benchmarks/results/faults.md. make test runs the same tests but two emulated signals.
bench-faults: build
	$(PYTHON) benchmarks/faults/bench_faults.py

# The host models' calibration and fits, in virtual time (about 12 minutes on 2 cores): each
# script rewrites its table in benchmarks/results/ over the grid below, the grid the host files'
# comments discuss.
# The LANCE calibration on the SPARCstation 1, the IPC's fit (one cost per PDU for both
# directions, the one it takes), the same with the directions apart, the share of the IPC's
# wakeups another process makes late (at the chosen point), and the Solaris IPX's fit.
IPC_PDU_NS := 20000,40000,60000,80000,100000,120000,140000,160000,200000,250000,300000,350000,400000
IPC_TX_NS := 150000,200000,250000,300000,350000,400000,500000
IPC_RX_NS := 0,50000,100000,150000,200000,250000,300000
fit: build
	$(PYTHON) benchmarks/fit/calibrate_le.py --grid 350000,400000,450000,500000,550000
	$(PYTHON) benchmarks/fit/fit_host.py configs/hosts/sparcstation-ipc.yaml --transfers 4 \
		--grid atm_buffer_bytes=1024,2048,4096,8192 --grid atm_tx_ns+atm_rx_ns=$(IPC_PDU_NS)
	$(PYTHON) benchmarks/fit/fit_host.py configs/hosts/sparcstation-ipc.yaml --transfers 4 \
		--grid atm_tx_ns=$(IPC_TX_NS) --grid atm_rx_ns=$(IPC_RX_NS) --grid atm_buffer_bytes=4096,8192 \
		--out benchmarks/results/fit-sparcstation-ipc-txrx.csv
	$(PYTHON) benchmarks/fit/fit_host.py configs/hosts/sparcstation-ipc.yaml --transfers 8 \
		--grid atm_buffer_bytes=8192 --grid atm_tx_ns+atm_rx_ns=300000 --grid late_wakeup_pct=0,20,40,60,80 \
		--grid late_wakeup_max_ns=500000,1000000,2000000,5000000 \
		--out benchmarks/results/fit-sparcstation-ipc-late.csv
	$(PYTHON) benchmarks/fit/fit_host.py configs/hosts/sparcstation-ipx-solaris23.yaml \
		--grid atm_rx_per_byte_ps=10000,20000,30000,40000

clean:
	$(MAKE) -C tools clean
	rm -rf reports/html .snakemake logs
