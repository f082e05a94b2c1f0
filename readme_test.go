// Package hyperplane_test holds checks on the repository as a whole: the
// README's Go code must build against this module as a user's module would.
package hyperplane_test

import (
	"bufio"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// snippet is one ```go block of the README and the line its code starts on.
type snippet struct {
	line int
	code string
}

// goSnippets returns every ```go block of a Markdown file, in order.
func goSnippets(t *testing.T, path string) []snippet {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out  []snippet
		cur  *strings.Builder
		from int
	)
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur, from = new(strings.Builder), n+1
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, snippet{from, cur.String()})
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("%s: the ```go block from line %d is never closed", path, from)
	}
	return out
}

// TestReadmeGoSnippetsBuild writes each ```go block of README.md as a
// program of its own in one temporary module that requires this module
// through a replace directive (what a user's go.mod needs until the module
// is published), and vets them all: a snippet that does not compile, or
// that is a fragment rather than a program, or that gofmt would change,
// fails here. It runs offline,
// from the module cache and this repository's go.sum.
func TestReadmeGoSnippetsBuild(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	snips := goSnippets(t, filepath.Join(root, "README.md"))
	if len(snips) == 0 {
		t.Fatal("README.md has no ```go block: the extraction is broken")
	}
	dir := t.TempDir()
	gomod := fmt.Sprintf("module readmecheck\n\ngo 1.25\n\nrequire github.com/hyperplane-ml/hyperplane v0.0.0\n\nreplace github.com/hyperplane-ml/hyperplane => %s\n", root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	for i, s := range snips {
		if !strings.HasPrefix(strings.TrimSpace(s.code), "package main") {
			t.Errorf("README.md:%d: a ```go block must be a whole program starting with package main", s.line)
			continue
		}
		if formatted, err := format.Source([]byte(s.code)); err == nil && string(formatted) != s.code {
			t.Errorf("README.md:%d: the ```go block is not gofmt'ed; gofmt gives:\n%s", s.line, formatted)
		}
		pkg := filepath.Join(dir, fmt.Sprintf("snippet%02d", i))
		if err := os.Mkdir(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		// A line directive makes the compiler's errors name README.md's lines.
		code := fmt.Sprintf("//line README.md:%d\n%s", s.line, s.code)
		if err := os.WriteFile(filepath.Join(pkg, "main.go"), []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goBin, "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet on the README's %d Go snippets: %v\n%s", len(snips), err, out)
	}
}
