//go:build unix

package main

import (
	"bufio"
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
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errOut.String(), "interrupted after") || !strings.Contains(errOut.String(), "model saved: true") {
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
