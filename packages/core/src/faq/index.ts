import type { Config } from '@kb/config';
import type { Database } from '@kb/db';
import { createAnthropicClient } from '../answers/claude.ts';
import type { Answers } from '../answers/index.ts';
import type { Logger } from '../logger.ts';
import type { SlidingWindowRateLimiter } from '../ratelimit/rate-limiter.ts';
import { ClaudeFaqWriter } from './claude-faq.ts';
import { ExtractiveFaqWriter } from './extractive-faq.ts';
import { FaqRepository } from './faq.repository.ts';
import { FaqService, type FaqServiceOptions } from './faq.service.ts';
import { FaqLimits } from './limits.ts';
import type { FaqWriter } from './types.ts';

export { FaqService, FAQ_CACHE_TTL_MS } from './faq.service.ts';
export type { FaqAnswer, FaqRequest, FaqServiceOptions } from './faq.service.ts';
export { FaqRepository } from './faq.repository.ts';
export { FaqLimits, addressSubject } from './limits.ts';
export type { FaqLimitSettings } from './limits.ts';
export { ClaudeFaqWriter, checkFaqReply, buildFaqPrompt, FAQ_TOOL_NAME } from './claude-faq.ts';
export { ExtractiveFaqWriter, buildExtractiveFaq, EXTRACTIVE_FAQ_VERSION } from './extractive-faq.ts';
export { headingQuestion, purposeQuestions, cleanHeading } from './questions.ts';
export { renderFaq } from './render.ts';
export { faqCacheKey, normaliseTopic } from './key.ts';
export type { Faq, FaqPair, FaqWriter, FaqWriteInput } from './types.ts';
export { MIN_FAQ_PAIRS, MAX_FAQ_PAIRS } from './types.ts';

/** The FAQ service: Claude with ANTHROPIC_API_KEY, else the extractive writer; limits on the shared rate limiter. */
export function createFaqService(deps: {
  config: Config;
  database: Database;
  answers: Answers;
  rateLimiter: SlidingWindowRateLimiter;
  logger: Logger;
  options?: Partial<FaqServiceOptions>;
}): FaqService {
  const { config, logger } = deps;
  const writer: FaqWriter = config.llm.anthropicApiKey
    ? new ClaudeFaqWriter(createAnthropicClient({ apiKey: config.llm.anthropicApiKey, baseUrl: config.llm.anthropicBaseUrl }), { model: config.llm.model }, { logger })
    : new ExtractiveFaqWriter(deps.answers.languages);
  return new FaqService(
    new FaqRepository(deps.database.db),
    deps.answers,
    writer,
    new FaqLimits(deps.rateLimiter, {
      requestsPerMinute: config.faq.requestsPerMinute,
      missesPerMinute: config.faq.missesPerMinute,
      modelFaqsPerDay: config.faq.dailyLimit,
      prefix: config.jobs.queuePrefix,
    }),
    logger,
    {
      namespaces: config.faq.namespaces,
      contextTokens: config.faq.contextTokens,
      crossProcess: deps.database.shared,
      semanticRetrieval: config.embedding.voyageApiKey !== undefined,
      ...deps.options,
    },
  );
}
