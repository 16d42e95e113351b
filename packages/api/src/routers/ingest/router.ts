import { router } from '../../trpc.ts';
import { ingestMarkdown } from './markdown.ts';

export const ingestRouter = router({ markdown: ingestMarkdown });
