package proxytest

import (
	"bytes"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/interop/internal/proctest"
	"github.com/kwirelabs/kwire/interop/realclient"
)

// TestExampleProxy runs examples/kafkaproxy, the 30-odd-line library
// example, between kcat and the realclient broker: kcat's metadata
// request and its answer are printed decoded, ApiVersions clamped.
func TestExampleProxy(t *testing.T) {
	kcat := lookKcat(t)
	bin := filepath.Join(t.TempDir(), "kafkaproxy")
	build := proctest.Command(t, buildTimeout, "go", "build", "-o", bin, "github.com/kwirelabs/kwire/examples/kafkaproxy")
	build.Dir = "../.." // the main module, whose go.sum covers the tool's dependencies
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	b, err := realclient.Start(1, nil)
	require.NoError(t, err)
	defer b.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port for the example
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close()
	cmd := proctest.Command(t, time.Minute, bin, addr, b.Addr())
	var logged bytes.Buffer
	cmd.Stderr = &logged
	require.NoError(t, cmd.Start())
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		require.True(t, time.Now().Before(deadline), "the example does not listen: %v", err)
	}
	run(t, "", kcat, "-L", "-b", addr, "-t", "example")
	cmd.Process.Kill()
	cmd.Wait()
	text := logged.String()
	t.Logf("the example printed:\n%s", text)
	require.Contains(t, text, "ApiVersionsResponse v")
	require.Contains(t, text, "MetadataRequest v")
	require.Contains(t, text, "MetadataResponse v")
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		require.True(t, strings.HasSuffix(line, "<nil>"), "an error: %s", line)
	}
}
