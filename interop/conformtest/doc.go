// Package conformtest runs `kwire conform` against franz-go's kfake (in a
// process of its own, kfakebroker) and compares what it finds with
// testdata/kfake-departures.txt, the departures of kfake's known, each
// with its reason: a kfake change, or a change in kwire's checks, in
// either direction shows as a test failure.
package conformtest
