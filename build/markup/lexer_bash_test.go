package markup

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"ccsite/internal/corpustest"

	"github.com/alecthomas/chroma/v2"
)

// bashLexers are the Bash lexer as highlighting runs it (its twin first)
// and chroma's own (patient), the reference.
func bashLexers(t testing.TB) (twin, ref chroma.Lexer) {
	return twinLexers(t, "bash", "Bash")
}

// bashScanned reports whether the hand scan takes s (not chroma's rules).
func bashScanned(s string) bool {
	_, ok := bashTokens(s)
	return ok
}

// bashEdgeCases are texts at the edges of each rule of chroma's Bash
// lexer, and the shapes fuzzing led to (long runs of escapes in strings
// left open, a long here-document word left without its end).
var bashEdgeCases = []string{
	``, ` `, "\n", "\n\n  \t\n", "\v\f x", "\t", `ls -la`, `ls -la` + "\n", "cd /x && go test ./... 2>&1 | tail -20",
	// Keywords whole, at word edges, before spaces, ")", "`", the end.
	`if then else elif fi case esac while until for do done select function return continue`,
	`ifx xif if_ _if if1 1if if=1 if =1 if+=1 do done dox done; do) (do) do` + "`" + `x` + "`" + ` done`,
	"if  ;", "if  x", "if\n\nx", "if\t(", "if", "x if", "x\nif", "for f in *.go; do echo $f; done", "for((i=0;i<3;i++)); do :; done",
	"while true; do sleep 1; done", "case $x in a) echo a;; *) echo b;; esac", "function f { return 1; }", "f() { :; }",
	"until [ -f x ]; do sleep 1; done", "if [[ -n \"$x\" ]]; then echo y; elif [ 1 ]; then :; else exit 1; fi",
	// Builtins before a space, ")", "`", and before other characters.
	`echo cd pwd exit`, "echo\tx", "echo\nx", "(echo)", "`echo`", "$(pwd)", "echo", "pwd", "echo;", "echo|x", "echo=1",
	"echo+=1", "echo-x", "echo.x", "echos", "xecho ", "time times timex ", "test -f x", "set -euo pipefail", "export A=1 B=2",
	"source ~/.bashrc", "read -r line", "local x=1", "declare -A m", "true && false || true", "type -a go", "cd", "cd ",
	// Numbers before a space, the end, a newline and anything else.
	`1 22 333`, "1", "1\n2", "1\t2", "1;", "1x", "x1 ", "1.5 ", "2>&1", "2>/dev/null", "echo 1>&2", "head -n 20", "sleep 10\n",
	// Comments and #!.
	"# c", "# c\n", "#", "#\n", "echo x # c", "echo x#c", "a #b\nc", "#!/bin/bash\necho hi", "#!/bin/bash", "#!\n", "#!",
	"#!x\n", " #!/bin/sh\n", "x\n#!/bin/sh\n", "#!/usr/bin/env bash\nset -e\n# comment é\n", "echo $# ${#x} #x", "#é\n",
	// Escapes.
	`echo \$x \" \' \\ \a`, "echo \\\nx", "\\", "x \\", `\`, "\\é", "\\éif", "\\aif", "\\a=1", "\\1 ", "\\ if", "a\\\nb=1",
	// Assignments.
	`a=1 a+=1 a =1 a = 1 a+ =1 a =+1 a==1 1=2 _x=3 a_b=c`, "a\n=1", "a\t+=x", "A=1 B=2 cmd", "x=", "x=$y", "x=\"$y\"", "x=(a b)",
	"arr[0]=1", "x+y=1", "a-b=1", "a.b=1",
	// Operators, punctuation, redirections.
	`[ ] { } ( ) = < > << <<< >> ; ;; & && | || |& &> 2>&1 >|`, "a<b", "a<<<b", "cat <<< \"$x\"", "x<", "<", "<<", "a>b",
	// Here-documents: quoted, dashed, unclosed, the word found in others.
	"cat <<EOF\nhello $x\nEOF\necho done", "cat <<'EOF'\n$x `y`\nEOF", "cat <<-EOF\n\tx\n\tEOF\n", "cat << EOF\nx\nEOF",
	"cat <<\\EOF\nx\nEOF", "cat <<EOF\nno end", "cat <<EOF", "cat <<E", "cat <<EOF\nEO", "cat <<EOF\nxEOFy\n", "cat <<EOF\né\nEOF",
	"cat <<\"EOF\"\nx\nEOF", "cat <<'E O'\nx\n", "cat <<-'X'\nX", "<<x", "<<xx", "<<1\n1", "cat <<EOFé\nx\nEOF", "cat <<  \nEOF\nx\nEOF",
	"git commit -m \"$(cat <<'EOF'\nFix the thing — really\n\nCo-Authored-By: X <x@y>\nEOF\n)\"", "cat <<<EOF\nx\nEOF",
	"cat <<" + strings.Repeat("a", 600) + "\n" + strings.Repeat("b a\n", 300), "cat <<" + strings.Repeat("ab", 40) + "\n" + strings.Repeat("ab", 30),
	// Strings: double, single, $'...', $"...", open ones, escapes.
	`"" "a" "a\"b" "a\\" "a\\\"" "a$" "$x" "a $b c" "\$x" "é€𝄞" "multi` + "\nline\"", `"open`, `"open\"`, `"a\`, `"a$`,
	`'' 'a' 'a\' 'é' 'multi` + "\nline'", `'open`, `x'`, `$'a\'b' $'\n' $'open`, `$'a\'`, `$"a" $"a$b" $"open`, `$"`, `$'`,
	`"$(echo "x")" "${x:-"y"}" "$((1+2))" "a${b}c" "$1$2" "$@" "$" "$é" "$1é" "$xé" "\é"`, `"a\nb"`, `"\0123"`, "\"a\\",
	`"` + strings.Repeat(`\\`, 8) + `$x"`, `"\1234\567$" $'\1234\\\\`, "\"\\", `"\\\\\\`,
	`echo 'it'\''s'`, `echo "it's"`, `echo '"'`, `echo "'"`, "\"`x`\"", "\"$(\"", "\"${\"", "\"$((\"",
	// $((...)), $(...), ${...}, variables.
	`$((1+2)) $((a*b)) $(( x ** 2 )) $((x||y)) $((16#ff)) $((2#1)) $((2# 1)) $((2#)) $((1)))`, "$((1 + (2 * 3)))", "$((", "$(",
	`$(echo $(date)) $(ls) $( ) $()`, "$(echo )x)", "$(cd /x && ls)", `${x} ${#x} ${x:-y} ${x:=y} ${x%.go} ${x/a/b} ${x:1:2} ${!x}`,
	"${x:-$(pwd)}", "${x:-`pwd`}", "${x:-\"a\"}", "${x:-'a'}", "${x:-\\}}", "${", "${x", "${#", "${x:}", "${:-}", "${x y}", "${x\n}",
	"${xé}", "${é}", "${x:-é}", "${x/é/a}", `$1 $# $$ $? $@ $_ $! $* $- $0 $10 $_x $x_1 $X $é`, "$", "$ x", "a$", "$1a", "$1if",
	"$x=1", "$$x", "$-", "x$((1))y", "$((1if))", "$((if 1))", "$((x=1))", "$(( # c ))", "$((a>b))", "$((\\a))", "$((1é))",
	// Backticks, nested.
	"`date`", "`echo `date``", "echo `a` `b`", "`", "``", "`open", "x`y`z", "`a\\`b`", "`echo \"`\"`",
	// Unicode words, spaces and digits, "\r", invalid UTF-8.
	"é", "echo é", "echo \"é\"", "é=1", "a é", "echo a\u00a0b", "x\u2003y", "if\u00a0x", "echo ٣", "1٣ ", "a\rb", "a\r\nb",
	"bad \xff utf8", "'\xff'", "echo \u200d",
	// Realistic commands.
	"git status && git diff --stat HEAD~1 | head -50", "go build ./... && go vet ./... 2>&1 | grep -v '^#' || true",
	"find . -name '*.go' -not -path './vendor/*' | xargs wc -l | sort -n | tail -5",
	"for f in *.go; do\n  echo \"== $f\"\n  gofmt -l \"$f\"\ndone",
	"npm install && npm run build -- --prod > build.log 2>&1; echo \"exit: $?\"",
	"curl -s -H 'Accept: application/json' \"https://api.example.com/v1/items?limit=${LIMIT:-10}\" | jq '.items[] | {id, name}'",
	"python3 -c 'import sys; print(sys.version)'", "ls -la ~/.config/ | grep -E \"^d\" | awk '{print $9}'",
	"docker run --rm -v \"$PWD\":/src -w /src golang:1.22 go test ./...", "[ -d build ] || mkdir -p build",
	"sed -i 's/foo/bar/g' file.txt && cat file.txt", "export PATH=\"$HOME/go/bin:$PATH\"", "kill -9 $(lsof -t -i:8080)",
	"wc -l $(git ls-files '*.go') | tail -1", "echo ${#arr[@]} ${arr[0]} \"${arr[@]}\"",
}

