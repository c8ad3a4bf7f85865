package redact

import (
	"math/rand/v2"
	"strings"
	"testing"

	"ccsite/internal/randtext"
)

// TestSensitiveKey: the one-pass judgement of a member's name is the
// rule's (sensitiveKeyOf) for names of every shape: the corpus's kinds,
// upper case, non-ASCII, the excluded endings, random bytes.
func TestSensitiveKey(t *testing.T) {
	names := []string{"", "text", "content", "command", "password", "PASSWORD", "db_Pass", "pwd", "api_key",
		"apiKey", "Authorization", "x-auth-token", "input_tokens", "cache_read_input_tokens", "keySource",
		"token_count", "secret_name", "SIG", "signature", "cookie", "Set-Cookie", "credentials", "monkey",
		"KEY", "Ключ", "passé", "İkey", "tokenİ", "ke", "tok", "credentia", strings.Repeat("a", 64) + "key",
		strings.Repeat("k", 63) + "y", strings.Repeat("x", 61) + "key"}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := randtext.Bytes("aAcCeEgGiIkKnNoOpPrRsStTuUwWyYdD_-.İé")
	for range 20000 {
		names = append(names, randtext.Join(rng, alphabet, 12))
	}
	for _, k := range names {
		if got, want := sensitiveKey(k), sensitiveKeyOf(k); got != want {
			t.Errorf("sensitiveKey(%q) = %v, the rule says %v", k, got, want)
		}
	}
	for k, want := range map[string]bool{"password": true, "API_KEY": true, "text": false, "input_tokens": false, "Authorization": true} {
		if sensitiveKey(k) != want {
			t.Errorf("sensitiveKey(%q) = %v", k, !want)
		}
	}
}

// BenchmarkSensitiveKey: member names as the corpus's values have them.
func BenchmarkSensitiveKey(b *testing.B) {
	names := []string{"text", "content", "command", "file_path", "old_string", "new_string", "stdout", "description", "prompt", "thinking", "originalFile", "pattern"}
	for _, f := range []struct {
		name string
		fn   func(string) bool
	}{{"onePass", sensitiveKey}, {"rule", sensitiveKeyOf}} {
		b.Run(f.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				f.fn(names[i%len(names)])
			}
		})
	}
}
