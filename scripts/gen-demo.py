#!/usr/bin/env python3
"""Writes demo/projects: a small, realistic Claude Code archive (three projects, one Codex session) used by
`ccsite` when no ~/.claude/projects exists, and by tests. Deterministic:
run it again and the files are byte-identical. Everything in it is made up.

    python3 scripts/gen-demo.py
"""
import json, os, shutil, uuid, datetime as dt

ROOT = os.path.join(os.path.dirname(__file__), "..", "demo", "projects")
NS = uuid.UUID("6f1c1a52-8d2e-4a3b-9a55-2b1f7f0c0d00")


def uid(name):
    return str(uuid.uuid5(NS, name))


class Session:
    def __init__(self, sid, cwd, version, branch, start, slug=None, sidechain=False, agent_id=None):
        self.sid, self.cwd, self.version, self.branch = sid, cwd, version, branch
        self.t = start
        self.lines = []
        self.last = None
        self.slug = slug
        self.sidechain, self.agent_id = sidechain, agent_id
        self.n = 0

    def tick(self, s=3.0):
        self.t += dt.timedelta(seconds=s)
        return self.t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.t.microsecond // 1000:03d}Z"

    def env(self, typ, parent="last", **kw):
        self.n += 1
        u = uid(f"{self.sid}/{self.agent_id}/{self.n}")
        rec = {"parentUuid": self.last if parent == "last" else parent,
               "isSidechain": self.sidechain, "userType": "external", "cwd": self.cwd,
               "sessionId": self.sid, "version": self.version, "gitBranch": self.branch}
        if self.agent_id:
            rec["agentId"] = self.agent_id
        if self.slug:
            rec["slug"] = self.slug
        rec["type"] = typ
        rec.update(kw)
        rec["uuid"] = u
        rec["timestamp"] = self.tick(kw.pop("_dt", 3.0) if "_dt" in kw else 3.0)
        rec.pop("_dt", None)
        self.lines.append(rec)
        self.last = u
        return u

    def user(self, content, parent="last", **kw):
        return self.env("user", parent, message={"role": "user", "content": content}, **kw)

    def assistant(self, mid, blocks, model="claude-sonnet-4-5-20250929", usage=None, parent="last", **kw):
        """One record per block, sharing message.id, as Claude Code writes them."""
        usage = usage or {"input_tokens": 1200, "output_tokens": 340,
                          "cache_creation_input_tokens": 2048, "cache_read_input_tokens": 15360,
                          "service_tier": "standard"}
        first = None
        for b in blocks:
            u = self.env("assistant", parent if first is None else "last",
                         message={"model": model, "id": mid, "type": "message", "role": "assistant",
                                  "content": [b], "stop_reason": None, "stop_sequence": None,
                                  "usage": usage},
                         requestId="req_" + mid[4:], **kw)
            first = first or u
        return self.last

    def result(self, tool_id, content, tur, is_error=False, parent="last"):
        return self.user([{"tool_use_id": tool_id, "type": "tool_result", "content": content,
                           "is_error": is_error}], parent, toolUseResult=tur)

    def raw(self, obj):
        self.lines.append(obj)

    def write(self, path, broken_after=None):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            for i, r in enumerate(self.lines):
                f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")
                if broken_after is not None and i == broken_after:
                    # A line cut off mid-string, as a crash mid-write leaves it.
                    f.write('{"parentUuid":"' + self.last + '","isSidechain":false,"type":"user","message":{"role":"user","content":"and also che\n')


def tool(tid, name, inp):
    return {"type": "tool_use", "id": tid, "name": name, "input": inp}


def text(t):
    return {"type": "text", "text": t}


def thinking(t):
    return {"type": "thinking", "thinking": t, "signature": "EpYBCkYIBhgCKkDemoSignatureNotReal0000"}


T0 = dt.datetime(2026, 3, 2, 9, 14, 5, 120000)


