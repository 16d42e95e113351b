import { router } from '../../trpc.ts';
import { getFaq } from './get.ts';

export const faqRouter = router({ get: getFaq });
