//go:build tools

// Package tools pins kro's controller (github.com/kubernetes-sigs/kro, a released version) in this
// module's build list, so `go build github.com/kubernetes-sigs/kro/cmd/controller` builds exactly the
// versions go.sum records. Nothing here is compiled: build.sh builds kro's own main package.
package tools

import _ "github.com/kubernetes-sigs/kro/cmd/controller"
