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
