// Renders the kustomize overlays offline and validates every object against the Kubernetes schemas
// (kubernetes-models; CRD models for Gateway API and Prometheus Operator). No cluster is needed.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
export const OVERLAYS = ['local', 'production'];

/** Why kubectl cannot render here, or null when it can. */
export function kubectlMissing() {
  const probe = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return 'kubectl is not installed: the kustomize overlays were not rendered (install kubectl >= 1.27 to run these checks)';
  return null;
}

/** `kubectl kustomize <dir>` as parsed objects. */
export function render(dir) {
  const result = spawnSync('kubectl', ['kustomize', join(ROOT, dir)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout).map((doc) => doc.toJS()).filter(Boolean);
}

/** The module holding the model of an apiVersion. */
function modelModule(apiVersion) {
  if (apiVersion.startsWith('gateway.networking.k8s.io/')) return `@kubernetes-models/gateway-api/${apiVersion}`;
  if (apiVersion.startsWith('monitoring.coreos.com/')) return `@kubernetes-models/prometheus-operator/${apiVersion}`;
  return `kubernetes-models/${apiVersion}`;
}

/** Throws with the object's kind/name when it does not match its schema, or when no model knows its kind. */
export async function validate(object) {
  const id = `${object.kind}/${object.metadata?.name}`;
  let Model;
  try {
    Model = (await import(modelModule(object.apiVersion)))[object.kind];
  } catch {
    Model = undefined;
  }
  if (typeof Model !== 'function') throw new Error(`${id}: no schema for ${object.apiVersion} ${object.kind}`);
  try {
    new Model(object).validate();
  } catch (error) {
    throw new Error(`${id}: ${error.message}`, { cause: error });
  }
}

/** Pod templates of workloads (Deployment, Job), with the workload. */
export function podTemplates(objects) {
  return objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job').map((workload) => ({ workload, pod: workload.spec.template.spec }));
}

export const byKind = (objects, kind) => objects.filter((o) => o.kind === kind);
export const named = (objects, kind, name) => objects.find((o) => o.kind === kind && o.metadata.name === name);
