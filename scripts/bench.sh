#!/usr/bin/env bash
# bench.sh measures `ccsite build` in CPU seconds against the performance
# targets and prints a final table `| target | measured | goal | met/MISSED |`.
#
# CPU time is user+sys of the build process (ru_utime+ru_stime from wait4(2),
# read by python3): on this shared machine wall time swings 5x, CPU time does
# not. Peak RSS is the same call's ru_maxrss (what GNU time -v prints). Wall
# seconds are printed for information only. Units: 1 MB = 2^20 bytes; input
# size is the bytes of the .jsonl files under the tree, so "per 100 MB" is
# per 100*2^20 bytes of .jsonl input; 1 GB = 1024 MB.
#
# Scenarios, run on each tree in this order:
#   cold         empty output folder, empty state folder, empty highlight cache;
#                each run after one of
#   cold-nosearch the same with --no-search, in folders of its own (removed
#                after): the two alternate, and search CPU is the median of
#                the pairs' CPU(cold) - CPU(cold --no-search) (the machine's
#                speed drifts over minutes: runs of one then runs of the
#                other measured the drift with it)
#   no-op        a rebuild with nothing changed (after cold)
#   warm         --force over the previous build (warm cache and state)
#   incremental  append one user message (one JSONL line continuing the last
#                record) to one session, rebuild; RUNS times, one more line
#                each time. Before and after each build the files under
#                OUT/search/ are snapshotted (sizes and SHA-256): the bytes of
#                files new or changed are the "search shards rewritten".
#
# Targets (the final table; the corpus tree is ~100 MB, the big one ~1 GB):
#   1. cold build, corpus tree              <= 8 CPU-s per 100 MB (MB/CPU-s shown)
#   2. cold build peak RSS, big tree        < 1024 MB
#   3. search CPU per MB, big tree          <= 1.15x the corpus tree's
#      search CPU / cold build CPU          <= 25%, on each tree
#   4. one message appended                 <= 0.5 CPU-s (corpus tree),
#                                           <= 1.5 CPU-s (big tree), and
#      search shard bytes rewritten         < 1 MB (each tree)
#   5. no-op rebuild, big tree              <= 1 CPU-s and <= 200 MB peak RSS
#   6. warm --force                         <= 1.5 CPU-s per 100 MB (each tree)
# A target whose tree was not measured says "not run". CPU figures are the
# median over a scenario's runs; peak RSS and shard bytes the worst run.
# The report ends with a probe of the machine (the CPU time of making a file
# on WORK's file system, of a page fault, of a fixed Python loop): a build
# makes thousands of files and faults in its heap, and machines of one kind
# have charged 4-13 µs a fault, so compare benches whose probes agree, or
# alternated runs. Folders are not deleted between builds but moved to
# WORK/trash, removed at the end: on ext4 without a journal, in the minutes
# after files are deleted, the kernel checks each inode they freed before it
# hands out a new one (ialloc.c, recently_deleted). Each cold build used to
# delete the last one's ~1,600 files (~12,000 at 1 GB) just before it ran:
# a profile of a cold corpus build right after (perf) put 3% of its CPU in
# that check, and after a removal of tens of thousands of files a new file
# cost 1 ms of CPU instead of ~40 µs. The probe makes files after 3,000
# were removed, too. WORK so needs room for every cold build's site, state
# and cache at once: ~0.2 GB each on the corpus tree, ~1.6 GB on the 1 GB
# tree (COLD_RUNS=3: ~11 GB in all).
# A full run (both trees, RUNS=3) takes ~10-15 minutes wall on 2 cores;
# SMALL=1 (corpus tree only) about 1 minute.
#
# Every build is `ccsite build --quiet [--force|--no-search] -o OUT TREE`
# (stdout to /dev/null) with CCSITE_STATE_HOME and XDG_CACHE_HOME set: fresh
# empty folders for each cold build, the cold build's ones reused by the
# no-op, warm and incremental builds of the same tree.
#
# Trees are never modified: each tree is mirrored into WORK with hard links
# (cp -al; symbolic links, cp -as, when WORK is on another file system) and
# builds read the mirror; the session the incremental scenario appends to is
# first replaced in the mirror by a copy of its own. Missing trees are made
# with $SHARED/tools/projects-tree.py (built beside and renamed, so an
# interrupted run leaves no half tree).
#
# Environment:
#   SMALL_DIR  the corpus tree (default /tmp/ccsite-bench-0; made with
#              --copies 0, ~104 MB)
#   BIG_DIR    the big tree (default /tmp/ccsite-bench-$COPIES; made with
#              --copies $COPIES)
#   COPIES     copies of the corpus in the big tree (default 10, ~1 GB);
#              COPIES <= 1: no big tree
#   SMALL=1    the corpus tree only (no big tree)
#   DIR        benchmark only this tree (made with --copies $COPIES when
#              missing); its targets are the corpus tree's when COPIES <= 1,
#              else the big tree's
#   RUNS       incremental runs, each appending one more line (default 3)
#   COLD_RUNS, WARM_RUNS, NOOP_RUNS   runs of those scenarios (default 1
#              each; COLD_RUNS also counts the --no-search cold builds)
#   SHARED     the shared/ folder holding tools/ (default: beside the
#              repository)
#   GO, TAGS   the go command (default: go on PATH, else /usr/local/go/bin/go)
#              and build tags (default gore2regex: ~3x faster redaction)
#   WORK       folder for the binary, the tree mirrors, the sites, the state
#              and cache folders, results.jsonl and bench.md (the tables in
#              markdown, also printed); default: a new temporary folder,
#              removed at the end unless KEEP=1; a WORK you name is never
#              removed (its old results are overwritten)
#   KEEP=1     keep the temporary WORK
#   GOBENCH=1  also run `go test -bench` (Benchmark functions) on the last tree
#
# Exit status: 0 when every build succeeded, whether targets are met or
# MISSED (this is a measurement); non-zero when a build fails.
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
[ "$COLD_RUNS" -ge 1 ] || { echo "bench.sh: COLD_RUNS must be at least 1" >&2; exit 2; }

