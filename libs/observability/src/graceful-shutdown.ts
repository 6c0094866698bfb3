import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from './logger';

/** Something that takes work besides HTTP (a transport server): `stop()` reads nothing more and settles when its work in flight is done. */
export interface WorkSource {
  readonly name: string;
  stop(): Promise<void>;
}

/** Paths a draining app still answers (with `Connection: close`): the probes and the metrics scrape. */
const ANSWERED_WHILE_DRAINING = new Set(['/healthz', '/readyz', '/metrics']);

/** A process shuts down once: `/readyz` reads this to answer 503 from the first moment of the drain. */
let processDraining = false;
export const isShuttingDown = (): boolean => processDraining;

/**
 * The one shutdown sequence of every app, on SIGTERM/SIGINT:
 * 1. readiness turns false (`/readyz` 503) and every new HTTP request is answered 503 with `Connection: close`;
 * 2. the listener stops accepting connections, idle keep-alive connections close, and the responses in flight
 *    carry `Connection: close`; the work sources (the transport server) stop reading and hand back what they
 *    read but did not start;
 * 3. once every HTTP request and message in flight has been answered, Nest closes the modules: the Redis
 *    connections and the store last, after nothing uses them any more;
 * all within `timeoutMs` (SHUTDOWN_TIMEOUT_MS); past it the process exits 1 with what was still in flight.
 * Nest's own `enableShutdownHooks` is not used: it runs the modules' destroy hooks (closing Redis) before it
 * stops the HTTP server and the transport, so the work in flight lost its connections.
 */
export class GracefulShutdown {
  private draining = false;
  private readonly inFlight = new Set<Response>();
  private readonly sources: WorkSource[] = [];

  constructor(
    private readonly logger: Logger,
    private readonly timeoutMs: number,
  ) {}

  /** Express middleware, mounted first: counts the requests in flight and turns new ones away while draining. */
  readonly middleware = (req: Request, res: Response, next: NextFunction): void => {
    if (this.draining) {
      res.setHeader('Connection', 'close');
      if (!ANSWERED_WHILE_DRAINING.has(req.path)) {
        res.setHeader('Retry-After', '1');
        res.status(503).type('application/problem+json').send(JSON.stringify(SHUTTING_DOWN));
        return;
      }
    }
    this.inFlight.add(res);
    res.once('close', () => this.inFlight.delete(res));
    next();
  };

  /** A source of work to stop, in step 2 (e.g. the transport server from `serveTransport`). */
  drains(source: WorkSource): void {
    this.sources.push(source);
  }

  /** Runs the sequence on the first SIGTERM or SIGINT, then exits. */
  armSignals(app: INestApplication): void {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        void this.shutdown(app, signal).then(
          () => process.exit(0),
          (error: Error) => {
            this.logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        );
      });
    }
  }

  /** The sequence itself (exported for tests that run an app in-process). */
  async shutdown(app: INestApplication, reason: string): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    processDraining = true;
    const started = performance.now();
    this.logger.info({ reason, timeout_ms: this.timeoutMs, http_in_flight: this.inFlight.size }, 'shutting down: draining');
    const deadline = setTimeout(() => {
      this.logger.error({ timeout_ms: this.timeoutMs, http_in_flight: this.inFlight.size }, 'shutdown took too long; exiting');
      process.exit(1);
    }, this.timeoutMs);
    deadline.unref();
    try {
      const server = app.getHttpServer() as Server;
      for (const res of this.inFlight) {
        if (!res.headersSent) res.setHeader('Connection', 'close');
        // A response that began before the drain keeps its connection alive: close it once idle, not after keepAliveTimeout.
        else res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
      }
      await Promise.all([this.closeListener(server), ...this.sources.map((source) => this.stopSource(source))]);
      this.logger.info({ duration_ms: Math.round(performance.now() - started) }, 'shutting down: work in flight done, closing connections');
      await app.close();
      this.logger.info({ duration_ms: Math.round(performance.now() - started) }, 'shut down');
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Stops accepting connections and settles once every connection has ended (requests in flight answered). */
  private closeListener(server: Server): Promise<void> {
    if (!server.listening) return Promise.resolve();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    return closed;
  }

  private async stopSource(source: WorkSource): Promise<void> {
    await source.stop();
    this.logger.info({ source: source.name }, 'shutting down: stopped taking work');
  }
}

const SHUTTING_DOWN = {
  type: 'about:blank',
  title: 'Service Unavailable',
  status: 503,
  detail: 'this replica is shutting down; retry',
};
