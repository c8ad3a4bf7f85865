#!/usr/bin/env bash
# bench.sh measures `ccsite build` against the performance targets:
#
#   cold         empty output folder, empty highlight cache     >= 25 MB/s
#   warm         --force over the previous build (warm cache)  >= 80 MB/s
#   no-op        a rebuild with nothing changed                (time reported)
#   incremental  append one message to one session, rebuild    < 0.5 s (corpus tree)
#   peak RSS     of the cold build                             < 1024 MB
#
# Every build is `ccsite build --quiet -o OUT TREE` (stdout to /dev/null); for
# each scenario it prints wall seconds, MB/s of input (.jsonl bytes under the
# tree), CPU seconds and peak RSS, then a summary table with met/MISSED.
#
# Trees, made with ../shared/tools/projects-tree.py when missing (built beside
# and renamed, so an interrupted run leaves no half tree; files are copied, so
# the incremental scenario never touches the corpus):
#   the big tree     $BIG_DIR (--copies $COPIES, ~1 GB): cold, warm, no-op, incremental
#   the corpus tree  $SMALL_DIR (the corpus once, ~100 MB): a setup build and
#                    incremental (its target is defined on this tree); cold,
#                    warm and no-op as well with SMALL=1 or COPIES<=1 (then
#                    there is no big tree)
#
# Environment:
#   COPIES     copies of the corpus in the big tree (default 10, about 1 GB)
#   DIR        benchmark only this tree, all scenarios (made with --copies
#              $COPIES when missing); the incremental target applies when
#              COPIES <= 1
#   BIG_DIR    the big tree (default /tmp/ccsite-bench-$COPIES)
#   SMALL_DIR  the corpus tree (default /tmp/ccsite-bench-0)
#   SMALL=1    run cold, warm and no-op on the corpus tree too
#   RUNS       incremental runs, each appending one more line (default 3)
#   COLD_RUNS, WARM_RUNS, NOOP_RUNS   runs of those scenarios (default 1 each)
#   SHARED     the shared/ folder holding tools/ and corpus/ (default: beside
#              the repository)
#   GO, TAGS   the go command (default: go on PATH, else /usr/local/go/bin/go)
#              and build tags (default gore2regex: ~10x faster redaction)
#   WORK       folder for the binary, the sites and the highlight caches
#              (default: a new temporary folder, removed at the end unless
#              KEEP=1; a WORK you name is never removed)
#   GOBENCH=1  also run `go test -bench` (Benchmark functions) on the last tree
#
# The highlight cache lives under os.UserCacheDir(): each tree gets its own
# empty XDG_CACHE_HOME for the cold build, reused by the later scenarios.
# Peak RSS is the child's ru_maxrss from wait4(2), read by python3 (the same
# number GNU time -v prints), so nothing needs installing. 1 MB = 2^20 bytes.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cd "$repo"

GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
TAGS=${TAGS-gore2regex}
COPIES=${COPIES:-10}
SHARED=${SHARED:-$(dirname "$repo")/shared}
RUNS=${RUNS:-3}
COLD_RUNS=${COLD_RUNS:-1}
WARM_RUNS=${WARM_RUNS:-1}
NOOP_RUNS=${NOOP_RUNS:-1}
SMALL=${SMALL:-0}
GOBENCH=${GOBENCH:-0}
KEEP=${KEEP:-0}

need() {
	command -v "$1" >/dev/null 2>&1 || { echo "bench.sh: $1 is required" >&2; exit 1; }
}
need python3
[ -x "$GO" ] || need "$GO"
for v in COPIES RUNS COLD_RUNS WARM_RUNS NOOP_RUNS; do
	[[ ${!v} =~ ^[0-9]+$ ]] || { echo "bench.sh: $v=${!v}: want a number" >&2; exit 2; }
done

