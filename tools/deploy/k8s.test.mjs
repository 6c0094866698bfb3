import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { APP_PORTS } from '../dev-stack/routes.mjs';
import { byKind, kubectlMissing, named, OVERLAYS, podTemplates, render, validate } from './manifests.mjs';

const APPS = Object.keys(APP_PORTS);
const skip = kubectlMissing() ?? false;
const rendered = skip ? {} : Object.fromEntries(OVERLAYS.map((overlay) => [overlay, render(`k8s/overlays/${overlay}`)]));
const mebibytes = (quantity) => {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity ?? '');
  assert.ok(match, `memory quantity ${quantity} is in Mi or Gi`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
};
const envOf = (container) => Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));

for (const overlay of OVERLAYS) {
  test(`${overlay}: every object matches its Kubernetes schema`, { skip }, async () => {
    const objects = rendered[overlay];
    assert.ok(objects.length > 10);
    for (const object of objects) await validate(object);
  });

  test(`${overlay}: every container is probed, sized, locked down and runs a pinned image`, { skip }, () => {
    const objects = rendered[overlay];
    const workloads = podTemplates(objects);
    assert.deepEqual(APPS.filter((app) => !named(objects, 'Deployment', app)), [], 'a Deployment per app');
    for (const { workload, pod } of workloads) {
      const where = `${workload.kind}/${workload.metadata.name}`;
      assert.equal(pod.securityContext?.runAsNonRoot, true, `${where}: pod runAsNonRoot`);
      assert.equal(pod.securityContext?.seccompProfile?.type, 'RuntimeDefault', `${where}: seccomp`);
      assert.equal(pod.automountServiceAccountToken, false, `${where}: no service account token`);
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        const at = `${where} container ${container.name}`;
        const sc = container.securityContext ?? {};
        assert.equal(sc.runAsNonRoot, true, `${at}: runAsNonRoot`);
        assert.equal(sc.readOnlyRootFilesystem, true, `${at}: readOnlyRootFilesystem`);
        assert.equal(sc.allowPrivilegeEscalation, false, `${at}: allowPrivilegeEscalation`);
        assert.deepEqual(sc.capabilities?.drop, ['ALL'], `${at}: capabilities dropped`);
        assert.match(container.image, /^[\w./-]+:\d+\.\d+\.\d+(-[\w.]+)?$/, `${at}: image ${container.image} has a pinned version tag`);
        assert.ok(container.resources?.requests?.cpu, `${at}: cpu request`);
        const request = mebibytes(container.resources?.requests?.memory);
        const limit = mebibytes(container.resources?.limits?.memory);
        assert.ok(limit >= request, `${at}: memory limit >= request`);
        const heap = /--max-old-space-size=(\d+)/.exec(envOf(container).NODE_OPTIONS ?? '');
        if (container.image.includes('adintel')) {
          assert.ok(heap, `${at}: Node heap limit in NODE_OPTIONS`);
          assert.ok(Number(heap[1]) + 64 <= limit, `${at}: heap ${heap[1]} MB leaves room under the ${limit} Mi limit`);
        }
      }
      if (workload.kind !== 'Deployment') continue;
      const [container] = pod.containers;
      const app = workload.metadata.name;
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) assert.ok(container[probe], `${where}: ${probe}`);
      if (APPS.includes(app)) {
        assert.deepEqual(container.readinessProbe.httpGet, { path: '/readyz', port: 'http' }, `${where}: readiness on /readyz`);
        assert.deepEqual(container.livenessProbe.httpGet, { path: '/healthz', port: 'http' }, `${where}: liveness on /healthz`);
        assert.deepEqual(container.ports, [{ name: 'http', containerPort: APP_PORTS[app] }], `${where}: port`);
        assert.deepEqual(container.args, [`apps/${app}/main.js`], `${where}: runs its app`);
        const env = envOf(container);
        assert.equal(env.PORT, String(APP_PORTS[app]), `${where}: PORT`);
        assert.ok(container.volumeMounts.some((m) => m.mountPath === '/tmp'), `${where}: writable /tmp`);
        assert.ok(mebibytes(container.resources.requests.memory) <= 256, `${where}: requests at most 256 Mi`);
      }
    }
  });

  test(`${overlay}: NetworkPolicies let only the edge reach gateway and auth-server, and only Prometheus the others`, { skip }, () => {
    const objects = rendered[overlay];
    const policies = byKind(objects, 'NetworkPolicy');
    const deny = policies.find((p) => Object.keys(p.spec.podSelector).length === 0);
    assert.deepEqual(deny?.spec.policyTypes, ['Ingress'], 'a default deny of ingress');
    assert.equal(deny.spec.ingress, undefined);
    const podLabels = (app) => named(objects, 'Deployment', app).spec.template.metadata.labels;
    const selects = (policy, labels) =>
      Object.entries(policy.spec.podSelector.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
      (policy.spec.podSelector.matchExpressions ?? []).length === 0;
    const sources = (app) =>
      policies
        .filter((p) => Object.keys(p.spec.podSelector).length > 0 && selects(p, podLabels(app)))
        .flatMap((p) => p.spec.ingress.flatMap((rule) => rule.from.map((from) => JSON.stringify(from))));
    const edge = JSON.stringify({ namespaceSelector: { matchLabels: { 'adintel.io/edge': 'true' } } });
    const prometheus = JSON.stringify({ namespaceSelector: { matchLabels: { 'adintel.io/monitoring': 'true' } } });
    const gatewayPods = JSON.stringify({ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'mcp-gateway' } } });
    assert.deepEqual(sources('mcp-gateway').sort(), [edge, prometheus].sort());
    assert.deepEqual(sources('auth-server').sort(), [edge, gatewayPods, prometheus].sort());
    assert.deepEqual(sources('query-api'), [prometheus]);
    assert.deepEqual(sources('metering'), [prometheus]);
  });

  test(`${overlay}: each app connects to Redis as its own user, its password from a Secret`, { skip }, () => {
    for (const app of APPS) {
      const env = envOf(named(rendered[overlay], 'Deployment', app).spec.template.spec.containers[0]);
      assert.deepEqual(env.REDIS_PASSWORD, { secretKeyRef: { name: 'adintel-redis-users', key: app } }, `${app}: its password`);
      assert.equal(env.REDIS_URL, `$(REDIS_SCHEME)://${app}:$(REDIS_PASSWORD)@$(REDIS_ADDRESS)`, `${app}: its user`);
    }
  });

  test(`${overlay}: the config comes from a ConfigMap and secrets only from referenced Secrets`, { skip }, () => {
    const objects = rendered[overlay];
    assert.deepEqual(byKind(objects, 'Secret'), [], 'no Secret is committed');
    const config = byKind(objects, 'ConfigMap').find((c) => c.metadata.name.startsWith('adintel-config'));
    assert.equal(config.data.HOST, '0.0.0.0');
    assert.equal(config.data.NODE_ENV, 'production');
    assert.ok(config.data.TRUSTED_PROXIES);
    for (const app of APPS) {
      const container = named(objects, 'Deployment', app).spec.template.spec.containers[0];
      assert.deepEqual(container.envFrom, [{ configMapRef: { name: config.metadata.name } }], `${app} reads the ConfigMap`);
    }
  });

  test(`${overlay}: the grace period covers the preStop sleep and the app's own shutdown deadline`, { skip }, () => {
    const objects = rendered[overlay];
    const config = byKind(objects, 'ConfigMap').find((c) => c.metadata.name.startsWith('adintel-config'));
    for (const app of APPS) {
      const pod = named(objects, 'Deployment', app).spec.template.spec;
      const container = pod.containers[0];
      const shutdownSeconds = Number(envOf(container).SHUTDOWN_TIMEOUT_MS ?? config.data.SHUTDOWN_TIMEOUT_MS ?? 10_000) / 1000;
      const preStopSeconds = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
      assert.ok(preStopSeconds > 0, `${app}: a preStop sleep lets endpoints be removed before SIGTERM`);
      assert.ok(
        pod.terminationGracePeriodSeconds > preStopSeconds + shutdownSeconds,
        `${app}: terminationGracePeriodSeconds ${pod.terminationGracePeriodSeconds} > preStop ${preStopSeconds} s + SHUTDOWN_TIMEOUT_MS ${shutdownSeconds} s`,
      );
    }
  });
}

