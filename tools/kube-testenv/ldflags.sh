#!/usr/bin/env bash
# Prints the -X flags that make /version report the real Kubernetes version
# instead of v0.0.0-master. Usage: ldflags.sh [version]; default from go.mod.
set -euo pipefail
cd "$(dirname "$0")"
version="${1:-$(awk '$1=="k8s.io/kubernetes"{print $2; exit} $2=="k8s.io/kubernetes"{print $3; exit}' go.mod)}"
version="${version#v}"
major="${version%%.*}"
rest="${version#*.}"
minor="${rest%%.*}"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  printf -- '-X %s.gitVersion=v%s -X %s.gitMajor=%s -X %s.gitMinor=%s -X %s.gitTreeState=clean ' \
    "$pkg" "$version" "$pkg" "$major" "$pkg" "$minor" "$pkg"
done
echo
