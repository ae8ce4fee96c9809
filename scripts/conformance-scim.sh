#!/usr/bin/env bash
# npm run conformance:scim -- Microsoft's and Okta's SCIM 2.0 conformance suites against the
# running local service (`npm start`), through the shared runner:
#   ../shared/conformance/scim/run-scim-conformance.sh   (override the folder: SCIM_CONFORMANCE_DIR)
# with PROJECT_DIR=$PWD, so the runner reads .local/demo.json (baseUrl + /scim/v2, keys.scim).
# Every other option of the runner (SUITES, STRICT, REPORT_DIR, ...) passes through.
# Exit: the runner's (0 all passed, 1 failures, 2 configuration); 2 when the service is not running.
set -uo pipefail

PROJECT_DIR="${PROJECT_DIR:-$PWD}"
SCIM_CONFORMANCE_DIR="${SCIM_CONFORMANCE_DIR:-$PWD/../shared/conformance/scim}"
RUNNER="$SCIM_CONFORMANCE_DIR/run-scim-conformance.sh"
DEMO="$PROJECT_DIR/.local/demo.json"

if [ ! -f "$RUNNER" ]; then
  echo "conformance:scim: $RUNNER not found; set SCIM_CONFORMANCE_DIR to the folder with run-scim-conformance.sh" >&2
  exit 2
fi
if [ ! -f "$DEMO" ]; then
  echo "conformance:scim: the service is not running ($DEMO is missing); start it with \`npm start\` and retry" >&2
  exit 2
fi

# demo.json outlives the server: ask the SCIM base itself. Any HTTP answer (even 401) means it runs.
if ! node -e '
  const base = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).baseUrl + "/scim/v2/ServiceProviderConfig";
  fetch(base, { signal: AbortSignal.timeout(5000) }).then(() => process.exit(0), () => process.exit(1));
' "$DEMO"; then
  echo "conformance:scim: the service is not running (no answer from the baseUrl in $DEMO); start it with \`npm start\` and retry" >&2
  exit 2
fi

PROJECT_DIR="$PROJECT_DIR" exec bash "$RUNNER"
