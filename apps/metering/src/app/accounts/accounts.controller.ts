import { Controller } from '@nestjs/common';
import { MeteringMessages, type Received } from '@adintel/contracts';
import { HandleEvent, HandleMessage, Payload } from '@adintel/transport';
import { AccountsService } from './accounts.service';

@Controller()
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @HandleEvent(MeteringMessages.agentRegistered)
  agentRegistered(@Payload() request: Received<typeof MeteringMessages.agentRegistered>) {
    return this.accounts.registerAgent(request.agent_id, request.client_name);
  }

  @HandleMessage(MeteringMessages.attachAgent)
  attachAgent(@Payload() request: Received<typeof MeteringMessages.attachAgent>) {
    return this.accounts.attachAgent(request.agent_id, request.owner_id, request.client_name);
  }

  @HandleMessage(MeteringMessages.detachAgent)
  detachAgent(@Payload() request: Received<typeof MeteringMessages.detachAgent>) {
    return this.accounts.detachAgent(request.agent_id, request.owner_id);
  }

  @HandleMessage(MeteringMessages.trialUsed)
  trialUsed(@Payload() request: Received<typeof MeteringMessages.trialUsed>) {
    return this.accounts.trialUsed(request.agent_id);
  }

  @HandleMessage(MeteringMessages.upsertOwner)
  upsertOwner(@Payload() request: Received<typeof MeteringMessages.upsertOwner>) {
    return this.accounts.upsertOwner(request.owner_id, request.plan);
  }

  @HandleMessage(MeteringMessages.getOwner)
  getOwner(@Payload() request: Received<typeof MeteringMessages.getOwner>) {
    return this.accounts.ownerAccount(request.owner_id);
  }
}
