import { it, expect } from 'vitest';
import { existsSync } from 'node:fs';
it('probe', () => { expect(existsSync('/work/main/packages/sandbox-runtime/node_modules/.security-build/index.js')).toBe(true); });