if [ -n "${WORK:-}" ]; then
	mkdir -p "$WORK"
	work=$(cd "$WORK" && pwd -P)
	KEEP=1
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/ccsite-bench-work.XXXXXX")
fi
cleanup() {
	if [ "$KEEP" = 1 ]; then
		echo "bench.sh: kept $work (sites, highlight caches, binary)"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

# The trees to measure: "dir|copies|scenarios|corpus" (corpus=1: the
# incremental target applies).
plan=()
if [ -n "${DIR:-}" ]; then
	corpus=0
	[ "$COPIES" -le 1 ] && corpus=1
	plan+=("$DIR|$COPIES|cold warm noop incr|$corpus")
else
	SMALL_DIR=${SMALL_DIR:-/tmp/ccsite-bench-0}
	BIG_DIR=${BIG_DIR:-/tmp/ccsite-bench-$COPIES}
	if [ "$SMALL" = 1 ] || [ "$COPIES" -le 1 ]; then
		plan+=("$SMALL_DIR|0|cold warm noop incr|1")
	else
		plan+=("$SMALL_DIR|0|setup incr|1")
	fi
	# COPIES=0 or 1: the "big" tree is the corpus tree.
	[ "$COPIES" -le 1 ] || plan+=("$BIG_DIR|$COPIES|cold warm noop incr|0")
fi

echo "== build"
bin=$work/ccsite
"$GO" build ${TAGS:+-tags "$TAGS"} -o "$bin" .
gover=$("$GO" version)
echo "$gover; tags: ${TAGS:-none}; binary: $bin"

make_tree() { # dir copies
	local dir=$1 copies=$2 tool=$SHARED/tools/projects-tree.py tmp
	[ -d "$dir" ] && return 0
	echo "== tree $dir (projects-tree.py --copies $copies)"
	[ -f "$tool" ] || { echo "bench.sh: $tool not found (set SHARED or DIR)" >&2; exit 1; }
	# Build beside and rename, so an interrupted run leaves no half tree.
	tmp=$dir.partial
	rm -rf "$tmp" "$tmp.tsv"
	python3 "$tool" --out "$tmp" --copies "$copies"
	mv "$tmp" "$dir"
	if [ -f "$tmp.tsv" ]; then mv "$tmp.tsv" "$dir.tsv"; fi
}

runner=$work/bench.py
results=$work/results.tsv
: >"$results"
cat >"$runner" <<'PY'
"""One scenario: run the build RUNS times, print each run, record the result.

usage: bench.py RESULTS TREE LABEL SCENARIO RUNS CORPUS OUT CACHE -- CMD...
"""
import datetime, json, os, re, shlex, shutil, statistics, subprocess, sys, time, uuid

results, tree, label, scen, runs, corpus, out, cache = sys.argv[1:9]
runs, corpus = int(runs), corpus == "1"
cmd = sys.argv[10:]
MB = 2**20
UUID_JSONL = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$")
TARGETS = {  # scenario -> (description, met(best wall s, its MB/s))
    "cold": (">= 25 MB/s", lambda wall, rate: rate >= 25),
    "warm": (">= 80 MB/s", lambda wall, rate: rate >= 80),
    "incr": ("< 0.5 s", lambda wall, rate: wall < 0.5),
}
NAMES = {"setup": "setup (cold)", "cold": "cold", "warm": "warm --force",
         "noop": "no-op rebuild", "incr": "incremental"}


def input_bytes():
    n = 0
    for root, _, files in os.walk(tree):
        for f in files:
            if f.endswith(".jsonl"):
                n += os.stat(os.path.join(root, f)).st_size
    return n


def pick_session():
    """The largest <uuid>.jsonl session file under 1 MB (not a sub-agent file)."""
    best = None
    for root, dirs, files in os.walk(tree):
        dirs.sort()
        if "subagents" in os.path.relpath(root, tree).split(os.sep):
            continue
        for f in files:
            if not UUID_JSONL.match(f):  # also leaves out agent-*.jsonl
                continue
            p = os.path.join(root, f)
            if os.path.islink(p):
                continue
            size = os.stat(p).st_size
            if size < MB and (best is None or (size, p) > best[:2]):
                best = (size, p)
    if best is None:
        sys.exit(f"bench.sh: no session file under 1 MB in {tree}")
    return best[1]


def append(path, n):
    """Append one user message continuing the session's last record with a uuid."""
    real = os.path.realpath(path)
    if os.path.islink(path) or not real.startswith(os.path.realpath(tree) + os.sep):
        sys.exit(f"bench.sh: refusing to append to {path}: not a plain file of the tree")
    last = None
    with open(path, "rb") as f:
        data = f.read()
    for raw in reversed(data.splitlines()):
        try:
            o = json.loads(raw)
        except ValueError:
            continue
        if isinstance(o, dict) and isinstance(o.get("uuid"), str) and o["uuid"]:
            last = o
            break
    if last is None:
        sys.exit(f"bench.sh: no record with a uuid in {path}")
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
    rec = {"type": "user", "uuid": str(uuid.uuid4()), "parentUuid": last["uuid"],
           "sessionId": last.get("sessionId"), "cwd": last.get("cwd"),
           "version": last.get("version"), "timestamp": now.replace("+00:00", "Z"),
           "message": {"role": "user", "content": f"bench append {n}"}}
    line = json.dumps(rec, separators=(",", ":")).encode() + b"\n"
    with open(path, "ab") as f:
        if data and not data.endswith(b"\n"):
            line = b"\n" + line
        f.write(line)


env = dict(os.environ, XDG_CACHE_HOME=cache)
shown = f"XDG_CACHE_HOME={shlex.quote(cache)} {shlex.join(cmd)} > /dev/null"
print(f"== {label}: {NAMES[scen]}")
print(f"command: {shown}")
session = None
if scen == "incr":
    session = pick_session()
    print(f"appending to: {os.path.relpath(session, tree)} ({os.stat(session).st_size} bytes)")
print(f"{'run':>4} {'MB':>8} {'wall s':>8} {'MB/s':>8} {'cpu s':>8} {'peak RSS MB':>12}", flush=True)
rows = []
for i in range(1, runs + 1):
    if scen in ("setup", "cold"):  # every cold build starts from nothing
        for d in (out, cache):
            shutil.rmtree(d, ignore_errors=True)
        os.makedirs(cache)
    if scen == "incr":
        append(session, i)
    mb = input_bytes() / MB
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"bench.sh: {label} {NAMES[scen]} run {i} failed (exit status {code}):\n  {shown}")
    cpu = ru.ru_utime + ru.ru_stime
    rss = ru.ru_maxrss / 1024  # KiB on Linux
    rows.append((wall, mb, cpu, rss))
    print(f"{i:>4} {mb:8.1f} {wall:8.2f} {mb / wall:8.1f} {cpu:8.2f} {rss:12.1f}", flush=True)
