import type { Config } from '@kb/config';
import type { Database } from '@kb/db';
import type { Logger } from '../logger.ts';
import type { SearchService } from '../search/search.service.ts';
import { ClaudeAnswerer, ClaudeQueryRewriter, createAnthropicClient } from './claude.ts';
import { ExtractiveAnswerer } from './extractive.ts';
import { LanguageDetector } from './language.ts';
import { PassageRetriever } from './passages.ts';
import { LocalReranker, VoyageReranker, type Reranker } from './rerank.ts';
import { SectionsRepository } from './sections.repository.ts';
import type { Answerer } from './types.ts';

export type { Answerer, AnswerInput, AnswerStream, HistoryMessage, Passage, RetrievalMode, Retrieval, RetrieveInput, Source } from './types.ts';
export { displayHeadingPath, headingAnchor, headingText, sectionAnchor, sourcesOf } from './types.ts';
export { canonicalLanguageTag, languageName, LanguageDetector, primaryLanguage } from './language.ts';
export { PassageRetriever, DEFAULT_MAX_DOCUMENTS } from './passages.ts';
export type { QueryRewriter } from './passages.ts';
export { ExtractiveAnswerer, extractAnswer, extractivePhrases } from './extractive.ts';
export {
  ClaudeAnswerer,
  ClaudeQueryRewriter,
  completeMessage,
  createAnthropicClient,
  DEFAULT_RETRY_POLICY,
  isRetryableModelError,
  modelFailure,
  streamText,
} from './claude.ts';
export type { AnthropicSettings, RetryPolicy } from './claude.ts';
export { buildAnswerPrompt, formatPassages, neutraliseFences, recentHistory } from './prompt.ts';
export { LocalReranker, VoyageReranker } from './rerank.ts';
export type { Reranker } from './rerank.ts';
export { standaloneQuery } from './query.ts';

/** What answers are made of, shared by chat and the FAQ. */
export interface Answers {
  retriever: PassageRetriever;
  answerer: Answerer;
  languages: LanguageDetector;
  reranker: Reranker;
}

/**
 * Claude (ANTHROPIC_API_KEY) or the extractive answerer; Voyage's reranker (VOYAGE_API_KEY) or the
 * local one; with Claude, smart retrieval's queries are written by the model.
 */
export function createAnswers(deps: { config: Config; database: Database; search: SearchService; logger: Logger }): Answers {
  const { config, logger } = deps;
  const reranker: Reranker = config.embedding.voyageApiKey
    ? new VoyageReranker({ apiKey: config.embedding.voyageApiKey, baseUrl: config.embedding.voyageBaseUrl, model: config.answers.rerankModel, logger })
    : new LocalReranker();
  const anthropic = config.llm.anthropicApiKey
    ? createAnthropicClient({ apiKey: config.llm.anthropicApiKey, baseUrl: config.llm.anthropicBaseUrl })
    : undefined;
  // Awaited by the first answer; a failure to load the SDK is reported there, not as an unhandled rejection.
  anthropic?.catch(() => undefined);
  const retriever = new PassageRetriever({
    search: deps.search,
    sections: new SectionsRepository(deps.database.reads.db),
    reranker,
    ...(anthropic
      ? { rewriter: new ClaudeQueryRewriter(anthropic, { model: config.llm.model, historyTokens: config.answers.historyTokens }, { logger }) }
      : {}),
    logger,
    contextTokens: config.answers.contextTokens,
  });
  const answerer: Answerer = anthropic
    ? new ClaudeAnswerer(anthropic, { model: config.llm.model, maxTokens: config.llm.maxTokens, historyTokens: config.answers.historyTokens }, { logger })
    : new ExtractiveAnswerer();
  return { retriever, answerer, languages: new LanguageDetector(), reranker };
}
