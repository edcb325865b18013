package proxy

import (
	"crypto/tls"
	"net"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/testcerts"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// TestTLSBothWays: a client with a certificate reaches a TLS upstream
// through the proxy's TLS listener; its certificate's subject is the
// connection's principal; a renewed server certificate is served without
// a restart; a client without a certificate, or speaking plaintext, is
// refused with a line that says why.
func TestTLSBothWays(t *testing.T) {
	ca, err := testcerts.NewCA("kwire test CA")
	require.NoError(t, err)
	dir := t.TempDir()
	server, err := ca.Server("proxy-1", "127.0.0.1")
	require.NoError(t, err)
	certFile, keyFile, err := server.Write(dir, "proxy")
	require.NoError(t, err)
	certs, err := LoadCertFiles(certFile, keyFile)
	require.NoError(t, err)

	upLeaf, err := ca.Server("broker", "127.0.0.1")
	require.NoError(t, err)
	upCert, err := upLeaf.TLS()
	require.NoError(t, err)
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	up := startAnswering(t, tls.NewListener(raw, &tls.Config{Certificates: []tls.Certificate{upCert}}))

	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(),
		TLS:         &tls.Config{GetCertificate: certs.GetCertificate, ClientCAs: ca.Pool(), ClientAuth: tls.RequireAndVerifyClientCert},
		UpstreamTLS: &tls.Config{RootCAs: ca.Pool()},
	}, log, trafficlog.Options{})

	alice, err := ca.Client("alice", "acme")
	require.NoError(t, err)
	aliceCert, err := alice.TLS()
	require.NoError(t, err)
	dial := func() (*tls.Conn, error) {
		return tls.Dial("tcp", p.Addr().String(), &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{aliceCert}})
	}
	c, err := dial()
	require.NoError(t, err)
	assert.Equal(t, "proxy-1", c.ConnectionState().PeerCertificates[0].Subject.CommonName)
	require.NoError(t, roundTrip(c, 1))
	c.Close()

	// A renewed certificate, written over the old files.
	renewed, err := ca.Server("proxy-2", "127.0.0.1")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(certFile, renewed.CertPEM, 0o600))
	require.NoError(t, os.WriteFile(keyFile, renewed.KeyPEM, 0o600))
	c, err = dial()
	require.NoError(t, err)
	assert.Equal(t, "proxy-2", c.ConnectionState().PeerCertificates[0].Subject.CommonName, "the renewed certificate")
	require.NoError(t, roundTrip(c, 2))
	c.Close()

	// No client certificate: refused.
	nc, err := tls.Dial("tcp", p.Addr().String(), &tls.Config{RootCAs: ca.Pool()})
	if err == nil {
		_, err = kwire.NewFrameReader(nc, 0).Next() // TLS 1.3 reports it on the first read
		nc.Close()
	}
	assert.Error(t, err)

	// Plaintext on the TLS port.
	pc, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	_, err = pc.Write(frameOf(kwire.AppendRequest(nil, messages.NewApiVersionsRequest(), 3, 1, nil)))
	require.NoError(t, err)
	_, err = kwire.NewFrameReader(pc, 0).Next()
	assert.Error(t, err)
	pc.Close()

	require.NoError(t, p.close())
	text := log.String()
	assert.Contains(t, text, `user="CN=alice,O=acme"`)
	assert.Contains(t, text, "TLS handshake")
	assert.Contains(t, text, "client speaks plaintext on the TLS port")
}
