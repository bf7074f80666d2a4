package validate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// The values files rendered: the chart's defaults and the production example.
var valueSets = map[string][]string{
	"default":    nil,
	"production": {ChartDir + "/values-production.yaml"},
}

func rendered(t *testing.T, values []string, sets ...string) []Object {
	t.Helper()
	out, err := Render(values, sets...)
	if err != nil {
		t.Fatal(err)
	}
	objects, err := Decode(out)
	if err != nil {
		t.Fatalf("a rendered manifest is not a valid Kubernetes object: %v", err)
	}
	return objects
}

// values reads a values file (or the defaults) as a generic tree, for the expectations.
func values(t *testing.T, name string) map[string]any {
	t.Helper()
	read := func(path string) map[string]any {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	v := read(ChartDir + "/values.yaml")
	for _, f := range valueSets[name] {
		merge(v, read(f))
	}
	return v
}

func merge(dst, src map[string]any) {
	for k, sv := range src {
		if sm, ok := sv.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = sv
	}
}

func path(m map[string]any, keys ...string) any {
	var cur any = m
	for _, k := range keys {
		cur = cur.(map[string]any)[k]
	}
	return cur
}

func one[T any](t *testing.T, items []T, what string) T {
	t.Helper()
	if len(items) != 1 {
		t.Fatalf("want exactly one %s, rendered %d", what, len(items))
	}
	return items[0]
}

func origins(t *testing.T, objects []Object) (*appsv1.Deployment, corev1.Container) {
	t.Helper()
	d := one(t, Find[*appsv1.Deployment](objects), "Deployment")
	return d, one(t, d.Spec.Template.Spec.Containers, "origin container")
}

func squid(t *testing.T, objects []Object) (*appsv1.StatefulSet, corev1.Container) {
	t.Helper()
	s := one(t, Find[*appsv1.StatefulSet](objects), "StatefulSet")
	return s, one(t, s.Spec.Template.Spec.Containers, "Squid container")
}

func env(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

func envValue(t *testing.T, c corev1.Container, name string) string {
	t.Helper()
	e := env(c, name)
	if e == nil {
		t.Fatalf("container %s has no %s", c.Name, name)
	}
	if e.ValueFrom != nil {
		t.Fatalf("%s comes from %v, want a value", name, e.ValueFrom)
	}
	return e.Value
}

func containerPort(t *testing.T, c corev1.Container, name string) int32 {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	t.Fatalf("container %s has no port %q", c.Name, name)
	return 0
}

func selects(t *testing.T, sel *metav1.LabelSelector, podLabels map[string]string) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	return !s.Empty() && s.Matches(labels.Set(podLabels))
}

func forEachValueSet(t *testing.T, test func(t *testing.T, name string, objects []Object)) {
	for name, files := range valueSets {
		t.Run(name, func(t *testing.T) { test(t, name, rendered(t, files)) })
	}
}

func TestEveryManifestDecodesStrictlyIntoItsType(t *testing.T) {
	forEachValueSet(t, func(t *testing.T, name string, objects []Object) {
		kinds := map[string]int{}
		for _, o := range objects {
			kinds[strings.TrimPrefix(strings.Split(filepathBase(o.Source), ".")[0], "")]++
		}
		want := []string{"configmap", "deployment", "service", "pdb", "hpa", "networkpolicy", "squid-configmap",
			"squid-statefulset", "squid-service"}
		if name == "production" {
			want = append(want, "servicemonitor")
		}
		for _, w := range want {
			if kinds[w] == 0 {
				t.Errorf("nothing rendered from templates/%s.yaml (rendered: %v)", w, kinds)
			}
		}
	})
}

func filepathBase(source string) string { return filepath.Base(source) }

// The validator itself: a field the API does not have, or a value of the wrong type, must fail.
func TestStrictDecodingRefusesUnknownFieldsAndWrongTypes(t *testing.T) {
	for _, c := range []struct{ what, doc, says string }{
		{"unknown field", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {ports: [{port: 80, prot: TCP}]}\n", "unknown field"},
		{"wrong type", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {ports: [{port: eighty}]}\n", "int32"},
		{"unknown kind", "apiVersion: v1\nkind: Servce\nmetadata: {name: x}\n", "Servce"},
		{"bad name", "apiVersion: v1\nkind: Service\nmetadata: {name: X_y}\n", "RFC 1123"},
		{"duplicate key", "apiVersion: v1\nkind: Service\nmetadata: {name: x, name: z}\n", "already set"},
	} {
		_, err := Decode([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: decoding gave %v, want an error saying %q", c.what, err, c.says)
		}
	}
	if _, err := Decode([]byte("apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {ports: [{port: 80}]}\n")); err != nil {
		t.Errorf("a valid Service was refused: %v", err)
	}
}

// Probes: the kubelet comes from the pod network, which the service port's management filter answers with the
// status alone and 404s the health groups; so they go to the management port, which the actuator moves to.
func TestOriginProbesUseTheManagementPortsHealthGroups(t *testing.T) {
	forEachValueSet(t, func(t *testing.T, name string, objects []Object) {
		_, c := origins(t, objects)
		mgmt := containerPort(t, c, "management")
		if got := envValue(t, c, "MANAGEMENT_SERVER_PORT"); got != strconv.Itoa(int(mgmt)) {
			t.Errorf("MANAGEMENT_SERVER_PORT %q, container port %d", got, mgmt)
		}
		if envValue(t, c, "MANAGEMENT_ENDPOINT_HEALTH_PROBES_ENABLED") != "true" {
			t.Error("health probe groups not enabled")
		}
		if envValue(t, c, "SERVER_PORT") != strconv.Itoa(int(containerPort(t, c, "http"))) {
			t.Error("SERVER_PORT is not the http container port")
		}
		for probe, p := range map[string]*corev1.Probe{"startup": c.StartupProbe, "liveness": c.LivenessProbe,
			"readiness": c.ReadinessProbe} {
			if p == nil || p.HTTPGet == nil {
				t.Errorf("no HTTP %s probe", probe)
				continue
			}
			wantPath := "/actuator/health/liveness"
			if probe == "readiness" {
				wantPath = "/actuator/health/readiness"
			}
			if p.HTTPGet.Path != wantPath || p.HTTPGet.Port.String() != "management" {
				t.Errorf("%s probe on %s port %s, want %s on the management port", probe, p.HTTPGet.Path,
					p.HTTPGet.Port.String(), wantPath)
			}
		}
		if c.StartupProbe != nil && c.StartupProbe.PeriodSeconds*c.StartupProbe.FailureThreshold < 90 {
			t.Error("the startup probe gives a first start (schema migration) less than the image's 90 s")
		}
	})
}

func TestGracefulShutdownFitsTheGracePeriod(t *testing.T) {
	forEachValueSet(t, func(t *testing.T, name string, objects []Object) {
		d, c := origins(t, objects)
		if envValue(t, c, "SERVER_SHUTDOWN") != "graceful" {
			t.Error("server.shutdown is not graceful")
		}
		phase, err := time.ParseDuration(envValue(t, c, "SPRING_LIFECYCLE_TIMEOUT_PER_SHUTDOWN_PHASE"))
		if err != nil {
			t.Fatal(err)
		}
		if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Exec == nil {
			t.Fatal("no preStop")
		}
		cmd := c.Lifecycle.PreStop.Exec.Command
		if len(cmd) != 2 || cmd[0] != "sleep" {
			t.Fatalf("preStop %v, want sleep N", cmd)
		}
		sleep, err := strconv.Atoi(cmd[1])
		if err != nil || sleep < 5 {
			t.Fatalf("preStop sleeps %q: too short for the endpoints to drop the pod", cmd[1])
		}
		grace := d.Spec.Template.Spec.TerminationGracePeriodSeconds
		if grace == nil || time.Duration(*grace)*time.Second <= time.Duration(sleep)*time.Second+phase {
			t.Errorf("terminationGracePeriodSeconds %v does not cover preStop %d s + shutdown phase %s", grace, sleep, phase)
		}
	})
}

// docs/operations.md "Sizing": 70 % heap suits a memory limit of 2 GB or more; the heap must hold 2 x the answer
// cache + 256 MB + 96 MB per Frontier context + the held rows (an eighth of the heap).
func TestOriginsAreSizedAsTheSizingTableSays(t *testing.T) {
	forEachValueSet(t, func(t *testing.T, name string, objects []Object) {
		_, c := origins(t, objects)
		limit, ok := c.Resources.Limits[corev1.ResourceMemory]
		if !ok || limit.Cmp(resource.MustParse("2Gi")) < 0 {
			t.Fatalf("memory limit %v, want at least 2Gi", limit.String())
		}
		if req := c.Resources.Requests[corev1.ResourceMemory]; req.Cmp(limit) != 0 {
			t.Errorf("memory request %s differs from the limit %s: a JVM sized by its limit can be evicted", req.String(), limit.String())
		}
		if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
			t.Error("no CPU request: the HPA's utilisation needs one")
		}
		if !strings.Contains(envValue(t, c, "JAVA_TOOL_OPTIONS"), "-XX:MaxRAMPercentage=70") {
			t.Error("the JVM is not sized from the container's memory")
		}
		cache := resource.MustParse(strings.TrimSuffix(path(values(t, name), "config", "outpost", "cache",
			"max-size").(string), "B") + "i")
		heap := limit.Value() * 70 / 100
		need := 2*cache.Value() + (256+96)<<20 + heap/8
		if heap < need {
			t.Errorf("heap %d MB < 2 x cache + 352 MB + held rows = %d MB", heap>>20, need>>20)
		}
	})
}

func TestDatabaseAndSigningKeyComeFromSecrets(t *testing.T) {
	forEachValueSet(t, func(t *testing.T, name string, objects []Object) {
		d, c := origins(t, objects)
		for _, v := range []string{"OUTPOST_DATABASE_USER", "OUTPOST_DATABASE_PASSWORD"} {
			e := env(c, v)
			if e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
				t.Errorf("%s is not read from a Secret", v)
			}
		}
		for _, e := range c.Env {
			if strings.Contains(strings.ToLower(e.Name), "password") && e.Value != "" {
				t.Errorf("%s is a literal in the manifest", e.Name)
			}
		}
		if name != "production" {
			return
		}
		// the production example: a CloudNativePG cluster, reads from its standbys, signed answers
		if got := envValue(t, c, "OUTPOST_DATABASE_URL"); got != "jdbc:postgresql://conditions-db-rw:5432/conditions" {
			t.Errorf("database URL %q", got)
		}
		if got := env(c, "OUTPOST_DATABASE_PASSWORD").ValueFrom.SecretKeyRef; got.Name != "conditions-db-app" || got.Key != "password" {
			t.Errorf("password from %s/%s, want the operator's conditions-db-app/password", got.Name, got.Key)
		}
		if got := envValue(t, c, "OUTPOST_READ_REPLICA_URL"); got != "jdbc:postgresql://conditions-db-ro:5432/conditions" {
			t.Errorf("read replica URL %q", got)
		}
		keyFile := envValue(t, c, "OUTPOST_SIGNING_KEY_FILE")
		if envValue(t, c, "OUTPOST_SIGNING_KEY_ID") == "" {
			t.Error("no signing key id")
		}
		mounted := false
		for _, m := range c.VolumeMounts {
			if strings.HasPrefix(keyFile, m.MountPath+"/") {
				for _, v := range d.Spec.Template.Spec.Volumes {
					if v.Name == m.Name && v.Secret != nil && v.Secret.SecretName == "outpost-signing" {
						mounted = true
					}
				}
			}
		}
		if !mounted {
			t.Errorf("the signing key file %s is not on a volume of the Secret outpost-signing", keyFile)
		}
	})
}

func TestReadReplicaByConnectionString(t *testing.T) {
	_, c := origins(t, rendered(t, nil, "readReplica.url=jdbc:postgresql://db-standby.example.org/conditions"))
	if got := envValue(t, c, "OUTPOST_READ_REPLICA_URL"); got != "jdbc:postgresql://db-standby.example.org/conditions" {
		t.Errorf("read replica URL %q", got)
	}
	_, c = origins(t, rendered(t, nil))
	if env(c, "OUTPOST_READ_REPLICA_URL") != nil {
		t.Error("a read replica is configured by default")
	}
}

func TestMissingDatabaseSecretIsRefusedWithItsName(t *testing.T) {
	_, err := Render(nil, "database.existingSecret=")
	if err == nil || !strings.Contains(err.Error(), "database.existingSecret") {
		t.Errorf("rendering without a database gave %v, want an error naming database.existingSecret", err)
	}
}

func TestSettingsFromValuesReachTheService(t *testing.T) {
	forEachValueSet(t, func(t *testing.T, name string, objects []Object) {
		d, c := origins(t, objects)
		var cm *corev1.ConfigMap
		for _, m := range Find[*corev1.ConfigMap](objects) {
			if m.Name == d.Name+"-config" {
				cm = m
			}
		}
		if cm == nil {
			t.Fatal("no settings ConfigMap")
		}
		var app map[string]any
		if err := yaml.Unmarshal([]byte(cm.Data["application.yaml"]), &app); err != nil {
			t.Fatal(err)
		}
		want := path(values(t, name), "config", "outpost", "cache", "max-size")
		if got := path(app, "outpost", "cache", "max-size"); got != want {
			t.Errorf("application.yaml has cache max-size %v, values %v", got, want)
		}
		if path(app, "outpost", "demo-data") != false {
			t.Error("demo data would be loaded into the site's database")
		}
		loc := envValue(t, c, "SPRING_CONFIG_ADDITIONAL_LOCATION")
		mountedAt := ""
		for _, m := range c.VolumeMounts {
			if m.Name == "config" {
				mountedAt = m.MountPath
			}
		}
		if mountedAt == "" || !strings.Contains(loc, "file:"+mountedAt+"/") {
			t.Errorf("the service reads %q, the ConfigMap is mounted at %q", loc, mountedAt)
		}
		if d.Spec.Template.Annotations["checksum/config"] == "" {
			t.Error("a settings change would not roll the pods")
		}
	})
}

func TestPodDisruptionBudgetAndAutoscalerCoverTheOrigins(t *testing.T) {
	forEachValueSet(t, func(t *testing.T, name string, objects []Object) {
		d, _ := origins(t, objects)
		pdb := one(t, Find[*policyv1.PodDisruptionBudget](objects), "PodDisruptionBudget")
		if !selects(t, pdb.Spec.Selector, d.Spec.Template.Labels) {
			t.Error("the PodDisruptionBudget does not select the origins")
		}
		if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 {
			t.Errorf("maxUnavailable %v, want 1", pdb.Spec.MaxUnavailable)
		}
		for _, s := range Find[*appsv1.StatefulSet](objects) {
			if selects(t, pdb.Spec.Selector, s.Spec.Template.Labels) {
				t.Error("the origins' PodDisruptionBudget also selects the Squid")
			}
		}
		hpa := one(t, Find[*autoscalingv2.HorizontalPodAutoscaler](objects), "HorizontalPodAutoscaler")
		if ref := hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != d.Name || ref.APIVersion != "apps/v1" {
			t.Errorf("the HPA scales %v, not the Deployment %s", ref, d.Name)
		}
		if d.Spec.Replicas != nil {
			t.Error("the Deployment sets replicas while the HPA owns them")
		}
		if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 || hpa.Spec.MaxReplicas < *hpa.Spec.MinReplicas {
			t.Errorf("replicas %v..%d: want at least two origins", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
		}
		cpu, rate := false, false
		for _, m := range hpa.Spec.Metrics {
			if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource.Name == corev1.ResourceCPU &&
				m.Resource.Target.AverageUtilization != nil {
				cpu = true
			}
			if m.Type == autoscalingv2.PodsMetricSourceType && m.Pods.Metric.Name == "outpost_requests_per_second" {
				rate = true
			}
		}
		if !cpu {
			t.Error("the HPA does not scale on CPU")
		}
		if rate != (name == "production") {
			t.Errorf("request-rate scaling %v, want it only where enabled (production example)", rate)
		}
	})
}

// The trust wiring: the origins believe X-Forwarded-For from the Squid pods' network, the Squid sends it, and the
// Squid forwards to the origins' Service.
func TestSquidAndOriginsTrustEachOtherAsTheDocsSay(t *testing.T) {
	forEachValueSet(t, func(t *testing.T, name string, objects []Object) {
		_, o := origins(t, objects)
		s, c := squid(t, objects)
		var cidrs []string
		for _, x := range path(values(t, name), "trustedProxies", "squidPodCidrs").([]any) {
			cidrs = append(cidrs, x.(string))
		}
		if got := envValue(t, o, "OUTPOST_TRUSTED_PROXIES"); got != strings.Join(cidrs, ",") {
			t.Errorf("outpost.trusted-proxies %q, want the Squid pod network %v", got, cidrs)
		}
		var svc *corev1.Service
		for _, x := range Find[*corev1.Service](objects) {
			if x.Labels["app.kubernetes.io/component"] == "origin" {
				svc = x
			}
		}
		if svc == nil {
			t.Fatal("no origin Service")
		}
		if got, want := envValue(t, c, "SQUID_ORIGINS"), svc.Name+":"+strconv.Itoa(int(svc.Spec.Ports[0].Port)); got != want {
			t.Errorf("the Squid forwards to %q, the origins' Service is %q", got, want)
		}
		var template string
		for _, cm := range Find[*corev1.ConfigMap](objects) {
			if cm.Labels["app.kubernetes.io/component"] == "squid" {
				template = cm.Data["squid.conf"]
			}
		}
		if !strings.Contains(template, "\nforwarded_for on\n") || !strings.Contains(template, "\nvia on\n") {
			t.Error("the Squid does not send X-Forwarded-For and Via")
		}
		project, err := os.ReadFile("../../../squid-config/squid.conf")
		if err != nil {
			t.Fatal(err)
		}
		if template != string(project) {
			t.Error("the chart's files/squid.conf differs from squid-config/squid.conf: copy it again")
		}
		if envValue(t, c, "SQUID_TEMPLATE") != "/etc/outpost-squid/squid.conf" {
			t.Error("run-squid.sh is not pointed at the ConfigMap's template")
		}
		if strings.Contains(envValue(t, c, "SQUID_SITE_NETS"), "0.0.0.0/0") {
			t.Error("the Squid admits everyone: an open proxy")
		}
		// the cache on a volume claim, big enough for cache_dir plus Squid's swap margin
		if len(s.Spec.VolumeClaimTemplates) != 1 {
			t.Fatal("the Squid's cache is not on a PersistentVolumeClaim")
		}
		claim := s.Spec.VolumeClaimTemplates[0]
		mounted := false
		for _, m := range c.VolumeMounts {
			mounted = mounted || (m.Name == claim.Name && m.MountPath == envValue(t, c, "SQUID_DIR"))
		}
		if !mounted {
			t.Error("the claim is not mounted at SQUID_DIR")
		}
		diskMB, _ := strconv.Atoi(envValue(t, c, "SQUID_CACHE_DISK"))
		size := claim.Spec.Resources.Requests[corev1.ResourceStorage]
		if size.Value() < int64(diskMB)<<20*11/10 {
			t.Errorf("claim %s is smaller than 1.1 x cache_dir %d MB", size.String(), diskMB)
		}
	})
}

// The Squid's squid.conf as its pod would fill it, checked by the real Squid (`squid -k parse`).
func TestSquidConfAsThePodFillsItParses(t *testing.T) {
	if _, err := exec.LookPath("squid"); err != nil {
		if _, err := os.Stat("/usr/sbin/squid"); err != nil {
			t.Skip("squid is not installed (Debian package squid; ./outpost test installs it)")
		}
	}
	forEachValueSet(t, func(t *testing.T, name string, objects []Object) {
		_, c := squid(t, objects)
		dir := t.TempDir()
		var template string
		for _, cm := range Find[*corev1.ConfigMap](objects) {
			if cm.Labels["app.kubernetes.io/component"] == "squid" {
				template = cm.Data["squid.conf"]
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "squid.conf.in"), []byte(template), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "../../../squid-config/run-squid.sh", "parse", "--dir", filepath.Join(dir, "state"))
		cmd.Env = append(os.Environ(), "SQUID_TEMPLATE="+filepath.Join(dir, "squid.conf.in"), "SQUID_NAME=squid-0")
		for _, e := range c.Env {
			if strings.HasPrefix(e.Name, "SQUID_") && e.ValueFrom == nil && e.Name != "SQUID_TEMPLATE" && e.Name != "SQUID_DIR" {
				cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
			}
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("squid -k parse: %v\n%s", err, out)
		}
		conf, err := os.ReadFile(filepath.Join(dir, "state", "squid.conf"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"cache_peer outpost ", "forwarded_for on", "never_direct allow all",
			"acl site_nets src " + envValue(t, c, "SQUID_SITE_NETS")} {
			if !strings.Contains(string(conf), want) {
				t.Errorf("the filled squid.conf lacks %q", want)
			}
		}
	})
}

func TestServiceMonitorScrapesTheManagementPort(t *testing.T) {
	objects := rendered(t, valueSets["production"])
	sm := one(t, Find[*monitoringv1.ServiceMonitor](objects), "ServiceMonitor")
	ep := one(t, sm.Spec.Endpoints, "ServiceMonitor endpoint")
	if ep.Path != "/actuator/prometheus" {
		t.Errorf("scrapes %s", ep.Path)
	}
	matched := 0
	for _, svc := range Find[*corev1.Service](objects) {
		if selects(t, &sm.Spec.Selector, svc.Labels) {
			matched++
			if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != ep.Port || svc.Spec.Ports[0].TargetPort.String() != "management" {
				t.Errorf("Service %s: the ServiceMonitor's port %q is not its management port", svc.Name, ep.Port)
			}
		}
	}
	if matched != 1 {
		t.Errorf("the ServiceMonitor selects %d Services, want the management one", matched)
	}
	if len(Find[*monitoringv1.ServiceMonitor](rendered(t, nil))) != 0 {
		t.Error("a ServiceMonitor by default: it needs the Prometheus Operator's CRDs")
	}
}

// Only the Squid reaches the origins' service port, so no other pod in the trusted network sends them an
// X-Forwarded-For; the management port stays open to the probes and Prometheus.
func TestOnlyTheSquidReachesTheOriginsServicePort(t *testing.T) {
	forEachValueSet(t, func(t *testing.T, name string, objects []Object) {
		d, _ := origins(t, objects)
		s, _ := squid(t, objects)
		np := one(t, Find[*networkingv1.NetworkPolicy](objects), "NetworkPolicy")
		if !selects(t, &np.Spec.PodSelector, d.Spec.Template.Labels) {
			t.Fatal("the NetworkPolicy does not apply to the origins")
		}
		http, management := 0, 0
		for _, rule := range np.Spec.Ingress {
			for _, port := range rule.Ports {
				switch port.Port.String() {
				case "http":
					http++
					if len(rule.From) != 1 || rule.From[0].PodSelector == nil || rule.From[0].NamespaceSelector != nil ||
						!selects(t, rule.From[0].PodSelector, s.Spec.Template.Labels) {
						t.Errorf("the service port admits %+v, want the Squid's pods only", rule.From)
					}
				case "management":
					management++
				default:
					t.Errorf("the NetworkPolicy opens port %s", port.Port.String())
				}
			}
		}
		if http != 1 || management != 1 {
			t.Errorf("rules for the service port: %d, the management port: %d; want one each", http, management)
		}
	})
}

// Without the chart's Squid (a site whose Squids run elsewhere): no Squid objects, the origins trust only
// trustedProxies.extra, and their service port stays reachable.
func TestWithoutTheChartsSquid(t *testing.T) {
	objects := rendered(t, nil, "squid.enabled=false", "trustedProxies.extra={192.0.2.10}")
	if n := len(Find[*appsv1.StatefulSet](objects)); n != 0 {
		t.Errorf("%d StatefulSets rendered with squid.enabled=false", n)
	}
	_, c := origins(t, objects)
	if got := envValue(t, c, "OUTPOST_TRUSTED_PROXIES"); got != "192.0.2.10" {
		t.Errorf("outpost.trusted-proxies %q, want the extra proxy alone", got)
	}
	np := one(t, Find[*networkingv1.NetworkPolicy](objects), "NetworkPolicy")
	open := false
	for _, rule := range np.Spec.Ingress {
		for _, port := range rule.Ports {
			open = open || (port.Port.String() == "http" && len(rule.From) == 0)
		}
	}
	if !open {
		t.Error("without the chart's Squid nothing may reach the origins' service port")
	}
}
