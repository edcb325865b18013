package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/app/proxy/filters"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// proxyFlags are kwire proxy's settings, as flags and as the keys of a
// -config file.
type proxyFlags struct {
	Listen, Upstream, Advertise, BrokerPorts string
	JSON                                     bool
	Log                                      string
	LogQueue                                 int
	Unstable, StripUnknown, PastKafkaLimits  bool
	AsKafka                                  string
	MaxFrame, MaxConns, MaxBrokers           int
	DialTimeout, IdleTimeout, DrainTimeout   time.Duration
	RequestTimeout                           time.Duration

	TLSCert, TLSKey, TLSClientCA string
	UpstreamTLS                  tlsClientFlags
	Metrics                      string
	MetricsClientIDs             int
	Health                       string
	HealthInterval               time.Duration

	Config      string
	DenyTopics  listFlag
	DenyAPIs    listFlag
	AllowAPIs   listFlag
	RequireKeys bool
	Audit       string
	Schemas     schemaFlags
}

// listFlag is a flag that may be given many times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func (f *proxyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.Listen, "listen", "127.0.0.1:19092", "local address for the bootstrap broker")
	fs.StringVar(&f.Upstream, "upstream", "", "the upstream bootstrap broker, HOST:PORT")
	fs.StringVar(&f.Advertise, "advertise", "", "the host rewritten responses name for the proxy (default: -listen's host, or the address each client reached)")
	fs.StringVar(&f.BrokerPorts, "broker-ports", "", "FIRST-LAST: the ports broker listeners take (default: any free port)")
	fs.BoolVar(&f.JSON, "json", false, "one JSON object a line")
	fs.StringVar(&f.Log, "log", "", "write the log here (created 0600) rather than to standard output; \"off\" for none")
	fs.IntVar(&f.LogQueue, "log-queue", 4096, "log lines that may wait for the output before lines are dropped (and counted)")
	fs.BoolVar(&f.Unstable, "unstable", false, "let clients use API versions Kafka marks unstable")
	fs.BoolVar(&f.StripUnknown, "strip-unknown", false, "remove API keys kwire does not know (vendor, future) from ApiVersions")
	fs.BoolVar(&f.PastKafkaLimits, "past-kafka-limits", false, "decode and relay requests Kafka's reader refuses (arrays over 1,000,000 elements, tagged sections over 10,000 fields) instead of closing their connection")
	fs.StringVar(&f.AsKafka, "as-kafka", "", "offer clients only what this Kafka release does (3.7, 2.8, 4.0, 3.7-kraft: see kwire apis -releases)")
	fs.IntVar(&f.MaxFrame, "max-frame", kwire.DefaultMaxFrameSize, "the largest frame relayed (size prefix)")
	fs.IntVar(&f.MaxConns, "max-conns", proxy.DefaultMaxConns, "client connections open at once (-1: no bound); more wait in the backlog")
	fs.IntVar(&f.MaxBrokers, "max-brokers", 256, "broker listeners the proxy opens at most")
	fs.DurationVar(&f.DialTimeout, "dial-timeout", 10*time.Second, "how long to keep trying the upstream for a new client before closing it")
	fs.DurationVar(&f.IdleTimeout, "idle-timeout", proxy.DefaultIdleTimeout, "close a client idle this long with nothing in flight, or silent this long from its connect (-1s: never)")
	fs.DurationVar(&f.RequestTimeout, "request-timeout", proxy.DefaultRequestTimeout, "close a client whose request the upstream has not answered in this long, plus the wait the request asks for (-1s: never)")
	fs.DurationVar(&f.DrainTimeout, "drain-timeout", 10*time.Second, "on SIGTERM or SIGINT, how long in-flight requests have to be answered")
	fs.StringVar(&f.Metrics, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics")
	fs.StringVar(&f.Health, "health", "", "serve /healthz and /readyz at http://ADDR when -metrics is not given (with -metrics they are served beside /metrics)")
	fs.DurationVar(&f.HealthInterval, "health-interval", 10*time.Second, "how often /readyz's ApiVersions probe of the upstream runs")
	fs.IntVar(&f.MetricsClientIDs, "metrics-client-ids", 0, "count requests by client id for the first N distinct ids, the rest as \"other\" (0: no client id label)")
	fs.StringVar(&f.TLSCert, "tls-cert", "", "serve clients TLS with this PEM certificate (chain); reloaded when the file changes")
	fs.StringVar(&f.TLSKey, "tls-key", "", "the PEM key of -tls-cert")
	fs.StringVar(&f.TLSClientCA, "tls-client-ca", "", "require client certificates signed by these PEM CAs; the subject is the principal")
	f.UpstreamTLS.register(fs, "upstream-tls", "upstream-", "the upstream brokers")
	fs.StringVar(&f.Config, "config", "", "a YAML file of settings: the flags' names as keys; flags given on the command line win")
	fs.Var(&f.DenyTopics, "deny-topic", "answer Metadata, Produce and Fetch for this topic with TOPIC_AUTHORIZATION_FAILED, close on other requests naming it (repeatable)")
	fs.Var(&f.DenyAPIs, "deny-api", "LIST: refuse these APIs (names or keys, comma-separated; repeatable) with their own response carrying CLUSTER_AUTHORIZATION_FAILED, and hide them from ApiVersions")
	fs.Var(&f.AllowAPIs, "allow-api", "LIST: refuse every API but these (and ApiVersions, SaslHandshake, SaslAuthenticate), as -deny-api does")
	fs.BoolVar(&f.RequireKeys, "require-keys", false, "refuse Produce records without a key with INVALID_RECORD")
	f.Schemas.register(fs, "decode")
	fs.StringVar(&f.Audit, "audit", "", "append one JSON line per request to this file (created 0600): time, client address, principal, TLS, API, client id")
}

