import { TRIAL_PLAN } from '../../config';
import { LUA_KEYS } from '../redis/keys';

/**
 * Who pays, for the scripts that need it before they touch a pool (reserve, usage): picking the pool inside the
 * script keeps a paid call's reserve at one Redis round trip, and the pool cannot change between the lookup and
 * the hold (an attach or detach on another replica is either wholly before or wholly after).
 *
 * An owner pays from its plan's pool; an agent from its owner's pool while attached, otherwise from its own trial,
 * which is never reset and keeps what it had while the agent was attached. An agent is created on first sight.
 *
 * plans_from(first): the plans from ARGV[first] on, as PlanCatalog.scriptTerms gives them (id, allowance, period key).
 * paying_pool(caller, plans, now_iso, client_name or nil) ->
 *   { caller_kind, kind, account, plan_id, allowance, id } | nil, plan id (the account's plan is not in PLANS)
 * Needs LUA_KEYS.
 */
export const PAYING_POOL = `
local function plans_from(first)
  local plans = {}
  for i = first, #ARGV, 3 do plans[ARGV[i]] = { allowance = tonumber(ARGV[i + 1]), period_key = ARGV[i + 2] } end
  return plans
end

local function paying_pool(caller, plans, now_iso, client_name)
  local caller_kind, kind, account = 'owner', 'owner', caller
  local plan_id = redis.call('HGET', K.owner(caller), 'plan')
  if not plan_id then
    caller_kind = 'agent'
    local akey = K.agent(caller)
    redis.call('HSETNX', akey, 'created_at', now_iso)
    if client_name then redis.call('HSET', akey, 'client_name', client_name) end
    local owner = redis.call('HGET', akey, 'owner_id')
    plan_id = owner and redis.call('HGET', K.owner(owner), 'plan')
    if plan_id then
      account = owner
    else
      kind, account, plan_id = 'agent', caller, '${TRIAL_PLAN}'
    end
  end
  local plan = plans[plan_id]
  if not plan then return nil, plan_id end
  return { caller_kind = caller_kind, kind = kind, account = account, plan_id = plan_id, allowance = plan.allowance,
    id = K.pool_id(kind, plan.period_key, account) }
end
`;

/**
 * The life of an agent's trial, which is its record (K.agent) and its trial pool: an agent the auth server forgets
 * (its client expired) can never call again, so metering forgets it too, but never before the client, or the same
 * client would start a fresh trial. Unattached, both live `ttl_ms` past the latest paid call or token issued
 * (PEXPIRE GT: never shortened); attached, both are kept (ATTACH persists them, DETACH starts them ageing again).
 * A record or pool without an end while unattached (one created now, or before trials expired) gets one.
 * trial_pool_id(agent, trial period key) -> the pool id; trial_lives(agent, pool_id, ttl_ms). Needs LUA_KEYS.
 */
export const TRIAL_LIFE = `
local function trial_pool_id(agent, period_key) return K.pool_id('agent', period_key, agent) end

local function trial_lives(agent, pool_id, ttl_ms)
  local akey = K.agent(agent)
  if redis.call('HEXISTS', akey, 'owner_id') == 1 then return end
  for _, key in ipairs({ akey, K.pool(pool_id) }) do
    local left = redis.call('PTTL', key)
    if left == -1 then
      redis.call('PEXPIRE', key, ttl_ms)
    elseif left >= 0 then
      redis.call('PEXPIRE', key, ttl_ms, 'GT')
    end
  end
end
`;

/**
 * ARGV 1 prefix, 2 now (ISO), 3 agent id, 4 owner id, 5 client name ('' = keep), 6 '1' when a name is given,
 * 7 the trial plan's period key.
 * -> {'attached', attached_at} | {'no_owner'} | {'taken'} | {'is_owner'}
 * Check and attach in one step: two owners racing for one agent cannot both win. The agent's trial is kept from now
 * on (the auth server keeps its client too).
 */
export const ATTACH = `${LUA_KEYS}${TRIAL_LIFE}
local now, agent, owner, name, has_name = ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
if redis.call('EXISTS', K.owner(owner)) == 0 then return { 'no_owner' } end
if redis.call('EXISTS', K.owner(agent)) == 1 then return { 'is_owner' } end
local akey = K.agent(agent)
local current = redis.call('HGET', akey, 'owner_id')
if current and current ~= owner then return { 'taken' } end
redis.call('HSETNX', akey, 'created_at', now)
if has_name == '1' then redis.call('HSET', akey, 'client_name', name) end
if not current then
  redis.call('HSET', akey, 'owner_id', owner, 'attached_at', now)
  redis.call('HSET', K.owner_agents(owner), agent, now)
end
redis.call('PERSIST', akey)
redis.call('PERSIST', K.pool(trial_pool_id(agent, ARGV[7])))
return { 'attached', redis.call('HGET', akey, 'attached_at') }
`;

/**
 * ARGV 1 prefix, 2 agent id, 3 owner id, 4 the trial plan's period key, 5 trial TTL (ms)
 * -> {'detached'} | {'no_owner'} | {'not_attached'}
 * The agent's trial ages again from now: the auth server gives its client the idle TTL right after, which is shorter.
 */
export const DETACH = `${LUA_KEYS}${TRIAL_LIFE}
local agent, owner = ARGV[2], ARGV[3]
if redis.call('EXISTS', K.owner(owner)) == 0 then return { 'no_owner' } end
local akey = K.agent(agent)
if redis.call('HGET', akey, 'owner_id') ~= owner then return { 'not_attached' } end
redis.call('HDEL', akey, 'owner_id', 'attached_at')
redis.call('HDEL', K.owner_agents(owner), agent)
trial_lives(agent, trial_pool_id(agent, ARGV[4]), tonumber(ARGV[5]))
return { 'detached' }
`;

/**
 * ARGV 1 prefix, 2 agent id, 3 the trial plan's period key, 4 trial TTL (ms)
 * -> {'none'} | {'kept'} | {'expiring', ms since the epoch (Redis time)}
 * A token was issued to the agent's client: its trial lives on, and the answer says until when (the earlier end of
 * record and pool), so the auth server can keep the client no longer. An id metering keeps no agent by is left alone.
 */
export const TRIAL_USED = `${LUA_KEYS}${TRIAL_LIFE}
local agent = ARGV[2]
local akey = K.agent(agent)
if redis.call('EXISTS', akey) == 0 then return { 'none' } end
if redis.call('HEXISTS', akey, 'owner_id') == 1 then return { 'kept' } end
local pool_id = trial_pool_id(agent, ARGV[3])
trial_lives(agent, pool_id, tonumber(ARGV[4]))
local ends = redis.call('PEXPIRETIME', akey)
local pool_ends = redis.call('PEXPIRETIME', K.pool(pool_id))
if pool_ends > 0 and pool_ends < ends then ends = pool_ends end
return { 'expiring', ends }
`;
