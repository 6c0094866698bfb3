import { PAYING_POOL, TRIAL_LIFE } from '../accounts/accounts.scripts';
import { LUA_KEYS } from '../redis/keys';

/**
 * Every balance change happens inside one of these scripts, so each is atomic: no two calls can both
 * spend the same token, and a process dying between two commands cannot leave a half-made change.
 *
 * Common ARGV: 1 key prefix, 2 now (ms), 3 now (ISO), 4 today (YYYY-MM-DD, UTC),
 * 5 how long a closed reservation is kept for idempotency (ms), 6 ledger retention (ms), 7 trial TTL (ms).
 * Times come from the app's Clock (tests move it); only ledger trimming uses Redis TIME, because
 * stream ids are Redis time.
 */
const PRELUDE = `${LUA_KEYS}${PAYING_POOL}${TRIAL_LIFE}
local NOW = tonumber(ARGV[2])
local NOW_ISO = ARGV[3]
local TODAY = ARGV[4]
local RECORD_TTL_MS = tonumber(ARGV[5])
local LEDGER_TTL_MS = tonumber(ARGV[6])
local TRIAL_TTL_MS = tonumber(ARGV[7])
local SWEEP_BATCH = 500

local function ledger_min_id()
  local t = redis.call('TIME')
  return tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) - LEDGER_TTL_MS)
end

local function remaining_of(pool_key)
  local p = redis.call('HMGET', pool_key, 'allowance', 'used', 'reserved')
  local left = tonumber(p[1] or '0') - tonumber(p[2] or '0') - tonumber(p[3] or '0')
  if left < 0 then return 0 end
  return left
end

-- Closes a held reservation: charges 'charged', gives the rest back to its pool, writes one ledger event
-- to the caller's ledger and to the paying account's ledger, and counts the call in the owner's day. A trial it
-- touches lives on (trial_lives); a ledger lives the retention past its latest event, when all it holds is older.
local function close(rkey, r, outcome, charged)
  local reserved = tonumber(r.reserved)
  local refunded = reserved - charged
  local pool_key = K.pool(r.pool_id)
  redis.call('HINCRBY', pool_key, 'reserved', -reserved)
  redis.call('HINCRBY', pool_key, 'used', charged)
  redis.call('ZREM', K.holds(r.pool_id), r.request_id)
  redis.call('HSET', rkey, 'state', outcome, 'charged', charged, 'refunded', refunded, 'closed_at', NOW_ISO)
  redis.call('PEXPIRE', rkey, RECORD_TTL_MS)
  r.state, r.charged, r.refunded = outcome, charged, refunded

  local min_id = ledger_min_id()
  local event = { 'request_id', r.request_id, 'agent_id', r.caller, 'tool', r.tool, 'reserved', reserved,
    'charged', charged, 'refunded', refunded, 'at', NOW_ISO, 'outcome', outcome, 'client_id', r.client or '' }
  -- An owner's own calls are counted per client acting for her, so her chart says which one spent the pool.
  local spender = r.caller
  if r.caller_kind == 'owner' and r.client and r.client ~= '' then spender = r.client end
  local caller_ledger = K.ledger(r.caller_kind, r.caller)
  local account_ledger = K.ledger(r.pool_kind, r.account)
  redis.call('XADD', caller_ledger, 'MINID', '~', min_id, '*', unpack(event))
  redis.call('PEXPIRE', caller_ledger, LEDGER_TTL_MS)
  if account_ledger ~= caller_ledger then
    redis.call('XADD', account_ledger, 'MINID', '~', min_id, '*', unpack(event))
    redis.call('PEXPIRE', account_ledger, LEDGER_TTL_MS)
  end
  if r.pool_kind == 'agent' then trial_lives(r.account, r.pool_id, TRIAL_TTL_MS) end
  if r.pool_kind == 'owner' then
    local charged_key = K.daily_charged(TODAY, r.account)
    local calls_key = K.daily_calls(TODAY, r.account)
    redis.call('HINCRBY', charged_key, spender, charged)
    redis.call('HINCRBY', calls_key, spender, 1)
    redis.call('PEXPIRE', charged_key, LEDGER_TTL_MS)
    redis.call('PEXPIRE', calls_key, LEDGER_TTL_MS)
  end
end

-- Gives back the tokens of every reservation of a pool whose deadline has passed.
local function sweep(pool_id)
  local holds = K.holds(pool_id)
  local due = redis.call('ZRANGEBYSCORE', holds, '-inf', NOW, 'LIMIT', 0, SWEEP_BATCH)
  for _, request_id in ipairs(due) do
    local rkey = K.reservation(request_id)
    local r = hgetall(rkey)
    if r and r.state == 'held' and r.pool_id == pool_id then
      close(rkey, r, 'expired', 0)
    else
      redis.call('ZREM', holds, request_id)
    end
  end
  if redis.call('ZCARD', holds) == 0 then redis.call('SREM', K.holding_pools, pool_id) end
  return #due
end
`;

