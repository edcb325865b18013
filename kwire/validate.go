package kwire

// Validate checks the kafka tags of msg's type (a struct, a pointer to
// one, or a reflect.Type of either) at every version the type declares,
// and of every struct type inside it. It returns nil or an *Error wrapping
// ErrInvalidSpec that names the type, the field, the key and the version.
// Marshal, Unmarshal and the rest run the same check the first time they
// see a type; call Validate in a test to learn of a mistake before then.
// The type is checked as a top-level message: a struct without a `_` tag
// is never flexible on its own, so one with tagged fields (meant to sit
// inside a flexible message) fails; validate the message holding it.
func Validate(msg any) error {
	t, _, err := messageOf(msg, "plan", typeOnly)
	if err != nil {
		return err
	}
	return validType(t)
}
