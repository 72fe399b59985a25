--[[
  One sorted-set write on its own (the host registry, ring-buffer entries), where one script call
  beats several requests (Upstash's REST); RedisStore sends plain commands instead
  (src/store/sorted-set-commands.ts).

  KEYS
    [1]  the sorted set
  ARGV
    as the sorted sets of commit-project.lua (includes/sorted-sets.lua), a count of 1

  Replies 1.
]]
-- @include 'includes/sorted-sets.lua'
write_sorted_sets(1, 1)
return 1
