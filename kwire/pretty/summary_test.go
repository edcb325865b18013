package pretty_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kwirelabs/kwire/kwire/kerr"
	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/messages"
)

func TestSummary(t *testing.T) {
	recs, _ := produceRecords(t)
	req := &messages.ProduceRequest{TransactionalID: str("tx-1"), Acks: -1, TimeoutMs: 30000, TopicData: []messages.ProduceRequestTopicProduceData{
		{Name: "orders", PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: recs}, {Index: 1, Records: recs}}},
		{Name: "audit", PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: nil}}},
	}}
	fetch := &messages.FetchResponse{ErrorCode: 0, SessionID: 9, Responses: []messages.FetchResponseFetchableTopicResponse{
		{Topic: "orders", Partitions: []messages.FetchResponsePartitionData{
			{PartitionIndex: 0, ErrorCode: int16(kerr.NotLeaderOrFollower)},
			{PartitionIndex: 1, HighWatermark: 10, Records: recs[:len(recs)-5]},
		}},
	}}
	many := &messages.MetadataResponse{}
	for i := 0; i < 6; i++ {
		many.Topics = append(many.Topics, messages.MetadataResponseTopic{Name: str(fmt.Sprint("t", i)), ErrorCode: int16(kerr.UnknownTopicOrPartition)})
	}
	long := &messages.FindCoordinatorRequest{Key: "0123456789012345678901234567890123456789012345678901234567890123456789"}

	for _, tc := range []struct {
		msg     any
		version int16
		want    string
	}{
		{req, 2, fmt.Sprintf(`ProduceRequest v2 Acks=-1 TimeoutMs=30000 TopicData=2 TopicData.PartitionData=3 records=6 batches=4 codec=none,gzip bytes=%d`, 2*len(recs))},
		{req, 3, fmt.Sprintf(`ProduceRequest v3 TransactionalID="tx-1" Acks=-1 TimeoutMs=30000 TopicData=2 TopicData.PartitionData=3 records=6 batches=4 codec=none,gzip bytes=%d`, 2*len(recs))},
		{fetch, 4, fmt.Sprintf(`FetchResponse v4 Responses=1 Responses.Partitions=2 records=2 batches=1 codec=none bytes=%d partial errors=Responses[0].Partitions[0].ErrorCode=NOT_LEADER_OR_FOLLOWER`, len(recs)-5)},
		{fetch, 7, fmt.Sprintf(`FetchResponse v7 SessionID=9 Responses=1 Responses.Partitions=2 records=2 batches=1 codec=none bytes=%d partial errors=Responses[0].Partitions[0].ErrorCode=NOT_LEADER_OR_FOLLOWER`, len(recs)-5)},
		{many, 1, `MetadataResponse v1 Topics=6 errors=Topics[0].ErrorCode=UNKNOWN_TOPIC_OR_PARTITION,Topics[1].ErrorCode=UNKNOWN_TOPIC_OR_PARTITION,` +
			`Topics[2].ErrorCode=UNKNOWN_TOPIC_OR_PARTITION,Topics[3].ErrorCode=UNKNOWN_TOPIC_OR_PARTITION,+2 more`},
		{&messages.MetadataRequest{}, 4, `MetadataRequest v4`},
		{long, 0, `FindCoordinatorRequest v0 Key="0123456789012345678901234567890123456789012345678901234567890123"...`},
	} {
		if got := pretty.Summary(tc.msg, tc.version); got != tc.want {
			t.Errorf("\n got %s\nwant %s", got, tc.want)
		}
	}
	if got, want := pretty.Summary(&messages.ProduceRequest{}, 99), "(kwire: schema messages.ProduceRequest: unsupported version: version 99"; !strings.HasPrefix(got, want) {
		t.Errorf("bad version: %s", got)
	}
}

// TestSummaryAndErrors: the one walk gives what Summary and kerr.Find
// give apart, past the summary's limit of named error codes too.
func TestSummaryAndErrors(t *testing.T) {
	md := messages.NewMetadataResponse()
	for i := range 7 {
		name := fmt.Sprintf("t%d", i)
		topic := messages.MetadataResponseTopic{Name: &name, ErrorCode: int16(i % 3)}
		for p := range 3 {
			topic.Partitions = append(topic.Partitions, messages.MetadataResponsePartition{PartitionIndex: int32(p), ErrorCode: int16(5 * (p % 2))})
		}
		md.Topics = append(md.Topics, topic)
	}
	for _, msg := range []any{md, messages.NewMetadataResponse()} {
		summary, found, err := pretty.SummaryAndErrors(msg, 12)
		if err != nil {
			t.Fatal(err)
		}
		want, werr := kerr.Find(msg, 12)
		if werr != nil {
			t.Fatal(werr)
		}
		if summary != pretty.Summary(msg, 12) {
			t.Errorf("summary %q, Summary %q", summary, pretty.Summary(msg, 12))
		}
		if fmt.Sprint(found) != fmt.Sprint(want) {
			t.Errorf("errors %v, kerr.Find %v", found, want)
		}
	}
	if _, found, _ := pretty.SummaryAndErrors(md, 12); len(found) != 11 {
		t.Errorf("%d error codes, want 11 (4 topics, 7 partitions)", len(found))
	}
}