wall, mb, cpu, _ = min(rows)
med = statistics.median(r[0] for r in rows)
peak = max(r[3] for r in rows)
rate = mb / wall
if runs > 1:
    print(f"best {mb:8.1f} {wall:8.2f} {rate:8.1f} {cpu:8.2f} {peak:12.1f}   median {med:.2f} s")

target, verdict = "-", "-"
if scen in TARGETS and (scen != "incr" or corpus):
    target, ok = TARGETS[scen][0], TARGETS[scen][1](wall, rate)
    verdict = "met" if ok else "MISSED"
elif scen == "incr":
    target = "(corpus tree only)"
if verdict != "-":
    got = f"{wall:.2f} s" if scen == "incr" else f"{rate:.1f} MB/s"
    print(f"target {target}: {verdict} ({got}, best of {runs})")
lines = [(label, NAMES[scen], runs, mb, wall, med, rate, cpu, peak, target, verdict)]
if scen == "cold":
    v = "met" if peak < 1024 else "MISSED"
    print(f"target peak RSS < 1024 MB: {v} ({peak:.0f} MB, worst run)")
    lines.append((label, "peak RSS (cold)", runs, mb, wall, med, rate, cpu, peak, "< 1024 MB", v))
print(flush=True)
with open(results, "a") as f:
    for l in lines:
        f.write("\t".join(str(x) for x in l) + "\n")
