package sniff_test

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/app/sniff"
	"github.com/kwirelabs/kwire/app/sniff/capturetest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// span is where an exchange's frames lie in a capture's packet list.
type span struct{ reqFirst, reqLast, respFirst, respLast int }

// sequential captures exchanges one after the other on k, in segments
// of mss bytes, and returns where each went.
func sequential(c *capturetest.Capture, k *capturetest.Conn, exs []exchange, mss int) []span {
	var out []span
	for _, ex := range exs {
		var sp span
		sp.reqFirst = len(c.Packets)
		k.Send(true, ex.req, mss)
		sp.reqLast = len(c.Packets) - 1
		sp.respFirst = len(c.Packets)
		k.Send(false, ex.resp, mss)
		sp.respLast = len(c.Packets) - 1
		out = append(out, sp)
	}
	return out
}

// someExchanges is a mix of APIs, with correlation ids from 1000 (as a
// busy client's are).
func someExchanges(t testing.TB, n int) []exchange {
	all := minimalExchanges(t, 1000)
	var out []exchange
	for i := 0; len(out) < n; i += 7 {
		out = append(out, all[i%len(all)])
		out[len(out)-1].corr = int32(1000 + len(out) - 1)
		ex := &out[len(out)-1]
		binary.BigEndian.PutUint32(ex.req[8:], uint32(ex.corr))
		binary.BigEndian.PutUint32(ex.resp[4:], uint32(ex.corr))
	}
	return out
}

// noFalseFrames fails if a decoded request or response is not one the
// test sent (seen.record checks the bytes of those that are).
func noFalseFrames(t *testing.T, s *seen) {
	for _, kind := range []sniff.Kind{sniff.Request, sniff.Response} {
		for _, r := range s.kinds[kind] {
			if r.Key >= 0 && r.Err == nil {
				_, ok := s.sent[exKey(r.Client, r.CorrelationID)]
				_, lost := s.lost[exKey(r.Client, r.CorrelationID)]
				assert.True(t, ok || lost, "%s %s v%d corr %d was never sent", kind, apiName(r.Key), r.Version, r.CorrelationID)
			}
		}
	}
}

func apiName(key int16) string {
	a, _ := messages.Lookup(key)
	return a.Name
}

// TestCaptureStartsMidStream: a capture that begins inside a request
// finds the connection at the next request and decodes all that follow.
func TestCaptureStartsMidStream(t *testing.T) {
	exs := someExchanges(t, 40)
	c := capturetest.New()
	k := c.Dial("10.1.0.5:42000", "10.1.0.9:9092", true)
	spans := sequential(c, k, exs, 10)
	for cut := 10; cut < 13; cut++ {
		require.Greater(t, spans[cut].reqLast, spans[cut].reqFirst+1)
		mid := *c
		mid.Packets = c.Packets[spans[cut].reqFirst+1:]
		for _, format := range []string{"pcap", "pcapng"} {
			t.Run(fmt.Sprintf("cut%d/%s", cut, format), func(t *testing.T) {
				s := newSeen(t)
				for _, ex := range exs[cut+1:] {
					s.sent[exKey(k.Client(), ex.corr)] = ex
				}
				s.lost[exKey(k.Client(), exs[cut].corr)] = exs[cut]
				capture := mid.Pcap()
				if format == "pcapng" {
					capture = mid.Pcapng()
				}
				stats := read(t, capture, sniff.Options{}, s)
				s.checkAll()
				noFalseFrames(t, s)
				require.Len(t, s.kinds[sniff.Open], 1)
				assert.Contains(t, s.kinds[sniff.Open][0].Note, "capture starts inside the connection")
				assert.Equal(t, "10.1.0.5:42000", s.kinds[sniff.Open][0].Client)
				assert.EqualValues(t, len(exs)-cut-1, stats.Paired)
				assert.Zero(t, stats.Undecodable)
			})
		}
	}
}

