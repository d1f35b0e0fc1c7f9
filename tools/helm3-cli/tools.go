//go:build tools

// Helm 3's CLI, built from its published module (`go build helm.sh/helm/v3/cmd/helm`), so the chart's
// install test can also run the previous major; this file keeps the command's dependencies in go.mod.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
