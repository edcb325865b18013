package kwire_test

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwirelabs/kwire/internal/sizes"
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kwiretest"
	"github.com/kwirelabs/kwire/messages"
)

// allTypes uses every wire type and tag feature kwire has. Versions 0-1
// are classic, 2-3 flexible.
type allTypes struct {
	_             struct{}     `kafka:"versions=0-3,flexible=2+"`
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
	ClientID      *string      `kafka:"v=0+,nullable=0+,compact=none"`
	CompactLater  string       `kafka:"v=0+,compact=3+"`
	Bytes         []byte       `kafka:"v=0+"`
	NullBytes     []byte       `kafka:"v=0+,nullable=0+"`
	Records       []byte       `kafka:"v=0+,nullable=0+,records"`
	Ints          []int32      `kafka:"v=0+"`
	Longs         []int64      `kafka:"v=0+,nullable=2+"`
	Strs          []string     `kafka:"v=0+"`
	UUIDs         []kwire.UUID `kafka:"v=0+"`
	VarInts       []int32      `kafka:"v=0+,varint"`
	Items         []item       `kafka:"v=0+,nullable=1+"`
	CardLiteral   []item       `kafka:"v=0+,nullable=0+,compact=2+"`
	Inner         inner        `kafka:"v=0+"`
	MaybeInner    *inner       `kafka:"v=0+,nullable=0+,default=null"`
	OnlyOld       int32        `kafka:"v=0-1,ignorable"`
	TagInt        int32        `kafka:"v=2+,tag=0,tagged=2+,default=-1"`
	TagStr        *string      `kafka:"v=2+,tag=1,tagged=2+,nullable=2+,default=null"`
	TagItems      []item       `kafka:"v=3+,tag=5,tagged=3+"`
	TagInner      inner        `kafka:"v=2+,tag=7,tagged=2+"`
	TagMaybeInner *inner       `kafka:"v=2+,tag=9,tagged=2+,nullable=2+,default=null"`
	UnknownTags   kwire.UnknownTags
}

type item struct {
	Name        string  `kafka:"v=0+"`
	Parts       []int32 `kafka:"v=0+"`
	Epoch       int64   `kafka:"v=2+,tag=0,tagged=2+"`
	UnknownTags kwire.UnknownTags
}

type inner struct {
	X           int32   `kafka:"v=0+,default=7"`
	Y           *string `kafka:"v=1+,nullable=1+"`
	UnknownTags kwire.UnknownTags
}

// tree is recursive through a slice and a nullable pointer.
type tree struct {
	_        struct{} `kafka:"versions=0-1,flexible=1+"`
	Value    int32    `kafka:"v=0+"`
	Children []tree   `kafka:"v=0+"`
	Next     *tree    `kafka:"v=0+,nullable=0+"`
}

func properties(t *testing.T, minSuccessful int) *gopter.Properties {
	params := gopter.DefaultTestParametersWithSeed(int64(len(t.Name())) * 7919)
	params.MinSuccessfulTests = minSuccessful
	params.MaxSize = 48
	return gopter.NewProperties(params)
}

func TestPropertiesTestStructs(t *testing.T) {
	kwiretest.RoundTrip(t, &allTypes{})
	kwiretest.RoundTrip(t, &tree{Value: 1, Children: []tree{{Value: 2}}, Next: &tree{Value: 3}})
	ps := properties(t, 300)
	for v := int16(0); v <= 3; v++ {
		ps.Property(fmt.Sprintf("allTypes v%d round-trips", v), prop.ForAll1(kwiretest.Gen(&allTypes{}, v),
			func(m any) (any, error) { return true, kwiretest.Check(m, v) }))
	}
	for v := int16(0); v <= 1; v++ {
		ps.Property(fmt.Sprintf("tree v%d round-trips", v), prop.ForAll1(kwiretest.Gen(&tree{}, v),
			func(m any) (any, error) { return true, kwiretest.Check(m, v) }))
	}
	ps.TestingRun(t)
}

