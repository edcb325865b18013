package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"time"

	"github.com/kwirelabs/kwire/app/proxy"
)

// tlsClientFlags are the TLS a client of a broker speaks: kwire proxy's
// upstream side (-upstream-tls, -upstream-ca, ...), kwire send's and
// kwire probe's (-tls, -tls-ca, ...) are the same flags under two
// prefixes.
type tlsClientFlags struct {
	enable, insecure          bool
	ca, cert, key, serverName string
	enableName, prefix        string // the flag names, for errors
}

// register adds -ENABLE and -PREFIXca, -PREFIXcert, -PREFIXkey,
// -PREFIXserver-name; peer names the other side in the help text.
func (f *tlsClientFlags) register(fs *flag.FlagSet, enableName, prefix, peer string) {
	f.enableName, f.prefix = enableName, prefix
	fs.BoolVar(&f.enable, enableName, false, "speak TLS to "+peer+" (implied by the other -"+prefix+"* TLS flags)")
	fs.StringVar(&f.ca, prefix+"ca", "", "PEM CAs to verify "+peer+" with (default: the system's)")
	fs.StringVar(&f.cert, prefix+"cert", "", "a PEM client certificate for "+peer)
	fs.StringVar(&f.key, prefix+"key", "", "the PEM key of -"+prefix+"cert")
	fs.StringVar(&f.serverName, prefix+"server-name", "", "the name the certificates of "+peer+" must carry (default: the host dialled)")
}

// registerInsecure adds -PREFIXinsecure, for the one-shot tools (send,
// probe) pointed at a test cluster's self-signed certificates; the proxy,
// which stays up carrying clients' traffic, has no such switch.
func (f *tlsClientFlags) registerInsecure(fs *flag.FlagSet, peer string) {
	fs.BoolVar(&f.insecure, f.prefix+"insecure", false, "do not verify the certificates of "+peer)
}

// config is the client TLS the flags ask for, or nil for plaintext.
func (f *tlsClientFlags) config() (*tls.Config, error) {
	if (f.cert == "") != (f.key == "") {
		return nil, fmt.Errorf("-%scert and -%skey go together", f.prefix, f.prefix)
	}
	if !f.enable && f.ca == "" && f.cert == "" && f.serverName == "" && !f.insecure {
		return nil, nil
	}
	cfg := &tls.Config{ServerName: f.serverName, InsecureSkipVerify: f.insecure, MinVersion: tls.VersionTLS12}
	if f.ca != "" {
		pool, err := loadPool(f.ca)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if f.cert != "" {
		certs, err := proxy.LoadCertFiles(f.cert, f.key)
		if err != nil {
			return nil, err
		}
		cfg.GetClientCertificate = certs.GetClientCertificate
	}
	return cfg, nil
}

// dialBroker connects to addr, with TLS when cfg is not nil (the server
// name defaults to addr's host), for a one-shot exchange that must end
// within timeout: the deadline covers the dial and the whole connection.
func dialBroker(addr string, cfg *tls.Config, timeout time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(timeout)
	dialer := &net.Dialer{Deadline: deadline}
	var conn net.Conn
	var err error
	if cfg != nil {
		conn, err = tls.DialWithDialer(dialer, "tcp", addr, cfg)
	} else {
		conn, err = dialer.Dial("tcp", addr)
	}
	if err != nil {
		return nil, err
	}
	if err := conn.SetDeadline(deadline); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}
