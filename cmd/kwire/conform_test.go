package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/testbroker"
)

// TestConformExitStatus: kwire conform ends with status 2 when nothing
// listens, 1 (with the report written, -json and -html alike) when a
// check fails: testbroker.Empty's ApiVersions lists no API at all.
func TestConformExitStatus(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := ln.Addr().String()
	ln.Close()
	var out bytes.Buffer
	err = run([]string{"conform", "-b", closed, "-timeout", "2s"}, &out)
	var ee *exitError
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, 2, ee.code)

	ln, err = net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	testbroker.Serve(t, ln, testbroker.Empty)
	page := filepath.Join(t.TempDir(), "report.html")
	out.Reset()
	err = run([]string{"conform", "-b", ln.Addr().String(), "-seed", "3", "-n", "1", "-timeout", "2s", "-json", "-html", page}, &out)
	require.True(t, errors.As(err, &ee), "%v", err)
	assert.Equal(t, 1, ee.code)
	assert.Contains(t, out.String(), `"check":"kip-511","verdict":"fail"`)
	assert.Contains(t, out.String(), `"seed":3`)
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		assert.True(t, strings.HasPrefix(l, `{"api":`), l)
	}
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	assert.Contains(t, string(html), "<h1>kwire conform</h1>")
	assert.Contains(t, string(html), "kip-511")
}