PY

last=
for entry in "${plan[@]}"; do
	IFS='|' read -r dir copies scenarios corpus <<<"$entry"
	make_tree "$dir" "$copies"
	dir=$(cd "$dir" && pwd -P)
	last=$dir
	label=$(basename "$dir")
	out=$work/$label.site
	cache=$work/$label.cache
	rm -rf "$out" "$cache"
	mkdir -p "$cache"
	if [[ " $scenarios " == *" incr "* ]] && [ ! -f "$dir.tsv" ] && [ "${APPEND_OK:-0}" != 1 ]; then
		# Only trees made by projects-tree.py (which leaves DIR.tsv beside
		# them) are known to be copies that may be appended to.
		echo "bench.sh: $dir.tsv not found, so $dir may not be a projects-tree.py copy:" \
			"skipping the incremental scenario (APPEND_OK=1 to run it anyway)" >&2
		scenarios=${scenarios/incr/}
	fi
	for s in $scenarios; do
		case $s in
		setup | cold) n=$COLD_RUNS; args=() ;;
		warm) n=$WARM_RUNS; args=(--force) ;;
		noop) n=$NOOP_RUNS; args=() ;;
		incr) n=$RUNS; args=() ;;
		esac
		[ "$s" = setup ] && n=1
		[ "$n" -gt 0 ] || continue
		python3 "$runner" "$results" "$dir" "$label" "$s" "$n" "$corpus" "$out" "$cache" -- \
			"$bin" build --quiet "${args[@]}" -o "$out" "$dir"
	done
	du -sh "$out" | sed 's/^/site size: /'
	echo
done

echo "== summary"
python3 - "$results" "$gover" <<'PY'
import os, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
hdr = ("tree", "scenario", "runs", "MB", "best s", "median s", "MB/s", "cpu s", "peak RSS MB", "target", "result")
fmt = []
for r in rows:
    label, scen, runs, mb, wall, med, rate, cpu, rss, target, verdict = r
    fmt.append((label, scen, runs, f"{float(mb):.1f}", f"{float(wall):.2f}", f"{float(med):.2f}",
                f"{float(rate):.1f}", f"{float(cpu):.2f}", f"{float(rss):.0f}", target, verdict))
w = [max(len(x[i]) for x in [hdr] + fmt) for i in range(len(hdr))]
for x in [hdr] + fmt:
    print("  ".join(c.ljust(w[i]) if i in (0, 1, 9, 10) else c.rjust(w[i]) for i, c in enumerate(x)).rstrip())
print(f"cores: {os.cpu_count()}, load average now: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; {sys.argv[2]}")
missed = sum(1 for r in rows if r[10] == "MISSED")
print(f"targets: {sum(1 for r in rows if r[10] == 'met')} met, {missed} MISSED")
PY

# Go benchmarks, if any; BenchmarkLoad and BenchmarkBuildSite read the tree.
if [ "$GOBENCH" = 1 ] && grep -rqs --include='*_test.go' '^func Benchmark' .; then
	echo "== go test -bench ($last)"
	gocache=$("$GO" env GOCACHE)
	mkdir -p "$work/gobench.cache"
	GOCACHE=$gocache XDG_CACHE_HOME=$work/gobench.cache CCSITE_BENCH_TREE=$last \
		"$GO" test ${TAGS:+-tags "$TAGS"} -run '^$' -bench . -benchmem ./...
fi
