//go:build tools

// The Helm CLI is built from its published module (`go build helm.sh/helm/v4/cmd/helm`); this file only
// keeps the command's package, and so all of its dependencies, in go.mod and go.sum.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
