{{/* Names and labels shared by every object of the chart. */}}

{{- define "outpost.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "outpost.squidName" -}}
{{- printf "%s-squid" (include "outpost.fullname" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "outpost.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: outpost
{{- end -}}

{{/* Selector labels: component is "origin" or "squid". */}}
{{- define "outpost.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "outpost.image" -}}
{{- printf "%s:%s" .image.repository (default .root.Chart.AppVersion .image.tag) -}}
{{- end -}}

{{/* The URLs the jobs use for the service (Squid admits these only): the values, or this release's Service. */}}
{{- define "outpost.outpostUrls" -}}
{{- if .Values.squid.outpostUrls -}}
{{- join " " .Values.squid.outpostUrls -}}
{{- else -}}
{{- printf "http://%s.%s.svc.cluster.local:%v" (include "outpost.fullname" .) .Release.Namespace .Values.service.port -}}
{{- end -}}
{{- end -}}

{{/* outpost.trusted-proxies: the Squid pods' network and any further proxies, comma-separated. */}}
{{- define "outpost.trustedProxies" -}}
{{- $all := list -}}
{{- if .Values.squid.enabled -}}
{{- $all = concat $all .Values.trustedProxies.squidPodCidrs -}}
{{- end -}}
{{- $all = concat $all .Values.trustedProxies.extra -}}
{{- join "," $all -}}
{{- end -}}

{{/* The Secret with the database credentials: the CloudNativePG cluster's, or the one named in the values. */}}
{{- define "outpost.databaseSecret" -}}
{{- if .Values.cloudNativePG.cluster -}}
{{- default (printf "%s-app" .Values.cloudNativePG.cluster) .Values.cloudNativePG.secret -}}
{{- else -}}
{{- required "database.existingSecret (a Secret with the JDBC URL, user and password) or cloudNativePG.cluster is required" .Values.database.existingSecret -}}
{{- end -}}
{{- end -}}