def webapp_main():
    cwd = "/home/demo/webapp"
    sid = uid("webapp-1")
    s = Session(sid, cwd, "2.1.29", "feature/search", T0, slug="bright-humming-otter")
    s.raw({"type": "file-history-snapshot", "messageId": uid("snap1"), "snapshot": {"messageId": uid("snap1"), "trackedFileBackups": {}, "timestamp": "2026-03-02T09:14:05.120Z"}, "isSnapshotUpdate": False})
    s.user("The search box on the products page ignores accents: searching `creme` doesn't find \"Crème brûlée\". Can you fix it and add a test?")
    s.assistant("msg_01Demo0001", [
        thinking("The user wants accent-insensitive search. Let me look at how the search filter works first."),
        text("Let me look at how the products page filters results."),
        tool("toolu_01DemoRead0001", "Read", {"file_path": "/home/demo/webapp/src/search.ts"}),
    ])
    src = "export function matches(item: Product, query: string): boolean {\n  return item.name.toLowerCase().includes(query.toLowerCase());\n}\n"
    s.result("toolu_01DemoRead0001", "     1\texport function matches(item: Product, query: string): boolean {\n     2\t  return item.name.toLowerCase().includes(query.toLowerCase());\n     3\t}\n",
             {"type": "text", "file": {"filePath": "/home/demo/webapp/src/search.ts", "content": src, "numLines": 3, "startLine": 1, "totalLines": 3}})
    s.assistant("msg_01Demo0002", [
        text("The comparison only lower-cases. I'll normalise both sides with Unicode NFD and strip combining marks."),
        tool("toolu_01DemoEdit0001", "Edit", {"file_path": "/home/demo/webapp/src/search.ts",
             "old_string": "  return item.name.toLowerCase().includes(query.toLowerCase());",
             "new_string": "  return fold(item.name).includes(fold(query));"}),
    ])
    s.result("toolu_01DemoEdit0001", "The file /home/demo/webapp/src/search.ts has been updated.",
             {"filePath": "/home/demo/webapp/src/search.ts",
              "oldString": "  return item.name.toLowerCase().includes(query.toLowerCase());",
              "newString": "  return fold(item.name).includes(fold(query));",
              "originalFile": src, "userModified": False, "replaceAll": False,
              "structuredPatch": [{"oldStart": 1, "oldLines": 3, "newStart": 1, "newLines": 3, "lines": [
                  " export function matches(item: Product, query: string): boolean {",
                  "-  return item.name.toLowerCase().includes(query.toLowerCase());",
                  "+  return fold(item.name).includes(fold(query));",
                  " }"]}]})
    # Parallel tool calls: the second tool_use hangs off the first, each result off its call.
    a = s.assistant("msg_01Demo0003", [
        text("Now the helper and a test, in parallel."),
        tool("toolu_01DemoWrite001", "Write", {"file_path": "/home/demo/webapp/src/fold.ts", "content": "export const fold = (s: string) =>\n  s.normalize('NFD').replace(/\\p{M}/gu, '').toLowerCase();\n"}),
    ])
    b = s.assistant("msg_01Demo0003", [tool("toolu_01DemoWrite002", "Write", {"file_path": "/home/demo/webapp/test/search.test.ts", "content": "import { matches } from '../src/search';\n\ntest('accents', () => {\n  expect(matches({ name: 'Crème brûlée' }, 'creme')).toBe(true);\n});\n"})], parent=a)
    s.result("toolu_01DemoWrite002", "File created successfully at: /home/demo/webapp/test/search.test.ts",
             {"type": "create", "filePath": "/home/demo/webapp/test/search.test.ts", "content": "…", "structuredPatch": []}, parent=b)
    s.result("toolu_01DemoWrite001", "File created successfully at: /home/demo/webapp/src/fold.ts",
             {"type": "create", "filePath": "/home/demo/webapp/src/fold.ts", "content": "…", "structuredPatch": []}, parent=a)
    s.assistant("msg_01Demo0004", [tool("toolu_01DemoBash0001", "Bash", {"command": "npm test -- search", "description": "Run the search tests"})])
    s.env("progress", data={"type": "bash_progress", "output": "PASS test/search.test.ts", "fullOutput": "PASS test/search.test.ts", "elapsedTimeSeconds": 2, "totalLines": 1}, toolUseID="bash-progress-0", parentToolUseID="toolu_01DemoBash0001")
    s.result("toolu_01DemoBash0001", "\x1b[32mPASS\x1b[39m test/search.test.ts\n  ✓ accents (3 ms)\n\nTests: 1 passed, 1 total",
             {"stdout": "\x1b[32mPASS\x1b[39m test/search.test.ts\n  ✓ accents (3 ms)\n\nTests: 1 passed, 1 total", "stderr": "", "interrupted": False, "isImage": False})
    s.assistant("msg_01Demo0005", [text("Fixed: `matches` now folds accents on both sides, so `creme` finds **Crème brûlée**. The new test passes.\n\n| file | change |\n|---|---|\n| `src/search.ts` | uses `fold` |\n| `src/fold.ts` | new helper |\n| `test/search.test.ts` | new test |")])
    s.env("system", subtype="stop_hook_summary", hookCount=1, hookInfos=[{"command": "npm run lint"}], hookErrors=[], preventedContinuation=False, stopReason="", hasOutput=False, level="suggestion")
    s.env("system", subtype="turn_duration", durationMs=41233, isMeta=False)
    # Turn 2: a sub-agent in the 2.1.x layout.
    s.user("Use a sub-agent to check whether any other component compares strings the same way.")
    s.assistant("msg_01Demo0006", [tool("toolu_01DemoTask0001", "Task", {"description": "Find naive string comparisons", "prompt": "Search src/ for places that compare user text with toLowerCase().includes and list them with file and line.", "subagent_type": "Explore"})])
    agent_id = "a7c31de"
    s.env("progress", data={"type": "agent_progress", "agentId": agent_id, "prompt": "Search src/ for places that compare user text with toLowerCase().includes and list them with file and line.",
                            "message": {"type": "user", "message": {"role": "user", "content": [text("Search src/ for places that compare user text with toLowerCase().includes and list them with file and line.")]}, "uuid": uid("agent-a7-1"), "timestamp": "2026-03-02T09:16:00.000Z"}, "normalizedMessages": []},
          toolUseID="agent_msg_01DemoAgent", parentToolUseID="toolu_01DemoTask0001")
    s.result("toolu_01DemoTask0001", [text("Two more places: src/filters.ts:12 and src/autocomplete.ts:40 both use toLowerCase().includes.")],
             {"status": "completed", "prompt": "Search src/ for places…", "agentId": agent_id, "content": [text("Two more places: src/filters.ts:12 and src/autocomplete.ts:40 both use toLowerCase().includes.")],
              "totalDurationMs": 18450, "totalTokens": 9120, "totalToolUseCount": 2, "usage": {"input_tokens": 40, "output_tokens": 310}})
    s.assistant("msg_01Demo0007", [text("The sub-agent found two more: `src/filters.ts:12` and `src/autocomplete.ts:40`. Want me to switch them to `fold` too?")])
    s.raw({"type": "pr-link", "prNumber": 42, "prUrl": "https://github.com/demo/webapp/pull/42", "prRepository": "demo/webapp", "sessionId": sid, "timestamp": "2026-03-02T09:17:30.000Z"})
    s.raw({"type": "ai-title", "aiTitle": "Accent-insensitive product search", "sessionId": sid})
    s.raw({"type": "last-prompt", "lastPrompt": "Use a sub-agent to check whether any other component compares strings the same way.", "sessionId": sid})
    s.write(os.path.join(ROOT, "-home-demo-webapp", sid + ".jsonl"))

    ag = Session(sid, cwd, "2.1.29", "feature/search", T0 + dt.timedelta(minutes=2), sidechain=True, agent_id=agent_id)
    ag.user("Search src/ for places that compare user text with toLowerCase().includes and list them with file and line.")
    ag.assistant("msg_01DemoAg0001", [tool("toolu_01DemoGrep0001", "Grep", {"pattern": "toLowerCase\\(\\)\\.includes", "path": "src", "output_mode": "content", "-n": True})], model="claude-haiku-4-5-20251001")
    ag.result("toolu_01DemoGrep0001", "src/filters.ts:12:  return tag.toLowerCase().includes(q.toLowerCase());\nsrc/autocomplete.ts:40:    .filter(s => s.toLowerCase().includes(prefix.toLowerCase()))",
              {"mode": "content", "numFiles": 2, "filenames": [], "content": "src/filters.ts:12:…\nsrc/autocomplete.ts:40:…", "numLines": 2})
    ag.assistant("msg_01DemoAg0002", [text("Two more places: src/filters.ts:12 and src/autocomplete.ts:40 both use toLowerCase().includes.")], model="claude-haiku-4-5-20251001")
    d = os.path.join(ROOT, "-home-demo-webapp", sid, "subagents")
    ag.write(os.path.join(d, f"agent-{agent_id}.jsonl"))
    with open(os.path.join(d, f"agent-{agent_id}.meta.json"), "w") as f:
        json.dump({"agentType": "Explore", "description": "Find naive string comparisons"}, f, indent=2)
        f.write("\n")


