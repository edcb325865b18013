package kwire_test

import (
	"fmt"

	"github.com/kwirelabs/kwire/kwire"
)

// A struct with an UnknownTags field keeps the tagged fields it does not
// declare, and writes them back.
func ExampleUnknownTags() {
	type Old struct {
		_           struct{} `kafka:"api=1000,versions=0,flexible=0+"`
		Name        string   `kafka:"v=0+"`
		UnknownTags kwire.UnknownTags
	}
	type New struct {
		_           struct{} `kafka:"api=1000,versions=0,flexible=0+"`
		Name        string   `kafka:"v=0+"`
		Rack        string   `kafka:"v=0+,tag=0,tagged=0+"`
		UnknownTags kwire.UnknownTags
	}
	body, _ := kwire.Marshal(&New{Name: "n", Rack: "r1"}, 0)
	var old Old
	if err := kwire.Unmarshal(body, &old, 0); err != nil {
		panic(err)
	}
	fmt.Println(old.UnknownTags.Len(), old.UnknownTags)
	again, _ := kwire.Marshal(&old, 0)
	fmt.Println(string(again) == string(body))

	old.UnknownTags = kwire.NewUnknownTags(kwire.TaggedField{Tag: 5, Data: []byte{1}})
	for _, f := range old.UnknownTags.Fields() {
		fmt.Println(f.Tag, f.Data)
	}
	// Output:
	// 1 [tag 0: 037231]
	// true
	// 5 [1]
}
