// node:fs with the globSync Node 22 added, for the MCP conformance suite on Node 20 (it imports
// the name; the server scenarios never call it).
import fs from 'node:fs';

export * from 'node:fs';
export default fs;
export const globSync =
  fs.globSync ??
  function globSync() {
    throw new Error('fs.globSync needs Node 22');
  };
