import { Injectable, Logger } from '@nestjs/common';
import { MeteringMessages, type OwnerAccount, type RequestOf, type TrialLifetime } from '@adintel/contracts';
import { InjectServiceClient, type ServiceClient } from '@adintel/transport';

/** What this service tells metering, and asks it, over the transport. */
@Injectable()
export class MeteringGateway {
  private readonly logger = new Logger(MeteringGateway.name);

  constructor(@InjectServiceClient('metering') private readonly metering: ServiceClient) {}

  /**
   * A new agent starts its trial: an event, kept in the event stream until metering has processed it, so
   * registration never waits for metering nor fails because it is down (it catches up when it is back).
   * Only a broker outage loses it, and then metering still creates the trial lazily on the agent's first call.
   */
  async agentRegistered(agentId: string, clientName: string | null): Promise<void> {
    try {
      await this.metering.emit(MeteringMessages.agentRegistered, { agent_id: agentId, client_name: clientName });
    } catch (error) {
      this.logger.warn(`metering did not record the new agent ${agentId}: ${(error as Error).message}`);
    }
  }

  attachAgent(request: RequestOf<typeof MeteringMessages.attachAgent>): Promise<OwnerAccount> {
    return this.metering.send(MeteringMessages.attachAgent, request);
  }

  detachAgent(request: RequestOf<typeof MeteringMessages.detachAgent>): Promise<OwnerAccount> {
    return this.metering.send(MeteringMessages.detachAgent, request);
  }

  /** A token was issued to this client: metering lets its trial live on and says until when. */
  trialUsed(clientId: string): Promise<TrialLifetime> {
    return this.metering.send(MeteringMessages.trialUsed, { agent_id: clientId });
  }

  upsertOwner(ownerId: string, plan: string): Promise<OwnerAccount> {
    return this.metering.send(MeteringMessages.upsertOwner, { owner_id: ownerId, plan });
  }

  getOwner(ownerId: string): Promise<OwnerAccount> {
    return this.metering.send(MeteringMessages.getOwner, { owner_id: ownerId });
  }

  dailyUsage(ownerId: string, dateFrom: string, dateTo: string) {
    return this.metering.send(MeteringMessages.dailyUsage, { owner_id: ownerId, date_from: dateFrom, date_to: dateTo });
  }

  ping() {
    return this.metering.send(MeteringMessages.ping, {});
  }
}
