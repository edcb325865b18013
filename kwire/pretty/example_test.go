package pretty_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire/pretty"
	"github.com/kwirelabs/kwire/kwire/record"
	"github.com/kwirelabs/kwire/messages"
)

func Example() {
	records, _ := record.Build([]record.Record{{Key: []byte("k"), Value: []byte("v")}})
	req := &messages.ProduceRequest{Acks: -1, TimeoutMs: 5000, TopicData: []messages.ProduceRequestTopicProduceData{{
		Name:          "orders",
		PartitionData: []messages.ProduceRequestPartitionProduceData{{Index: 0, Records: records}},
	}}}
	body, _ := pretty.JSON(req, 3)
	fmt.Println(string(body))
	fmt.Println(pretty.Summary(req, 3))
	// Output:
	// {"TransactionalID":null,"Acks":-1,"TimeoutMs":5000,"TopicData":[{"Name":"orders","PartitionData":[{"Index":0,"Records":{"Batches":1,"Records":1,"Codec":"none","Bytes":70}}]}]}
	// ProduceRequest v3 Acks=-1 TimeoutMs=5000 TopicData=1 TopicData.PartitionData=1 records=1 batches=1 codec=none bytes=70
}

// A test fixture written as JSON: fields left out take the schema
// defaults, records are given record by record and built as a batch.
func ExampleParseJSON() {
	fixture := []byte(`{
		"Acks": -1, "TimeoutMs": 1000,
		"TopicData": [{"Name": "orders", "PartitionData": [{"Index": 0, "Records": {"Batches": [
			{"Codec": "zstd", "Records": [{"Timestamp": 1700000000000, "Key": "k", "Value": "v"}]}
		]}}]}]
	}`)
	var req messages.ProduceRequest
	if err := pretty.ParseJSON(fixture, &req, 9); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pretty.Summary(&req, 9))

	err := pretty.ParseJSON([]byte(`{"Acks":-1,"TopicData":[{"Name":"orders","Partitions":[]}]}`), &req, 9)
	fmt.Println(err)
	// Output:
	// ProduceRequest v9 Acks=-1 TimeoutMs=1000 TopicData=1 TopicData.PartitionData=1 records=1 batches=1 codec=zstd bytes=83
	// kwire: parse json messages.ProduceRequest.TopicData[0].Partitions at offset 41: unknown field: "Partitions" (known: ProduceRequestTopicProduceData v9 has Name, PartitionData, UnknownTags)
}