/**
 * ARGV 8 request_id, 9 caller id, 10 amount, 11 tool, 12 deadline (ms), 13 client id ('' when none), 14... the plans
 * (PlanCatalog.scriptTerms).
 * -> {'held', pool kind, reserved, remaining after} | {'short', remaining} | {'conflict'} | {'unknown_plan', plan id}
 * One script, so a paid call's reserve is one round trip: the repeat check, who pays, and the hold.
 */
export const RESERVE = `${PRELUDE}
local request_id, caller = ARGV[8], ARGV[9]
local amount, tool, deadline = tonumber(ARGV[10]), ARGV[11], tonumber(ARGV[12])

local rkey = K.reservation(request_id)
local existing = hgetall(rkey)
if existing then
  if existing.caller ~= caller then return { 'conflict' } end
  return { 'held', existing.pool_kind, tonumber(existing.reserved), tonumber(existing.remaining_after) }
end

local client = ARGV[13]
local pool, unknown_plan = paying_pool(caller, plans_from(14), NOW_ISO, nil)
if not pool then return { 'unknown_plan', unknown_plan } end
sweep(pool.id)
local pool_key = K.pool(pool.id)
redis.call('HSET', pool_key, 'allowance', pool.allowance)
if pool.kind == 'agent' then trial_lives(caller, pool.id, TRIAL_TTL_MS) end
local remaining = remaining_of(pool_key)
if amount > remaining then return { 'short', remaining } end

redis.call('HINCRBY', pool_key, 'reserved', amount)
redis.call('HINCRBY', pool_key, 'used', 0)
redis.call('HSET', rkey, 'request_id', request_id, 'caller_kind', pool.caller_kind, 'caller', caller,
  'pool_kind', pool.kind, 'account', pool.account, 'pool_id', pool.id, 'tool', tool, 'plan', pool.plan_id, 'reserved', amount,
  'remaining_after', remaining - amount, 'state', 'held', 'reserved_at', NOW_ISO, 'deadline', deadline, 'client', client)
redis.call('ZADD', K.holds(pool.id), deadline, request_id)
redis.call('SADD', K.holding_pools, pool.id)
return { 'held', pool.kind, amount, remaining - amount }
`;

/**
 * ARGV 8 request_id, 9 caller id, 10 charged.
 * -> {'closed', outcome, charged, refunded, remaining, tool, plan, closed by this call (1/0)} | {'missing'} | {'too_much', reserved}
 * A reservation already closed (settled, released or expired) answers what it closed with; one whose deadline
 * passed closes as expired (charged 0), as the sweep would have closed it.
 */
export const SETTLE = `${PRELUDE}
local request_id, caller, charged = ARGV[8], ARGV[9], tonumber(ARGV[10])
local rkey = K.reservation(request_id)
local r = hgetall(rkey)
local closed_now = 0
if not r or r.caller ~= caller then return { 'missing' } end
if r.state == 'held' then
  if tonumber(r.deadline) <= NOW then
    close(rkey, r, 'expired', 0)
    sweep(r.pool_id)
  else
    if charged > tonumber(r.reserved) then return { 'too_much', tonumber(r.reserved) } end
    -- the other expired holds of this busy pool first: while this one is still held, the pool stays in holding-pools
    sweep(r.pool_id)
    close(rkey, r, 'settled', charged)
    closed_now = 1
  end
end
return { 'closed', r.state, tonumber(r.charged), tonumber(r.refunded), remaining_of(K.pool(r.pool_id)), r.tool, r.plan or '', closed_now }
`;

/**
 * ARGV 8 caller id, 9 client name ('' = keep), 10 '1' when a name is given, 11... the plans (PlanCatalog.scriptTerms).
 * -> {'found', plan id, pool kind, allowance, used, reserved} of the pool that pays for the caller, after its expired
 * reservations came back | {'unknown_plan', plan id}
 */
export const USAGE = `${PRELUDE}
local pool, unknown_plan = paying_pool(ARGV[8], plans_from(11), NOW_ISO, ARGV[10] == '1' and ARGV[9] or nil)
if not pool then return { 'unknown_plan', unknown_plan } end
if pool.kind == 'agent' then trial_lives(ARGV[8], pool.id, TRIAL_TTL_MS) end
sweep(pool.id)
local p = redis.call('HMGET', K.pool(pool.id), 'used', 'reserved')
return { 'found', pool.plan_id, pool.kind, pool.allowance, tonumber(p[1] or '0'), tonumber(p[2] or '0') }
`;

/** ARGV 8 pool id -> how many reservations were looked at (expired ones are given back). */
export const SWEEP = `${PRELUDE}
return sweep(ARGV[8])
`;
