/**
 * The public FAQ: GET /faq's service.
 *
 * A request is counted against its address's (generous) request limit, then looked up in the
 * cache by its normalised topic, scope and language: an entry younger than 7 days, made by the
 * current writer, whose documents all still have the content hashes it was made from, is served
 * as it is (`cached: true`). Otherwise the miss is counted against the address's miss limit and
 * the FAQ is made once however many requests ask for it at the same time: requests in this
 * process share one generation; in services mode (PostgreSQL) a lease row in the database makes
 * requests in other processes wait for the holder's entry instead of making it again. Making it:
 * passages retrieved as chat's standard retrieval does, with a wider budget; nothing on topic is a
 * 404 (nothing stored); with Claude the daily model limit is counted; the writer's pairs are
 * rendered and stored with their documents' hashes. Failures are never stored. Only the request
 * that made the FAQ answers `cached: false`; any other, including those that waited, `true`.
 *
 * A generation is not tied to the request that started it: others may be waiting for it, and its
 * result is kept for everyone.
 */
import { metrics } from '../telemetry/metrics.ts';
import { randomUUID } from 'node:crypto';
import { untilAborted } from '../abort.ts';
import type { Answers } from '../answers/index.ts';
import type { Passage, Source } from '../answers/types.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { NAMESPACES, resolveNamespaces, type Namespace, type NamespaceScope } from '../namespaces.ts';
import type { RateLimitDecision } from '../ratelimit/rate-limiter.ts';
import type { DocumentState, FaqRepository } from './faq.repository.ts';
import { faqCacheKey } from './key.ts';
import type { FaqLimits } from './limits.ts';
import { isOnTopic, topicTerms, topicWeights } from './relevance.ts';
import { renderFaq } from './render.ts';
import type { Faq, FaqSource, FaqWriter } from './types.ts';

/** How long an FAQ is served from the cache (specification: 7 days). */
export const FAQ_CACHE_TTL_MS = 7 * 24 * 3_600_000;
/** Most distinct documents an FAQ's passages come from, and chunks its retrieval reads. */
const FAQ_MAX_DOCUMENTS = 8;
const FAQ_RETRIEVAL_DEPTH = 30;

export interface FaqServiceOptions {
  /** The namespaces the public FAQ may draw on (KB_FAQ_NAMESPACES); by default the public ones, without the wiki. */
  namespaces?: readonly Namespace[];
  /** Estimated tokens of the passages given to the writer. */
  contextTokens: number;
  /** Whether a lease in the database serialises generations across processes (services mode). */
  crossProcess: boolean;
  /** Whether the embeddings are semantic (Voyage): the model then judges relevance the words cannot. */
  semanticRetrieval: boolean;
  /** The clock (tests move it). */
  now?: () => number;
  /** Between removals of expired entries. */
  sweepIntervalMs?: number;
  /** A lease's lifetime; the holder renews it at a third of that. */
  leaseMs?: number;
  /** Between looks at the cache while another process holds the lease. */
  pollMs?: number;
  /** Longest a request waits for another process's generation. */
  maxWaitMs?: number;
}

export interface FaqRequest {
  /** The topic as asked (trimmed). */
  q: string;
  /** A namespace, or `all` (every one the FAQ and the caller may draw on). */
  scope: Namespace | 'all';
  /** The caller's key's namespaces (a publishable or scoped key), null for anyone else. */
  callerScope?: NamespaceScope;
  /** A canonical BCP 47 tag; detected from the topic when absent. */
  language?: string;
  /** The client's address, for its limits. */
  clientAddress: string;
}

export interface FaqAnswer {
  faq: Faq;
  /** The limit the response reports in its RateLimit headers. */
  rateLimit: RateLimitDecision;
}

interface Made {
  content: string;
  sources: FaqSource[];
  generatedAt: Date;
  /** Whether this process made it (false: read from another process's entry). */
  made: boolean;
}

const publicSource = ({ contentHash: _hash, ...source }: FaqSource): Source => source;

export class FaqService {
  private readonly inFlight = new Map<string, Promise<Made>>();
  private readonly owner = randomUUID();
  private readonly now: () => number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly repository: FaqRepository,
    private readonly answers: Pick<Answers, 'retriever' | 'languages'>,
    private readonly writer: FaqWriter,
    private readonly limits: FaqLimits,
    private readonly logger: Logger,
    private readonly options: FaqServiceOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  get writerKind(): FaqWriter['kind'] {
    return this.writer.kind;
  }

