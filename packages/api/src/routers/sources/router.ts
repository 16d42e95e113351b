import { router } from '../../trpc.ts';
import { createSource } from './create.ts';
import { deleteSource } from './delete.ts';
import { sourceFailures } from './failures.ts';
import { getSource } from './get.ts';
import { listSources } from './list.ts';
import { syncSource } from './sync.ts';
import { updateSource } from './update.ts';

export const sourcesRouter = router({
  create: createSource,
  list: listSources,
  get: getSource,
  update: updateSource,
  delete: deleteSource,
  sync: syncSource,
  failures: sourceFailures,
});
