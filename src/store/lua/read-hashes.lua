--[[
  Every field's value, or every field and value, of many hashes: a bucket's parts, or the parts
  of each slot of a hash that keeps several buckets.

  KEYS
    the hashes
  ARGV
    [READ_HASH_REPLY]      READ_VALUES: each hash's values; READ_FIELDS: its fields and values
    [READ_HASH_WIDTH + i]  the head of each value of KEYS[i] to reply, in bytes ('' or none: the
                           whole value)

  Replies for each hash its values, or its fields and values in turn (a key of the layout before
  parts: its string as the one part, field LEGACY_FIELD); false: no such key.

  Most buckets of a series are empty (79% of a `5min` series of the busiest generated projects):
  an EXISTS costs Redis about half of what an empty HVALS reply does, so such a read costs ~45%
  less Redis CPU, and a series where every bucket exists ~5% more
  (docs/benchmarks-history.md, "CPU per event and per request, third pass").
]]
-- @include 'includes/legacy.lua'
local fields = ARGV[READ_HASH_REPLY] == READ_FIELDS
local first_value = fields and 2 or 1
local step = fields and 2 or 1
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then
    local reply
    if fields then
      reply = redis.pcall('HGETALL', key)
      if failed(reply) then reply = { LEGACY_FIELD, redis.call('GET', key) } end
    else
      reply = redis.pcall('HVALS', key)
      if failed(reply) then reply = { redis.call('GET', key) } end
    end
    local head = tonumber(ARGV[READ_HASH_WIDTH + i])
    if head then
      for v = first_value, #reply, step do reply[v] = string.sub(reply[v], 1, head) end
    end
    out[i] = reply
  else
    out[i] = false
  end
end
return out
