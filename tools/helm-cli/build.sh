#!/usr/bin/env bash
# Builds the Helm CLI (helm.sh/helm/v4/cmd/helm, the version go.mod pins) into .cache/bin, keyed by a content
# hash of go.mod, go.sum and this script, so an unchanged tree is a cache hit (like
# tools/kube-testenv/build.sh). The binary is never committed. Prints the path of the binary on stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bindir="$root/.cache/bin"
mkdir -p "$bindir"

key="$(cd "$here" && cat go.mod go.sum build.sh tools.go | sha256sum | cut -c1-16)"
target="$bindir/helm-$key"
if [[ ! -x "$target" ]]; then
  version="$(cd "$here" && go list -m -f '{{.Version}}' helm.sh/helm/v4)"
  echo "helm-cli build: compiling helm $version (key $key); cold, about as long as tools/helm-render" >&2
  start=$(date +%s)
  # -X sets what `helm version` prints, as Helm's own Makefile does for a tagged release.
  (cd "$here" && CGO_ENABLED=0 go build -p "${HELM_CLI_BUILD_JOBS:-2}" -trimpath \
      -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$version -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
      -o "$target.tmp" helm.sh/helm/v4/cmd/helm)
  mv "$target.tmp" "$target"
  echo "helm-cli build: done in $(( $(date +%s) - start ))s, $(du -m "$target" | cut -f1) MB" >&2
  # keep only the newest few builds
  ls -1t "$bindir"/helm-* 2>/dev/null | grep -v '\.tmp$' | grep -v 'helm-render' | tail -n +4 | xargs -r rm -f
fi
ln -sfn "$(basename "$target")" "$bindir/helm"
echo "$bindir/helm"
