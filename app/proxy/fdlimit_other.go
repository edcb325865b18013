//go:build !unix

package proxy

func openFileLimit() int { return 0 }
