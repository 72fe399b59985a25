-- A key written by the layout before parts (one string per bucket, version 0.1) becomes the
-- bucket's part `legacy`, so an upgrade neither fails on the old keys nor loses what they hold.
-- Reads and writes try the hash command first and convert only on WRONGTYPE.
local LEGACY_FIELD = 'legacy'
local function failed(reply)
  return type(reply) == 'table' and reply.err ~= nil
end
local function convert_legacy(key)
  local value = redis.call('GET', key)
  local ttl = redis.call('PTTL', key)
  redis.call('DEL', key)
  redis.call('HSET', key, LEGACY_FIELD, value)
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
end
