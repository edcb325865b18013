package proxy

import (
	"context"
	"crypto/tls"
	"net"
	"time"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/wire"
	"github.com/kwirelabs/kwire/messages"
)

// Config is a proxy's setup; the zero value of each field but Upstream
// is a working default.
type Config struct {
	// Listen is the bootstrap listener's address, the one clients are
	// given ("0.0.0.0:19092"); default "127.0.0.1:19092". Broker
	// listeners open on its host.
	Listen string
	// Upstream is the cluster's bootstrap broker, HOST:PORT.
	Upstream string

	// Advertise is the host rewritten responses name for broker
	// listeners. Default: Listen's host, or when that is unspecified
	// (0.0.0.0, ::), the local address each client connected to.
	Advertise string
	// BrokerPorts, when set, is the range of ports broker listeners take,
	// in the order brokers are first named (for firewalls and port
	// forwarding); otherwise each takes a port the system picks.
	BrokerPorts PortRange
	// MaxBrokers bounds the broker listeners (default 256). The proxy
	// fails closed past it: an answer naming a broker it has no listener
	// for is not relayed (the client's connection is closed, with a
	// line in the log and a notice), so no client is ever pointed
	// straight at a broker, past the filters and the log.
	MaxBrokers int

	// MaxConns bounds client connections open at once (default 4096;
	// negative: no bound); further clients wait in the listen backlog.
	MaxConns int
	// MaxFrame is the largest frame relayed, size prefix excluded
	// (default kwire.DefaultMaxFrameSize).
	MaxFrame int
	// DialTimeout bounds how long the proxy keeps trying to reach the
	// upstream for a new client before closing it (default 10 s).
	DialTimeout time.Duration
	// IdleTimeout closes a client connection with no request and nothing
	// in flight for this long (default 10 minutes, Kafka's
	// connections.max.idle.ms; negative: never). A client that has sent
	// nothing holds no upstream connection: the upstream is dialled on
	// its first bytes.
	IdleTimeout time.Duration
	// RequestTimeout closes a client connection whose oldest request the
	// upstream has not answered in this long, plus the wait the request
	// itself asks for (a Fetch's MaxWaitMs, a JoinGroup's rebalance
	// timeout, a Produce's TimeoutMs), logged and counted (default 30 s;
	// negative: never).
	RequestTimeout time.Duration
	// DrainTimeout bounds how long Serve waits, once its context is done,
	// for in-flight requests to be answered (default 10 s).
	DrainTimeout time.Duration

	// Versions are the API version ranges offered to clients: ApiVersions
	// responses are clamped to them. Default: Registry.Versions(false),
	// what kwire reads (true with Unstable). A range narrower than kwire's
	// (a Kafka release's table, say) makes clients speak that release.
	Versions []kwire.APIVersionRange
	// Features are the KIP-584 feature ranges offered to clients, by
	// name: ApiVersions responses offer the levels both these and the
	// cluster have, as they do Versions (see
	// messages.ApiVersionsResponse.ClampFeatures): no level in common, or
	// Max below Min, removes a feature. Features not named pass through;
	// nil changes none.
	Features []messages.FeatureRange
	// Unstable offers the versions Kafka marks unstable, when Versions
	// is nil.
	Unstable bool
	// StripUnknown removes from ApiVersions responses the API keys kwire
	// does not know (vendor and future APIs), which are otherwise kept
	// and relayed untouched.
	StripUnknown bool
	// PastKafkaLimits decodes what Kafka's own reader refuses (an array
	// of more than 1,000,000 elements, a tagged section of more than
	// 10,000 fields: kwire.Decoder.KafkaLimits). Off by default: a
	// request past them is logged and the connection closed, as the
	// broker would close it, rather than relayed; a response past them
	// is logged undecodable and relayed.
	PastKafkaLimits bool
	// Registry decodes messages (default messages.Default): register
	// structs for proprietary APIs there to decode and filter them.
	Registry *messages.Registry

	// TLS, when set, serves clients TLS: set GetCertificate for
	// certificates that reload, and ClientAuth with ClientCAs to require
	// client certificates (the verified subject becomes the principal).
	TLS *tls.Config
	// UpstreamTLS, when set, speaks TLS to the upstream brokers; an empty
	// ServerName is each broker's host.
	UpstreamTLS *tls.Config
	// Dial, when set, opens connections to upstream brokers (through a
	// SOCKS proxy, say); default a net.Dialer. TLS, when configured, is
	// added on top.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)

	// Filters see each decoded request (in order) and response (in
	// reverse order).
	Filters []Filter
	// Log, when set, gets one event per request, response, and
	// connection trouble; the proxy never waits for it.
	Log *trafficlog.Writer
	// Metrics, when set, counts what the proxy relays.
	Metrics Metrics
	// Notice, when set, hears operator-facing lines: each listener
	// ("127.0.0.1:19092 -> broker-1:9092"), and trouble that concerns the
	// proxy rather than one connection (accept errors, caps reached).
	Notice func(msg string)
}

