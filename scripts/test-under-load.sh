#!/usr/bin/env bash
# `npm test` twice in a row while a second `npm test` runs beside it, on a clone of this commit in a
# temporary directory (node_modules hard-linked from here, so nothing is installed): the suites must not
# depend on a quiet machine (issue 22.3). Exits non-zero if any of the three runs fails; logs stay in
# the temporary directory, whose path is printed.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d -t spendguard-load-XXXXXX)"
echo "logs and the second clone: $work"
git clone -q "$here" "$work/beside"
for dir in node_modules sdk/node_modules dashboard/node_modules demo/node_modules; do
  if [ -d "$here/$dir" ]; then cp -al "$here/$dir" "$work/beside/$dir"; fi
done
(cd "$work/beside" && npm test >"$work/beside.log" 2>&1) &
beside=$!
status=0
for run in 1 2; do
  if (cd "$here" && npm test >"$work/run-$run.log" 2>&1); then echo "run $run: passed"; else echo "run $run: FAILED (see $work/run-$run.log)"; status=1; fi
done
if wait "$beside"; then echo "beside: passed"; else echo "beside: FAILED (see $work/beside.log)"; status=1; fi
exit "$status"
