package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"strings"

	"github.com/hyperplane-ml/hyperplane/internal/iox"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/atomicfile"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// arg is a file named on the command line, with what named it (a flag,
// or the argument's place) for messages.
type arg struct{ what, path string }

// outputs are the files a command writes, each created (as a pending,
// hidden temporary file beside its target, or as a stream where the
// target is not a regular file) before the command's work
// starts, so that a target that cannot be written stops it before the
// work is spent, and replaced together once the work is done.
type outputs struct {
	files  []*atomicfile.File
	byPath map[string]io.Writer
	stdout io.Writer
}

// prepareOutputs checks a command's files before it does anything: no
// output may be empty-named, be the same file as an input (by device and
// inode where both exist, so hard links and other spellings count) or as
// another output ("-" and /dev/stdout are one); then it creates every
// output but "-", which is stdout. Outputs that are not regular files
// (/dev/stdout, /dev/fd/N, devices, FIFOs) are written as streams, never
// replaced (see atomicfile.Create).
// The caller must defer cleanup. A misuse is a usage error naming both
// files; an output that cannot be created is the error that says why.
func prepareOutputs(stdout io.Writer, inputs []arg, outs ...arg) (*outputs, error) {
	for i, o := range outs {
		if o.path == "" {
			return nil, usageError("%s: the file name is empty", o.what)
		}
		for _, in := range inputs {
			if in.path != "" && sameFile(in.path, o.path) {
				return nil, usageError("%s %s is the input %s %s: writing it would destroy what is read", o.what, o.path, in.what, in.path)
			}
		}
		for _, o2 := range outs[:i] {
			if sameFile(outputName(o.path), outputName(o2.path)) {
				return nil, usageError("%s %s and %s %s are the same file", o2.what, o2.path, o.what, o.path)
			}
		}
	}
	w := &outputs{byPath: map[string]io.Writer{}, stdout: stdout}
	for _, o := range outs {
		if o.path == "-" {
			w.byPath["-"] = stdout
			continue
		}
		p, err := atomicfile.Create(o.path)
		if err != nil {
			w.cleanup()
			return nil, err
		}
		w.files = append(w.files, p)
		w.byPath[o.path] = p
	}
	return w, nil
}

// writer returns the writer of the output path.
func (w *outputs) writer(path string) io.Writer { return w.byPath[path] }

// stream reports whether the output path is written as a stream ("-",
// a descriptor, a device or a FIFO), which cannot be read back.
func (w *outputs) stream(path string) bool {
	if p, ok := w.byPath[path].(*atomicfile.File); ok {
		return p.Stream()
	}
	return path == "-"
}

// outputName is the output path as a file name: "-" is /dev/stdout.
func outputName(path string) string {
	if path == "-" {
		return "/dev/stdout"
	}
	return path
}

// writesStdout reports whether the output path goes to stdout: "-", or a
// name of the file stdout is (/dev/stdout, /dev/fd/1, the FIFO or terminal
// it writes to, by device and inode). A command whose output does sends
// its report to standard error, which would otherwise run into the data.
func writesStdout(stdout io.Writer, path string) bool {
	return path == "-" || iox.IsFile(stdout, path)
}

// commit replaces every output's target, or none (see
// atomicfile.ReplaceTogether). It does not look at ctx: train saves what it
// has when interrupted; commands that drop their work check ctx first.
func (w *outputs) commit() error {
	for _, p := range w.files {
		if err := p.Flush(); err != nil {
			w.cleanup()
			return err
		}
	}
	if f, ok := w.byPath["-"].(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			w.cleanup()
			return err
		}
	}
	return atomicfile.ReplaceTogether(w.files...)
}

// cleanup removes the temporary files of the outputs not committed.
func (w *outputs) cleanup() {
	for _, p := range w.files {
		p.Cleanup()
	}
}

// interrupted words err, the error of work cut short, as an interruption
// when a signal has cancelled ctx (the error is then whatever the read or
// write that noticed it made of it). Commands that write files check ctx
// during their work, and remove what they had started to write.
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return errors.New("interrupted: nothing written")
	}
	return err
}

// sameFile reports whether the paths a and b name one file (see
// atomicfile.SameFile); "-" is no file (the standard streams are told
// apart by the caller).
func sameFile(a, b string) bool {
	if a == "-" || b == "-" {
		return false
	}
	return atomicfile.SameFile(a, b)
}

// stdioInput returns stdin as an input arg to compare outputs with when
// it is a file (hyperplane convert - out.svm < out.svm), else nothing.
func stdioInput(env *Env, path string) []arg {
	if path != "-" {
		return nil
	}
	if f, ok := env.Stdin.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			return []arg{{"standard input", "/dev/stdin"}}
		}
	}
	return nil
}

// writeData writes d to w in the format path's name asks for (see
// sparse.FormatForName): a cache (.hpc), gzip-compressed LIBSVM (.gz) or
// LIBSVM.
func writeData(w io.Writer, path string, d *sparse.Dataset) error {
	return sparse.Write(w, path, d)
}

// csvNamed reports whether path names a CSV table of numbers (.csv,
// .csv.gz), read by sparse/csv with a header when it has one.
func csvNamed(path string) bool {
	return strings.HasSuffix(path, ".csv") || strings.HasSuffix(path, ".csv.gz")
}

// isCache reports whether br starts with a cache file's magic bytes,
// without consuming them.
func isCache(br *bufio.Reader) bool {
	f, _ := sparse.Sniff(br)
	return f == hpc.Name
}

// fileIsText reports whether the regular file at path holds labelled raw
// text by its first line (text.Sniff): what train goes by when the name
// does not say (fastText's cooking.train). A file that cannot be read,
// or a pipe, which would lose what is read, is not.
func fileIsText(path string) bool {
	return regularFileIs(path, func(f *os.File) bool {
		kind, _, err := text.Sniff(bufio.NewReaderSize(f, 1<<16))
		return err == nil && (kind == text.KindJSONL || kind == text.KindText)
	})
}

// regularFileIs reports what is reports of the file at path, opened,
// if it is a regular file; false for one that cannot be opened, or a
// pipe, which would lose what is read.
func regularFileIs(path string, is func(f *os.File) bool) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return is(f)
}

// labelColFlag adds -label-col to fs: the label column of a CSV table, by
// its header name or 1-based position (sparse/csv's Options.Label).
func labelColFlag(fs *flag.FlagSet) *string {
	return fs.String("label-col", "", "CSV input: the label column, a header `name` or a 1-based position (default: a column named label, target, class or y, else the first)")
}
