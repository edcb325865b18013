// Package proxy is a Kafka proxy that decodes what it relays: it stands
// in for every broker of an upstream cluster (each broker named in a
// response gets a local listener, and responses are rewritten to name
// those), and passes each decoded request and response through a chain
// of typed filters that may pass it, change it, answer it or close the
// connection.
//
//	p := proxy.New(proxy.Config{
//		Listen:   "127.0.0.1:19092",
//		Upstream: "broker-1:9092",
//		Filters:  []proxy.Filter{denyTopics},
//	})
//	err := p.Serve(ctx) // until ctx is done, then drains in-flight requests
//
// Frames kwire does not decode (an API key it does not know, a version
// newer than its tables, a raw SASL token) are relayed untouched.
// ApiVersions responses are clamped to the versions kwire reads
// (Config.Versions), keeping API keys it does not know unless
// Config.StripUnknown is set, so proprietary APIs keep working.
//
// The proxy never holds a client it cannot serve: the upstream is dialled
// (with retries, up to Config.DialTimeout) before the client's first
// frame is read, and a client whose upstream stays down is closed only
// then. Buffers shrink after a large frame, idle connections end after
// Config.IdleTimeout, and Config.MaxConns and Config.MaxBrokers bound
// connections and listeners. Its log (a trafficlog.Writer) never blocks
// relaying, and its metrics go through the small Metrics interface, so
// this package imports no metrics or config library.
package proxy
