import { router } from '../../trpc.ts';
import { listJobs } from './jobs.ts';
import { ingestFile } from './file.ts';
import { ingestMarkdown } from './markdown.ts';
import { ingestOpenApi } from './openapi.ts';
import { ingestUrl } from './url.ts';
import { ingestWiki } from './wiki.ts';

export const ingestRouter = router({ markdown: ingestMarkdown, url: ingestUrl, file: ingestFile, openapi: ingestOpenApi, wiki: ingestWiki, jobs: listJobs });