// TestGapReported: a segment missing from each direction is reported as
// a gap; the frames it cut are not decoded, all others are, and paired.
func TestGapReported(t *testing.T) {
	exs := someExchanges(t, 30)
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("late=%v", late), func(t *testing.T) {
			c := capturetest.New()
			k := c.Dial("10.1.0.6:42001", "10.1.0.9:9092", true)
			var spans []span
			for i := range exs {
				spans = append(spans, sequential(c, k, exs[i:i+1], 10)...)
				if late && i == 12 {
					c.Tick(5 * time.Second) // past the reorder window: the hole is flushed mid-capture
				}
			}
			cutReq, cutResp := -1, -1
			for i, sp := range spans {
				if cutReq < 0 && i >= 10 && sp.reqLast > sp.reqFirst+1 {
					cutReq = i
				}
				if cutReq >= 0 && cutResp < 0 && i >= cutReq+5 && sp.respLast > sp.respFirst+1 {
					cutResp = i
				}
			}
			require.True(t, cutReq > 0 && cutResp > 0)
			dropReq, dropResp := spans[cutReq].reqFirst+1, spans[cutResp].respFirst+1
			var kept []capturetest.Packet
			for i, p := range c.Packets {
				if i != dropReq && i != dropResp {
					kept = append(kept, p)
				}
			}
			c.Packets = kept

			s := newSeen(t)
			for i, ex := range exs {
				if i != cutReq && i != cutResp {
					s.sent[exKey(k.Client(), ex.corr)] = ex
				}
			}
			s.lost[exKey(k.Client(), exs[cutReq].corr)] = exs[cutReq]
			s.lost[exKey(k.Client(), exs[cutResp].corr)] = exs[cutResp]
			// The request of exchange cutResp is whole; only its response is cut.
			s.requestOnly = map[string]bool{exKey(k.Client(), exs[cutResp].corr): true}
			stats := read(t, c.Pcap(), sniff.Options{}, s)
			s.checkAll()
			noFalseFrames(t, s)
			assert.EqualValues(t, 2, stats.Gaps)
			require.Len(t, s.kinds[sniff.Gap], 2+countResyncs(s))
			var gaps []string
			for _, g := range s.kinds[sniff.Gap] {
				gaps = append(gaps, g.Note)
			}
			text := strings.Join(gaps, "\n")
			assert.Contains(t, text, "10 bytes from the client missing from the capture")
			assert.Contains(t, text, "10 bytes from the broker missing from the capture")
			assert.EqualValues(t, 1, stats.Unpaired, "the response to the request cut by the gap")
			assert.EqualValues(t, 1, stats.Unanswered, "the request whose response was cut")
			assert.EqualValues(t, len(exs)-2, stats.Paired-0) // 28 whole exchanges
			assert.Zero(t, stats.Undecodable)
		})
	}
}

func countResyncs(s *seen) int {
	n := 0
	for _, g := range s.kinds[sniff.Gap] {
		if strings.HasPrefix(g.Note, "resynchronised") {
			n++
		}
	}
	return n
}

