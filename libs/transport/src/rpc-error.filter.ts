import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { throwError } from 'rxjs';
import { ServiceError } from '@adintel/contracts';

/**
 * Every error a handler throws leaves the service as a ServiceErrorPayload.
 * Unexpected ones are logged here with their stack and leave as `internal`, without details.
 */
@Catch()
export class RpcErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('RpcErrorFilter');

  catch(exception: unknown, _host: ArgumentsHost) {
    if (exception instanceof ServiceError) return throwError(() => exception.payload);
    this.logger.error(exception instanceof Error ? exception : new Error(String(exception)));
    return throwError(() => ServiceError.of('internal', 'the service failed unexpectedly').payload);
  }
}
