{{/*
One credential as an env entry: from the user's existingSecret when named, else from the chart's own Secret when
an inline value is given, else nothing (or a render error when the setting is required).
*/}}
{{- define "meerkat.secretEnv" -}}
{{- if .secret }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key | default .env }}
{{- else if .value }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: {{ .env }}
{{- else if .required }}
{{- fail (printf "%s is required: set %s or %s" .env .hint .secretHint) }}
{{- end }}
{{- end -}}

{{/*
The credentials of one process (docs/configuration.md), each only where it is read: the API keys and the Slack
app's secrets only in the hub, which alone authenticates callers and Slack. Plain settings come from the ConfigMap;
NODE_OPTIONS (V8 flags) and HEAP_BUDGET_MIB from the process's own values (hub.nodeOptions, worker.heapBudgetMib,
...), as they differ by process; a heap budget of 0 renders nothing (off, as unset).
Called with (dict "root" . "component" "hub"|"scheduler"|"worker").
*/}}
{{- define "meerkat.env" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $own := printf "%s-credentials" (include "meerkat.fullname" $root) -}}
{{- include "meerkat.secretEnv" (dict "env" "DATABASE_URL" "value" $v.database.url "secret" $v.database.existingSecret "key" $v.database.existingSecretKey "secretName" $own "required" true "hint" "database.url" "secretHint" "database.existingSecret") }}
{{- include "meerkat.secretEnv" (dict "env" "REDIS_URL" "value" $v.redis.url "secret" $v.redis.existingSecret "key" $v.redis.existingSecretKey "secretName" $own "required" true "hint" "redis.url" "secretHint" "redis.existingSecret") }}
{{- include "meerkat.secretEnv" (dict "env" "SECRETS_KEY" "value" $v.secrets.key "secret" $v.secrets.existingSecret "key" $v.secrets.existingSecretKey "secretName" $own "required" true "hint" "secrets.key" "secretHint" "secrets.existingSecret") }}
{{- include "meerkat.metricsTokenEnv" $root }}
{{- if eq .component "hub" }}
{{- include "meerkat.secretEnv" (dict "env" "AUTH_API_KEYS" "value" $v.auth.apiKeys "secret" $v.auth.existingSecret "key" $v.auth.existingSecretKey "secretName" $own "required" (eq $v.auth.mode "api-key") "hint" "auth.apiKeys" "secretHint" "auth.existingSecret") }}
{{- include "meerkat.secretEnv" (dict "env" "SLACK_CLIENT_SECRET" "value" $v.slack.clientSecret "secret" $v.slack.existingSecret "secretName" $own) }}
{{- include "meerkat.secretEnv" (dict "env" "SLACK_SIGNING_SECRET" "value" $v.slack.signingSecret "secret" $v.slack.existingSecret "secretName" $own) }}
{{- end }}
{{- with (index $v .component).nodeOptions }}
- name: NODE_OPTIONS
  value: {{ . | quote }}
{{- end }}
{{- with (index $v .component).heapBudgetMib }}
- name: HEAP_BUDGET_MIB
  value: {{ . | toString | quote }}
{{- end }}
{{- with $v.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "meerkat.envFrom" -}}
- configMapRef:
    name: {{ include "meerkat.fullname" . }}-settings
{{- end -}}

{{/* METRICS_BEARER_TOKEN, for every process that serves /metrics (docs/security.md); nothing when none is set. */}}
{{- define "meerkat.metricsTokenEnv" -}}
{{- $token := .Values.metrics.bearerToken -}}
{{- include "meerkat.secretEnv" (dict "env" "METRICS_BEARER_TOKEN" "value" $token.token "secret" $token.existingSecret "key" $token.existingSecretKey "secretName" (printf "%s-credentials" (include "meerkat.fullname" .))) }}
{{- end -}}