  /** The namespaces the public FAQ may draw on. */
  get namespaces(): readonly Namespace[] {
    return this.options.namespaces ?? NAMESPACES;
  }

  /**
   * The namespaces a request draws on: the one it names, or for `all` every one the FAQ setting and
   * the caller's key both allow. A namespace the setting or the key does not allow is a 403 saying which.
   */
  private drawsOn(request: FaqRequest): Namespace[] {
    const requested = request.scope === 'all' ? null : [request.scope];
    const allowed = resolveNamespaces(requested, this.namespaces, 'The public FAQ (KB_FAQ_NAMESPACES)');
    const scope = request.callerScope ?? null;
    if (scope === null) return allowed;
    if (requested) return resolveNamespaces(allowed, scope);
    const both = allowed.filter((namespace) => scope.includes(namespace));
    if (both.length === 0) {
      throw new AppError('FORBIDDEN', `None of this key's namespaces (${scope.join(', ')}) is one the public FAQ may draw on (KB_FAQ_NAMESPACES: ${this.namespaces.join(', ')})`);
    }
    return both;
  }

  async get(request: FaqRequest, signal?: AbortSignal, log: Logger = this.logger): Promise<FaqAnswer> {
    const namespaces = this.drawsOn(request);
    const requestLimit = await this.limits.request(request.clientAddress);
    const language = await this.answers.languages.resolve(request.q, request.language, undefined);
    // Cached by what it draws on: `all` for every namespace, else the namespaces it read.
    const key = faqCacheKey(request.q, namespaces.length === NAMESPACES.length ? 'all' : namespaces.join('+'), language);
    const answer = (made: Made, cached: boolean): Faq => ({
      query: request.q,
      scope: request.scope,
      language,
      content: made.content,
      cached,
      sources: made.sources.map(publicSource),
      generatedAt: made.generatedAt.toISOString(),
    });

    const hit = await this.repository.find(key, this.writer.id, new Date(this.now()));
    if (hit) {
      metrics.faqCache('hit');
      return { faq: answer({ ...hit, made: false }, true), rateLimit: requestLimit };
    }
    metrics.faqCache('miss');

    const missLimit = await this.limits.miss(request.clientAddress);
    let generation = this.inFlight.get(key);
    const joined = generation !== undefined;
    if (joined) metrics.faqJoin();
    if (!generation) {
      generation = this.generate(key, request, namespaces, language, log.child({ faq: key.slice(0, 12) })).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, generation);
    }
    const made = await (signal ? untilAborted(generation, signal) : generation);
    return { faq: answer(made, joined || !made.made), rateLimit: missLimit };
  }

  /** Makes the entry, or waits for the process that holds its lease and reads its entry. */
  private async generate(key: string, request: FaqRequest, namespaces: readonly Namespace[], language: string, log: Logger): Promise<Made> {
    if (!this.options.crossProcess) return this.make(key, request, namespaces, language, log);
    const leaseMs = this.options.leaseMs ?? 30_000;
    const pollMs = this.options.pollMs ?? 100;
    const deadline = this.now() + (this.options.maxWaitMs ?? 150_000);
    while (!(await this.repository.acquireLease(key, this.owner, leaseMs))) {
      if (this.now() > deadline) throw new AppError('SERVICE_UNAVAILABLE', 'This FAQ is still being made; try again shortly');
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      const entry = await this.repository.find(key, this.writer.id, new Date(this.now()));
      if (entry) return { ...entry, made: false };
    }
    const renew = setInterval(() => {
      this.repository.renewLease(key, this.owner, leaseMs).catch((error: unknown) => log.warn({ err: error }, 'could not renew the FAQ lease'));
    }, Math.max(10, Math.floor(leaseMs / 3)));
    try {
      // Made by another process between our look at the cache and the lease.
      const entry = await this.repository.find(key, this.writer.id, new Date(this.now()));
      if (entry) return { ...entry, made: false };
      return await this.make(key, request, namespaces, language, log);
    } finally {
      clearInterval(renew);
      await this.repository.releaseLease(key, this.owner).catch((error: unknown) => log.warn({ err: error }, 'could not release the FAQ lease'));
    }
  }

  private async make(key: string, request: FaqRequest, namespaces: readonly Namespace[], language: string, log: Logger): Promise<Made> {
    try {
      const made = await this.makeOnce(key, request, namespaces, language, log);
      metrics.faqGeneration('ok');
      return made;
    } catch (error) {
      metrics.faqGeneration('error');
      throw error;
    }
  }

  private async makeOnce(key: string, request: FaqRequest, namespaces: readonly Namespace[], language: string, log: Logger): Promise<Made> {
    const started = performance.now();
    const retrieval = await this.answers.retriever.retrieve({
      message: request.q,
      namespaces,
      mode: 'standard',
      budgetTokens: this.options.contextTokens,
      maxDocuments: FAQ_MAX_DOCUMENTS,
      depth: FAQ_RETRIEVAL_DEPTH,
    });
    const terms = topicTerms(request.q);
    const weights = topicWeights(terms, retrieval.passages);
    const onTopic = retrieval.passages.some((p) => isOnTopic(p, terms, weights));
    // With semantic embeddings a topic may match in other words (or another language): the model judges.
    const modelJudges = this.writer.kind === 'claude' && this.options.semanticRetrieval && retrieval.passages.length > 0;
    if (!onTopic && !modelJudges) throw nothingAbout(request);

    const states = await this.repository.documents([...new Set(retrieval.passages.map((p) => p.documentId))]);
    const passages: Passage[] = retrieval.passages
      .filter((p) => states.has(p.documentId))
      .map((p) => {
        const url = states.get(p.documentId)!.url;
        return url ? { ...p, url } : p;
      });
    if (this.writer.kind === 'claude') await this.limits.modelFaq();
    const pairs = (await this.writer.write({ topic: request.q, language, passages })).filter((pair) =>
      pair.documentIds.some((id) => states.has(id)),
    );
    if (pairs.length === 0) throw nothingAbout(request);

    const sources = sourcesOf(pairs.flatMap((p) => p.documentIds), states);
    const content = renderFaq(pairs, new Map(sources.map((s) => [s.documentId, s])), language);
    const createdAt = new Date(this.now());
    await this.repository.store({
      cacheKey: key,
      query: request.q,
      scope: request.scope,
      language,
      content,
      sources,
      generator: this.writer.id,
      createdAt,
      expiresAt: new Date(createdAt.getTime() + FAQ_CACHE_TTL_MS),
    });
    log.info({ writer: this.writer.id, pairs: pairs.length, sources: sources.length, ms: Math.round(performance.now() - started) }, 'FAQ made');
    return { content, sources, generatedAt: createdAt, made: true };
  }

  /** Deletes expired entries (and lapsed leases); returns how many entries. */
  async removeExpired(): Promise<number> {
    return this.repository.removeExpired(new Date(this.now()));
  }

  /** Removes expired entries now and then every sweep interval (an hour by default). */
  start(): void {
    if (this.sweeper) return;
    if (this.namespaces.includes('wiki')) {
      // The operator named the wiki; a team's internal pages must not reach the open internet unnoticed.
      this.logger.warn(
        { namespaces: this.namespaces },
        'the public FAQ (no credentials) may draw on the wiki namespace (KB_FAQ_NAMESPACES): anyone who reaches the FAQ can read what the wiki holds; leave wiki out if its pages are internal',
      );
    }
    const sweep = () => {
      this.removeExpired()
        .then((n) => n > 0 && this.logger.info({ removed: n }, 'expired FAQs removed'))
        .catch((error: unknown) => this.logger.warn({ err: error }, 'could not remove expired FAQs'));
    };
    sweep();
    this.sweeper = setInterval(sweep, this.options.sweepIntervalMs ?? 3_600_000);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    // Generations under way get a moment to finish and release their leases before the store closes
    // (a lease left behind lapses by itself).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight.values()]), new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
    clearTimeout(timer);
  }
}

function nothingAbout(request: FaqRequest): AppError {
  const where = request.scope === 'all' ? 'the knowledge base' : `the ${request.scope} namespace`;
  return new AppError('NOT_FOUND', `Nothing in ${where} is about "${request.q.slice(0, 100)}": no FAQ can be made for it`);
}

/** The distinct documents of the pairs, in order of first mention, with their states. */
function sourcesOf(ids: readonly string[], states: ReadonlyMap<string, DocumentState>): FaqSource[] {
  const out: FaqSource[] = [];
  for (const id of new Set(ids)) {
    const state = states.get(id);
    if (state) out.push({ documentId: id, ...state });
  }
  return out;
}
