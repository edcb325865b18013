package proxytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var kwireBin string // built once by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kwire-proxytest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	kwireBin = filepath.Join(dir, "kwire")
	build := exec.Command("go", "build", "-o", kwireBin, "github.com/kwirelabs/kwire/cmd/kwire")
	build.Dir = "../.." // the main module, whose go.sum covers the tool's dependencies
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building kwire:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runningProxy is a `kwire proxy -json` subprocess.
type runningProxy struct {
	Addr    string // the bootstrap listener
	cmd     *exec.Cmd
	logPath string
	stderr  *output
	exited  chan struct{} // closed once the process has exited and all its stderr is read
	exitErr error         // Wait's answer, set before exited is closed
}

var listening = regexp.MustCompile(`(?m)^kwire proxy: (\S+) -> (\S+)$`)

// startProxy runs the proxy in front of upstream; it is stopped with
// SIGINT at the end of the test (or by Stop).
func startProxy(t *testing.T, upstream string, extra ...string) *runningProxy {
	t.Helper()
	p := &runningProxy{logPath: filepath.Join(t.TempDir(), "proxy.log"), stderr: newOutput(), exited: make(chan struct{})}
	args := append([]string{"proxy", "-listen", "127.0.0.1:0", "-upstream", upstream, "-json", "-log", p.logPath}, extra...)
	p.cmd = exec.Command(kwireBin, args...)
	// Not a pipe the test reads: exec copies stderr into p.stderr and Wait
	// returns only once that copy has reached EOF, so no line is lost to
	// Wait closing the pipe under a reader.
	p.cmd.Stderr = p.stderr
	p.cmd.WaitDelay = 10 * time.Second // bounds Wait if something else holds stderr open
	require.NoError(t, p.cmd.Start())
	go func() {
		p.exitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	m := p.stderr.await(listening, p.exited, 30*time.Second)
	if m == nil {
		t.Fatalf("the proxy did not say where it listens; stderr:\n%s", p.Stderr())
	}
	p.Addr = m[1]
	return p
}

// Stop sends SIGINT, requires a clean exit and returns the log.
func (p *runningProxy) Stop(t *testing.T) []logLine {
	t.Helper()
	raw := p.StopRaw(t)
	var lines []logLine
	for _, b := range bytes.SplitAfter(raw, []byte("\n")) {
		if len(b) == 0 {
			break
		}
		require.True(t, bytes.HasSuffix(b, []byte("\n")), "the log ends in a cut line")
		var l logLine
		require.NoError(t, json.Unmarshal(b, &l), "log line %s", b)
		l.raw = b
		lines = append(lines, l)
	}
	return lines
}

// StopRaw sends SIGINT, requires a clean exit and returns the log's
// bytes.
func (p *runningProxy) StopRaw(t *testing.T) []byte {
	t.Helper()
	require.NoError(t, p.Interrupt(t), "proxy exit; stderr:\n%s", p.Stderr())
	raw, err := os.ReadFile(p.logPath)
	require.NoError(t, err)
	return raw
}

// Interrupt sends SIGINT and returns the exit status once the process has
// exited and its stderr is all in Stderr; it fails the test if that takes
// over 30 seconds.
func (p *runningProxy) Interrupt(t *testing.T) error {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	select {
	case <-p.exited:
		return p.exitErr
	case <-time.After(30 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("the proxy did not stop on SIGINT; stderr:\n%s", p.Stderr())
		return nil
	}
}

func (p *runningProxy) Stderr() string { return p.stderr.String() }

// output is what a process writes, as it arrives.
type output struct {
	mu   sync.Mutex
	b    bytes.Buffer
	grew chan struct{} // closed, and replaced, at each write
}

func newOutput() *output { return &output{grew: make(chan struct{})} }

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.b.Write(b)
	close(o.grew)
	o.grew = make(chan struct{})
	return len(b), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// await returns re's first match (with its groups) in the complete lines
// written so far, waiting for one to be written until exited is closed or
// d has passed; nil if none came.
func (o *output) await(re *regexp.Regexp, exited <-chan struct{}, d time.Duration) []string {
	deadline := time.After(d)
	for {
		o.mu.Lock()
		text, grew := o.b.String(), o.grew
		o.mu.Unlock()
		if i := strings.LastIndexByte(text, '\n'); i >= 0 {
			if m := re.FindStringSubmatch(text[:i+1]); m != nil {
				return m
			}
		}
		select {
		case <-grew:
		case <-exited:
			if m := re.FindStringSubmatch(o.String()); m != nil {
				return m
			}
			return nil
		case <-deadline:
			return nil
		}
	}
}

// Listeners are the local addresses the proxy opened, one per upstream
// broker, from what it printed.
func (p *runningProxy) Listeners() map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(p.Stderr(), "\n") {
		if m := listening.FindStringSubmatch(line); m != nil {
			out[m[2]] = m[1]
		}
	}
	return out
}

// logLine is one line of `kwire proxy -json`.
type logLine struct {
	Time          string          `json:"time"`
	Conn          int             `json:"conn"`
	Dir           string          `json:"dir"`
	API           string          `json:"api"`
	Key           *int16          `json:"key"`
	Version       *int16          `json:"version"`
	CorrelationID *int32          `json:"correlation_id"`
	ClientID      *string         `json:"client_id"`
	LatencyMs     *float64        `json:"latency_ms"`
	Undecodable   string          `json:"undecodable"`
	Note          string          `json:"note"`
	Principal     string          `json:"principal"`
	Body          json.RawMessage `json:"body"`
	raw           []byte
}

// checkLog requires that every line decoded, that every request that
// expects a response got one (paired by connection and correlation id,
// same API and version) and that every response answers a logged request.
// It returns the count of requests by API name (and of raw SASL tokens
// each way).
func checkLog(t *testing.T, lines []logLine) map[string]int {
	t.Helper()
	type id struct {
		conn int
		corr int32
	}
	pending := map[id]logLine{}
	byAPI := map[string]int{}
	for _, l := range lines {
		if strings.HasPrefix(l.Note, "raw SASL token") { // not a Kafka message
			byAPI[l.Dir+": raw SASL token"]++
			continue
		}
		if l.Dir == "open" {
			require.Regexp(t, `^from 127\.0\.0\.1:\d+ to \S+`, l.Note, "%s", l.raw)
			byAPI["open"]++
			continue
		}
		require.Empty(t, l.Undecodable, "undecodable: %s", l.raw)
		require.Contains(t, []string{"request", "response"}, l.Dir, "%s", l.raw)
		require.NotNil(t, l.Key, "%s", l.raw)
		require.NotNil(t, l.CorrelationID, "%s", l.raw)
		require.NotEmpty(t, l.Body, "no body: %s", l.raw)
		k := id{l.Conn, *l.CorrelationID}
		switch l.Dir {
		case "request":
			byAPI[l.API]++
			if strings.HasPrefix(l.Note, "no response expected") {
				continue
			}
			_, dup := pending[k]
			require.False(t, dup, "correlation id reused in flight: %s", l.raw)
			pending[k] = l
		case "response":
			req, ok := pending[k]
			require.True(t, ok, "a response to no request: %s", l.raw)
			require.Equal(t, req.API, l.API, "%s", l.raw)
			require.Equal(t, *req.Version, *l.Version, "%s", l.raw)
			require.NotNil(t, l.LatencyMs, "%s", l.raw)
			delete(pending, k)
		}
	}
	// Requests the client had in flight when it closed the connection
	// may go unanswered (librdkafka closes with a metadata refresh or a
	// long-polling Fetch out). Kafka answers a connection in order, so
	// an unanswered request must be followed by no response on its
	// connection: anything else is a response the proxy lost.
	lastResponse := map[int]int{} // connection -> index of its last response line
	for i, l := range lines {
		if l.Dir == "response" {
			lastResponse[l.Conn] = i
		}
	}
	for i, l := range lines {
		if l.Dir != "request" || l.CorrelationID == nil {
			continue
		}
		if open, ok := pending[id{l.Conn, *l.CorrelationID}]; ok && string(open.raw) == string(l.raw) {
			last, answered := lastResponse[l.Conn]
			require.False(t, answered && last > i, "a request without a response, though later ones on its connection were answered: %s", l.raw)
		}
	}
	return byAPI
}

func withTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
