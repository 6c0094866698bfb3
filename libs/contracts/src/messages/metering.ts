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
/** The OAuth client that made the call for an owner (the token's `client_id`; a metadata document URL is one). */
const ClientId = z.string().min(1).max(2048);
const RequestId = z.string().min(1).max(128);
const ToolName = z.string().min(1).max(64);

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

/**
 * How long metering keeps an agent's trial (its record and pool): `none` when it keeps no agent by that id (an owner's
 * application, or an agent not seen yet), `kept` while attached to an owner, else `expiring` at `expires_at`.
 * The auth server never lets the agent's client outlive it: a client whose trial was gone would get a fresh one.
 */
export const TrialLifetime = z.discriminatedUnion('trial', [
  z.object({ trial: z.literal('none') }),
  z.object({ trial: z.literal('kept') }),
  z.object({ trial: z.literal('expiring'), expires_at: z.iso.datetime() }),
]);
export type TrialLifetime = z.infer<typeof TrialLifetime>;

/** Messages metering serves. A pattern is written here and nowhere else. */
export const MeteringMessages = {
  reserve: defineMessage(
    'metering.reserve',
    z.object({ request_id: RequestId, caller_id: CallerId, client_id: ClientId.optional(), tool: ToolName, amount: z.int().min(0) }),
    Reservation,
  ),
  settle: defineMessage(
    'metering.settle',
    z.object({ request_id: RequestId, caller_id: CallerId, charged: z.int().min(0) }),
    Settlement,
  ),
  release: defineMessage('metering.release', z.object({ request_id: RequestId, caller_id: CallerId }), Settlement),
  getUsage: defineMessage('metering.usage.get', z.object({ caller_id: CallerId }), Usage),
  listUsageEvents: defineMessage(
    'metering.usage.events',
    z.object({ caller_id: CallerId, limit: limitParam(), cursor: Cursor.optional() }),
    UsageEvents,
  ),
  dailyUsage: defineMessage(
    'metering.usage.daily',
    z.object({ owner_id: Id, date_from: IsoDate, date_to: IsoDate }),
    z.object({ data: z.array(DailyUsage) }),
  ),
  agentRegistered: defineMessage(
    'metering.agents.registered',
    z.object({ agent_id: Id, client_name: z.string().max(256).nullable() }),
    Usage,
  ),
  attachAgent: defineMessage(
    'metering.agents.attach',
    z.object({ agent_id: Id, owner_id: Id, client_name: z.string().max(256).nullable() }),
    OwnerAccount,
  ),
  detachAgent: defineMessage('metering.agents.detach', z.object({ agent_id: Id, owner_id: Id }), OwnerAccount),
  /** A token was issued to this client: its trial lives on (at least the trial TTL from now) unless attached. */
  trialUsed: defineMessage('metering.agents.trial-used', z.object({ agent_id: ClientId }), TrialLifetime),
  upsertOwner: defineMessage('metering.owners.upsert', z.object({ owner_id: Id, plan: z.string().min(1) }), OwnerAccount),
  getOwner: defineMessage('metering.owners.get', z.object({ owner_id: Id }), OwnerAccount),
  ping: defineMessage('metering.ping', z.object({}), Pong),
} as const;
