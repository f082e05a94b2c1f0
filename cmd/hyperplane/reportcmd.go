package main

import (
	"context"
	"io"
)

// report is a command that takes no arguments and prints what get
// returns: as JSON with -json, else as text (cpu, version).
type report[T any] struct {
	name string
	json bool
	get  func() T
	text func(io.Writer, T)
}

// newReport makes c a report command that prints what get returns, with
// text when it is not to be JSON.
func newReport[T any](c *Command, get func() T, text func(io.Writer, T)) *Command {
	r := &report[T]{name: c.Name(), get: get, text: text}
	c.Run = r.run
	c.Flag.BoolVar(&r.json, "json", false, "print the report as JSON")
	return c
}

// run prints the report.
func (r *report[T]) run(ctx context.Context, env *Env, args []string) error {
	if len(args) > 0 {
		return usageError("%s takes no arguments", r.name)
	}
	v := r.get()
	if r.json {
		return printJSON(env.Stdout, v)
	}
	r.text(env.Stdout, v)
	return nil
}