def webapp_compacted():
    cwd = "/home/demo/webapp"
    sid = uid("webapp-2")
    s = Session(sid, cwd, "2.0.76", "main", T0 + dt.timedelta(days=1, hours=3), slug="quiet-folding-lamp")
    s.raw({"type": "summary", "summary": "Accent-insensitive product search", "leafUuid": uid("elsewhere")})
    s.user("Let's add pagination to the products API: 20 items per page, `?page=` parameter.")
    s.assistant("msg_01DemoC0001", [text("I'll start by reading the handler."), tool("toolu_01DemoCRead01", "Read", {"file_path": "/home/demo/webapp/api/products.go", "offset": 10, "limit": 5})], model="claude-opus-4-5-20251101")
    s.result("toolu_01DemoCRead01", "    10\tfunc listProducts(w http.ResponseWriter, r *http.Request) {\n    11\t\tall := store.All()\n    12\t\tjson.NewEncoder(w).Encode(all)\n    13\t}\n",
             {"type": "text", "file": {"filePath": "/home/demo/webapp/api/products.go", "content": "func listProducts(w http.ResponseWriter, r *http.Request) {\n\tall := store.All()\n\tjson.NewEncoder(w).Encode(all)\n}\n", "numLines": 4, "startLine": 10, "totalLines": 48}})
    warm = s.last
    s.assistant("msg_01DemoC0002", [text("The handler returns everything at once; I'll add a `page` parameter.")], model="claude-opus-4-5-20251101")
    before = s.last
    # Compaction: boundary with null parent, logicalParentUuid, then the summary.
    s.env("system", parent=None, subtype="compact_boundary", content="Conversation compacted", isMeta=False, level="info",
          logicalParentUuid=before, compactMetadata={"trigger": "auto", "preTokens": 154210})
    s.user("This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis: the user asked for pagination of /api/products (20 per page, ?page=). The handler in api/products.go returns all products.",
           isCompactSummary=True, isVisibleInTranscriptOnly=True)
    s.user([text("[Request interrupted by user]")])
    s.user("<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>sonnet</command-args>")
    s.user("<local-command-stdout>Set model to \x1b[1mSonnet 4.5\x1b[22m</local-command-stdout>")
    s.user("<bash-input>go test ./api/...</bash-input>")
    s.user("<bash-stdout>ok  \tdemo/webapp/api\t0.412s</bash-stdout><bash-stderr></bash-stderr>")
    s.user("Now write the pagination, please.")
    s.assistant("msg_01DemoC0003", [tool("toolu_01DemoCTask01", "Task", {"description": "Check API docs", "prompt": "Read docs/api.md and tell me how list endpoints document paging.", "subagent_type": "general-purpose"})])
    s.result("toolu_01DemoCTask01", [text("docs/api.md documents `page` and `per_page` on /api/orders.")],
             {"status": "completed", "prompt": "Read docs/api.md…", "agentId": "b81f02a9", "content": [text("docs/api.md documents `page` and `per_page` on /api/orders.")], "totalDurationMs": 9100, "totalTokens": 4120, "totalToolUseCount": 1})
    s.env("system", subtype="api_error", level="error", error={"status": 529, "error": {"type": "overloaded_error", "message": "Overloaded"}}, retryInMs=2000, retryAttempt=1, maxRetries=10)
    s.assistant("msg_01DemoC0004", [tool("toolu_01DemoCMEdit1", "MultiEdit", {"file_path": "/home/demo/webapp/api/products.go", "edits": [
        {"old_string": "\tall := store.All()", "new_string": "\tpage := pageParam(r)\n\tall := store.Page(page, 20)"}]})])
    s.result("toolu_01DemoCMEdit1", "Applied 1 edit to /home/demo/webapp/api/products.go",
             {"filePath": "/home/demo/webapp/api/products.go", "edits": [{"old_string": "\tall := store.All()", "new_string": "\tpage := pageParam(r)\n\tall := store.Page(page, 20)"}],
              "originalFileContents": "func listProducts(w http.ResponseWriter, r *http.Request) {\n\tall := store.All()\n\tjson.NewEncoder(w).Encode(all)\n}\n",
              "structuredPatch": [{"oldStart": 10, "oldLines": 4, "newStart": 10, "newLines": 5, "lines": [
                  " func listProducts(w http.ResponseWriter, r *http.Request) {", "-\tall := store.All()", "+\tpage := pageParam(r)", "+\tall := store.Page(page, 20)", " \tjson.NewEncoder(w).Encode(all)"]}]})
    s.assistant("msg_01DemoC0005", [text("Pagination is in: `GET /api/products?page=2` returns items 21–40.")])
    s.env("attachment", attachment={"type": "queued_command", "prompt": "also document it in docs/api.md"})
    s.assistant("msg_01DemoC0006", [text("Documented `page` in docs/api.md next to the orders endpoint.")])
    s.env("system", subtype="microcompact_boundary", content="Context microcompacted", level="info",
          microcompactMetadata={"trigger": "auto", "preTokens": 98000, "tokensSaved": 21000, "compactedToolIds": ["toolu_01DemoCRead01"]})
    s.raw({"type": "telemetry-blip", "note": "a record type this tool has never seen", "timestamp": "2026-03-03T12:20:00.000Z"})
    s.write(os.path.join(ROOT, "-home-demo-webapp", sid + ".jsonl"), broken_after=13)

    # 2.0.x legacy agent files beside the session: one real, one Warmup.
    ag = Session(sid, cwd, "2.0.76", "main", T0 + dt.timedelta(days=1, hours=3, minutes=5), sidechain=True, agent_id="b81f02a9")
    ag.user("Read docs/api.md and tell me how list endpoints document paging.")
    ag.assistant("msg_01DemoCA001", [tool("toolu_01DemoCARead1", "Read", {"file_path": "/home/demo/webapp/docs/api.md"})], model="claude-haiku-4-5-20251001")
    ag.result("toolu_01DemoCARead1", "     1\t# API\n     2\t\n     3\t## GET /api/orders?page=N&per_page=M\n", {"type": "text", "file": {"filePath": "/home/demo/webapp/docs/api.md", "content": "# API\n\n## GET /api/orders?page=N&per_page=M\n", "numLines": 3, "startLine": 1, "totalLines": 3}})
    ag.assistant("msg_01DemoCA002", [text("docs/api.md documents `page` and `per_page` on /api/orders.")], model="claude-haiku-4-5-20251001")
    ag.write(os.path.join(ROOT, "-home-demo-webapp", "agent-b81f02a9.jsonl"))
    w = Session(sid, cwd, "2.0.76", "main", T0 + dt.timedelta(days=1, hours=2, minutes=59), sidechain=True, agent_id="c0ffee12")
    w.user("Warmup")
    w.assistant("msg_01DemoWarm01", [text("I'm ready to help you search and explore the codebase.")], model="claude-haiku-4-5-20251001")
    w.write(os.path.join(ROOT, "-home-demo-webapp", "agent-c0ffee12.jsonl"))


