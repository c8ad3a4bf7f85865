#!/usr/bin/env bash
# bench-agents.sh measures what reading each agent's sessions costs: the cold
# `ccsite build` CPU (user+sys, /usr/bin/time) per 100 MB of session files,
# on a tree of each agent's sessions of about the same size, and prints
# `| agent | tree MB | sessions | CPU-s | CPU-s per 100 MB | vs Claude Code | met/MISSED |`.
# Issue 57's target: Codex's and Gemini CLI's per-MB CPU <= Claude Code's.
#
# Trees (made when missing, in WORK; never modified after):
#   claude  CLAUDE_DIR (default /tmp/ccsite-bench-0, the corpus tree bench.sh
#           makes with $SHARED/tools/projects-tree.py --copies 0, ~100 MB)
#   codex   the sample rollouts under AGENTS/codex (sessions/…/rollout-*.jsonl),
#           repeated until the tree holds TARGET_MB: each copy's session id
#           (in its file name and every line) replaced by a new one, so every
#           copy is a session of its own
#   gemini  the sample sessions under AGENTS/gemini (tmp/<project>/chats/
#           session-*.json[l]) repeated the same way (sessionId and the file
#           name's short id new)
# 1 MB = 2^20 bytes of session files. Each build is cold (empty output, state
# and cache folders): `ccsite build --quiet -o OUT TREE`; RUNS builds per tree,
# alternating the trees (the machine's speed drifts over minutes), the median
# reported.
#
# Environment:
#   AGENTS     the sample sessions (default /work/shared/agents)
#   CLAUDE_DIR Claude Code's tree (default /tmp/ccsite-bench-0)
#   WORK       where trees and builds go (default /tmp/ccsite-bench-agents)
#   TARGET_MB  each made tree's size (default 100)
#   RUNS       cold builds per tree (default 3)
#   CCSITE     a built ccsite (default: built from this checkout with GO, TAGS)
#   GO, TAGS   the go command and build tags (default go, gore2regex)
set -euo pipefail

AGENTS=${AGENTS:-/work/shared/agents}
CLAUDE_DIR=${CLAUDE_DIR:-/tmp/ccsite-bench-0}
WORK=${WORK:-/tmp/ccsite-bench-agents}
TARGET_MB=${TARGET_MB:-100}
RUNS=${RUNS:-3}
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
TAGS=${TAGS-gore2regex}

need() { echo "bench-agents: $1 is needed" >&2; exit 2; }
[ -x /usr/bin/time ] || need /usr/bin/time
command -v python3 >/dev/null || need python3
[ -d "$AGENTS/codex" ] || need "the Codex samples ($AGENTS/codex)"
[ -d "$AGENTS/gemini" ] || need "the Gemini CLI samples ($AGENTS/gemini)"
[ -d "$CLAUDE_DIR" ] || need "Claude Code's tree $CLAUDE_DIR (make bench makes it)"
mkdir -p "$WORK"

bin=${CCSITE:-}
if [ -z "$bin" ]; then
	bin="$WORK/ccsite"
	"$GO" build ${TAGS:+-tags "$TAGS"} -o "$bin" .
fi

# make_tree AGENT SRC DST: the samples of SRC repeated into DST (see above).
make_tree() {
	[ -d "$3" ] && return 0
	python3 - "$1" "$2" "$3.tmp" "$TARGET_MB" <<'EOF'
import os, re, sys, uuid, shutil
agent, src, dst, target = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) << 20
shutil.rmtree(dst, ignore_errors=True)
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
samples = []
for root, _, files in os.walk(src):
    for f in sorted(files):
        p = os.path.join(root, f)
        rel = os.path.relpath(p, src)
        if agent == "codex" and re.match(r"rollout-.*\.jsonl$", f):
            sid = re.search(UUID + r"(?=\.jsonl$)", f).group(0)
        elif agent == "gemini" and re.match(r"session-.*\.jsonl?$", f):
            data = open(p, encoding="utf-8").read()
            m = re.search(r'"sessionId"\s*:\s*"(' + UUID + ')"', data)
            if not m:
                continue
            sid = m.group(1)
        else:
            continue
        samples.append((rel, sid, open(p, encoding="utf-8").read()))
