{{/* The chart name, or nameOverride. */}}
{{- define "kgraph.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The full name: fullnameOverride, else the release name (with the chart name unless it holds it). */}}
{{- define "kgraph.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels that select the controller pods; they never change across upgrades. */}}
{{- define "kgraph.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kgraph.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "kgraph.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "kgraph.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/component: controller
{{- with .Values.additionalLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "kgraph.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "kgraph.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The port number of a bind address such as ":8080" or "0.0.0.0:8080". */}}
{{- define "kgraph.port" -}}
{{- regexFind "[0-9]+$" . | required (printf "a bind address with a port is required, got %q" .) }}
{{- end }}

{{- define "kgraph.planesNamespace" -}}
{{- default .Release.Namespace .Values.controllers.planes.namespace }}
{{- end }}

{{- define "kgraph.replicasMode" -}}
{{- .Values.config.replicasMode | default (ternary "active-passive" "single" .Values.config.enableLeaderElection) }}
{{- end }}

{{- define "kgraph.leaseNamespace" -}}
{{- default .Release.Namespace .Values.config.leaderElectionNamespace }}
{{- end }}
