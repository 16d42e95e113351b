import { router } from '../../trpc.ts';
import { assistantConfig } from './config.ts';
import { admitVisitor } from './visitor.ts';

export const assistantRouter = router({ config: assistantConfig, visitor: admitVisitor });
