import { describeFieldErrors, ERROR_STATUS, type FieldError, type Problem, type ServiceError } from '@adintel/contracts';
import { describeCost, maxAffordableLimit, REST_DOCS_PATH, type ToolDefinition } from '@adintel/tool-catalogue';

/** Everything the edge needs to answer a failure: the problem document and the headers that go with it. */
export interface ProblemSpec {
  readonly status: number;
  /** Stable machine-readable kind; also the fragment of the problem `type` URI. */
  readonly code: string;
  readonly detail: string;
  readonly errors?: readonly FieldError[];
  readonly extra?: Readonly<Record<string, string | number | boolean>>;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Thrown by the edge itself (auth, origin, routing); rendered by the ProblemFilter. */
export class ProblemException extends Error {
  constructor(readonly spec: ProblemSpec) {
    super(spec.detail);
    this.name = 'ProblemException';
  }
}

const TITLES: Record<string, string> = {
  invalid_argument: 'Invalid arguments',
  invalid_body: 'Unreadable request body',
  unauthenticated: 'Authentication required',
  invalid_token: 'Invalid access token',
  insufficient_scope: 'Insufficient scope',
  insufficient_balance: 'Not enough tokens',
  forbidden: 'Forbidden',
  origin_not_allowed: 'Origin not allowed',
  not_found: 'Not found',
  range_not_satisfiable: 'Range not satisfiable',
  method_not_allowed: 'Method not allowed',
  not_acceptable: 'Not acceptable',
  conflict: 'Conflict',
  gone: 'Gone',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  internal: 'Internal error',
  unavailable: 'Service unavailable',
  timeout: 'Upstream timeout',
};

/** HTTP conditions only the edge answers (routing, content negotiation, body limits); never a service's code. */
const EDGE_ONLY_STATUS = { method_not_allowed: 405, not_acceptable: 406, payload_too_large: 413, unsupported_media_type: 415 };

/** The code an HTTP exception's status stands for: the inverse of ERROR_STATUS and the edge-only statuses. */
const CODE_BY_STATUS = new Map<number, string>(
  Object.entries({ ...ERROR_STATUS, ...EDGE_ONLY_STATUS }).map(([code, status]) => [status, code]),
);

export const codeForStatus = (status: number) => CODE_BY_STATUS.get(status) ?? (status >= 500 ? 'internal' : 'invalid_argument');

/** Arguments that failed validation, on either surface: a 400 naming every bad field. */
export const invalidArguments = (errors: readonly FieldError[]): ProblemSpec => ({
  status: 400,
  code: 'invalid_argument',
  detail: describeFieldErrors(errors),
  errors,
});

const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * A service's typed error as the edge answers it. `tool` makes a balance problem actionable:
 * it says which `limit` is still affordable.
 */
export function problemFromServiceError(error: ServiceError, tool?: ToolDefinition): ProblemSpec {
  const { payload } = error;
  const status = ERROR_STATUS[payload.code];
  if (payload.code === 'insufficient_balance' && payload.balance) {
    const { needed, remaining } = payload.balance;
    const maxLimit = tool ? maxAffordableLimit(tool, remaining) : payload.balance.max_affordable_limit;
    return {
      status,
      code: payload.code,
      detail: balanceAdvice(tool, needed, remaining, maxLimit),
      extra: { needed, remaining, max_affordable_limit: maxLimit },
    };
  }
  const retryAfter =
    payload.retry_after_seconds ??
    (payload.code === 'unavailable' || payload.code === 'rate_limited' ? DEFAULT_RETRY_AFTER_SECONDS : undefined);
  return {
    status,
    code: payload.code,
    // An unexpected failure upstream is ours, not the caller's: say so without leaking internals.
    detail: payload.code === 'internal' ? 'the request failed on our side; it was not charged' : payload.message,
    ...(payload.errors?.length ? { errors: payload.errors } : {}),
    ...(retryAfter !== undefined
      ? { extra: { retry_after: retryAfter }, headers: { 'Retry-After': String(retryAfter) } }
      : {}),
  };
}

function balanceAdvice(tool: ToolDefinition | undefined, needed: number, remaining: number, maxLimit: number): string {
  const head = `this call needs ${needed} tokens but ${remaining} remain`;
  const upgrade = 'ask your owner to attach this agent to a plan (get_usage shows your pool)';
  if (tool?.cost.kind === 'per_row') {
    const retry = maxLimit > 0 ? `retry with limit=${maxLimit} or less` : 'no page is affordable';
    return `${head} (${tool.name} costs ${describeCost(tool.cost)}; the full limit is held until the call settles): ${retry}, or ${upgrade}`;
  }
  return `${head}: ${upgrade}`;
}

interface ProblemContext {
  readonly baseUrl: string;
  readonly instance?: string;
  readonly requestId?: string;
}

/** The RFC 9457 document for a problem. */
export function renderProblem(spec: ProblemSpec, context: ProblemContext): Problem {
  return {
    type: problemTypeUri(context.baseUrl, spec.code),
    title: TITLES[spec.code] ?? 'Error',
    status: spec.status,
    detail: spec.detail,
    code: spec.code,
    ...(context.instance ? { instance: context.instance } : {}),
    ...(context.requestId ? { request_id: context.requestId } : {}),
    ...(spec.errors?.length ? { errors: [...spec.errors] } : {}),
    ...spec.extra,
  };
}

export const problemTypeUri = (baseUrl: string, code: string) => `${baseUrl}${REST_DOCS_PATH}#problem-${code}`;

export const PROBLEM_CODES = Object.keys(TITLES);
export const problemTitle = (code: string) => TITLES[code] ?? 'Error';
