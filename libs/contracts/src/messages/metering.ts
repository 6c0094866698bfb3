import { z } from 'zod';
import { Cursor, Id, IsoDate } from '../resources/common';
import { DailyUsage, Usage, UsageEvents } from '../resources/usage';
import { limitParam } from '../tool-args';
import { defineMessage, Pong } from './define';

/**
 * `caller_id` is the access token's `sub`: an agent's client id, or an owner's account id.
 * Metering decides which pool pays.
 */
const CallerId = Id;
const RequestId = z.string().min(1).max(128);
const ToolName = z.string().min(1).max(64);

export const MeteringPatterns = {
  reserve: 'metering.reserve',
  settle: 'metering.settle',
  release: 'metering.release',
  getUsage: 'metering.usage.get',
  listUsageEvents: 'metering.usage.events',
  dailyUsage: 'metering.usage.daily',
  agentRegistered: 'metering.agents.registered',
  attachAgent: 'metering.agents.attach',
  detachAgent: 'metering.agents.detach',
  upsertOwner: 'metering.owners.upsert',
  getOwner: 'metering.owners.get',
  ping: 'metering.ping',
} as const;

export const Reservation = z.object({
  request_id: RequestId,
  pool: z.enum(['agent', 'owner']),
  reserved: z.int().min(0),
  remaining: z.int().min(0).describe('balance left after the hold'),
});
export type Reservation = z.infer<typeof Reservation>;

export const Settlement = z.object({
  request_id: RequestId,
  charged: z.int().min(0),
  refunded: z.int().min(0),
  remaining: z.int().min(0),
});
export type Settlement = z.infer<typeof Settlement>;

export const AttachedAgent = z.object({ agent_id: Id, client_name: z.string().nullable(), attached_at: z.iso.datetime() });
export type AttachedAgent = z.infer<typeof AttachedAgent>;

export const OwnerAccount = z.object({
  owner_id: Id,
  plan: z.string(),
  agents: z.array(AttachedAgent),
  usage: Usage,
});
export type OwnerAccount = z.infer<typeof OwnerAccount>;

export const MeteringMessages = {
  reserve: defineMessage(
    MeteringPatterns.reserve,
    z.object({ request_id: RequestId, caller_id: CallerId, tool: ToolName, amount: z.int().min(0) }),
    Reservation,
  ),
  settle: defineMessage(
    MeteringPatterns.settle,
    z.object({ request_id: RequestId, caller_id: CallerId, charged: z.int().min(0) }),
    Settlement,
  ),
  release: defineMessage(MeteringPatterns.release, z.object({ request_id: RequestId, caller_id: CallerId }), Settlement),
  getUsage: defineMessage(MeteringPatterns.getUsage, z.object({ caller_id: CallerId }), Usage),
  listUsageEvents: defineMessage(
    MeteringPatterns.listUsageEvents,
    z.object({ caller_id: CallerId, limit: limitParam(), cursor: Cursor.optional() }),
    UsageEvents,
  ),
  dailyUsage: defineMessage(
    MeteringPatterns.dailyUsage,
    z.object({ owner_id: Id, date_from: IsoDate, date_to: IsoDate }),
    z.object({ data: z.array(DailyUsage) }),
  ),
  agentRegistered: defineMessage(
    MeteringPatterns.agentRegistered,
    z.object({ agent_id: Id, client_name: z.string().max(256).nullable() }),
    Usage,
  ),
  attachAgent: defineMessage(
    MeteringPatterns.attachAgent,
    z.object({ agent_id: Id, owner_id: Id, client_name: z.string().max(256).nullable() }),
    OwnerAccount,
  ),
  detachAgent: defineMessage(MeteringPatterns.detachAgent, z.object({ agent_id: Id, owner_id: Id }), OwnerAccount),
  upsertOwner: defineMessage(MeteringPatterns.upsertOwner, z.object({ owner_id: Id, plan: z.string().min(1) }), OwnerAccount),
  getOwner: defineMessage(MeteringPatterns.getOwner, z.object({ owner_id: Id }), OwnerAccount),
  ping: defineMessage(MeteringPatterns.ping, z.object({}), Pong),
} as const;
