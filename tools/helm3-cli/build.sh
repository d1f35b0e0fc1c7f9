#!/usr/bin/env bash
# Builds the Helm 3 CLI (helm.sh/helm/v3/cmd/helm, the version go.mod pins) into .cache/bin, keyed by a content
# hash of go.mod, go.sum and this script, so an unchanged tree is a cache hit (like
# tools/kube-testenv/build.sh). The binary is never committed. Prints the path of the binary on stdout.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bindir="$root/.cache/bin"
mkdir -p "$bindir"

key="$(cd "$here" && cat go.mod go.sum build.sh tools.go | sha256sum | cut -c1-16)"
target="$bindir/helm3-$key"
if [[ ! -x "$target" ]]; then
  version="$(cd "$here" && go list -m -f '{{.Version}}' helm.sh/helm/v3)"
  echo "helm3-cli build: compiling helm $version (key $key); cold, its Kubernetes packages shared with kube-testenv" >&2
  # Helm 3 takes the Kubernetes version of its default Capabilities (`helm template`, `helm lint`) from
  # link-time variables, set by its Makefile from client-go's version (0.37 → 1.37); without them it is
  # 1.20 and a chart's kubeVersion constraint fails.
  cg="$(cd "$here" && go list -m -f '{{.Version}}' k8s.io/client-go)"
  minor="$(echo "$cg" | cut -d. -f2)"
  k8s="-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$minor"
  k8s="$k8s -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$minor"
  start=$(date +%s)
  # -X sets what `helm version` prints, as Helm's own Makefile does for a tagged release.
  (cd "$here" && CGO_ENABLED=0 go build -p "${HELM3_CLI_BUILD_JOBS:-2}" -trimpath \
      -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$version -X helm.sh/helm/v3/internal/version.gitTreeState=clean $k8s" \
      -o "$target.tmp" helm.sh/helm/v3/cmd/helm)
  mv "$target.tmp" "$target"
  echo "helm3-cli build: done in $(( $(date +%s) - start ))s, $(du -m "$target" | cut -f1) MB" >&2
  # keep only the newest few builds
  ls -1t "$bindir"/helm3-* 2>/dev/null | grep -v '\.tmp$' | tail -n +4 | xargs -r rm -f
fi
ln -sfn "$(basename "$target")" "$bindir/helm3"
echo "$bindir/helm3"
