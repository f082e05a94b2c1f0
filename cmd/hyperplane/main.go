// Command hyperplane trains and measures perceptrons.
//
// Usage:
//
//	hyperplane                 train and evaluate on the embedded demo data
//	hyperplane demo [flags]    the same, with options
//	hyperplane cpu [-json]     the CPU, its features and the SIMD tier in use
//	hyperplane version [-json] the module version, source revision and Go toolchain
//	hyperplane stats FILE...   parse LIBSVM files and describe them
//	hyperplane train TRAIN     train a perceptron (linear or kernel; -threads, -stream)
//	hyperplane eval -model M F evaluate a saved model
//	hyperplane convert IN OUT  text → features, LIBSVM ↔ binary cache
//	hyperplane predict -model M F  one prediction per row (-proba, -k, -explain)
//	hyperplane inspect MODEL   a model's settings and heaviest features (a text model's terms) per label
//	hyperplane gen OUT         synthetic data (text-like, or separable)
//	hyperplane experiment convergence|variants  the mistake bound measured; learning curves
//	hyperplane bench [-o R.json] | bench compare A.json B.json  the suite, across CPUs
//	hyperplane help [COMMAND]  help for a command
//
// Flags may come before or after the arguments. The SIMD tier can be
// forced for any command with -simd (before the command too) or the
// HYPERPLANE_SIMD environment variable (generic, avx2, avx512), and the
// memory budget that input-sized allocations are checked against with -mem.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/hpc"
	"github.com/hyperplane-ml/hyperplane/sparse/synth"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// A Command is one command of hyperplane, in the shape of the go
// command's: its usage line, its help, its flags and what it runs.
type Command struct {
	// UsageLine is the command's name followed by its arguments, as the
	// usage message writes it after "hyperplane".
	UsageLine string
	// Short is the line 'hyperplane help' lists the command with.
	Short string
	// Long is the text 'hyperplane help COMMAND' prints.
	Long string
	// Flag holds the command's own flags (run adds -simd and -mem).
	Flag flag.FlagSet
	// Run runs the command with the arguments left once the flags are
	// parsed. ctx ends when the process is asked to stop (SIGINT,
	// SIGTERM, SIGHUP); env holds the standard streams.
	Run func(ctx context.Context, env *Env, args []string) error
}

// Name is the command's name: the first word of its usage line.
func (c *Command) Name() string {
	name, _, _ := strings.Cut(c.UsageLine, " ")
	return name
}

// Env is what a command reads and writes besides its files: the standard
// streams, passed in rather than taken from package variables so that a
// test runs a command on buffers.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// progress is -progress: show reading progress (see openInput) on
	// Stderr even when it is not a terminal.
	progress bool
}

// warn writes a warning line on the standard error.
func (e *Env) warn(format string, a ...any) {
	fmt.Fprintf(e.Stderr, "hyperplane: warning: "+format+"\n", a...)
}

// commands is the command table. Each entry makes its Command afresh,
// with its flags' variables, so that every run (tests run many in one
// process) starts from the flags' defaults: a constructor declares the
// command's flags into an options struct of its own (trainOptions, ...),
// whose run method is the command's Run.
var commands = []func() *Command{
	newBenchCmd, newConvertCmd, newCPUCmd, newDemoCmd, newEvalCmd, newExperimentCmd, newGenCmd,
	newInspectCmd, newPredictCmd, newStatsCmd, newTrainCmd, newVersionCmd,
}

// lookup returns the command called name, or nil.
func lookup(name string) *Command {
	for _, mk := range commands {
		if c := mk(); c.Name() == name {
			return c
		}
	}
	return nil
}

// errUsage marks a misuse: run prints the error, the command's usage line
// and where to read more, and exits 2. Commands return misuse as a
// usageErr, which errors.Is finds as errUsage.
var errUsage = errors.New("usage")

// usageErr is a misuse, its message the whole of what went wrong.
type usageErr struct{ msg string }

func (e *usageErr) Error() string        { return e.msg }
func (e *usageErr) Is(target error) bool { return target == errUsage }

