package sniff_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/sniff"
	"github.com/kwirelabs/kwire/app/sniff/capturetest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

// exchange is one request and its response as the test sent them.
type exchange struct {
	key, version int16
	corr         int32
	req, resp    []byte
}

const testClientID = "sniff-test"

// minimalExchanges is every API's minimal request and response at every
// version kwire has, each with its own correlation id from first on.
func minimalExchanges(t testing.TB, first int32) []exchange {
	var out []exchange
	clientID := testClientID
	corr := first
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			req, resp := api.NewRequest(), api.NewResponse()
			require.NoError(t, kwire.FillMinimal(req, v))
			require.NoError(t, kwire.FillMinimal(resp, v))
			if p, ok := req.(*messages.ProduceRequest); ok {
				p.Acks = -1 // acks=0 has no response to pair
			}
			if hs, ok := resp.(*messages.SaslHandshakeResponse); ok {
				hs.ErrorCode = 33 // no raw tokens follow: that is TestSASL's
			}
			rf, err := kwire.AppendRequest(nil, req, v, corr, &clientID)
			require.NoError(t, err, "%s v%d", api.Name, v)
			sf, err := kwire.AppendResponse(nil, resp, v, corr)
			require.NoError(t, err, "%s v%d", api.Name, v)
			out = append(out, exchange{api.Key, v, corr, rf, sf})
			corr++
		}
	}
	return out
}

// seen collects what Read reports, checking each decoded message
// re-encodes to the bytes the test sent.
type seen struct {
	t    testing.TB
	sent map[string]exchange // client address/correlation id
	lost map[string]exchange // sent but cut by a gap or the capture's start
	// requestOnly marks exchanges whose request must come out decoded
	// and whose response is lost.
	requestOnly map[string]bool
	requests    map[string]*sniff.Record
	replies     map[string]*sniff.Record
	kinds       map[sniff.Kind][]sniff.Record
}

func newSeen(t testing.TB) *seen {
	return &seen{t: t, sent: map[string]exchange{}, lost: map[string]exchange{}, requests: map[string]*sniff.Record{}, replies: map[string]*sniff.Record{},
		kinds: map[sniff.Kind][]sniff.Record{}}
}

func exKey(client string, corr int32) string { return fmt.Sprintf("%s/%d", client, corr) }

func (s *seen) record(r *sniff.Record) {
	cp := *r
	cp.Msg = nil
	s.kinds[r.Kind] = append(s.kinds[r.Kind], cp)
	if r.Kind != sniff.Request && r.Kind != sniff.Response {
		return
	}
	k := exKey(r.Client, r.CorrelationID)
	ex, ok := s.sent[k]
	if !ok && s.requestOnly[k] && r.Kind == sniff.Request {
		ex, ok = s.lost[k]
	}
	if r.Msg == nil || r.Err != nil || !ok {
		return // counted as missing below
	}
	if r.Kind == sniff.Response {
		// Summary and ErrorCodes come from one walk: each is what its own function gives.
		assert.Equal(s.t, pretty.Summary(r.Msg, r.Version), r.Summary, "summary %s", k)
		codes, err := kerr.Find(r.Msg, r.Version)
		assert.NoError(s.t, err)
		assert.Equal(s.t, codes, r.ErrorCodes, "error codes %s", k)
	}
	if r.Kind == sniff.Request {
		b, err := kwire.AppendRequest(nil, r.Msg, r.Version, r.CorrelationID, r.ClientID)
		if assert.NoError(s.t, err) && assert.Equal(s.t, ex.req, b, "request %s", k) {
			s.requests[k] = &cp
		}
		return
	}
	b, err := kwire.AppendResponse(nil, r.Msg, r.Version, r.CorrelationID)
	if assert.NoError(s.t, err) && assert.Equal(s.t, ex.resp, b, "response %s", k) {
		s.replies[k] = &cp
	}
}

// checkAll says every exchange sent came out decoded and paired.
func (s *seen) checkAll() {
	missing := 0
	for k, ex := range s.sent {
		req, resp := s.requests[k], s.replies[k]
		// ControlledShutdown v0's header (v0) has no client id.
		wantClientID := ex.key != 7 || ex.version != 0
		ok := req != nil && resp != nil && req.Key == ex.key && req.Version == ex.version &&
			resp.Key == ex.key && resp.Version == ex.version &&
			(resp.ClientID != nil && *resp.ClientID == testClientID) == wantClientID
		if !ok {
			missing++
			if missing < 10 {
				s.t.Errorf("exchange %s (key %d v%d) not decoded and paired: request %v response %v", k, ex.key, ex.version, req, resp)
			}
		}
	}
	assert.Zero(s.t, missing, "of %d exchanges", len(s.sent))
	for k := range s.requestOnly {
		assert.NotNil(s.t, s.requests[k], "request %s", k)
		assert.Nil(s.t, s.replies[k], "response %s", k)
	}
}

