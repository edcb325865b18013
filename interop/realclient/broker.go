// Package realclient runs real Kafka clients (librdkafka through kcat, and
// kafka-python) against Broker, a minimal in-memory Kafka broker whose every
// request is decoded and every response encoded by kwire. The broker keeps
// the raw frames the clients sent so that tests can check that kwire decodes
// and re-encodes each of them to the same bytes.
package realclient

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/kwire/wire"
	"github.com/kwirelabs/kwire/messages"
)

// MaxFrameSize bounds the size prefix of a request frame; a larger one
// closes the connection.
const MaxFrameSize = 100 << 20

// NodeID is the broker's id in Metadata.
const NodeID = 1

// Kafka error codes the broker uses.
const (
	errNone                    int16 = 0
	errOffsetOutOfRange        int16 = 1
	errCorruptMessage          int16 = 2
	errUnknownTopicOrPartition int16 = 3
	errUnsupportedVersion      int16 = 35
	errInvalidRequest          int16 = 42
	errUnsupportedForFormat    int16 = 43
	errRebootstrapRequired     int16 = 129
)

// Supported is the version range of every API the broker implements, and
// what it advertises in ApiVersions. The broker stores record batches
// (magic 2): Produce v0-2 carry legacy message sets (magic 0 and 1), which
// it converts to a batch with kwire/record before storing; Fetch v0-3
// answers get the stored batches converted back to magic 0 (v0-1) or 1
// (v2-3), headers dropped, as Kafka does. Fetch stops at 12 because 13+
// names topics by id only (Metadata v10+ does return topic ids).
// FindCoordinator answers with this broker, which coordinates groups of
// one consumer each (group.go) with the classic protocol; OffsetCommit and
// OffsetFetch stop at v8, before the member epochs of KIP-848. It is also
// a transaction coordinator for produce-and-commit (txn.go), and can
// require SASL/PLAIN (sasl.go).
var Supported = map[int16][2]int16{
	0:  {0, 11}, // Produce
	1:  {0, 12}, // Fetch
	2:  {0, 7},  // ListOffsets
	3:  {0, 12}, // Metadata
	8:  {0, 8},  // OffsetCommit
	9:  {0, 8},  // OffsetFetch
	10: {0, 4},  // FindCoordinator
	11: {0, 9},  // JoinGroup
	12: {0, 4},  // Heartbeat
	13: {0, 5},  // LeaveGroup
	14: {0, 5},  // SyncGroup
	17: {0, 1},  // SaslHandshake
	18: {0, 5},  // ApiVersions (v5: KIP-1242's cluster and node id check)
	22: {0, 4},  // InitProducerId
	24: {0, 3},  // AddPartitionsToTxn (v4+ is broker to broker)
	26: {0, 4},  // EndTxn (v5 is KIP-890's transactions v2)
	36: {0, 2},  // SaslAuthenticate
}

// Frame is one request a client sent, size prefix included, and the
// broker's answer (nil when there was none: acks=0 or a closed connection).
type Frame struct {
	Conn     int // which connection, in accept order
	Request  []byte
	Response []byte
	// ResponseVersion is the version the response was written at: the
	// request's, except for an ApiVersions request newer than the broker,
	// answered at v0.
	ResponseVersion int16
	// SASLToken marks a raw SASL token (after SaslHandshake v0): not a
	// Kafka request; its response is an empty frame.
	SASLToken bool
}

// Broker is a single-node in-memory Kafka broker on 127.0.0.1.
type Broker struct {
	// DefaultPartitions is the partition count of auto-created topics.
	DefaultPartitions int
	// Logf receives one line per notable event (nil: silent).
	Logf func(format string, args ...any)
	// Versions is what the broker advertises and accepts: Supported, or
	// a narrower map given to StartVersions.
	Versions map[int16][2]int16

	ln   net.Listener
	port int32
	done chan struct{}
	wg   sync.WaitGroup

	mu         sync.Mutex
	conns      map[net.Conn]struct{}
	nconn      int
	frames     []Frame
	topics     map[string]*topic
	byID       map[kwire.UUID]*topic
	changed    chan struct{} // closed and replaced whenever records are appended
	producerID int64
	groups     map[string]*group
	memberSeq  int
	txns       map[string]*txn
	saslUsers  map[string]string
}

