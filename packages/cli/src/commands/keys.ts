import { parseArgs } from 'node:util';
import type { Config } from '@kb/config';
import { ApiKeysRepository, ApiKeysService } from '@kb/core';
import { CliError, openStore } from '../store.ts';

export const KEYS_USAGE = `Usage:
  kb keys create --label NAME [--admin] [--rpm N] [--rpd N] [--json]
  kb keys list [--json]
  kb keys revoke ID`;

function limitOption(name: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  if (!/^\d+$/.test(value) || Number(value) > 1_000_000_000) {
    throw new CliError(`--${name} must be a whole number of requests (0 blocks the key; leave it out for no limit)`);
  }
  return Number(value);
}

export async function keysCommand(args: string[], config: Config, out: (line: string) => void): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      label: { type: 'string' },
      admin: { type: 'boolean', default: false },
      rpm: { type: 'string' },
      rpd: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });

  if (action === 'create') {
    const label = values.label?.trim();
    if (!label) throw new CliError(`--label is required\n${KEYS_USAGE}`);
    if (label.length > 200) throw new CliError('--label must be at most 200 characters');
    const rateLimitRpm = limitOption('rpm', values.rpm);
    const rateLimitRpd = limitOption('rpd', values.rpd);
    const store = await openStore(config);
    try {
      const created = await new ApiKeysService(new ApiKeysRepository(store.database.db)).create({
        label,
        admin: values.admin,
        rateLimitRpm,
        rateLimitRpd,
      });
      if (values.json) {
        out(JSON.stringify(created));
      } else {
        out(`Created ${created.admin ? 'admin ' : ''}API key "${created.label}" (id ${created.id}):\n\n  ${created.key}\n\nKeep it now: it is not shown again. Use it as "Authorization: Bearer ${created.key.slice(0, 9)}...".`);
      }
    } finally {
      await store.close();
    }
    return;
  }

  if (action === 'list') {
    const store = await openStore(config);
    try {
      const keys = await new ApiKeysService(new ApiKeysRepository(store.database.db)).list();
      if (values.json) {
        out(JSON.stringify({ keys }));
      } else if (keys.length === 0) {
        out('No API keys yet: create one with "kb keys create --label NAME --admin".');
      } else {
        for (const key of keys) {
          const state = key.revokedAt ? `revoked ${key.revokedAt}` : 'active';
          out(`${key.id}  ${key.keyPrefix}...  ${key.admin ? 'admin' : 'user '}  ${state}  requests=${key.requestCount}  "${key.label}"`);
        }
      }
    } finally {
      await store.close();
    }
    return;
  }

  if (action === 'revoke') {
    const id = positionals[0];
    if (!id) throw new CliError(`The key id is required\n${KEYS_USAGE}`);
    const store = await openStore(config);
    try {
      await new ApiKeysService(new ApiKeysRepository(store.database.db)).revoke(id);
      out(`Revoked API key ${id}.`);
    } finally {
      await store.close();
    }
    return;
  }

  throw new CliError(KEYS_USAGE);
}
