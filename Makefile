# helix — see README.md. `make demo` and `make test` work on a fresh machine:
# scripts/pg-up.sh says which PostgreSQL it uses (HELIX_TEST_DATABASE_URL, else
# helix's own throwaway cluster on HELIX_PG_PORT) and prints its URL.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

GO          ?= go
BIN         := bin/helix
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT      ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo none)
DATE        ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS     := -s -w -X github.com/helixhq/helix/internal/build.Version=$(VERSION) \
               -X github.com/helixhq/helix/internal/build.Commit=$(COMMIT) \
               -X github.com/helixhq/helix/internal/build.Date=$(DATE)
STATICCHECK_VERSION := v0.8.2
TOOLS       := $(CURDIR)/.helix/tools
DEMO_DB     := helix_demo

FUZZTIME    ?= 30s
FUZZFLAGS   ?=

.PHONY: test-deps build demo test pg-down lint units fmt-check vet staticcheck prism release-check bench fuzz clean mcp-npm

build: ## static binary in bin/helix
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/helix

# The demo synthesizes with --full so that a re-run prints the patterns too
# (without it the unchanged users are skipped), and ends telling how to point
# helix at the demo database and what to try.
demo: ## PostgreSQL up, migrate, import the demo data, run synthesis over every user
	@echo "== compiling bin/helix (the first build fetches modules and compiles for a few minutes)" >&2
	@scripts/build-progress.sh "compiling bin/helix" $(MAKE) --no-print-directory build GOFLAGS="$(strip $(GOFLAGS) -v)"
	@if [ -n "$${DATABASE_URL:-}" ]; then url="$$DATABASE_URL"; echo "== using DATABASE_URL" >&2; else \
	  server=$$(scripts/pg-up.sh); url=$$(scripts/createdb.sh "$$server" $(DEMO_DB)); fi; \
	export DATABASE_URL="$$url"; \
	echo "== helix migrate up" >&2; $(BIN) migrate up; \
	echo "== helix import memories testdata/demo/memories.jsonl" >&2; $(BIN) import memories testdata/demo/memories.jsonl; \
	echo "== helix synthesize --all-users --full" >&2; $(BIN) synthesize --all-users --full; \
	echo "== helix doctor" >&2; $(BIN) doctor; \
	printf '\nThe demo database is ready. Point helix at it:\n\n  export DATABASE_URL=\047%s\047\n\nthen try:\n%s\n%s\n%s\n' "$$url" \
	  "  $(BIN) memory search garden --user-id 11111111-1111-4111-8111-111111111111" \
	  "  $(BIN) synthesize --user-id 11111111-1111-4111-8111-111111111111 --dry-run -o json" \
	  "  $(BIN) decay run"

# go test runs TEST_P packages at once. Not go's default (the number of
# CPUs): the tests' connections must fit PostgreSQL's default
# max_connections (100), and two packages whose tests run several at a time
# (cli, cmd/worker, cmd/schedule: testbin.Main) peaked at 81 together.
TEST_P      ?= 2
# The tests the race detector cuts (they check raceEnabled: the 2,000-history
# sync properties, the full-size reconcile, the full models.dev snapshots),
# run again without it. A new test that checks raceEnabled belongs here.
NORACE_TESTS := ^(TestPropertyOrderIndependence|TestReconcileRandomBatches|TestConcurrentReconcilers|TestRoundTripRealSnapshots|TestCompareRealSnapshots|TestFetchVerifyLifecycle)$$

# make test's checks and installs, PREP_J at a time: the installs (apt, npm,
# staticcheck's) wait on the network while vet and staticcheck use the CPU,
# and each says when it starts and how long it took (scripts/step.sh).
# What can be kept is kept under .helix/ (tools, npm, prism) and in Go's
# caches, so a second make test skips the installs.
TEST_PREP   := fmt-check vet staticcheck units test-deps mcp-npm prism
PREP_J      ?= 4

