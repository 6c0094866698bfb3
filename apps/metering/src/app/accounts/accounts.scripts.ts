import { LUA_KEYS } from '../redis/keys';

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