named_work=0
if [ -n "${WORK:-}" ]; then
	mkdir -p "$WORK"
	work=$(cd "$WORK" && pwd -P)
	named_work=1
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/ccsite-bench-work.XXXXXX")
fi
# Folders a scenario is done with go to $trash, removed at the end (see
# discard in bench.py: a deletion makes the next minutes' new files dear).
trash=$work/trash
export BENCH_TRASH=$trash
if [ -e "$trash" ]; then
	echo "bench.sh: removing $trash, an interrupted run's; on ext4 without a journal the builds of the next minutes pay for it (see discard)" >&2
	rm -rf "$trash"
fi
cleanup() {
	rm -rf "$trash"
	if [ "$named_work" = 1 ]; then
		:
	elif [ "$KEEP" = 1 ]; then
		echo "bench.sh: kept $work (binary, mirrors, sites, state, caches, bench.md)"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

# The trees to measure: "dir|copies|role" (role: corpus or big, which
# decides the targets).
plan=()
if [ -n "${DIR:-}" ]; then
	role=big
	[ "$COPIES" -le 1 ] && role=corpus
	plan+=("$DIR|$COPIES|$role")
else
	SMALL_DIR=${SMALL_DIR:-/tmp/ccsite-bench-0}
	BIG_DIR=${BIG_DIR:-/tmp/ccsite-bench-$COPIES}
	plan+=("$SMALL_DIR|0|corpus")
	if [ "$SMALL" != 1 ] && [ "$COPIES" -gt 1 ]; then
		plan+=("$BIG_DIR|$COPIES|big")
	fi
fi

echo "== build"
bin=$work/ccsite
"$GO" build ${TAGS:+-tags "$TAGS"} -o "$bin" .
gover=$("$GO" version)
echo "$gover; tags: ${TAGS:-none}; binary: $bin"
echo

make_tree() { # dir copies
	local dir=$1 copies=$2 tool=$SHARED/tools/projects-tree.py tmp
	[ -d "$dir" ] && return 0
	echo "== tree $dir (projects-tree.py --copies $copies)"
	[ -f "$tool" ] || { echo "bench.sh: $tool not found (set SHARED, SMALL_DIR, BIG_DIR or DIR)" >&2; exit 1; }
	tmp=$dir.partial
	rm -rf "$tmp" "$tmp.tsv"
	python3 "$tool" --out "$tmp" --copies "$copies"
	mv "$tmp" "$dir"
	if [ -f "$tmp.tsv" ]; then mv "$tmp.tsv" "$dir.tsv"; fi
}

mirror_tree() { # src dst: hard links, else symbolic links; never the files
	local src=$1 dst=$2
	rm -rf "$dst"
	if ! cp -al "$src" "$dst" 2>/dev/null; then
		rm -rf "$dst"
		cp -as "$src" "$dst"
	fi
}

runner=$work/bench.py
results=$work/results.jsonl
: >"$results"
cat >"$runner" <<'PY'
"""One scenario: run the build RUNS times, print each run, record the result.

usage: bench.py RESULTS SRC TREE LABEL ROLE SCENARIO RUNS OUT STATE CACHE -- CMD...
"""
import datetime, hashlib, json, os, re, shlex, shutil, statistics, subprocess, sys, time, uuid

results, src, tree, label, role, scen, runs, out, state, cache = sys.argv[1:11]
runs = int(runs)
assert sys.argv[11] == "--"
cmd = sys.argv[12:]
MB = 2**20
UUID_JSONL = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$")
NAMES = {"cold": "cold", "nosearch": "cold --no-search", "noop": "no-op rebuild",
         "warm": "warm --force", "incr": "one message appended"}


def input_bytes():
    n = 0
    for root, _, files in os.walk(tree):
        for f in files:
            if f.endswith(".jsonl"):
                n += os.stat(os.path.join(root, f)).st_size  # follows links
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
            size = os.stat(p).st_size
            if size < MB and (best is None or (size, p) > best):
                best = (size, p)
    if best is None:
        sys.exit(f"bench.sh: no session file under 1 MB in {tree}")
    return best[1]


def unshare(path):
    """Replace a mirrored file (hard or symbolic link) by a copy of its own,
    so that appending to it never touches the tree it mirrors."""
    st = os.stat(path)
    if os.path.islink(path) or st.st_nlink > 1:
        tmp = path + ".bench-tmp"
        shutil.copyfile(path, tmp)  # follows a symbolic link
        shutil.copystat(path, tmp)
        os.replace(tmp, path)
    st = os.lstat(path)
    if os.path.islink(path) or st.st_nlink != 1:
        sys.exit(f"bench.sh: refusing to append to {path}: not a file of its own")


def append(path, n):
    """Append one user message continuing the session's last record with a uuid."""
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
    rec = {"parentUuid": last["uuid"], "isSidechain": False, "userType": "external",
           "cwd": last.get("cwd"), "sessionId": last.get("sessionId"),
           "version": last.get("version"), "gitBranch": last.get("gitBranch", ""),
           "type": "user",
           "message": {"role": "user", "content":
                       f"Thanks. Now run the tests again and fix whatever still fails "
                       f"in the build package, then update the README (bench append {n})."},
           "uuid": str(uuid.uuid4()), "timestamp": now.replace("+00:00", "Z")}
    line = json.dumps(rec, separators=(",", ":")).encode() + b"\n"
    with open(path, "ab") as f:
        if data and not data.endswith(b"\n"):
            line = b"\n" + line
        f.write(line)


def snapshot(prev=None):
    """rel path -> (dev, ino, size, mtime_ns, sha256) of the files under OUT/search/;
    a file whose stat is unchanged since prev keeps its hash."""
    top = os.path.join(out, "search")
    snap = {}
    for root, _, files in os.walk(top):
        for f in files:
            p = os.path.join(root, f)
            st = os.lstat(p)
            key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            rel = os.path.relpath(p, top)
            if prev and rel in prev and prev[rel][:4] == key:
                snap[rel] = prev[rel]
                continue
            h = hashlib.sha256()
            with open(p, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            snap[rel] = key + (h.hexdigest(),)
    return snap


def rewritten(before, after):
    files = [r for r, v in after.items() if r not in before or before[r][4] != v[4]]
    return len(files), sum(after[r][2] for r in files), sum(1 for r in before if r not in after)


env = dict(os.environ, XDG_CACHE_HOME=cache, CCSITE_STATE_HOME=state)
shown = (f"CCSITE_STATE_HOME={shlex.quote(state)} XDG_CACHE_HOME={shlex.quote(cache)} "
         f"{shlex.join(cmd)} > /dev/null")
# "pair": cold builds with and without search, alternated (the machine's
# speed drifts over minutes: search CPU is each pair's difference). The
# one without search goes to folders of its own, removed after; the cold
# one runs second, so its site stays for the scenarios after.
ns = None
if scen == "pair":
    ns_cmd = list(cmd)
    ns_cmd.insert(ns_cmd.index("build") + 1, "--no-search")
    ns_cmd[ns_cmd.index("-o") + 1] = out + ".nosearch"
    ns = {"cmd": ns_cmd, "out": out + ".nosearch", "state": state + ".nosearch", "cache": cache + ".nosearch"}
    ns["env"] = dict(os.environ, XDG_CACHE_HOME=ns["cache"], CCSITE_STATE_HOME=ns["state"])
    print(f"== {label}: cold and cold --no-search, alternated")
    print(f"command: {shown}")
    print(f"command: CCSITE_STATE_HOME={shlex.quote(ns['state'])} XDG_CACHE_HOME={shlex.quote(ns['cache'])} "
          f"{shlex.join(ns_cmd)} > /dev/null")
else:
    print(f"== {label}: {NAMES[scen]}")
    print(f"command: {shown}")
session = None
if scen == "incr":
    session = pick_session()
    unshare(session)
    print(f"appending to: {os.path.relpath(session, tree)} ({os.stat(session).st_size} bytes)")
extra_hdr = f" {'shards rewritten':>22}" if scen == "incr" else ""
print(f"{'run':>4} {'MB':>8} {'cpu s':>8} {'cpu s/100MB':>12} {'MB/cpu s':>9} {'wall s':>8} "
      f"{'peak RSS MB':>12}{extra_hdr}", flush=True)


def build(cmd, env, name, what):
    """Runs one build; its row (MB, CPU, wall, RSS)."""
    mb = input_bytes() / MB
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"bench.sh: {label} {what} run {name} failed (exit status {code}):\n  {shlex.join(cmd)}")
    cpu = ru.ru_utime + ru.ru_stime
    rss = ru.ru_maxrss / 1024  # KiB on Linux
    return {"mb": mb, "cpu": cpu, "user": ru.ru_utime, "sys": ru.ru_stime, "wall": wall, "rss": rss}


def show(name, row, extra=""):
    mb, cpu = row["mb"], row["cpu"]
    print(f"{name:>4} {mb:8.1f} {cpu:8.2f} {cpu / mb * 100:12.2f} {mb / cpu:9.1f} {row['wall']:8.2f} "
          f"{row['rss']:12.1f}{extra}", flush=True)


TRASH = os.environ["BENCH_TRASH"]


def discard(d):
    """Moves d into the trash folder, which bench.sh removes after the last
    measurement: nothing is deleted while builds are measured. On ext4
    without a journal (this machine's root file system) the kernel skips
    inodes freed in the last 60-360 s when it allocates one, each checked
    in turn (ialloc.c, recently_deleted): a cold corpus build right after
    the removal of the last one's files spent 3% of its CPU there (perf),
    and after tens of thousands were removed a new file cost 1 ms of CPU,
    not ~40 µs."""
    if os.path.lexists(d):
        os.makedirs(TRASH, exist_ok=True)
        os.rename(d, os.path.join(TRASH, uuid.uuid4().hex))


def fresh(out, *dirs):
    """Discards out and dirs, and makes dirs again, empty."""
    discard(out)
    for d in dirs:
        discard(d)
        os.makedirs(d)


rows, ns_rows = [], []
snap = None
for i in range(1, runs + 1):
    if ns:
        fresh(ns["out"], ns["state"], ns["cache"])
        row = build(ns["cmd"], ns["env"], f"{i}", NAMES["nosearch"])
        ns_rows.append(row)
        show(f"{i}n", row, "  (--no-search)")
        fresh(ns["out"], ns["state"], ns["cache"])
    if scen in ("cold", "nosearch", "pair"):  # every cold build starts from nothing
        fresh(out, state, cache)
    if scen == "incr":
        snap = snapshot(snap)
        append(session, i)
    row = build(cmd, env, f"{i}", "cold" if ns else NAMES[scen])
    extra = ""
    if scen == "incr":
        after = snapshot(snap)
        n, nbytes, gone = rewritten(snap, after)
        snap = after
        row.update(shard_files=n, shard_bytes=nbytes, shard_gone=gone)
        extra = f" {n:>6} files {nbytes / MB:>8.3f} MB"
    rows.append(row)
    show(f"{i}", row, extra)
if ns:
    discard(ns["out"])
    discard(ns["state"])
    discard(ns["cache"])


def result(scen, rows):
    return {"tree": label, "path": src, "mirror": tree, "role": role, "scen": scen, "runs": len(rows),
            "mb": statistics.median(r["mb"] for r in rows),
            "cpu": statistics.median(r["cpu"] for r in rows),
            "user": statistics.median(r["user"] for r in rows),
            "sys": statistics.median(r["sys"] for r in rows),
            "wall": statistics.median(r["wall"] for r in rows),
            "rss": max(r["rss"] for r in rows)}


res = result("cold" if ns else scen, rows)
if ns:
    # Search CPU: the median of the pairs' differences.
    res["search_cpu"] = statistics.median(c["cpu"] - n["cpu"] for c, n in zip(rows, ns_rows))
    diffs = ["%.2f" % (c["cpu"] - n["cpu"]) for c, n in zip(rows, ns_rows)]
    print("search CPU-s, pair by pair: " + ", ".join(diffs))
if scen == "incr":
    res["shard_bytes"] = max(r["shard_bytes"] for r in rows)
    res["shard_files"] = max(r["shard_files"] for r in rows)
    res["search_bytes"] = sum(v[2] for v in snap.values())
if runs > 1:
    print(f"median cpu {res['cpu']:.2f} s, wall {res['wall']:.2f} s; worst peak RSS {res['rss']:.1f} MB")
print(flush=True)
with open(results, "a") as f:
    f.write(json.dumps(res) + "\n")
    if ns:
        f.write(json.dumps(result("nosearch", ns_rows)) + "\n")
PY

last=
for entry in "${plan[@]}"; do
	IFS='|' read -r src copies role <<<"$entry"
	make_tree "$src" "$copies"
	src=$(cd "$src" && pwd -P)
	label=$(basename "$src")
	tree=$work/$label.tree
	echo "== $label ($role tree): mirroring $src into $tree"
	mirror_tree "$src" "$tree"
	# Read the input once, so that no build pays for a cold page cache.
	find -L "$tree" -name '*.jsonl' -type f -exec cat {} + >/dev/null
	last=$tree
	out=$work/$label.site
	state=$work/$label.state
	cache=$work/$label.cache
	for s in pair noop warm incr; do
		o=$out st=$state c=$cache args=()
		case $s in
		pair) n=$COLD_RUNS ;;
		noop) n=$NOOP_RUNS ;;
		warm) n=$WARM_RUNS args=(--force) ;;
		incr) n=$RUNS ;;
		esac
		[ "$n" -gt 0 ] || continue
		python3 "$runner" "$results" "$src" "$tree" "$label" "$role" "$s" "$n" "$o" "$st" "$c" -- \
			"$bin" build --quiet "${args[@]}" -o "$o" "$tree"
		if [ "$s" = pair ]; then
			for d in "$out" "$out/search" "$state"; do
				if [ -e "$d" ]; then du -sh "$d" | sed 's/^/size: /'; fi
			done
			echo
		fi
	done