// TestTooNewAPIVersions: Kafka's v0 answer to an ApiVersions newer than
// the broker reads is decoded at v0 and paired, and the retry after it.
func TestTooNewAPIVersions(t *testing.T) {
	api, _ := messages.Lookup(18)
	newer := api.MaxVersion + 1
	clientID := "kgo"
	// Request header v2 and a flexible body, by hand: kwire has no
	// struct for a version it does not know.
	var req []byte
	req = binary.BigEndian.AppendUint16(req, 18)
	req = binary.BigEndian.AppendUint16(req, uint16(newer))
	req = binary.BigEndian.AppendUint32(req, 1)
	req = binary.BigEndian.AppendUint16(req, uint16(len(clientID)))
	req = append(req, clientID...)
	req = append(req, 0)                                     // header tags
	req = append(req, 4, 'k', 'g', 'o', 4, '1', '.', '0', 0) // software name, version, tags
	req = append(binary.BigEndian.AppendUint32(nil, uint32(len(req))), req...)
	resp := kwire.AppendUnsupportedAPIVersions(nil, 1, kwire.APIVersionRange{APIKey: 18, MinVersion: 0, MaxVersion: api.MaxVersion})
	retry, err := kwire.AppendRequest(nil, &messages.ApiVersionsRequest{ClientSoftwareName: "kgo", ClientSoftwareVersion: "1.0"}, 3, 2, &clientID)
	require.NoError(t, err)
	answer := &messages.ApiVersionsResponse{}
	require.NoError(t, kwire.FillMinimal(answer, 3))
	retryResp, err := kwire.AppendResponse(nil, answer, 3, 2)
	require.NoError(t, err)

	c := capturetest.New()
	k := c.Dial("10.1.0.7:42002", "10.1.0.9:9092", true)
	k.Send(true, req, 1460)
	k.Send(false, resp, 1460)
	k.Send(true, retry, 1460)
	k.Send(false, retryResp, 1460)
	var got []sniff.Record
	var first *messages.ApiVersionsResponse
	stats, err := sniff.Read(strings.NewReader(string(c.Pcap())), sniff.Options{}, func(r *sniff.Record) {
		got = append(got, *r)
		if m, ok := r.Msg.(*messages.ApiVersionsResponse); ok && r.CorrelationID == 1 {
			cp := *m
			first = &cp
		}
	})
	require.NoError(t, err)
	require.Len(t, got, 5) // open, 2 requests, 2 responses
	assert.Equal(t, sniff.Request, got[1].Kind)
	assert.Equal(t, newer, got[1].Version)
	assert.Error(t, got[1].Err, "kwire reads no ApiVersions v%d", newer)
	assert.Equal(t, sniff.Response, got[2].Kind)
	assert.EqualValues(t, 18, got[2].Key)
	assert.EqualValues(t, 0, got[2].Version)
	assert.NoError(t, got[2].Err)
	assert.Contains(t, got[2].Note, fmt.Sprintf("v0 answer to ApiVersions v%d", newer))
	require.NotNil(t, first)
	assert.EqualValues(t, 35, first.ErrorCode)
	assert.NoError(t, got[4].Err)
	assert.EqualValues(t, 3, got[4].Version)
	assert.EqualValues(t, 2, stats.Paired)
}

// TestFrameOverLimit: a frame over MaxFrame is named by its header,
// paired, and skipped without being buffered; the next one decodes.
func TestFrameOverLimit(t *testing.T) {
	clientID := "big"
	md := &messages.MetadataRequest{}
	for i := range 40 {
		md.Topics = append(md.Topics, messages.MetadataRequestTopic{Name: ptr(fmt.Sprintf("topic-%02d", i))})
	}
	big, err := kwire.AppendRequest(nil, md, 12, 7, &clientID)
	require.NoError(t, err)
	mdr := &messages.MetadataResponse{}
	require.NoError(t, kwire.FillMinimal(mdr, 12))
	small, err := kwire.AppendResponse(nil, mdr, 12, 7)
	require.NoError(t, err)
	exs := someExchanges(t, 3)

	c := capturetest.New()
	k := c.Dial("10.1.0.8:42003", "10.1.0.9:9092", true)
	k.Send(true, big, 100)
	k.Send(false, small, 100)
	sequential(c, k, exs, 100)
	s := newSeen(t)
	for _, ex := range exs {
		s.sent[exKey(k.Client(), ex.corr)] = ex
	}
	stats := read(t, c.Pcap(), sniff.Options{MaxFrame: 300}, s)
	s.checkAll()
	require.Greater(t, len(big), 304)
	reqs := s.kinds[sniff.Request]
	require.NotEmpty(t, reqs)
	assert.EqualValues(t, 3, reqs[0].Key)
	assert.EqualValues(t, 7, reqs[0].CorrelationID)
	assert.Equal(t, len(big), reqs[0].Size)
	assert.ErrorContains(t, reqs[0].Err, "over the limit of 300")
	assert.EqualValues(t, 4, stats.Paired)
}

func ptr[T any](v T) *T { return &v }

