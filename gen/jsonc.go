package gen

// stripComments removes // line comments and /* */ block comments from
// JSON text, leaving string literals untouched (a "//" inside a string,
// as in a URL, stays). Newlines are kept so that json error offsets still
// point at the right line.
func stripComments(src []byte) []byte {
	out := make([]byte, 0, len(src))
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			out = append(out, c)
			switch c {
			case '\\':
				if i+1 < len(src) {
					i++
					out = append(out, src[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			out = append(out, c)
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i < len(src) && !(src[i] == '*' && i+1 < len(src) && src[i+1] == '/') {
				if src[i] == '\n' {
					out = append(out, '\n')
				}
				i++
			}
			i++ // the closing '/'; past the end if unterminated
		default:
			out = append(out, c)
		}
	}
	return out
}