type topic struct {
	name       string
	id         kwire.UUID
	partitions []*partition
}

type partition struct {
	batches  []storedBatch
	next     int64           // the log end offset (high watermark: every write is committed)
	openTxns map[int64]int64 // producer id -> first offset of its open transaction
	aborted  []abortedTxn
}

type storedBatch struct {
	base, last int64
	raw        []byte // the whole batch, base offset rewritten
}

// Start listens on 127.0.0.1 on a free port and serves until Close.
// Auto-created topics get defaultPartitions partitions; logf (may be nil)
// gets a line per notable event.
func Start(defaultPartitions int, logf func(string, ...any)) (*Broker, error) {
	return StartVersions(defaultPartitions, logf, Supported)
}

// StartVersions is Start with the API version ranges to advertise and
// accept; ranges wider than Supported are cut to it.
func StartVersions(defaultPartitions int, logf func(string, ...any), versions map[int16][2]int16) (*Broker, error) {
	vs := map[int16][2]int16{}
	for k, r := range versions {
		s, ok := Supported[k]
		if !ok {
			continue
		}
		r = [2]int16{max(r[0], s[0]), min(r[1], s[1])}
		if r[0] <= r[1] {
			vs[k] = r
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &Broker{
		DefaultPartitions: defaultPartitions,
		Logf:              logf,
		Versions:          vs,
		ln:                ln,
		port:              int32(ln.Addr().(*net.TCPAddr).Port),
		done:              make(chan struct{}),
		conns:             map[net.Conn]struct{}{},
		topics:            map[string]*topic{},
		byID:              map[kwire.UUID]*topic{},
		changed:           make(chan struct{}),
		producerID:        1000,
	}
	b.wg.Add(1)
	go b.accept()
	return b, nil
}

// Addr is host:port for a client's bootstrap servers.
func (b *Broker) Addr() string { return "127.0.0.1:" + strconv.Itoa(int(b.port)) }

// Port is the port the broker listens on.
func (b *Broker) Port() int32 { return b.port }

// Close stops the listener, closes every connection and waits for the
// connection goroutines to end.
func (b *Broker) Close() {
	b.mu.Lock()
	select {
	case <-b.done:
		b.mu.Unlock()
		return
	default:
	}
	close(b.done)
	b.ln.Close()
	for c := range b.conns {
		c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *Broker) logf(format string, args ...any) {
	if b.Logf != nil {
		b.Logf(format, args...)
	}
}

// Frames returns a copy of the list of frames received so far.
func (b *Broker) Frames() []Frame {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Frame(nil), b.frames...)
}

// CreateTopic creates a topic with n partitions, if it does not exist.
func (b *Broker) CreateTopic(name string, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.createTopicLocked(name, n)
}

func (b *Broker) createTopicLocked(name string, n int) *topic {
	if t, ok := b.topics[name]; ok {
		return t
	}
	sum := sha256.Sum256([]byte("kwire-realclient/" + name))
	t := &topic{name: name}
	copy(t.id[:], sum[:16])
	t.id[6] = t.id[6]&0x0f | 0x40 // a version-4-looking uuid, never the zero uuid
	t.id[8] = t.id[8]&0x3f | 0x80
	for range n {
		t.partitions = append(t.partitions, &partition{})
	}
	b.topics[name] = t
	b.byID[t.id] = t
	return t
}

// Batches returns the stored batches of a partition (the raw bytes, with
// the offsets the broker assigned), or nil if there is no such partition.
func (b *Broker) Batches(topicName string, p int32) [][]byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.topics[topicName]
	if !ok || p < 0 || int(p) >= len(t.partitions) {
		return nil
	}
	var out [][]byte
	for _, sb := range t.partitions[p].batches {
		out = append(out, sb.raw)
	}
	return out
}

// Partitions returns the partition count of a topic (0 if it does not exist).
func (b *Broker) Partitions(topicName string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t, ok := b.topics[topicName]; ok {
		return len(t.partitions)
	}
	return 0
}

// TopicNames returns the topics, sorted.
func (b *Broker) TopicNames() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for n := range b.topics {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// WaitRecords waits until a topic holds at least n records in all, or
// until the timeout; it reports whether it got there.
func (b *Broker) WaitRecords(topicName string, n int64, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		var total int64
		if t, ok := b.topics[topicName]; ok {
			for _, p := range t.partitions {
				total += p.next
			}
		}
		ch := b.changed
		b.mu.Unlock()
		if total >= n {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		case <-b.done:
			return false
		}
	}
}

func (b *Broker) accept() {
	defer b.wg.Done()
	for {
		c, err := b.ln.Accept()
		if err != nil {
			return // closed
		}
		b.mu.Lock()
		select {
		case <-b.done:
			b.mu.Unlock()
			c.Close()
			return
		default:
		}
		b.conns[c] = struct{}{}
		b.nconn++
		id := b.nconn
		b.wg.Add(1)
		b.mu.Unlock()
		go b.serve(c, id)
	}
}

// serve reads request frames one at a time and answers them in order, as
// a Kafka broker does on one connection.
func (b *Broker) serve(c net.Conn, id int) {
	defer b.wg.Done()
	defer func() {
		b.mu.Lock()
		delete(b.conns, c)
		b.mu.Unlock()
		c.Close()
	}()
	var out []byte
	st := &connState{authenticated: !b.saslRequired()}
	frames := kwire.NewFrameReader(c, MaxFrameSize)
	for {
		if !st.rawToken {
			// The header first: an API the broker does not serve is
			// refused before its body is read.
			head, err := frames.Peek(12)
			if err != nil {
				b.readFailed(id, err)
				return
			}
			key, _, _, err := kwire.PeekRequest(head)
			if err != nil {
				b.logf("conn %d: %v: closing", id, err)
				return
			}
			if _, ok := b.Versions[key]; !ok {
				b.logf("conn %d: unsupported request key %d: closing before reading its body", id, key)
				return
			}
		}
		frame, err := frames.Next()
		if err != nil {
			b.readFailed(id, err)
			return
		}
		frame = append([]byte(nil), frame...) // kept in b.frames; the reader reuses its buffer
		b.mu.Lock()
		b.frames = append(b.frames, Frame{Conn: id, Request: frame, SASLToken: st.rawToken})
		idx := len(b.frames) - 1
		b.mu.Unlock()

		var respVersion int16
		var closeAfter error
		if st.rawToken {
			st.rawToken = false
			user, err := b.checkPlain(frame[4:])
			if err != nil {
				b.logf("conn %d: SASL/PLAIN token: %v: closing", id, err)
				return
			}
			st.authenticated, st.user = true, user
			out = append(out[:0], 0, 0, 0, 0) // an empty frame: accepted
		} else {
			var err error
			out, respVersion, closeAfter, err = b.handleFrame(out[:0], frame, id, st)
			if err != nil {
				b.logf("conn %d: %v: closing", id, err)
				return
			}
		}
		if len(out) == 0 {
			continue // acks=0
		}
		b.mu.Lock()
		b.frames[idx].Response = append([]byte(nil), out...)
		b.frames[idx].ResponseVersion = respVersion
		b.mu.Unlock()
		if _, err := c.Write(out); err != nil {
			select {
			case <-b.done: // closed under a long-polling fetch
			default:
				b.logf("conn %d: write: %v", id, err)
			}
			return
		}
		if closeAfter != nil {
			b.logf("conn %d: %v: closing", id, closeAfter)
			return
		}
	}
}

func (b *Broker) readFailed(conn int, err error) {
	if !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		b.logf("conn %d: reading a frame: %v: closing", conn, err)
	}
}

