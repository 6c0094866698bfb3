import { createHash, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type Provider from 'oidc-provider';
import { clientSecretDigest } from '../oidc/client-secret-hash';
import { InjectOidcProvider } from '../oidc/oidc.module';

interface VerifiedAgent {
  readonly agentId: string;
  readonly clientName: string | null;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Proof of control of an agent: its client id and client secret, checked against the provider's client store. */
@Injectable()
export class AgentCredentialsVerifier {
  constructor(@InjectOidcProvider() private readonly provider: Provider) {}

  async verify(clientId: string, clientSecret: string): Promise<VerifiedAgent | undefined> {
    if (!clientId || !clientSecret || clientId.length > 128 || clientSecret.length > 512) return undefined;
    const client = await this.provider.Client.find(clientId).catch(() => undefined);
    // Compare digests: constant time whatever the lengths, and the same work when the client is unknown.
    const expected = digest(client?.clientSecret ?? `unknown:${clientId}`);
    const matches = timingSafeEqual(expected, digest(clientSecretDigest(clientSecret)));
    if (!client?.clientSecret || !matches) return undefined;
    return { agentId: client.clientId, clientName: client.clientName ?? null };
  }
}