// TestCaptureCutInsidePacket: a file that ends inside a packet (a pipe
// stopped) reads as far as it goes.
func TestCaptureCutInsidePacket(t *testing.T) {
	exs := someExchanges(t, 10)
	c := capturetest.New()
	k := c.Dial("10.1.0.9:42004", "10.1.0.9:9092", true)
	sequential(c, k, exs, 1460)
	data := c.Pcap()
	s := newSeen(t)
	for _, ex := range exs[:9] {
		s.sent[exKey(k.Client(), ex.corr)] = ex
	}
	s.lost[exKey(k.Client(), exs[9].corr)] = exs[9]
	s.requestOnly = map[string]bool{exKey(k.Client(), exs[9].corr): true}
	stats := read(t, data[:len(data)-5], sniff.Options{}, s)
	assert.True(t, stats.Truncated)
	s.checkAll()
	assert.EqualValues(t, 9, stats.Paired)
	assert.EqualValues(t, 1, stats.Unanswered)
	require.NotEmpty(t, s.kinds[sniff.Close])
	assert.Contains(t, s.kinds[sniff.Close][0].Note, "1 requests unanswered")
}

// TestNotKafka: a connection whose client speaks first but not Kafka is
// left alone, silently without -port and said with it; TLS is named.
func TestNotKafka(t *testing.T) {
	c := capturetest.New()
	http := c.Dial("10.2.0.5:43000", "10.2.0.9:9092", true)
	http.Send(true, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 1460)
	http.Send(false, []byte("HTTP/1.1 200 OK\r\n\r\n"), 1460)
	for _, ports := range [][]uint16{nil, {9092}} {
		var got []sniff.Record
		stats, err := sniff.Read(strings.NewReader(string(c.Pcap())), sniff.Options{Ports: ports}, func(r *sniff.Record) { got = append(got, *r) })
		require.NoError(t, err)
		assert.EqualValues(t, 1, stats.NotKafka)
		assert.Zero(t, stats.Connections)
		if ports == nil {
			assert.Empty(t, got)
		} else {
			require.Len(t, got, 1)
			assert.Contains(t, got[0].Note, "10.2.0.5:43000 → 10.2.0.9:9092: not Kafka")
		}
	}
}

func TestNotACapture(t *testing.T) {
	for _, in := range []string{"", "abc", "not a capture at all, just text"} {
		_, err := sniff.Read(strings.NewReader(in), sniff.Options{}, func(*sniff.Record) {})
		assert.Error(t, err, "%q", in)
	}
}

// TestIdleConnectionDropped: a connection silent for longer than Idle
// (capture time) is closed and its state dropped while the capture goes
// on, so long captures do not keep every connection ever seen.
func TestIdleConnectionDropped(t *testing.T) {
	exs := someExchanges(t, 4)
	c := capturetest.New()
	idle := c.Dial("10.5.0.1:44000", "10.5.0.9:9092", true)
	idle.Send(true, exs[0].req, 1460) // never answered
	c.Tick(11 * time.Minute)
	busy := c.Dial("10.5.0.2:44001", "10.5.0.9:9092", true)
	for i := range 3 {
		c.Tick(2 * time.Second)
		busy.Send(true, exs[1+i].req, 1460)
		busy.Send(false, exs[1+i].resp, 1460)
	}
	var order []string
	_, err := sniff.Read(strings.NewReader(string(c.Pcap())), sniff.Options{}, func(r *sniff.Record) {
		order = append(order, fmt.Sprintf("%s %s", r.Client, r.Kind))
	})
	require.NoError(t, err)
	closeAt, lastBusy := -1, -1
	for i, o := range order {
		if o == "10.5.0.1:44000 close" {
			closeAt = i
		}
		if strings.HasPrefix(o, "10.5.0.2:44001 response") {
			lastBusy = i
		}
	}
	require.GreaterOrEqual(t, closeAt, 0, "%v", order)
	assert.Less(t, closeAt, lastBusy, "the idle connection is closed while the capture goes on: %v", order)
}

