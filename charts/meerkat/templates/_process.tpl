{{/*
A Deployment of a queue process (scheduler, or the workers of one location). They serve no API, only Prometheus
on METRICS_PORT, so that port is what the probes watch: it answers while the event loop turns. `serviceAccount`
is the suffix of its ServiceAccount's name (default worker).
*/}}
{{- define "meerkat.queueProcess" -}}
{{- $root := .root -}}
{{- $labels := dict "root" $root "component" .component "location" .location -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .name }}
  labels:
    {{- include "meerkat.labels" $labels | nindent 4 }}
spec:
  replicas: {{ .replicas }}
  selector:
    matchLabels:
      {{- include "meerkat.selectorLabels" $labels | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "meerkat.labels" $labels | nindent 8 }}
        meerkat.dev/scrape: 'true'
      annotations:
        checksum/settings: {{ include (print $root.Template.BasePath "/settings-configmap.yaml") $root | sha256sum }}
    spec:
      serviceAccountName: {{ include "meerkat.fullname" $root }}-{{ .serviceAccount | default "worker" }}
      # Above SHUTDOWN_GRACE_SECONDS, within which the process exits on its own (docs/operations.md).
      terminationGracePeriodSeconds: {{ add $root.Values.shutdownGraceSeconds 15 }}
      securityContext:
        {{- include "meerkat.podSecurityContext" $root | nindent 8 }}
      {{- with .nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "meerkat.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args: {{ toJson .args }}
          envFrom:
            {{- include "meerkat.envFrom" $root | nindent 12 }}
          env:
            {{- include "meerkat.env" (dict "root" $root "component" .component) | nindent 12 }}
          ports:
            - name: metrics
              containerPort: {{ $root.Values.metrics.port }}
          # /healthz of the metrics port needs no METRICS_BEARER_TOKEN, which probes cannot carry.
          livenessProbe:
            httpGet: { path: /healthz, port: metrics }
            periodSeconds: 15
            failureThreshold: 4
          readinessProbe:
            httpGet: { path: /healthz, port: metrics }
            periodSeconds: 10
          resources:
            {{- toYaml .resources | nindent 12 }}
          securityContext:
            {{- include "meerkat.containerSecurityContext" $root | nindent 12 }}
          volumeMounts:
            {{- include "meerkat.tmpMount" $root | nindent 12 }}
      volumes:
        {{- include "meerkat.tmpVolume" $root | nindent 8 }}
{{- if gt (int .replicas) 1 }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ .name }}
  labels:
    {{- include "meerkat.labels" $labels | nindent 4 }}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      {{- include "meerkat.selectorLabels" $labels | nindent 6 }}
{{- end }}
{{- end -}}