test: ## every check and every test, against a real PostgreSQL
	@start=$$(date +%s); echo "== make test: $(TEST_PREP), $(PREP_J) at a time, then go test" >&2; \
	$(MAKE) --no-print-directory -j$(PREP_J) $(TEST_PREP); \
	echo "== checks and installs done in $$(( $$(date +%s) - start )) s" >&2
	@url=$$(scripts/pg-up.sh); echo "testing against $$url" >&2; \
	echo "== go test -race ./...: compiles every package's test binary with the race detector, then runs them $(TEST_P) packages at a time (on an empty Go cache the first result comes after several minutes)" >&2; \
	HELIX_MCP_NPM_REQUIRED=1 HELIX_TEST_DATABASE_URL="$$url" $(GO) test -race -count=1 -p $(TEST_P) -timeout 25m ./...; \
	echo "again without -race: the 2,000-history sync properties and the full models.dev snapshots" >&2; \
	HELIX_TEST_DATABASE_URL="$$url" $(GO) test -count=1 -timeout 10m -run '$(NORACE_TESTS)' ./internal/syncer/ ./internal/catalog/ ./internal/cmd/catalog/

lint: fmt-check vet staticcheck

test-deps: ## Debian packages the tests need (prometheus, pgbouncer), installed when missing
	@scripts/step.sh test-deps "Debian packages the tests run (prometheus, pgbouncer), apt-get install when missing" scripts/test-deps.sh

mcp-npm: ## MCP Inspector, conformance suite, server-everything and Node 22 for the MCP tests (npm, under .helix/npm)
	@scripts/step.sh mcp-npm "MCP Inspector, conformance suite, server-everything, Node 22 under .helix/npm (npm, once)" scripts/mcp-npm.sh $(CURDIR)/.helix/npm

prism: ## Stoplight Prism under .helix/prism, for the tool exec requests test (npm)
	@scripts/step.sh prism "Stoplight Prism under .helix/prism (npm, once)" scripts/install-prism.sh

units: build ## systemd-analyze verify the units in scripts/systemd (when systemd-analyze is installed)
	@scripts/step.sh units "systemd-analyze verify scripts/systemd" scripts/check-units.sh

fmt-check:
	@echo "== fmt-check: gofmt -l" >&2; out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.helix/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	@scripts/step.sh vet "go vet ./... (compiles and checks every package)" $(GO) vet ./...

staticcheck:
	@test -x $(TOOLS)/staticcheck || scripts/step.sh staticcheck-install "go install staticcheck $(STATICCHECK_VERSION) into .helix/tools (once)" \
	  env GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	@scripts/step.sh staticcheck "staticcheck ./..." $(TOOLS)/staticcheck ./...

release-check: ## validate .goreleaser.yaml when goreleaser is installed
	@if command -v goreleaser >/dev/null; then goreleaser check; else echo "goreleaser not installed: skipped (https://goreleaser.com/install)"; fi

bench: ## Go benchmarks (the side-by-side scripts are in scripts/bench/)
	@url=$$(scripts/pg-up.sh); HELIX_TEST_DATABASE_URL="$$url" $(GO) test -run '^$$' -bench . -benchmem ./...

fuzz: ## run every native Go fuzz target for FUZZTIME each (default 30s)
	@# A failing input is saved by go test under its package's
	@# testdata/fuzz/FuzzName/, which plain `go test` then runs as a regression case.
	@# Some targets (search queries) run against PostgreSQL, as the tests do.
	@url=$$(scripts/pg-up.sh); export HELIX_TEST_DATABASE_URL="$$url"; \
	failed=""; n=0; start=$$(date +%s); \
	for pkg in $$(grep -l --include='*_test.go' -r '^func Fuzz' internal cmd 2>/dev/null | xargs -n1 dirname | sort -u | sed 's|^|./|'); do \
	  for t in $$($(GO) test -list '^Fuzz' "$$pkg" 2>/dev/null | grep '^Fuzz' || true); do \
	    n=$$((n+1)); echo "== fuzz $$pkg $$t for $(FUZZTIME)" >&2; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) "$$pkg" || failed="$$failed $$pkg.$$t"; \
	  done; \
	done; \
	echo "fuzz: $$n targets, $$(( $$(date +%s) - start )) s" >&2; \
	if [ -n "$$failed" ]; then echo "fuzz: failures in:$$failed (inputs saved under testdata/fuzz/ of each package; commit them with the fix)" >&2; exit 1; fi

pg-down: ## stop the throwaway PostgreSQL cluster scripts/pg-up.sh started, if any
	scripts/pg-down.sh

clean:
	rm -rf bin dist
