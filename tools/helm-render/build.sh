#!/usr/bin/env bash
# Builds helm-render into .cache/bin, keyed by a content hash of go.mod, go.sum and the Go sources, so an
# unchanged tree is a cache hit (like tools/kube-testenv/build.sh). The binary is never committed. Prints
# the path of the binary on stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bindir="$root/.cache/bin"
mkdir -p "$bindir"

key="$(cd "$here" && cat go.mod go.sum $(ls *.go | sort) | sha256sum | cut -c1-16)"
target="$bindir/helm-render-$key"
if [[ ! -x "$target" ]]; then
  echo "helm-render build: compiling (key $key); a cold build takes a few minutes" >&2
  start=$(date +%s)
  (cd "$here" && CGO_ENABLED=0 go build -p "${HELM_RENDER_BUILD_JOBS:-2}" -trimpath -ldflags "-s -w" \
      -o "$target.tmp" .)
  mv "$target.tmp" "$target"
  echo "helm-render build: done in $(( $(date +%s) - start ))s, $(du -m "$target" | cut -f1) MB" >&2
  # keep only the newest few builds
  ls -1t "$bindir"/helm-render-* 2>/dev/null | grep -v '\.tmp$' | tail -n +4 | xargs -r rm -f
fi
ln -sfn "$(basename "$target")" "$bindir/helm-render"
echo "$bindir/helm-render"
