/**
 * The Lua scripts that give a Redis (TCP or REST, one server or a Cluster) the port's atomic
 * steps, and the KEYS and ARGV of each call. Every script touches the keys of one key group
 * only, so it runs on a Redis Cluster: the caller groups keys by hash slot.
 *
 * - {@link COMMIT_PROJECT_SCRIPT}: one project's share of a flush, fenced by its watermark. A
 *   flush replayed after a crash, or sent by a consumer that lost its partition, finds another
 *   watermark and changes nothing; the reply says which watermark the store holds.
 * - {@link ADVANCE_OFFSET_SCRIPT}: a compare-and-set of a stream's resume offset.
 * - {@link UPDATE_SET_SCRIPT}: one sorted-set write on its own (the host registry, ring-buffer
 *   entries), where one script call beats several requests (Upstash's REST); `RedisStore` sends
 *   plain commands instead (`sorted-set-commands.ts`).
 * - {@link READ_PARTS_SCRIPT}, {@link READ_BUCKETS_SCRIPT} and {@link READ_SLOTS_SCRIPT}: one
 *   field (a stream's part in each hash's slot, or a watermark), or every field's value (or field
 *   and value), of many hashes in one call.
 *
 * @module
 */
import type {
  CommitResult,
  ProjectCommit,
  SlottedPart,
  SortedSetWrite,
  StateWrite,
} from './port.ts';
import { slotOfField } from './part-field.ts';
import { FORGOTTEN_REACH, reachField, reachText } from './reach.ts';

/**
 * Lua: applies the sorted-set writes whose keys start at KEYS[k] and arguments at ARGV[a]
 * (count, then per set: mode, keepHighest, dropBelow, expireAtMs ('' = none each), #members,
 * (score, member)…). One ZADD per chunk of members: unpack is bounded by Lua's stack.
 */
const SORTED_SETS_LUA = `
local sets = tonumber(ARGV[a]); a = a + 1
for _ = 1, sets do
  local key = KEYS[k]; k = k + 1
  local mode = ARGV[a]; local keep = ARGV[a + 1]; local below = ARGV[a + 2]
  local expire = ARGV[a + 3]
  local members = tonumber(ARGV[a + 4]); a = a + 5
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
`;

/**
 * Lua: a key written by the layout before parts (one string per bucket, version 0.1) becomes
 * the bucket's part `legacy`, so an upgrade neither fails on the old keys nor loses what they
 * hold. Reads and writes try the hash command first and convert only on WRONGTYPE.
 */
const LEGACY_LUA = `
local function failed(reply)
  return type(reply) == 'table' and reply.err ~= nil
end
local function convert_legacy(key)
  local value = redis.call('GET', key)
  local ttl = redis.call('PTTL', key)
  redis.call('DEL', key)
  redis.call('HSET', key, 'legacy', value)
  if ttl > 0 then redis.call('PEXPIRE', key, ttl) end
end
`;

/** Lua: the field of a stream's part in a slot ('' = the bucket's own part), as `part-field.ts`. */
const PART_FIELD_LUA = `
local function part_field(stream, slot)
  if slot == '' then return stream end
  return slot .. ' ' .. stream
end
`;

/**
 * KEYS: watermark hash, new part hashes…, part hashes…, sorted-set keys…, then the stream's
 * resume key when fenced. ARGV: stream, expected ('' = none), next, watermark expiry, resume
 * fence ('-' = no fence, '' = none stored, else the offset), reach field, reach text ('' = none),
 * #new parts, (slot ('' = none), value, expireAtMs)…, #parts, (slot, value, expireAtMs)…, then
 * the sorted sets. A part's field is the stream, or its slot, a space and the stream
 * (`part-field.ts`). Replies
 * `{1}` when applied, `{0, stored}` ('' = none) when the watermark differs, `{0, stored,
 * 'resume'}` when the resume offset does, `{0, key, 'part'}` when a new part's hash holds one.
 */
