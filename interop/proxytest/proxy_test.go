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
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/interop/internal/proctest"
)

var kwireBin string // built once by TestMain

// buildTimeout bounds a go build: generous, for a fresh clone's empty
// build cache on a loaded machine.
const buildTimeout = 15 * time.Minute

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kwire-proxytest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	kwireBin = filepath.Join(dir, "kwire")
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	build := exec.CommandContext(ctx, "go", "build", "-o", kwireBin, "github.com/kwirelabs/kwire/cmd/kwire")
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
	proc    *proctest.Proc
	logPath string
	stderr  *proctest.Output
}

var listening = regexp.MustCompile(`(?m)^kwire proxy: (\S+) -> (\S+)$`)

// startProxy runs the proxy in front of upstream; it is stopped with
// SIGINT at the end of the test (or by Stop).
func startProxy(t *testing.T, upstream string, extra ...string) *runningProxy {
	t.Helper()
	p := &runningProxy{logPath: filepath.Join(t.TempDir(), "proxy.log"), stderr: proctest.NewOutput(nil)}
	args := append([]string{"proxy", "-listen", "127.0.0.1:0", "-upstream", upstream, "-json", "-log", p.logPath}, extra...)
	p.cmd = exec.Command(kwireBin, args...)
	p.cmd.Stderr = p.stderr
	var err error
	p.proc, err = proctest.Start(p.cmd)
	require.NoError(t, err)
	t.Cleanup(p.proc.Kill)
	m := p.stderr.Await(listening, p.proc.Exited(), 30*time.Second)
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
	err := p.proc.Wait(30 * time.Second)
	require.NotErrorIs(t, err, proctest.ErrTimeout, "the proxy did not stop on SIGINT; stderr:\n%s", p.Stderr())
	return err
}

// Stderr is what the proxy has written to stderr so far (all of it once
// it has exited).
func (p *runningProxy) Stderr() string { return p.stderr.String() }

// Listeners are the local addresses the proxy opened, one per upstream
// broker, from what it printed.
func (p *runningProxy) Listeners() map[string]string { return listenersIn(p.Stderr()) }

// AwaitListeners returns the proxy's listeners once it has printed n of
// them: a listener's line is written before the answer that names it
// reaches the client, but may not be read from the pipe yet when the
// client has it. It fails the test if n do not come within 30 seconds.
func (p *runningProxy) AwaitListeners(t *testing.T, n int) map[string]string {
	t.Helper()
	var out map[string]string
	p.stderr.Until(func(text string) bool {
		out = listenersIn(text)
		return len(out) >= n
	}, p.proc.Exited(), 30*time.Second)
	require.Len(t, out, n, "the proxy's listeners; stderr:\n%s", p.Stderr())
	return out
}

func listenersIn(stderr string) map[string]string {
	out := map[string]string{}
	for _, m := range listening.FindAllStringSubmatch(stderr, -1) {
		out[m[2]] = m[1]
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
