import { router } from '../../trpc.ts';
import { ingestMarkdown } from './markdown.ts';
import { ingestOpenApi } from './openapi.ts';
import { ingestUrl } from './url.ts';

export const ingestRouter = router({ markdown: ingestMarkdown, url: ingestUrl, openapi: ingestOpenApi });