export const COMMIT_PROJECT_SCRIPT = `${LEGACY_LUA}${PART_FIELD_LUA}
local stream = ARGV[1]
if ARGV[5] ~= '-' then
  local resume = redis.call('GET', KEYS[#KEYS]) or ''
  if resume ~= ARGV[5] then return {0, resume, 'resume'} end
end
local stored = redis.call('HGET', KEYS[1], stream)
if ARGV[2] == '' then
  if stored then return {0, stored} end
elseif stored ~= ARGV[2] then
  return {0, stored or ''}
end
-- Sets the stream's part of a bucket with HSET or HSETNX; replies 1 when the field is new.
local function set_part(command, key, field, value)
  local added = redis.pcall(command, key, field, value)
  if failed(added) then
    convert_legacy(key)
    added = redis.call(command, key, field, value)
  end
  return added
end
local a = 8
local k = 2
-- New parts first, before any other write: each only where the stream has no field yet. Where
-- it has one, the fields just added are taken back, the stream's reach is marked forgotten, and
-- nothing else is written.
local fresh = tonumber(ARGV[a]); a = a + 1
local first_key, first_arg = k, a
for _ = 1, fresh do
  if set_part('HSETNX', KEYS[k], part_field(stream, ARGV[a]), ARGV[a + 1]) == 0 then
    for i = 0, k - first_key - 1 do
      redis.call('HDEL', KEYS[first_key + i], part_field(stream, ARGV[first_arg + 3 * i]))
    end
    redis.call('HSET', KEYS[1], ARGV[6], '${FORGOTTEN_REACH}')
    redis.call('PEXPIREAT', KEYS[1], ARGV[4])
    return {0, KEYS[k], 'part'}
  end
  k = k + 1; a = a + 3
end
-- All new: their expiries, which a refusal must not have touched.
for i = 0, fresh - 1 do redis.call('PEXPIREAT', KEYS[first_key + i], ARGV[first_arg + 3 * i + 2]) end
local parts = tonumber(ARGV[a]); a = a + 1
for _ = 1, parts do
  local added = set_part('HSET', KEYS[k], part_field(stream, ARGV[a]), ARGV[a + 1])
  -- A bucket's expiry follows from its key alone, so it is set once, with the key's first field
  -- of this stream (1.3 of 10 µs of Redis CPU per event went to repeating it on every write).
  if added == 1 then redis.call('PEXPIREAT', KEYS[k], ARGV[a + 2]) end
  k = k + 1; a = a + 3
end
${SORTED_SETS_LUA}
if ARGV[7] == '' then
  redis.call('HSET', KEYS[1], stream, ARGV[3])
else
  redis.call('HSET', KEYS[1], stream, ARGV[3], ARGV[6], ARGV[7])
end
redis.call('PEXPIREAT', KEYS[1], ARGV[4])
return {1}
`;

/** KEYS: the offset key. ARGV: expected ('' = none), next. Replies 1 when set, 0 otherwise. */
export const ADVANCE_OFFSET_SCRIPT = `
local stored = redis.call('GET', KEYS[1])
if ARGV[1] == '' then
  if stored then return 0 end
elseif stored ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

/** KEYS: the sorted set. ARGV: as the sorted sets of {@link COMMIT_PROJECT_SCRIPT}, count 1. */
export const UPDATE_SET_SCRIPT = `
local a = 1
local k = 1
${SORTED_SETS_LUA}
return 1
`;

/**
 * KEYS: hashes. ARGV: a stream (or any field), then each hash's slot ('' = the bucket's own
 * part, or the field itself). Replies the stream's part of each (false: none, or legacy). Reads
 * parts, watermarks and reaches.
 */
export const READ_PARTS_SCRIPT = `${LEGACY_LUA}${PART_FIELD_LUA}
local out = {}
for i, key in ipairs(KEYS) do
  local value = redis.pcall('HGET', key, part_field(ARGV[1], ARGV[i + 1]))
  if failed(value) then value = false end
  out[i] = value
end
return out
`;

/**
 * KEYS: hashes. ARGV: each hash's head length in bytes ('' = whole values). Replies every field
 * and value (or its head) of each hash (a legacy string as its one part, field 'legacy'; false:
 * no such key), as {@link READ_BUCKETS_SCRIPT} does its values.
 */
export const READ_SLOTS_SCRIPT = `${LEGACY_LUA}
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then
    local fields = redis.pcall('HGETALL', key)
    if failed(fields) then fields = { 'legacy', redis.call('GET', key) } end
    local head = tonumber(ARGV[i])
    if head then
      for v = 2, #fields, 2 do fields[v] = string.sub(fields[v], 1, head) end
    end
    out[i] = fields
  else
    out[i] = false
  end
end
return out
`;

/**
 * KEYS: hashes. Replies every field's value of each hash (a legacy string as its one part; false:
 * no such key). Most buckets of a series are empty (79% of a `5min` series of the busiest
 * generated projects): an `EXISTS` costs Redis about half of what an empty `HVALS` reply does, so
 * such a read costs ~45% less Redis CPU, and a series where every bucket exists ~5% more
 * (docs/benchmarks-history.md, "CPU per event and per request, third pass").
 */
export const READ_BUCKETS_SCRIPT = `${LEGACY_LUA}
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then
    local parts = redis.pcall('HVALS', key)
    if failed(parts) then parts = { redis.call('GET', key) } end
    out[i] = parts
  else
    out[i] = false
  end
