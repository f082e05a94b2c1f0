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
//	hyperplane inspect MODEL   a text model's settings and heaviest terms per label
//	hyperplane gen OUT         synthetic data (text-like, or separable)
//	hyperplane experiment convergence|variants  the mistake bound measured; learning curves
//	hyperplane bench [-o R.json] | bench compare A.json B.json  the suite, across CPUs
//	hyperplane help [COMMAND]  help for a command
//
// The SIMD tier can be forced for any command with -simd or the
// HYPERPLANE_SIMD environment variable (generic, avx2, avx512), and the
// memory budget that input-sized allocations are checked against with -mem.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/hyperplane-ml/hyperplane/asm"
	"github.com/hyperplane-ml/hyperplane/engine"
	"github.com/hyperplane-ml/hyperplane/sparse"
	"github.com/hyperplane-ml/hyperplane/sparse/budget"
	"github.com/hyperplane-ml/hyperplane/sparse/text"
)

// command is one entry of the command table.
type command struct {
	name, args, short, long string
	flags                   func(fs *flag.FlagSet) func(args []string, stdout io.Writer) error
}

var commands []*command

func init() {
	commands = []*command{demoCmd, cpuCmd, versionCmd, statsCmd, trainCmd, evalCmd, convertCmd, predictCmd, inspectCmd, genCmd, experimentCmd, benchCmd}
}

// errUsage marks a misuse; main prints the command's usage and exits 2.
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// warnings is where commands write warnings: run's stderr.
var warnings io.Writer = os.Stderr

func run(args []string, stdout, stderr io.Writer) int {
	warnings = stderr
	if len(args) == 0 {
		args = []string{"demo"}
	}
	args = globalsAfterCommand(args)
	name := args[0]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		return help(args[1:], stdout, stderr)
	}
	var cmd *command
	for _, c := range commands {
		if c.name == name {
			cmd = c
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "hyperplane: unknown command %q\nRun 'hyperplane help' for the list.\n", name)
		return 2
	}
	fs := flag.NewFlagSet("hyperplane "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	simd := fs.String("simd", "", "force the SIMD `tier`: generic, avx2 or avx512")
	mem := fs.String("mem", "", memUsage)
	body := cmd.flags(fs)
	// A misuse gets the command's one-line usage and where to read more;
	// -h gets the whole help.
	fs.Usage = func() {
		if slices.ContainsFunc(args[1:], func(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "--h" }) {
			usage(cmd, fs, stderr)
			return
		}
		fmt.Fprintf(stderr, "usage: hyperplane %s [flags] %s\nRun 'hyperplane help %s' for its flags.\n", cmd.name, cmd.args, cmd.name)
	}
	pos, err := parseArgs(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *simd != "" {
		t, err := asm.ParseTier(*simd)
		if err == nil {
			// (Restored on return, for callers of run that go on.)
			defer asm.SetTier(asm.Active())
			err = asm.SetTier(t)
		}
		if err != nil {
			fmt.Fprintf(stderr, "hyperplane %s: -simd: %v\n", cmd.name, err)
			return 2
		}
	}
	if *mem != "" {
		n, err := budget.Parse(*mem)
		if err != nil {
			fmt.Fprintf(stderr, "hyperplane %s: -mem: %v\n", cmd.name, err)
			return 2
		}
		defer budget.Set(budget.Set(n))
	}
	// One context for the command, cancelled by the signals that ask a
	// process to stop: train saves the model so far, convert and gen
	// remove what they had started to write.
	c, stop := signal.NotifyContext(baseCtx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	defer func(old context.Context) { ctx = old }(ctx)
	ctx = c
	if err := body(pos, stdout); err != nil {
		if errors.Is(err, budget.ErrExceeded) {
			hint := memHint
			if cmd.name == "gen" {
				hint = "hint: ask for fewer -rows, a smaller -dim or -nnz, or raise the budget with -mem"
			}
			fmt.Fprintf(stderr, "hyperplane %s: %v\n%s\n", cmd.name, err, hint)
			return 1
		}
		if errors.Is(err, errUsage) || badOption(err) {
			fmt.Fprintf(stderr, "hyperplane %s: %s\n", cmd.name, strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
			fs.Usage()
			return 2
		}
		fmt.Fprintf(stderr, "hyperplane %s: %v\n", cmd.name, err)
		return 1
	}
	return 0
}

// memUsage documents -mem, which every command takes.
var memUsage = "the memory `budget` for allocations sized by the input, e.g. 4GiB (default: half of this machine's memory, " + budget.Format(budget.Default()) + ")"

// memHint follows an over-budget error: what a user can do about it.
const memHint = `hint: hash text into fewer buckets (-bits), cap the vocabulary (-vocab), train fewer classes,
      stream the data from a cache (convert to .hpc, then train -stream), or raise the budget with -mem`

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
	return errors.Is(err, engine.ErrConfig) || errors.Is(err, text.ErrConfig) || errors.Is(err, sparse.ErrBadOption)
}

func usage(c *command, fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, "usage: hyperplane %s [flags] %s\n\n%s\n\nflags:\n", c.name, c.args, c.long)
	fs.PrintDefaults()
}

func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stdout, "hyperplane trains and measures SIMD-accelerated perceptrons.\n\nusage: hyperplane <command> [flags] [arguments]\n\ncommands:")
		sort.Slice(commands, func(i, j int) bool { return commands[i].name < commands[j].name })
		for _, c := range commands {
			fmt.Fprintf(stdout, "  %-10s %s\n", c.name, c.short)
		}
		fmt.Fprintln(stdout, "\nWith no command, hyperplane runs demo. 'hyperplane help COMMAND' shows a command's flags.")
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			fs := flag.NewFlagSet("hyperplane "+c.name, flag.ContinueOnError)
			fs.SetOutput(stdout)
			fs.String("simd", "", "force the SIMD `tier`: generic, avx2 or avx512")
			fs.String("mem", "", memUsage)
			c.flags(fs)
			usage(c, fs, stdout)
			return 0
		}
	}
	fmt.Fprintf(stderr, "hyperplane help: unknown command %q\n", args[0])
	return 2
}
