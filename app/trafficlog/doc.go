// Package trafficlog is how kwire's tools show Kafka traffic to people:
// one Event per request, response or connection change, written as one
// text line or one JSON object a line. `kwire proxy` and `kwire sniff`
// both write through it, so their logs read the same.
//
// Secrets never reach an encoding: AppendText, AppendJSON and Describe
// redact every message first (see Redact): SASL authentication bytes
// (PLAIN passwords, SCRAM proofs, OAUTHBEARER tokens), delegation-token
// HMACs, SCRAM credentials being set, Envelope payloads, and the values
// of configs whose names mark them as passwords or keys. What was
// redacted is named, and SASLPrincipal recovers the user name a login
// carries so the log can say who authenticated.
//
// Writer queues formatted lines for a goroutine of its own and never
// blocks the caller: when the queue is full it drops the line and counts
// it, and it remembers write errors, so a stalled or failing log cannot
// stall the traffic it describes.
package trafficlog
