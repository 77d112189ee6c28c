GO ?= go
export CGO_ENABLED = 0

.PHONY: build test demo fuzz-short bench lint

build:
	$(GO) build -o bin/tfscan ./cmd/tfscan

test:
	$(GO) test ./...

lint:
	gofmt -l . | (! grep .)
	$(GO) vet ./...
