import { router } from '../../trpc.ts';
import { deleteDocument } from './delete.ts';
import { getDocument } from './get.ts';
import { listDocuments } from './list.ts';

export const documentsRouter = router({ list: listDocuments, get: getDocument, delete: deleteDocument });
