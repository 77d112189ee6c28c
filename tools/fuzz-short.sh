#!/usr/bin/env bash
# Runs every fuzz target in the module for FUZZTIME each (make fuzz-short),
# or those whose "path:FuzzName" matches FILTER.
#
# Go's fuzzer sometimes ends a clean run with "context deadline exceeded"
# when its time is up while a worker is mid-input (golang/go#48127 and
# kin); that is the deadline, not a finding, so the run goes on to the next
# target. A real finding ("Failing input written to ...") fails the run at
# the end, after every target has had its time.
set -uo pipefail
fuzztime=${1:-30s}
filter=${2:-.} # a regexp over "path:FuzzName"
go=${GO:-go}
status=0
targets=$(grep -rl --include='*_test.go' '^func Fuzz' . | sort |
	xargs grep -H -o '^func Fuzz[A-Za-z0-9_]*' | sed 's/:func /:/' | grep -E "$filter")
for spec in $targets; do
	file=${spec%%:*}
	fn=${spec##*:}
	pkg=$(dirname "$file")
	echo "== $pkg $fn"
	log=$(mktemp)
	if ! $go test -run='^$' -fuzz="^$fn\$" -fuzztime="$fuzztime" -fuzzminimizetime=2s -timeout=0 "$pkg" 2>&1 | tee "$log"; then
		if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
			echo "   ($fn: the fuzzer stopped on its deadline; no failing input)"
		else
			echo "   ($fn: FAILED)"
			status=1
		fi
	fi
	rm -f "$log"
done
exit $status
