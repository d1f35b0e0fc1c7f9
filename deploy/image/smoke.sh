#!/usr/bin/env bash
# Runs the image built by deploy/image/build.sh under a real OCI runtime (podman with runc) against a
# local control plane, as the chart's ServiceAccount (a TokenRequest token), and measures it:
#   1. kube-testenv (.cache/bin) on loopback; `helm install` of charts/kgraph with 0 replicas (the
#      ServiceAccount, its RBAC and the CRDs; no pod: nothing would run it here);
#   2. a kubeconfig holding a token of that ServiceAccount, mounted read-only into the container;
#   3. the container, read-only root, /tmp a tmpfs, user 65532, no capabilities, no new privileges, host
#      network (the API server listens on 127.0.0.1): time from `podman run` to /readyz 200, RSS;
#   4. an RGD and an instance: the instance's ConfigMap appears (the chart's RBAC is enough for it).
#
#   bash deploy/image/smoke.sh [IMAGE]   (default kgraph:dev; needs podman, runc, kubectl, and
#                                         .cache/bin/{kube-testenv,helm}: tools/*/build.sh)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
image="${1:-kgraph:dev}"
work="$(mktemp -d)"
ctr=""
plane_pid=""
cleanup() {
  [[ -n "$ctr" ]] && podman rm -f "$ctr" >/dev/null 2>&1 || true
  [[ -n "$plane_pid" ]] && kill "$plane_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ms() { date +%s%3N; }

"$root/.cache/bin/kube-testenv" --data-dir "$work/plane" --with-controllers --exit-on-stdin-close=false \
  > "$work/ready.json" 2> "$work/plane.log" &
plane_pid=$!
for _ in $(seq 1 600); do [[ -s "$work/ready.json" ]] && break; sleep 0.2; done
export KUBECONFIG="$work/plane/admin.kubeconfig"
# kubectl caches discovery under $HOME/.kube by default; keep it in the scratch folder.
export KUBECACHEDIR="$work/kube-cache"
server="$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')"

"$root/.cache/bin/helm" install kgraph "$root/charts/kgraph" -n kgraph-system --create-namespace \
  --set deployment.replicaCount=0 >/dev/null
token="$(kubectl -n kgraph-system create token kgraph --duration=1h)"
kubectl config view --minify --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' \
  | base64 -d > "$work/ca.crt"
mkdir -p "$work/kube"
cat > "$work/kube/config" <<KC
apiVersion: v1
kind: Config
clusters: [{name: plane, cluster: {server: "$server", certificate-authority-data: "$(base64 -w0 < "$work/ca.crt")"}}]
users: [{name: kgraph, user: {token: "$token"}}]
contexts: [{name: kgraph, context: {cluster: plane, user: kgraph, namespace: kgraph-system}}]
current-context: kgraph
KC
chmod 644 "$work/kube/config"
echo "as: $(kubectl --kubeconfig "$work/kube/config" auth whoami -o jsonpath='{.status.userInfo.username}')"

# runc here refuses rlimits above the ones conmon inherits (EPERM setting RLIMIT_NOFILE/NPROC), so set
# them below the host's.
start=$(ms)
ctr="$(podman --runtime runc run -d --network host --read-only --tmpfs /tmp --user 65532:65532 \
  --cap-drop ALL --security-opt no-new-privileges --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 \
  -e POD_NAMESPACE=kgraph-system -v "$work/kube:/kube:ro" "$image" \
  controller --kubeconfig /kube/config --no-install-crd --leader-elect --leader-election-namespace kgraph-system \
  --metrics-addr 127.0.0.1:18080 --health-addr 127.0.0.1:18081 --log-format json)"
until curl -fs http://127.0.0.1:18081/readyz >/dev/null 2>&1; do
  if [[ "$(podman inspect -f '{{.State.Running}}' "$ctr")" != true ]]; then
    podman logs "$ctr" >&2; echo "container exited" >&2; exit 1
  fi
  (( $(ms) - start > 120000 )) && { podman logs "$ctr" >&2; echo "not ready in 120 s" >&2; exit 1; }
  sleep 0.05
done
ready=$(( $(ms) - start ))
echo "start to ready: ${ready} ms"

kubectl apply -f - >/dev/null <<'YAML'
apiVersion: kro.run/v1alpha1
kind: ResourceGraphDefinition
metadata: {name: greeting}
spec:
  schema:
    apiVersion: v1alpha1
    kind: Greeting
    spec: {text: string | default="hello"}
  resources:
    - id: cm
      template:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: "${schema.metadata.name}-greeting"}
        data: {text: "${schema.spec.text}"}
YAML
for _ in $(seq 1 600); do kubectl get crd greetings.kro.run >/dev/null 2>&1 && break; sleep 0.2; done
kubectl wait --for=condition=Established crd/greetings.kro.run --timeout=60s >/dev/null
kubectl apply -f - >/dev/null <<'YAML'
apiVersion: kro.run/v1alpha1
kind: Greeting
metadata: {name: smoke, namespace: default}
spec: {text: from-the-image}
YAML
for _ in $(seq 1 600); do
  text="$(kubectl -n default get configmap smoke-greeting -o jsonpath='{.data.text}' 2>/dev/null || true)"
  [[ "$text" == from-the-image ]] && break
  sleep 0.2
done
[[ "$text" == from-the-image ]] || { podman logs "$ctr" >&2; echo "the instance's ConfigMap never appeared" >&2; exit 1; }
echo "rgd instance converged: ConfigMap smoke-greeting written by the container"
sleep 5
pid="$(podman inspect -f '{{.State.Pid}}' "$ctr")"
echo "rss 5 s after converging: $(awk '/VmRSS/{printf "%.1f MiB", $2/1024}' "/proc/$pid/status")"
echo "image size: $(podman image inspect -f '{{.Size}}' "$image" | awk '{printf "%.1f MiB", $1/1048576}')"
