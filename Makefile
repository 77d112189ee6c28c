GO ?= go
export CGO_ENABLED = 0

.PHONY: build test demo fuzz-short bench lint opdefs opdefs-check

build:
	$(GO) build -o bin/tfscan ./cmd/tfscan

test:
	$(GO) test ./...

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

# Built-in kernel registry packs (coverage/packs/*.json.gz), regenerated from
# pinned sources by tools/registries.sh; SRC holds the vendor repositories
# exported at the pinned commits (see docs/registries.md).
SRC ?= /tmp/src
.PHONY: registries registries-check
registries:
	TF_SRC=$(TF_SRC) SRC=$(SRC) tools/registries.sh coverage/packs

registries-check:
	@tmp=$$(mktemp -d); \
	TF_SRC=$(TF_SRC) SRC=$(SRC) tools/registries.sh $$tmp && diff -r coverage/packs $$tmp; \
	rc=$$?; rm -rf $$tmp; \
	if [ $$rc -eq 0 ]; then echo "registries: every pack regenerates byte for byte"; else echo "registries: packs differ from their sources (run make registries)"; fi; \
	exit $$rc
