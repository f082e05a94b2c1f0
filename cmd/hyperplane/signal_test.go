//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hyperplane-ml/hyperplane/engine"
)

// helperArgs, when set, makes TestHelperRun run the command it holds
// (arguments separated by newlines) in this process and exit with its
// code: the tests below send that process signals.
const helperArgs = "HYPERPLANE_HELPER_ARGS"

func TestHelperRun(t *testing.T) {
	a := os.Getenv(helperArgs)
	if a == "" {
		return
	}
	os.Exit(run(strings.Split(a, "\n"), os.Stdout, os.Stderr))
}

// startHelper starts this test binary as the command args; its stderr
// comes line by line on the returned channel, closed at its end.
func startHelper(t *testing.T, ctx context.Context, args ...string) (*exec.Cmd, <-chan string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperRun$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperArgs+"="+strings.Join(args, "\n"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return cmd, lines
}

// TestTrainSignalSavesModel: SIGTERM and SIGHUP, like SIGINT, stop train
// after the current epoch with the model so far saved to -o (they used to
// kill it, the model lost).
func TestTrainSignalSavesModel(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.svm")
	if code, _, errOut := runCmd("gen", "-rows", "2000", "-dim", "2000", "-noise", "0.3", data); code != 0 {
		t.Fatal(errOut)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		model := filepath.Join(dir, sig.String()+".hpm")
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd, lines := startHelper(t, ctx, "train", "-v", "-algo", "averaged", "-epochs", "1000000", "-o", model, data)
		var errOut bytes.Buffer
		sent := false
		for l := range lines {
			errOut.WriteString(l + "\n")
			if !sent && strings.HasPrefix(l, "epoch 2:") {
				cmd.Process.Signal(sig)
				sent = true
			}
		}
		err := cmd.Wait()
		cancel()
		if !sent {
			t.Fatalf("%v: training ended before the signal: %v\n%s", sig, err, errOut.String())
		}
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errOut.String(), "interrupted after") || !strings.Contains(errOut.String(), "the model so far was saved to") {
			t.Fatalf("%v: %v; stderr ends %q", sig, err, tail(errOut.String()))
		}
		if _, err := engine.Load(model); err != nil {
			t.Fatalf("%v: the model saved does not load: %v", sig, err)
		}
	}
}

// TestConvertSignalRemovesTemp: SIGTERM while convert reads a FIFO that
// has gone quiet stops it at once, with nothing written and its temporary
// file removed (it used to die and leave the file behind).
func TestConvertSignalRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "in.svm")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	out := filepath.Join(dir, "out.hpc")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, lines := startHelper(t, ctx, "convert", fifo, out)
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteString(strings.Repeat(smallSVM, 1000)); err != nil {
		t.Fatal(err)
	}
	// The temporary file is made before the input is read.
	for {
		if names, _ := filepath.Glob(filepath.Join(dir, ".out.hpc.tmp*")); len(names) > 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("no temporary file appeared")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // let it reach the quiet FIFO
	cmd.Process.Signal(syscall.SIGTERM)
	var errOut strings.Builder
	for l := range lines {
		errOut.WriteString(l + "\n")
	}
	err = cmd.Wait()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errOut.String(), "interrupted") {
		t.Fatalf("convert after SIGTERM: %v; stderr %q", err, errOut.String())
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 1 {
		t.Errorf("directory holds %v, want the FIFO only", names)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
		t.Errorf("temporary files left: %v", names)
	}
}

func tail(s string) string {
	if len(s) > 400 {
		return s[len(s)-400:]
	}
	return s
}