// TestBashLexerMatchesChroma: the Bash twin's markup, and the hand scan's
// tokens, are chroma's Bash lexer's, on edge cases of each rule, on the
// shell commands and blocks of the corpus ($CCSITE_CORPUS: each Bash tool
// call's command, each ```bash, ```sh and ```shell block), and on those
// texts cut and with characters put in at random (strings, substitutions
// and here-documents left open or closed early).
func TestBashLexerMatchesChroma(t *testing.T) {
	t.Parallel()
	hand, ref := bashLexers(t)
	texts := append([]string(nil), bashEdgeCases...)
	corpus := bashCorpus(t, 4000)
	texts = append(texts, corpus...)
	texts = withMutations(texts, 7, []string{"\"", "'", "`", "$(", "${", "$((", ")", "}", "\\", "#", "<<", "EOF", "\n", "é", " ", "1", "="})
	// Chroma's tokens of each text, kept: the markup's and the tokens'
	// comparisons both need them, and chroma takes most of the time.
	memo := memoLexer{ref, map[string][]chroma.Token{}}
	taken := sameMarkup(t, hand, memo, texts, bashScanned)
	sameHandTokens(t, memo, texts, bashTokens)
	t.Logf("%d texts, %d scanned by hand", len(texts), taken)
	if taken < len(texts)/2 {
		t.Errorf("only %d of %d texts scanned by hand", taken, len(texts))
	}
	handShare(t, "corpus", corpus, bashScanned)
}

