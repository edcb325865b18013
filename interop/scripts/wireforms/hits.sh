#!/bin/sh
# hits.sh ROOT PATTERN: non-test Go files under ROOT (node_modules, testdata
# left out), lines matching the extended regex PATTERN.
cd "$1" && grep -rnE --include=*.go "$2" . | grep -v '_test\.go:' | grep -v '/node_modules/\|/testdata/' | sed 's#^\./##'
