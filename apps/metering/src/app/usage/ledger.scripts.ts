import { LUA_KEYS } from '../redis/keys';

/**
 * ARGV 1 prefix, 2 caller id, 3 where the page starts ('+': the newest; '(<stream id>': strictly older than it), 4 count
 * -> up to count events of the caller's ledger, newest first: an owner reads its owner ledger (every call its pool paid
 * for), anyone else its own agent ledger. Whose ledger it is and the page come in one round trip.
 */
export const LEDGER_PAGE = `${LUA_KEYS}
local caller = ARGV[2]
local kind = 'agent'
if redis.call('HGET', K.owner(caller), 'plan') then kind = 'owner' end
return redis.call('XREVRANGE', K.ledger(kind, caller), ARGV[3], '-', 'COUNT', ARGV[4])
`;
