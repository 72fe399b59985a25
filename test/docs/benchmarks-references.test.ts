/**
 * BENCHMARKS.md holds today's figures and docs/benchmarks-history.md the runs they replaced: every
 * comment and document that sends a reader to one of their sections (`BENCHMARKS.md, "Host
 * registry"`, `BENCHMARKS.md#replay`) names a section that file has, so that moving a figure
 * between the two cannot leave a pointer behind.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, trackedTextFiles } from './tracked-files.ts';

const DOCUMENTS = {
  'BENCHMARKS.md': 'BENCHMARKS.md',
  'benchmarks-history.md': 'docs/benchmarks-history.md',
};
type Document = keyof typeof DOCUMENTS;

/** The text of every heading of a Markdown text, outside fenced code. */
export function headings(text: string): string[] {
  const withoutCode = text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  return [...withoutCode.matchAll(/^#{1,6} (.+)$/gm)].map((match) => (match[1] ?? '').trim());
}

/** A heading's anchor as GitHub writes it: `### A load test` → `a-load-test`. */
export function anchor(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

/** Whether a cited name is the heading, or the heading before its parenthesis. */
export function names(heading: string, cited: string): boolean {
  return heading === cited || heading.startsWith(`${cited} (`);
}

/**
 * Each section a text cites, as `[document, name or #anchor]`. A citation may run over lines of a
 * comment or a paragraph: line breaks with their comment markers and indentation read as a space.
 */
export function citedSections(text: string): [Document, string][] {
  const joined = text.replace(/[ \t]*\n[ \t]*(?:\*(?!\/)|\/\/)?[ \t]*/g, ' ');
  const cited: [Document, string][] = [];
  for (
    const match of joined.matchAll(
      /(BENCHMARKS\.md|benchmarks-history\.md)(?:`?, "([^"]+)"|#([\w-]+))/g,
    )
  ) {
    const name = match[2] ?? `#${match[3] ?? ''}`;
    cited.push([match[1] as Document, name]);
  }
  return cited;
}

describe('references to the benchmarks', () => {
  const sections = Object.fromEntries(
    Object.entries(DOCUMENTS).map(([name, path]) => [
      name,
      headings(readFileSync(new URL(path, ROOT), 'utf8')),
    ]),
  ) as Record<Document, string[]>;
  const files = trackedTextFiles().filter((path) =>
    path !== 'test/docs/benchmarks-references.test.ts'
  );

  it('name sections the two files have', () => {
    const dangling = files.flatMap((path) =>
      citedSections(readFileSync(new URL(path, ROOT), 'utf8'))
        .filter(([document, name]) =>
          !sections[document].some((heading) =>
            name.startsWith('#') ? `#${anchor(heading)}` === name : names(heading, name)
          )
        )
        .map(([document, name]) => `${path}: ${document}, ${name}`)
    );
    expect(dangling).toEqual([]);
  });

  it('finds citations in the forms they are written in', () => {
    expect(
      citedSections(
        [
          ' * cost Redis less (docs/benchmarks-history.md, "CPU per event and',
          ' * per request, second pass"); see `BENCHMARKS.md`, "Costly',
          '  patterns" and [the replay](BENCHMARKS.md#replay); BENCHMARKS.md alone cites nothing.',
        ].join('\n'),
      ),
    ).toEqual([
      ['benchmarks-history.md', 'CPU per event and per request, second pass'],
      ['BENCHMARKS.md', 'Costly patterns'],
      ['BENCHMARKS.md', '#replay'],
    ]);
    expect(headings('# Top\n```\n# not a heading\n```\n### Host registry (`npm run bench:hosts`)'))
      .toEqual(['Top', 'Host registry (`npm run bench:hosts`)']);
    expect(anchor('Host registry (`npm run bench:hosts`)')).toBe(
      'host-registry-npm-run-benchhosts',
    );
    expect(names('Host registry (`npm run bench:hosts`)', 'Host registry')).toBe(true);
    expect(names('Hostile load over time (issue 31)', 'Hostile load')).toBe(false);
  });
});
