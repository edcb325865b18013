package pretty_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/kwiretest"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

// roundTrip writes msg as JSON with opts, reads it into a new message of
// the same type and checks that both encode to the same bytes.
func roundTrip(msg any, v int16, opts ...pretty.Option) error {
	want, err := kwire.Marshal(msg, v)
	if err != nil {
		return fmt.Errorf("marshal: %v", err)
	}
	j, err := pretty.JSON(msg, v, opts...)
	if err != nil {
		return err
	}
	back := reflect.New(reflect.TypeOf(msg).Elem()).Interface()
	if err := pretty.ParseJSON(j, back, v); err != nil {
		return fmt.Errorf("%v\n%s", err, j)
	}
	got, err := kwire.Marshal(back, v)
	if err != nil {
		return fmt.Errorf("marshal of the read-back message: %v\n%s", err, j)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("bytes differ after JSON\n got %x\nwant %x\n%s", got, want, j)
	}
	return nil
}

// randomRecordSets replaces the bytes of every records field (random
// bytes or an empty batch, as FillRandom makes them) with 0-2 valid
// entries: RecordBatches with random headers and records (offsets and
// timestamps not consecutive, binary and text payloads, headers), every
// codec, and legacy message sets of magic 0 and 1.
func randomRecordSets(r *rand.Rand, msg any, v int16) error {
	return kwire.Walk(msg, v, func(_ *kwire.Path, f *kwire.Field, fv reflect.Value) error {
		if !f.Records || fv.IsNil() {
			return nil
		}
		var set []byte
		for n := r.Intn(3); n > 0; n-- {
			var err error
			if set, err = appendRandomEntry(r, set); err != nil {
				return err
			}
		}
		if set == nil {
			set = []byte{}
		}
		fv.SetBytes(set)
		return nil
	})
}

func randomPayload(r *rand.Rand) []byte {
	switch r.Intn(4) {
	case 0:
		return nil
	case 1:
		b := make([]byte, r.Intn(6))
		r.Read(b) // usually not UTF-8: written as {"Base64":...}
		return b
	}
	return []byte(strings.Repeat("é-x", r.Intn(3)))
}

func appendRandomEntry(r *rand.Rand, dst []byte) ([]byte, error) {
	codec := record.Codec(r.Intn(5))
	recs := make([]record.Record, r.Intn(4))
	if magic := int8(r.Intn(4)); magic < 2 { // legacy: what Build writes
		if codec == record.CodecZstd {
			codec = record.CodecNone
		}
		for i := range recs {
			recs[i] = record.Record{Timestamp: r.Int63n(1 << 42), Key: randomPayload(r), Value: randomPayload(r)}
		}
		opts := []record.Option{record.WithMagic(magic), record.WithCodec(codec), record.WithBaseOffset(r.Int63n(1 << 40))}
		if magic == 1 && r.Intn(3) == 0 {
			opts = append(opts, record.WithLogAppendTime(r.Int63n(1<<42)))
		}
		return record.AppendBatch(dst, recs, opts...)
	}
	h := record.Batch{
		Magic: 2, BaseOffset: r.Int63(), PartitionLeaderEpoch: r.Int31() - 5,
		Attributes:      record.MakeAttributes(codec, record.TimestampType(r.Intn(2)), r.Intn(2) == 0, r.Intn(4) == 0, r.Intn(4) == 0),
		LastOffsetDelta: r.Int31n(100) - 1, BaseTimestamp: r.Int63n(1<<42) - 1, MaxTimestamp: r.Int63n(1 << 42),
		ProducerID: r.Int63() - 1, ProducerEpoch: int16(r.Intn(1 << 15)), BaseSequence: r.Int31() - 1,
	}
	for i := range recs {
		recs[i] = record.Record{Offset: h.BaseOffset + r.Int63n(1000) - 10, Timestamp: h.BaseTimestamp + r.Int63n(2000) - 1000,
			Key: randomPayload(r), Value: randomPayload(r)}
		for n := r.Intn(3); n > 0; n-- {
			recs[i].Headers = append(recs[i].Headers, record.Header{Key: strings.Repeat("h☃", r.Intn(3)), Value: randomPayload(r)})
		}
		if r.Intn(10) == 0 {
			recs[i].Attributes = int8(r.Intn(256) - 128)
		}
	}
	return record.AppendBatchLike(dst, &h, recs)
}

