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
 * ARGV 1 prefix, 2 now (ISO), 3 agent id, 4 owner id, 5 client name ('' = keep), 6 '1' when a name is given.
 * -> {'attached', attached_at} | {'no_owner'} | {'taken'} | {'is_owner'}
 * Check and attach in one step: two owners racing for one agent cannot both win.
 */
export const ATTACH = `${LUA_KEYS}
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
return { 'attached', redis.call('HGET', akey, 'attached_at') }
`;

/** ARGV 1 prefix, 2 agent id, 3 owner id -> {'detached'} | {'no_owner'} | {'not_attached'} */
export const DETACH = `${LUA_KEYS}
local agent, owner = ARGV[2], ARGV[3]
if redis.call('EXISTS', K.owner(owner)) == 0 then return { 'no_owner' } end
local akey = K.agent(agent)
if redis.call('HGET', akey, 'owner_id') ~= owner then return { 'not_attached' } end
redis.call('HDEL', akey, 'owner_id', 'attached_at')
redis.call('HDEL', K.owner_agents(owner), agent)
return { 'detached' }
`;
