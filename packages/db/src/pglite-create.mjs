// Creates a new embedded store (PGlite's initdb) in a process of its own, which then exits (see
// pglite-thread.ts). Plain JavaScript, like the thread's entry: it needs nothing but PGlite.
//   node pglite-create.mjs <dataDir> <startParams as JSON>
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';

const [dataDir, startParams] = process.argv.slice(2);
const pglite = await PGlite.create(dataDir, { extensions: { vector }, ...(startParams ? { startParams: JSON.parse(startParams) } : {}) });
await pglite.close();
