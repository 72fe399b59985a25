/**
 * The Lua script that applies a {@link Commit} atomically inside Redis (TCP or REST): it checks
 * the stream's stored offset, and only when it is the expected one writes every state, updates
 * every sorted set and advances the offset. A flush replayed after a crash, or sent by a consumer
 * that lost its partition, finds a different offset and changes nothing.
 *
 * @module
 */
import type { Commit } from './port.ts';

/**
 * KEYS: offsets hash, state keys…, sorted-set keys…
 * ARGV: stream, expected ('' = none), next, #states, (value, expireAtMs)…, #sets, then per set:
 * mode, keepHighest ('' = none), dropBelow ('' = none), #members, (score, member)…
 */
export const COMMIT_SCRIPT = `
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[2] == '' then
  if stored then return 0 end
elseif stored ~= ARGV[2] then
  return 0
end
local a = 4
local k = 2
local states = tonumber(ARGV[a]); a = a + 1
for _ = 1, states do
  redis.call('SET', KEYS[k], ARGV[a], 'PXAT', ARGV[a + 1])
  k = k + 1; a = a + 2
end
local sets = tonumber(ARGV[a]); a = a + 1
for _ = 1, sets do
  local key = KEYS[k]; k = k + 1
  local mode = ARGV[a]; local keep = ARGV[a + 1]; local below = ARGV[a + 2]
  local members = tonumber(ARGV[a + 3]); a = a + 4
  -- One ZADD per chunk of members (unpack is bounded by Lua's stack).
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
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`;

/** The KEYS and ARGV of {@link COMMIT_SCRIPT} for one commit. */
export function commitScriptArguments(commit: Commit): { keys: string[]; args: string[] } {
  const { offset } = commit;
  const keys = [offset.key];
  const args = [
    offset.stream,
    offset.expected === null ? '' : String(offset.expected),
    String(offset.next),
    String(commit.states.length),
  ];
  for (const state of commit.states) {
    keys.push(state.key);
    args.push(state.value, String(state.expireAtMs));
  }
  args.push(String(commit.sortedSets.length));
  for (const set of commit.sortedSets) {
    keys.push(set.key);
    args.push(
      set.mode,
      set.keepHighest === null ? '' : String(set.keepHighest),
      set.dropBelow === null ? '' : String(set.dropBelow),
      String(set.members.length),
    );
    for (const { score, member } of set.members) args.push(String(score), member);
  }
  return { keys, args };
}
