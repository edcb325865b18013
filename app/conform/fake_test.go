package conform

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/messages"
)

// fake is a small broker that conforms, unless its mutation has it break
// one rule. It offers a few APIs, answers each request from what it asks
// (every partition asked, a valid batch in every Fetch), refuses what
// Kafka refuses by closing the connection, and shares one lock across
// its connections for crash.
type fake struct {
	t    *testing.T
	ln   net.Listener
	host string
	port int32
	m    mutation
	// login, when set, are the PLAIN auth bytes a connection must send
	// (SaslHandshake, then SaslAuthenticate) before any request but
	// ApiVersions.
	login string

	mu      sync.Mutex
	conns   []net.Conn
	crashed bool
}

// mutation is the rule a fake breaks; the zero value breaks none.
type mutation struct {
	// answer edits a decoded answer before it is encoded.
	answer func(h kwire.RequestHeader, req, resp any)
	// frame edits an encoded answer; nil means send none (and go on
	// reading).
	frame func(h kwire.RequestHeader, frame []byte) []byte
	// silentOn: a request that fails to decode with this error gets no
	// answer (and the connection stays open), instead of a close.
	silentOn         error
	silentAboveMax   bool // a version above the offer gets no answer, instead of a close
	waitOnHugeSize   bool // a size prefix past the limit: wait for its bytes
	crashOnUnknown   bool // an unknown key: stop serving everyone
	closeOnTags      bool // a request header with unknown tagged fields: close
	reorder          bool // answer two pipelined requests in reverse order
	kip511NoVersions bool // UNSUPPORTED_VERSION without ApiVersions' range
}

// offered are the fake's APIs and versions.
var offered = map[int16]kwire.APIVersionRange{
	0:  {APIKey: 0, MinVersion: 3, MaxVersion: 9},
	1:  {APIKey: 1, MinVersion: 4, MaxVersion: 12},
	2:  {APIKey: 2, MinVersion: 1, MaxVersion: 7},
	3:  {APIKey: 3, MinVersion: 0, MaxVersion: 12},
	10: {APIKey: 10, MinVersion: 0, MaxVersion: 4},
	18: {APIKey: 18, MinVersion: 0, MaxVersion: 4},
	19: {APIKey: 19, MinVersion: 2, MaxVersion: 7},
}

const sizeLimit = 100 << 20

func startFake(t *testing.T, m mutation) *fake { return startFakeWith(t, m, nil, "") }

// startFakeWith is startFake with the listener wrapped (TLS) and, when
// login is set, SASL PLAIN required.
func startFakeWith(t *testing.T, m mutation, wrap func(net.Listener) net.Listener, login string) *fake {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	p, _ := strconv.Atoi(port)
	if wrap != nil {
		ln = wrap(ln)
	}
	f := &fake{t: t, ln: ln, host: host, port: int32(p), m: m, login: login}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.mu.Lock()
			if f.crashed {
				f.mu.Unlock()
				c.Close()
				return
			}
			f.conns = append(f.conns, c)
			f.mu.Unlock()
			go f.serve(c)
		}
	}()
	t.Cleanup(f.crash)
	return f
}

func (f *fake) addr() string { return f.ln.Addr().String() }

// crash stops the fake as a process dying would: every connection and
// the listener close.
func (f *fake) crash() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.crashed = true
	f.ln.Close()
	for _, c := range f.conns {
		c.Close()
	}
}

