/**
 * Checks every counter and, only when none has reached its max, adds each cost: one round
 * trip, atomic because Redis runs a script alone (DECISIONS "Limits": a refused request
 * consumes nothing). KEYS: the counters; ARGV per key: max, cost, ttl ms.
 * Returns {allowed (1|0), count 1, count 2, …}.
 */
export const CONSUME_LUA = `
local counts = {}
local allowed = 1
for i = 1, #KEYS do
  counts[i] = tonumber(redis.call('GET', KEYS[i]) or '0')
  if counts[i] >= tonumber(ARGV[3 * i - 2]) then allowed = 0 end
end
if allowed == 1 then
  for i = 1, #KEYS do
    local cost = tonumber(ARGV[3 * i - 1])
    if cost > 0 then
      counts[i] = redis.call('INCRBY', KEYS[i], cost)
      if counts[i] == cost then redis.call('PEXPIRE', KEYS[i], ARGV[3 * i]) end
    end
  end
end
table.insert(counts, 1, allowed)
return counts
`;

/**
 * Hands back what a process counted while Redis was away: each counter gains the increments
 * admitted then (which only this process knows), and is raised to at least the count this
 * process knows in all (which a Redis restarted empty has lost). KEYS[1] is the batch's
 * token: a batch whose answer was lost is sent again with it, and is then not added twice.
 * KEYS[2…]: the counters. ARGV[1]: the token's ttl ms; ARGV per counter: increment, floor,
 * ttl ms. Returns 1, or 0 when the token says it was applied already.
 */
export const RETURN_LUA = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return 0 end
for i = 2, #KEYS do
  local at = 3 * i - 4
  local add = tonumber(ARGV[at])
  local floor = tonumber(ARGV[at + 1])
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if add > 0 then count = redis.call('INCRBY', KEYS[i], add) end
  if count < floor then
    redis.call('SET', KEYS[i], floor, 'PX', ARGV[at + 2])
  elseif redis.call('PTTL', KEYS[i]) < 0 then
    redis.call('PEXPIRE', KEYS[i], ARGV[at + 2])
  end
end
return 1
`;

/** A key outlives its window a little, so processes whose clocks differ slightly agree. */
export const EXPIRY_SLACK_MS = 60_000;
