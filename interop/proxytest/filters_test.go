package proxytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/app/proxy/filters"
)

// lockedBuffer is an audit sink the test reads while the proxy writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveInProcess runs app/proxy in front of upstream with cfg.
func serveInProcess(t *testing.T, upstream string, cfg proxy.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	cfg.Upstream = upstream
	p := proxy.New(cfg)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.ServeListener(ctx, ln) }()
	select {
	case <-p.Ready():
	case err := <-served:
		t.Fatalf("the proxy stopped before it was ready: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the proxy was not ready in 30 s")
	}
	t.Cleanup(func() {
		stop()
		select {
		case err := <-served:
			require.NoError(t, err)
		case <-time.After(30 * time.Second):
			t.Error("the proxy did not stop in 30 s")
		}
	})
	return p.Addr().String()
}

// TestFiltersWithKgo: through app/proxy with the deny-list, the key
// validator and the audit filter, kgo gets Kafka's own errors:
// TOPIC_AUTHORIZATION_FAILED producing to and consuming from a denied
// topic, INVALID_RECORD for a record without a key; keyed records to
// other topics are written and read back; the audit names every
// request's client address and API, and says the (absent) principal is
// not verified.
func TestFiltersWithKgo(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(2), kfake.SeedTopics(2, "orders", "payroll"))
	require.NoError(t, err)
	defer cluster.Close()
	audit := &lockedBuffer{}
	addr := serveInProcess(t, cluster.ListenAddrs()[0], proxy.Config{
		Filters: []proxy.Filter{filters.NewAudit(audit), filters.NewDenyTopics("payroll"), filters.RequireKeys{}},
	})
	ctx := withTimeout(t, time.Minute)

	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.RecordRetries(3), kgo.DisableIdempotentWrite())
	require.NoError(t, err)
	defer cl.Close()

	err = cl.ProduceSync(ctx, &kgo.Record{Topic: "payroll", Key: []byte("k"), Value: []byte("salary")}).FirstErr()
	require.True(t, errors.Is(err, kerr.TopicAuthorizationFailed), "produce to a denied topic: %v", err)

	err = cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Value: []byte("no key")}).FirstErr()
	require.True(t, errors.Is(err, kerr.InvalidRecord), "produce without a key: %v", err)

	var keyed []*kgo.Record
	for i := range 50 {
		keyed = append(keyed, &kgo.Record{Topic: "orders", Key: []byte{byte('a' + i%26)}, Value: []byte("order")})
	}
	require.NoError(t, cl.ProduceSync(ctx, keyed...).FirstErr())

	// Consuming: the allowed topic's 50 records, the denied topic's error.
	consumer, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ConsumeTopics("orders", "payroll"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer consumer.Close()
	got, denied := 0, false
	for got < len(keyed) || !denied {
		fs := consumer.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "got %d records, denied error seen: %v", got, denied)
		fs.EachError(func(topic string, _ int32, err error) {
			require.Equal(t, "payroll", topic, "%v", err)
			require.True(t, errors.Is(err, kerr.TopicAuthorizationFailed), "%v", err)
			denied = true
		})
		fs.EachRecord(func(r *kgo.Record) {
			require.Equal(t, "orders", r.Topic)
			require.NotNil(t, r.Key)
			got++
		})
	}
	require.Equal(t, len(keyed), got)

	// The audit: one line a request, each with the client's address.
	apis := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(audit.String()), "\n") {
		var l struct {
			ClientAddr string `json:"client_addr"`
			API        string
			TLS        bool
			Verified   *bool `json:"principal_verified"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &l), line)
		require.NotNil(t, l.Verified, "the audit says whether the principal was verified: %s", line)
		require.False(t, *l.Verified, "no login, no certificate: %s", line)
		host, _, err := net.SplitHostPort(l.ClientAddr)
		require.NoError(t, err, line)
		require.Equal(t, "127.0.0.1", host)
		require.False(t, l.TLS)
		apis[l.API] = true
	}
	for _, api := range []string{"ApiVersions", "Metadata", "Produce", "Fetch"} {
		require.True(t, apis[api], "no %s in the audit: %v", api, apis)
	}
}
