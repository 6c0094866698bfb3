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
