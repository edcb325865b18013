package main

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/trafficlog"
	"github.com/kwirelabs/kwire/messages"
)

// proxyMetrics is kwire/proxy's Metrics as Prometheus collectors. Label
// values come from bounded sets: API names of the registry ("other" for
// keys it lacks, with no version), versions within the API's range,
// Kafka's error names ("other" for codes Kafka does not define), and the
// two directions. Client ids and principals are never labels.
type proxyMetrics struct {
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
}

func newProxyMetrics() *proxyMetrics {
	const ns = "kwire_proxy"
	m := &proxyMetrics{
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
	m.reg.MustRegister(m.requests, m.requestBytes, m.responses, m.responseBytes, m.latency, m.errors,
		m.open, m.accepted, m.undecodable, m.logDropped,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the Prometheus text format.
func (m *proxyMetrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// labels are the bounded api and version labels of a key and version.
func apiLabels(key, version int16) (api, v string) {
	a, ok := messages.Lookup(key)
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
	api, v := apiLabels(key, version)
	m.requests.WithLabelValues(api, v).Inc()
	m.requestBytes.WithLabelValues(api).Add(float64(bytes))
}

func (m *proxyMetrics) Response(key, version int16, bytes int, latency time.Duration, codes []int16) {
	api, v := apiLabels(key, version)
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