// PortRange is an inclusive range of TCP ports; the zero value is none.
type PortRange struct{ First, Last int }

// Metrics receives counts as the proxy relays. Its methods are called
// from many goroutines and must not block. Label sets stay bounded: API
// keys are those of Kafka or registered, error codes Kafka's.
type Metrics interface {
	ConnOpened()
	ConnClosed()
	// Request counts a request frame from a client (key -1: not
	// decodable far enough to say).
	Request(apiKey, version int16, bytes int)
	// Response counts a response frame to a client, with its latency and
	// the non-zero error codes it carries.
	Response(apiKey, version int16, bytes int, latency time.Duration, errorCodes []int16)
	// Undecodable counts a frame relayed without being decoded.
	Undecodable(dir trafficlog.Dir)
}

// TroubleMetrics is a Metrics that also counts what the proxy refused or
// cut short: when Config.Metrics implements it, each is counted as it
// happens.
type TroubleMetrics interface {
	// RequestTimedOut counts a connection closed because the upstream
	// did not answer a request of this API within RequestTimeout.
	RequestTimedOut(apiKey int16)
	// LoginFailed counts a SASL login the broker refused, by the
	// mechanism the client chose ("" before SaslHandshake).
	LoginFailed(mechanism string)
	// TLSOnPlaintext counts a client that began a TLS handshake on a
	// plaintext port.
	TLSOnPlaintext()
	// BrokerCapRefused counts an answer not relayed because it names a
	// broker past MaxBrokers.
	BrokerCapRefused()
	// DialFailed counts a client closed because the upstream could not
	// be reached.
	DialFailed()
}

// ClientMetrics is a Metrics that also counts requests by client id: when
// Config.Metrics implements it, the proxy calls ClientRequest for each
// request with the client id of its header (nil when the header has none
// or cannot be read). The bytes are the frame's: copy what is kept.
type ClientMetrics interface {
	ClientRequest(clientID []byte)
}

// peekClientID returns the client id of a request frame (size prefix
// included) of the given key and version, without copying it; nil when
// the header version (reg's table) has none, the id is null, or the
// frame is cut short.
func peekClientID(reg *messages.Registry, frame []byte, key, version int16) []byte {
	if h, _, _ := reg.HeaderVersions(key, version); key < 0 || h == 0 || len(frame) < 14 {
		return nil
	}
	id, null, n := wire.ConsumeClientID(frame[wire.FrameSizeLen+wire.RequestHeadLen:])
	if n < 0 || null {
		return nil
	}
	return id
}

// The defaults of Config's bounds, sized for a port the public can
// reach: Kafka clients keep a few connections each and send their first
// request at once.
const (
	DefaultMaxConns       = 4096
	DefaultIdleTimeout    = 10 * time.Minute
	DefaultRequestTimeout = 30 * time.Second
)

func (c *Config) setDefaults() {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:19092"
	}
	if c.MaxBrokers <= 0 {
		c.MaxBrokers = 256
	}
	if c.MaxFrame <= 0 {
		c.MaxFrame = kwire.DefaultMaxFrameSize
	}
	if c.MaxConns == 0 {
		c.MaxConns = DefaultMaxConns
	}
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.DialTimeout <= 0 {
		c.DialTimeout = 10 * time.Second
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = 10 * time.Second
	}
	if c.Registry == nil {
		c.Registry = messages.Default
	}
	if c.Versions == nil {
		// The registry's: what its own APIs (and a dialect's) decode.
		c.Versions = c.Registry.Versions(c.Unstable)
	}
	if c.Notice == nil {
		c.Notice = func(string) {}
	}
}
