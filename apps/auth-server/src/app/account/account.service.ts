import { Injectable, Logger } from '@nestjs/common';
import type { DailyUsage, OwnerAccount } from '@adintel/contracts';
import { ServiceError } from '@adintel/contracts';
import { MeteringGateway } from '../metering/metering.gateway';
import { AppMetrics } from '@adintel/observability';
import { ClientLifetime } from '../oidc/client-lifetime';
import { TokenFailureLimiter } from '../oidc/token-failure-limiter';
import { OwnersService } from '../owners/owners.service';
import type { OwnerRecord } from '../owners/owners.repository';
import { AccountSessionRepository } from './account-session.repository';
import { AgentCredentialsVerifier } from './agent-credentials.verifier';
import { ApprovedClients, type ApprovedClient } from './approved-clients';
import { dateRange } from './usage-chart';

const USAGE_DAYS = 30;

export interface AccountOverview {
  readonly owner: OwnerRecord;
  readonly account: OwnerAccount;
  readonly usage: { readonly days: string[]; readonly rows: DailyUsage[] };
  /** OAuth clients (chat apps, MCP clients) the owner approved in the code flow. */
  readonly approved: ApprovedClient[];
}

export class AccountActionError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** The owner's account page: sign-in, attached agents, attach and detach, usage per agent and day. */
@Injectable()
export class AccountService {
  private readonly logger = new Logger(AccountService.name);

  constructor(
    private readonly owners: OwnersService,
    private readonly sessions: AccountSessionRepository,
    private readonly agents: AgentCredentialsVerifier,
    private readonly metering: MeteringGateway,
    private readonly clients: ClientLifetime,
    private readonly secretFailures: TokenFailureLimiter,
    private readonly metrics: AppMetrics,
    private readonly approvedClients: ApprovedClients,
  ) {}

  async signIn(email: string, password: string, ip: string): Promise<string | undefined> {
    const owner = await this.owners.authenticate(email, password, ip);
    return owner ? this.sessions.create(owner.owner_id) : undefined;
  }

  signOut(sessionId: string): Promise<void> {
    return this.sessions.destroy(sessionId);
  }

  async ownerFor(sessionId: string | undefined): Promise<OwnerRecord | undefined> {
    const ownerId = await this.sessions.ownerOf(sessionId);
    return ownerId ? this.owners.findById(ownerId) : undefined;
  }

  async overview(owner: OwnerRecord, today = new Date()): Promise<AccountOverview> {
    const to = today.toISOString().slice(0, 10);
    const from = new Date(today.getTime() - (USAGE_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
    const account = await this.accountOf(owner);
    const [{ data }, approved] = await Promise.all([this.metering.dailyUsage(owner.owner_id, from, to), this.approvedClients.list(owner.owner_id)]);
    return { owner, account, usage: { days: dateRange(from, to), rows: data }, approved };
  }

  async revokeClient(owner: OwnerRecord, grantId: string): Promise<void> {
    if (!(await this.approvedClients.revoke(owner.owner_id, grantId))) throw new AccountActionError('That approval is not yours, or was already revoked.', 404);
  }

  async attach(owner: OwnerRecord, clientId: string, clientSecret: string, ip: string): Promise<OwnerAccount> {
    const id = clientId.trim();
    // A client secret is checked here as at the token endpoint: wrong ones count against the same limits.
    const limit = await this.secretFailures.check(id, ip);
    if (!limit.allowed) {
      this.metrics.recordLimitRefusal(limit.limit);
      throw new AccountActionError(`Too many wrong client secrets from your address; try again in ${limit.retryAfterSeconds} s.`, 429);
    }
    const agent = await this.agents.verify(id, clientSecret.trim());
    if (!agent) {
      await this.secretFailures.failed(id, ip);
      throw new AccountActionError('That client id and client secret do not match a registered agent.', 400);
    }
    await this.accountOf(owner); // metering must know the owner before an agent joins its plan
    try {
      const account = await this.metering.attachAgent({ agent_id: agent.agentId, owner_id: owner.owner_id, client_name: agent.clientName });
      await this.clients.keep(agent.agentId);
      this.logger.log(`agent ${agent.agentId} attached to ${owner.owner_id}`);
      return account;
    } catch (error) {
      throw asActionError(error);
    }
  }

  async detach(owner: OwnerRecord, agentId: string): Promise<OwnerAccount> {
    try {
      const account = await this.metering.detachAgent({ agent_id: agentId, owner_id: owner.owner_id });
      await this.clients.release(agentId);
      this.logger.log(`agent ${agentId} detached from ${owner.owner_id}`);
      return account;
    } catch (error) {
      throw asActionError(error);
    }
  }

  /** The owner as metering sees it; an owner metering never heard of (created while it was down) is added now. */
  private async accountOf(owner: OwnerRecord): Promise<OwnerAccount> {
    try {
      return await this.metering.getOwner(owner.owner_id);
    } catch (error) {
      if (error instanceof ServiceError && error.code === 'not_found') return this.metering.upsertOwner(owner.owner_id, owner.plan);
      throw error;
    }
  }
}

function asActionError(error: unknown): AccountActionError {
  if (error instanceof ServiceError && error.status < 500) return new AccountActionError(error.message, error.status);
  if (error instanceof AccountActionError) return error;
  if (error instanceof ServiceError) return new AccountActionError('Usage accounting is unavailable right now; try again in a moment.', error.status);
  throw error;
}
