// Package demo embeds a small, made-up Claude Code archive (written by
// scripts/gen-demo.py) that ccsite shows when a machine has no transcripts
// of its own: several projects, every common tool, sub-agents in each
// layout, compaction, a branch, a broken line and an unknown record.
package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed all:projects
var files embed.FS

// FS returns the archive as a projects folder tree.
func FS() fs.FS {
	sub, err := fs.Sub(files, "projects")
	if err != nil {
		panic(err) // the embedded folder always exists
	}
	return sub
}

// Extract writes the archive to dir/projects (replacing what was there) and
// returns that folder.
func Extract(dir string) (string, error) {
	root := filepath.Join(dir, "projects")
	// Files of an older demo must not linger.
	if err := os.RemoveAll(root); err != nil {
		return "", fmt.Errorf("extract demo archive: %w", err)
	}
	err := fs.WalkDir(FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(root, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := fs.ReadFile(FS(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("extract demo archive: %w", err)
	}
	return root, nil
}