def notes_inline():
    cwd = "/home/demo/notes"
    sid = uid("notes-1")
    s = Session(sid, cwd, "1.0.128", "", T0 - dt.timedelta(days=20))
    # The title stays plain (the demo's index shows it); a prompt further
    # down holds markup, shown as text.
    s.user("What's in notes/?")
    s.assistant("msg_01DemoN0000", [text("`notes/` holds one file per month, e.g. `notes/2026-02.md`.")], model="claude-sonnet-4-20250514")
    fork = s.last
    s.user("Summarise my meeting notes in notes/2026-02.md into action items.")
    s.assistant("msg_01DemoN0001", [text("Here are the action items:\n\n- [ ] Email Sam\n- [x] Book room")], model="claude-sonnet-4-20250514")
    # Branch: the person went back and edited that prompt; the new one is the live line.
    s.user("Summarise notes/2026-02.md into action items, grouped by owner. <script>alert('hi')</script>", parent=fork)
    s.assistant("msg_01DemoN0002", [text("Let me delegate the reading to a sub-agent."),
                                    tool("toolu_01DemoNTask1", "Task", {"description": "Read notes", "prompt": "Read notes/2026-02.md and list every action item with its owner."})],
                model="claude-sonnet-4-20250514")
    task_call = s.last
    # 1.0.x inline sub-agent: sidechain records inside the main file.
    s.sidechain = True
    side_parent = s.last
    s.user("Read notes/2026-02.md and list every action item with its owner.", parent=None)
    s.assistant("msg_01DemoNS001", [tool("toolu_01DemoNSRead", "Read", {"file_path": "/home/demo/notes/notes/2026-02.md"})], model="claude-sonnet-4-20250514")
    s.result("toolu_01DemoNSRead", "     1\t- Sam: send the budget\n     2\t- Ana: book the room\n", {"type": "text", "file": {"filePath": "/home/demo/notes/notes/2026-02.md", "content": "- Sam: send the budget\n- Ana: book the room\n", "numLines": 2, "startLine": 1, "totalLines": 2}})
    s.assistant("msg_01DemoNS002", [text("Sam: send the budget. Ana: book the room.")], model="claude-sonnet-4-20250514")
    s.sidechain = False
    s.result("toolu_01DemoNTask1", [text("Sam: send the budget. Ana: book the room.")], [text("Sam: send the budget. Ana: book the room.")], parent=task_call)
    s.assistant("msg_01DemoN0003", [text("**Sam**\n- send the budget\n\n**Ana**\n- book the room")], model="claude-sonnet-4-20250514")
    s.env("system", content="\x1b[1mPostToolUse\x1b[22m hook ran: formatted 1 file", level="info", isMeta=False)
    s.write(os.path.join(ROOT, "-home-demo-notes", sid + ".jsonl"))


