package kwire_test

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/wiretest"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

func TestTraceRefusesWhatReadRefuses(t *testing.T) {
	// A null in arrays that cannot be null: the trace showed both as valid.
	resp := wiretest.Hex(t, "0000000c00000007ffffffff30303030") // ProduceResponse v1
	_, readErr := kwire.ReadResponse(resp, new(messages.ProduceResponse), 1)
	_, traceErr := kwire.TraceResponse(resp, new(messages.ProduceResponse), 1)
	require.ErrorIs(t, readErr, kwire.ErrNullNotAllowed)
	wiretest.SameVerdict(t, resp, readErr, traceErr)

	req := wiretest.Hex(t, "0000000e00030000000000010000ffffffff") // MetadataRequest v0
	_, _, readErr = messages.ReadRequest(req)
	_, traceErr = messages.TraceRequest(req)
	require.ErrorIs(t, readErr, kwire.ErrNullNotAllowed)
	wiretest.SameVerdict(t, req, readErr, traceErr)

	// Tagged fields out of order: HeartbeatRequest v4 whose body tags are
	// 1 then 0.
	req = wiretest.Hex(t, "00000019"+"000c0004000000010000"+"00"+"0267"+"00000000"+"026d"+"00"+"02"+"0100"+"0000")
	_, _, readErr = messages.ReadRequest(req)
	_, traceErr = messages.TraceRequest(req)
	require.ErrorIs(t, readErr, kwire.ErrBadTag)
	wiretest.SameVerdict(t, req, readErr, traceErr)
}

type marked struct {
	_     struct{}     `kafka:"api=1000,versions=0"`
	Inner *markedInner `kafka:"v=0+,nullable=0+"`
}

type markedInner struct {
	Name       string  `kafka:"v=0+"`
	Partitions []int32 `kafka:"v=0+"`
}

func TestTraceReadsPresenceMarkersAsReadDoes(t *testing.T) {
	for _, c := range []struct{ frame, want string }{
		{"0000000b" + "00000007" + "02" + "0000" + "00000000", "struct"}, // any non-negative marker: present
		{"00000005" + "00000007" + "80", "null"},                         // any negative one: null
		{"00000005" + "00000007" + "00", "truncated"},                    // present, then nothing
	} {
		frame := wiretest.Hex(t, c.frame)
		_, readErr := kwire.ReadResponse(frame, new(marked), 0)
		tree, traceErr := kwire.TraceResponse(frame, new(marked), 0)
		wiretest.SameVerdict(t, frame, readErr, traceErr)
		if c.want == "truncated" {
			assert.ErrorIs(t, readErr, kwire.ErrTruncated)
			continue
		}
		require.NoError(t, readErr)
		inner := tree.Children[2].Children[0]
		assert.Equal(t, c.want, inner.Value)
	}
}

// taggedMessage is a flexible message with a tagged field that keeps the
// tagged fields it does not declare.
type taggedMessage struct {
	_           struct{} `kafka:"api=68,versions=0-1,flexible=0+"`
	GroupID     string   `kafka:"v=0+"`
	Rack        string   `kafka:"v=1+,tag=0,tagged=1+"`
	UnknownTags kwire.UnknownTags
}

// TestLayoutTaggedFields: a tagged field that is set shows as its own
// node; an unknown one as raw bytes; the trace covers the frame.
func TestLayoutTaggedFields(t *testing.T) {
	h := &taggedMessage{GroupID: "g", Rack: "r1", UnknownTags: kwire.NewUnknownTags(kwire.TaggedField{Tag: 9, Data: []byte{0xab}})}
	frame, tree, err := kwire.LayoutRequest(h, 1, 1, nil)
	require.NoError(t, err)
	text := tree.Format()
	assert.Contains(t, text, `+-- Rack string = "r1" (compact, len+1=3)`)
	assert.Contains(t, text, "+-- unknown bytes = ab")
	assert.Equal(t, len(frame), tree.Size)

	// A tagged field whose size prefix disagrees with its value is refused.
	bad := append([]byte(nil), frame...)
	for i := len(bad) - 1; i > 0; i-- {
		if bad[i] == 0x03 && bad[i-1] == 0x00 { // Rack: tag 0, size 3
			bad[i] = 0x04
			break
		}
	}
	_, err = kwire.TraceRequest(bad, func(int16, int16) (any, error) { return new(taggedMessage), nil })
	assert.ErrorIs(t, err, kwire.ErrBadTag)
}