if not samples:
    sys.exit("bench-agents: no %s samples under %s" % (agent, src))
samples.sort()
size, n = 0, 0
while size < target:
    for rel, sid, data in samples:
        n += 1
        new = str(uuid.uuid5(uuid.NAMESPACE_URL, "ccsite-bench/%s/%d" % (agent, n)))  # the same tree every time
        name = os.path.basename(rel).replace(sid, new).replace(sid[:8], new[:8])
        out = os.path.join(dst, os.path.dirname(rel), name)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        body = data.replace(sid, new)
        with open(out, "w", encoding="utf-8") as f:
            f.write(body)
        size += len(body.encode("utf-8"))
        if size >= target:
            break
EOF
	mv "$3.tmp" "$3"
}

make_tree codex "$AGENTS/codex" "$WORK/codex-tree"
make_tree gemini "$AGENTS/gemini" "$WORK/gemini-tree"

# sessions AGENT: find's test for the agent's session files (Claude Code's
# .json files are sub-agents' metadata, not sessions; bench.sh counts its
# tree's .jsonl alone too).
sessions() {
	case $1 in
	claude) echo "-name *.jsonl" ;;
	*) echo "-name *.jsonl -o -name *.json -o -name *.jsonl.zst" ;;
	esac
}
# mb AGENT: the agent's tree's session files' size in MB (2^20).
mb() {
	set -f
	find "${tree[$1]}" -type f \( $(sessions "$1") \) -printf '%s\n' | awk '{s += $1} END {printf "%.1f", s / 1048576}'
	set +f
}
# files AGENT: how many session files its tree holds.
files() {
	set -f
	find "${tree[$1]}" -type f \( $(sessions "$1") \) | wc -l
	set +f
}

# Build folders are moved to WORK/trash and removed at the end, not before
# the next build: on ext4, in the minutes after files are deleted, making a
# file costs the kernel a check of the inodes they freed (see bench.sh); a
# Gemini CLI tree's site is ~4,000 files, and a build right after the last
# one's removal spent a third of its CPU making files.
trash="$WORK/trash"
rm -rf "$trash"
mkdir -p "$trash"
trap 'rm -rf "$trash"' EXIT

declare -A tree=([claude]=$CLAUDE_DIR [codex]=$WORK/codex-tree [gemini]=$WORK/gemini-tree)
declare -A cpu
order=(claude codex gemini)
for run in $(seq 1 "$RUNS"); do
	for a in "${order[@]}"; do
		d="$WORK/run-$a-$run"
		[ -e "$d" ] && mv "$d" "$trash/$(date +%s%N)"
		mkdir -p "$d/state" "$d/cache"
		CCSITE_STATE_HOME="$d/state" XDG_CACHE_HOME="$d/cache" \
			/usr/bin/time -f '%U %S' -o "$d/time" "$bin" build --quiet -o "$d/site" "${tree[$a]}" >/dev/null
		cpu[$a]+="$(awk '{printf "%.2f", $1 + $2}' "$d/time") "
		mv "$d" "$trash/$a-$run"
	done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "| agent | tree MB | session files | cold CPU-s (median of $RUNS) | CPU-s per 100 MB | vs Claude Code | met/MISSED |"
echo "|---|---|---|---|---|---|---|"
base=""
for a in "${order[@]}"; do
	m=$(mb "$a")
	c=$(echo "${cpu[$a]}" | median)
	per=$(awk -v c="$c" -v m="$m" 'BEGIN {printf "%.2f", c / m * 100}')
	[ -z "$base" ] && base=$per
	ratio=$(awk -v p="$per" -v b="$base" 'BEGIN {printf "%.2fx", p / b}')
	met=$(awk -v p="$per" -v b="$base" -v a="$a" 'BEGIN {print (a == "claude") ? "-" : (p <= b ? "met" : "MISSED")}')
	echo "| $a | $m | $(files "$a") | $c (runs: ${cpu[$a]% }) | $per | $ratio | $met |"
done
