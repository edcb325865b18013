// Package customapi is a user's own Kafka-style API, made up for tests: key
// 1000, "Ledger", with nested arrays, nullable fields, tagged fields, a
// varint, a UUID and an ignorable field. Importing it registers the API
// with messages.Default, as a plugin would.
package customapi

import (
	"github.com/kwirelabs/kwire/kwire"
	"github.com/kwirelabs/kwire/messages"
)

// LedgerRequest asks a made-up service to book account movements.
type LedgerRequest struct {
	_           struct{}   `kafka:"api=1000,versions=0-3,flexible=2+"`
	LedgerID    kwire.UUID `kafka:"v=0+"`
	Owner       *string    `kafka:"v=0+,nullable=1+"`
	Accounts    []Account  `kafka:"v=0+,nullable=2+"`
	Legacy      int32      `kafka:"v=0-1,ignorable"`
	Note        string     `kafka:"v=2+,tag=0,tagged=2+,default='n/a, none'"`
	TraceID     *string    `kafka:"v=3+,tag=1,tagged=3+,nullable=3+,default=null"`
	UnknownTags kwire.UnknownTags
}

// Account is one account's movements.
type Account struct {
	Name        string   `kafka:"v=0+"`
	Delta       int64    `kafka:"v=0+,varint"`
	Labels      []string `kafka:"v=0+,nullable=2+"`
	Entries     []Entry  `kafka:"v=1+"`
	Sequence    int32    `kafka:"v=3+,tag=0,tagged=3+,default=-1"`
	UnknownTags kwire.UnknownTags
}

// Entry is one movement.
type Entry struct {
	ID          kwire.UUID `kafka:"v=1+"`
	Amount      int64      `kafka:"v=1+"`
	Memo        *string    `kafka:"v=1+,nullable=1+"`
	Parts       [][]int32  `kafka:"v=1+"`
	UnknownTags kwire.UnknownTags
}

// LedgerResponse answers a LedgerRequest.
type LedgerResponse struct {
	_              struct{}  `kafka:"api=1000,versions=0-3,flexible=2+"`
	ThrottleTimeMs int32     `kafka:"v=0+"`
	ErrorCode      int16     `kafka:"v=0+"`
	ErrorMessage   *string   `kafka:"v=1+,nullable=1+,default=null"`
	Balances       []Balance `kafka:"v=0+"`
	UnknownTags    kwire.UnknownTags
}

// Balance is an account's balance after the request.
type Balance struct {
	Name        string `kafka:"v=0+"`
	Amount      int64  `kafka:"v=0+"`
	Pending     uint32 `kafka:"v=2+,uvarint"`
	UnknownTags kwire.UnknownTags
}

// API is the Ledger API as the registry knows it.
var API = func() messages.API {
	api, err := messages.NewAPI("Ledger", func() any { return new(LedgerRequest) }, func() any { return new(LedgerResponse) })
	if err != nil {
		panic(err)
	}
	return api
}()

func init() {
	if err := messages.Register(API); err != nil {
		panic(err)
	}
}
