#!/usr/bin/env bash
# `npm run bench [-- name...]`: runs the benchmarks in bench/ one after the other (not part of `npm test`).
# With names (e.g. `cel engine`) only bench/<name>.bench.ts; extra flags such as --write go to each.
set -euo pipefail
cd "$(dirname "$0")/.."
names=()
flags=()
for a in "$@"; do
  if [[ "$a" == --* ]]; then flags+=("$a"); else names+=("$a"); fi
done
if [[ ${#names[@]} -eq 0 ]]; then
  for f in bench/*.bench.ts; do names+=("$(basename "$f" .bench.ts)"); done
fi
for n in "${names[@]}"; do
  f="bench/$n.bench.ts"
  [[ -f "$f" ]] || { echo "scripts/bench.sh: no benchmark $f" >&2; exit 1; }
  echo "== $f"
  node --expose-gc --import tsx "$f" "${flags[@]+"${flags[@]}"}"
done