// usageError returns a misuse error with the message format makes.
func usageError(format string, a ...any) error {
	return &usageErr{fmt.Sprintf(format, a...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args with the given standard output and
// error and returns the exit code: 0, 1 for a failure, 2 for a misuse.
// Its context is cancelled by SIGINT, SIGTERM and SIGHUP: train then
// saves the model so far, convert and gen remove what they had started
// to write.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return runEnv(ctx, &Env{Stdin: os.Stdin, Stdout: stdout, Stderr: stderr}, args)
}

// runEnv is run with the context and the streams given.
func runEnv(ctx context.Context, env *Env, args []string) int {
	if len(args) == 0 {
		args = []string{"demo"}
	}
	args = globalsAfterCommand(args)
	name := args[0]
	if name == "-version" || name == "--version" {
		name, args = "version", append([]string{"version"}, args[1:]...)
	}
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		return help(args[1:], env)
	}
	cmd := lookup(name)
	if cmd == nil && strings.HasPrefix(name, "-") {
		fmt.Fprintf(env.Stderr, "hyperplane: flag %s before the command: a command's flags follow its name (only -simd and -mem may come first)\nRun 'hyperplane help' for the list of commands.\n", name)
		return 2
	}
	if cmd == nil {
		fmt.Fprintf(env.Stderr, "hyperplane: unknown command %q\nRun 'hyperplane help' for the list.\n", name)
		return 2
	}
	fs := &cmd.Flag
	fs.Init("hyperplane "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // run reports the errors itself, in one line
	simd := fs.String("simd", "", "force the SIMD `tier`: generic, avx2 or avx512")
	mem := fs.String("mem", "", memUsage)
	pos, err := parseArgs(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(cmd, env.Stderr)
			return 0
		}
		return usageFailed(cmd, env, err)
	}
	if *simd != "" {
		t, err := asm.ParseTier(*simd)
		if err == nil {
			// (Restored on return, for callers of run that go on.)
			defer asm.SetTier(asm.Active())
			err = asm.SetTier(t)
		}
		if err != nil {
			return usageFailed(cmd, env, fmt.Errorf("-simd: %v", err))
		}
	}
	if *mem != "" {
		n, err := budget.Parse(*mem)
		if err != nil {
			return usageFailed(cmd, env, fmt.Errorf("-mem: %v", err))
		}
		defer budget.Set(budget.Set(n))
		defer holdMemory(n)()
	}
	err = cmd.Run(ctx, env, pos)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, budget.ErrExceeded):
		hint := memHint
		switch name {
		case "gen":
			hint = "hint: ask for fewer -rows, a smaller -dim or -nnz, or raise the budget with -mem"
		case "predict", "eval", "inspect":
			// Refused for the budget, not as a bad file: reading the
			// model needs more memory than the budget allows.
			hint = "hint: reading the model needs more memory than the budget (" + budget.Format(budget.Default()) + "): raise it with -mem"
		}
		fmt.Fprintf(env.Stderr, "hyperplane %s: %v\n%s\n", name, err, hint)
		return 1
	case errors.Is(err, errUsage) || badOption(err):
		return usageFailed(cmd, env, err)
	}
	fmt.Fprintf(env.Stderr, "hyperplane %s: %v\n", name, err)
	return 1
}

// usageFailed reports a misuse in a few lines: the error, the command's
// usage line and where its flags are described. It returns exit code 2.
func usageFailed(cmd *Command, env *Env, err error) int {
	fmt.Fprintf(env.Stderr, "hyperplane %s: %v\nusage: hyperplane %s\nRun 'hyperplane help %s' for its flags.\n", cmd.Name(), err, usageLine(cmd), cmd.Name())
	return 2
}

// usageLine is the command's usage line with "[flags]" after its name.
func usageLine(c *Command) string {
	name, rest, _ := strings.Cut(c.UsageLine, " ")
	return strings.TrimSpace(name + " [flags] " + rest)
}

// holdMemory makes a budget given with -mem the Go runtime's soft memory
// limit as well (less an eighth, for the memory a process holds beyond
// its heap), unless GOMEMLIMIT sets one, and returns the function that
// restores the limit before it. The budget refuses what the input would
// need beyond it, but garbage counts in the process's memory too: left to
// GOGC alone, the collector lets the heap grow to twice what is live
// before it runs, so a run whose live data fits the budget could still
// pass it by what is not yet collected. Near the limit the runtime
// collects more often instead. Live data past the limit would keep the
// collector running for much of the time, so the default budget, which
// no one asked to be held to, sets no limit.
func holdMemory(n int64) (restore func()) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set || n <= 0 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(n - n/8)
	return func() { debug.SetMemoryLimit(prev) }
}