done

echo "== summary"
python3 - "$results" "$gover" "$work/bench.md" "$work" <<'PY'
import json, mmap, os, resource, shutil, sys, time

res = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
gover, md_path, work = sys.argv[2], sys.argv[3], sys.argv[4]


def machine():
    """What this machine charges for the work a build cannot avoid, in CPU
    time (user+sys of this process): making a file on WORK's file system,
    faulting in a page of fresh memory, and a fixed loop of Python. Two
    benches compare directly only where these agree."""
    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime, r.ru_minflt
    d = os.path.join(work, "machine-probe")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    n = 300
    c0, _ = cpu()
    for i in range(n):
        os.close(os.open(os.path.join(d, f"f{i}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    c1, f1 = cpu()
    shutil.rmtree(d, ignore_errors=True)
    # The same after 3,000 files were removed: ext4 without a journal
    # checks each recently freed inode before it hands out a new one.
    # in folders of their own, as a build's are.
    gone = d + "-gone"
    for j in range(100):
        os.makedirs(os.path.join(gone, f"d{j}"))
        for i in range(30):
            os.close(os.open(os.path.join(gone, f"d{j}", f"f{i}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    shutil.rmtree(gone, ignore_errors=True)
    c5, _ = cpu()
    for j in range(n // 10):
        os.makedirs(os.path.join(d, f"d{j}"))
        for i in range(10):
            os.close(os.open(os.path.join(d, f"d{j}", f"g{i}"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
    c6, _ = cpu()
    shutil.rmtree(d, ignore_errors=True)
    size = 64 << 20
    m = mmap.mmap(-1, size)
    c2, f2 = cpu()
    for off in range(0, size, 4096):
        m[off] = 1
    c3, f3 = cpu()
    m.close()
    x = 0
    for i in range(3_000_000):
        x = (x * 31 + i) & 0xFFFFFFFF
    c4, _ = cpu()
    faults = max(1, f3 - f2)
    return (f"Machine: making a file {(c1 - c0) / n * 1e6:.0f} µs of CPU on WORK's file system "
            f"({(c6 - c5) / n * 1e6:.0f} µs, its folder's included, right after 3,000 files were removed), "
            f"a page fault {(c3 - c2) / faults * 1e6:.1f} µs, a fixed Python loop {c4 - c3:.2f} CPU-s "
            f"(benches compare where these agree).")


machine_line = machine()
by = {(r["role"], r["scen"]): r for r in res}
TREE = {"corpus": "corpus tree", "big": "1 GB tree"}
trees = {r["role"]: r for r in res if r["scen"] == "cold"}
NAMES = {"cold": "cold", "nosearch": "cold --no-search", "noop": "no-op rebuild",
         "warm": "warm --force", "incr": "one message appended"}


def table(hdr, rows):
    lines = ["| " + " | ".join(hdr) + " |", "|" + "|".join("---" for _ in hdr) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


# The measurements.
det = []
for r in res:
    note = ""
    if r["scen"] == "incr":
        note = (f"{r['shard_files']} shard files, {r['shard_bytes'] / 2**20:.3f} MB rewritten "
                f"(of {r['search_bytes'] / 2**20:.1f} MB)")
    det.append((f"{r['tree']} ({TREE[r['role']]})", NAMES[r["scen"]], str(r["runs"]), f"{r['mb']:.1f}",
                f"{r['cpu']:.2f}", f"{r['user']:.2f} + {r['sys']:.2f}", f"{r['cpu'] / r['mb'] * 100:.2f}",
                f"{r['mb'] / r['cpu']:.1f}", f"{r['wall']:.2f}", f"{r['rss']:.0f}", note))
details = table(("tree", "scenario", "runs", "input MB", "CPU s", "user + sys", "CPU-s / 100 MB",
                 "MB / CPU-s", "wall s", "peak RSS MB", ""), det)

# The targets.
rows, met, missed = [], 0, 0


def target(name, measured, goal, ok):
    global met, missed
    if ok is None:
        rows.append((name, "—", goal, "not run"))
        return
    rows.append((name, measured, goal, "met" if ok else "MISSED"))
    met += ok
    missed += not ok


def search_cpu(role):
    """Search CPU: the median of the alternated pairs' differences (the
    medians' difference for results of before pairs)."""
    c, n = by.get((role, "cold")), by.get((role, "nosearch"))
    if not c or not n:
        return None
    return c.get("search_cpu", c["cpu"] - n["cpu"]), c


r = by.get(("corpus", "cold"))
target("1. cold build, corpus tree: CPU per 100 MB",
       r and f"{r['cpu'] / r['mb'] * 100:.2f} CPU-s ({r['mb'] / r['cpu']:.1f} MB/CPU-s; "
             f"{r['cpu']:.1f} CPU-s for {r['mb']:.1f} MB)",
       "≤ 8 CPU-s", r and r["cpu"] / r["mb"] * 100 <= 8)
r = by.get(("big", "cold"))
target("2. cold build, 1 GB tree: peak RSS", r and f"{r['rss']:.0f} MB", "< 1024 MB",
       r and r["rss"] < 1024)
s, b = search_cpu("corpus"), search_cpu("big")
ok = ratio = None
if s and b:
    ps, pb = s[0] / s[1]["mb"], b[0] / b[1]["mb"]
    ratio = pb / ps if ps > 0 else float("inf")
    ok = ratio <= 1.15
target("3. search CPU per MB, 1 GB tree vs corpus tree",
       ratio is not None and f"{ratio:.2f}× ({pb * 1000:.1f} vs {ps * 1000:.1f} CPU-ms/MB)",
       "≤ 1.15×", ok)
for role in ("corpus", "big"):
    x = search_cpu(role)
    target(f"3. search share of a cold build, {TREE[role]}",
           x and f"{x[0] / x[1]['cpu'] * 100:.1f}% ({x[0]:.2f} of {x[1]['cpu']:.2f} CPU-s)",
           "≤ 25%", x and x[0] / x[1]["cpu"] <= 0.25)
for role, goal in (("corpus", 0.5), ("big", 1.5)):
    r = by.get((role, "incr"))
    target(f"4. one message appended, {TREE[role]}: CPU", r and f"{r['cpu']:.2f} CPU-s",
           f"≤ {goal} CPU-s", r and r["cpu"] <= goal)
for role in ("corpus", "big"):
    r = by.get((role, "incr"))
    target(f"4. one message appended, {TREE[role]}: search shards rewritten",
           r and f"{r['shard_bytes'] / 2**20:.3f} MB ({r['shard_files']} files)", "< 1 MB",
           r and r["shard_bytes"] < 2**20)
r = by.get(("big", "noop"))
target("5. no-op rebuild, 1 GB tree: CPU", r and f"{r['cpu']:.2f} CPU-s", "≤ 1 CPU-s",
       r and r["cpu"] <= 1)
target("5. no-op rebuild, 1 GB tree: peak RSS", r and f"{r['rss']:.0f} MB", "≤ 200 MB",
       r and r["rss"] <= 200)
for role in ("corpus", "big"):
    r = by.get((role, "warm"))
    target(f"6. warm --force, {TREE[role]}: CPU per 100 MB",
           r and f"{r['cpu'] / r['mb'] * 100:.2f} CPU-s ({r['cpu']:.1f} CPU-s for {r['mb']:.1f} MB)",
           "≤ 1.5 CPU-s", r and r["cpu"] / r["mb"] * 100 <= 1.5)
targets = table(("target", "measured", "goal", "met/MISSED"), rows)

load = " ".join(f"{x:.1f}" for x in os.getloadavg())
trees_line = "; ".join(f"{TREE[k]}: {v['path']} ({v['mb']:.1f} MB of .jsonl)" for k, v in sorted(trees.items()))
foot = (f"CPU = user+sys of the build (wait4 rusage), median of the runs; peak RSS = worst run; "
        f"1 MB = 2^20 bytes; per 100 MB = per 100·2^20 bytes of .jsonl input.\n"
        f"Trees: {trees_line or 'none'}.\n"
        f"{gover}; cores: {os.cpu_count()}; load average at the end: {load}.\n"
        f"{machine_line}\n"
        f"Targets: {met} met, {missed} MISSED, {len(rows) - met - missed} not run.")
print(details)
print()
print(targets)
print()
print(foot)
with open(md_path, "w") as f:
    f.write(f"### ccsite bench\n\n{targets}\n\n{foot}\n\nMeasurements:\n\n{details}\n")
print(f"\n(written to {md_path})")
PY

# Go benchmarks, if any; BenchmarkLoad and BenchmarkBuildSite read the tree.
if [ "$GOBENCH" = 1 ] && grep -rqs --include='*_test.go' '^func Benchmark' .; then
	echo "== go test -bench ($last)"
	gocache=$("$GO" env GOCACHE)
	mkdir -p "$work/gobench.cache"
	GOCACHE=$gocache XDG_CACHE_HOME=$work/gobench.cache CCSITE_BENCH_TREE=$last \
		"$GO" test ${TAGS:+-tags "$TAGS"} -run '^$' -bench . -benchmem ./...
fi