test('local: one replica each, SQLite on a volume seeded on first start, Redis in the cluster with AOF and noeviction', { skip }, () => {
  const objects = rendered.local;
  for (const app of APPS) assert.equal(named(objects, 'Deployment', app).spec.replicas, 1, app);
  const config = byKind(objects, 'ConfigMap')[0].data;
  assert.equal(config.STORE_ENGINE, 'sqlite');
  const query = named(objects, 'Deployment', 'query-api').spec.template.spec;
  assert.equal(query.volumes.find((v) => v.name === 'data').persistentVolumeClaim.claimName, 'query-data');
  assert.deepEqual(query.initContainers[0].args.slice(0, 2), ['apps/query-api/cli.js', 'seed']);
  const redis = named(objects, 'Deployment', 'redis').spec.template.spec.containers[0];
  assert.match(redis.command.at(-1), /^exec redis-server --appendonly yes --maxmemory-policy noeviction /);
  assert.equal(byKind(objects, 'HorizontalPodAutoscaler').length, 0);
});

test('production: replicas, HPA, PDBs, spread, Elasticsearch, Secrets, bootstrap Job, ServiceMonitor', { skip }, () => {
  const objects = rendered.production;
  for (const app of APPS) {
    const deployment = named(objects, 'Deployment', app);
    assert.ok(deployment.spec.replicas >= 2, `${app}: two replicas or more`);
    const pdb = named(objects, 'PodDisruptionBudget', app);
    assert.equal(pdb?.spec.minAvailable, 1, `${app}: PDB`);
    assert.deepEqual(pdb.spec.selector.matchLabels, deployment.spec.selector.matchLabels, `${app}: PDB selects its pods`);
    const spread = deployment.spec.template.spec.topologySpreadConstraints ?? [];
    assert.deepEqual(spread.map((c) => c.topologyKey).sort(), ['kubernetes.io/hostname', 'topology.kubernetes.io/zone'], `${app}: spread`);
    const env = envOf(deployment.spec.template.spec.containers[0]);
    assert.equal(env.TRANSPORT_URL, undefined, `${app}: the transport rides on REDIS_URL`);
  }
  assert.equal(byKind(objects, 'ConfigMap')[0].data.REDIS_SCHEME, 'rediss', 'TLS to Redis');
  // The picture workers' HPA has a test of its own (below).
  const hpas = byKind(objects, 'HorizontalPodAutoscaler').filter((h) => h.spec.scaleTargetRef.name !== 'picture-worker');
  assert.deepEqual(hpas.map((h) => h.spec.scaleTargetRef.name).sort(), ['mcp-gateway', 'query-api']);
  for (const hpa of hpas) {
    assert.ok(hpa.spec.minReplicas >= 2 && hpa.spec.maxReplicas > hpa.spec.minReplicas);
    assert.equal(named(objects, 'Deployment', hpa.spec.scaleTargetRef.name).spec.template.spec.containers[0].resources.requests.cpu !== undefined, true);
  }
  assert.equal(byKind(objects, 'ConfigMap')[0].data.STORE_ENGINE, 'elasticsearch');
  const query = envOf(named(objects, 'Deployment', 'query-api').spec.template.spec.containers[0]);
  assert.deepEqual(query.ES_URL, { secretKeyRef: { name: 'adintel-backends', key: 'es-url' } });
  assert.deepEqual(query.CURSOR_SECRET, { secretKeyRef: { name: 'adintel-query', key: 'cursor-secret' } });
  const auth = named(objects, 'Deployment', 'auth-server').spec.template.spec;
  const authEnv = envOf(auth.containers[0]);
  assert.deepEqual(authEnv.AUTH_COOKIE_KEYS, { secretKeyRef: { name: 'adintel-auth-keys', key: 'cookie-keys' } });
  const keys = auth.volumes.find((v) => v.secret?.secretName === 'adintel-auth-keys');
  const mount = auth.containers[0].volumeMounts.find((m) => m.name === keys.name);
  assert.equal(`${mount.mountPath}/${keys.secret.items[0].path}`, authEnv.AUTH_JWKS_FILE);
  const job = named(objects, 'Job', 'es-bootstrap');
  assert.deepEqual(job.spec.template.spec.containers[0].args.slice(0, 2), ['apps/query-api/cli.js', 'seed']);
  const monitor = named(objects, 'ServiceMonitor', 'adintel');
  assert.deepEqual(monitor.spec.endpoints.map((e) => [e.port, e.path]), [['http', '/metrics']]);
  for (const app of APPS) {
    const service = named(objects, 'Service', app);
    assert.ok(Object.entries(monitor.spec.selector.matchLabels).every(([k, v]) => service.metadata.labels[k] === v), `${app} is scraped`);
  }
});

