{{/*
Expand the name of the chart.
*/}}
{{- define "gnau-scoring.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Create a default fully qualified app name.
We truncate at 63 chars because some Kubernetes name fields are limited to this (by the DNS naming spec).
If release name contains chart name it will be used as a full name.
*/}}
{{- define "gnau-scoring.fullname" -}}
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

{{/*
Create chart name and version as used by the chart label.
*/}}
{{- define "gnau-scoring.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Common labels (app.kubernetes.io/* recommended labels plus commonLabels).
*/}}
{{- define "gnau-scoring.labels" -}}
helm.sh/chart: {{ include "gnau-scoring.chart" . }}
{{ include "gnau-scoring.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/component: api
app.kubernetes.io/part-of: gnau-scoring
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Selector labels: stable across upgrades, never add version-like values here.
*/}}
{{- define "gnau-scoring.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gnau-scoring.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Annotations for a resource: commonAnnotations merged with resource-specific ones
(the latter win). Renders the map's YAML, or nothing when empty. Usage:
  {{- with include "gnau-scoring.annotations" (dict "extra" .Values.service.annotations "context" $) }}
  annotations:
    {{- . | nindent 4 }}
  {{- end }}
*/}}
{{- define "gnau-scoring.annotations" -}}
{{- $all := merge (dict) (.extra | default (dict)) (.context.Values.commonAnnotations | default (dict)) }}
{{- with $all }}
{{- toYaml . }}
{{- end }}
{{- end }}

{{/*
Name of the service account to use.
*/}}
{{- define "gnau-scoring.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gnau-scoring.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Container image reference: repository@digest when a digest is set, else repository:tag
(tag defaults to the chart's appVersion).
*/}}
{{- define "gnau-scoring.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion | toString) }}
{{- end }}
{{- end }}

{{/*
Name of the ConfigMap holding the operator profiles.
*/}}
{{- define "gnau-scoring.profilesConfigMapName" -}}
{{- printf "%s-profiles" (include "gnau-scoring.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Fail the render when the shutdown budget does not fit into the grace period:
preStop sleep + drain + gunicorn graceful timeout must be strictly less than
terminationGracePeriodSeconds, or the kubelet SIGKILLs in-flight requests.
(gunicorn.conf.py gives the master drainSeconds + gracefulTimeout after SIGTERM.)
*/}}
{{- define "gnau-scoring.validateShutdown" -}}
{{- $budget := add (int .Values.preStopSleepSeconds) (int .Values.gunicorn.drainSeconds) (int .Values.gunicorn.gracefulTimeout) }}
{{- if le (int .Values.terminationGracePeriodSeconds) $budget }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must be greater than preStopSleepSeconds + gunicorn.drainSeconds + gunicorn.gracefulTimeout (%d)" (int .Values.terminationGracePeriodSeconds) $budget) }}
{{- end }}
{{- end }}
