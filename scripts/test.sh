#!/usr/bin/env bash
# `npm test`: every step in order, stopping at the first that fails. Each step's result is
# printed to stdout AND stderr with its exit code and duration, so that a log that keeps only
# one stream, or only its end, still says which step failed and how.
set -uo pipefail
cd "$(dirname "$0")/.."

report() { printf '%s\n' "$1"; printf '%s\n' "$1" >&2; }

# Everything the steps write to the OS temp folder (cloud assemblies of the synth tests, with
# every function's bundle; the local runtime's and the PDF tests' folders) goes to one folder
# of this run, removed when the run ends however it ends: runs left ~100 MB per synth behind,
# and enough of them filled a machine's disk. Jest's transform cache stays where it was.
host_tmp=${TMPDIR:-/tmp}
run_tmp=$(mktemp -d "$host_tmp/wfm-test.XXXXXX")
cleanup() {
  report "npm test: removed this run's temporary files ($(du -sh "$run_tmp" 2>/dev/null | cut -f1))"
  rm -rf "$run_tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export TMPDIR=$run_tmp

step() {
  local name=$1
  shift
  local started=$SECONDS
  "$@"
  local code=$?
  if [ "$code" -ne 0 ]; then
    report "npm test: step '$name' FAILED with exit code $code after $((SECONDS - started)) s"
    exit "$code"
  fi
  report "npm test: step '$name' passed in $((SECONDS - started)) s"
}

step typecheck npm run --silent typecheck
step openapi-lint npm run --silent lint:openapi
step jest jest --cacheDirectory "$host_tmp/wfm-jest-cache"
step reliability jest --config jest.reliability.config.cjs --cacheDirectory "$host_tmp/wfm-jest-cache"
report "npm test: all steps passed in ${SECONDS} s"
