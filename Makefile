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
