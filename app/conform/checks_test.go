package conform

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// answerAll are, for the APIs of partitions-answered the fake broker
// does not offer, a full answer to a request, written out per API (not
// through topicPartitions), each dropping every answer for partition
// drop when drop >= 0.
var answerAll = map[int16]func(req any, drop int32) any{
	8: func(req any, drop int32) any {
		resp := messages.NewOffsetCommitResponse()
		for _, t := range req.(*messages.OffsetCommitRequest).Topics {
			rt := messages.OffsetCommitResponseTopic{Name: t.Name, TopicID: t.TopicID}
			for _, p := range t.Partitions {
				if p.PartitionIndex != drop {
					rt.Partitions = append(rt.Partitions, messages.OffsetCommitResponsePartition{PartitionIndex: p.PartitionIndex})
				}
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	},
	21: func(req any, drop int32) any {
		resp := messages.NewDeleteRecordsResponse()
		for _, t := range req.(*messages.DeleteRecordsRequest).Topics {
			rt := messages.DeleteRecordsResponseTopicResult{Name: t.Name}
			for _, p := range t.Partitions {
				if p.PartitionIndex != drop {
					rt.Partitions = append(rt.Partitions, messages.DeleteRecordsResponsePartitionResult{PartitionIndex: p.PartitionIndex})
				}
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	},
	23: func(req any, drop int32) any {
		resp := messages.NewOffsetForLeaderEpochResponse()
		for _, t := range req.(*messages.OffsetForLeaderEpochRequest).Topics {
			rt := messages.OffsetForLeaderEpochResponseOffsetForLeaderTopicResult{Topic: t.Topic}
			for _, p := range t.Partitions {
				if p.Partition != drop {
					rt.Partitions = append(rt.Partitions, messages.OffsetForLeaderEpochResponseEpochEndOffset{Partition: p.Partition})
				}
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	},
	28: func(req any, drop int32) any {
		resp := messages.NewTxnOffsetCommitResponse()
		for _, t := range req.(*messages.TxnOffsetCommitRequest).Topics {
			rt := messages.TxnOffsetCommitResponseTopic{Name: t.Name, TopicID: t.TopicID}
			for _, p := range t.Partitions {
				if p.PartitionIndex != drop {
					rt.Partitions = append(rt.Partitions, messages.TxnOffsetCommitResponsePartition{PartitionIndex: p.PartitionIndex})
				}
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	},
}

// TestPartitionsAnsweredEveryAPI: partitions-answered reads the topics
// and partitions of every API it lists at every version, so it is not
// silently vacuous where the fake broker cannot show it firing: random
// requests (made safe by prepare) pass with every partition answered
// and fail with one partition's answers dropped.
func TestPartitionsAnsweredEveryAPI(t *testing.T) {
	var check Check
	for _, c := range Checks {
		if c.Name == "partitions-answered" {
			check = c
		}
	}
	for _, key := range check.Keys {
		if _, ok := offered[key]; ok {
			continue // TestEveryCheckFires and TestShrinksToTheSmallestRequest show it on the fake
		}
		answer, ok := answerAll[key]
		if !ok {
			t.Fatalf("partitions-answered lists API %d, which neither the fake nor answerAll answers", key)
		}
		api, _ := messages.Lookup(key)
		e := newEnv("kwire-conform-")
		e.topicID = kwire.UUID{9}
		r := rand.New(rand.NewSource(1))
		for v := api.MinVersion; v <= api.MaxVersion; v++ {
			asked := 0
			for range 20 {
				req := api.NewRequest()
				if err := kwire.FillRandom(r, req, v, kwire.RandomOptions{MaxLen: 3}); err != nil {
					t.Fatal(err)
				}
				e.prepare(api, req, v)
				parts := partitionsOf(t, req)
				if len(parts) == 0 {
					continue
				}
				asked++
				x := &Exchange{API: api, Version: v, Request: req, Response: answer(req, -1)}
				if err := check.Func(x); err != nil {
					t.Errorf("%s v%d, every partition answered: %v", api.Name, v, err)
				}
				x.Response = answer(req, parts[len(parts)-1])
				if err := check.Func(x); err == nil {
					t.Errorf("%s v%d: partition %d unanswered, but the check passes", api.Name, v, parts[len(parts)-1])
				}
			}
			if asked == 0 {
				t.Errorf("%s v%d: no random request asked a partition", api.Name, v)
			}
		}
	}
}

// partitionsOf are the partition numbers a request asks, read from its
// concrete type.
func partitionsOf(t *testing.T, req any) []int32 {
	var out []int32
	switch q := req.(type) {
	case *messages.OffsetCommitRequest:
		for _, tp := range q.Topics {
			for _, p := range tp.Partitions {
				out = append(out, p.PartitionIndex)
			}
		}
	case *messages.DeleteRecordsRequest:
		for _, tp := range q.Topics {
			for _, p := range tp.Partitions {
				out = append(out, p.PartitionIndex)
			}
		}
	case *messages.OffsetForLeaderEpochRequest:
		for _, tp := range q.Topics {
			for _, p := range tp.Partitions {
				out = append(out, p.Partition)
			}
		}
	case *messages.TxnOffsetCommitRequest:
		for _, tp := range q.Topics {
			for _, p := range tp.Partitions {
				out = append(out, p.PartitionIndex)
			}
		}
	default:
		t.Fatalf("partitionsOf: %T", req)
	}
	slices.Sort(out)
	return out
}