def png(w, h, rgb):
    """A tiny valid PNG of one colour with a darker diagonal, made here."""
    import struct, zlib
    raw = b""
    for y in range(h):
        row = b"\x00"
        for x in range(w):
            c = tuple(max(0, v - 90) for v in rgb) if abs(x - y) < 2 else rgb
            row += bytes(c)
        raw += row
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def infra_tools():
    """2.1.x project showing the remaining tools, an image and a plan."""
    import base64
    cwd = "/home/demo/infra"
    sid = uid("infra-1")
    s = Session(sid, cwd, "2.1.114", "main", T0 + dt.timedelta(days=3, hours=1), slug="steady-amber-harbor")
    shot = base64.b64encode(png(48, 32, (70, 130, 200))).decode()
    s.user([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": shot}},
            text("The dashboard looks like this after the deploy ☝️ — the status tile is blank. Plan a fix first, please.")])
    s.assistant("msg_01DemoI0001", [
        thinking("The status tile reads /healthz. I should find the dashboard config and check the health endpoint."),
        tool("toolu_01DemoITodo01", "TodoWrite", {"todos": [
            {"content": "Find the dashboard's status tile config", "status": "in_progress", "activeForm": "Finding the tile config"},
            {"content": "Check the /healthz endpoint", "status": "pending", "activeForm": "Checking /healthz"},
            {"content": "Propose a fix", "status": "pending", "activeForm": "Proposing a fix"}]}),
    ], model="claude-opus-4-5-20251101")
    s.result("toolu_01DemoITodo01", "Todos have been modified successfully.", {"oldTodos": [], "newTodos": []})
    s.assistant("msg_01DemoI0002", [tool("toolu_01DemoIGlob01", "Glob", {"pattern": "**/*.dashboard.json", "path": "/home/demo/infra"})], model="claude-opus-4-5-20251101")
    s.result("toolu_01DemoIGlob01", "/home/demo/infra/grafana/status.dashboard.json\n/home/demo/infra/grafana/traffic.dashboard.json",
             {"filenames": ["/home/demo/infra/grafana/status.dashboard.json", "/home/demo/infra/grafana/traffic.dashboard.json"], "durationMs": 41, "numFiles": 2, "truncated": False})
    s.assistant("msg_01DemoI0003", [tool("toolu_01DemoILs0001", "LS", {"path": "/home/demo/infra/grafana"})], model="claude-opus-4-5-20251101")
    s.result("toolu_01DemoILs0001", "- /home/demo/infra/grafana/\n  - status.dashboard.json\n  - traffic.dashboard.json\n  - provisioning/\n    - datasources.yaml\n", None)
    s.assistant("msg_01DemoI0004", [tool("toolu_01DemoIFetch1", "WebFetch", {"url": "https://status.example.com/healthz", "prompt": "What does the health endpoint return?"})], model="claude-opus-4-5-20251101")
    s.result("toolu_01DemoIFetch1", "The endpoint answers **503** with `{\"db\": \"timeout\"}`.",
             {"bytes": 27, "code": 503, "codeText": "Service Unavailable", "result": "The endpoint answers **503** with `{\"db\": \"timeout\"}`.", "durationMs": 412, "url": "https://status.example.com/healthz"})
    s.assistant("msg_01DemoI0005", [tool("toolu_01DemoISearch", "WebSearch", {"query": "grafana stat panel blank when datasource returns 503"})], model="claude-opus-4-5-20251101")
    s.result("toolu_01DemoISearch", "Web search results for query: grafana stat panel blank when datasource returns 503",
             {"query": "grafana stat panel blank when datasource returns 503", "durationSeconds": 1.8, "results": [
                 {"tool_use_id": "srvtoolu_01Demo", "content": [
                     {"title": "Stat panel shows no value on HTTP errors", "url": "https://grafana.example.org/docs/stat-panel#errors"},
                     {"title": "Datasource health checks", "url": "https://grafana.example.org/docs/datasources/health"}]},
                 "The stat panel renders empty when its query errors; set a 'No data' mapping."]})
    s.assistant("msg_01DemoI0006", [tool("toolu_01DemoIMcp001", "mcp__pagerduty__list_incidents", {"service": "status-api", "since": "2026-03-05T09:00:00Z"})], model="claude-opus-4-5-20251101")
    s.result("toolu_01DemoIMcp001", [text('{"incidents": [{"id": "PD-4821", "title": "status-api 503s", "status": "acknowledged", "urgency": "high"}]}')],
             [text('{"incidents": [{"id": "PD-4821", "title": "status-api 503s", "status": "acknowledged", "urgency": "high"}]}')])
    s.assistant("msg_01DemoI0007", [tool("toolu_01DemoIAsk001", "AskUserQuestion", {"questions": [
        {"question": "Which fix do you want?", "header": "Fix", "multiSelect": False, "options": [
            {"label": "Value mapping", "description": "Show 'Down' when the query fails"},
            {"label": "Raise the DB timeout", "description": "Treat the cause, not the symptom"}]}]})], model="claude-opus-4-5-20251101")
    s.result("toolu_01DemoIAsk001", "User has answered your questions: \"Which fix do you want?\"=\"Value mapping\".",
             {"questions": [], "answers": {"Which fix do you want?": "Value mapping"}})
    plan = "## Plan\n\n1. Add a value mapping to the status tile: no data → **Down** (red).\n2. Add a panel note linking the runbook.\n3. Open a ticket to raise the DB timeout."
    s.assistant("msg_01DemoI0008", [tool("toolu_01DemoIPlan01", "ExitPlanMode", {"plan": plan})], model="claude-opus-4-5-20251101")
    s.result("toolu_01DemoIPlan01", "User has approved your plan. You can now start coding.", {"plan": plan, "isAgent": False})
    s.assistant("msg_01DemoI0009", [tool("toolu_01DemoINb0001", "NotebookEdit", {"notebook_path": "/home/demo/infra/notebooks/incident.ipynb", "cell_id": "cell-3", "cell_type": "code", "edit_mode": "insert",
                                                                              "new_source": "import requests\nr = requests.get('https://status.example.com/healthz', timeout=5)\nprint(r.status_code, r.json())"})], model="claude-opus-4-5-20251101")
    s.result("toolu_01DemoINb0001", "Inserted cell cell-3", {"new_source": "…", "cell_type": "code", "edit_mode": "insert"})
    s.assistant("msg_01DemoI0010", [text("The tile is blank because `/healthz` answers 503 and the stat panel shows nothing on errors. I added the plan above; PD-4821 tracks the outage.")], model="claude-opus-4-5-20251101")
    s.raw({"type": "custom-title", "customTitle": "Blank status tile after deploy", "sessionId": sid})
    s.write(os.path.join(ROOT, "-home-demo-infra", sid + ".jsonl"))

    s2 = Session(uid("infra-2"), cwd, "2.1.114", "main", T0 + dt.timedelta(days=4, hours=2), slug="brisk-silver-falcon")
    s2.user("Apply the value mapping from yesterday's plan.")
    s2.assistant("msg_01DemoI0101", [tool("toolu_01DemoI2Edit1", "Edit", {"file_path": "/home/demo/infra/grafana/status.dashboard.json",
                                                                        "old_string": '      "mappings": [],', "new_string": '      "mappings": [{"type": "special", "options": {"match": "null", "result": {"text": "Down", "color": "red"}}}],'})],
                 model="claude-sonnet-4-5-20250929")
    s2.result("toolu_01DemoI2Edit1", "The file /home/demo/infra/grafana/status.dashboard.json has been updated.",
              {"filePath": "/home/demo/infra/grafana/status.dashboard.json", "oldString": '      "mappings": [],',
               "newString": '      "mappings": [{"type": "special", "options": {"match": "null", "result": {"text": "Down", "color": "red"}}}],',
               "originalFile": '{\n  "panels": [\n    {\n      "type": "stat",\n      "mappings": [],\n      "title": "Status"\n    }\n  ]\n}\n', "userModified": False, "replaceAll": False})
    tool_output_shapes(s2)
    reading_shapes(s2)
    s2.assistant("msg_01DemoI0102", [text("Done: the status tile now shows **Down** in red when the health query fails.")], model="claude-sonnet-4-5-20250929")
    s2.write(os.path.join(ROOT, "-home-demo-infra", s2.sid + ".jsonl"))


