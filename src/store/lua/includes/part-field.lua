-- The field of a stream's part in a slot ('' = the bucket's own part), as src/store/part-field.ts
-- writes it: the stream, or the slot, a space and the stream.
local function part_field(stream, slot)
  if slot == '' then return stream end
  return slot .. ' ' .. stream
end
