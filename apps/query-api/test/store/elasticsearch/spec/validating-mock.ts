import Mock from '@elastic/elasticsearch-mock';
import { httpRequestErrors } from './es-rules';

/**
 * @elastic/elasticsearch-mock (the cluster's stand-in: no Elasticsearch server runs on the build machines) with every
 * request it receives checked against the specification and the rules (es-rules.ts). The mock hands each request to
 * `get` to find its answer; the check runs there, so nothing reaches an answer unchecked. `violations` collects the
 * errors; a spec asserts it empty after each test.
 */
export function validatingMock(): { mock: Mock; violations: string[] } {
  const mock = new Mock();
  const violations: string[] = [];
  const find = mock.get.bind(mock);
  mock.get = (params) => {
    const query = Object.fromEntries(Object.entries(params.querystring ?? {}).map(([k, v]) => [k, String(v)]));
    violations.push(...httpRequestErrors({ method: String(params.method), path: String(params.path), query, body: params.body ?? undefined }));
    return find(params);
  };
  return { mock, violations };
}
