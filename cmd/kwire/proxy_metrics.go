package main

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
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
// asked for (maxClientIDs > 0), and then only the most frequent printable
// ones of the last window (topClientIDs), the rest counted as "other".
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
	logLost       prometheus.Counter
	timeouts      *prometheus.CounterVec
	loginFailures *prometheus.CounterVec
	tlsPlaintext  prometheus.Counter
	brokerCap     prometheus.Counter
	dialFailures  prometheus.Counter

	clientIDs *topClientIDs // nil: no client id label
}

// maxClientIDLabel is the longest client id given a label of its own;
// longer ones count as "other", so a label is never a client's megabyte.
const maxClientIDLabel = 128

// clientIDWindow is how long client ids are counted before the most
// frequent become the labels of the next window.
const clientIDWindow = time.Minute

// newProxyMetrics counts by the APIs of apis (messages.Default when nil)
// and, when maxClientIDs > 0, requests by client id.
func newProxyMetrics(apis *messages.Registry, maxClientIDs int) *proxyMetrics {
	const ns = "kwire_proxy"
	if apis == nil {
		apis = messages.Default
	}
	m := &proxyMetrics{
		apis: apis,
		reg:  prometheus.NewRegistry(),
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
		logLost: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "log_lines_lost_total",
			Help: "Log lines lost to errors writing the log (a full disk, say)."}),
		timeouts: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "request_timeouts_total",
			Help: "Client connections closed because the upstream did not answer a request within -request-timeout, by API."}, []string{"api"}),
		loginFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "sasl_login_failures_total",
			Help: "SASL logins the broker refused, by mechanism."}, []string{"mechanism"}),
		tlsPlaintext: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "tls_on_plaintext_total",
			Help: "Clients that began a TLS handshake on the plaintext port (closed)."}),
		brokerCap: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "broker_cap_refusals_total",
			Help: "Answers not relayed because they name a broker past -max-brokers (the client is closed)."}),
		dialFailures: prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "upstream_dial_failures_total",
			Help: "Clients closed because the upstream could not be reached."}),
	}
	if maxClientIDs > 0 {
		vec := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "client_requests_total",
			Help: "Requests by client id: the -metrics-client-ids most frequent printable ids of the last minute, the rest as \"other\"."}, []string{"client_id"})
		m.reg.MustRegister(vec)
		m.clientIDs = newTopClientIDs(vec, maxClientIDs, clientIDWindow, time.Now)
	}
	m.reg.MustRegister(m.requests, m.requestBytes, m.responses, m.responseBytes, m.latency, m.errors,
		m.open, m.accepted, m.undecodable, m.logDropped, m.logLost, m.timeouts, m.loginFailures,
		m.tlsPlaintext, m.brokerCap, m.dialFailures,
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

// LogLost counts log lines a write error lost (trafficlog.Options.OnLost).
func (m *proxyMetrics) LogLost(lines int) { m.logLost.Add(float64(lines)) }

func (m *proxyMetrics) RequestTimedOut(key int16) {
	api, _ := m.apiLabels(key, 0)
	m.timeouts.WithLabelValues(api).Inc()
}

// saslMechanisms are the mechanism labels; others count as "other".
var saslMechanisms = map[string]bool{"PLAIN": true, "SCRAM-SHA-256": true, "SCRAM-SHA-512": true,
	"OAUTHBEARER": true, "GSSAPI": true}

func (m *proxyMetrics) LoginFailed(mechanism string) {
	switch {
	case mechanism == "":
		mechanism = "none"
	case !saslMechanisms[mechanism]:
		mechanism = "other"
	}
	m.loginFailures.WithLabelValues(mechanism).Inc()
}

func (m *proxyMetrics) TLSOnPlaintext()   { m.tlsPlaintext.Inc() }
func (m *proxyMetrics) BrokerCapRefused() { m.brokerCap.Inc() }
func (m *proxyMetrics) DialFailed()       { m.dialFailures.Inc() }

// ClientRequest counts a request under its client id (app/proxy's
// ClientMetrics).
func (m *proxyMetrics) ClientRequest(clientID []byte) {
	if m.clientIDs != nil {
		m.clientIDs.count(clientID)
	}
}

// topClientIDs labels requests by client id with a bounded label set
// chosen by traffic: the n ids with the most requests in the last window
// have labels of their own for the next window, everything else counts as
// "other", and an id that drops out of the top loses its series. So a
// burst of junk ids (a fuzzer's) cannot take the labels before the real
// clients arrive, and ids that are not printable never get one. Ids are
// counted in a table of a few times n entries with the Space-Saving
// scheme (a new id past the table's size takes the place of the least
// counted), which finds every id whose share of the window's requests is
// over 1/size.
type topClientIDs struct {
	vec    *prometheus.CounterVec
	n      int
	window time.Duration
	now    func() time.Time

	mu       sync.Mutex
	ends     time.Time                     // of the window being counted
	counts   map[string]uint64             // this window's, at most size entries
	size     int                           // of counts
	labelled map[string]prometheus.Counter // the last window's top n
	other    prometheus.Counter
}

func newTopClientIDs(vec *prometheus.CounterVec, n int, window time.Duration, now func() time.Time) *topClientIDs {
	return &topClientIDs{vec: vec, n: n, window: window, now: now, ends: now().Add(window),
		counts: map[string]uint64{}, size: max(64, 8*n), labelled: map[string]prometheus.Counter{},
		other: vec.WithLabelValues("other")}
}

// labelable says whether an id may be a label value: short, UTF-8 and
// printable (no NUL or control bytes), and not "other".
func labelable(id []byte) bool {
	if len(id) == 0 || len(id) > maxClientIDLabel || !utf8.Valid(id) || string(id) == "other" {
		return false
	}
	for _, r := range string(id) {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

func (t *topClientIDs) count(id []byte) {
	t.mu.Lock()
	if now := t.now(); !now.Before(t.ends) {
		t.rotate(now)
	}
	c, ok := t.labelled[string(id)]
	if !ok {
		c = t.other
	}
	if labelable(id) {
		t.tally(id)
	}
	t.mu.Unlock()
	c.Inc()
}

// tally counts one request of id in this window's table.
func (t *topClientIDs) tally(id []byte) {
	if _, ok := t.counts[string(id)]; ok {
		t.counts[string(id)]++
		return
	}
	if len(t.counts) < t.size {
		t.counts[string(id)] = 1
		return
	}
	least, min := "", ^uint64(0)
	for k, v := range t.counts {
		if v < min {
			least, min = k, v
		}
	}
	delete(t.counts, least)
	t.counts[string(id)] = min + 1
}

// rotate makes the ended window's top n the labels.
func (t *topClientIDs) rotate(now time.Time) {
	ids := make([]string, 0, len(t.counts))
	for k := range t.counts {
		ids = append(ids, k)
	}
	sort.Slice(ids, func(i, j int) bool {
		if t.counts[ids[i]] != t.counts[ids[j]] {
			return t.counts[ids[i]] > t.counts[ids[j]]
		}
		return ids[i] < ids[j]
	})
	top := map[string]prometheus.Counter{}
	for _, id := range ids[:min(t.n, len(ids))] {
		if c, ok := t.labelled[id]; ok {
			top[id] = c
		} else {
			top[id] = t.vec.WithLabelValues(id)
		}
	}
	for id := range t.labelled {
		if _, ok := top[id]; !ok {
			t.vec.DeleteLabelValues(id)
		}
	}
	t.labelled, t.counts = top, map[string]uint64{}
	t.ends = now.Add(t.window)
}
