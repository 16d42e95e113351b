import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BackupFileError, LineSplitter, readBackupEvents } from './format.ts';

const MiB = 1024 * 1024;

describe('splitting a backup into lines', () => {
  it('copies each byte of a line that spans many chunks at most twice (no re-copy per chunk)', () => {
    const splitter = new LineSplitter();
    const lines: Buffer[] = [];
    const lineBytes = 32 * MiB;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    for (let sent = 0; sent < lineBytes; sent += chunk.length) splitter.push(chunk, (line) => lines.push(line));
    splitter.push(Buffer.from('\nshort\nlast'), (line) => lines.push(line));
    expect(lines.map((line) => line.length)).toEqual([lineBytes, 5]);
    expect(lines[0]!.every((byte) => byte === 0x61)).toBe(true);
    expect(splitter.flush()?.toString()).toBe('last');
    // Kept once, joined once (the bytes after the last newline, kept once). Joining the line so
    // far again at each of its 512 chunks would copy about 8 GiB.
    expect(splitter.copiedBytes).toBeLessThanOrEqual(2 * lineBytes + 'last'.length);
  });

  it('joins lines cut anywhere, a newline first or last in a chunk included', () => {
    const text = 'one\ntwo\n\nthree\nfour';
    for (let cut = 0; cut <= text.length; cut++) {
      const splitter = new LineSplitter();
      const lines: string[] = [];
      splitter.push(Buffer.from(text.slice(0, cut)), (line) => lines.push(line.toString()));
      splitter.push(Buffer.from(text.slice(cut)), (line) => lines.push(line.toString()));
      lines.push(splitter.flush()?.toString() ?? '');
      expect(lines).toEqual(['one', 'two', '', 'three', 'four']);
    }
  });

  it('stops at a line over the limit with an error naming the line, before holding it whole', async () => {
    const header = { format: BACKUP_FORMAT, version: BACKUP_FORMAT_VERSION, createdAt: new Date().toISOString(), store: 'embedded', migrations: [], embedding: { model: null, dimension: 1024 }, tables: [] };
    // Gzip members one after another: 40 MiB of one line from a small file, as a hostile one could be.
    const block = gzipSync(Buffer.alloc(MiB, 0x61));
    const members = [gzipSync(`${JSON.stringify(header)}\n{"table":"namespaces","columns":["id"]}\n`), ...Array.from({ length: 40 }, () => block)];
    let fed = 0;
    const input = Readable.from(
      (function* () {
        for (const member of members) {
          fed++;
          yield member;
        }
      })(),
    );
    const events: string[] = [];
    const read = (async () => {
      for await (const event of readBackupEvents(input, { maxLineBytes: 16 * MiB })) events.push(event.kind);
    })();
    await expect(read).rejects.toThrow(BackupFileError);
    await expect(read).rejects.toThrow('The backup file is damaged: line 3 is longer than 16 MiB, the most one line of a backup holds (one table row).');
    expect(events).toEqual(['header', 'table']);
    // It stopped reading soon after the limit, not at the end of the line.
    expect(fed).toBeLessThan(members.length);
  });
});
