import { Inject, Injectable } from '@nestjs/common';
import { InjectRedis, type Redis } from '@adintel/redis';
import { APP_CONFIG } from '@adintel/config';
import type { AppConfig } from '../../config';
import { networkOf } from './client-network';
import { countHit } from './fixed-window';

const MINUTE = 60;

/**
 * Requests naming a client by a metadata document URL (client ID metadata documents), per client network per
 * minute: each may make the server fetch that URL, and anyone can send them without credentials. Counted whether
 * or not the document is cached, so the limit does not tell an attacker what is.
 */
@Injectable()
export class MetadataFetchLimiter {
  constructor(
    @InjectRedis() private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async admit(ip: string): Promise<{ allowed: true } | { allowed: false; limit: string; retryAfterSeconds: number }> {
    const { count, secondsLeft } = await countHit(this.redis, `ratelimit:metadata-documents:${networkOf(ip)}`, MINUTE);
    if (count <= this.config.METADATA_DOCUMENT_REQUESTS_PER_MINUTE) return { allowed: true };
    return { allowed: false, limit: 'metadata_documents_per_network', retryAfterSeconds: secondsLeft };
  }
}

/** The client id of a request that names it by URL (query or parsed form), or undefined. */
export function metadataDocumentClientId(query: unknown, body: unknown): string | undefined {
  const fromQuery = (query as Record<string, unknown> | undefined)?.['client_id'];
  const fromBody = (body as Record<string, unknown> | undefined)?.['client_id'];
  const clientId = typeof fromQuery === 'string' ? fromQuery : typeof fromBody === 'string' ? fromBody : undefined;
  return clientId?.startsWith('https://') ? clientId : undefined;
}
