package proxy

import (
	"crypto/tls"
	"fmt"
	"os"
	"sync"
	"time"
)

// CertFiles is a certificate and key kept in files, reloaded when either
// file changes, so a renewed certificate is served without a restart. A
// reload that fails (a half-written file, say) keeps the last good pair
// and is retried on the next handshake.
type CertFiles struct {
	certFile, keyFile string

	mu      sync.Mutex
	cert    *tls.Certificate
	stamp   [2]fileStamp
	lastErr error
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// LoadCertFiles loads a PEM certificate (chain) and key.
func LoadCertFiles(certFile, keyFile string) (*CertFiles, error) {
	c := &CertFiles{certFile: certFile, keyFile: keyFile}
	if _, err := c.current(); err != nil {
		return nil, err
	}
	return c, nil
}

// GetCertificate is for tls.Config.GetCertificate (serving).
func (c *CertFiles) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return c.current()
}

// GetClientCertificate is for tls.Config.GetClientCertificate (a client
// certificate to the upstream).
func (c *CertFiles) GetClientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	return c.current()
}

// ReloadError is the last reload's error, nil once a reload succeeds.
func (c *CertFiles) ReloadError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lastErr
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{fi.ModTime(), fi.Size()}, nil
}

func (c *CertFiles) current() (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs, err1 := stampOf(c.certFile)
	ks, err2 := stampOf(c.keyFile)
	if c.cert != nil && (err1 != nil || err2 != nil || [2]fileStamp{cs, ks} == c.stamp) {
		return c.cert, nil
	}
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		c.lastErr = fmt.Errorf("loading %s and %s: %w", c.certFile, c.keyFile, err)
		if c.cert != nil {
			return c.cert, nil
		}
		return nil, c.lastErr
	}
	c.cert, c.stamp, c.lastErr = &cert, [2]fileStamp{cs, ks}, nil
	return c.cert, nil
}