# --- Tool output shapes (size folding, JSON, empty search) --------------------------------
# Shapes that browser tests look for: a `gh api` result of one long line of JSON
# (over 50 KB: shown indented, highlighted and folded with its size), and a Grep that
# found nothing (says "No matches" instead of an empty box). Added to infra's second
# session; keep further shapes of this kind here.
def tool_output_shapes(s):
    model = "claude-sonnet-4-5-20250929"
    issues = []
    n = 0
    while len(json.dumps(issues, separators=(",", ":"))) < 60 * 1024:
        n += 1
        issues.append({"number": 4800 + n, "title": f"status-api: 503 on /healthz during deploy #{n}",
                       "state": "closed" if n % 3 else "open", "user": {"login": ["ana", "sam", "lee"][n % 3]},
                       "labels": [{"name": "incident"}, {"name": "status-api"}] if n % 2 else [{"name": "grafana"}],
                       "comments": n % 5, "created_at": f"2026-02-{1 + n % 28:02d}T09:{n % 60:02d}:00Z",
                       "body": "The panel showed no value while the <db> check timed out & the deploy went on."})
    out = json.dumps(issues, ensure_ascii=False, separators=(",", ":"))
    s.assistant("msg_01DemoI0103", [text("Let me check how often this happened before."),
                                    tool("toolu_01DemoI2Gh001", "Bash", {"command": "gh api 'repos/demo/infra/issues?labels=status-api&state=all&per_page=100'",
                                                                        "description": "List past status-api issues"})], model=model)
    s.result("toolu_01DemoI2Gh001", out, {"stdout": out, "stderr": "", "interrupted": False, "isImage": False})
    s.assistant("msg_01DemoI0104", [tool("toolu_01DemoI2Grep0", "Grep", {"pattern": "noDataState", "path": "/home/demo/infra/grafana", "output_mode": "content", "-n": True})], model=model)
    s.result("toolu_01DemoI2Grep0", "No matches found", {"mode": "content", "numFiles": 0, "filenames": [], "content": "", "numLines": 0})


