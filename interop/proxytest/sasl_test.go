package proxytest

import (
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kwirelabs/kwire/app/secrettest"
)

// recording wraps a SASL mechanism and keeps every message the client
// sends: the bytes that must never reach the proxy's log.
type recording struct {
	sasl.Mechanism
	mu   sync.Mutex
	sent [][]byte
}

func (r *recording) keep(b []byte) {
	r.mu.Lock()
	r.sent = append(r.sent, append([]byte(nil), b...))
	r.mu.Unlock()
}

func (r *recording) Authenticate(ctx context.Context, host string) (sasl.Session, []byte, error) {
	s, first, err := r.Mechanism.Authenticate(ctx, host)
	r.keep(first)
	return recordingSession{s, r}, first, err
}

type recordingSession struct {
	sasl.Session
	r *recording
}

func (s recordingSession) Challenge(resp []byte) (bool, []byte, error) {
	done, next, err := s.Session.Challenge(resp)
	if len(next) > 0 {
		s.r.keep(next)
	}
	return done, next, err
}

var metricsAt = regexp.MustCompile(`kwire proxy: metrics at (http://\S+)`)

// scrapeMetrics reads the proxy's -metrics endpoint.
func scrapeMetrics(t *testing.T, p *runningProxy) string {
	t.Helper()
	m := metricsAt.FindStringSubmatch(p.Stderr())
	require.NotNil(t, m, "no metrics address in:\n%s", p.Stderr())
	resp, err := http.Get(m[1])
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// TestSASLThroughProxy: kgo logs in with PLAIN, SCRAM-SHA-256 and
// SCRAM-SHA-512 through `kwire proxy` (text log and -json) to a kfake
// cluster that requires SASL, produces and reads back. The logs name
// the principal, and neither they nor the metrics hold the password nor any byte string the
// client sent to authenticate (PLAIN token, SCRAM client messages and
// proof), raw, hex or base64; the log file is 0600.
func TestSASLThroughProxy(t *testing.T) {
	const password = "Tr0ub4dor&3-kwire"
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"} {
		for _, format := range []string{"json", "text"} {
			t.Run(mech+"/"+format, func(t *testing.T) {
				cluster, err := kfake.NewCluster(kfake.NumBrokers(2), kfake.EnableSASL(),
					kfake.Superuser(mech, "alice", password), kfake.SeedTopics(1, "sasl-topic"))
				require.NoError(t, err)
				defer cluster.Close()
				extra := []string{"-metrics", "127.0.0.1:0"}
				if format == "text" {
					extra = append(extra, "-json=false")
				}
				p := startProxy(t, cluster.ListenAddrs()[0], extra...)
				var m sasl.Mechanism
				switch mech {
				case "PLAIN":
					m = plain.Auth{User: "alice", Pass: password}.AsMechanism()
				case "SCRAM-SHA-256":
					m = scram.Auth{User: "alice", Pass: password}.AsSha256Mechanism()
				default:
					m = scram.Auth{User: "alice", Pass: password}.AsSha512Mechanism()
				}
				rec := &recording{Mechanism: m}
				ctx := withTimeout(t, time.Minute)
				cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addr), kgo.SASL(rec), kgo.DefaultProduceTopic("sasl-topic"),
					kgo.ConsumeTopics("sasl-topic"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
				require.NoError(t, err)
				for i := range 10 {
					require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Value: []byte("v" + strconv.Itoa(i))}).FirstErr())
				}
				got := 0
				for got < 10 {
					fs := cl.PollFetches(ctx)
					require.NoError(t, ctx.Err())
					require.NoError(t, fs.Err())
					got += fs.NumRecords()
				}
				cl.Close()

				st, err := os.Stat(p.logPath)
				require.NoError(t, err)
				require.Equal(t, os.FileMode(0o600), st.Mode().Perm())
				metrics := scrapeMetrics(t, p)
				require.Contains(t, metrics, `kwire_proxy_requests_total{api="SaslAuthenticate",version="2"}`)
				require.Contains(t, metrics, `kwire_proxy_requests_total{api="Produce",version="`)
				out := append(append(p.StopRaw(t), p.Stderr()...), metrics...)
				rec.mu.Lock()
				secrets := append([][]byte{[]byte(password)}, rec.sent...)
				rec.mu.Unlock()
				require.Greater(t, len(secrets), 1, "no SASL message recorded")
				for _, s := range secrets {
					form, found := secrettest.Find(out, s)
					require.False(t, found, "a secret in the log (%s)", form)
				}
				if format == "json" {
					require.Contains(t, string(out), `"principal":"alice"`)
					require.Contains(t, string(out), `"redacted":["AuthBytes"]`)
				} else {
					require.Contains(t, string(out), `user="alice"`)
					require.Contains(t, string(out), "redacted: AuthBytes")
				}
				require.Equal(t, 0, strings.Count(string(out), "UNDECODABLE"))
			})
		}
	}
}
