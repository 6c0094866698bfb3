import type { BodyFailure } from '@adintel/observability';
import type { ProblemSpec } from './problem';

/** The problem a body failure is answered with. */
export function bodyFailureProblem(failure: BodyFailure): ProblemSpec {
  switch (failure.kind) {
    case 'unparsable':
      return { status: 400, code: 'invalid_body', detail: 'the request body is not valid JSON' };
    case 'too_large':
      return {
        status: 413,
        code: 'payload_too_large',
        detail: `the request body is larger than the ${failure.limit ?? 'allowed'} bytes accepted`,
      };
    case 'unsupported_encoding':
      return { status: 415, code: 'unsupported_media_type', detail: 'the request body must be UTF-8 JSON, without a content encoding' };
    case 'unreadable':
      return { status: 400, code: 'invalid_body', detail: 'the request body could not be read' };
  }
}
