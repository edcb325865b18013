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
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
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

// TestConformExitStatusZero: kwire conform ends with status 0 (a nil
// error) when everything that ran conforms: a broker that offers only
// ApiVersions v0-3, answers each as Kafka does and an ApiVersions above
// v3 with KIP-511's v0 answer; with no Metadata offered, the robustness
// checks are skipped.
func TestConformExitStatusZero(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	only := kwire.APIVersionRange{APIKey: 18, MinVersion: 0, MaxVersion: 3}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveApiVersionsOnly(c, only)
		}
	}()
	var out bytes.Buffer
	err = run([]string{"conform", "-b", ln.Addr().String(), "-seed", "3", "-n", "2", "-timeout", "5s"}, &out)
	require.NoError(t, err, out.String())
	assert.Contains(t, out.String(), " 0 failed")
	assert.Regexp(t, `ApiVersions +18 +3 +pass`, out.String())

	// Every robustness check is reported skipped, with the reason.
	out.Reset()
	require.NoError(t, run([]string{"conform", "-b", ln.Addr().String(), "-seed", "3", "-n", "2", "-timeout", "5s", "-json"}, &out))
	skipped := 0
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasPrefix(l, `{"api":"broker","key":-1,"version":-1,`) {
			assert.Contains(t, l, `"verdict":"skip","detail":"the broker offers no Metadata`)
			skipped++
		}
	}
	assert.Equal(t, 7, skipped, out.String())
}

// serveApiVersionsOnly answers c's ApiVersions requests, and closes c on
// any other request.
func serveApiVersionsOnly(c net.Conn, only kwire.APIVersionRange) {
	defer c.Close()
	frames := kwire.NewFrameReader(c, 0)
	for {
		f, err := frames.Next()
		if err != nil {
			return
		}
		key, version, corr, err := kwire.PeekRequest(f)
		if err != nil || key != only.APIKey {
			return
		}
		var out []byte
		if version > only.MaxVersion {
			out = kwire.AppendUnsupportedAPIVersions(nil, corr, only)
		} else {
			h, _, err := messages.ReadRequest(f)
			if err != nil {
				return
			}
			resp := messages.NewApiVersionsResponse()
			resp.ApiKeys = []messages.ApiVersionsResponseApiVersion{{ApiKey: only.APIKey, MinVersion: only.MinVersion, MaxVersion: only.MaxVersion}}
			if out, err = kwire.AppendResponse(nil, resp, h.APIVersion, h.CorrelationID); err != nil {
				return
			}
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}