// handleFrame decodes one request frame and appends the response frame to
// out, and gives the response's version; an empty result means no response
// is due. closeAfter says the connection ends after the response; err that
// it ends at once.
func (b *Broker) handleFrame(out, frame []byte, conn int, st *connState) (_ []byte, respVersion int16, closeAfter, err error) {
	head, _ := wire.ConsumeRequestHead(frame[wire.FrameSizeLen:])
	key, version, corr := head.APIKey, head.APIVersion, head.CorrelationID
	if r, ok := b.Versions[18]; key == 18 && (!ok || version > r[1]) {
		// A newer ApiVersions than ours: Kafka answers with v0,
		// UNSUPPORTED_VERSION and its ApiVersions range, and the client
		// retries with a version from it.
		b.logf("conn %d: ApiVersions v%d: answering UNSUPPORTED_VERSION at v0", conn, version)
		r := b.Versions[18]
		return kwire.AppendUnsupportedAPIVersions(out, corr, kwire.APIVersionRange{APIKey: 18, MinVersion: r[0], MaxVersion: r[1]}), 0, nil, nil
	}
	if !st.authenticated && key != 18 && key != 17 && key != 36 {
		return out, 0, nil, fmt.Errorf("request key %d v%d before SASL authentication", key, version)
	}
	hdr, body, err := messages.ReadRequest(frame)
	if err != nil {
		return out, 0, nil, fmt.Errorf("request key %d v%d: %w", key, version, err)
	}
	r, ok := b.Versions[hdr.APIKey]
	if !ok || hdr.APIVersion < r[0] || hdr.APIVersion > r[1] {
		name := strconv.Itoa(int(hdr.APIKey))
		if api, ok := messages.Lookup(hdr.APIKey); ok {
			name = api.Name
		}
		return out, 0, nil, fmt.Errorf("unsupported request %s v%d", name, hdr.APIVersion)
	}
	var resp any
	switch req := body.(type) {
	case *messages.ApiVersionsRequest:
		resp = b.apiVersions()
		if wrongBroker(req) {
			resp.(*messages.ApiVersionsResponse).ErrorCode = errRebootstrapRequired
		}
	case *messages.MetadataRequest:
		resp = b.metadata(req, hdr.APIVersion)
	case *messages.ProduceRequest:
		pr := b.produce(req, hdr.APIVersion)
		if req.Acks == 0 {
			return out, 0, nil, nil
		}
		resp = pr
	case *messages.FetchRequest:
		resp = b.fetch(req, hdr.APIVersion)
	case *messages.ListOffsetsRequest:
		resp = b.listOffsets(req, hdr.APIVersion)
	case *messages.JoinGroupRequest:
		resp = b.joinGroup(req, hdr.APIVersion)
	case *messages.SyncGroupRequest:
		resp = b.syncGroup(req)
	case *messages.HeartbeatRequest:
		resp = b.heartbeat(req)
	case *messages.LeaveGroupRequest:
		resp = b.leaveGroup(req, hdr.APIVersion)
	case *messages.OffsetCommitRequest:
		resp = b.offsetCommit(req, hdr.APIVersion)
	case *messages.OffsetFetchRequest:
		resp = b.offsetFetch(req, hdr.APIVersion)
	case *messages.AddPartitionsToTxnRequest:
		resp = b.addPartitionsToTxn(req)
	case *messages.EndTxnRequest:
		resp = b.endTxn(req)
	case *messages.SaslHandshakeRequest:
		resp = b.saslHandshake(req, hdr.APIVersion, st)
	case *messages.SaslAuthenticateRequest:
		resp, closeAfter = b.saslAuthenticate(req, st)
	case *messages.FindCoordinatorRequest:
		resp = b.findCoordinator(req, hdr.APIVersion)
	case *messages.InitProducerIDRequest:
		resp = b.initProducerID(req)
	default:
		return out, 0, nil, fmt.Errorf("no handler for %T", body)
	}
	out, err = kwire.AppendResponse(out, resp, hdr.APIVersion, hdr.CorrelationID)
	return out, hdr.APIVersion, closeAfter, err
}

