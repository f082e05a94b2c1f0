package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hyperplane-ml/hyperplane/internal/iox"
)

// progressEvery is how often a meter rewrites its line; clock is its
// time. Tests set them (an interval of 0 shows every step) rather than
// measure real time.
var (
	progressEvery = time.Second
	progressClock = time.Now
)

// progressFlag adds -progress to fs: show progress on standard error even
// when it is not a terminal.
func progressFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("progress", false, "show progress (amount done, rate, ETA) on standard error, also when it is not a terminal")
}

// meter shows how far a long step is on one line of standard error,
// rewritten at most every progressEvery: the amount done, its rate and,
// when the total is known, the percentage and an ETA. A nil meter shows
// nothing, so callers need not check.
type meter struct {
	w           io.Writer
	what, unit  string
	total, done int64 // total 0: unknown (standard input)
	start, last time.Time
	open        bool
}

// newMeter returns the meter of a step called what, counted in unit
// (bytes are shown in MB), out of total (0: unknown), on env's standard
// error when force (-progress) or when it is a terminal; else nil.
func newMeter(env *Env, force bool, what, unit string, total int64) *meter {
	if !force && !iox.IsTerminal(env.Stderr) {
		return nil
	}
	now := progressClock()
	return &meter{w: env.Stderr, what: what, unit: unit, total: total, start: now, last: now}
}

// count adds the n bytes a read or write moved, and returns its n and
// err.
func (m *meter) count(n int, err error) (int, error) {
	m.add(int64(n))
	return n, err
}

// add counts n more done and rewrites the line when it is due.
func (m *meter) add(n int64) {
	if m == nil {
		return
	}
	m.done += n
	now := progressClock()
	if now.Sub(m.last) < progressEvery {
		return
	}
	m.last = now
	m.show(now)
}

func (m *meter) show(now time.Time) {
	secs := max(now.Sub(m.start).Seconds(), 1e-9)
	rate := float64(m.done) / secs
	line := fmt.Sprintf("\r%s: %s, %s/s", m.what, m.amount(float64(m.done)), m.amount(rate))
	if m.total > 0 {
		line += fmt.Sprintf(", %.0f%%", 100*float64(m.done)/float64(m.total))
		if rate > 0 && m.done < m.total {
			eta := time.Duration(float64(m.total-m.done) / rate * float64(time.Second))
			line += ", ETA " + eta.Round(time.Second).String()
		}
	}
	fmt.Fprint(m.w, line+"   ")
	m.open = true
}

func (m *meter) amount(v float64) string {
	if m.unit == "bytes" {
		return fmt.Sprintf("%.1f MB", v/1e6)
	}
	return commas(int64(v+0.5)) + " " + m.unit
}

// end shows the final count and ends the line, so that what follows
// starts on a line of its own.
func (m *meter) end() {
	if m == nil || !m.open {
		return
	}
	m.show(progressClock())
	fmt.Fprintln(m.w)
	m.open = false
}

// meterReader counts the bytes read through it on its meter.
type meterReader struct {
	r io.Reader
	m *meter
}

func (r meterReader) Read(p []byte) (int, error) { return r.m.count(r.r.Read(p)) }

// fileSize is the size of the regular file at path, for an ETA; 0 when
// unknown (standard input, a pipe).
func fileSize(path string) int64 {
	if path == "-" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// meterWriter counts the bytes written through it on its meter.
type meterWriter struct {
	w io.Writer
	m *meter
}

func (w meterWriter) Write(p []byte) (int, error) { return w.m.count(w.w.Write(p)) }
