package proxy

import (
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/trafficlog"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// funcFilter is a Filter from two functions (nil passes).
type funcFilter struct {
	req  func(*Conn, *Request) Action
	resp func(*Conn, *Response) Action
}

func (f funcFilter) Request(c *Conn, r *Request) Action {
	if f.req == nil {
		return Pass
	}
	return f.req(c, r)
}

func (f funcFilter) Response(c *Conn, r *Response) Action {
	if f.resp == nil {
		return Pass
	}
	return f.resp(c, r)
}

// TestFilterAnswerKeepsOrder: a filter's answer to request 2 waits for
// the upstream's answer to request 1, as Kafka's order demands, and
// nothing of request 2 goes upstream.
func TestFilterAnswerKeepsOrder(t *testing.T) {
	up := startUpstream(t)
	deny := funcFilter{req: func(c *Conn, r *Request) Action {
		if r.Header.APIKey == 16 { // ListGroups
			return AnswerError(r, kerr.ClusterAuthorizationFailed)
		}
		return Pass
	}}
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Filters: []Filter{deny}}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()

	hb := frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, nil))
	_, err = c.Write(hb)
	require.NoError(t, err)
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewListGroupsRequest(), 4, 2, nil)))
	require.NoError(t, err)
	waitFor(t, log, "answered by a filter")
	up.answers <- frameOf(kwire.AppendResponse(nil, messages.NewHeartbeatResponse(), 4, 1))

	frames := kwire.NewFrameReader(c, 0)
	f, err := frames.Next()
	require.NoError(t, err)
	corr, _ := kwire.PeekResponse(f)
	assert.EqualValues(t, 1, corr, "an answer overtook the response to an earlier request")
	f, err = frames.Next()
	require.NoError(t, err)
	h, body, err := messages.ReadResponse(f, 16, 4)
	require.NoError(t, err)
	assert.EqualValues(t, 2, h.CorrelationID)
	assert.EqualValues(t, kerr.ClusterAuthorizationFailed, body.(*messages.ListGroupsResponse).ErrorCode)
	require.NoError(t, p.close())
	assert.Equal(t, hb, up.received(), "only the heartbeat went upstream")
}

// TestFilterChangesBothWays: a filter's change to a request is what the
// upstream gets, and its OnResponse hook's change is what the client gets.
func TestFilterChangesBothWays(t *testing.T) {
	up := startUpstream(t)
	rename := funcFilter{req: func(c *Conn, r *Request) Action {
		if m, ok := r.Body.(*messages.MetadataRequest); ok {
			name := "renamed"
			m.Topics = []messages.MetadataRequestTopic{{Name: &name}}
			r.Changed()
			r.OnResponse(func(c *Conn, resp *Response) {
				md := resp.Body.(*messages.MetadataResponse)
				md.Topics[0].Name = &name
				md.Topics[0].ErrorCode = int16(kerr.TopicAuthorizationFailed)
				resp.Changed()
			})
		}
		return Pass
	}}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Filters: []Filter{rename}}, io.Discard, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	md := messages.NewMetadataResponse()
	orig := "original"
	md.Topics = []messages.MetadataResponseTopic{{Name: &orig}}
	up.answers <- frameOf(kwire.AppendResponse(nil, md, 12, 5))
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewMetadataRequest(), 12, 5, nil)))
	require.NoError(t, err)
	_, body, err := messages.ReadResponse(readFrame(t, c), 3, 12)
	require.NoError(t, err)
	got := body.(*messages.MetadataResponse).Topics[0]
	assert.Equal(t, "renamed", *got.Name)
	assert.EqualValues(t, kerr.TopicAuthorizationFailed, got.ErrorCode)
	require.NoError(t, p.close())
	_, sent, err := messages.ReadRequest(up.received())
	require.NoError(t, err)
	assert.Equal(t, "renamed", *sent.(*messages.MetadataRequest).Topics[0].Name)
}

// TestFilterCloses: CloseConn ends the connection, with the reason logged.
func TestFilterCloses(t *testing.T) {
	up := startUpstream(t)
	closer := funcFilter{req: func(c *Conn, r *Request) Action { return CloseConn("no heartbeats here") }}
	log := &syncBuffer{}
	p := startProxy(t, Config{Upstream: up.ln.Addr().String(), Filters: []Filter{closer}}, log, trafficlog.Options{})
	c, err := dialT(t, p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write(frameOf(kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, nil)))
	require.NoError(t, err)
	_, err = kwire.NewFrameReader(c, 0).Next()
	assert.ErrorIs(t, err, io.EOF)
	require.NoError(t, p.close())
	assert.Contains(t, log.String(), "closed by a filter: no heartbeats here")
	assert.Empty(t, up.received())
}