// memUsage documents -mem, which every command takes.
var memUsage = "the memory `budget` for allocations sized by the input, e.g. 4GiB (default: half of this machine's memory, " + budget.Format(budget.Default()) + ")"

// memHint follows an over-budget error: what a user can do about it.
const memHint = `hint: hash text (-bits N) rather than count a vocabulary, or into fewer buckets; count words only (-ngrams 1);
      train fewer classes; stream the data (train -stream, or a cache from convert); or raise the budget with -mem`

// globalsAfterCommand moves the flags every command takes (-simd, -mem)
// from before the command name to after it, so that "hyperplane -simd
// generic train data.svm" works as "hyperplane train -simd generic
// data.svm" does.
func globalsAfterCommand(args []string) []string {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if name != "simd" && name != "mem" {
			return args
		}
		if i++; !hasValue {
			i++
		}
	}
	if i == 0 || i >= len(args) {
		return args
	}
	return slices.Concat([]string{args[i]}, args[:i], args[i+1:])
}

// parseArgs parses the flags wherever they stand among the arguments, as
// users of fastText and Vowpal Wabbit type them (train data.svm -epochs
// 3), and returns the other arguments in order. "--" ends the flags; a
// lone "-" (standard input or output) is an argument.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
}

// setAmong returns, as "-name", the flags among names that the command
// line set, in fs's order.
func setAmong(fs *flag.FlagSet, names ...string) []string {
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(names, f.Name) {
			set = append(set, "-"+f.Name)
		}
	})
	return set
}

// badOption reports whether err is a library's refusal of an option: on
// the command line those come from flag values, so they are misuse (exit
// 2) like the flags the commands check themselves.
func badOption(err error) bool {
	return errors.Is(err, engine.ErrConfig) || errors.Is(err, text.ErrConfig) || errors.Is(err, sparse.ErrBadOption) || errors.Is(err, synth.ErrConfig)
}

// printJSON writes v to w as indented JSON: every -json of every command
// goes through it.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// fileError is an error about the data of one file, for messages that
// name it: "FILE: what went wrong". It wraps the library's error, which
// errors.Is and errors.As still find.
type fileError struct {
	File string
	Err  error
}

func (e *fileError) Error() string { return e.File + ": " + e.Err.Error() }
func (e *fileError) Unwrap() error { return e.Err }

// inFile returns err naming the file path, unless err is nil, already
// names a file (the readers' parse and cache errors do, and fileError),
// or is about the options rather than the data (a config error).
func inFile(path string, err error) error {
	if err == nil || namesFile(err) || badOption(err) {
		return err
	}
	return &fileError{path, err}
}

// namesFile reports whether err already names the file it is about.
func namesFile(err error) bool {
	var pe *sparse.ParseError
	var ce *hpc.Error
	var fe *fileError
	var pathErr *os.PathError
	return (errors.As(err, &pe) && pe.File != "") || (errors.As(err, &ce) && ce.File != "") || errors.As(err, &fe) || errors.As(err, &pathErr)
}

func usage(c *Command, w io.Writer) {
	fmt.Fprintf(w, "usage: hyperplane %s\n\n%s\n\nflags:\n", usageLine(c), c.Long)
	c.Flag.SetOutput(w)
	c.Flag.PrintDefaults()
}

func help(args []string, env *Env) int {
	if len(args) == 0 {
		fmt.Fprintln(env.Stdout, "hyperplane trains and measures SIMD-accelerated perceptrons.\n\nusage: hyperplane <command> [flags] [arguments]\n\ncommands:")
		var cmds []*Command
		for _, mk := range commands {
			cmds = append(cmds, mk())
		}
		slices.SortFunc(cmds, func(a, b *Command) int { return strings.Compare(a.Name(), b.Name()) })
		for _, c := range cmds {
			fmt.Fprintf(env.Stdout, "  %-10s %s\n", c.Name(), c.Short)
		}
		fmt.Fprintln(env.Stdout, "\nFlags may come before or after the arguments. With no command, hyperplane runs demo.\n'hyperplane help COMMAND' shows a command's flags.")
		return 0
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(env.Stderr, "hyperplane help: unknown command %q\n", args[0])
		return 2
	}
	c.Flag.String("simd", "", "force the SIMD `tier`: generic, avx2 or avx512")
	c.Flag.String("mem", "", memUsage)
	usage(c, env.Stdout)
	return 0
}