// tlsConfigs builds the client-side and upstream-side TLS settings.
func (f *proxyFlags) tlsConfigs() (serve, upstream *tls.Config, err error) {
	if (f.TLSCert == "") != (f.TLSKey == "") {
		return nil, nil, fmt.Errorf("-tls-cert and -tls-key go together")
	}
	if f.TLSClientCA != "" && f.TLSCert == "" {
		return nil, nil, fmt.Errorf("-tls-client-ca needs -tls-cert and -tls-key")
	}
	if f.TLSCert != "" {
		certs, err := proxy.LoadCertFiles(f.TLSCert, f.TLSKey)
		if err != nil {
			return nil, nil, err
		}
		serve = &tls.Config{GetCertificate: certs.GetCertificate, MinVersion: tls.VersionTLS12}
		if f.TLSClientCA != "" {
			if serve.ClientCAs, err = loadPool(f.TLSClientCA); err != nil {
				return nil, nil, err
			}
			serve.ClientAuth = tls.RequireAndVerifyClientCert
		}
	}
	upstream, err = f.UpstreamTLS.config()
	if err != nil {
		return nil, nil, err
	}
	return serve, upstream, nil
}

func loadPool(path string) (*x509.CertPool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s: no PEM certificate", path)
	}
	return pool, nil
}

func parsePortRange(s string) (proxy.PortRange, error) {
	if s == "" {
		return proxy.PortRange{}, nil
	}
	a, b, ok := strings.Cut(s, "-")
	first, err1 := strconv.Atoi(a)
	last, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || first < 1 || last > 65535 || first > last {
		return proxy.PortRange{}, fmt.Errorf("-broker-ports %q: want FIRST-LAST, 1-65535", s)
	}
	return proxy.PortRange{First: first, Last: last}, nil
}

// filters are the policy filters the flags ask for: the audit first, so
// it records requests the others refuse. The returned func closes the
// audit file.
func (f *proxyFlags) filters(reg *messages.Registry) ([]proxy.Filter, func(), error) {
	var fl []proxy.Filter
	closeAudit := func() {}
	if f.Audit != "" {
		// the audit names clients and principals
		file, err := openOutput("-audit", f.Audit)
		if err != nil {
			return nil, nil, err
		}
		closeAudit = func() { file.Close() }
		fl = append(fl, filters.NewAudit(file))
	}
	if len(f.DenyAPIs) > 0 && len(f.AllowAPIs) > 0 {
		closeAudit()
		return nil, nil, fmt.Errorf("-deny-api and -allow-api exclude each other")
	}
	if len(f.DenyAPIs) > 0 {
		keys, err := apiKeyList(reg, "-deny-api", f.DenyAPIs)
		if err == nil {
			var pol *filters.APIPolicy
			if pol, err = filters.DenyAPIs(keys...); err == nil {
				fl = append(fl, pol)
			}
		}
		if err != nil {
			closeAudit()
			return nil, nil, fmt.Errorf("-deny-api: %v", err)
		}
	}
	if len(f.AllowAPIs) > 0 {
		keys, err := apiKeyList(reg, "-allow-api", f.AllowAPIs)
		if err != nil {
			closeAudit()
			return nil, nil, err
		}
		fl = append(fl, filters.AllowAPIs(keys...))
	}
	if len(f.DenyTopics) > 0 {
		fl = append(fl, filters.NewDenyTopics(f.DenyTopics...))
	}
	if f.RequireKeys {
		fl = append(fl, filters.RequireKeys{})
	}
	return fl, closeAudit, nil
}

// healthHandlers serves /healthz (the process serves HTTP) and /readyz
// (the Kafka listener accepts and the upstream answered an ApiVersions
// within the last interval; otherwise 503 and why).
func healthHandlers(mux *http.ServeMux, r *proxy.Readiness) {
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := r.Ready(); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
}