# --- Reading shapes (the conversation view) -------------------------------------------------
# Shapes the session page's views look for: text Claude Code adds as a meta message after
# a Skill call (shown folded in the full view, hidden in the conversation view, never in
# the timestamp column), and answers whose thinking carries no text (recent Claude Code
# records only a signature: counted once in the header, not shown as empty widgets).
def reading_shapes(s):
    model = "claude-sonnet-4-5-20250929"
    s.assistant("msg_01DemoI0105", [{"type": "thinking", "thinking": "", "signature": "EpYBCkYIBhgCKkDemoEmptyThinking0001"},
                                    tool("toolu_01DemoI2Skill", "Skill", {"skill": "incident-report"})], model=model)
    s.result("toolu_01DemoI2Skill", "Launching skill: incident-report", {"success": True, "commandName": "incident-report"})
    s.user([text("Base directory for this skill: /home/demo/.claude/skills/incident-report\n\n# Incident report\n\nWrite the timeline first, then the cause, then the follow-ups, each with an owner.")], isMeta=True)
    s.assistant("msg_01DemoI0106", [{"type": "thinking", "thinking": "", "signature": "EpYBCkYIBhgCKkDemoEmptyThinking0002"},
                                    text("**Timeline**: the deploy at 09:02 restarted `status-api`; `/healthz` timed out until 09:07.\n\n**Follow-up** (Ana): give the panel a *no data* state.")], model=model)