test('local: the in-cluster Redis creates the users of docker/redis-users.json and turns the default user off', { skip }, () => {
  const table = JSON.parse(readFileSync(new URL('../../docker/redis-users.json', import.meta.url), 'utf8'));
  const script = named(rendered.local, 'Deployment', 'redis').spec.template.spec.containers[0].command.at(-1);
  assert.match(script, /--user default off/);
  const rulesOf = (user) => {
    const segment = script.split('--user ').find((part) => part.startsWith(`${user} `)) ?? '';
    return segment.trim().split(/\s+/).slice(1).filter((rule) => !rule.startsWith('">')).map((rule) => rule.replace(/^"|"$/g, ''));
  };
  for (const app of APPS) assert.deepEqual(rulesOf(app), ['on', ...table.users[app], ...table.shared, ...table.commands], `${app}'s ACL rules`);
  assert.deepEqual(rulesOf('producer'), ['on', ...table.producer], "the producer's ACL rules");
});

test('both overlays: picture workers of their own, on the media query-api uses, autoscaled in production', { skip }, () => {
  for (const overlay of OVERLAYS) {
    const worker = named(rendered[overlay], 'Deployment', 'picture-worker');
    assert.ok(worker, `${overlay}: a picture-worker Deployment`);
    const container = worker.spec.template.spec.containers[0];
    assert.deepEqual(container.args, ['apps/query-api/cli.js', 'media-worker'], `${overlay}: runs the media worker`);
    assert.equal(container.readinessProbe.httpGet.path, '/readyz', `${overlay}: probed`);
    assert.match(envOf(container).REDIS_URL, /:\/\/query-api:/, `${overlay}: the queue under ingest:* is query-api's Redis user's`);
    assert.equal(worker.spec.template.metadata.labels['adintel.io/public'], 'false', `${overlay}: not reachable from the edge`);
  }
  const volume = (overlay, app) => named(rendered[overlay], 'Deployment', app).spec.template.spec.volumes.find((v) => v.name === 'data');
  assert.deepEqual(volume('local', 'picture-worker').persistentVolumeClaim, volume('local', 'query-api').persistentVolumeClaim, 'local: the same media files');
  const production = rendered.production;
  assert.ok(envOf(named(production, 'Deployment', 'picture-worker').spec.template.spec.containers[0]).AWS_ACCESS_KEY_ID, 'production: the bucket credentials');
  const hpa = byKind(production, 'HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === 'picture-worker');
  assert.ok(hpa && hpa.spec.maxReplicas > hpa.spec.minReplicas, 'production: an HPA of its own');
});

test('both overlays: the gateway serves media from the media store itself, read only (never over Redis)', { skip }, () => {
  const gatewayOf = (overlay) => named(rendered[overlay], 'Deployment', 'mcp-gateway').spec.template.spec;
  const configOf = (overlay) => byKind(rendered[overlay], 'ConfigMap').find((c) => c.metadata.name.startsWith('adintel-config')).data;
  // local: query-api's claim, only its media folder, read only, where MEDIA_DIR points
  const local = gatewayOf('local');
  const container = local.containers[0];
  const mount = container.volumeMounts.find((m) => m.mountPath === envOf(container).MEDIA_DIR);
  assert.ok(mount, 'local: MEDIA_DIR is a mounted folder');
  assert.deepEqual([mount.subPath, mount.readOnly], ['media', true], 'local: the media folder only, read only');
  const volume = local.volumes.find((v) => v.name === mount.name);
  const queryApi = named(rendered.local, 'Deployment', 'query-api').spec.template.spec;
  const queryMount = queryApi.containers[0].volumeMounts.find((m) => m.name === 'data');
  assert.equal(volume.persistentVolumeClaim.claimName, queryApi.volumes.find((v) => v.name === 'data').persistentVolumeClaim.claimName, 'local: query-api’s claim');
  assert.equal(`${envOf(queryApi.containers[0]).DATA_DIR}/media`, `${queryMount.mountPath}/media`, 'local: query-api writes DATA_DIR/media on that claim');
  assert.notEqual(configOf('local').MEDIA_ENGINE, 's3', 'local: the filesystem engine');
  // production: the bucket of the ConfigMap, with read credentials of the gateway's own
  assert.equal(configOf('production').MEDIA_ENGINE, 's3', 'production: S3');
  const env = envOf(gatewayOf('production').containers[0]);
  assert.equal(env.AWS_ACCESS_KEY_ID?.secretKeyRef?.name, 'adintel-media-read', 'production: a read-only key of its own');
  assert.equal(env.AWS_SECRET_ACCESS_KEY?.secretKeyRef?.name, 'adintel-media-read', 'production: a read-only key of its own');
});
