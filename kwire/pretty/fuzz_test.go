package pretty_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

// FuzzJSON: whatever a Fetch or Produce body decodes to, including hostile
// records, gives valid JSON (summary and detail) and a summary, never a
// panic.
func FuzzJSON(f *testing.F) {
	recs, _ := produceRecords(f)
	for _, v := range []int16{4, 12} {
		body, err := kwire.Marshal(fetchOf(recs), v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body, v, true)
		f.Add(body[:len(body)-3], v, true)
	}
	req := &messages.ProduceRequest{TopicData: []messages.ProduceRequestTopicProduceData{{Name: "t",
		PartitionData: []messages.ProduceRequestPartitionProduceData{{Records: recs}}}}}
	body, err := kwire.Marshal(req, 9)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body, int16(9), false)
	f.Fuzz(func(t *testing.T, data []byte, v int16, fetch bool) {
		var msg any = &messages.ProduceRequest{}
		if fetch {
			msg = &messages.FetchResponse{}
		}
		if kwire.Unmarshal(data, msg, v) != nil {
			return
		}
		for _, opts := range [][]pretty.Option{nil, {pretty.WithRecords()}} {
			out, err := pretty.JSON(msg, v, opts...)
			if err != nil || !json.Valid(out) {
				t.Fatalf("v%d: %v %s", v, err, out)
			}
		}
		if pretty.Summary(msg, v) == "" {
			t.Fatal("empty summary")
		}
	})
}

// FuzzParseJSON: any bytes given to ParseJSON give a message or a
// *kwire.Error, never a panic; a message read is one JSON writes back
// and reads again to the same bytes.
func FuzzParseJSON(f *testing.F) {
	recs, _ := produceRecords(f)
	req := &messages.ProduceRequest{Acks: -1, TopicData: []messages.ProduceRequestTopicProduceData{{Name: "t",
		PartitionData: []messages.ProduceRequestPartitionProduceData{{Records: recs}}}}}
	for _, opts := range [][]pretty.Option{{pretty.WithRecords()}, {pretty.WithRawRecords()}} {
		j, err := pretty.JSON(req, 9, opts...)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(j, true)
	}
	resp := fetchOf(recs)
	j, _ := pretty.JSON(resp, 12, pretty.WithRecords())
	f.Add(j, false)
	f.Add([]byte(`{"Responses":[{"Partitions":[{"Records":{"Batches":[{"Magic":1,"Codec":"gzip","Records":[{"Key":{"Base64":"AA=="}}]}]}}]}]}`), false)
	f.Fuzz(func(t *testing.T, data []byte, produce bool) {
		var msg any = &messages.FetchResponse{}
		v := int16(12)
		if produce {
			msg, v = &messages.ProduceRequest{}, 9
		}
		err := pretty.ParseJSON(data, msg, v)
		if err != nil {
			var ke *kwire.Error
			if !errors.As(err, &ke) {
				t.Fatalf("error %v is not a *kwire.Error", err)
			}
			return
		}
		want, err := kwire.Marshal(msg, v)
		if err != nil {
			return // JSON can say what the codec refuses (a null where the version has none)
		}
		again, err := pretty.JSON(msg, v, pretty.WithRawRecords())
		if err != nil {
			t.Fatal(err)
		}
		back := reflect.New(reflect.TypeOf(msg).Elem()).Interface()
		if err := pretty.ParseJSON(again, back, v); err != nil {
			t.Fatalf("%v\n%s", err, again)
		}
		if got, err := kwire.Marshal(back, v); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read back: %v\n%x\n%x", err, got, want)
		}
	})
}