// Every API and version, both directions: a random instance written as
// JSON and read back encodes to the same bytes; with its records as raw
// base64 (any bytes), and with them in full (valid batches of every kind).
func TestPropertyParseJSONEveryAPIAndVersion(t *testing.T) {
	samples := 25
	if testing.Short() {
		samples = 2
	}
	params := gopter.DefaultTestParametersWithSeed(20)
	params.MinSuccessfulTests = samples
	params.MaxSize = 36
	pairs := 0
	for _, api := range messages.APIs() {
		ps := gopter.NewProperties(params)
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			for _, newMsg := range []func() any{api.NewRequest, api.NewResponse} {
				name := fmt.Sprintf("%T v%d", newMsg(), v)
				ps.Property(name+" raw records", prop.ForAll1(kwiretest.Gen(newMsg(), v), func(m any) (any, error) {
					return true, roundTrip(m, v, pretty.WithRawRecords())
				}))
				ps.Property(name+" records in full", prop.ForAll1(kwiretest.Gen(newMsg(), v), func(m any) (any, error) {
					r := rand.New(rand.NewSource(int64(pairs)))
					if err := randomRecordSets(r, m, v); err != nil {
						return false, err
					}
					return true, roundTrip(m, v, pretty.WithRecords())
				}))
				pairs++
			}
		}
		ps.TestingRun(t)
	}
	t.Logf("%d (API, version, direction) combinations, %d samples each, both record forms", pairs, samples)
	if pairs < 700 {
		t.Fatalf("only %d (API, version, direction) combinations", pairs)
	}
}

// The test struct of the kwire tests has every wire type and no Default
// method: a missing field keeps the zero value.
func TestParseJSONAllWireTypes(t *testing.T) {
	type inner struct {
		X           int32   `kafka:"v=0+,default=7"`
		Y           *string `kafka:"v=1+,nullable=1+"`
		UnknownTags kwire.UnknownTags
	}
	type allTypes struct {
		_           struct{}     `kafka:"versions=0-3,flexible=2+"`
		I8          int8         `kafka:"v=0+"`
		U16         uint16       `kafka:"v=0+"`
		U32         uint32       `kafka:"v=0+"`
		F64         float64      `kafka:"v=0+"`
		VarLong     int64        `kafka:"v=0+,varint"`
		UVarInt     uint32       `kafka:"v=0+,uvarint"`
		ID          kwire.UUID   `kafka:"v=0+"`
		NullBytes   []byte       `kafka:"v=0+,nullable=0+"`
		Records     []byte       `kafka:"v=0+,nullable=0+,records"`
		UUIDs       []kwire.UUID `kafka:"v=0+"`
		Items       []inner      `kafka:"v=0+,nullable=1+"`
		MaybeInner  *inner       `kafka:"v=0+,nullable=0+,default=null"`
		OnlyOld     int32        `kafka:"v=0-1,ignorable"`
		TagStr      *string      `kafka:"v=2+,tag=1,tagged=2+,nullable=2+,default=null"`
		UnknownTags kwire.UnknownTags
	}
	params := gopter.DefaultTestParametersWithSeed(3)
	params.MinSuccessfulTests = 200
	ps := gopter.NewProperties(params)
	for v := int16(0); v <= 3; v++ {
		ps.Property(fmt.Sprintf("allTypes v%d", v), prop.ForAll1(kwiretest.Gen(&allTypes{}, v), func(m any) (any, error) {
			return true, roundTrip(m, v, pretty.WithRawRecords())
		}))
	}
	ps.TestingRun(t)

	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 5e-324, math.MaxFloat64} {
		var back allTypes
		j, _ := pretty.JSON(&allTypes{F64: f}, 0)
		if err := pretty.ParseJSON(j, &back, 0); err != nil || math.Float64bits(back.F64) != math.Float64bits(f) &&
			!(math.IsNaN(f) && math.IsNaN(back.F64)) {
			t.Errorf("float %v: read back %v, %v (%s)", f, back.F64, err, j)
		}
	}
	var back allTypes
	if err := pretty.ParseJSON([]byte(`{"ID":"yJ7AU0uBSdu0HhEHLuCAjQ","U32":4294967295}`), &back, 0); err != nil ||
		back.ID.String() != "c89ec053-4b81-49db-b41e-11072ee0808d" || back.U32 != math.MaxUint32 {
		t.Errorf("Kafka's base64 UUID: %v %v", back.ID, err)
	}
}

