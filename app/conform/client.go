package conform

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/kwirelabs/kwire/app/saslclient"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/wire"
)

// maxAnswer bounds the frame a check accepts: a broker's answer to the
// checker's small requests is far below it, and it bounds memory.
const maxAnswer = 16 << 20

// client is one connection to the broker, logged in when the options
// ask, with its own correlation ids.
type client struct {
	conn    net.Conn
	frames  *kwire.FrameReader
	corr    int32
	id      string
	timeout time.Duration
}

// dial opens a connection as the options say (TLS, SASL).
func (r *runner) dial() (*client, error) {
	ctx, cancel := context.WithTimeout(r.ctx, r.opts.Timeout)
	defer cancel()
	var conn net.Conn
	var err error
	if r.opts.Dial != nil {
		conn, err = r.opts.Dial(ctx, r.addr)
	} else {
		var d net.Dialer
		conn, err = d.DialContext(ctx, "tcp", r.addr)
	}
	if err != nil {
		return nil, err
	}
	if r.opts.TLS != nil {
		cfg := r.opts.TLS.Clone()
		if cfg.ServerName == "" && !cfg.InsecureSkipVerify {
			if host, _, err := net.SplitHostPort(r.addr); err == nil {
				cfg.ServerName = host
			}
		}
		tc := tls.Client(conn, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, fmt.Errorf("TLS: %w", err)
		}
		conn = tc
	}
	c := &client{conn: conn, frames: kwire.NewFrameReader(conn, maxAnswer), corr: 1, id: r.opts.ClientID, timeout: r.opts.Timeout}
	if r.opts.SASL != nil {
		conn.SetDeadline(time.Now().Add(r.opts.Timeout))
		if err := saslclient.Login(conn, *r.opts.SASL, c.id, 1000); err != nil {
			conn.Close()
			return nil, fmt.Errorf("SASL: %w", err)
		}
		conn.SetDeadline(time.Time{})
	}
	return c, nil
}

func (c *client) close() {
	if c != nil {
		c.conn.Close()
	}
}

// nextCorr is the correlation id of the next request: distinct and
// never 0, so an answer that echoes nothing shows.
func (c *client) nextCorr() int32 {
	c.corr++
	return c.corr*7 + 1000
}

// request encodes msg at version as a frame with the next correlation id.
func (c *client) request(msg any, version int16) ([]byte, int32, error) {
	corr := c.nextCorr()
	id := c.id
	frame, err := kwire.AppendRequest(nil, msg, version, corr, &id)
	return frame, corr, err
}

// requestHead is the head of frame, a request's size prefix and body.
func requestHead(frame []byte) wire.RequestHead {
	h, _ := wire.ConsumeRequestHead(frame[wire.FrameSizeLen:])
	return h
}

// setHead rewrites the API key and version of frame, a request, keeping
// its correlation id: a request the broker must refuse.
func setHead(frame []byte, key, version int16) {
	h := requestHead(frame)
	h.APIKey, h.APIVersion = key, version
	wire.PutRequestHead(frame[wire.FrameSizeLen:], h)
}

// responseCorr is the correlation id of frame, a response's size prefix
// and body; 0, which nextCorr never gives, when frame is too short to
// hold one.
func responseCorr(frame []byte) int32 {
	if len(frame) < wire.FrameSizeLen {
		return 0
	}
	corr, _ := wire.ConsumeResponseCorrelationID(frame[wire.FrameSizeLen:])
	return corr
}

// write sends raw bytes within the timeout.
func (c *client) write(b []byte) error {
	c.conn.SetWriteDeadline(time.Now().Add(c.timeout))
	_, err := c.conn.Write(b)
	return err
}

// read waits for the next frame within the timeout; the frame is a copy.
func (c *client) read() ([]byte, error) {
	c.conn.SetReadDeadline(time.Now().Add(c.timeout))
	f, err := c.frames.Next()
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), f...), nil
}

// noAnswer says why no answer came, as a check's detail.
func noAnswer(err error, timeout time.Duration) string {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Sprintf("no answer within %s", timeout)
	case errors.Is(err, io.EOF):
		return "the broker closed the connection without answering"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the broker closed the connection in the middle of its answer"
	}
	return "no answer: " + err.Error()
}
