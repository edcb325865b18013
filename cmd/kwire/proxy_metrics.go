package main

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// proxyMetrics is app/proxy's Metrics as Prometheus collectors. Label
// values come from bounded sets: API names of the registry ("other" for
// keys it lacks, with no version), versions within the API's range,
// Kafka's error names ("other" for codes Kafka does not define), and the
// two directions. Principals are never labels; client ids are only when
// asked for (maxClientIDs > 0), and then at most that many distinct ones,
// later ones counted as "other".
type proxyMetrics struct {
	apis          *messages.Registry
	reg           *prometheus.Registry
	requests      *prometheus.CounterVec
	requestBytes  *prometheus.CounterVec
	responses     *prometheus.CounterVec
	responseBytes *prometheus.CounterVec
	latency       *prometheus.HistogramVec
	errors        *prometheus.CounterVec
	open          prometheus.Gauge
	accepted      prometheus.Counter
	undecodable   *prometheus.CounterVec
	logDropped    prometheus.Counter

	clientRequests *prometheus.CounterVec
	maxClientIDs   int
	clientMu       sync.Mutex
	clientIDs      map[string]prometheus.Counter // the ids given a label of their own, and "other"
}

// maxClientIDLabel is the longest client id given a label of its own;
// longer ones count as "other", so a label is never a client's megabyte.
const maxClientIDLabel = 128

// newProxyMetrics counts by the APIs of apis (messages.Default when nil)
// and, when maxClientIDs > 0, requests by client id.
func newProxyMetrics(apis *messages.Registry, maxClientIDs int) *proxyMetrics {
	const ns = "kwire_proxy"
	if apis == nil {
		apis = messages.Default
	}
	m := &proxyMetrics{
		apis: apis, maxClientIDs: maxClientIDs, clientIDs: map[string]prometheus.Counter{},
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "requests_total",
			Help: "Requests relayed or answered, by API and version."}, []string{"api", "version"}),
		requestBytes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "request_bytes_total",
			Help: "Bytes of request frames from clients, by API."}, []string{"api"}),
		responses: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "responses_total",
			Help: "Responses sent to clients, by API and version."}, []string{"api", "version"}),
		responseBytes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "response_bytes_total",
			Help: "Bytes of response frames to clients, by API."}, []string{"api"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "request_latency_seconds",
			Help:    "From reading a request to sending its response, by API.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}, []string{"api"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "response_errors_total",
			Help: "Non-zero error codes in responses (each topic or partition counts), by API and error."}, []string{"api", "error"}),
		open: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Name: "open_connections",
			Help: "Client connections open."}),
		accepted: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "connections_total",
			Help: "Client connections accepted."}),
		undecodable: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "undecodable_frames_total",
			Help: "Frames relayed without being decoded, by direction."}, []string{"dir"}),
		logDropped: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "log_lines_dropped_total",
			Help: "Log lines dropped because the log's output fell behind."}),
	}
	if maxClientIDs > 0 {
		m.clientRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "client_requests_total",
			Help: "Requests by client id: the first ids seen up to -metrics-client-ids, the rest as \"other\"."}, []string{"client_id"})
		m.reg.MustRegister(m.clientRequests)
	}
	m.reg.MustRegister(m.requests, m.requestBytes, m.responses, m.responseBytes, m.latency, m.errors,
		m.open, m.accepted, m.undecodable, m.logDropped,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the Prometheus text format.
func (m *proxyMetrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// apiLabels are the bounded api and version labels of a key and version.
func (m *proxyMetrics) apiLabels(key, version int16) (api, v string) {
	a, ok := m.apis.Lookup(key)
	if !ok {
		return "other", ""
	}
	if version < a.MinVersion || version > a.MaxVersion {
		return a.Name, "other"
	}
	return a.Name, strconv.Itoa(int(version))
}

func (m *proxyMetrics) ConnOpened() { m.open.Inc(); m.accepted.Inc() }
func (m *proxyMetrics) ConnClosed() { m.open.Dec() }

func (m *proxyMetrics) Request(key, version int16, bytes int) {
	api, v := m.apiLabels(key, version)
	m.requests.WithLabelValues(api, v).Inc()
	m.requestBytes.WithLabelValues(api).Add(float64(bytes))
}

func (m *proxyMetrics) Response(key, version int16, bytes int, latency time.Duration, codes []int16) {
	api, v := m.apiLabels(key, version)
	m.responses.WithLabelValues(api, v).Inc()
	m.responseBytes.WithLabelValues(api).Add(float64(bytes))
	if latency > 0 {
		m.latency.WithLabelValues(api).Observe(latency.Seconds())
	}
	for _, c := range codes {
		name := kerr.Code(c).Name()
		if strings.HasPrefix(name, "UNKNOWN_ERROR_CODE_") {
			name = "other"
		}
		m.errors.WithLabelValues(api, name).Inc()
	}
}

func (m *proxyMetrics) Undecodable(dir trafficlog.Dir) {
	m.undecodable.WithLabelValues(string(dir)).Inc()
}

// LogDropped counts a log line dropped (trafficlog.Options.OnDrop).
func (m *proxyMetrics) LogDropped() { m.logDropped.Inc() }

// ClientRequest counts a request under its client id (app/proxy's
// ClientMetrics), while fewer than maxClientIDs ids have a label; a null
// id counts as "". Ids past the cap, longer than maxClientIDLabel or not
// UTF-8 count as "other".
func (m *proxyMetrics) ClientRequest(clientID []byte) {
	if m.maxClientIDs <= 0 {
		return
	}
	m.clientMu.Lock()
	c, ok := m.clientIDs[string(clientID)]
	if !ok {
		label := "other"
		if len(m.clientIDs) < m.maxClientIDs && len(clientID) <= maxClientIDLabel && utf8.Valid(clientID) {
			label = string(clientID)
		}
		c = m.clientRequests.WithLabelValues(label)
		if label != "other" {
			m.clientIDs[label] = c
		}
	}
	m.clientMu.Unlock()
	c.Inc()
}
