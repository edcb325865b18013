package proxytest

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwirelabs/kwire/app/testcerts"
)

// tlsFiles makes a CA, a server certificate for 127.0.0.1 and a client
// certificate (CN=alice, O=acme), and writes them to a temporary
// directory.
type tlsFiles struct {
	ca                                               *testcerts.CA
	caFile, certFile, keyFile, clientCert, clientKey string
}

func newTLSFiles(t *testing.T) tlsFiles {
	t.Helper()
	dir := t.TempDir()
	ca, err := testcerts.NewCA("kwire interop CA")
	require.NoError(t, err)
	f := tlsFiles{ca: ca, caFile: filepath.Join(dir, "ca.pem")}
	require.NoError(t, os.WriteFile(f.caFile, ca.PEM, 0o600))
	server, err := ca.Server("kwire-proxy", "127.0.0.1", "localhost")
	require.NoError(t, err)
	f.certFile, f.keyFile, err = server.Write(dir, "proxy")
	require.NoError(t, err)
	client, err := ca.Client("alice", "acme")
	require.NoError(t, err)
	f.clientCert, f.clientKey, err = client.Write(dir, "alice")
	require.NoError(t, err)
	return f
}

// TestTLSClientsThroughProxy: kgo (with a client certificate, which
// becomes the principal), kcat (-X security.protocol=ssl) and
// kafka-python (security_protocol=SSL) produce and consume through
// `kwire proxy -tls-cert -tls-key -tls-client-ca` to a plaintext kfake
// cluster; every broker listener speaks TLS.
func TestTLSClientsThroughProxy(t *testing.T) {
	f := newTLSFiles(t)
	const topic = "tls-topic"
	cluster, err := kfake.NewCluster(kfake.NumBrokers(2), kfake.SeedTopics(2, topic))
	require.NoError(t, err)
	defer cluster.Close()
	p := startProxy(t, cluster.ListenAddrs()[0], "-tls-cert", f.certFile, "-tls-key", f.keyFile, "-tls-client-ca", f.caFile)
	ctx := withTimeout(t, 2*time.Minute)

	aliceCert, err := tls.LoadX509KeyPair(f.clientCert, f.clientKey)
	require.NoError(t, err)
	tlsCfg := &tls.Config{RootCAs: f.ca.Pool(), Certificates: []tls.Certificate{aliceCert}}
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addr), kgo.DialTLSConfig(tlsCfg), kgo.DefaultProduceTopic(topic))
	require.NoError(t, err)
	var want []string
	for i := range 200 {
		r := &kgo.Record{Key: []byte("k" + strconv.Itoa(i)), Value: []byte("kgo over TLS")}
		require.NoError(t, cl.ProduceSync(ctx, r).FirstErr())
		want = append(want, "k"+strconv.Itoa(i)+"=kgo over TLS")
	}
	cl.Close()

	kcat := lookKcat(t)
	ssl := []string{"-X", "security.protocol=ssl", "-X", "ssl.ca.location=" + f.caFile,
		"-X", "ssl.certificate.location=" + f.clientCert, "-X", "ssl.key.location=" + f.clientKey}
	var in strings.Builder
	for i := range 100 {
		fmt.Fprintf(&in, "c%d:kcat over TLS\n", i)
		want = append(want, fmt.Sprintf("c%d=kcat over TLS", i))
	}
	run(t, in.String(), kcat, append([]string{"-P", "-b", p.Addr, "-t", topic, "-K:"}, ssl...)...)
	sort.Strings(want)
	got := strings.Split(strings.TrimSpace(run(t, "", kcat,
		append([]string{"-C", "-b", p.Addr, "-t", topic, "-o", "beginning", "-e", "-q", "-f", "%k=%s\n"}, ssl...)...)), "\n")
	sort.Strings(got)
	require.Equal(t, want, got)

	python := lookKafkaPython(t)
	script := filepath.Join(t.TempDir(), "tls.py")
	require.NoError(t, os.WriteFile(script, []byte(`
import sys
from kafka import KafkaProducer, KafkaConsumer
addr, topic, ca, cert, key = sys.argv[1:6]
opts = dict(bootstrap_servers=addr, security_protocol='SSL', ssl_cafile=ca, ssl_certfile=cert, ssl_keyfile=key,
            ssl_check_hostname=True, request_timeout_ms=10000)
producer = KafkaProducer(**opts)
for f in [producer.send(topic, key=b'p%d' % i, value=b'python over TLS') for i in range(20)]:
    f.get(timeout=20)
producer.close(timeout=10)
consumer = KafkaConsumer(topic, group_id=None, auto_offset_reset='earliest', **opts)
n = 0
for m in consumer:
    n += m.key.startswith(b'p')
    if n == 20:
        break
consumer.close()
print(n)
`), 0o600))
	require.Equal(t, "20", strings.TrimSpace(run(t, "", python, script, p.Addr, topic, f.caFile, f.clientCert, f.clientKey)))

	lines := p.Stop(t)
	principals, counted := map[string]int{}, 0
	for _, l := range lines {
		// A client that closes a connection before its handshake ends
		// (kafka-python closing as soon as it has its records, say) gets
		// a close line with no certificate to name.
		if l.Principal == "" && strings.HasPrefix(l.Note, "TLS handshake: ") {
			t.Logf("closed in its handshake: %s", l.raw)
			continue
		}
		principals[l.Principal]++
		counted++
	}
	require.Equal(t, counted, principals["CN=alice,O=acme"], "every line names the certificate's subject: %v", principals)
	require.Len(t, p.Listeners(), 2)
}