// A fixture written by hand: fields left out keep the schema defaults
// (RebalanceTimeoutMs is -1), records are given record by record.
func TestParseJSONFixture(t *testing.T) {
	var req messages.ConsumerGroupHeartbeatRequest
	err := pretty.ParseJSON([]byte(`{"GroupID":"g","MemberEpoch":3,
		"TopicPartitions":[{"TopicID":"12345678-9abc-def0-0123-456789abcdef","Partitions":[0,1]}]}`), &req, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := messages.NewConsumerGroupHeartbeatRequest()
	want.GroupID, want.MemberEpoch = "g", 3
	want.TopicPartitions = []messages.ConsumerGroupHeartbeatRequestTopicPartitions{{TopicID: topicID, Partitions: []int32{0, 1}}}
	if !reflect.DeepEqual(&req, want) {
		t.Errorf("got %+v\nwant %+v", req, *want)
	}

	// Records in full with the batch header left out are the batch
	// record.Build makes of the same records.
	var produce messages.ProduceRequest
	err = pretty.ParseJSON([]byte(`{"Acks":-1,"TimeoutMs":1000,"TopicData":[{"Name":"t","PartitionData":[{"Index":0,
		"Records":{"Batches":[{"Codec":"zstd","Records":[
			{"Timestamp":1700000000000,"Key":"k","Value":"v","Headers":[{"Key":"h","Value":{"Base64":"/wA="}}]},
			{"Timestamp":1700000000007,"Key":null,"Value":"w","Headers":[]}]}]}}]}]}`), &produce, 9)
	if err != nil {
		t.Fatal(err)
	}
	built, err := record.Build([]record.Record{
		{Timestamp: 1700000000000, Key: []byte("k"), Value: []byte("v"), Headers: []record.Header{{Key: "h", Value: []byte{0xff, 0}}}},
		{Timestamp: 1700000000007, Value: []byte("w")},
	}, record.WithCodec(record.CodecZstd))
	if err != nil {
		t.Fatal(err)
	}
	if got := produce.TopicData[0].PartitionData[0].Records; !bytes.Equal(got, built) {
		t.Errorf("records\n got %x\nwant %x", got, built)
	}
}

// Raw records come back byte for byte, whatever they hold: compressed
// batches, a batch cut short, bytes that are no batch at all.
func TestParseJSONRawRecords(t *testing.T) {
	recs, _ := produceRecords(t)
	for _, set := range [][]byte{recs, recs[:len(recs)-5], {1, 2, 3}, {}, nil} {
		msg := fetchOf(set)
		if err := roundTrip(msg, 4, pretty.WithRawRecords()); err != nil {
			t.Error(err)
		}
		j, _ := pretty.JSON(msg, 4, pretty.WithRawRecords(), pretty.WithRecords())
		var back messages.FetchResponse
		if err := pretty.ParseJSON(j, &back, 4); err != nil {
			t.Fatal(err)
		}
		if got := back.Responses[0].Partitions[0].Records; !bytes.Equal(got, set) || (got == nil) != (set == nil) {
			t.Errorf("records %x read back as %x", set, got)
		}
	}
	// The full form of a cut or corrupt set cannot be rebuilt: it says so.
	for _, set := range [][]byte{recs[:len(recs)-5], {1, 2, 3}} {
		j, _ := pretty.JSON(fetchOf(set), 4, pretty.WithRecords())
		err := pretty.ParseJSON(j, &messages.FetchResponse{}, 4)
		if !errors.Is(err, pretty.ErrJSONValue) || !strings.Contains(err.Error(), "Responses[0].Partitions[0].Records") ||
			!strings.Contains(err.Error(), "WithRawRecords") || !strings.Contains(err.Error(), "-json -raw-records") {
			t.Errorf("%x: %v", set, err)
		}
	}
	// A summary says too little, unless the set is empty.
	j, _ := pretty.JSON(fetchOf(recs), 4)
	if err := pretty.ParseJSON(j, &messages.FetchResponse{}, 4); !errors.Is(err, pretty.ErrJSONValue) {
		t.Errorf("summary read back: %v", err)
	}
	j, _ = pretty.JSON(fetchOf([]byte{}), 4)
	var back messages.FetchResponse
	if err := pretty.ParseJSON(j, &back, 4); err != nil || back.Responses[0].Partitions[0].Records == nil {
		t.Errorf("empty summary: %v %s", err, j)
	}
}

func TestParseJSONErrors(t *testing.T) {
	for _, c := range []struct {
		json     string
		version  int16
		sentinel error
		want     string // in the message
	}{
		{`{"Acks":1,"Bogus":2}`, 9, pretty.ErrUnknownField, `messages.ProduceRequest.Bogus at offset 10: unknown field: "Bogus"`},
		{`{"TopicData":[{"Name":"t","PartitionData":[{},{"Index":1,"Recs":null}]}]}`, 9, pretty.ErrUnknownField,
			`TopicData[0].PartitionData[1].Recs`},
		{`{"TransactionalID":"x"}`, 2, kwire.ErrFieldNotInVersion, `.TransactionalID at offset 1: non-default value in a field this version lacks: ProduceRequest v2 has no TransactionalID`},
		{`{"TopicData":[{"TopicID":"12345678-9abc-def0-0123-456789abcdef"}]}`, 12, kwire.ErrFieldNotInVersion, `TopicData[0].TopicID`},
		{`{"Acks":32768}`, 9, kwire.ErrValueOutOfRange, `.Acks at offset 8: value out of range: 32768 is not an int16`},
		{`{"Acks":"1"}`, 9, pretty.ErrJSONValue, `.Acks`},
		{`{"Acks":1.5}`, 9, kwire.ErrValueOutOfRange, `.Acks`},
		{`{"TimeoutMs":null}`, 9, pretty.ErrJSONValue, `want an integer, got null`},
		{`{"Acks":1,"Acks":2}`, 9, pretty.ErrJSONSyntax, `given twice`},
		{`{"Acks":1}{}`, 9, pretty.ErrJSONSyntax, `data after the object`},
		{`{"Acks":1`, 9, pretty.ErrJSONSyntax, `unexpected end`},
		{`{"Acks" 1}`, 9, pretty.ErrJSONSyntax, `offset 8`},
		{`[]`, 9, pretty.ErrJSONValue, `want an object, got an array`},
		{`{"TopicData":[{"Name":"t","PartitionData":[{"Records":{"Batches":[{"Codec":"brotli"}]}}]}]}`, 9, pretty.ErrJSONValue,
			`TopicData[0].PartitionData[0].Records.Batches[0].Codec`},
		{`{"TopicData":[{"Name":"t","PartitionData":[{"Records":{"Batches":[{"Records":[{"Key":{"Hex":"00"}}]}]}}]}]}`, 9, pretty.ErrUnknownField,
			`Records.Batches[0].Records[0].Key.Hex`},
		{`{"TopicData":[{"Name":"t","PartitionData":[{"Records":"***"}]}]}`, 9, pretty.ErrJSONValue, `PartitionData[0].Records`},
		{`{"TopicData":[{"Name":"t","PartitionData":[{"Records":{"Batches":[{"Magic":7}]}}]}]}`, 9, pretty.ErrJSONValue, `cannot be built`},
		{`{"TopicData":[{"Name":"t","PartitionData":[{"Records":{"Batches":[{"CRC":-1}]}}]}]}`, 9, kwire.ErrValueOutOfRange, `CRC`},
	} {
		err := pretty.ParseJSON([]byte(c.json), &messages.ProduceRequest{}, c.version)
		if !errors.Is(err, c.sentinel) || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("%s v%d:\n got %v\nwant %v, with %q", c.json, c.version, err, c.sentinel, c.want)
		}
	}
	var ke *kwire.Error
	if err := pretty.ParseJSON([]byte(`{"Bogus":1}`), &messages.ProduceRequest{}, 9); !errors.As(err, &ke) || ke.Path != "Bogus" {
		t.Errorf("not a *kwire.Error with the path: %#v", err)
	}
	if err := pretty.ParseJSON([]byte(`{}`), messages.ProduceRequest{}, 9); err == nil {
		t.Error("a struct, not a pointer, was accepted")
	}
	if err := pretty.ParseJSON([]byte(`{}`), &messages.ProduceRequest{}, 99); !errors.Is(err, kwire.ErrUnsupportedVersion) {
		t.Errorf("version 99: %v", err)
	}
}
