import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
// @ts-expect-error: a plain ES module script without types
import { findViolations } from '../scripts/check-boundaries.mjs';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'boundaries-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('module boundary check', () => {
  it('finds no violation in src', () => {
    expect(findViolations('src')).toEqual([]);
  });

  it('catches a planted import of another module\'s internals', () => {
    const root = tree({
      'modules/incidents/incidents.service.ts': [
        "import { FiltersFacade } from '../filters/contracts.js';",
        "import { Filter } from '../filters/domain/filter.entity.js';",
        "export { x } from '../filters/filters.service.js';",
        "const lazy = () => import('../tokens/tokens.service.js');",
        "import { ownThing } from './domain/own.js';",
      ].join('\n'),
      'integrations/acme/acme.module.ts': "import { TemplatesService } from '../../modules/templates/templates.service.js';",
      'modules/filters/contracts.ts': 'export {};',
    });
    try {
      const found: string[] = findViolations(root);
      expect(found).toHaveLength(4);
      expect(found.join('\n')).toContain('../filters/domain/filter.entity.js');
      expect(found.join('\n')).toContain('../filters/filters.service.js');
      expect(found.join('\n')).toContain('../tokens/tokens.service.js');
      expect(found.join('\n')).toContain('templates.service.js');
      expect(found.join('\n')).not.toContain('imports ../filters/contracts.js');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
