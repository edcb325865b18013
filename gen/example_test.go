package gen_test

import (
	"fmt"
	"strings"

	"github.com/kwirelabs/kwire/gen"
)

// Generating a package of one's own from Kafka-style schemas (the same as
// `kwire gen -schemas ../internal/genapi/schemas -out . -package genapi
// -registry=false -register`; add -check in CI to fail when the files
// differ). A request without a response becomes a struct but no API, and
// a "data" schema a plain versioned struct.
func ExampleGenerate() {
	res, err := gen.Generate(gen.Config{
		SchemaDirs:     []string{"../internal/genapi/schemas"},
		Package:        "genapi",
		MessagesImport: gen.DefaultMessagesImport, // write apis.go with APIs and Register
	})
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"apis.go", "audit.go", "audit_log_entry.go", "ping_request.go"} {
		fmt.Println(name, len(res.Files[name]) > 0)
	}
	fmt.Println(res.Warnings)
	src := string(res.Files["audit_log_entry.go"])
	start := strings.Index(src, "type AuditLogEntry struct")
	fmt.Print(src[start : start+strings.Index(src[start:], "}\n")+2])
	// Output:
	// apis.go true
	// audit.go true
	// audit_log_entry.go true
	// ping_request.go true
	// [API key 1002 has a request and no response: left out of the API table]
	// type AuditLogEntry struct {
	// 	_           struct{} `kafka:"versions=0-1,flexible=1+"`
	// 	At          int64    `kafka:"v=0+"`
	// 	Labels      []string `kafka:"v=0+"`
	// 	Note        string   `kafka:"v=1+,tag=0,tagged=1+,default='a,b'"`
	// 	UnknownTags kwire.UnknownTags
	// }
}