// TestPcapngInterfaceIDOutOfRange: a packet block naming an interface
// id past the section's (0xD1000000: negative as a 32-bit int) is an
// error, not a panic, on 32-bit platforms too (GOARCH=386 go test).
func TestPcapngInterfaceIDOutOfRange(t *testing.T) {
	exs := someExchanges(t, 3)
	c := capturetest.New()
	k := c.Dial("10.6.0.1:45000", "10.6.0.9:9092", true)
	sequential(c, k, exs, 1460)
	data := c.Pcapng()
	found := false
	for off := 0; off+12 <= len(data); {
		typ, n := binary.LittleEndian.Uint32(data[off:]), int(binary.LittleEndian.Uint32(data[off+4:]))
		require.Positive(t, n)
		if typ == 6 { // enhanced packet block
			binary.LittleEndian.PutUint32(data[off+8:], 0xD1000000)
			found = true
			break
		}
		off += n
	}
	require.True(t, found)
	_, err := sniff.Read(strings.NewReader(string(data)), sniff.Options{}, func(*sniff.Record) {})
	assert.Error(t, err)
}

// TestTLSWithoutHandshake: a TLS connection whose start the capture
// lacks is named from its record headers, not searched as Kafka.
func TestTLSWithoutHandshake(t *testing.T) {
	c := capturetest.New()
	k := c.Dial("10.7.0.1:46000", "10.7.0.9:9093", false)
	record := append([]byte{0x17, 0x03, 0x03, 0x01, 0x00}, make([]byte, 256)...)
	k.Send(true, record, 1460)
	k.Send(false, record, 1460)
	var got []sniff.Record
	stats, err := sniff.Read(strings.NewReader(string(c.Pcap())), sniff.Options{}, func(r *sniff.Record) { got = append(got, *r) })
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, sniff.Skip, got[0].Kind)
	assert.Contains(t, got[0].Note, "TLS record on 10.7.0.1:46000 → :9093: encrypted, not decodable")
	assert.EqualValues(t, 1, stats.TLS)
	assert.Zero(t, stats.Connections)
}

// TestPortsNameTheBroker: with -port, a connection seen from its middle
// takes the listed end as the broker's at once, and its traffic decodes
// from the first whole request.
func TestPortsNameTheBroker(t *testing.T) {
	exs := someExchanges(t, 6)
	c := capturetest.New()
	k := c.Dial("10.8.0.1:47000", "10.8.0.9:19092", false)
	k.Send(false, exs[0].resp[3:], 1460) // the tail of a response to a request before the capture
	spans := sequential(c, k, exs[1:], 1460)
	require.Len(t, spans, 5)
	s := newSeen(t)
	for _, ex := range exs[1:] {
		s.sent[exKey("10.8.0.1:47000", ex.corr)] = ex
	}
	stats := read(t, c.Pcap(), sniff.Options{Ports: []uint16{19092}}, s)
	s.checkAll()
	require.Len(t, s.kinds[sniff.Open], 1)
	assert.Equal(t, "10.8.0.1:47000", s.kinds[sniff.Open][0].Client)
	assert.EqualValues(t, 5, stats.Paired)

	// Listed ports leave other connections out.
	stats = read(t, c.Pcap(), sniff.Options{Ports: []uint16{9092}}, newSeen(t))
	assert.Zero(t, stats.Connections)
}

// TestSASLv0Tokens: after a SaslHandshake v0, SCRAM's two round trips
// of raw tokens are tokens, the user of the client-first message is the
// principal, and the first request after them decodes.
func TestSASLv0Tokens(t *testing.T) {
	clientID := "scram"
	frame := func(b []byte, err error) []byte {
		require.NoError(t, err)
		return b
	}
	token := func(s string) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...) }
	exs := someExchanges(t, 2)
	c := capturetest.New()
	k := c.Dial("10.9.0.1:48000", "10.9.0.9:9092", true)
	k.Send(true, frame(kwire.AppendRequest(nil, &messages.SaslHandshakeRequest{Mechanism: "SCRAM-SHA-256"}, 0, 1, &clientID)), 1460)
	k.Send(false, frame(kwire.AppendResponse(nil, &messages.SaslHandshakeResponse{Mechanisms: []string{"SCRAM-SHA-256"}}, 0, 1)), 1460)
	k.Send(true, token("n,,n=carol,r=fyko+d2lbbFgONRv9qkxdawL"), 1460)
	k.Send(false, token("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"), 1460)
	k.Send(true, token("c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="), 1460)
	k.Send(false, token("v=rmF9pqV8S7suAoZWja4dJRkFsKQ="), 1460)
	sequential(c, k, exs, 1460)
	s := newSeen(t)
	for _, ex := range exs {
		s.sent[exKey("10.9.0.1:48000", ex.corr)] = ex
	}
	stats := read(t, c.Pcap(), sniff.Options{}, s)
	s.checkAll()
	assert.EqualValues(t, 4, stats.Tokens)
	assert.EqualValues(t, 3, stats.Paired)
	assert.Zero(t, stats.Undecodable+stats.Unpaired+stats.Gaps)
	last := s.kinds[sniff.Response][len(s.kinds[sniff.Response])-1]
	assert.Equal(t, "carol", last.Principal)
}

