/**
 * Every key metering writes, in one place for TypeScript and Lua alike.
 * The variable id always comes last so that ids containing ':' can never make two keys collide.
 */
export type PoolKind = 'agent' | 'owner';

export class MeteringKeys {
  constructor(readonly prefix: string) {}

  /** hash: client_name, created_at, owner_id, attached_at */
  agent(agentId: string) {
    return `${this.prefix}agent:${agentId}`;
  }

  /** hash: plan, created_at */
  owner(ownerId: string) {
    return `${this.prefix}owner:${ownerId}`;
  }

  /** hash: agent id -> attached_at */
  ownerAgents(ownerId: string) {
    return `${this.prefix}owner-agents:${ownerId}`;
  }

  /** hash: allowance, used, reserved */
  pool(poolId: string) {
    return `${this.prefix}pool:${poolId}`;
  }

  /** stream of usage events of one account */
  ledger(kind: PoolKind, accountId: string) {
    return `${this.prefix}ledger:${kind}:${accountId}`;
  }

  /** hashes: agent id -> tokens charged / calls settled, for one owner on one UTC day */
  dailyCharged(date: string, ownerId: string) {
    return `${this.prefix}daily-charged:${date}:${ownerId}`;
  }

  dailyCalls(date: string, ownerId: string) {
    return `${this.prefix}daily-calls:${date}:${ownerId}`;
  }

  /** set of pool ids that have reservations in flight: what the sweeper walks */
  holdingPools() {
    return `${this.prefix}holding-pools`;
  }
}

/** The same key layout for scripts: they find keys of reservations, pools and ledgers from stored ids. */
export const LUA_KEYS = `
local P = ARGV[1]
local K = {
  agent = function(id) return P .. 'agent:' .. id end,
  owner = function(id) return P .. 'owner:' .. id end,
  owner_agents = function(id) return P .. 'owner-agents:' .. id end,
  -- a pool's id: whose tokens, and which period of them (life or YYYY-MM)
  pool_id = function(kind, period_key, account) return kind .. ':' .. period_key .. ':' .. account end,
  pool = function(pool_id) return P .. 'pool:' .. pool_id end,
  holds = function(pool_id) return P .. 'holds:' .. pool_id end,
  reservation = function(request_id) return P .. 'reservation:' .. request_id end,
  ledger = function(kind, id) return P .. 'ledger:' .. kind .. ':' .. id end,
  daily_charged = function(date, owner_id) return P .. 'daily-charged:' .. date .. ':' .. owner_id end,
  daily_calls = function(date, owner_id) return P .. 'daily-calls:' .. date .. ':' .. owner_id end,
  holding_pools = P .. 'holding-pools',
}
local function hgetall(key)
  local flat = redis.call('HGETALL', key)
  if #flat == 0 then return nil end
  local t = {}
  for i = 1, #flat, 2 do t[flat[i]] = flat[i + 1] end
  return t
end
`;