// bashCorpus returns up to limit distinct shell texts of the corpus, as
// highlighting gets them (the final newline cut): each Bash tool call's
// command and each ```bash, ```sh or ```shell block of a message's text.
// None without $CCSITE_CORPUS.
func bashCorpus(t *testing.T, limit int) []string {
	if os.Getenv("CCSITE_CORPUS") == "" {
		return nil
	}
	ts := newTextSet(limit)
	blocks := func(text string) { ts.fenced(text, "bash", "sh", "shell") }
	corpustest.EachLine(t, func(_ string, line []byte) {
		// Only lines that may hold one are decoded: most are neither.
		if ts.full() || !bytes.Contains(line, []byte(`"Bash"`)) && !bytes.Contains(line, []byte("```bash")) &&
			!bytes.Contains(line, []byte("```sh")) && !bytes.Contains(line, []byte("```Bash")) {
			return
		}
		var rec map[string]any
		if json.Unmarshal(line, &rec) != nil {
			return
		}
		msg, _ := rec["message"].(map[string]any)
		switch content := msg["content"].(type) {
		case string:
			blocks(content)
		case []any:
			for _, item := range content {
				item, _ := item.(map[string]any)
				switch item["type"] {
				case "tool_use":
					if rec["type"] != "assistant" || item["name"] != "Bash" {
						continue
					}
					input, _ := item["input"].(map[string]any)
					if cmd, ok := input["command"].(string); ok {
						ts.add(cmd)
					}
				case "text":
					if text, ok := item["text"].(string); ok {
						blocks(text)
					}
				}
			}
		}
	})
	if len(ts.out) == 0 {
		t.Error("no shell texts in the corpus")
	}
	return ts.out
}

// BenchmarkBashLexer highlights a script of common commands with
// the Bash twin and with chroma's lexer.
func BenchmarkBashLexer(b *testing.B) {
	script := strings.Repeat(`cd /work/main && go test ./build/markup -run 'Bash' -v 2>&1 | tail -20
git status --short && git diff --stat HEAD~1 | head -50
git add -A && git commit -m "$(cat <<'EOF'
markup: shell commands scanned by hand

Co-Authored-By: Someone <someone@example.com>
EOF
)"
for f in *.go; do
  echo "== $f"
  gofmt -l "$f" || exit 1
done
export PATH="$HOME/go/bin:$PATH"
ls -la ~/.config/ | grep -E "^d" | awk '{print $9}' # directories
curl -s "https://api.example.com/v1/items?limit=${LIMIT:-10}" | jq '.items[] | {id, name}'
find . -name '*.go' -not -path './vendor/*' | xargs wc -l | sort -n | tail -5
[ -d build ] || mkdir -p build; echo "exit: $?"
npm install && npm run build -- --prod > build.log 2>&1
`, 20)
	hand, ref := bashLexers(b)
	benchLexers(b, script, hand, ref)
}

// FuzzBashLexer: on any text, the Bash twin's markup is chroma's Bash lexer's
// (and the scan does not panic).
func FuzzBashLexer(f *testing.F) {
	for _, s := range bashEdgeCases {
		f.Add(s)
	}
	hand, ref := bashLexers(f)
	f.Fuzz(func(t *testing.T, s string) {
		if !bashScanned(s) || bashBacktracks(s) > 1<<12 {
			return
		}
		got, gotClean := markupOf(t, hand, s)
		want, wantClean := markupOf(t, ref, s)
		if got != want || gotClean != wantClean {
			t.Errorf("%q: hand %q, chroma %q", s, got, want)
		}
	})
}

// bashBacktracks bounds the ways chroma's string rules
// (\$?"(\\\\|\\[0-7]+|\\.|[^"\\$])*" and the like) can take the escapes of
// a string they do not match, all of which regexp2 tries: a backslash
// pair is taken by \\\\ or by \\., octal digits after a backslash by
// \\[0-7]+ or one by one. Fuzzing finds such strings, on which chroma
// takes a quarter of a second (regexp2's time limit, past which the rule
// does not match, as it would not have) at each quote.
func bashBacktracks(s string) float64 {
	ways := 1.0
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		n := 2
		for j := i + 1; j < len(s) && isOctal(s[j]); j++ {
			n++
		}
		ways *= float64(n)
		i++
	}
	return ways
}