// TestCleanCloseIsOneConnection (issue 27, case 12): one Kafka
// connection closed cleanly (FIN each way, the last ACK) is one Kafka
// connection and no other: the last ACK, which the reassembler sees after
// it closed the connection, is not a connection of its own.
func TestCleanCloseIsOneConnection(t *testing.T) {
	c := capturetest.New()
	k := c.Dial("10.2.0.5:43000", "10.2.0.9:9092", true)
	id := "one"
	req, err := kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 1, &id)
	require.NoError(t, err)
	resp, err := kwire.AppendResponse(nil, messages.NewHeartbeatResponse(), 4, 1)
	require.NoError(t, err)
	k.Send(true, req, 1460)
	k.Send(false, resp, 1460)
	k.Close()
	stats, err := sniff.Read(strings.NewReader(string(c.Pcap())), sniff.Options{}, func(*sniff.Record) {})
	require.NoError(t, err)
	assert.EqualValues(t, 1, stats.Connections)
	assert.Zero(t, stats.NotKafka)
	var out strings.Builder
	stats.WriteText(&out)
	assert.Contains(t, out.String(), "1 Kafka connection\n")
}

// TestReusedCorrelationID (issue 27, case 14): a client that sends a
// correlation id again while a request with it is in flight has both
// requests paired with the id's two responses, in order, and the reuse
// said; before, the second response was "no request in the capture".
func TestReusedCorrelationID(t *testing.T) {
	c := capturetest.New()
	k := c.Dial("10.2.0.5:43000", "10.2.0.9:9092", true)
	id := "dup"
	hb, err := kwire.AppendRequest(nil, messages.NewHeartbeatRequest(), 4, 5, &id)
	require.NoError(t, err)
	lg, err := kwire.AppendRequest(nil, messages.NewListGroupsRequest(), 4, 5, &id)
	require.NoError(t, err)
	hbResp, err := kwire.AppendResponse(nil, messages.NewHeartbeatResponse(), 4, 5)
	require.NoError(t, err)
	lgResp, err := kwire.AppendResponse(nil, messages.NewListGroupsResponse(), 4, 5)
	require.NoError(t, err)
	k.Send(true, hb, 1460)
	k.Send(true, lg, 1460)
	k.Send(false, hbResp, 1460)
	k.Send(false, lgResp, 1460)
	k.Close()
	var got []sniff.Record
	stats, err := sniff.Read(strings.NewReader(string(c.Pcap())), sniff.Options{}, func(r *sniff.Record) { got = append(got, *r) })
	require.NoError(t, err)
	assert.EqualValues(t, 2, stats.Paired)
	assert.Zero(t, stats.Unpaired)
	var responses []int16
	reused := false
	for _, r := range got {
		if r.Kind == sniff.Response {
			require.NoError(t, r.Err)
			responses = append(responses, r.Key)
		}
		if r.Kind == sniff.Request && strings.Contains(r.Note, "correlation id 5 reused") {
			reused = true
		}
	}
	assert.Equal(t, []int16{12, 16}, responses, "Heartbeat's answer, then ListGroups'")
	assert.True(t, reused, "the reuse is noted")
}
