GO ?= go
export CGO_ENABLED = 0

.PHONY: build test demo fuzz-short bench bench-nodes lint opdefs opdefs-check tf zoo zoo-full kernel-goldens

build:
	$(GO) build -o bin/tfscan ./cmd/tfscan

# The whole suite, as CI runs it (.ci/run): unit, golden, corpus, CLI and
# TensorFlow conformance tests, then the HTML report in a real headless
# Chromium. The pinned TensorFlow is installed on first use (make tf).
# The kernels and the executor run again in a purego build, on the
# portable loops that other CPUs run, held to the same TensorFlow goldens.
# A scan runs steps on goroutines of their own (its model and packs
# decoded and shapes inferred ahead, a source placed beside its target,
# each target's placement read while the next is made), so every test of
# the scan runs again under the race detector; so do the tests of the
# placements' shared parts, of the embedded OpDefs decoded as they are
# looked up, and of the collector's pacing, which a finalizer ends. The
# race detector needs cgo (and gcc, which the conformance tests' fake
# device needs too).
test:
	TFSCAN_PYTHON=$$(tools/tf/ensure.sh) $(GO) test -timeout 40m ./...
	$(GO) test -tags purego ./kernels ./executor
	CGO_ENABLED=1 $(GO) test -race -run 'Beside|Ahead|Behind|Owned|DecodeOnce|Pace' ./graph/opdefs ./coverage ./coverage/placement
	CGO_ENABLED=1 $(GO) test -race ./cmd/tfscan/internal/scan
	$(MAKE) html-check

# Every golden file rewritten from what the code gives now: go test -update
# over each package whose tests define the -update flag (the writers'
# pages, log and explain goldens, the CLI scripts, docs/conformance.md).
# Review the diff before committing it.
.PHONY: update-goldens
update-goldens:
	TFSCAN_PYTHON=$$(tools/tf/ensure.sh) $(GO) test $$(grep -rl --include='*_test.go' 'flag.Bool("update"' . | xargs -n1 dirname | sort -u) -update

# The pinned TensorFlow the conformance tests ask (tools/tf/requirements.lock):
# a virtual environment in the cache folder, installed once per lock.
tf:
	@tools/tf/ensure.sh

# A fake PluggableDevice with exactly the kernels of pack PACK (a built-in
# name or a pack or dump file), built with gcc against the pinned wheel:
# out/fakedevice/NAME.so registers device type TFSCAN_<its device type>
# (tools/fakedevice/build.sh; exit 3 for a bad or empty pack).
# tools/tf/tfplace.py asks TensorFlow's placer about a model on it.
PACK ?= musa
.PHONY: fakedevice
fakedevice: build
	TFSCAN=bin/tfscan tools/fakedevice/build.sh $(PACK) out/fakedevice

# The model zoo TensorFlow makes (tools/tfmodels/README.md), into the cache
# folder, once per generator and lock: `zoo` is the small set the
# conformance tests run (they build it on first use through the same
# command), `zoo-full` adds the large keras.applications set. Each prints
# the zoo's folder.
zoo:
	@tools/tfmodels/make.sh

zoo-full:
	@tools/tfmodels/make.sh --full

# TensorFlow's CPU kernels as goldens for the Go kernels
# (kernels/testdata/tf/, tools/tf/kernel_goldens.py); `go test ./conformance`
# regenerates them into a temporary folder and diffs.
kernel-goldens:
	$$(tools/tf/ensure.sh) tools/tf/kernel_goldens.py kernels/testdata/tf

# tfscan's main job on the bundled example models: a scan against four
# vendor stacks, as a table on the terminal plus HTML and JSON reports.
demo: build
	@mkdir -p out/demo
	bin/tfscan scan testdata/models --target intel-xpu,musa,ascend,directml \
		--format table --format html=out/demo/report.html --format json=out/demo/report.json
	@echo "reports: out/demo/report.html out/demo/report.json"

# Every fuzz target for FUZZTIME each (on demand, not in CI); FUZZ=regexp
# picks targets by "path:FuzzName".
FUZZTIME ?= 30s
FUZZ ?= .
fuzz-short:
	GO=$(GO) ./tools/fuzz-short.sh $(FUZZTIME) '$(FUZZ)'

# Speed and memory goals, each against a baseline measured in the same run
# (on demand, not in CI; docs/performance.md). No time limit: on a loaded
# machine the scan benchmarks alone take more than go test's ten minutes.
# The node-heavy rows run in processes of their own (bench-nodes): the
# benchmark model the others keep in memory would pace their collections.
bench:
	$(GO) test -run='^$$' -bench=. -skip='NodeHeavy' -benchmem -timeout=0 ./graph/ ./graph/opdefs/ ./savedmodel/ ./cmd/tfscan/ ./cmd/tfscan/internal/scan/ ./coverage/ ./coverage/placement/ ./kernels/ ./executor/ ./tflog/ ./reports/jsonout/
	$(MAKE) --no-print-directory bench-nodes

