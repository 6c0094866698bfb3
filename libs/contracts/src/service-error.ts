import {
  describeFieldErrors,
  ERROR_STATUS,
  ServiceErrorPayload,
  type BalanceShortfall,
  type ErrorCode,
  type FieldError,
} from './errors';

/** An error a service answers with; it crosses the transport as a typed payload. */
export class ServiceError extends Error {
  constructor(readonly payload: ServiceErrorPayload) {
    super(payload.message);
    this.name = 'ServiceError';
  }

  get code(): ErrorCode {
    return this.payload.code;
  }

  get status(): number {
    return ERROR_STATUS[this.payload.code];
  }

  static of(code: ErrorCode, message: string, extra: Partial<ServiceErrorPayload> = {}) {
    return new ServiceError({ ...extra, code, message });
  }

  static invalidArgument(errors: FieldError[], message = describeFieldErrors(errors)) {
    return new ServiceError({ code: 'invalid_argument', message, errors });
  }

  static notFound(what: string, id: string) {
    return new ServiceError({ code: 'not_found', message: `no ${what} with id ${JSON.stringify(id)}` });
  }

  static insufficientBalance(balance: BalanceShortfall) {
    return new ServiceError({
      code: 'insufficient_balance',
      message: `this call needs ${balance.needed} tokens but ${balance.remaining} remain`,
      balance,
    });
  }

  /** Accepts whatever came back over the wire; anything unrecognised becomes `internal`. */
  static fromWire(value: unknown): ServiceError {
    if (value instanceof ServiceError) return value;
    const parsed = ServiceErrorPayload.safeParse(value);
    if (parsed.success) return new ServiceError(parsed.data);
    return new ServiceError({ code: 'internal', message: 'the service failed unexpectedly' });
  }
}
