# ccsite: make run | test | fuzz | golden | bench | vet | fmt | build
#
# Go is taken from PATH, else from /usr/local/go/bin (a fresh machine may
# not have it on PATH).

GO       ?= $(shell command -v go 2>/dev/null || echo /usr/local/go/bin/go)
GOFMT    ?= $(GO)fmt
TIMEOUT  ?= 30m
FUZZTIME ?= 1m
# Packages whose goldens CCSITE_UPDATE=1 re-records.
GOLDEN   ?= ./build/session/... ./build/render/... ./build/markup/...
# Extra arguments for make run, e.g. make run ARGS="-o public ~/old-projects".
ARGS     ?=
# gitleaks (secret redaction) runs its rules on RE2 compiled to WebAssembly
# (pure Go, no cgo) with this tag: ~10x faster than Go's regexp.
TAGS     ?= gore2regex

.PHONY: all build run test fuzz golden bench bench-agents vet fmt clean

all: build

build:
	$(GO) build -buildvcs=auto -tags $(TAGS) -o ccsite .

# Build ./site from ~/.claude/projects (or the built-in demo archive).
run: build
	./ccsite build $(ARGS)

# Set CCSITE_CORPUS=/path/to/shared/corpus to add the real-corpus checks.
test:
	$(GO) test -tags $(TAGS) -count=1 -timeout $(TIMEOUT) ./...

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) ./build/transcript
	$(GO) test -run '^$$' -fuzz '^FuzzFastDecode$$' -fuzztime $(FUZZTIME) ./build/transcript
	$(GO) test -run '^$$' -fuzz '^FuzzFastInto$$' -fuzztime $(FUZZTIME) ./build/transcript
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz '^FuzzGoLexer$$' -fuzztime $(FUZZTIME) ./build/markup
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz '^FuzzMarkdownLexer$$' -fuzztime $(FUZZTIME) ./build/markup
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz '^FuzzBashLexer$$' -fuzztime $(FUZZTIME) ./build/markup
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz '^FuzzPythonLexer$$' -fuzztime $(FUZZTIME) ./build/markup
	$(GO) test -tags $(TAGS) -run '^$$' -fuzz '^FuzzPlainParagraph$$' -fuzztime $(FUZZTIME) ./build/markup

golden:
	CCSITE_UPDATE=1 $(GO) test -count=1 $(GOLDEN)

# Measures builds in CPU seconds (user+sys, wait4 rusage) and peak RSS on the
# corpus tree (~100 MB) and a ~1 GB tree (COPIES=10): cold, cold --no-search
# (search cost), no-op, warm --force, one message appended (and the search
# shard bytes it rewrites); prints `| target | measured | goal | met/MISSED |`
# and writes it to $WORK/bench.md. Exit 0 unless a build fails. Knobs:
# SMALL_DIR, BIG_DIR, DIR=tree (only that tree), SMALL=1 (corpus tree only),
# COPIES, RUNS, COLD_RUNS, WARM_RUNS, NOOP_RUNS, WORK, KEEP=1, GOBENCH=1
# (see scripts/bench.sh). Then bench-agents.
bench:
	GO=$(GO) TAGS=$(TAGS) bash scripts/bench.sh
	$(MAKE) bench-agents

# Cold build CPU per 100 MB of Claude Code's corpus tree (SMALL_DIR), and of
# ~100 MB trees of Codex and Gemini CLI sessions made by repeating the samples
# in AGENTS (default /work/shared/agents; skipped without them): a row per
# agent, met when Codex's and Gemini's cost per MB is at most Claude Code's.
# Knobs: AGENTS, CLAUDE_DIR, WORK, TARGET_MB, RUNS (see scripts/bench-agents.sh).
bench-agents:
	@if [ -d "$${AGENTS:-/work/shared/agents}/codex" ]; then \
		GO=$(GO) TAGS=$(TAGS) CLAUDE_DIR=$${CLAUDE_DIR:-$${SMALL_DIR:-/tmp/ccsite-bench-0}} bash scripts/bench-agents.sh; \
	else echo "bench-agents: no samples in $${AGENTS:-/work/shared/agents}: not run"; fi

vet:
	$(GO) vet ./...

fmt:
	$(GOFMT) -l -w .

clean:
	rm -f ccsite
