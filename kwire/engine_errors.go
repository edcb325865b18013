package kwire

import (
	"fmt"
	"strconv"
)

// fieldError is the error the codec loops return while unwinding: the path
// is built on the way out, so the success path never formats anything.
type fieldError struct {
	path   []string // innermost first
	offset int
	detail string
	err    error
}

func (e *fieldError) Error() string { return e.err.Error() }

func newFieldError(sentinel error, offset int, format string, args ...any) *fieldError {
	d := format
	if len(args) > 0 {
		d = fmt.Sprintf(format, args...)
	}
	return &fieldError{offset: offset, err: sentinel, detail: d}
}

// within adds a path element (a field name) to err.
func within(err error, name string) error {
	if fe, ok := err.(*fieldError); ok {
		fe.path = append(fe.path, name)
	}
	return err
}

// withinIndex adds an array index to err's path.
func withinIndex(err error, i int) error {
	if fe, ok := err.(*fieldError); ok {
		fe.path = append(fe.path, "["+strconv.Itoa(i)+"]")
	}
	return err
}

// publicError turns an internal error into the *Error callers see.
func publicError(op, typ string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*Error); ok {
		return err
	}
	fe, ok := err.(*fieldError)
	if !ok {
		return &Error{Op: op, Type: typ, Offset: -1, Err: err}
	}
	path := ""
	for i := len(fe.path) - 1; i >= 0; i-- {
		seg := fe.path[i]
		if seg[0] != '[' && path != "" {
			path += "."
		}
		path += seg
	}
	return &Error{Op: op, Type: typ, Path: path, Offset: fe.offset, Detail: fe.detail, Err: fe.err}
}

func shiftOffset(err error, by int) error {
	if fe, ok := err.(*fieldError); ok && fe.offset >= 0 {
		fe.offset += by
	}
	return err
}