// TestLayoutArrayNames: arrays of leaves are named by the wire type as
// Kafka's schemas spell it, arrays of structs by the field.
func TestLayoutArrayNames(t *testing.T) {
	type part struct {
		ID int32 `kafka:"v=0+"`
	}
	type dirs struct {
		_     struct{}     `kafka:"api=1001,versions=0,flexible=0+"`
		Dirs  []kwire.UUID `kafka:"v=0+"`
		Parts []part       `kafka:"v=0+"`
	}
	_, tree, err := kwire.LayoutRequest(&dirs{Dirs: []kwire.UUID{{}}, Parts: []part{{ID: 7}}}, 0, 1, nil)
	require.NoError(t, err)
	text := tree.Format()
	assert.Contains(t, text, "+-- Dirs []uuid = 1 element")
	assert.Contains(t, text, "+-- uuid[0] uuid = 00000000-0000-0000-0000-000000000000")
	assert.Contains(t, text, "+-- Parts[0] part = struct")
}

// TestTraceAgreesWithRead holds the layout trace to the decoder on the
// frames of every API and version, request and response (the smallest
// legal message and a random one):
//   - the whole frame reads and traces, and the tree tiles it: every
//     container's children follow one another from its first byte to its
//     last;
//   - every prefix of it, and every frame with one byte set to 0x00 or
//     0xff, fails (or not) in the read and in the trace with the same
//     sentinel, field path and offset;
//   - where decoding fails at a byte of the original frame's tree (every
//     prefix; a changed byte that is itself refused), the node of the
//     tree that holds that byte is the field the error names: the trace
//     puts each field where decoding reads it.
func TestTraceAgreesWithRead(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			for _, response := range []bool{false, true} {
				for i := 0; i < 2; i++ {
					name := fmt.Sprintf("%s v%d request #%d", api.Name, v, i)
					if response {
						name = fmt.Sprintf("%s v%d response #%d", api.Name, v, i)
					}
					frame := agreementFrame(t, r, api, v, response, i)
					checkTraceAgrees(t, name, frame, func(frame []byte) (error, *kwire.LayoutNode, error) {
						if response {
							_, readErr := kwire.ReadResponse(frame, api.NewResponse(), v)
							tree, traceErr := kwire.TraceResponse(frame, api.NewResponse(), v)
							return readErr, tree, traceErr
						}
						_, _, readErr := messages.ReadRequest(frame)
						tree, traceErr := messages.TraceRequest(frame)
						return readErr, tree, traceErr
					})
				}
			}
		}
	}
}

// everyWireType has a field of every wire type, in and out of arrays,
// nullable and not, tagged and not, across the flexible boundary.
type everyWireType struct {
	_             struct{}     `kafka:"api=1002,versions=0-3,flexible=2+"`
	I8            int8         `kafka:"v=0+"`
	I16           int16        `kafka:"v=0+,default=-1"`
	I32           int32        `kafka:"v=0+"`
	I64           int64        `kafka:"v=1+,default=0x7fffffff"`
	U16           uint16       `kafka:"v=0+"`
	U32           uint32       `kafka:"v=0+"`
	F64           float64      `kafka:"v=0+"`
	Flag          bool         `kafka:"v=0+,default=true"`
	VarInt        int32        `kafka:"v=0+,varint"`
	VarLong       int64        `kafka:"v=0+,varint"`
	UVarInt       uint32       `kafka:"v=0+,uvarint"`
	UVarInt32     int32        `kafka:"v=0+,uvarint"`
	ID            kwire.UUID   `kafka:"v=0+"`
	Str           string       `kafka:"v=0+"`
	NullStr       *string      `kafka:"v=0+,nullable=1+"`
	Bytes         []byte       `kafka:"v=0+"`
	NullBytes     []byte       `kafka:"v=0+,nullable=0+"`
	Records       []byte       `kafka:"v=0+,nullable=0+,records"`
	Ints          []int32      `kafka:"v=0+"`
	Longs         []int64      `kafka:"v=0+,nullable=2+"`
	Strs          []string     `kafka:"v=0+"`
	UUIDs         []kwire.UUID `kafka:"v=0+"`
	VarInts       []int32      `kafka:"v=0+,varint"`
	Items         []wireItem   `kafka:"v=0+,nullable=1+"`
	Inner         wireInner    `kafka:"v=0+"`
	MaybeInner    *wireInner   `kafka:"v=0+,nullable=0+,default=null"`
	Tree          []wireTree   `kafka:"v=0+"`
	TagInt        int32        `kafka:"v=2+,tag=0,tagged=2+,default=-1"`
	TagStr        *string      `kafka:"v=2+,tag=1,tagged=2+,nullable=2+,default=null"`
	TagItems      []wireItem   `kafka:"v=3+,tag=5,tagged=3+"`
	TagMaybeInner *wireInner   `kafka:"v=2+,tag=9,tagged=2+,nullable=2+,default=null"`
	UnknownTags   kwire.UnknownTags
}