func TestPropertiesEveryAPIAndVersion(t *testing.T) {
	samples := 100
	if testing.Short() {
		samples = 3
	}
	pairs := 0
	for _, api := range messages.APIs() {
		ps := properties(t, samples)
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			for _, response := range []bool{false, true} {
				newMsg := api.NewRequest
				if response {
					newMsg = api.NewResponse
				}
				name := fmt.Sprintf("%T v%d", newMsg(), v)
				ps.Property(name+" round-trips, Size is its length", prop.ForAll1(kwiretest.Gen(newMsg(), v),
					func(m any) (any, error) {
						if err := kwiretest.Check(m, v); err != nil {
							return false, err
						}
						return true, checkFrameSize(api, m, v, response)
					}))
				pairs++
			}
		}
		ps.TestingRun(t)
	}
	t.Logf("%d (API, version, direction) combinations", pairs)
}

// checkFrameSize: the body's Size and the frame's length agree, and the
// frame's size prefix counts what follows it. The header's length is
// worked out here from Kafka's header layouts, not asked of kwire.
func checkFrameSize(api messages.API, m any, v int16, response bool) error {
	body, err := kwire.Size(m, v)
	if err != nil {
		return err
	}
	clientID := "kwire-props"
	var frame []byte
	var header int
	if response {
		frame, err = kwire.AppendResponse(nil, m, v, 7)
		header = 4 // correlation ID
		if kwire.ResponseHeaderVersion(api.Key, api.IsFlexible(v)) == 1 {
			header++ // empty tag section
		}
	} else {
		frame, err = kwire.AppendRequest(nil, m, v, 7, &clientID)
		header = 2 + 2 + 4 // key, version, correlation ID
		switch kwire.RequestHeaderVersion(api.Key, v, api.IsFlexible(v)) {
		case 1:
			header += 2 + len(clientID)
		case 2:
			header += 2 + len(clientID) + 1 // and an empty tag section
		}
	}
	if err != nil {
		return err
	}
	if len(frame) != 4+header+body {
		return fmt.Errorf("frame of %d bytes, want 4 + %d (header) + %d (Size)", len(frame), header, body)
	}
	if prefix := int(frame[0])<<24 | int(frame[1])<<16 | int(frame[2])<<8 | int(frame[3]); prefix != len(frame)-4 {
		return fmt.Errorf("size prefix %d, %d bytes follow", prefix, len(frame)-4)
	}
	return nil
}

// minimalSizesFile is the committed table of minimal-instance sizes,
// written by `go generate ./messages`.
const minimalSizesFile = "messages/testdata/minimal-sizes.tsv"

// TestPropertiesMinimalSizes checks every row of the committed table
// against the frames kwire writes for FillMinimal's instance now (request
// header with an empty client ID, as the reference page has it), and that
// the table has exactly one row per API and version of the registry. A
// change that moves a size fails here until the table is regenerated and
// the diff reviewed.
func TestPropertiesMinimalSizes(t *testing.T) {
	f, err := os.Open(minimalSizesFile)
	require.NoError(t, err)
	defer f.Close()
	rows, err := sizes.ReadTSV(f)
	require.NoError(t, err)
	require.NotEmpty(t, rows)

	type pair struct{ key, v int16 }
	table := map[pair]sizes.Row{}
	for _, r := range rows {
		_, dup := table[pair{r.Key, r.Version}]
		require.False(t, dup, "%s: key %d v%d twice", minimalSizesFile, r.Key, r.Version)
		table[pair{r.Key, r.Version}] = r
	}
	const stale = "if the change is meant, run `go generate ./messages` and review the table's diff"
	empty := ""
	checked := 0
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			row, ok := table[pair{api.Key, v}]
			if !assert.True(t, ok, "%s v%d has no row in %s", api.Name, v, minimalSizesFile) {
				continue
			}
			delete(table, pair{api.Key, v})
			assert.Equal(t, api.Name, row.Name, "key %d", api.Key)
			req, err := kwire.AppendRequest(nil, fillMinimal(t, api.NewRequest(), v), v, 0, &empty)
			require.NoError(t, err)
			resp, err := kwire.AppendResponse(nil, fillMinimal(t, api.NewResponse(), v), v, 0)
			require.NoError(t, err)
			okReq := assert.Equal(t, row.Request, len(req), "%s v%d: the smallest request frame; %s", api.Name, v, stale)
			okResp := assert.Equal(t, row.Response, len(resp), "%s v%d: the smallest response frame; %s", api.Name, v, stale)
			if okReq && okResp {
				checked++
			}
		}
	}
	for p := range table {
		t.Errorf("%s: key %d v%d is not in the registry", minimalSizesFile, p.key, p.v)
	}
	// The reference page's own API and version: its request, and its
	// response with the presence marker it leaves out.
	ref := rows[0]
	for _, r := range rows {
		if r.Key == 68 && r.Version == 1 {
			ref = r
		}
	}
	assert.Equal(t, [2]int{55, 51}, [2]int{ref.Request, ref.Response}, "ConsumerGroupHeartbeat v1")
	assert.Contains(t, ref.Note, "the page says 50")
	t.Logf("%d (API, version) rows match the frames kwire writes", checked)
}

