--[[
  A compare-and-set of a stream's resume offset.

  KEYS
    [1]  the offset key
  ARGV
    [OFFSET_EXPECTED]  the offset the caller read ('' = none)
    [OFFSET_NEXT]      the offset to store

  Replies 1 when set, 0 when the stored offset is not the one expected.
]]
local stored = redis.call('GET', KEYS[1])
if ARGV[OFFSET_EXPECTED] == '' then
  if stored then return 0 end
elseif stored ~= ARGV[OFFSET_EXPECTED] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[OFFSET_NEXT])
return 1