type wireItem struct {
	Name        string  `kafka:"v=0+"`
	Parts       []int32 `kafka:"v=0+"`
	Epoch       int64   `kafka:"v=2+,tag=0,tagged=2+"`
	UnknownTags kwire.UnknownTags
}

type wireInner struct {
	X           int32   `kafka:"v=0+,default=7"`
	Y           *string `kafka:"v=1+,nullable=1+"`
	UnknownTags kwire.UnknownTags
}

// wireTree nests through a slice and a nullable pointer, deeper than
// decodeStruct's own stack.
type wireTree struct {
	Value    int32      `kafka:"v=0+"`
	Children []wireTree `kafka:"v=0+"`
	Next     *wireTree  `kafka:"v=0+,nullable=0+"`
}

// TestTraceAgreesWithReadOnEveryWireType is TestTraceAgreesWithRead for a
// message holding every wire type, random ones at each version (the
// smallest, its trees drawn to their full depth, is 18 KB).
func TestTraceAgreesWithReadOnEveryWireType(t *testing.T) {
	r := rand.New(rand.NewSource(18))
	for v := int16(0); v <= 3; v++ {
		for i := 0; i < 8; i++ {
			msg := new(everyWireType)
			if err := kwire.FillRandom(r, msg, v, kwire.RandomOptions{MaxLen: 3, MaxDepth: 4}); err != nil {
				t.Fatal(err)
			}
			frame, err := kwire.AppendResponse(nil, msg, v, 7)
			if err != nil {
				t.Fatal(err)
			}
			checkTraceAgrees(t, fmt.Sprintf("v%d #%d", v, i), frame, func(frame []byte) (error, *kwire.LayoutNode, error) {
				_, readErr := kwire.ReadResponse(frame, new(everyWireType), v)
				tree, traceErr := kwire.TraceResponse(frame, new(everyWireType), v)
				return readErr, tree, traceErr
			})
		}
	}
}

// agreementFrame encodes the message of API api at version v that
// TestTraceAgreesWithRead checks as its i-th: the smallest, then random.
func agreementFrame(t *testing.T, r *rand.Rand, api messages.API, v int16, response bool, i int) []byte {
	t.Helper()
	msg := api.NewRequest()
	if response {
		msg = api.NewResponse()
	}
	var err error
	if i == 0 {
		err = kwire.FillMinimal(msg, v)
	} else {
		err = kwire.FillRandom(r, msg, v, kwire.RandomOptions{MaxLen: 3, MaxDepth: 3})
	}
	if err != nil {
		t.Fatal(err)
	}
	var frame []byte
	if response {
		frame, err = kwire.AppendResponse(nil, msg, v, 7)
	} else {
		client := "c"
		frame, err = kwire.AppendRequest(nil, msg, v, 7, &client)
	}
	if err != nil {
		t.Fatal(err)
	}
	return frame
}

// checkTraceAgrees runs TestTraceAgreesWithRead's checks on one frame;
// read reads and traces a frame.
func checkTraceAgrees(t *testing.T, name string, frame []byte, read func([]byte) (error, *kwire.LayoutNode, error)) {
	t.Helper()
	readErr, tree, traceErr := read(frame)
	if readErr != nil || traceErr != nil {
		t.Fatalf("%s: %x: read: %v, trace: %v", name, frame, readErr, traceErr)
	}
	if tree.Offset != 0 || tree.Size != len(frame) {
		t.Fatalf("%s: the tree covers [%d, +%d), the frame is %d bytes", name, tree.Offset, tree.Size, len(frame))
	}
	if err := tiles(tree); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, tree.Format())
	}
	// verdict checks one changed frame; at says, when >= 0, the byte
	// before which decoding reads the changed frame as the original.
	verdict := func(changed []byte, at int, what string) {
		readErr, _, traceErr := read(changed)
		wiretest.SameVerdict(t, changed, readErr, traceErr)
		if readErr == nil {
			return
		}
		e := readErr.(*kwire.Error)
		if e.Offset < 0 || e.Offset > at || e.Op == "frame" && e.Offset >= 4 {
			return // past the change, or in the header (named as the header's type)
		}
		path, node := fieldAt(tree, e.Offset)
		if node == nil || path != e.Path {
			t.Fatalf("%s, %s: decoding fails at field %q, offset %d (%v); the trace has %q there:\n%s",
				name, what, e.Path, e.Offset, readErr, path, tree.Format())
		}
	}
	for n := 4; n < len(frame); n++ {
		cut := append([]byte(nil), frame[:n]...)
		binary.BigEndian.PutUint32(cut, uint32(n-4))
		verdict(cut, n, fmt.Sprintf("cut to %d bytes", n))
	}
	for i := 4; i < len(frame); i++ {
		for _, b := range []byte{0x00, 0xff} {
			if frame[i] == b {
				continue
			}
			changed := append([]byte(nil), frame...)
			changed[i] = b
			verdict(changed, i, fmt.Sprintf("byte %d set to %#x", i, b))
		}
	}
}

