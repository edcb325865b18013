package kwire

import (
	"fmt"
	"reflect"
	"unsafe"
)

// msgUse is what an entry point does with the message it is given, which
// decides what it accepts as one.
type msgUse uint8

const (
	readValue  msgUse = iota // encode, size, trace, walk: a struct, or a non-nil pointer to one
	writeValue               // decode, fill: a non-nil pointer to a struct
	typeOnly                 // validate, describe, schema: a struct, a pointer to one (nil too), or a reflect.Type of either
)

// need says what each use accepts, in the error for anything else.
var need = [...]string{
	readValue:  "need a struct or a non-nil pointer to one",
	writeValue: "need a non-nil pointer to a struct",
	typeOnly:   "need a struct, a pointer to one, or a reflect.Type of either",
}

// notAMessage is the one error for an entry point (op) given something
// of type typ where a message was wanted; detail says what was.
func notAMessage(op, typ, detail string) error {
	return &Error{Op: op, Type: typ, Offset: -1, Err: ErrNotAMessage, Detail: detail}
}

// messageOf is how every entry point reads its message argument: the
// struct type behind msg and, unless use is typeOnly, the struct's
// address (a struct passed by value is copied to the heap once; pass a
// pointer to avoid it).
func messageOf(msg any, op string, use msgUse) (reflect.Type, unsafe.Pointer, error) {
	if use == typeOnly {
		t, ok := msg.(reflect.Type)
		if !ok {
			t = reflect.TypeOf(msg)
		}
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			return nil, nil, notAMessage(op, fmt.Sprint(t), need[use])
		}
		return t, nil, nil
	}
	rv := reflect.ValueOf(msg)
	switch {
	case rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct:
		return rv.Type().Elem(), rv.UnsafePointer(), nil
	case rv.Kind() == reflect.Struct && use == readValue:
		cp := reflect.New(rv.Type())
		cp.Elem().Set(rv)
		return rv.Type(), cp.UnsafePointer(), nil
	}
	return nil, nil, notAMessage(op, fmt.Sprintf("%T", msg), need[use])
}

// messagePlan finds the plan of msg at version and the struct's address,
// for an entry point (op) that uses msg as use says. The common call, a
// pointer whose plan sits in hotRoots, goes no further than
// cachedRootPlan.
func messagePlan(msg any, version int16, op string, use msgUse) (*plan, unsafe.Pointer, error) {
	if pl, p := cachedRootPlan(msg, version); pl != nil {
		return pl, p, nil
	}
	return messagePlanSlow(msg, version, op, use)
}

// messagePlanSlow is messagePlan behind a miss in hotRoots.
func messagePlanSlow(msg any, version int16, op string, use msgUse) (*plan, unsafe.Pointer, error) {
	if pl, p := lookupRootPlan(msg, version); pl != nil {
		return pl, p, nil
	}
	t, p, err := messageOf(msg, op, use)
	if err != nil {
		return nil, nil, err
	}
	pl, err := rootPlan(t, version, op)
	if err == nil && reflect.TypeOf(msg).Kind() == reflect.Pointer {
		rememberRootPlan(reflect.TypeOf(msg), version, pl)
	}
	return pl, p, err
}
