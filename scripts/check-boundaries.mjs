#!/usr/bin/env node
// Module boundaries: code in one module (src/modules/<name>/ or src/integrations/<name>/) may import
// another module only through that module's `contracts.ts`. Exits 1 and lists every violation.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const IMPORT = /(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

/** `{ kind: 'modules' | 'integrations', name, rest }` for a path inside a module, else null. */
function moduleOf(srcRoot, file) {
  const parts = relative(srcRoot, file).split(sep);
  if ((parts[0] === 'modules' || parts[0] === 'integrations') && parts.length > 2) {
    return { kind: parts[0], name: parts[1], rest: parts.slice(2).join('/') };
  }
  return null;
}

/** Every import that reaches into another module past its contracts, as `file: specifier`. */
export function findViolations(srcRoot) {
  const root = resolve(srcRoot);
  const violations = [];
  for (const file of sourceFiles(root)) {
    const from = moduleOf(root, file);
    if (!from) continue;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      if (!specifier.startsWith('.')) continue;
      const target = moduleOf(root, resolve(dirname(file), specifier));
      if (!target || (target.kind === from.kind && target.name === from.name)) continue;
      if (/^contracts(\.[mc]?[jt]s)?$/.test(target.rest)) continue;
      violations.push(`${relative(process.cwd(), file)}: imports ${specifier} (only ${target.kind}/${target.name}/contracts may be imported)`);
    }
  }
  return violations;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? 'src';
  const violations = findViolations(root);
  if (violations.length > 0) {
    console.error(`Module boundary violations (${violations.length}):\n${violations.map((v) => `  ${v}`).join('\n')}`);
    process.exit(1);
  }
  console.log(`Module boundaries: no violations in ${root}`);
}
