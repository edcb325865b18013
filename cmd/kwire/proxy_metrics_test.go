package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/gen"
	"github.com/kwirelabs/kwire/messages"
)

// TestProxyMetrics: the exposition names each count with bounded labels:
// an API key nobody registered is "other" (whatever its version), a
// version outside the API's range is "other", an error code Kafka does
// not define is "other".
func TestProxyMetrics(t *testing.T) {
	m := newProxyMetrics(nil, 0)
	m.ConnOpened()
	m.ConnOpened()
	m.ConnClosed()
	m.Request(0, 9, 1000)
	m.Request(0, 9, 500)
	m.Request(0, 999, 10)
	m.Request(31000, 7, 20)
	m.Request(-1, -1, 30)
	m.Response(0, 9, 80, 1500*time.Microsecond, []int16{29, 29, 6})
	m.Response(0, 9, 80, 0, []int16{-20000})
	m.Undecodable(trafficlog.Request)
	m.LogDropped()
	m.LogLost(22)
	m.RequestTimedOut(0)
	m.LoginFailed("PLAIN")
	m.LoginFailed("X-VENDOR-TOKEN")
	m.LoginFailed("")
	m.TLSOnPlaintext()
	m.BrokerCapRefused()
	m.DialFailed()

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	text := string(body)
	for _, want := range []string{
		`kwire_proxy_requests_total{api="Produce",version="9"} 2`,
		`kwire_proxy_requests_total{api="Produce",version="other"} 1`,
		`kwire_proxy_requests_total{api="other",version=""} 2`,
		`kwire_proxy_request_bytes_total{api="Produce"} 1510`,
		`kwire_proxy_responses_total{api="Produce",version="9"} 2`,
		`kwire_proxy_response_bytes_total{api="Produce"} 160`,
		`kwire_proxy_response_errors_total{api="Produce",error="TOPIC_AUTHORIZATION_FAILED"} 2`,
		`kwire_proxy_response_errors_total{api="Produce",error="NOT_LEADER_OR_FOLLOWER"} 1`,
		`kwire_proxy_response_errors_total{api="Produce",error="other"} 1`,
		`kwire_proxy_request_latency_seconds_count{api="Produce"} 1`,
		`kwire_proxy_open_connections 1`,
		`kwire_proxy_connections_total 2`,
		`kwire_proxy_undecodable_frames_total{dir="request"} 1`,
		`kwire_proxy_log_lines_dropped_total 1`,
		`kwire_proxy_log_lines_lost_total 22`,
		`kwire_proxy_request_timeouts_total{api="Produce"} 1`,
		`kwire_proxy_sasl_login_failures_total{mechanism="PLAIN"} 1`,
		`kwire_proxy_sasl_login_failures_total{mechanism="other"} 1`,
		`kwire_proxy_sasl_login_failures_total{mechanism="none"} 1`,
		`kwire_proxy_tls_on_plaintext_total 1`,
		`kwire_proxy_broker_cap_refusals_total 1`,
		`kwire_proxy_upstream_dial_failures_total 1`,
	} {
		assert.Contains(t, text, want+"\n")
	}
	assert.False(t, strings.Contains(text, "31000"), "an unregistered key is not a label value")
}

// TestProxyMetricsClientIDs (issue 27, case 10): client ids are a label
// only when asked for, and then those of the most frequent printable ids
// of the last window: five NUL-byte ids a fuzzer sent first get none,
// and of 50 real clients the five busiest get theirs; a client that goes
// quiet loses its series at the next window.
func TestProxyMetricsClientIDs(t *testing.T) {
	scrape := func(m *proxyMetrics) string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	off := newProxyMetrics(nil, 0)
	off.ClientRequest([]byte("kgo"))
	assert.NotContains(t, scrape(off), "client_id")

	m := newProxyMetrics(nil, 5)
	clock := time.Unix(1000, 0)
	m.clientIDs = newTopClientIDs(m.clientIDs.vec, 5, time.Minute, func() time.Time { return clock })
	for i := range 5 {
		m.ClientRequest(bytes.Repeat([]byte{0}, i+1))
	}
	m.ClientRequest([]byte(strings.Repeat("x", 200)))
	m.ClientRequest([]byte("\xff\xfe"))
	for i := range 50 {
		for range 10 + i {
			m.ClientRequest(fmt.Appendf(nil, "client-%d", i))
		}
	}
	assert.NotContains(t, scrape(m), `client_id="client-`, "no label before a window has ended")
	clock = clock.Add(time.Minute)
	for i := range 50 {
		m.ClientRequest(fmt.Appendf(nil, "client-%d", i))
	}
	text := scrape(m)
	for i := 45; i < 50; i++ {
		assert.Contains(t, text, fmt.Sprintf(`kwire_proxy_client_requests_total{client_id="client-%d"} 1`, i)+"\n")
	}
	assert.Equal(t, 6, strings.Count(text, "kwire_proxy_client_requests_total{"), "five ids and other:\n%s", text)
	assert.NotContains(t, text, `\x00`)

	// the next window: only client-3 is busy
	for range 100 {
		m.ClientRequest([]byte("client-3"))
	}
	clock = clock.Add(time.Minute)
	m.ClientRequest([]byte("client-3"))
	text = scrape(m)
	assert.Contains(t, text, `kwire_proxy_client_requests_total{client_id="client-3"} 1`+"\n")
	assert.NotContains(t, text, `client_id="client-49"`, "a client out of the top keeps no series")
}

// TestProxyMetricsSchemaAPI: the registry's
// own APIs (from -schemas) name their api label.
func TestProxyMetricsSchemaAPI(t *testing.T) {
	reg := messages.NewRegistry()
	apis, err := gen.LoadAPIs(vendorSchemas)
	require.NoError(t, err)
	for _, a := range apis {
		require.NoError(t, reg.Register(a))
	}
	m := newProxyMetrics(reg, 0)
	m.Request(10000, 2, 40)
	text := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}()
	assert.Contains(t, text, `kwire_proxy_requests_total{api="VendorPing",version="2"} 1`+"\n")
}
