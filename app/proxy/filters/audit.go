package filters

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/kwirelabs/kwire/app/proxy"
	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
)

// Audit writes one JSON line per request: when, from which client
// address, as which principal (SASL user or TLS subject) and whether it
// was verified (proxy.Conn.PrincipalVerified: a TLS certificate the proxy
// verified, or a login the broker accepted; otherwise only claimed),
// over TLS or not, which API, and the client id. The lines carry no
// message bodies, so no secret can reach them.
//
//	{"time":"2026-01-02T21:04:05.123Z","conn":3,"client_addr":"10.1.2.3:50122","principal":"alice","principal_verified":true,"tls":true,"api":"Produce","version":11,"client_id":"orders-svc"}
type Audit struct {
	mu  sync.Mutex
	out io.Writer
	err error
}

// NewAudit writes to out; a write error stops the audit (see Err).
func NewAudit(out io.Writer) *Audit { return &Audit{out: out} }

type auditLine struct {
	Time       string  `json:"time"`
	Conn       int     `json:"conn"`
	ClientAddr string  `json:"client_addr"`
	Principal  string  `json:"principal,omitempty"`
	Verified   bool    `json:"principal_verified"`
	TLS        bool    `json:"tls"`
	API        string  `json:"api"`
	Version    int16   `json:"version"`
	ClientID   *string `json:"client_id,omitempty"`
	// The connection's ClientInstanceId (request header v3, KIP-1313).
	ClientInstanceID string `json:"client_instance_id,omitempty"`
}

func (a *Audit) Request(c *proxy.Conn, r *proxy.Request) proxy.Action {
	l := auditLine{Time: time.Now().UTC().Format(time.RFC3339Nano), Conn: c.ID,
		ClientAddr: c.ClientAddr.String(), Principal: c.Principal(), Verified: c.PrincipalVerified(), TLS: c.TLS != nil,
		API: trafficlog.APIName(r.Header.APIKey), Version: r.Header.APIVersion, ClientID: r.Header.ClientID}
	if l.ClientID == nil { // a KIP-1313 client names itself on its first request only
		l.ClientID = c.ClientID()
	}
	if id := c.ClientInstanceID(); id != (kwire.UUID{}) {
		l.ClientInstanceID = id.String()
	}
	line, _ := json.Marshal(l)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == nil {
		_, a.err = a.out.Write(append(line, '\n'))
	}
	return proxy.Pass
}

func (a *Audit) Response(*proxy.Conn, *proxy.Response) proxy.Action { return proxy.Pass }

// Err is the first write error, if any.
func (a *Audit) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}
