package kwire

// unknownTagOutOfOrder is the error of a kept tagged field whose tag is
// not above the one written before it.
func unknownTagOutOfOrder(tag uint32) error {
	return within(newFieldError(ErrBadTag, -1, "unknown tag %d out of order or repeated", tag), "UnknownTags")
}
