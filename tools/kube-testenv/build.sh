#!/usr/bin/env bash
# Builds kube-testenv into .cache/bin, keyed by a content hash of go.mod, go.sum
# and the Go sources, so an unchanged tree is a cache hit. The binary is never
# committed. Prints the path of the binary on stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bindir="$root/.cache/bin"
mkdir -p "$bindir"

key="$(cd "$here" && cat go.mod go.sum $(ls *.go | sort) | sha256sum | cut -c1-16)"
target="$bindir/kube-testenv-$key"
if [[ ! -x "$target" ]]; then
  avail_kb="$(df -Pk "$bindir" | awk 'NR==2{print $4}')"
  if (( avail_kb < 4 * 1024 * 1024 )); then
    echo "kube-testenv build: less than 4 GiB free under $bindir" >&2
  fi
  echo "kube-testenv build: compiling (key $key); a cold build takes several minutes" >&2
  start=$(date +%s)
  (cd "$here" && CGO_ENABLED=0 go build -p "${KUBE_TESTENV_BUILD_JOBS:-2}" -trimpath \
      -ldflags "-s -w $("$here/ldflags.sh")" -o "$target.tmp" .)
  mv "$target.tmp" "$target"
  echo "kube-testenv build: done in $(( $(date +%s) - start ))s, $(du -m "$target" | cut -f1) MB" >&2
  # keep only the newest few builds
  ls -1t "$bindir"/kube-testenv-* 2>/dev/null | grep -v '\.tmp$' | tail -n +4 | xargs -r rm -f
fi
ln -sfn "$(basename "$target")" "$bindir/kube-testenv"
echo "$bindir/kube-testenv"
