package main

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/trafficlog"
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
	} {
		assert.Contains(t, text, want+"\n")
	}
	assert.False(t, strings.Contains(text, "31000"), "an unregistered key is not a label value")
}

// TestProxyMetricsClientIDs: client ids are a label only when asked for,
// for the first N distinct ids; later ids, over-long ones and ones that
// are not UTF-8 count as "other".
func TestProxyMetricsClientIDs(t *testing.T) {
	scrape := func(m *proxyMetrics) string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	off := newProxyMetrics(nil, 0)
	off.ClientRequest([]byte("kgo"))
	assert.NotContains(t, scrape(off), "client_id")

	m := newProxyMetrics(nil, 2)
	for _, id := range []string{"kgo", "rdkafka", "kgo", "sarama", "kgo", strings.Repeat("x", 200), "\xff\xfe"} {
		m.ClientRequest([]byte(id))
	}
	m.ClientRequest(nil)
	text := scrape(m)
	for _, want := range []string{
		`kwire_proxy_client_requests_total{client_id="kgo"} 3`,
		`kwire_proxy_client_requests_total{client_id="rdkafka"} 1`,
		`kwire_proxy_client_requests_total{client_id="other"} 4`,
	} {
		assert.Contains(t, text, want+"\n")
	}
	assert.NotContains(t, text, "sarama")
	assert.Equal(t, 3, strings.Count(text, "kwire_proxy_client_requests_total{"), "two ids and other")
}

// TestProxyMetricsSchemaAPI: the registry's
// own APIs (from -schemas) name their api label.
func TestProxyMetricsSchemaAPI(t *testing.T) {
	reg := messages.NewRegistry()
	require.NoError(t, registerSchemas(reg, vendorSchemas))
	m := newProxyMetrics(reg, 0)
	m.Request(10000, 2, 40)
	text := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}()
	assert.Contains(t, text, `kwire_proxy_requests_total{api="VendorPing",version="2"} 1`+"\n")
}
