/**
 * The repository carries its own contract (docs/CONTRACT.md): every comment and document that
 * cites it names a section the contract has, and nothing points at a specification outside the
 * repository, which a person who clones it could not read.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, trackedTextFiles } from './tracked-files.ts';

const CONTRACT = 'docs/CONTRACT.md';

/** The section numbers of the contract's headings: `## 4. The HTTP API` → 4, `### 4.2 …` → 4.2. */
export function contractSections(text: string): Set<string> {
  const sections = new Set<string>();
  for (const match of text.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)) sections.add(match[1] ?? '');
  return sections;
}

/** Each section a text cites: `CONTRACT section 5`, `CONTRACT sections 4 and 5.2`, `CONTRACT 6`. */
export function citedSections(text: string): string[] {
  const cited: string[] = [];
  for (
    const match of text.matchAll(
      /CONTRACT(?:\.md)? (?:sections? )?(\d+(?:\.\d+)?)(?: and (\d+(?:\.\d+)?))?/g,
    )
  ) {
    cited.push(match[1] ?? '');
    if (match[2] !== undefined) cited.push(match[2]);
  }
  return cited;
}

/** Where a text points outside the repository for its specification. */
export function outsidePointers(text: string): string[] {
  return [...text.matchAll(/\.\.\/shared\b|\bshared\/DESIGN|\bDESIGN(?:\.md)?\b/g)].map((match) =>
    match[0]
  );
}

describe('the contract in the repository', () => {
  const sections = contractSections(readFileSync(new URL(CONTRACT, ROOT), 'utf8'));
  const files = trackedTextFiles().filter((path) =>
    path !== 'test/docs/contract-references.test.ts'
  );

  it('has its numbered sections', () => {
    expect([...sections]).toEqual(
      expect.arrayContaining(['1', '3', '4', '4.2', '5', '5.1', '5.2', '5.3', '6', '7']),
    );
  });

  it('is the only specification any file points at', () => {
    const outside = files.flatMap((path) =>
      outsidePointers(readFileSync(new URL(path, ROOT), 'utf8')).map((pointer) =>
        `${path}: ${pointer}`
      )
    );
    expect(outside).toEqual([]);
  });

  it('has every section a file cites', () => {
    const dangling = files.flatMap((path) =>
      citedSections(readFileSync(new URL(path, ROOT), 'utf8'))
        .filter((section) => !sections.has(section))
        .map((section) => `${path}: CONTRACT section ${section}`)
    );
    expect(dangling).toEqual([]);
  });

  it('finds citations and pointers in the forms they are written in', () => {
    expect(citedSections('as CONTRACT section 5.3 says; CONTRACT sections 4 and 5; CONTRACT 6'))
      .toEqual([
        '5.3',
        '4',
        '5',
        '6',
      ]);
    expect(contractSections('## 4. The HTTP API\n### 4.2 Parameters\n#### 9 no')).toEqual(
      new Set(['4', '4.2']),
    );
    expect(outsidePointers('see ../shared/DESIGN.md and DESIGN section 4; DESIGNER is fine'))
      .toEqual([
        '../shared',
        'DESIGN.md',
        'DESIGN',
      ]);
  });
});
