// Package filters holds proxy filters that are useful as they are and
// show how to write one: DenyTopics (authorization by topic name),
// RequireKeys (a Produce validator) and Audit (who did what, from where).
// RefuseProduce is the building block for any Produce validator: it
// answers refused partitions with an error code, as a broker would, and
// passes the rest on.
package filters
