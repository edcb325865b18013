package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// Readiness says whether the proxy can serve clients: its bootstrap
// listener accepts and the upstream answered an ApiVersions within the
// last interval. It probes the upstream on a connection of its own
// (not logged, not counted as a client's).
type Readiness struct {
	p        *Proxy
	interval time.Duration

	mu      sync.Mutex
	last    time.Time // the last answer
	lastErr error     // the last probe's failure; nil after an answer
}

// Readiness probes the upstream every interval until ctx is done.
func (p *Proxy) Readiness(ctx context.Context, interval time.Duration) *Readiness {
	r := &Readiness{p: p, interval: interval, lastErr: errors.New("the upstream has not been probed yet")}
	go r.run(ctx)
	return r
}

func (r *Readiness) run(ctx context.Context) {
	for {
		pctx, cancel := context.WithTimeout(ctx, r.interval)
		err := r.p.probeUpstream(pctx)
		cancel()
		r.mu.Lock()
		if err == nil {
			r.last, r.lastErr = time.Now(), nil
		} else {
			r.lastErr = err
		}
		r.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(r.interval):
		}
	}
}

// Ready is nil when the proxy is ready, else why not.
func (r *Readiness) Ready() error {
	select {
	case <-r.p.Ready():
	default:
		return errors.New("the Kafka listener is not open yet")
	}
	if r.p.isClosing() {
		return errors.New("shutting down")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// a probe in progress may take up to an interval, after a pause of one
	if !r.last.IsZero() && time.Since(r.last) <= 2*r.interval+time.Second {
		return nil
	}
	if r.last.IsZero() {
		return fmt.Errorf("the upstream %s has not answered an ApiVersions: %v", r.p.cfg.Upstream, r.lastErr)
	}
	return fmt.Errorf("the upstream %s last answered an ApiVersions %v ago: %v", r.p.cfg.Upstream, time.Since(r.last).Round(time.Second), r.lastErr)
}

// probeUpstream sends the upstream an ApiVersions v0 on a connection of
// its own and reads the answer.
func (p *Proxy) probeUpstream(ctx context.Context) error {
	dial := p.cfg.Dial
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	c, err := dial(ctx, "tcp", p.cfg.Upstream)
	if err != nil {
		return err
	}
	defer c.Close()
	if d, ok := ctx.Deadline(); ok {
		c.SetDeadline(d)
	}
	if p.cfg.UpstreamTLS != nil {
		cfg := p.cfg.UpstreamTLS.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(p.cfg.Upstream)
		}
		tc := tls.Client(c, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return fmt.Errorf("TLS: %w", err)
		}
		c = tc
	}
	id := "kwire-proxy-readiness"
	req, err := kwire.AppendRequest(nil, messages.NewApiVersionsRequest(), 0, 1, &id)
	if err != nil {
		return err
	}
	if _, err := c.Write(req); err != nil {
		return err
	}
	f, err := kwire.NewFrameReader(c, 1<<20).Next()
	if err != nil {
		return err
	}
	_, body, err := messages.ReadResponse(f, keyApiVersions, 0)
	if err != nil {
		return err
	}
	if code := body.(*messages.ApiVersionsResponse).ErrorCode; code != 0 {
		return fmt.Errorf("ApiVersions answered error code %d", code)
	}
	return nil
}