// tiles checks that each container's children cover it in order, with
// no gap and no overlap.
func tiles(n *kwire.LayoutNode) error {
	if len(n.Children) == 0 {
		return nil
	}
	at := n.Offset
	for _, c := range n.Children {
		if c.Offset != at {
			return fmt.Errorf("%s [%d, +%d): child %s starts at %d, not %d", n.Name, n.Offset, n.Size, c.Name, c.Offset, at)
		}
		if err := tiles(c); err != nil {
			return err
		}
		at += c.Size
	}
	if at != n.Offset+n.Size {
		return fmt.Errorf("%s [%d, +%d): children end at %d", n.Name, n.Offset, n.Size, at)
	}
	return nil
}

// fieldAt finds the innermost node of the body (the tree's third child)
// holding byte off, and the field path decoding errors give for it: field
// names joined by dots, element indexes in brackets; the parts of a
// container (its length, presence marker, tagged-field section) are the
// container's. nil when no body node holds the byte.
func fieldAt(tree *kwire.LayoutNode, off int) (string, *kwire.LayoutNode) {
	if len(tree.Children) != 3 {
		return "", nil
	}
	n := tree.Children[2]
	if off < n.Offset || off >= n.Offset+n.Size {
		return "", nil
	}
	var path strings.Builder
	for {
		var next *kwire.LayoutNode
		for _, c := range n.Children {
			if c.Offset <= off && off < c.Offset+c.Size {
				next = c
				break
			}
		}
		if next == nil {
			return path.String(), n
		}
		n = next
		switch {
		case structural[n.Name], strings.HasPrefix(n.Name, "tag "):
		case strings.HasSuffix(n.Name, "]"):
			path.WriteString(n.Name[strings.LastIndexByte(n.Name, '['):])
		default:
			if path.Len() > 0 {
				path.WriteByte('.')
			}
			path.WriteString(n.Name)
		}
	}
}

// structural are the names of the nodes that are parts of a container,
// not fields.
var structural = map[string]bool{"length": true, "present": true, "tagged_fields": true, "count": true, "tag+size": true, "unknown": true}

// BenchmarkTraceResponse traces a MetadataResponse v12 of 20 topics of 10
// partitions: the speed of `kwire decode` and `kwire layout` on a frame
// of a few kilobytes.
func BenchmarkTraceResponse(b *testing.B) {
	msg := messages.NewMetadataResponse()
	for t := range 20 {
		topic := messages.MetadataResponseTopic{Name: new(fmt.Sprintf("topic-%02d", t)), TopicID: kwire.UUID{byte(t)}}
		for p := range int32(10) {
			topic.Partitions = append(topic.Partitions, messages.MetadataResponsePartition{
				PartitionIndex: p, LeaderID: p % 3, ReplicaNodes: []int32{0, 1, 2}, IsrNodes: []int32{0, 1, 2}})
		}
		msg.Topics = append(msg.Topics, topic)
	}
	frame, err := kwire.AppendResponse(nil, msg, 12, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := kwire.TraceResponse(frame, messages.NewMetadataResponse(), 12); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTraceRequest traces the reference page's request,
// ConsumerGroupHeartbeatRequest v1 at its smallest (55 bytes).
func BenchmarkTraceRequest(b *testing.B) {
	msg := messages.NewConsumerGroupHeartbeatRequest()
	if err := kwire.FillMinimal(msg, 1); err != nil {
		b.Fatal(err)
	}
	frame, err := kwire.AppendRequest(nil, msg, 1, 0, new(string))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := messages.TraceRequest(frame); err != nil {
			b.Fatal(err)
		}
	}
}
