{{/*
Egress to every address (0.0.0.0/0 and ::/0) except the CIDRs given, each excepted from the block of its own
address family. Other rules of the same policy may still allow an excepted address on a port of theirs.
*/}}
{{- define "meerkat.np.anywhereExcept" -}}
{{- $v4 := list -}}
{{- $v6 := list -}}
{{- range . -}}
{{- if contains ":" . }}{{ $v6 = append $v6 . }}{{ else }}{{ $v4 = append $v4 . }}{{ end -}}
{{- end -}}
- to:
    - ipBlock:
        cidr: 0.0.0.0/0
        {{- with $v4 }}
        except: {{ toJson (uniq .) }}
        {{- end }}
    - ipBlock:
        cidr: ::/0
        {{- with $v6 }}
        except: {{ toJson (uniq .) }}
        {{- end }}
{{- end -}}

{{/* One egress rule to the `to` peers on `ports`; without peers, to any address on those ports. */}}
{{- define "meerkat.np.rule" -}}
{{- if .to -}}
- to:
    {{- toYaml .to | nindent 4 }}
  ports:
    {{- toYaml .ports | nindent 4 }}
{{- else -}}
- ports:
    {{- toYaml .ports | nindent 4 }}
{{- end -}}
{{- end -}}

{{/* The CIDRs of the ipBlock peers in a list of peers (those of PostgreSQL and Redis, kept from runner Jobs). */}}
{{- define "meerkat.np.ipBlockCidrs" -}}
{{- range . }}{{ with .ipBlock }}{{ .cidr }},{{ end }}{{ end -}}
{{- end -}}

{{/*
The Kubernetes API server's addresses: networkPolicy.kubernetesApi.cidrs, or else the `kubernetes` Service's
ClusterIP and its EndpointSlice's addresses, looked up at install time (empty under `helm template`), comma-joined.
*/}}
{{- define "meerkat.np.kubernetesApiCidrs" -}}
{{- $cidrs := .Values.networkPolicy.kubernetesApi.cidrs -}}
{{- if not $cidrs -}}
{{- $service := lookup "v1" "Service" "default" "kubernetes" -}}
{{- with $service.spec }}{{ with .clusterIP }}{{ $cidrs = append $cidrs . }}{{ end }}{{ end -}}
{{- $slice := lookup "discovery.k8s.io/v1" "EndpointSlice" "default" "kubernetes" -}}
{{- range $slice.endpoints }}{{ range .addresses }}{{ $cidrs = append $cidrs . }}{{ end }}{{ end -}}
{{- end -}}
{{- range $cidrs -}}
{{- if contains "/" . }}{{ . }}{{ else if contains ":" . }}{{ . }}/128{{ else }}{{ . }}/32{{ end }},
{{- end -}}
{{- end -}}

{{/* Egress to the Kubernetes API server: to its addresses when known, else to its ports on any address. */}}
{{- define "meerkat.np.kubernetesApi" -}}
{{- $peers := list -}}
{{- range .cidrs }}{{ $peers = append $peers (dict "ipBlock" (dict "cidr" .)) }}{{ end -}}
{{ include "meerkat.np.rule" (dict "to" $peers "ports" .ports) }}
{{- end -}}

{{/* DNS, which every Pod of the chart needs. */}}
{{- define "meerkat.np.dns" -}}
{{ include "meerkat.np.rule" .Values.networkPolicy.dns }}
{{- end -}}

{{/* A NetworkPolicy's head: its name, labels, the Pods it selects and that it governs both directions. */}}
{{- define "meerkat.np.head" -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ .name }}
  {{- with .namespace }}
  namespace: {{ . }}
  {{- end }}
  labels:
    {{- include "meerkat.labels" (dict "root" .root "component" .component) | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- .podLabels | nindent 6 }}
  policyTypes: [Ingress, Egress]
{{- end -}}