end
return out
`;

/**
 * The scripts that only read: sent as `EVALSHA_RO` (Redis 7), which Redis runs while writes are
 * paused (`CLIENT PAUSE WRITE`, as during a manual failover) and plain `EVALSHA` does not.
 */
export const READ_ONLY_SCRIPTS: ReadonlySet<string> = new Set([
  READ_PARTS_SCRIPT,
  READ_SLOTS_SCRIPT,
  READ_BUCKETS_SCRIPT,
]);

/** The KEYS and ARGV of one script call. */
export interface ScriptCall {
  readonly keys: string[];
  readonly args: string[];
}

const optional = (value: number | null): string => value === null ? '' : String(value);

function pushSortedSets(call: ScriptCall, sets: readonly SortedSetWrite[]): void {
  call.args.push(String(sets.length));
  for (const set of sets) {
    call.keys.push(set.key);
    call.args.push(
      set.mode,
      optional(set.keepHighest),
      optional(set.dropBelow),
      optional(set.expireAtMs),
      String(set.members.length),
    );
    for (const { score, member } of set.members) call.args.push(String(score), member);
  }
}

function pushParts(call: ScriptCall, parts: readonly StateWrite[]): void {
  call.args.push(String(parts.length));
  // A commit's parts share a few expiries (one per grain and bucket): each is converted once.
  let expiry = Number.NaN;
  let expiryText = '';
  for (const part of parts) {
    call.keys.push(part.key);
    if (part.expireAtMs !== expiry) {
      expiry = part.expireAtMs;
      expiryText = String(expiry);
    }
    call.args.push(part.slot ?? '', part.value, expiryText);
  }
}

/**
 * The call of {@link COMMIT_PROJECT_SCRIPT} for one project commit; `fenced`: with the check of
 * the stream's resume offset (only where every key is on one node).
 */
export function commitProjectCall(commit: ProjectCommit, fenced: boolean): ScriptCall {
  const { watermark, resume } = commit;
  const fence = fenced && resume !== undefined;
  const call: ScriptCall = {
    keys: [watermark.key],
    args: [
      commit.stream,
      optional(watermark.expected),
      String(watermark.next),
      String(watermark.expireAtMs),
      fence ? optional(resume.expected) : '-',
      reachField(commit.stream),
      watermark.reachUs === undefined ? '' : reachText(watermark.next, watermark.reachUs),
    ],
  };
  pushParts(call, commit.newParts ?? []);
  pushParts(call, commit.parts);
  pushSortedSets(call, commit.sortedSets);
  if (fence) call.keys.push(resume.key);
  return call;
}

/** The call of {@link UPDATE_SET_SCRIPT} for one sorted-set write. */
export function updateSetCall(write: SortedSetWrite): ScriptCall {
  const call: ScriptCall = { keys: [], args: [] };
  pushSortedSets(call, [write]);
  return call;
}

/** Reads the reply of {@link COMMIT_PROJECT_SCRIPT}. */
export function commitResult(reply: unknown): CommitResult {
  if (!Array.isArray(reply)) throw new Error(`unexpected commit reply: ${String(reply)}`);
  if (Number(reply[0]) === 1) return { applied: true };
  if (reply[2] === 'part') return { applied: false, partFound: String(reply[1]) };
  const value = String(reply[1] ?? '');
  const stored = value === '' ? null : Number(value);
  return reply[2] === 'resume'
    ? { applied: false, resumeStored: stored }
    : { applied: false, stored };
}

/** Reads one value of a {@link READ_PARTS_SCRIPT} reply (nil arrives as null or false). */
export function fieldValue(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** Reads one value of a {@link READ_SLOTS_SCRIPT} reply. */
export function slottedParts(value: unknown): SlottedPart[] {
  if (!Array.isArray(value)) return [];
  const parts: SlottedPart[] = [];
  for (let i = 0; i + 1 < value.length; i += 2) {
    const field: unknown = value[i];
    const part: unknown = value[i + 1];
    if (typeof field === 'string' && typeof part === 'string') {
      parts.push({ slot: slotOfField(field), part });
    }
  }
  return parts;
}

/** Reads one value of a {@link READ_BUCKETS_SCRIPT} reply. */
export function bucketParts(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((part) => typeof part === 'string') : [];
}
