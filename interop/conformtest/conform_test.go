package conformtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/interop/internal/proctest"
)

var kwireBin, kfakeBin string // built once by TestMain

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kwire-conformtest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	kwireBin, kfakeBin = filepath.Join(dir, "kwire"), filepath.Join(dir, "kfakebroker")
	for _, b := range []struct{ out, pkg, dir string }{
		{kwireBin, "github.com/kwirelabs/kwire/cmd/kwire", "../.."},
		{kfakeBin, "./kfakebroker", "."},
	} {
		// Generous: a fresh clone's build cache is empty.
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		build := exec.CommandContext(ctx, "go", "build", "-o", b.out, b.pkg)
		build.Dir = b.dir
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		err := build.Run()
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "building", b.pkg+":", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// startKfake runs kfakebroker and returns its address; it stops when the
// test ends (its standard input closes).
func startKfake(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(kfakeBin)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr := proctest.NewOutput(nil) // read while kfakebroker may still write it
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("kfakebroker's stderr:\n%s", stderr.String())
		}
	})
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		addr <- strings.TrimSpace(line)
		io.Copy(io.Discard, stdout)
	}()
	select {
	case a := <-addr:
		require.NotEmpty(t, a, "kfakebroker printed no address: %s", stderr.String())
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("kfakebroker did not start within 30s")
	}
	return ""
}

// conformLine is one line of `kwire conform -json`.
type conformLine struct {
	API      string          `json:"api"`
	Key      *int16          `json:"key"`
	Version  *int16          `json:"version"`
	Check    string          `json:"check"`
	Verdict  string          `json:"verdict"`
	Detail   string          `json:"detail"`
	Request  json.RawMessage `json:"request"`
	Response string          `json:"response"`
	Seed     int64           `json:"seed"`
}

// runConform runs `kwire conform -json ARGS` against addr with a
// deadline and returns its lines and exit status.
func runConform(t *testing.T, addr string, args ...string) ([]conformLine, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, kwireBin, append([]string{"conform", "-b", addr, "-json"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, ctx.Err(), "kwire conform took over 2 minutes")
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	var lines []conformLine
	for _, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var cl conformLine
		require.NoError(t, json.Unmarshal(l, &cl), "%s", l)
		require.NotNil(t, cl.Key, "%s", l)
		require.NotNil(t, cl.Version, "%s", l)
		require.NotEmpty(t, cl.Check, "%s", l)
		lines = append(lines, cl)
	}
	return lines, code
}

func findings(lines []conformLine) []string {
	var out []string
	for _, l := range lines {
		if l.Verdict == "fail" {
			out = append(out, fmt.Sprintf("%s v%d %s", l.API, *l.Version, l.Check))
		}
	}
	slices.Sort(out)
	return out
}

var comment = regexp.MustCompile(`#.*`)

// knownDepartures reads testdata/kfake-departures.txt.
func knownDepartures(t *testing.T) []string {
	b, err := os.ReadFile("testdata/kfake-departures.txt")
	require.NoError(t, err)
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(comment.ReplaceAllString(l, "")); l != "" {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// TestKfakeDepartures: kwire conform against kfake finds exactly the
// known departures, exits 1 for them, and checks every API kfake offers
// (all but the destructive ones) at every version both sides speak.
func TestKfakeDepartures(t *testing.T) {
	addr := startKfake(t)
	lines, code := runConform(t, addr, "-seed", "1", "-n", "8")
	got, want := findings(lines), knownDepartures(t)
	missing, extra := diff(want, got), diff(got, want)
	assert.Empty(t, extra, "departures kwire conform finds in kfake that testdata/kfake-departures.txt does not list")
	assert.Empty(t, missing, "departures testdata/kfake-departures.txt lists that kwire conform no longer finds")
	for _, l := range lines {
		if l.Verdict == "fail" && slices.Contains(extra, fmt.Sprintf("%s v%d %s", l.API, *l.Version, l.Check)) {
			t.Logf("%s v%d %s: %s\n  request: %s\n  response: %s", l.API, *l.Version, l.Check, l.Detail, l.Request, l.Response)
		}
	}
	assert.Equal(t, 1, code, "exit status with departures")
	checked := map[string]bool{}
	for _, l := range lines {
		assert.Equal(t, int64(1), l.Seed)
		if l.Verdict == "pass" && *l.Version >= 0 {
			checked[l.API] = true
		}
	}
	for _, api := range []string{"Produce", "Fetch", "ListOffsets", "Metadata", "OffsetCommit", "OffsetFetch", "FindCoordinator",
		"JoinGroup", "ApiVersions", "CreateTopics", "DeleteTopics", "InitProducerId", "DescribeConfigs", "DescribeCluster"} {
		assert.True(t, checked[api], "%s was checked", api)
	}
}

// diff is what a has that b has not.
func diff(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// startProxy runs `kwire proxy` in front of upstream and returns the
// address clients dial; it stops when the test ends.
func startProxy(t *testing.T, upstream string) string {
	t.Helper()
	cmd := exec.Command(kwireBin, "proxy", "-listen", "127.0.0.1:0", "-upstream", upstream, "-log", "off")
	stderr, err := cmd.StderrPipe() // where it says where it listens
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stderr).ReadString('\n')
		// "kwire proxy: LISTEN -> UPSTREAM"
		f := strings.Fields(line)
		if len(f) >= 3 {
			addr <- f[2]
		} else {
			addr <- ""
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case a := <-addr:
		require.NotEmpty(t, a, "kwire proxy printed no address")
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("kwire proxy did not start within 30s")
	}
	return ""
}

// TestKfakeBehindProxy: through `kwire proxy`, kfake's departures are
// the same but one: the proxy closes a connection whose size prefix
// passes its -max-frame (100 MiB), so kfake never waits for the bytes;
// it relays the unknown key, which still ends kfake.
func TestKfakeBehindProxy(t *testing.T) {
	proxy := startProxy(t, startKfake(t))
	lines, code := runConform(t, proxy, "-seed", "1", "-n", "8")
	want := diff(knownDepartures(t), []string{"broker v-1 size-beyond-limit"})
	assert.Equal(t, want, findings(lines))
	assert.Equal(t, 1, code)
	for _, l := range lines {
		if l.Check == "size-beyond-limit" {
			assert.Equal(t, "pass", l.Verdict, l.Detail)
			assert.Contains(t, l.Detail, "closed the connection")
		}
	}
}
