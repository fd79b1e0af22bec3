{{/* Names: the release name, unless it already contains the chart name (then "meerkat-hub", not "meerkat-meerkat-hub"). */}}
{{- define "meerkat.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries; "component" is the process (hub, scheduler, worker, operator, migrate). */}}
{{- define "meerkat.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
{{ include "meerkat.selectorLabels" . }}
{{- end -}}

{{/* Selector labels never change across upgrades (a Deployment's selector is immutable). */}}
{{- define "meerkat.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- with .location }}
meerkat.dev/location: {{ . }}
{{- end }}
{{- end -}}

{{- define "meerkat.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{- define "meerkat.hubUrl" -}}
{{- printf "http://%s-hub.%s.svc:%v" (include "meerkat.fullname" .) .Release.Namespace .Values.hub.port -}}
{{- end -}}

{{/* The restricted Pod Security Standard, for every Pod of the chart. */}}
{{- define "meerkat.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "meerkat.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end -}}

{{/* The root filesystem is read-only; Node and the drivers still want a writable /tmp. */}}
{{- define "meerkat.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end -}}

{{- define "meerkat.tmpMount" -}}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{/* LOCATIONS as the JSON array of docs/locations.md; a job location's image and hubUrl default to this release's. */}}
{{- define "meerkat.locationsJson" -}}
{{- $locations := list -}}
{{- range .Values.locations -}}
{{- $location := dict "name" .name "executor" .executor -}}
{{- if eq .executor "job" -}}
{{- $job := deepCopy .job -}}
{{- $_ := set $job "image" (.job.image | default (include "meerkat.image" $)) -}}
{{- $_ := set $job "hubUrl" (.job.hubUrl | default (include "meerkat.hubUrl" $)) -}}
{{- $_ := set $location "job" $job -}}
{{- end -}}
{{- with .egress -}}
{{- $_ := set $location "egress" . -}}
{{- end -}}
{{- $locations = append $locations $location -}}
{{- end -}}
{{- toJson $locations -}}
{{- end -}}

{{/*
MEERKAT_ENDPOINTS (docs/egress.md#meerkats-own-processes): the release's Services by every name a Pod may resolve
them by, and every port of every process on this host's own addresses, so no monitor, redirect, webhook or SMTP
connection made on a tenant's behalf reaches Meerkat itself. Comma-joined.
*/}}
{{- define "meerkat.ownEndpoints" -}}
{{- $fullname := include "meerkat.fullname" . -}}
{{- $entries := list -}}
{{- range $service := list "hub" "metrics" -}}
{{- $name := printf "%s-%s" $fullname $service -}}
{{- $qualified := printf "%s.%s.svc" $name $.Release.Namespace -}}
{{- $entries = concat $entries (list $name (printf "%s.%s" $name $.Release.Namespace) $qualified (printf "%s.%s" $qualified $.Values.clusterDomain)) -}}
{{- end -}}
{{- $ports := list .Values.hub.port .Values.metrics.port -}}
{{- if .Values.operator.enabled }}{{ $ports = append $ports .Values.operator.healthPort }}{{ end -}}
{{- range uniq $ports }}{{ $entries = append $entries (printf "localhost:%v" .) }}{{ end -}}
{{- join "," $entries -}}
{{- end -}}

{{/*
The first location whose executor is `worker`, or nothing: the one whose checks worker.inHub puts in the hub's Pods
and whose process keeps the schedules with scheduler.inWorker.
*/}}
{{- define "meerkat.firstWorkerLocation" -}}
{{- $first := "" -}}
{{- range .Values.locations -}}
{{- if and (eq $first "") (eq (.executor | default "worker") "worker") }}{{ $first = .name }}{{ end -}}
{{- end -}}
{{- $first -}}
{{- end -}}

{{/*
The hub's container args: `hub`, and with worker.inHub `--locations <the first worker location>` (with
scheduler.inWorker `--with-scheduler` too): one process for the API, that location's checks and the schedules
(docs/adr/0086-worker-in-the-hub.md).
*/}}
{{- define "meerkat.hubArgs" -}}
{{- $args := list "hub" -}}
{{- if .Values.worker.inHub -}}
{{- $first := include "meerkat.firstWorkerLocation" . -}}
{{- if eq $first "" }}{{ fail "worker.inHub needs a location whose executor is worker" }}{{ end -}}
{{- $args = concat $args (list "--locations" $first) -}}
{{- if .Values.scheduler.inWorker }}{{ $args = append $args "--with-scheduler" }}{{ end -}}
{{- end -}}
{{- toJson $args -}}
{{- end -}}
