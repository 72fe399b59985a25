--[[
  One project's share of a flush, fenced by its watermark. A flush replayed after a crash, or sent
  by a consumer that lost its partition, finds another watermark and changes nothing; the reply
  says which watermark the store holds. Every key is of the project's hash slot.

  KEYS
    [COMMIT_KEY_WATERMARK]  the watermark hash
    then                    the hash of each new part, of each part, the key of each sorted set,
                            in the order of their arguments
    [#KEYS]                 the stream's resume key, when COMMIT_RESUME_FENCE is not NO_FENCE
  ARGV
    [COMMIT_STREAM]                  the stream: a Kafka topic and partition, or ingest/<id>
    [COMMIT_EXPECTED]                the watermark the writer read ('' = none)
    [COMMIT_NEXT]                    the watermark this commit leaves
    [COMMIT_WATERMARK_EXPIRE_AT_MS]  the watermark hash's expiry
    [COMMIT_RESUME_FENCE]            the resume offset expected ('' = none stored), or NO_FENCE
    [COMMIT_REACH_FIELD]             the field of the stream's reach in the watermark hash
    [COMMIT_REACH_TEXT]              the reach to store ('' = none)
    [COMMIT_CHANNEL]                 the project's change channel ('' = none), in its hash slot
    then  the number of new parts and a PART record each (PART_SLOT, PART_VALUE,
          PART_EXPIRE_AT_MS), the number of parts and a PART record each, then the sorted sets
          (includes/sorted-sets.lua)
  A part's field is the stream, or its slot, a space and the stream (includes/part-field.lua).

  Replies
    {1}                          applied
    {0, stored}                  the watermark differs ('' = none stored)
    {0, stored, REFUSED_RESUME}  the resume offset differs
    {0, key, REFUSED_PART}       the hash `key` of a new part already holds one of the stream
]]
-- @include 'includes/legacy.lua'
-- @include 'includes/part-field.lua'
-- @include 'includes/sorted-sets.lua'
local watermark = KEYS[COMMIT_KEY_WATERMARK]
local stream = ARGV[COMMIT_STREAM]
if ARGV[COMMIT_RESUME_FENCE] ~= NO_FENCE then
  local resume = redis.call('GET', KEYS[#KEYS]) or ''
  if resume ~= ARGV[COMMIT_RESUME_FENCE] then return {0, resume, REFUSED_RESUME} end
end
local stored = redis.call('HGET', watermark, stream)
if ARGV[COMMIT_EXPECTED] == '' then
  if stored then return {0, stored} end
elseif stored ~= ARGV[COMMIT_EXPECTED] then
  return {0, stored or ''}
end
-- Sets the stream's part of a bucket with HSET or HSETNX; replies 1 when the field is new.
local function set_part(command, key, field, value)
  local added = redis.pcall(command, key, field, value)
  if failed(added) then
    -- Only a key of the old kind is converted; any other refusal (a full Redis: OOM, a
    -- replica, a missing permission) ends the script as Redis said it, before anything is
    -- deleted: converting would DEL the key, which a full Redis allows, then fail to write it.
    if string.sub(added.err, 1, 9) ~= 'WRONGTYPE' then error(added) end
    convert_legacy(key)
    added = redis.call(command, key, field, value)
  end
  return added
end
local a = COMMIT_WIDTH + 1
local k = COMMIT_KEY_WIDTH + 1
-- New parts first, before any other write: each only where the stream has no field yet. Where
-- it has one, the fields just added are taken back, the stream's reach is marked forgotten, and
-- nothing else is written.
local fresh = tonumber(ARGV[a]); a = a + 1
local first_key, first_arg = k, a
for _ = 1, fresh do
  local field = part_field(stream, ARGV[a + PART_SLOT])
  if set_part('HSETNX', KEYS[k], field, ARGV[a + PART_VALUE]) == 0 then
    for i = 0, k - first_key - 1 do
      local slot = ARGV[first_arg + PART_WIDTH * i + PART_SLOT]
      redis.call('HDEL', KEYS[first_key + i], part_field(stream, slot))
    end
    redis.call('HSET', watermark, ARGV[COMMIT_REACH_FIELD], FORGOTTEN_REACH)
    redis.call('PEXPIREAT', watermark, ARGV[COMMIT_WATERMARK_EXPIRE_AT_MS])
    return {0, KEYS[k], REFUSED_PART}
  end
  k = k + 1; a = a + PART_WIDTH
end
-- All new: their expiries, which a refusal must not have touched.
for i = 0, fresh - 1 do
  local expire = ARGV[first_arg + PART_WIDTH * i + PART_EXPIRE_AT_MS]
  redis.call('PEXPIREAT', KEYS[first_key + i], expire)
end
local parts = tonumber(ARGV[a]); a = a + 1
for _ = 1, parts do
  local field = part_field(stream, ARGV[a + PART_SLOT])
  local added = set_part('HSET', KEYS[k], field, ARGV[a + PART_VALUE])
  -- A bucket's expiry follows from its key alone, so it is set once, with the key's first field
  -- of this stream (1.3 of 10 µs of Redis CPU per event went to repeating it on every write).
  if added == 1 then redis.call('PEXPIREAT', KEYS[k], ARGV[a + PART_EXPIRE_AT_MS]) end
  k = k + 1; a = a + PART_WIDTH
end
write_sorted_sets(k, a)
if ARGV[COMMIT_REACH_TEXT] == '' then
  redis.call('HSET', watermark, stream, ARGV[COMMIT_NEXT])
else
  redis.call('HSET', watermark, stream, ARGV[COMMIT_NEXT], ARGV[COMMIT_REACH_FIELD],
    ARGV[COMMIT_REACH_TEXT])
end
redis.call('PEXPIREAT', watermark, ARGV[COMMIT_WATERMARK_EXPIRE_AT_MS])
-- Sharded, so a Cluster sends it only to the subscribers of the project's slot. A signal that
-- cannot be sent (a server without sharded channels) loses no commit: pcall, not call.
if ARGV[COMMIT_CHANNEL] ~= '' then redis.pcall('SPUBLISH', ARGV[COMMIT_CHANNEL], ARGV[COMMIT_NEXT]) end
return {1}