// TestPropertiesRequestFrames reads random request frames back through
// the registry, and checks that cut frames are errors, not panics.
func TestPropertiesRequestFrames(t *testing.T) {
	ps := properties(t, 400)
	apis := messages.APIs()
	type sample struct {
		api     messages.API
		version int16
		msg     any
	}
	genSample := func(p *gopter.GenParameters) *gopter.GenResult {
		api := apis[p.Rng.Intn(len(apis))]
		v := api.MinVersion + int16(p.Rng.Intn(int(api.MaxVersion-api.MinVersion)+1))
		m := kwiretest.Gen(api.NewRequest(), v)(p).Result
		return gopter.NewGenResult(sample{api, v, m}, gopter.NoShrinker)
	}
	clientID := "kwire-props"
	ps.Property("request frames read back through the registry", prop.ForAll1(gopter.Gen(genSample), func(s any) (any, error) {
		smp := s.(sample)
		frame, err := kwire.AppendRequest(nil, smp.msg, smp.version, 42, &clientID)
		if err != nil {
			return false, err
		}
		hdr, body, err := messages.ReadRequest(frame)
		if err != nil {
			return false, err
		}
		if hdr.APIKey != smp.api.Key || hdr.APIVersion != smp.version || hdr.CorrelationID != 42 || *hdr.ClientID != clientID {
			return false, fmt.Errorf("header %+v", hdr)
		}
		if !reflect.DeepEqual(body, smp.msg) {
			return false, fmt.Errorf("body differs")
		}
		for cut := 4; cut < len(frame); cut += 1 + len(frame)/8 {
			cutFrame := append([]byte(nil), frame[:cut]...)
			cutFrame[0], cutFrame[1], cutFrame[2], cutFrame[3] = 0, 0, byte((cut-4)>>8), byte(cut-4)
			if _, _, err := messages.ReadRequest(cutFrame); err == nil {
				return false, fmt.Errorf("frame cut at %d of %d read without error", cut, len(frame))
			}
		}
		return true, nil
	}))
	ps.TestingRun(t)
}

// TestPropertiesHostileBytes feeds random bytes, and random bytes after a
// valid prefix, to Unmarshal for every API: an error or a value, never a
// panic.
func TestPropertiesHostileBytes(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, api := range messages.APIs() {
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			for _, newMsg := range []func() any{api.NewRequest, api.NewResponse} {
				valid, err := kwire.Marshal(fillMinimal(t, newMsg(), v), v)
				require.NoError(t, err)
				for i := 0; i < 10; i++ {
					junk := make([]byte, r.Intn(64))
					r.Read(junk)
					noPanic(t, junk, newMsg(), v)
					mixed := append(append([]byte(nil), valid[:r.Intn(len(valid)+1)]...), junk...)
					noPanic(t, mixed, newMsg(), v)
					flipped := append([]byte(nil), valid...)
					if len(flipped) > 0 {
						flipped[r.Intn(len(flipped))] ^= byte(1 + r.Intn(255))
					}
					noPanic(t, flipped, newMsg(), v)
				}
			}
		}
	}
}

func fillMinimal(t *testing.T, m any, v int16) any {
	require.NoError(t, kwire.FillMinimal(m, v))
	return m
}

func noPanic(t *testing.T, data []byte, m any, v int16) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%T v%d panicked on %x: %v", m, v, data, p)
		}
	}()
	if err := kwire.Unmarshal(data, m, v); err != nil {
		var ke *kwire.Error
		if !errors.As(err, &ke) {
			t.Fatalf("%T v%d: error %v is not a *kwire.Error", m, v, err)
		}
	}
}
