import Mock from '@elastic/elasticsearch-mock';
import { httpRequestErrors } from './es-rules';
import { specification } from './es-spec';

type Json = Record<string, unknown>;

/**
 * @elastic/elasticsearch-mock (the cluster's stand-in: no Elasticsearch server runs on the build machines) with every
 * request it receives checked against the specification and the rules (es-rules.ts), and every answer a test scripts
 * checked against the endpoint's response type (a search answer against the aggregate types its request implies), so
 * the adapter is only ever shown what a cluster may send. The mock hands each request to `get` to find its answer;
 * the checks run there, so nothing reaches an answer unchecked. `violations` collects the errors; a spec asserts it
 * empty after each test.
 */
export function validatingMock(): { mock: Mock; violations: string[] } {
  const mock = new Mock();
  const spec = specification();
  const violations: string[] = [];
  const find = mock.get.bind(mock);
  mock.get = (params) => {
    const query = Object.fromEntries(Object.entries(params.querystring ?? {}).map(([k, v]) => [k, String(v)]));
    const method = String(params.method);
    const path = String(params.path);
    violations.push(...httpRequestErrors({ method, path, query, body: params.body ?? undefined }));
    const handler = find(params);
    if (!handler) return handler;
    const endpoint = spec.route(method, path)?.endpoint.name;
    return (request) => {
      const answer = handler(request);
      if (endpoint && !(answer instanceof Error) && typeof answer === 'object' && answer !== null && method !== 'HEAD') {
        const problems =
          endpoint === 'search' ? spec.validateSearchResponse((params.body ?? {}) as Json, answer as Json) : spec.validateResponse(endpoint, answer);
        violations.push(...problems.map((p) => `scripted answer to ${method} ${path}: ${p}`));
      }
      return answer;
    };
  };
  return { mock, violations };
}
