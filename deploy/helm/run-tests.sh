#!/usr/bin/env bash
# The Helm chart's tests (deploy/helm/outpost), run by `./outpost test`:
#   helm lint of the chart with its default and its production example values, `helm template` of both, and
#   deploy/helm/validate (go test): every rendered manifest decoded strictly into its Kubernetes API type, then
#   what a site needs asserted on them (probes, graceful shutdown, Secrets, PDB, HPA, the Squid's trust wiring,
#   its squid.conf parsed by the real Squid).
# Needs: Go 1.26 or newer (on PATH or /usr/local/go/bin), the Go module proxy on the first run, and Squid
# (Debian package squid) for the squid.conf check. helm is built from the Go module registry
# (go install helm.sh/helm/v3/cmd/helm@VERSION) once into ~/.cache/outpost-tools (OUTPOST_TOOLS_DIR), so later
# runs only compile the validator's changes.
set -euo pipefail
cd "$(dirname "$0")"

HELM_VERSION=v3.22.0
# the Kubernetes version rendered for: that of the k8s.io/api types the validator decodes into (go.mod); helm
# built by `go install` would otherwise assume 1.20, below the chart's kubeVersion
export KUBE_VERSION=1.37.0
go=$(command -v go || true)
[ -z "$go" ] && [ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go
[ -n "$go" ] || { echo "deploy/helm: Go 1.26 or newer is needed (not on PATH, not in /usr/local/go/bin)" >&2; exit 1; }

tools=${OUTPOST_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/outpost-tools}
helm=$tools/helm-$HELM_VERSION/helm
if [ ! -x "$helm" ]; then
  echo "deploy/helm: building helm $HELM_VERSION from the Go module registry (once, into $tools)"
  GOBIN=$tools/helm-$HELM_VERSION "$go" install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
fi
# helm keeps no state between runs here: its own folders go to a temporary directory
helm_home=$(mktemp -d)
trap 'rm -rf "$helm_home"' EXIT
export HELM_CACHE_HOME=$helm_home/cache HELM_CONFIG_HOME=$helm_home/config HELM_DATA_HOME=$helm_home/data

echo "=== deploy/helm: helm lint and helm template (default and production values)"
for values in "" outpost/values-production.yaml; do
  args=(); [ -n "$values" ] && args=(--values "$values")
  "$helm" lint --strict --kube-version "$KUBE_VERSION" outpost "${args[@]}" >"$helm_home/lint.log" 2>&1 || { cat "$helm_home/lint.log"; exit 1; }
  "$helm" template outpost outpost --namespace conditions --kube-version "$KUBE_VERSION" "${args[@]}" >/dev/null
  echo "chart lints and renders with ${values:-the default values}"
done

echo "=== deploy/helm: rendered manifests against the Kubernetes API types, and what they contain"
cd validate
HELM=$helm "$go" test -count=1 -v . | grep -v -E '^=== (RUN|PAUSE|CONT)'
