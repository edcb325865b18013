package kwire

import (
	"fmt"
	"reflect"
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

// notAMessage is the one error for an entry point (opName, as Error.Op
// names it) given something of type typ where a message was wanted;
// detail says what it takes.
func notAMessage(opName, typ, detail string) error {
	return &Error{Op: opName, Type: typ, Offset: -1, Err: ErrNotAMessage, Detail: detail}
}

// messageOf is how every entry point reads its message argument: the
// struct type behind msg and, unless use is typeOnly, the struct's
// address (a struct passed by value is copied to the heap once; pass a
// pointer to avoid it).
func messageOf(msg any, opName string, use msgUse) (reflect.Type, pointer, error) {
	if use == typeOnly {
		t, ok := msg.(reflect.Type)
		if !ok {
			t = reflect.TypeOf(msg)
		}
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			return nil, pointer{}, notAMessage(opName, fmt.Sprint(t), need[use])
		}
		return t, pointer{}, nil
	}
	rv := reflect.ValueOf(msg)
	switch {
	case rv.Kind() == reflect.Pointer && !rv.IsNil() && rv.Elem().Kind() == reflect.Struct:
		return rv.Type().Elem(), valuePointer(rv), nil
	case rv.Kind() == reflect.Struct && use == readValue:
		cp := reflect.New(rv.Type())
		cp.Elem().Set(rv)
		return rv.Type(), valuePointer(cp), nil
	}
	return nil, pointer{}, notAMessage(opName, fmt.Sprintf("%T", msg), need[use])
}

// messagePlan finds the plan of msg at version and the struct's address,
// for an entry point (opName) that uses msg as use says. The common call,
// a pointer whose plan the hot front holds, goes no further than
// cachedRootPlan, which the entry points that run most call first
// themselves, inlined, before messagePlanSlow.
func messagePlan(msg any, version int16, opName string, use msgUse) (*plan, pointer, error) {
	if pl, p := cachedRootPlan(msg, version); pl != nil {
		return pl, p, nil
	}
	return messagePlanSlow(msg, version, opName, use)
}

// messagePlanSlow is messagePlan past the hot front: msg read as use
// says, its plan found (or built) in the cache, and the type put in the
// hot front when msg is a pointer.
func messagePlanSlow(msg any, version int16, opName string, use msgUse) (*plan, pointer, error) {
	t, p, err := messageOf(msg, opName, use)
	if err != nil {
		return nil, pointer{}, err
	}
	roots, pl, err := rootPlan(t, version, opName)
	if roots != nil && reflect.TypeOf(msg).Kind() == reflect.Pointer {
		hotSlot(roots.ptrType).Store(roots)
	}
	return pl, p, err
}
