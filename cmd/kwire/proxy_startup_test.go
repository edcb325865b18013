package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/app/testbroker"
)

// TestProxyLogFIFOWithoutReader (issue 27, case 1): a -log FIFO nobody
// reads is an error at start, not a start-up that hangs (open(2) of a
// FIFO blocks for a reader).
func TestProxyLogFIFOWithoutReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "log.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan error, 1)
	go func() {
		done <- runProxy([]string{"-listen", "127.0.0.1:0", "-upstream", "127.0.0.1:1", "-log", fifo}, &bytes.Buffer{})
	}()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.Contains(t, err.Error(), "a FIFO with no reader")
	case <-time.After(20 * time.Second):
		t.Fatal("start-up hung on the log FIFO")
	}
}

// TestProxyLogFIFOWithReader: with a reader, a FIFO log works.
func TestProxyLogFIFOWithReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "log.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	r, err := syscall.Open(fifo, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	require.NoError(t, err)
	defer syscall.Close(r)
	f, err := openOutput("-log", fifo)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Write([]byte("line\n"))
	require.NoError(t, err)
	buf := make([]byte, 16)
	n, err := syscall.Read(r, buf)
	require.NoError(t, err)
	assert.Equal(t, "line\n", string(buf[:n]))
}

// TestHealthEndpoints (issue 27, case 7): /healthz answers while the
// process serves; /readyz only once the Kafka listener accepts and the
// upstream answers ApiVersions, and says why not otherwise.
func TestHealthEndpoints(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	testbroker.Serve(t, ln, testbroker.Empty)
	p := proxy.New(proxy.Config{Upstream: ln.Addr().String()})
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	mux := http.NewServeMux()
	healthHandlers(mux, p.Readiness(ctx, 20*time.Millisecond))
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		b, _ := io.ReadAll(rec.Body)
		return rec.Code, string(b)
	}
	code, _ := get("/healthz")
	assert.Equal(t, http.StatusOK, code)
	code, body := get("/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Contains(t, body, "the Kafka listener is not open yet")

	pl, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	served := make(chan error, 1)
	go func() { served <- p.ServeListener(ctx, pl) }()
	deadline := time.Now().Add(20 * time.Second)
	for code != http.StatusOK && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		code, body = get("/readyz")
	}
	assert.Equal(t, http.StatusOK, code, body)
	stop()
	select {
	case err := <-served:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return")
	}
}
