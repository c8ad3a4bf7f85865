#!/usr/bin/env python3
"""Write one very long session for the page benchmarks: N copies of a real
session chained into one transcript (each copy's ids renamed so nothing
collides; each copy's first root hangs off the previous copy's last record).

    python3 scripts/long-session.py SRC.jsonl N OUT_DIR

writes OUT_DIR/-home-bench-long/<session id>.jsonl, a projects tree ccsite
builds like ~/.claude/projects. The issue's case: a real 4 MB session, 12
copies, about 50 MB.
"""
import json, os, re, sys

UUID = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
IDS = re.compile(r'\b(toolu_|msg_|srvtoolu_|req_)([A-Za-z0-9]+)')
SESSION = "5e551011-0000-4000-8000-00000000beef"


def main():
    src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    lines = open(src, encoding="utf-8", errors="surrogateescape").read().splitlines()
    folder = os.path.join(out, "-home-bench-long")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, SESSION + ".jsonl")
    last = None
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        for k in range(n):
            tag = "%02x" % k
            def uuid(m):
                return tag + m.group(0)[2:]
            chained = False
            for line in lines:
                if not line.strip():
                    continue
                line = UUID.sub(uuid, line)
                line = IDS.sub(lambda m: m.group(1) + m.group(2) + "K" + tag, line)
                try:
                    rec = json.loads(line)
                except ValueError:
                    f.write(line + "\n")
                    continue
                if not isinstance(rec, dict):
                    f.write(line + "\n")
                    continue
                if "sessionId" in rec:
                    rec["sessionId"] = SESSION
                if k > 0 and not chained and rec.get("uuid") and rec.get("parentUuid") is None and last:
                    rec["parentUuid"] = last
                    chained = True
                if rec.get("uuid") and not rec.get("isSidechain"):
                    last = rec["uuid"]
                f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    print(path, os.path.getsize(path))


if __name__ == "__main__":
    main()
