import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/**
 * The console's size budget (issue 19): at most 250 KB of gzipped JavaScript in all, every chunk counted (one
 * loaded later too), gzip at zlib level 9 per file as `pnpm bench:console` measures it. Checked on the build that
 * `pnpm test:console` makes first, so CI fails the change that breaks it.
 */
const BUDGET_BYTES = 250_000;
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));

describe('console bundle: the size budget', () => {
  it('ships at most 250 KB of gzipped JavaScript in all, and index.html loads only files of the build', () => {
    const assets = readdirSync(join(DIST, 'assets'));
    const scripts = assets.filter((name) => name.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(0);
    const sizes = scripts.map((name) => ({ name, gzip: gzipSync(readFileSync(join(DIST, 'assets', name)), { level: 9 }).length }));
    const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
    expect({ total, within: total <= BUDGET_BYTES, sizes }).toMatchObject({ within: true });
    // What the page loads is what was counted: every script and stylesheet of index.html is a file of assets/.
    const html = readFileSync(join(DIST, 'index.html'), 'utf8');
    const loaded = [...html.matchAll(/(?:src|href)="\/assets\/([^"]+)"/g)].map((m) => m[1]!);
    expect(loaded.length).toBeGreaterThan(0);
    for (const name of loaded) expect(assets).toContain(name);
    expect(html).not.toMatch(/<script[^>]+src="(?!\/assets\/)/);
  });
});
