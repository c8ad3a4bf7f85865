#!/usr/bin/env bash
# bench.sh times `ccsite inspect DIR > /dev/null` (discovery + parse + model
# of every transcript) and `ccsite build -o SITE DIR` (the whole site) over a
# big projects tree and reports, per run and for the best run: input MB,
# wall seconds, MB/s, CPU seconds and peak RSS.
# Targets on the ~1 GB tree: >= 150 MB/s and peak RSS < 500 MB.
#
# Environment:
#   COPIES  copies of the corpus in the tree (default 10, about 1 GB)
#   DIR     the tree (default /tmp/ccsite-bench-$COPIES); made when missing
#           with ../shared/tools/projects-tree.py --copies $COPIES
#   SHARED  the shared/ folder holding tools/ and corpus/ (default: beside
#           the repository)
#   RUNS    timed runs (default 3)
#   GO      the go command (default: go on PATH, else /usr/local/go/bin/go)
#
# Peak RSS is the child's ru_maxrss from wait4(2), read by python3 (the same
# number GNU time -v prints), so nothing needs installing. 1 MB = 2^20 bytes.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$repo"

GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
COPIES=${COPIES:-10}
DIR=${DIR:-/tmp/ccsite-bench-$COPIES}
SHARED=${SHARED:-$(dirname "$repo")/shared}
RUNS=${RUNS:-3}

need() {
	command -v "$1" >/dev/null 2>&1 || { echo "bench.sh: $1 is required" >&2; exit 1; }
}
need python3
[ -x "$GO" ] || need "$GO"

echo "== build"
"$GO" build -o ccsite .
"$GO" version

echo "== tree $DIR"
if [ ! -d "$DIR" ]; then
	tool=$SHARED/tools/projects-tree.py
	[ -f "$tool" ] || { echo "bench.sh: $tool not found (set SHARED or DIR)" >&2; exit 1; }
	# Build beside and rename, so an interrupted run leaves no half tree.
	tmp=$DIR.partial
	rm -rf "$tmp" "$tmp.tsv"
	python3 "$tool" --out "$tmp" --copies "$COPIES"
	mv "$tmp" "$DIR"
	if [ -f "$tmp.tsv" ]; then mv "$tmp.tsv" "$DIR.tsv"; fi
fi

runner=$(mktemp)
trap 'rm -f "$runner"' EXIT
cat >"$runner" <<'PY'
"""Run the command RUNS times with stdout to /dev/null; report each run."""
import os, resource, subprocess, sys, time

tree, runs, targets, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "targets", sys.argv[4:]
out = os.environ.get("BENCH_OUT")
size = 0
for root, _, files in os.walk(tree):
    for f in files:
        if f.endswith(".jsonl"):
            size += os.stat(os.path.join(root, f)).st_size
mb = size / 2**20
print(f"input: {mb:.1f} MB of .jsonl under {tree}")
print(f"command: {' '.join(cmd)} > /dev/null")
print(f"{'run':>4} {'MB':>8} {'wall s':>8} {'MB/s':>8} {'cpu s':>8} {'peak RSS MB':>12}")
results = []
for i in range(1, runs + 1):
    if out:
        subprocess.run(["rm", "-rf", out], check=True)  # every site build starts cold
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"bench.sh: {' '.join(cmd)} exited with status {p.returncode}")
    cpu = ru.ru_utime + ru.ru_stime
    rss = ru.ru_maxrss / 1024  # KiB on Linux
    results.append((wall, cpu, rss))
    print(f"{i:>4} {mb:8.1f} {wall:8.2f} {mb / wall:8.1f} {cpu:8.2f} {rss:12.1f}", flush=True)
wall, cpu, rss = min(results)
print(f"best {mb:8.1f} {wall:8.2f} {mb / wall:8.1f} {cpu:8.2f} {rss:12.1f}")
peak = max(r[2] for r in results)
if targets:
    print(f"targets: >= 150 MB/s: {'met' if mb / wall >= 150 else 'MISSED'} ({mb / wall:.0f}); "
          f"peak RSS < 500 MB: {'met' if peak < 500 else 'MISSED'} ({peak:.0f}, worst run)")
print(f"cores: {os.cpu_count()}, load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
PY

echo "== inspect (discovery + parse + model)"
python3 "$runner" "$DIR" "$RUNS" targets ./ccsite inspect "$DIR"

# The whole site: parse, render (highlighting, diffs, Markdown) and write.
# Each run starts from an empty output folder and a cold highlight cache.
site=${SITE:-$DIR.site}
echo "== build (the whole site into $site)"
BENCH_OUT=$site python3 "$runner" "$DIR" "$RUNS" none ./ccsite build -o "$site" "$DIR"
du -sh "$site" | sed 's/^/site size: /'

# Go benchmarks, if any; BenchmarkLoad reads the same tree.
if grep -rqs --include='*_test.go' '^func Benchmark' .; then
	echo "== go test -bench"
	CCSITE_BENCH_TREE=$DIR "$GO" test -run '^$' -bench . -benchmem ./...
fi
