--[[
  One field of many hashes: a stream's part in each hash's slot, a watermark or a reach.

  KEYS
    the hashes
  ARGV
    [READ_PART_FIELD]      a stream, or any field
    [READ_PART_WIDTH + i]  the slot of KEYS[i] ('' = the bucket's own part, or the field itself)

  Replies the value of each field (false: none, or a key of the layout before parts).
]]
-- @include 'includes/legacy.lua'
-- @include 'includes/part-field.lua'
local out = {}
for i, key in ipairs(KEYS) do
  local field = part_field(ARGV[READ_PART_FIELD], ARGV[READ_PART_WIDTH + i])
  local value = redis.pcall('HGET', key, field)
  if failed(value) then value = false end
  out[i] = value
end
return out
