package pretty_test

import (
	"encoding/json"
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