func read(t testing.TB, capture []byte, opt sniff.Options, s *seen) *sniff.Stats {
	stats, err := sniff.Read(bytes.NewReader(capture), opt, s.record)
	require.NoError(t, err)
	return stats
}

// interleaved captures exchanges on four connections at once: one in
// whole segments, one in 7-byte segments, one with segments swapped and
// sent twice, one with frames sharing segments. Two requests are in
// flight on each.
func interleaved(t testing.TB, exs []exchange, s *seen) *capturetest.Capture {
	c := capturetest.New()
	conns := []*capturetest.Conn{
		c.Dial("10.0.0.5:51000", "10.0.0.9:9092", true),
		c.Dial("10.0.0.6:51001", "10.0.0.9:9092", true),
		c.Dial("[fd00::7]:51002", "[fd00::9]:9092", true),
		c.Dial("10.0.0.8:51003", "10.0.0.10:19092", true),
	}
	send := func(i int, fromClient bool, data []byte) {
		k := conns[i]
		switch i {
		case 0:
			k.Send(fromClient, data, 1460)
		case 1:
			k.Send(fromClient, data, 7)
		case 2:
			segs := k.Segments(fromClient, data, 50)
			for j := 0; j+1 < len(segs); j += 2 {
				segs[j], segs[j+1] = segs[j+1], segs[j]
			}
			for j, seg := range segs {
				c.Add(seg)
				if j%3 == 0 {
					c.Add(seg) // retransmitted
				}
			}
		case 3:
			k.Send(fromClient, data, 1460)
		}
	}
	// Each connection's frames in order, responses two exchanges behind
	// (conn 3: frames two to a send).
	type op struct {
		fromClient bool
		data       []byte
	}
	ops := make([][]op, len(conns))
	mine := make([][]exchange, len(conns))
	for n, ex := range exs {
		i := n % len(conns)
		s.sent[exKey(conns[i].Client(), ex.corr)] = ex
		mine[i] = append(mine[i], ex)
	}
	for i, list := range mine {
		step := 1
		if i == 3 {
			step = 2
		}
		var pending [][]byte
		for j := 0; j < len(list); j += step {
			var req, resp []byte
			for _, ex := range list[j:min(j+step, len(list))] {
				req, resp = append(req, ex.req...), append(resp, ex.resp...)
			}
			ops[i] = append(ops[i], op{true, req})
			pending = append(pending, resp)
			if len(pending) > 2 {
				ops[i] = append(ops[i], op{false, pending[0]})
				pending = pending[1:]
			}
		}
		for _, resp := range pending {
			ops[i] = append(ops[i], op{false, resp})
		}
	}
	for more := true; more; {
		more = false
		for i := range ops {
			if len(ops[i]) > 0 {
				send(i, ops[i][0].fromClient, ops[i][0].data)
				ops[i] = ops[i][1:]
				more = true
			}
		}
	}
	return c
}

func TestEveryAPIDecodedAndPaired(t *testing.T) {
	exs := minimalExchanges(t, 0)
	require.Greater(t, len(exs), 300)
	for _, format := range []string{"pcap", "pcapng"} {
		t.Run(format, func(t *testing.T) {
			s := newSeen(t)
			c := interleaved(t, exs, s)
			capture := c.Pcap()
			if format == "pcapng" {
				capture = c.Pcapng()
			}
			stats := read(t, capture, sniff.Options{}, s)
			s.checkAll()
			assert.EqualValues(t, 4, stats.Connections)
			assert.EqualValues(t, len(exs), stats.Paired)
			assert.Zero(t, stats.Undecodable+stats.Unpaired+stats.Unanswered+stats.Gaps+stats.SkippedBytes)
			assert.Len(t, s.kinds[sniff.Open], 4)
		})
	}
}

// TestLinkTypes: the same traffic captured as tcpdump -i any writes it
// (Linux cooked v1 and v2), on a BSD loopback, and as raw IP.
func TestLinkTypes(t *testing.T) {
	exs := someExchanges(t, 60)
	for _, link := range []layers.LinkType{layers.LinkTypeLinuxSLL, layers.LinkTypeLinuxSLL2, layers.LinkTypeNull, layers.LinkTypeRaw} {
		t.Run(link.String(), func(t *testing.T) {
			s := newSeen(t)
			c := interleaved(t, exs, s)
			stats := read(t, c.PcapAs(link), sniff.Options{}, s)
			s.checkAll()
			assert.EqualValues(t, 4, stats.Connections)
			assert.Zero(t, stats.NotTCP)
		})
	}
}