def webapp_codex():
    """A Codex CLI session (a rollout, as $CODEX_HOME/sessions/YYYY/MM/DD holds them) in the same
    folder as the webapp's Claude Code sessions: one project, two agents."""
    cwd = "/home/demo/webapp"
    tid = uid("codex-webapp")
    start = T0 + dt.timedelta(days=2, hours=5)
    lines = []
    clock = [start]

    def at(sec):
        clock[0] += dt.timedelta(seconds=sec)
        return clock[0].strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (clock[0].microsecond // 1000)

    def put(sec, typ, payload):
        lines.append(json.dumps({"timestamp": at(sec), "type": typ, "payload": payload}, separators=(",", ":"), ensure_ascii=False))

    total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0}

    def tokens(sec, inp, cached, out, reasoning):
        last = {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out, "reasoning_output_tokens": reasoning, "total_tokens": inp + out}
        for k in total:
            total[k] += last[k]
        put(sec, "event_msg", {"type": "token_count", "info": {"total_token_usage": dict(total), "last_token_usage": last, "model_context_window": 272000}, "rate_limits": None})

    def call(sec, name, args, cid):
        put(sec, "response_item", {"type": "function_call", "name": name, "arguments": json.dumps(args, separators=(",", ":")), "call_id": cid})

    def output(sec, cid, text, code=0):
        put(sec, "response_item", {"type": "function_call_output", "call_id": cid, "output": "Exit code: %d\nWall time: 0.4 seconds\nOutput:\n%s" % (code, text)})

    prompt = "The search box should ignore case. Fix it and add a test."
    put(0, "session_meta", {"id": tid, "timestamp": at(0), "cwd": cwd, "originator": "codex_cli_rs", "cli_version": "0.63.0", "source": "cli",
                            "model_provider": "openai", "git": {"commit_hash": "4f2a9c1e7b0d3a6f8e5c2b1a0d9f8e7c6b5a4f3e", "branch": "feature/search"}})
    put(0, "response_item", {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>\nFilesystem sandboxing: workspace-write. Approvals: on-request.\n</permissions instructions>"}]})
    put(0, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>\n  <cwd>/home/demo/webapp</cwd>\n  <shell>bash</shell>\n</environment_context>"}]})
    put(1, "event_msg", {"type": "user_message", "message": prompt, "images": []})
    put(0, "turn_context", {"turn_id": "1", "cwd": cwd, "model": "gpt-5-codex", "effort": "medium", "summary": "auto", "approval_policy": "on-request", "sandbox_policy": {"type": "workspace-write"}})
    put(0, "response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]})
    put(3, "response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Finding where the query is compared**"}], "content": None, "encrypted_content": "gAAAAABdemoEncryptedReasoning0001"})
    call(0, "shell_command", {"command": "rg -n \"includes\\(query\" src", "workdir": cwd}, "call_demo_rg")
    output(1, "call_demo_rg", "src/search.ts:14:  return items.filter((item) => item.title.includes(query));\n")
    tokens(0, 9120, 8064, 212, 128)
    call(4, "update_plan", {"explanation": "Small fix, then a test.", "plan": [{"step": "Compare titles case-insensitively", "status": "in_progress"}, {"step": "Add a test for mixed case", "status": "pending"}, {"step": "Run the tests", "status": "pending"}]}, "call_demo_plan")
    put(0, "response_item", {"type": "function_call_output", "call_id": "call_demo_plan", "output": "Plan updated"})
    tokens(0, 9420, 9088, 164, 64)
    put(6, "response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "call_demo_patch", "name": "apply_patch", "input":
        "*** Begin Patch\n*** Update File: src/search.ts\n@@ export function search(items: Item[], query: string): Item[] {\n-  return items.filter((item) => item.title.includes(query));\n+  const q = query.toLocaleLowerCase();\n+  return items.filter((item) => item.title.toLocaleLowerCase().includes(q));\n }\n*** Add File: src/search.test.ts\n+import { expect, test } from \"vitest\";\n+import { search } from \"./search\";\n+\n+test(\"search ignores case\", () => {\n+  const items = [{ title: \"Quarterly Report\" }, { title: \"notes\" }];\n+  expect(search(items, \"quarterly\")).toEqual([items[0]]);\n+});\n*** End Patch"})
    put(0, "response_item", {"type": "custom_tool_call_output", "call_id": "call_demo_patch", "output": "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nM src/search.ts\nA src/search.test.ts\n"})
    tokens(0, 9830, 9216, 486, 192)
    call(5, "exec_command", {"cmd": "npx vitest run src/search.test.ts", "workdir": cwd, "yield_time_ms": 10000}, "call_demo_test")
    put(9, "response_item", {"type": "function_call_output", "call_id": "call_demo_test", "output": "Chunk ID: 7c1e\nWall time: 8.7 seconds\nProcess exited with code 0\nOriginal token count: 61\nOutput:\n\n RUN  v3.2.4 /home/demo/webapp\n\n ✓ src/search.test.ts (1 test) 4ms\n\n Test Files  1 passed (1)\n      Tests  1 passed (1)\n"})
    tokens(0, 10240, 9728, 95, 0)
    answer = ("Search now ignores case: `search()` lower-cases both the query and each title with `toLocaleLowerCase()` "
              "(`src/search.ts:14`).\n\nAdded `src/search.test.ts`, which searches *quarterly* and finds *Quarterly Report*; "
              "`npx vitest run` passes.")
    put(2, "event_msg", {"type": "agent_message", "message": answer})
    put(0, "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": answer}], "phase": "final_answer"})
    tokens(0, 10410, 9984, 118, 0)
    day = os.path.join(ROOT, "codex", "sessions", start.strftime("%Y"), start.strftime("%m"), start.strftime("%d"))
    os.makedirs(day, exist_ok=True)
    name = "rollout-%s-%s.jsonl" % (start.strftime("%Y-%m-%dT%H-%M-%S"), tid)
    with open(os.path.join(day, name), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    shutil.rmtree(ROOT, ignore_errors=True)
    webapp_main()
    webapp_compacted()
    notes_inline()
    infra_tools()
    webapp_codex()
    for d, _, fs in sorted(os.walk(ROOT)):
        for f in sorted(fs):
            print(os.path.relpath(os.path.join(d, f), ROOT))
