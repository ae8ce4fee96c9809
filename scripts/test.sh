#!/usr/bin/env bash
# `npm test`: every step in order, stopping at the first that fails. Each step's result is
# printed to stdout AND stderr with its exit code and duration, so that a log that keeps only
# one stream, or only its end, still says which step failed and how.
set -uo pipefail
cd "$(dirname "$0")/.."

report() { printf '%s\n' "$1"; printf '%s\n' "$1" >&2; }

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
step jest jest
step reliability jest --config jest.reliability.config.cjs
report "npm test: all steps passed in ${SECONDS} s"
