/**
 * The files the documentation tests read: every text file git tracks (or will, once added).
 *
 * @module
 */
import { execFileSync } from 'node:child_process';

/** The repository's root, for reading files by their path from it. */
export const ROOT = new URL('../../', import.meta.url);

/** Every file git tracks (or will, once added) as text, by path from the root. */
export function trackedTextFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed.split('\n').filter((path) =>
    /\.(ts|md|cjs|json|ya?ml|sh|lua|html|css)$|(^|\/)Dockerfile$|^\.ci\/run$/.test(path)
  );
}