// writeBigText writes rows lines of labelled JSONL, twenty words each
// from a vocabulary of 5000, to path: about 140 bytes a line.
func writeBigText(t *testing.T, path string, rows int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	x := uint64(1)
	for i := range rows {
		w.WriteString(`{"label":"`)
		w.WriteString([]string{"neg", "pos"}[i%2])
		w.WriteString(`","text":"`)
		for k := range 20 {
			x = x*6364136223846793005 + 1442695040888963407
			if k > 0 {
				w.WriteByte(' ')
			}
			fmt.Fprintf(w, "w%d", (x>>33)%5000)
		}
		w.WriteString("\"}\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// waitOpened returns once process pid has one of the files inputs open,
// or a temporary output file in dir (where /proc shows open files; else
// after 300 ms), so that a signal reaches the command at work.
func waitOpened(pid int, dir string, inputs ...string) {
	fds := fmt.Sprintf("/proc/%d/fd", pid)
	if _, err := os.Stat(fds); err != nil {
		time.Sleep(300 * time.Millisecond)
		return
	}
	giveUp := time.After(10 * time.Second)
	for {
		select {
		case <-giveUp:
			return
		case <-time.After(5 * time.Millisecond):
		}
		ents, _ := os.ReadDir(fds)
		for _, e := range ents {
			target, err := os.Readlink(filepath.Join(fds, e.Name()))
			if err != nil {
				continue
			}
			if slices.Contains(inputs, target) || (filepath.Dir(target) == dir && strings.HasPrefix(filepath.Base(target), ".")) {
				return
			}
		}
	}
}

// TestSignalStopsLongCommands: SIGTERM stops every command that reads,
// featurizes, scores or writes a large input within a bound of the
// signal, with exit code 1, the interruption named and no output left
// behind. (Reading and featurizing ignored the signal: eval scored every
// row and exited 0, train and convert featurized the whole file first.)
//
// The signal comes as soon as the command has its input (or its
// temporary output) open; the inputs take about a second or more to get
// through on two cores, so a command that finished them before exiting
// fails on its exit code and message; the bound of 3 s after the signal,
// against the tenth of a second the commands take, leaves room for a
// loaded machine without letting a run over the whole input pass.
func TestSignalStopsLongCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB of input")
	}
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small.jsonl"), filepath.Join(dir, "big.jsonl")
	writeBigText(t, small, 2000)
	writeBigText(t, big, 200000)
	tm, lm := filepath.Join(dir, "m.hptm"), filepath.Join(dir, "m.hpm")
	svm, smallSVMFile := filepath.Join(dir, "big.svm"), filepath.Join(dir, "small.svm")
	for _, c := range [][]string{
		{"train", "-epochs", "1", "-o", tm, small},
		{"gen", "-rows", "2000", "-dim", "1000", smallSVMFile},
		{"train", "-epochs", "1", "-o", lm, smallSVMFile},
		{"gen", "-rows", "300000", "-dim", "1000", svm},
	} {
		if code, _, errOut := runCmd(c...); code != 0 {
			t.Fatalf("%v: %s", c, errOut)
		}
	}
	out := filepath.Join(dir, "out")
	for _, args := range [][]string{
		{"eval", "-model", tm, big},
		{"train", "-epochs", "1", "-o", out + ".hptm", big},
		{"train", "-epochs", "1", "-bits", "18", "-o", out + ".hptm", big},
		{"train", "-stream", "-epochs", "1", "-o", out + ".hptm", big},
		{"train", "-stream", "-epochs", "1", "-bits", "18", "-o", out + ".hptm", big},
		{"convert", big, out + ".hpc"},
		{"convert", "-vocab", big, out + ".hpc"},
		{"convert", "-bits", "18", "-idf", big, out + ".hpc"},
		{"eval", "-model", lm, svm},
		{"predict", "-model", lm, "-o", out + ".txt", svm},
		{"stats", svm},
		{"gen", "-rows", "3000000", out + ".svm"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		cmd, lines := startHelper(t, ctx, args...)
		waitOpened(cmd.Process.Pid, dir, big, svm)
		cmd.Process.Signal(syscall.SIGTERM)
		// The bound is a timer, not a measured duration: whether the
		// command was still running 3 s after the signal.
		var late atomic.Bool
		bound := time.AfterFunc(3*time.Second, func() { late.Store(true) })
		var errOut strings.Builder
		for l := range lines {
			errOut.WriteString(l + "\n")
		}
		err := cmd.Wait()
		bound.Stop()
		cancel()
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errOut.String(), "interrupted") {
			t.Errorf("%v after SIGTERM: %v; stderr ends %q", args, err, tail(errOut.String()))
			continue
		}
		if late.Load() {
			t.Errorf("%v: still running 3 s after the signal", args)
		}
		if names, _ := filepath.Glob(out + "*"); len(names) > 0 {
			t.Errorf("%v left %v", args, names)
		}
		if names, _ := filepath.Glob(filepath.Join(dir, ".*")); len(names) > 0 {
			t.Errorf("%v left temporary files %v", args, names)
		}
	}
}
