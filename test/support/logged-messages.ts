/**
 * A pino logger that keeps the `msg` of every line it writes, for tests that check what a
 * process said.
 *
 * @module
 */
import { Writable } from 'node:stream';
import { type Level, type Logger, pino } from 'pino';

/** A logger at `level` named `name` whose lines' messages are pushed to `messages`. */
export function messagesLogger(level: Level, name: string, messages: string[]): Logger {
  return pino(
    { level, name },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const raw of chunk.toString('utf8').split('\n')) {
          if (raw !== '') messages.push((JSON.parse(raw) as { msg: string }).msg);
        }
        done();
      },
    }),
  );
}