// clusterID is the cluster's id in Metadata and ApiVersions checks.
const clusterID = "kwire-realclient"

// wrongBroker: an ApiVersions v5+ request names the cluster or node the
// client expects (KIP-1242); when that is not this broker, Kafka answers
// REBOOTSTRAP_REQUIRED. Before v5 the fields keep their defaults.
func wrongBroker(req *messages.ApiVersionsRequest) bool {
	return req.ClusterID != nil && *req.ClusterID != clusterID || req.NodeID != -1 && req.NodeID != NodeID
}

func (b *Broker) apiVersions() *messages.ApiVersionsResponse {
	resp := messages.NewApiVersionsResponse()
	keys := make([]int, 0, len(b.Versions))
	for k := range b.Versions {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	for _, k := range keys {
		r := b.Versions[int16(k)]
		resp.ApiKeys = append(resp.ApiKeys, messages.ApiVersionsResponseApiVersion{
			ApiKey: int16(k), MinVersion: r[0], MaxVersion: r[1],
		})
	}
	return resp
}

func (b *Broker) metadata(req *messages.MetadataRequest, version int16) *messages.MetadataResponse {
	resp := messages.NewMetadataResponse()
	resp.Brokers = []messages.MetadataResponseBroker{{NodeID: NodeID, Host: "127.0.0.1", Port: b.port}}
	cluster := clusterID
	resp.ClusterID = &cluster
	resp.ControllerID = NodeID

	b.mu.Lock()
	defer b.mu.Unlock()
	// All topics: a null list (v1+), or an empty one in v0.
	if req.Topics == nil || (version == 0 && len(req.Topics) == 0) {
		names := make([]string, 0, len(b.topics))
		for n := range b.topics {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			resp.Topics = append(resp.Topics, b.topicMetadata(b.topics[n]))
		}
		return resp
	}
	autoCreate := version < 4 || req.AllowAutoTopicCreation
	for _, rt := range req.Topics {
		var t *topic
		switch {
		case rt.Name != nil:
			t = b.topics[*rt.Name]
			if t == nil && autoCreate && validTopicName(*rt.Name) {
				t = b.createTopicLocked(*rt.Name, b.DefaultPartitions)
				b.logf("auto-created topic %q with %d partitions", *rt.Name, b.DefaultPartitions)
			}
		default:
			t = b.byID[rt.TopicID]
		}
		if t == nil {
			mt := messages.MetadataResponseTopic{ErrorCode: errUnknownTopicOrPartition, Name: rt.Name, TopicID: rt.TopicID}
			mt.TopicAuthorizedOperations = -2147483648
			resp.Topics = append(resp.Topics, mt)
			continue
		}
		resp.Topics = append(resp.Topics, b.topicMetadata(t))
	}
	return resp
}

func validTopicName(s string) bool {
	if s == "" || len(s) > 249 || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (b *Broker) topicMetadata(t *topic) messages.MetadataResponseTopic {
	name := t.name
	mt := messages.MetadataResponseTopic{Name: &name, TopicID: t.id, TopicAuthorizedOperations: -2147483648}
	for i := range t.partitions {
		mt.Partitions = append(mt.Partitions, messages.MetadataResponsePartition{
			PartitionIndex:  int32(i),
			LeaderID:        NodeID,
			LeaderEpoch:     0,
			ReplicaNodes:    []int32{NodeID},
			IsrNodes:        []int32{NodeID},
			OfflineReplicas: []int32{},
		})
	}
	return mt
}

func (b *Broker) partitionLocked(name string, p int32) *partition {
	t, ok := b.topics[name]
	if !ok || p < 0 || int(p) >= len(t.partitions) {
		return nil
	}
	return t.partitions[p]
}

func (b *Broker) produce(req *messages.ProduceRequest, version int16) *messages.ProduceResponse {
	resp := messages.NewProduceResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	appended := false
	for _, td := range req.TopicData {
		tr := messages.ProduceResponseTopicProduceResponse{Name: td.Name}
		for _, pd := range td.PartitionData {
			pr := messages.ProduceResponsePartitionProduceResponse{Index: pd.Index, BaseOffset: -1, LogAppendTimeMs: -1, LogStartOffset: -1}
			pr.CurrentLeader.LeaderID, pr.CurrentLeader.LeaderEpoch = -1, -1
			p := b.partitionLocked(td.Name, pd.Index)
			if p == nil {
				pr.ErrorCode = errUnknownTopicOrPartition
				tr.PartitionResponses = append(tr.PartitionResponses, pr)
				continue
			}
			batches, err := checkBatches(pd.Records, version)
			if err != nil {
				b.logf("produce %s/%d: %v", td.Name, pd.Index, err)
				pr.ErrorCode = errCorruptMessage
				if errors.Is(err, errFormat) {
					pr.ErrorCode = errUnsupportedForFormat
				}
				msg := err.Error()
				pr.ErrorMessage = &msg
				tr.PartitionResponses = append(tr.PartitionResponses, pr)
				continue
			}
			pr.BaseOffset = p.next
			pr.LogStartOffset = 0
			for _, in := range batches {
				raw := append([]byte(nil), in.raw...)
				if in.transactional {
					if p.openTxns == nil {
						p.openTxns = map[int64]int64{}
					}
					if _, open := p.openTxns[in.producerID]; !open {
						p.openTxns[in.producerID] = p.next
					}
				}
				wire.PutInt64(raw, p.next)           // the batch's base offset
				delta := int64(wire.Int32(raw[23:])) // its last offset delta
				sb := storedBatch{base: p.next, last: p.next + delta, raw: raw}
				p.batches = append(p.batches, sb)
				p.next = sb.last + 1
				appended = true
			}
			tr.PartitionResponses = append(tr.PartitionResponses, pr)
		}
		resp.Responses = append(resp.Responses, tr)
	}
	if appended {
		close(b.changed)
		b.changed = make(chan struct{})
	}
	return resp
}

var errFormat = errors.New("record format does not match the request version")

// checkBatches reads a Produce request's records with kwire/record, which
// checks CRCs and lengths and decompresses. Produce v3+ must carry record
// batches (magic 2): every record must decode, and the batches are stored
// as they came. Produce v0-2 carry legacy message sets (magic 0 or 1): their
// records are rebuilt into one record batch with the same codec.
func checkBatches(data []byte, version int16) ([]incoming, error) {
	if len(data) == 0 {
		return nil, errors.New("no records")
	}
	r := record.NewReader(data)
	var out []incoming
	var legacy []record.Record
	codec := record.CodecNone
	for {
		bt, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if (bt.Magic == 2) != (version >= 3) {
			return nil, fmt.Errorf("%w: magic %d in Produce v%d", errFormat, bt.Magic, version)
		}
		recs, err := bt.Records()
		if err != nil {
			return nil, err
		}
		if len(recs) == 0 || int32(len(recs)) != bt.NumRecords || bt.LastOffsetDelta < 0 {
			return nil, fmt.Errorf("batch of %d records with last offset delta %d", len(recs), bt.LastOffsetDelta)
		}
		if bt.Magic == 2 {
			out = append(out, incoming{bt.Raw, bt.Attributes.Transactional(), bt.ProducerID})
			continue
		}
		legacy = append(legacy, recs...)
		if c := bt.Attributes.Codec(); c != record.CodecNone {
			codec = c
		}
	}
	if r.Partial() {
		return nil, errors.New("trailing partial entry")
	}
	if legacy != nil {
		batch, err := record.Build(legacy, record.WithCodec(codec))
		if err != nil {
			return nil, err
		}
		out = append(out, incoming{raw: batch})
	}
	return out, nil
}

// incoming is a batch of a Produce request, checked.
type incoming struct {
	raw           []byte
	transactional bool
	producerID    int64
}

// downConvert turns stored record batches into a legacy message set for
// Fetch v0-3, with the same offsets; headers are dropped and zstd, which
// legacy message sets cannot carry, is stored uncompressed.
func downConvert(raw []byte, magic int8) ([]byte, error) {
	batches, _, err := record.ReadBatches(raw)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, bt := range batches {
		recs, err := bt.Records()
		if err != nil {
			return nil, err
		}
		for i := range recs {
			recs[i].Headers = nil
		}
		codec := bt.Attributes.Codec()
		if codec == record.CodecZstd {
			codec = record.CodecNone
		}
		out, err = record.AppendBatch(out, recs, record.WithMagic(magic), record.WithCodec(codec),
			record.WithBaseOffset(bt.BaseOffset))
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// fetch answers once MinBytes of records are there (at once for
// MinBytes <= 0), and otherwise waits up to MaxWaitMs (capped at 1 s) for
// produces, as a Kafka broker does.
func (b *Broker) fetch(req *messages.FetchRequest, version int16) *messages.FetchResponse {
	wait := time.Duration(min(max(req.MaxWaitMs, 0), 1000)) * time.Millisecond
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		resp, n, ch := b.fetchOnce(req, version)
		if n >= int(req.MinBytes) || wait == 0 {
			return resp
		}
		select {
		case <-ch: // new records: look again
		case <-timer.C:
			return resp
		case <-b.done:
			return resp
		}
	}
}

func (b *Broker) fetchOnce(req *messages.FetchRequest, version int16) (*messages.FetchResponse, int, chan struct{}) {
	resp := messages.NewFetchResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	budget := int(req.MaxBytes) // v3+
	if budget <= 0 || version < 3 {
		budget = 1 << 30
	}
	total := 0
	for _, ft := range req.Topics {
		tr := messages.FetchResponseFetchableTopicResponse{Topic: ft.Topic, TopicID: ft.TopicID}
		for _, fp := range ft.Partitions {
			pd := messages.FetchResponsePartitionData{
				PartitionIndex: fp.Partition, HighWatermark: -1, LastStableOffset: -1, LogStartOffset: -1,
				PreferredReadReplica: -1, Records: []byte{},
			}
			pd.DivergingEpoch.Epoch, pd.DivergingEpoch.EndOffset = -1, -1
			pd.CurrentLeader.LeaderID, pd.CurrentLeader.LeaderEpoch = -1, -1
			pd.SnapshotID.EndOffset, pd.SnapshotID.Epoch = -1, -1
			p := b.partitionLocked(ft.Topic, fp.Partition)
			switch {
			case p == nil:
				pd.ErrorCode = errUnknownTopicOrPartition
			case fp.FetchOffset < 0 || fp.FetchOffset > p.next:
				pd.ErrorCode = errOffsetOutOfRange
				pd.HighWatermark, pd.LastStableOffset, pd.LogStartOffset = p.next, p.lastStable(), 0
			default:
				lso := p.lastStable()
				pd.HighWatermark, pd.LastStableOffset, pd.LogStartOffset = p.next, lso, 0
				end := p.next
				if req.IsolationLevel == 1 && version >= 4 { // read_committed
					end = lso
					pd.AbortedTransactions = []messages.FetchResponseAbortedTransaction{}
					for _, a := range p.aborted {
						if a.lastOffset >= fp.FetchOffset && a.firstOffset < end {
							pd.AbortedTransactions = append(pd.AbortedTransactions,
								messages.FetchResponseAbortedTransaction{ProducerID: a.producerID, FirstOffset: a.firstOffset})
						}
					}
				}
				limit := int(fp.PartitionMaxBytes)
				var recs []byte
				for _, sb := range p.batches {
					if sb.last < fp.FetchOffset {
						continue
					}
					if sb.base >= end {
						break
					}
					// Whole batches only; the first one always goes, so a
					// batch larger than the limits cannot stall a consumer.
					if total > 0 || len(recs) > 0 {
						if len(recs)+len(sb.raw) > limit || total+len(sb.raw) > budget {
							break
						}
					}
					raw := sb.raw
					if version < 4 {
						magic := int8(1)
						if version < 2 {
							magic = 0
						}
						var err error
						if raw, err = downConvert(raw, magic); err != nil {
							b.logf("fetch %s/%d: down-converting to magic %d: %v", ft.Topic, fp.Partition, magic, err)
							pd.ErrorCode = errCorruptMessage
							break
						}
					}
					recs = append(recs, raw...)
					total += len(raw)
				}
				if recs != nil {
					pd.Records = recs
				}
			}
			tr.Partitions = append(tr.Partitions, pd)
		}
		resp.Responses = append(resp.Responses, tr)
	}
	return resp, total, b.changed
}

func (b *Broker) listOffsets(req *messages.ListOffsetsRequest, version int16) *messages.ListOffsetsResponse {
	resp := messages.NewListOffsetsResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, lt := range req.Topics {
		tr := messages.ListOffsetsResponseTopicResponse{Name: lt.Name}
		for _, lp := range lt.Partitions {
			pr := messages.ListOffsetsResponsePartitionResponse{PartitionIndex: lp.PartitionIndex, Timestamp: -1, Offset: -1, LeaderEpoch: -1}
			p := b.partitionLocked(lt.Name, lp.PartitionIndex)
			if p == nil {
				pr.ErrorCode = errUnknownTopicOrPartition
				tr.Partitions = append(tr.Partitions, pr)
				continue
			}
			pr.LeaderEpoch = 0
			switch ts := lp.Timestamp; {
			case ts == -1 && req.IsolationLevel == 1 && version >= 2: // latest committed
				pr.Offset = p.lastStable()
			case ts == -1: // latest
				pr.Offset = p.next
			case ts == -2: // earliest
				pr.Offset = 0
			case ts == -3 && version >= 7: // the record with the largest timestamp
				pr.Offset, pr.Timestamp = p.maxTimestamp()
			case ts >= 0:
				pr.Offset, pr.Timestamp = p.offsetForTime(ts)
			default:
				pr.ErrorCode = errInvalidRequest
			}
			if version == 0 {
				if pr.Offset >= 0 {
					pr.OldStyleOffsets = []int64{pr.Offset}
				} else {
					pr.OldStyleOffsets = []int64{}
				}
			}
			tr.Partitions = append(tr.Partitions, pr)
		}
		resp.Topics = append(resp.Topics, tr)
	}
	return resp
}

// eachRecord calls f for every stored record until f returns false.
func (p *partition) eachRecord(f func(offset, timestamp int64) bool) {
	for _, sb := range p.batches {
		batches, _, err := record.ReadBatches(sb.raw)
		if err != nil {
			continue // checked at produce time
		}
		for _, bt := range batches {
			it := bt.Iter()
			for it.Next() {
				r := it.Record()
				if !f(r.Offset, r.Timestamp) {
					return
				}
			}
		}
	}
}

func (p *partition) offsetForTime(ts int64) (offset, timestamp int64) {
	offset, timestamp = -1, -1
	p.eachRecord(func(o, t int64) bool {
		if t >= ts {
			offset, timestamp = o, t
			return false
		}
		return true
	})
	if offset < 0 {
		offset = p.next // no record that late: the log end
	}
	return offset, timestamp
}

func (p *partition) maxTimestamp() (offset, timestamp int64) {
	offset, timestamp = -1, -1
	p.eachRecord(func(o, t int64) bool {
		if t > timestamp {
			offset, timestamp = o, t
		}
		return true
	})
	return offset, timestamp
}

func (b *Broker) initProducerID(req *messages.InitProducerIDRequest) *messages.InitProducerIDResponse {
	resp := messages.NewInitProducerIDResponse()
	b.mu.Lock()
	defer b.mu.Unlock()
	if req.TransactionalID != nil {
		b.initTransactional(req, resp)
		return resp
	}
	if req.ProducerID >= 0 && req.ProducerEpoch >= 0 && req.ProducerEpoch < 32767 {
		resp.ProducerID, resp.ProducerEpoch = req.ProducerID, req.ProducerEpoch+1 // an epoch bump
		return resp
	}
	b.producerID++
	resp.ProducerID, resp.ProducerEpoch = b.producerID, 0
	return resp
}

func (b *Broker) findCoordinator(req *messages.FindCoordinatorRequest, version int16) *messages.FindCoordinatorResponse {
	resp := messages.NewFindCoordinatorResponse()
	if version < 4 {
		resp.NodeID, resp.Host, resp.Port = NodeID, "127.0.0.1", b.port
		return resp
	}
	for _, k := range req.CoordinatorKeys {
		resp.Coordinators = append(resp.Coordinators, messages.FindCoordinatorResponseCoordinator{
			Key: k, NodeID: NodeID, Host: "127.0.0.1", Port: b.port,
		})
	}
	return resp
}
