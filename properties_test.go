package kwire_test

import (
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"

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
	NullStr       *string      `kafka:"v=0+,nullable=1+,default=null"`
	ClientID      *string      `kafka:"v=0+,nullable=0+,compact=none"`
	CompactLater  string       `kafka:"v=0+,compact=1+"`
	Bytes         []byte       `kafka:"v=0+"`
	NullBytes     []byte       `kafka:"v=0+,nullable=0+"`
	Records       []byte       `kafka:"v=0+,nullable=0+,records"`
	Ints          []int32      `kafka:"v=0+"`
	Longs         []int64      `kafka:"v=0+,nullable=2+"`
	Strs          []string     `kafka:"v=0+"`
	UUIDs         []kwire.UUID `kafka:"v=0+"`
	VarInts       []int32      `kafka:"v=0+,varint"`
	Items         []item       `kafka:"v=0+,nullable=1+"`
	CardLiteral   []item       `kafka:"v=0+,nullable=0+,compact"`
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
			for _, newMsg := range []func() any{api.NewRequest, api.NewResponse} {
				name := fmt.Sprintf("%T v%d", newMsg(), v)
				ps.Property(name+" round-trips", prop.ForAll1(kwiretest.Gen(newMsg(), v),
					func(m any) (any, error) { return true, kwiretest.Check(m, v) }))
				pairs++
			}
		}
		ps.TestingRun(t)
	}
	t.Logf("%d (API, version, direction) combinations", pairs)
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
