# shim: build, test, demo, bench, lint, release.
GO      ?= go
BIN     ?= bin/shim
VERSION ?= dev
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
LDFLAGS := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME ?= 3s

.PHONY: build test check-node demo-deps test-go e2e test-npm fuzz demo demo-agent bench lint lint-tools release clean

# shim's platform credential helper (cmd/shim-platform: the AWS and Azure
# credential libraries, kept out of shim's start) is built beside it:
# shim runs the shim-platform beside its own executable, else the one on
# the PATH, and never writes one (README "Security").
HELPER ?= $(dir $(BIN))shim-platform$(if $(filter %.exe,$(BIN)),.exe,)

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $(HELPER) ./cmd/shim-platform
	CGO_ENABLED=0 $(GO) build -trimpath -tags urfave_cli_no_docs -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/shim

# The test command CI runs (.ci/run): unit and integration tests with the
# race detector, the end-to-end interop suite (the official ACP TypeScript
# client and A2A JavaScript server; needs Node.js >= 20 and npm), then a
# short run of every fuzz target on its corpus; and the npm launcher packed
# and run from its tarball on this platform.
test: check-node test-go e2e test-npm fuzz

# Fails at once, before the Go run, when the end-to-end suite cannot run.
check-node:
	@command -v node >/dev/null 2>&1 || { echo "make test needs Node.js >= 20 and npm for the end-to-end suite (e2e/): node is not on the PATH"; exit 1; }
	@command -v npm >/dev/null 2>&1 || { echo "make test needs npm (with Node.js >= 20) for the end-to-end suite (e2e/): npm is not on the PATH"; exit 1; }
	@node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' || { echo "make test needs Node.js >= 20 for the end-to-end suite (e2e/); this is node $$(node --version)"; exit 1; }

test-go:
	$(GO) test -race -count=1 -timeout 30m ./...

e2e: build
	SHIM_BIN=$(BIN) e2e/run.sh

test-npm:
	bash packaging/npm/test.sh

# Each fuzz target runs for FUZZTIME; corpora live in the packages' testdata/fuzz
# (.ci/fuzz: a run ended by Go 1.26's fuzz deadline race without a failing
# input is run once more).
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) .ci/fuzz

# The demo: shim and the demo program (agent + Zed-like harness) built in
# one go, then run. A first run downloads the Go modules first.
DEMO_BIN ?= bin/shim-demo
DEMO_ADDR ?= 127.0.0.1:7870

demo-deps:
	@echo "demo: fetching the Go modules (first run only)…"
	@$(GO) mod download
	@echo "demo: building shim, the demo agent and the harness (a first build compiles every dependency: about 3 minutes on 2 CPUs)…"

# Built with shim's own settings, so the two builds share compiled packages.
DEMO_BUILD = CGO_ENABLED=0 $(GO) build -trimpath -tags urfave_cli_no_docs -o $(DEMO_BIN) ./examples/demo

demo: demo-deps build
	@$(DEMO_BUILD)
	@$(DEMO_BIN) -shim $(BIN)

# The demo agent alone, for a real editor: prints its URL, the Zed settings
# to paste and the shim doctor line; runs until Ctrl-C.
demo-agent: demo-deps build
	@$(DEMO_BUILD)
	@$(DEMO_BIN) -serve $(DEMO_ADDR)

# Benchmarks on this machine (not part of test or CI; a few minutes): cold
# start next to two ACP agents from npm, throughput and added latency next
# to a raw SSE reader, peak memory, replay, round trips through a delay
# proxy (RTT 0-200 ms, HTTP and TLS), Go micro-benchmarks. Prints a table
# and writes BENCHMARKS.md. PROFILE=1 adds pprof runs (bench/out/prof);
# BENCH_FLAGS="-only rtt" runs the round trips alone (about a minute).
bench: build
	bench/run.sh $(BIN)

# The linters' versions; .ci/run installs these (make lint-tools).
STATICCHECK_VERSION ?= v0.8.2
DEADCODE_VERSION    ?= v0.52.0
GOIMPORTS_VERSION   ?= v0.52.0
GOCYCLO_VERSION     ?= v0.6.0
GOBIN_DIR           := $(shell $(GO) env GOPATH 2>/dev/null)/bin
STATICCHECK         ?= $(GOBIN_DIR)/staticcheck
DEADCODE            ?= $(GOBIN_DIR)/deadcode
GOIMPORTS           ?= $(GOBIN_DIR)/goimports
GOCYCLO             ?= $(GOBIN_DIR)/gocyclo

