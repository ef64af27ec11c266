# shim: build, test, demo, bench, lint, release.
GO      ?= go
BIN     ?= bin/shim
VERSION ?= dev
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME ?= 15s

.PHONY: build test test-go fuzz demo bench lint release clean

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/shim

# The test command CI runs (.ci/run): unit and integration tests with the
# race detector, then a short run of every fuzz target on its corpus.
test: test-go fuzz

test-go:
	$(GO) test -race -count=1 ./...

# Each fuzz target runs for FUZZTIME; corpora live in the packages' testdata/fuzz.
fuzz:
	@set -e; for spec in $$($(GO) test -list '^Fuzz' ./... 2>/dev/null | awk '/^Fuzz/ {names[n++]=$$1} /^ok/ {for (i = 0; i < n; i++) print $$2":"names[i]; n = 0}'); do \
		pkg=$${spec%%:*}; name=$${spec##*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZTIME) $$pkg; \
	done

demo: build
	$(GO) run ./examples/demo -shim $(BIN)

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

clean:
	rm -rf bin dist
