import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { WORKSPACE_ROOT } from '@adintel/testing';
import type { AppName } from '../test/stack';

/** NODE_OPTIONS of an app's container in its Kubernetes Deployment (k8s/base), so the bench runs what is deployed. */
export function deployNodeOptions(app: AppName): string {
  const file = join(WORKSPACE_ROOT, 'k8s', 'base', `${app}.yaml`);
  const deployment = parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => doc.toJS() as { kind?: string; spec?: { template?: { spec?: { containers?: { env?: { name: string; value?: string }[] }[] } } } })
    .find((doc) => doc.kind === 'Deployment');
  const value = deployment?.spec?.template?.spec?.containers?.[0]?.env?.find((e) => e.name === 'NODE_OPTIONS')?.value;
  if (value === undefined) throw new Error(`${file}: no NODE_OPTIONS in the Deployment's container`);
  return value;
}

/**
 * QUERY_WORKERS of the Kubernetes overlay that deploys the SQLite engine (k8s/overlays/local), so the bench's
 * query-api runs as a deployed SQLite replica does (production runs Elasticsearch, where the setting is unused).
 */
export function deployQueryWorkers(): number {
  const file = join(WORKSPACE_ROOT, 'k8s', 'overlays', 'local', 'kustomization.yaml');
  const kustomization = parseAllDocuments(readFileSync(file, 'utf8'))[0]?.toJS() as { configMapGenerator?: { literals?: string[] }[] };
  const literal = kustomization.configMapGenerator?.flatMap((generator) => generator.literals ?? []).find((l) => l.startsWith('QUERY_WORKERS='));
  if (literal === undefined) throw new Error(`${file}: no QUERY_WORKERS literal in its configMapGenerator`);
  return Number(literal.slice('QUERY_WORKERS='.length));
}