func (f *fake) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	var held []byte // a reordered answer waiting for the next
	authed := f.login == ""
	for {
		var size [4]byte
		if _, err := io.ReadFull(br, size[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(size[:])
		if n > sizeLimit {
			if f.m.waitOnHugeSize {
				io.Copy(io.Discard, br)
			}
			return
		}
		frame := make([]byte, 4+n)
		copy(frame, size[:])
		if _, err := io.ReadFull(br, frame[4:]); err != nil {
			return
		}
		if !authed {
			out, done, ok := f.authenticate(frame)
			if !ok {
				return
			}
			authed = done
			if out != nil {
				if _, err := c.Write(out); err != nil {
					return
				}
				continue
			}
		}
		out, ok := f.answer(frame)
		if !ok {
			if f.m.crashOnUnknown && len(frame) >= 6 {
				if _, known := messages.Lookup(int16(binary.BigEndian.Uint16(frame[4:]))); !known {
					f.crash()
				}
			}
			return
		}
		if out == nil {
			continue
		}
		if f.m.reorder && held == nil && br.Buffered() > 0 {
			held = out
			continue
		}
		if _, err := c.Write(out); err != nil {
			return
		}
		if held != nil {
			if _, err := c.Write(held); err != nil {
				return
			}
			held = nil
		}
	}
}

// authenticate answers a SASL PLAIN login's frames: the answer to send
// (nil: frame is an ApiVersions, for answer), whether the login is done,
// and !ok to close the connection, as Kafka closes one that skips the
// login or fails it.
func (f *fake) authenticate(frame []byte) (out []byte, done, ok bool) {
	key, _, _, err := kwire.PeekRequest(frame)
	if err != nil {
		return nil, false, false
	}
	if key == keyApiVersions {
		return nil, false, true
	}
	h, req, err := messages.ReadRequest(frame)
	if err != nil {
		return nil, false, false
	}
	var resp any
	switch q := req.(type) {
	case *messages.SaslHandshakeRequest:
		r := messages.NewSaslHandshakeResponse()
		r.Mechanisms = []string{"PLAIN"}
		resp = r
	case *messages.SaslAuthenticateRequest:
		if string(q.AuthBytes) != f.login {
			return nil, false, false
		}
		resp, done = messages.NewSaslAuthenticateResponse(), true
	default:
		return nil, false, false
	}
	out, err = kwire.AppendResponse(nil, resp, h.APIVersion, h.CorrelationID)
	return out, done, err == nil
}

// answer is the fake's answer to frame: the frame to send (nil: none),
// or !ok to close the connection.
func (f *fake) answer(frame []byte) ([]byte, bool) {
	key, version, corr, err := kwire.PeekRequest(frame)
	if err != nil {
		return nil, false
	}
	r, known := offered[key]
	if !known {
		return nil, false
	}
	if version > r.MaxVersion || version < r.MinVersion {
		switch {
		case key == keyApiVersions && f.m.kip511NoVersions:
			resp := messages.NewApiVersionsResponse()
			resp.ErrorCode = int16(kerr.UnsupportedVersion)
			out, _ := kwire.AppendResponse(nil, resp, 0, corr)
			return out, true
		case key == keyApiVersions:
			return kwire.AppendUnsupportedAPIVersions(nil, corr, r), true
		case f.m.silentAboveMax:
			return nil, true
		}
		return nil, false
	}
	h, req, err := messages.ReadRequest(frame)
	if err != nil {
		if f.m.silentOn != nil && errors.Is(err, f.m.silentOn) {
			return nil, true
		}
		return nil, false
	}
	if f.m.closeOnTags && hasUnknownTags(h, req) {
		return nil, false
	}
	resp := f.respond(h, req)
	if f.m.answer != nil {
		f.m.answer(h, req, resp)
	}
	out, err := kwire.AppendResponse(nil, resp, h.APIVersion, h.CorrelationID)
	if err != nil {
		f.t.Errorf("fake: encoding its %T v%d: %v", resp, h.APIVersion, err)
		return nil, false
	}
	if f.m.frame != nil {
		out = f.m.frame(h, out)
	}
	return out, true
}

func hasUnknownTags(h kwire.RequestHeader, _ any) bool { return h.UnknownTags.Len() > 0 }

var fakeTopicID = kwire.UUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

// respond is what a conforming broker answers req.
func (f *fake) respond(h kwire.RequestHeader, req any) any {
	switch q := req.(type) {
	case *messages.ApiVersionsRequest:
		resp := messages.NewApiVersionsResponse()
		for _, k := range []int16{0, 1, 2, 3, 10, 18, 19} {
			o := offered[k]
			resp.ApiKeys = append(resp.ApiKeys, messages.ApiVersionsResponseApiVersion{ApiKey: k, MinVersion: o.MinVersion, MaxVersion: o.MaxVersion})
		}
		return resp
	case *messages.MetadataRequest:
		resp := messages.NewMetadataResponse()
		resp.Brokers = []messages.MetadataResponseBroker{{NodeID: 1, Host: f.host, Port: f.port}}
		resp.ControllerID = 1
		topics := q.Topics
		if topics == nil {
			name := "kwire-conform-topic"
			topics = []messages.MetadataRequestTopic{{Name: &name}}
		}
		for _, t := range topics {
			rt := messages.MetadataResponseTopic{Name: t.Name, TopicID: fakeTopicID}
			if t.Name == nil && h.APIVersion < 12 {
				empty := ""
				rt.Name = &empty
			}
			for p := int32(0); p < 3; p++ {
				rt.Partitions = append(rt.Partitions, messages.MetadataResponsePartition{PartitionIndex: p, LeaderID: 1, ReplicaNodes: []int32{1}, IsrNodes: []int32{1}})
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	case *messages.ProduceRequest:
		resp := messages.NewProduceResponse()
		for _, t := range q.TopicData {
			rt := messages.ProduceResponseTopicProduceResponse{Name: t.Name, TopicID: t.TopicID}
			for _, p := range t.PartitionData {
				rt.PartitionResponses = append(rt.PartitionResponses, messages.ProduceResponsePartitionProduceResponse{Index: p.Index})
			}
			resp.Responses = append(resp.Responses, rt)
		}
		return resp
	case *messages.FetchRequest:
		resp := messages.NewFetchResponse()
		for _, t := range q.Topics {
			rt := messages.FetchResponseFetchableTopicResponse{Topic: t.Topic, TopicID: t.TopicID}
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, messages.FetchResponsePartitionData{PartitionIndex: p.Partition, HighWatermark: 1, Records: produceBatch})
			}
			resp.Responses = append(resp.Responses, rt)
		}
		return resp
	case *messages.ListOffsetsRequest:
		resp := messages.NewListOffsetsResponse()
		for _, t := range q.Topics {
			rt := messages.ListOffsetsResponseTopicResponse{Name: t.Name}
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, messages.ListOffsetsResponsePartitionResponse{PartitionIndex: p.PartitionIndex})
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	case *messages.FindCoordinatorRequest:
		resp := messages.NewFindCoordinatorResponse()
		if h.APIVersion < 4 {
			resp.NodeID, resp.Host, resp.Port = 1, f.host, f.port
		}
		for _, k := range q.CoordinatorKeys {
			resp.Coordinators = append(resp.Coordinators, messages.FindCoordinatorResponseCoordinator{Key: k, NodeID: 1, Host: f.host, Port: f.port})
		}
		return resp
	case *messages.CreateTopicsRequest:
		resp := messages.NewCreateTopicsResponse()
		for _, t := range q.Topics {
			resp.Topics = append(resp.Topics, messages.CreateTopicsResponseCreatableTopicResult{Name: t.Name, TopicID: fakeTopicID, NumPartitions: 3, ReplicationFactor: 1})
		}
		return resp
	}
	resp, _ := messages.Default.ResponseFor(h.APIKey, h.APIVersion)
	return resp
}