# Two gates on the Go files git knows: imports grouped standard library /
# others / shim (goimports -local lists nothing), and no function, test
# support included, of cyclomatic complexity over CYCLO_MAX (gocyclo).
CYCLO_MAX := 20
LINT_GO_FILES = $(shell git ls-files '*.go')

# Unreachable from every main of the module is dead code or a test hook in
# a production file, except in internal/acptest, which only tests import;
# the second run (-test) finds what not even a test reaches, acptest's
# included. DEADCODE_ALLOW lists what is known and owned elsewhere (one
# grep -E pattern each, no spaces in it), each with its reason.
DEADCODE_ALLOW := ^internal/acptest/
# internal/oidctest: a real OpenID provider for the sign-in tests; test support
# reached only from tests (checked by the deadcode -test run below).
DEADCODE_ALLOW += ^internal/oidctest/
# internal/platformtest: scripted managed agent platforms (SPEC §12.7) and the
# loopback credential endpoints their libraries are pointed at; test support
# reached only from tests (checked by the deadcode -test run below).
DEADCODE_ALLOW += ^internal/platformtest/
# internal/streamtest: the stream readers' test frame, SSE stream and socket
# reader; test support reached only from tests (checked by the -test run).
DEADCODE_ALLOW += ^internal/streamtest/
# internal/proto03test: a strict ProtoJSON reader of the A2A 0.3.0 proto for the
# codec's tests; test support reached only from tests (checked by the -test run).
DEADCODE_ALLOW += ^internal/proto03test/

lint-tools:
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(GO) install golang.org/x/tools/cmd/deadcode@$(DEADCODE_VERSION)
	$(GO) install golang.org/x/tools/cmd/goimports@$(GOIMPORTS_VERSION)
	$(GO) install github.com/fzipp/gocyclo/cmd/gocyclo@$(GOCYCLO_VERSION)

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	@test -x $(STATICCHECK) && test -x $(DEADCODE) && test -x $(GOIMPORTS) && test -x $(GOCYCLO) || { echo "make lint needs staticcheck, deadcode, goimports and gocyclo: run make lint-tools"; exit 1; }
	@out=$$($(GOIMPORTS) -local github.com/shimdev/shim -l $(LINT_GO_FILES)); if [ -n "$$out" ]; then echo "goimports -local github.com/shimdev/shim would change (imports grouped standard / others / shim):"; echo "$$out"; exit 1; fi
	@out=$$($(GOCYCLO) -over $(CYCLO_MAX) $(LINT_GO_FILES)); if [ -n "$$out" ]; then echo "gocyclo: functions over $(CYCLO_MAX):"; echo "$$out"; exit 1; fi
	$(STATICCHECK) ./...
	@all=$$($(DEADCODE) ./...) || exit 1; out=$$(printf '%s\n' "$$all" | grep -Ev $(foreach p,$(DEADCODE_ALLOW),-e '$(p)')); if [ -n "$$out" ]; then echo "deadcode: unreachable from any main (dead code, or a test hook in a production file):"; echo "$$out"; exit 1; fi
	@out=$$($(DEADCODE) -test ./...) || exit 1; if [ -n "$$out" ]; then echo "deadcode -test: reached by no main and no test:"; echo "$$out"; exit 1; fi

# Release: static binaries for linux, darwin and windows on amd64 and arm64,
# packed as archives with SHA256SUMS, the ACP registry entry and the npm
# packages, into dist/ (packaging/cmd/release). Reproducible: the build date
# and every archive mtime are the commit time, never the clock.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
RELEASE_LICENSE   ?= Apache-2.0
DIST              ?= dist

release:
	@case "$(VERSION)" in [0-9]*.[0-9]*.[0-9]*) ;; *) echo "usage: make release VERSION=x.y.z"; exit 2;; esac
	@test -n "$(SOURCE_DATE_EPOCH)" || { echo "release: set SOURCE_DATE_EPOCH (no git commit to take the time from)"; exit 2; }
	rm -rf $(DIST)
	$(GO) run ./packaging/cmd/release all -version $(VERSION) -commit $(COMMIT) -epoch $(SOURCE_DATE_EPOCH) -license $(RELEASE_LICENSE) -out $(DIST)

clean:
	rm -rf bin dist
