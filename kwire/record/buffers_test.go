package record

import "testing"

// classFor finds the smallest class that holds n, classBelow the largest a
// buffer of capacity n can serve, and a class wastes less than an eighth.
func TestBufferClasses(t *testing.T) {
	for c := 1; c < classCount; c++ {
		if classSize(c) <= classSize(c-1) {
			t.Fatalf("class %d size %d after %d", c, classSize(c), classSize(c-1))
		}
	}
	check := func(n int) {
		c := classFor(n)
		if classSize(c) < n || (c > 0 && classSize(c-1) >= n) {
			t.Fatalf("classFor(%d) = %d of size %d", n, c, classSize(c))
		}
		if n > 1<<minClassBits && classSize(c)-n >= classSize(c)/stepsPerDoubling {
			t.Fatalf("classFor(%d): size %d wastes an eighth", n, classSize(c))
		}
		b := classBelow(n)
		if n < 1<<minClassBits {
			if b != -1 {
				t.Fatalf("classBelow(%d) = %d", n, b)
			}
			return
		}
		if classSize(b) > n || (b+1 < classCount && classSize(b+1) <= n) {
			t.Fatalf("classBelow(%d) = %d of size %d", n, b, classSize(b))
		}
	}
	for n := 1; n < 1<<16; n++ {
		check(n)
	}
	for n := 1 << 16; n < 1<<30; n += n/8 + 1 {
		check(n - 1)
		check(n)
		check(n + 1)
	}
}
