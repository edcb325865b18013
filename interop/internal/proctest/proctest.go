// Package proctest runs a process for a test and reads what it writes
// without losing the end of it and without waiting for ever.
//
// The output goes to an Output given to exec.Cmd as Stdout or Stderr, an
// io.Writer rather than a pipe the test reads itself: exec copies the
// pipe into it, and Cmd.Wait returns only once that copy has reached the
// end, so after Wait every byte is there. (A test reading StderrPipe must
// finish reading before it calls Wait, which closes the pipe under the
// reader and loses what was not read yet.)
package proctest

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Output is what a process writes, as it arrives.
type Output struct {
	mu     sync.Mutex
	b      bytes.Buffer
	grew   chan struct{} // closed, and replaced, at each write
	onLine func(string)
	done   int // bytes of b handed to onLine
}

// NewOutput returns an empty Output. onLine, if not nil, is called with
// each complete line (without its newline) as it arrives, from the
// goroutine that writes.
func NewOutput(onLine func(line string)) *Output {
	return &Output{grew: make(chan struct{}), onLine: onLine}
}

func (o *Output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.b.Write(b)
	close(o.grew)
	o.grew = make(chan struct{})
	if o.onLine != nil {
		for {
			rest := o.b.Bytes()[o.done:]
			i := bytes.IndexByte(rest, '\n')
			if i < 0 {
				break
			}
			o.onLine(string(rest[:i]))
			o.done += i + 1
		}
	}
	return len(b), nil
}

// String returns everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// Await returns re's leftmost match and its groups in the complete lines
// written so far, waiting for more lines until exited is closed (then
// the whole output is searched once more) or d has passed. It returns nil
// if nothing matched.
func (o *Output) Await(re *regexp.Regexp, exited <-chan struct{}, d time.Duration) []string {
	var m []string
	o.Until(func(text string) bool {
		m = re.FindStringSubmatch(text)
		return m != nil
	}, exited, d)
	return m
}

// Until calls done with the complete lines written so far, each time
// more arrive, until it returns true, exited is closed (then done is
// called once more with the whole output) or d has passed; it returns
// done's last answer.
func (o *Output) Until(done func(text string) bool, exited <-chan struct{}, d time.Duration) bool {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	for {
		o.mu.Lock()
		text, grew := o.b.String(), o.grew
		o.mu.Unlock()
		if done(text[:strings.LastIndexByte(text, '\n')+1]) {
			return true
		}
		select {
		case <-grew:
		case <-exited:
			return done(o.String())
		case <-timeout.C:
			return false
		}
	}
}

// Command is exec.Command with a deadline: the process is killed if it
// runs for over d or when the test ends, and Wait gives up on its output
// 5 seconds after that.
func Command(t testing.TB, d time.Duration, name string, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// Proc is a started process whose Wait runs in the background.
type Proc struct {
	Cmd    *exec.Cmd
	exited chan struct{}
	err    error
}

// ErrTimeout is Stop's and Wait's answer when the process did not exit in
// time (it is killed then).
var ErrTimeout = errors.New("the process did not exit in time; killed")

// Start starts cmd. Unless cmd says otherwise, Wait gives up on output
// still held open (by a child, say) 10 seconds after the process exits.
func Start(cmd *exec.Cmd) (*Proc, error) {
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 10 * time.Second
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Proc{Cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// Exited is closed once the process has exited and its output is all
// copied.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Wait waits up to d for the process to exit and returns its exit error.
// After d it kills the process, waits for that, and returns ErrTimeout.
func (p *Proc) Wait(d time.Duration) error {
	timeout := time.NewTimer(d)
	defer timeout.Stop()
	select {
	case <-p.exited:
		return p.err
	case <-timeout.C:
		p.Cmd.Process.Kill()
		<-p.exited
		return ErrTimeout
	}
}

// Kill kills the process if it is still running and waits until it has
// exited.
func (p *Proc) Kill() {
	p.Cmd.Process.Kill()
	<-p.exited
}
