import { LUA_KEYS } from '../redis/keys';

/**
 * Every balance change happens inside one of these scripts, so each is atomic: no two calls can both
 * spend the same token, and a process dying between two commands cannot leave a half-made change.
 *
 * Common ARGV: 1 key prefix, 2 now (ms), 3 now (ISO), 4 today (YYYY-MM-DD, UTC),
 * 5 how long a closed reservation is kept for idempotency (ms), 6 ledger retention (ms).
 * Times come from the app's Clock (tests move it); only ledger trimming uses Redis TIME, because
 * stream ids are Redis time.
 */
const PRELUDE = `${LUA_KEYS}
local NOW = tonumber(ARGV[2])
local NOW_ISO = ARGV[3]
local TODAY = ARGV[4]
local RECORD_TTL_MS = tonumber(ARGV[5])
local LEDGER_TTL_MS = tonumber(ARGV[6])
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
-- to the caller's ledger and to the paying account's ledger, and counts the call in the owner's day.
local function close(rkey, r, outcome, charged)
  local reserved = tonumber(r.reserved)
  local refunded = reserved - charged
  local pool_key = K.pool(r.pool_id)
  redis.call('HINCRBY', pool_key, 'reserved', -reserved)
  redis.call('HINCRBY', pool_key, 'used', charged)
  redis.call('ZREM', K.holds(r.pool_id), r.request_id)
  redis.call('HSET', rkey, 'state', outcome, 'charged', charged, 'refunded', refunded, 'closed_at', NOW_ISO)
  redis.call('PEXPIRE', rkey, RECORD_TTL_MS)

  local min_id = ledger_min_id()
  local event = { 'request_id', r.request_id, 'agent_id', r.caller, 'tool', r.tool, 'reserved', reserved,
    'charged', charged, 'refunded', refunded, 'at', NOW_ISO, 'outcome', outcome }
  local caller_ledger = K.ledger(r.caller_kind, r.caller)
  local account_ledger = K.ledger(r.pool_kind, r.account)
  redis.call('XADD', caller_ledger, 'MINID', '~', min_id, '*', unpack(event))
  if account_ledger ~= caller_ledger then
    redis.call('XADD', account_ledger, 'MINID', '~', min_id, '*', unpack(event))
  end
  if r.pool_kind == 'owner' then
    local charged_key = K.daily_charged(TODAY, r.account)
    local calls_key = K.daily_calls(TODAY, r.account)
    redis.call('HINCRBY', charged_key, r.caller, charged)
    redis.call('HINCRBY', calls_key, r.caller, 1)
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
 * ARGV 7 request_id, 8 caller kind, 9 caller id, 10 pool kind, 11 paying account, 12 pool id,
 * 13 allowance, 14 amount, 15 tool, 16 deadline (ms), 17 plan of the pool (kept for the tokens-charged metric).
 * -> {'held', pool kind, reserved, remaining after} | {'short', remaining} | {'conflict'}
 */
export const RESERVE = `${PRELUDE}
local request_id, caller_kind, caller = ARGV[7], ARGV[8], ARGV[9]
local pool_kind, account, pool_id = ARGV[10], ARGV[11], ARGV[12]
local allowance, amount, tool, deadline = tonumber(ARGV[13]), tonumber(ARGV[14]), ARGV[15], tonumber(ARGV[16])
local plan = ARGV[17]

local rkey = K.reservation(request_id)
local existing = hgetall(rkey)
if existing then
  if existing.caller ~= caller then return { 'conflict' } end
  return { 'held', existing.pool_kind, tonumber(existing.reserved), tonumber(existing.remaining_after) }
end

sweep(pool_id)
local pool_key = K.pool(pool_id)
redis.call('HSET', pool_key, 'allowance', allowance)
local remaining = remaining_of(pool_key)
if amount > remaining then return { 'short', remaining } end

redis.call('HINCRBY', pool_key, 'reserved', amount)
redis.call('HINCRBY', pool_key, 'used', 0)
redis.call('HSET', rkey, 'request_id', request_id, 'caller_kind', caller_kind, 'caller', caller,
  'pool_kind', pool_kind, 'account', account, 'pool_id', pool_id, 'tool', tool, 'plan', plan, 'reserved', amount,
  'remaining_after', remaining - amount, 'state', 'held', 'reserved_at', NOW_ISO, 'deadline', deadline)
redis.call('ZADD', K.holds(pool_id), deadline, request_id)
redis.call('SADD', K.holding_pools, pool_id)
return { 'held', pool_kind, amount, remaining - amount }
`;

/**
 * ARGV 7 request_id, 8 caller id, 9 charged.
 * -> {'closed', outcome, charged, refunded, remaining, tool, plan, closed by this call (1/0)} | {'missing'} | {'too_much', reserved}
 * A reservation already closed (settled, released or expired) answers what it closed with.
 */
export const SETTLE = `${PRELUDE}
local request_id, caller, charged = ARGV[7], ARGV[8], tonumber(ARGV[9])
local rkey = K.reservation(request_id)
local r = hgetall(rkey)
local closed_now = 0
if not r or r.caller ~= caller then return { 'missing' } end
if r.state == 'held' then
  sweep(r.pool_id)
  r = hgetall(rkey)
end
if r.state == 'held' then
  if charged > tonumber(r.reserved) then return { 'too_much', tonumber(r.reserved) } end
  close(rkey, r, 'settled', charged)
  r = hgetall(rkey)
  closed_now = 1
end
return { 'closed', r.state, tonumber(r.charged), tonumber(r.refunded), remaining_of(K.pool(r.pool_id)), r.tool, r.plan or '', closed_now }
`;

/** ARGV 7 pool id -> {used, reserved} after returning its expired reservations. */
export const POOL_USAGE = `${PRELUDE}
local pool_id = ARGV[7]
sweep(pool_id)
local p = redis.call('HMGET', K.pool(pool_id), 'used', 'reserved')
return { tonumber(p[1] or '0'), tonumber(p[2] or '0') }
`;

/** ARGV 7 pool id -> how many reservations were looked at (expired ones are given back). */
export const SWEEP = `${PRELUDE}
return sweep(ARGV[7])
`;
