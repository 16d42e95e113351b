#!/usr/bin/env node
// The `kb` command: the compiled code (dist, built by `pnpm build` and on install), its workspace
// packages resolved to their compiled output (`--conditions=production`) as `pnpm start` runs the
// server. Node takes conditions only at start, so it starts Node once more with them (a resolve
// hook costs more: every import then goes through the hooks' thread). Without a build it runs the
// TypeScript sources through tsx, as `pnpm kb:dev` always does.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/main.js', import.meta.url));
if (existsSync(compiled)) {
  const child = spawn(process.execPath, ['--conditions=production', compiled, ...process.argv.slice(2)], { stdio: 'inherit' });
  // Ctrl-C reaches both processes; a signal sent to this one alone is passed on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 143)));
} else {
  const tsx = await import('tsx/esm/api');
  tsx.register();
  await import('../src/main.ts');
}
