//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
)

const streamDocs = `{"label":"pos","text":"good fine day"}
{"label":"neg","text":"bad awful day"}
{"label":"pos","text":"good nice"}
{"label":"neg","text":"awful bad night"}
`

// earlierLog is what a log held before a command's output was appended.
const earlierLog = "earlier line 1\nearlier line 2\n"

// runAppending runs the command args in a process of its own (this test
// binary as the helper of TestHelperRun) whose standard output is the
// file log opened for appending, as the shell's >> opens it, and returns
// its standard error. It fails the test unless the command succeeds.
func runAppending(t *testing.T, log string, args ...string) string {
	t.Helper()
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperRun$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperArgs+"="+strings.Join(args, "\n"))
	cmd.Stdout = f
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%q: %v\n%s", args, err, stderr.String())
	}
	return stderr.String()
}

// newLog writes a log file holding earlier lines and returns its path
// and inode.
func newLog(t *testing.T, dir, name string) (string, uint64) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(earlierLog), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, inodeOf(t, path)
}

func inodeOf(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

// checkLog checks that log holds its earlier lines and then want, and is
// still the same file.
func checkLog(t *testing.T, log string, ino uint64, want string) {
	t.Helper()
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != earlierLog+want {
		t.Errorf("%s holds %q, want the earlier lines and then %q", filepath.Base(log), got, want)
	}
	if inodeOf(t, log) != ino {
		t.Errorf("%s was replaced by another file (new inode)", filepath.Base(log))
	}
}

// TestOutputToStdoutAppends: predict -o /dev/stdout and convert IN
// /dev/stdout, run with their output appended to a log (>> log.txt),
// append to it: its earlier lines stay and it is the same file. They used
// to replace the log with a new file holding the new output alone. The
// other names of standard output do the same, and convert's report goes
// to standard error, out of the data.
func TestOutputToStdoutAppends(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "in.txt.jsonl")
	data := filepath.Join(dir, "in.svm")
	model := filepath.Join(dir, "m.hptm")
	if err := os.WriteFile(docs, []byte(streamDocs), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, []byte(smallSVM), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, e := runCmd("train", "-o", model, docs); code != 0 {
		t.Fatal(e)
	}
	code, pred, e := runCmd("predict", "-model", model, docs)
	if code != 0 || pred == "" {
		t.Fatalf("predict to stdout: exit %d\n%s", code, e)
	}
	code, conv, e := runCmd("convert", data, "-")
	if code != 0 || conv == "" {
		t.Fatalf("convert to stdout: exit %d\n%s", code, e)
	}
	for _, name := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
		if _, err := os.Stat(name); err != nil {
			continue
		}
		log, ino := newLog(t, dir, "log.txt")
		runAppending(t, log, "predict", "-model", model, "-o", name, docs)
		checkLog(t, log, ino, pred)

		log, ino = newLog(t, dir, "conv.log")
		stderr := runAppending(t, log, "convert", data, name)
		checkLog(t, log, ino, conv)
		if !strings.Contains(stderr, "4 rows") {
			t.Errorf("convert's report is not on standard error: %q", stderr)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

// TestTrainToStdout: train -o /dev/stdout streams the model to standard
// output, into the file the shell opened, its report going to standard
// error.
func TestTrainToStdout(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "in.svm")
	if err := os.WriteFile(data, []byte(smallSVM), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "model.out")
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ino := inodeOf(t, out)
	stderr := runAppending(t, out, "train", "-o", "/dev/stdout", data)
	if inodeOf(t, out) != ino {
		t.Error("standard output's file was replaced by another (new inode)")
	}
	if _, err := engine.Load(out); err != nil {
		t.Fatalf("standard output does not hold the model alone: %v", err)
	}
	if !strings.Contains(stderr, "saved to /dev/stdout") {
		t.Errorf("train's report is not on standard error: %q", stderr)
	}
}

// TestOutputToFIFOAndDevNull: a FIFO or /dev/null as the output of
// convert and predict is written to, not replaced (both used to be
// refused as not regular files); a cache written to a FIFO holds the
// bytes written to a file, and its report counts its rows.
func TestOutputToFIFOAndDevNull(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "in.svm")
	if err := os.WriteFile(data, []byte(smallSVM), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file.hpc")
	model := filepath.Join(dir, "m.hpm")
	code, fileReport, e := runCmd("convert", data, file)
	if code != 0 {
		t.Fatal(e)
	}
	// "N rows, N columns, N nonzeros", as counted from the file.
	counts := func(report string) string {
		_, after, _ := strings.Cut(report, ": ")
		before, _, _ := strings.Cut(after, " in ")
		return before
	}
	if code, _, e := runCmd("train", "-o", model, data); code != 0 {
		t.Fatal(e)
	}
	_, pred, _ := runCmd("predict", "-model", model, data)
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "p.hpc")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// The reader is left waiting when the command fails without opening
	// the FIFO: the test fails then without waiting for it.
	read := func() <-chan []byte {
		c := make(chan []byte, 1)
		go func() { b, _ := os.ReadFile(fifo); c <- b }()
		return c
	}
	c := read()
	code, out, e := runCmd("convert", data, fifo)
	if code != 0 {
		t.Fatalf("convert to a FIFO: exit %d\n%s", code, e)
	}
	if got := <-c; !bytes.Equal(got, want) {
		t.Fatalf("convert to a FIFO: %d bytes read, want %d", len(got), len(want))
	}
	if counts(out) == "" || counts(out) != counts(fileReport) {
		t.Errorf("convert's report on a FIFO: %q; on a file: %q", out, fileReport)
	}
	c = read()
	code, _, e = runCmd("predict", "-model", model, "-o", fifo, data)
	if code != 0 {
		t.Fatalf("predict to a FIFO: exit %d\n%s", code, e)
	}
	if got := <-c; string(got) != pred {
		t.Fatalf("predict to a FIFO: read %q, want %q", got, pred)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a FIFO: %v", fifo, err)
	}
	for _, args := range [][]string{
		{"convert", data, os.DevNull},
		{"predict", "-model", model, "-o", os.DevNull, data},
		{"train", "-o", os.DevNull, data},
	} {
		if code, _, e := runCmd(args...); code != 0 {
			t.Errorf("%q: exit %d\n%s", args, code, e)
		}
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("%s is no longer a device: %v", os.DevNull, err)
	}
}

// TestStdoutTwice: "-" and /dev/stdout are one output: two outputs naming
// standard output both ways are refused (both wrote into one stream).
func TestStdoutTwice(t *testing.T) {
	if _, err := os.Stat("/dev/stdout"); err != nil {
		t.Skip("no /dev/stdout here")
	}
	dir := t.TempDir()
	docs := filepath.Join(dir, "in.txt.jsonl")
	if err := os.WriteFile(docs, []byte(streamDocs), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, e := runCmd("convert", "-save-featurizer", "/dev/stdout", docs, "-")
	if code != 2 || !strings.Contains(e, "are the same file") {
		t.Errorf("exit %d, want 2 and the same file refused\n%s", code, e)
	}
}

// TestStdoutIsInput: predict -o /dev/stdout FILE >> FILE is refused, FILE
// left as it was: standard output is then the file read, and appending
// to it while reading it would never end (it is compared by device and
// inode, as every output is with the inputs).
func TestStdoutIsInput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "in.svm")
	model := filepath.Join(dir, "m.hpm")
	if err := os.WriteFile(data, []byte(smallSVM), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, e := runCmd("train", "-o", model, data); code != 0 {
		t.Fatal(e)
	}
	f, err := os.OpenFile(data, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRun$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperArgs+"="+strings.Join([]string{"predict", "-model", model, "-o", "/dev/stdout", data}, "\n"))
	cmd.Stdout = f
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(stderr.String(), "is the input FILE") {
		t.Errorf("exit %v, want 2 and the input refused; stderr %q", err, stderr.String())
	}
	if got, _ := os.ReadFile(data); string(got) != smallSVM {
		t.Errorf("%s holds %q", data, got)
	}
}
