-- Applies the sorted-set writes whose keys start at KEYS[k] and arguments at ARGV[a]: their
-- count, then per set a SORTED_SET record and its SORTED_SET_MEMBERS (score, member) pairs. One
-- ZADD per chunk of members: unpack is bounded by Lua's stack.
local function write_sorted_sets(k, a)
  local sets = tonumber(ARGV[a]); a = a + 1
  for _ = 1, sets do
    local key = KEYS[k]; k = k + 1
    local mode = ARGV[a + SORTED_SET_MODE]
    local keep = ARGV[a + SORTED_SET_KEEP_HIGHEST]
    local below = ARGV[a + SORTED_SET_DROP_BELOW]
    local expire = ARGV[a + SORTED_SET_EXPIRE_AT_MS]
    local members = tonumber(ARGV[a + SORTED_SET_MEMBERS]); a = a + SORTED_SET_WIDTH
    local last = a + 2 * members - 1
    while a <= last do
      local upto = math.min(a + 399, last)
      if mode == 'max' then
        redis.call('ZADD', key, 'GT', unpack(ARGV, a, upto))
      else
        redis.call('ZADD', key, unpack(ARGV, a, upto))
      end
      a = upto + 1
    end
    if below ~= '' then redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. below) end
    if keep ~= '' then redis.call('ZREMRANGEBYRANK', key, 0, -(tonumber(keep) + 1)) end
    if expire ~= '' then redis.call('PEXPIREAT', key, expire) end
  end
end
