#!/usr/bin/env bash
# Regenerates the replace block that maps every Kubernetes staging module
# (required as v0.0.0 by k8s.io/kubernetes) to its published v0.<minor>.<patch> tag.
# Usage: tools/kube-testenv/gen-replaces.sh 1.37.2
set -euo pipefail
version="${1:?usage: gen-replaces.sh <kubernetes version, e.g. 1.37.2>}"
cd "$(dirname "$0")"
minor_patch="${version#1.}"
staging_version="v0.${minor_patch}"

gomod_path="$(go list -m -json "k8s.io/kubernetes@v${version}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
if [[ -z "$gomod_path" || ! -f "$gomod_path" ]]; then
  gomod_path="$(go mod download -json "k8s.io/kubernetes@v${version}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
fi
[[ -f "$gomod_path" ]] || { echo "gen-replaces: cannot read go.mod of k8s.io/kubernetes@v${version}" >&2; exit 1; }

staging=$(awk '/^[[:space:]]*k8s\.io\/[a-z0-9-]+ v0\.0\.0([[:space:]]|$)/ {print $1}' "$gomod_path" | sort -u)
[[ -n "$staging" ]] || { echo "gen-replaces: no staging modules found in $gomod_path" >&2; exit 1; }

# Drop any previous generated block, then append a fresh one.
awk '/^\/\/ BEGIN generated replaces/{skip=1} !skip{print} /^\/\/ END generated replaces/{skip=0}' go.mod > go.mod.tmp
mv go.mod.tmp go.mod
{
  echo "// BEGIN generated replaces (gen-replaces.sh ${version}; do not edit by hand)"
  echo "replace ("
  for m in $staging; do echo "	$m => $m ${staging_version}"; done
  echo ")"
  echo "// END generated replaces"
} >> go.mod

go mod edit -require="k8s.io/kubernetes@v${version}"
go mod tidy
echo "gen-replaces: $(echo "$staging" | wc -l) staging modules pinned to ${staging_version}" >&2
