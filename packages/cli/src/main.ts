import { ConfigError, loadConfig } from '@kb/config';
import { AppError } from '@kb/core';
import { MigrationError, StoreLockedError } from '@kb/db';
import { adminCommand, ADMIN_USAGE } from './commands/admin.ts';
import { keysCommand, KEYS_USAGE } from './commands/keys.ts';
import { migrateCommand } from './commands/migrate.ts';
import { ingestFolderCommand, INGEST_FOLDER_USAGE } from './commands/ingest-folder.ts';
import { reindexCommand, REINDEX_USAGE } from './commands/reindex.ts';
import { evalCommand, EVAL_USAGE } from './commands/eval.ts';
import { mcpCommand, MCP_USAGE } from './commands/mcp.ts';
import { backupCommand, BACKUP_USAGE, moveCommand, restoreCommand } from './commands/backup.ts';
import { sourcesCommand, SOURCES_USAGE } from './commands/sources.ts';
import { CliError } from './store.ts';

const USAGE = `kb: the knowledge base service's command line

Commands:
  kb keys create --label NAME [--admin] [--rpm N] [--rpd N] [--json]   create an API key (the secret is shown once)
  kb keys list [--json]                                              list API keys
  kb keys revoke ID                                                  revoke an API key
  kb admin sessions end-all                                          end every admin session (console logins)
  kb ingest-folder <dir> [--dry-run] [--prune] [--base-url URL] [--limit=N] [--api-url URL --api-key KEY]
                                                                     ingest every Markdown file under a directory
  kb sources add <url> | list | sync <id> --api-key ADMIN_KEY     keep a docs website or Confluence space in sync (see kb sources --help)
  kb reindex [--force]                                               re-embed every chunk with the configured embedder
  kb eval <beir-dir> [--split=test]                                  retrieval quality: semantic, hybrid and BM25
  kb migrate                                                         bring the database schema and vector index up to date
  kb mcp --api-url URL --key KEY                                     serve a running server's MCP tools over stdio
  kb backup <file> [--from-url URL --key ADMIN_KEY]                  back up the whole store to one file
  kb restore <file> [--replace]                                      restore a backup (into an empty store unless --replace)
  kb move --to postgres://... | --to DIR [--replace]                 copy the store into another and check the copy

The store is the one the server uses: PostgreSQL when DATABASE_URL is set, else the embedded
store in KB_DATA_DIR (default ./.kb-data), which only one process may open at a time.`;

const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    out(USAGE);
    return command ? 0 : 1;
  }
  // An MCP client's local process: stdout carries MCP alone, and no store is opened.
  if (command === 'mcp') {
    if (args[0] === '--help') {
      out(MCP_USAGE);
      return 0;
    }
    return mcpCommand(args, (line) => process.stderr.write(`${line}\n`));
  }
  const config = loadConfig();
  switch (command) {
    case 'keys':
      if (args[0] === '--help' || args[0] === undefined) {
        out(KEYS_USAGE);
        return args[0] ? 0 : 1;
      }
      await keysCommand(args, config, out);
      return 0;
    case 'admin':
      if (args[0] === '--help' || args[0] === undefined) {
        out(ADMIN_USAGE);
        return args[0] ? 0 : 1;
      }
      await adminCommand(args, config, out);
      return 0;
    case 'ingest-folder':
      if (args[0] === '--help' || args[0] === undefined) {
        out(INGEST_FOLDER_USAGE);
        return args[0] ? 0 : 1;
      }
      return ingestFolderCommand(args, config, {
        out: (s) => process.stdout.write(s),
        err: (s) => process.stderr.write(s),
      });
    case 'sources':
      if (args[0] === '--help' || args[0] === undefined) {
        out(SOURCES_USAGE);
        return args[0] ? 0 : 1;
      }
      return sourcesCommand(args, config, { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), tty: process.stdout.isTTY === true });
    case 'reindex':
      if (args[0] === '--help') {
        out(REINDEX_USAGE);
        return 0;
      }
      return reindexCommand(args, config, (s) => process.stdout.write(s));
    case 'eval':
      if (args[0] === '--help' || args[0] === undefined) {
        out(EVAL_USAGE);
        return args[0] ? 0 : 1;
      }
      return evalCommand(args, config, (s) => process.stdout.write(s));
    case 'migrate':
      await migrateCommand(config, out);
      return 0;
    case 'backup':
    case 'restore':
    case 'move': {
      if (args[0] === '--help' || args[0] === undefined) {
        out(BACKUP_USAGE);
        return args[0] ? 0 : 1;
      }
      const run = { backup: backupCommand, restore: restoreCommand, move: moveCommand }[command];
      return run(args, config, (s) => process.stdout.write(s), (s) => process.stderr.write(s));
    }
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof CliError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(error.exitCode);
    }
    if (error instanceof ConfigError || error instanceof StoreLockedError || error instanceof MigrationError || error instanceof AppError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(error instanceof StoreLockedError ? 2 : 1);
    }
    if (error instanceof Error && error.name === 'ParseArgsError' || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
      process.exit(1);
    }
    process.stderr.write(`kb: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