// apiKeyList reads a list flag's API names or keys, of reg (nil:
// messages.Default).
func apiKeyList(reg *messages.Registry, flag string, values []string) ([]int16, error) {
	if reg == nil {
		reg = messages.Default
	}
	var keys []int16
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			key, ok := apiKeyByName(reg, strings.TrimSpace(name))
			if !ok {
				return nil, fmt.Errorf("%s: no API %q (kwire apis lists them)", flag, name)
			}
			keys = append(keys, key)
		}
	}
	return keys, nil
}

// runProxy relays Kafka connections to an upstream cluster and logs every
// request and response, decoded: a command-line face on app/proxy.
func runProxy(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f proxyFlags
	f.register(fs)
	if err := parseFlags(fs, args, out); err != nil {
		return err
	}
	// From here on SIGTERM and SIGINT stop the proxy in order (draining
	// once it serves), whatever start-up is doing.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the process at once
	}()
	if f.Config != "" {
		if err := applyConfigFile(fs, f.Config); err != nil {
			return fmt.Errorf("proxy: -config %v", err)
		}
	}
	if f.Upstream == "" || fs.NArg() > 0 {
		return fmt.Errorf("proxy: usage: kwire proxy -listen HOST:PORT -upstream HOST:PORT [-json] [-log FILE]")
	}
	ports, err := parsePortRange(f.BrokerPorts)
	if err != nil {
		return fmt.Errorf("proxy: %v", err)
	}
	serveTLS, upstreamTLS, err := f.tlsConfigs()
	if err != nil {
		return fmt.Errorf("proxy: %v", err)
	}
	notice := func(msg string) { fmt.Fprintf(os.Stderr, "kwire proxy: %s\n", msg) }
	cfg := proxy.Config{
		Listen: f.Listen, Upstream: f.Upstream, Advertise: f.Advertise, BrokerPorts: ports,
		MaxBrokers: f.MaxBrokers, MaxConns: f.MaxConns, MaxFrame: f.MaxFrame,
		DialTimeout: f.DialTimeout, IdleTimeout: f.IdleTimeout, DrainTimeout: f.DrainTimeout,
		RequestTimeout: f.RequestTimeout,
		Unstable:       f.Unstable, StripUnknown: f.StripUnknown, PastKafkaLimits: f.PastKafkaLimits, Notice: notice,
		TLS: serveTLS, UpstreamTLS: upstreamTLS,
	}
	if cfg.Registry, err = f.Schemas.registry(os.Stderr); err != nil {
		return fmt.Errorf("proxy: %v", err)
	}
	if err := f.applyAsKafka(&cfg); err != nil {
		return fmt.Errorf("proxy: %v", err)
	}
	fl, closeFilters, err := f.filters(cfg.Registry)
	if err != nil {
		return fmt.Errorf("proxy: %v", err)
	}
	defer closeFilters()
	cfg.Filters = fl
	// The log is opened before anything listens: a log that cannot be
	// written is an error at start, not a proxy that looks healthy.
	var logOut io.Writer
	if f.Log != "off" {
		logOut = out
		if f.Log != "" {
			file, err := openOutput("-log", f.Log)
			if err != nil {
				return fmt.Errorf("proxy: %v", err)
			}
			defer file.Close()
			logOut = file
		}
	}
	var metrics *proxyMetrics
	if f.Metrics != "" {
		metrics = newProxyMetrics(cfg.Registry, f.MetricsClientIDs)
		cfg.Metrics = metrics
	}
	if logOut != nil {
		opts := trafficlog.Options{JSON: f.JSON, Queue: f.LogQueue, Notice: notice}
		if metrics != nil {
			opts.OnDrop, opts.OnLost = metrics.LogDropped, metrics.LogLost
		}
		cfg.Log = trafficlog.NewWriter(logOut, opts)
	}
	p := proxy.New(cfg)
	if f.Metrics != "" || f.Health != "" {
		addr := f.Metrics
		if addr == "" {
			addr = f.Health
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("proxy: -metrics/-health: %v", err)
		}
		mux := http.NewServeMux()
		if metrics != nil {
			mux.Handle("/metrics", metrics.Handler())
		}
		healthHandlers(mux, p.Readiness(ctx, f.HealthInterval))
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		if metrics != nil {
			notice("metrics at http://" + ln.Addr().String() + "/metrics")
		}
		notice("health at http://" + ln.Addr().String() + "/healthz and /readyz")
	}
	err = p.Serve(ctx)
	if cfg.Log != nil {
		if lerr := cfg.Log.Close(); lerr != nil && err == nil {
			err = lerr
		}
	}
	if err != nil {
		return fmt.Errorf("proxy: %v", err)
	}
	return nil
}
