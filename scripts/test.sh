#!/usr/bin/env bash
# The project's test command: unit tests (pure layers) and integration tests
# (against a real kube-apiserver from tools/kube-testenv) in one node:test run.
# Usage: scripts/test.sh [unit|integration|all|kcp] [extra test files...]
# `kcp` runs test/kcp (a real kcp from tools/kcp-testenv, built first when its cache misses: about
# 15 minutes cold, a minute with a warm Go build cache); `all` does not include it.
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
shift || true
files=()
if [[ "$what" == "kcp" ]]; then
  KCP_BIN="$(bash tools/kcp-testenv/build.sh)"
  export KCP_BIN
  [[ $# -gt 0 ]] || set -- $(find test/kcp -name '*.test.ts' | sort)
fi
if [[ $# -gt 0 ]]; then
  files=("$@")
else
  if [[ "$what" == "unit" || "$what" == "all" ]]; then
    while IFS= read -r f; do files+=("$f"); done < <(find test/unit -name '*.test.ts' | sort)
  fi
  if [[ "$what" == "integration" || "$what" == "all" ]]; then
    while IFS= read -r f; do files+=("$f"); done < <(find test/integration -name '*.test.ts' | sort)
  fi
fi
if [[ ${#files[@]} -eq 0 ]]; then
  echo "scripts/test.sh: no test files found for '$what'" >&2
  exit 1
fi
# runTests.ts starts one control plane for the whole run when any integration
# test is selected, then runs node --test over the files.
exec node --import tsx test/support/runTests.ts "${files[@]}"
