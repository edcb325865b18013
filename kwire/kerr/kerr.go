// Package kerr is Kafka's table of protocol error codes: a name, whether
// Kafka's clients retry it, and a short description for each, and a scan
// that finds the non-zero error codes anywhere in a message.
//
// A Code is an error, so a response's code can travel as one and be
// matched with errors.Is:
//
//	if err := kerr.Err(resp.ErrorCode); err != nil {
//		if errors.Is(err, kerr.NotCoordinator) { ... find the coordinator again ... }
//		return fmt.Errorf("join group: %w", err)
//	}
//
// The table is generated from error-codes.tsv (Kafka's facts) and
// descriptions.tsv (ours) by `go generate ./kwire/kerr`.
package kerr

//go:generate go run gen_codes.go

import (
	"errors"
	"strconv"
)

// Code is a Kafka protocol error code. Codes compare by value, so
// errors.Is(err, kerr.NotLeaderOrFollower) matches a wrapped Code 6.
// Codes outside the table (from a newer broker) still work: their name is
// UNKNOWN_ERROR_CODE_n and they are not retriable.
type Code int16

type entry struct {
	name        string
	retriable   bool
	description string
}

func (c Code) entry() (entry, bool) {
	if c < minCode || c > maxCode {
		return entry{}, false
	}
	return table[int(c)-minCode], true
}

// Name is Kafka's name of the code, such as NOT_LEADER_OR_FOLLOWER.
func (c Code) Name() string {
	if e, ok := c.entry(); ok {
		return e.name
	}
	return "UNKNOWN_ERROR_CODE_" + strconv.Itoa(int(c))
}

// Retriable reports whether Kafka's clients treat the error as transient
// (its Java exception is a RetriableException): the same request may
// succeed later, often after a metadata refresh.
func (c Code) Retriable() bool {
	e, _ := c.entry()
	return e.retriable
}

// Description is a one-line explanation of the code.
func (c Code) Description() string {
	if e, ok := c.entry(); ok {
		return e.description
	}
	return "an error code this table does not know"
}

// Known reports whether the code is in the table.
func (c Code) Known() bool {
	_, ok := c.entry()
	return ok
}

// Error is the name, the number and the description:
// "NOT_LEADER_OR_FOLLOWER (6): this broker is neither ...".
func (c Code) Error() string {
	return c.Name() + " (" + strconv.Itoa(int(c)) + "): " + c.Description()
}

// String is the name.
func (c Code) String() string { return c.Name() }

// Err is the error for a code read off the wire: nil for 0 (None), the
// Code otherwise.
func Err(code int16) error {
	if code == 0 {
		return nil
	}
	return Code(code)
}

// IsRetriable reports whether err is or wraps a retriable Code.
func IsRetriable(err error) bool {
	var c Code
	return errors.As(err, &c) && c.Retriable()
}

// Codes returns every code in the table, in ascending order.
func Codes() []Code {
	out := make([]Code, 0, len(table))
	for c := minCode; c <= maxCode; c++ {
		out = append(out, Code(c))
	}
	return out
}

// ByName returns the code with Kafka's name, such as "UNKNOWN_TOPIC_ID".
func ByName(name string) (Code, bool) {
	for i := range table {
		if table[i].name == name {
			return Code(i + minCode), true
		}
	}
	return 0, false
}