# The executor against TensorFlow's CPU runtime on a zoo's models (single-
# threaded and on every core) and the float32 GEMM against OpenBLAS, each
# with its baseline in the same run (docs/performance.md; on demand, not in
# CI). ZOO=$(make -s zoo-full) adds the 224x224 CNNs; BENCH_EXEC picks benchmarks.
ZOO ?=
BENCH_EXEC ?= TensorFlowCPU|MatMulOpenBLAS
.PHONY: bench-exec
bench-exec:
	TFSCAN_PYTHON=$$(tools/tf/ensure.sh) TFSCAN_ZOO=$${ZOO:-$$(tools/tfmodels/make.sh)} \
		$(GO) test -run='^$$' -bench='$(BENCH_EXEC)' -benchtime=1x -timeout=60m ./executor/ ./kernels/

# Where the executor's time goes, single-threaded: a CPU profile of each of
# PROFILE_MODELS run by the executor alone (BenchmarkZooGo), split into the
# columns of docs/performance.md's table by tools/execprofile. ZOO as for
# bench-exec; the table's models are the full zoo's.
PROFILE_MODELS ?= resnet50 inceptionv3 densenet121 efficientnetb0 mobilenetv2 mobilenetv3small
.PHONY: profile-exec
profile-exec:
	@zoo=$${ZOO:-$$(tools/tfmodels/make.sh)}; hdr=-header; mkdir -p out/profile; \
	for m in $(PROFILE_MODELS); do \
		TFSCAN_ZOO=$$zoo GODEBUG=asyncpreemptoff=1 $(GO) test ./executor -run='^$$' -bench="^BenchmarkZooGo$$/^$$m$$/^reuse$$" \
			-cpu=1 -benchtime=8s -cpuprofile=out/profile/$$m.cpu -o=out/profile/executor.test >/dev/null || exit 1; \
		$(GO) run ./tools/execprofile $$hdr -model $$m out/profile/$$m.cpu || exit 1; hdr=; \
	done

# The node-heavy shapes alone (flat 200k and 1M GraphDefs, 5,000 functions):
# load and build against read + proto.Unmarshal, the default scan against
# inspect, the 1M graph against 7 targets, in a benchmark's process and as
# whole tfscan processes (docs/performance.md).
bench-nodes:
	$(GO) test -run='^$$' -bench='NodeHeavy' -benchmem -timeout=0 ./graph/ ./cmd/tfscan/internal/scan/ ./cmd/tfscan/

lint:
	gofmt -l . | (! grep .)
	$(GO) vet ./...

# The embedded OpDef registry (graph/opdefs) is generated from TensorFlow's
# source tree; TF_SRC defaults to the module cache copy.
TF_MODULE = github.com/tensorflow/tensorflow@v2.15.0+incompatible
TF_SRC ?= $(shell $(GO) env GOMODCACHE)/$(TF_MODULE)

$(TF_SRC)/tensorflow/core/ops/ops.pbtxt:
	$(GO) mod download $(TF_MODULE)

opdefs: $(TF_SRC)/tensorflow/core/ops/ops.pbtxt
	cd graph/opdefs && $(GO) run ../internal/opdefgen/opdefgen -tf $(TF_SRC) -o .

opdefs-check: $(TF_SRC)/tensorflow/core/ops/ops.pbtxt
	cd graph/opdefs && $(GO) run ../internal/opdefgen/opdefgen -tf $(TF_SRC) -o . -check

# The HTML report in a real headless Chromium (installs chromium and
# playwright-core when missing); see tools/html_check/run.sh.
.PHONY: html-check
html-check:
	tools/html_check/run.sh

# Built-in kernel registry packs (coverage/packs/*.json), regenerated from
# pinned sources by tools/registries.sh, which ends with the completeness
# audit (tools/registries-exclusions.txt); SRC holds the vendor repositories
# exported at the pinned commits (see docs/registries.md).
SRC ?= /tmp/src
.PHONY: registries registries-check
registries:
	TF_SRC=$(TF_SRC) SRC=$(SRC) tools/registries.sh coverage/packs

registries-check:
	@tmp=$$(mktemp -d); \
	TF_SRC=$(TF_SRC) SRC=$(SRC) tools/registries.sh $$tmp && diff -r coverage/packs $$tmp; \
	rc=$$?; rm -rf $$tmp; \
	if [ $$rc -eq 0 ]; then echo "registries: every pack regenerates byte for byte and the completeness audit passes"; else echo "registries: packs differ from their sources (run make registries) or the completeness audit failed (see above)"; fi; \
	exit $$rc
