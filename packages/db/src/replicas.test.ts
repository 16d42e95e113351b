import { describe, expect, it } from 'vitest';
import { readFromPrimary, readsPinnedToPrimary, serverUnavailable } from './replicas.ts';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('serverUnavailable', () => {
  it('tells a server that went away from a statement that would fail anywhere', () => {
    expect(serverUnavailable(coded('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(serverUnavailable(coded('57P03', 'the database system is starting up'))).toBe(true);
    expect(serverUnavailable(coded('08006'))).toBe(true);
    expect(serverUnavailable(coded('ECONNREFUSED'))).toBe(true);
    expect(serverUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(serverUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);

    expect(serverUnavailable(coded('42P01', 'relation "nope" does not exist'))).toBe(false);
    expect(serverUnavailable(coded('25006', 'cannot execute INSERT in a read-only transaction'))).toBe(false);
    expect(serverUnavailable(coded('57014', 'canceling statement due to statement timeout'))).toBe(false);
    expect(serverUnavailable(new TypeError('undefined is not a function'))).toBe(false);
    expect(serverUnavailable('gone')).toBe(false);
  });
});

describe('readFromPrimary', () => {
  it('pins the reads of a call and of what it awaits, and of nothing else', async () => {
    expect(readsPinnedToPrimary()).toBe(false);
    const inside = await readFromPrimary(async () => {
      await new Promise((r) => setTimeout(r, 1));
      return readsPinnedToPrimary();
    });
    expect(inside).toBe(true);
    expect(readsPinnedToPrimary()).toBe(false);
  });
});
