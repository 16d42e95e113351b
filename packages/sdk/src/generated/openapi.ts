// Generated from packages/api/openapi.json by `pnpm generate` (openapi-typescript). Do not edit.

export interface paths {
    "/auth/login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an admin session
         * @description Checks the password against KB_ADMIN_PASSWORD and sets an HttpOnly, SameSite=Strict session cookie that grants the admin endpoints.
         */
        post: operations["auth-login"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** End the admin session */
        post: operations["auth-logout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List API keys (never a secret key's secret; publishable keys whole) */
        get: operations["keys-list"];
        put?: never;
        /** Create an API key: secret (for servers) or publishable (for web pages) */
        post: operations["keys-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an API key */
        delete: operations["keys-revoke"];
        options?: never;
        head?: never;
        /**
         * Change a key's label, limits, namespaces, or a publishable key's origins and budgets
         * @description Fields left out stay as they are. A revoked key cannot be changed (409).
         */
        patch: operations["keys-update"];
        trace?: never;
    };
    "/ingest/md": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ingest a Markdown document */
        post: operations["ingest-markdown"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ingest/url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fetch a page and ingest it
         * @description Fetches an http(s) page (HTML, XHTML, Markdown or plain text; at most 10 MB, 15 s, 5 redirects), keeps the main content of HTML as Markdown, and ingests it with the final URL as slug. Private, loopback and link-local addresses are refused unless KB_ALLOW_PRIVATE_URLS is set. 422 when the URL cannot be fetched; the message says why (address not allowed, name not found, timeout, connection refused or reset, the remote status, too large, unsupported content type, too many redirects, a redirect to another scheme).
         */
        post: operations["ingest-url"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ingest/openapi": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Ingest an OpenAPI (Swagger) spec, one document per operation */
        post: operations["ingest-openapi"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ingest/wiki": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Import a wiki space in the background
         * @description Queues a job that imports every current page of a Confluence space (WIKI_BASE_URL, WIKI_EMAIL, WIKI_API_TOKEN) into the namespace, one document per page with slug wiki:<spaceKey>:<pageId>. Answers 202 at once; follow the job with GET /ingest/jobs. Unchanged pages are skipped, pages deleted from the space are removed once the whole space has been listed. 503 when the WIKI_* variables are not set.
         */
        post: operations["ingest-wiki"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ingest/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the last 100 ingestion jobs, newest first */
        get: operations["ingest-jobs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Search the knowledge base (ranked chunks, no answer) */
        post: operations["search"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The passages an answer would be written from, within a token budget (for your own model)
         * @description Retrieves as POST /chat does (hybrid search, hits widened to their sections, near-duplicates dropped) and returns the passages instead of an answer. Nothing is stored in a conversation; the question is logged as searches are (knowledge gaps).
         */
        post: operations["context"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/chat/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Vote on an answer: thumbs up, or down with reasons and a note
         * @description The key (or admin session) that asked may vote; a later vote replaces the earlier one. Any other caller gets 404, as for an unknown answer.
         */
        post: operations["chat-feedback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/conversations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List stored conversations with their messages, newest first */
        get: operations["conversations-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/conversations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A conversation with its messages and the votes on its answers
         * @description For the key (or admin session) that started it; admins read any. Another key's conversation is a 404, as an unknown one.
         */
        get: operations["conversations-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/faq": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An FAQ about a topic, made from the knowledge base (public, cached for 7 days)
         * @description No credentials. 404 when the scope holds nothing about the topic. Limited per client address (KB_FAQ_HIT_RATE_LIMIT_PER_MINUTE requests, KB_FAQ_RATE_LIMIT_PER_MINUTE of them not cached) and, for FAQs written by the model, per day across the service (KB_FAQ_DAILY_LIMIT): 429 with Retry-After.
         */
        get: operations["faq-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List stored documents, most recently updated first */
        get: operations["documents-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/documents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a document: its Markdown and its chunks in order (any key, within the key's namespaces) */
        get: operations["documents-get"];
        put?: never;
        post?: never;
        /** Delete a document and its chunks */
        delete: operations["documents-delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List sources, newest first */
        get: operations["sources-list"];
        put?: never;
        /**
         * Add a source (a docs website, a Confluence space) and, unless `sync: false`, queue its first sync
         * @description A `website` source is a start URL (links are followed within scope) and/or a sitemap URL (indexes too), scoped by hosts, path prefix and include/exclude patterns, with a page cap and a link depth; PDFs it links to are read page by page. Syncs honour robots.txt. A `confluence` source is a space key, read with the server's Confluence account (WIKI_*). Syncs run as jobs; see docs/sources.md.
         */
        post: operations["sources-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sources/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a source: its status, last and next sync, and the page figures of the last sync */
        get: operations["sources-get"];
        put?: never;
        post?: never;
        /** Delete a source, with its documents (`documents=true`) or leaving them in place */
        delete: operations["sources-delete"];
        options?: never;
        head?: never;
        /**
         * Change a source's name, scope (settings) or schedule
         * @description Fields left out stay as they are; `settings` replaces the stored settings whole. The change applies from the next sync.
         */
        patch: operations["sources-update"];
        trace?: never;
    };
    "/sources/{id}/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sync a source now (in the background)
         * @description Queues a sync job and answers 202 at once; follow it with GET /sources/{id} or GET /ingest/jobs. One sync of a source runs at a time: 409 while one is queued or running.
         */
        post: operations["sources-sync"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/sources/{id}/failures": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The pages the last sync could not sync, with the reasons, by URL */
        get: operations["sources-failures"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/insights/gaps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The weakest recent searches and chat questions, and those readers voted down, repeats grouped: what the docs do not answer */
        get: operations["insights-gaps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readers' votes on answers, most recent first, with the questions and answers */
        get: operations["feedback-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/assistant/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a page's publishable key may do from that page (the assistant asks this first)
         * @description A simple GET without credentials: the publishable key goes in `key`. The page's Origin must be one the key allows (403 otherwise); the answer is readable by pages of any origin, so that a page the key does not allow can say so.
         */
        get: operations["assistant-config"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/assistant/visitor": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pass the bot check once: a challenge token (Turnstile or hCaptcha) for a visitor token
         * @description With a bot check configured (KB_BOT_CHECK_PROVIDER), every request of a publishable key carries the visitor token in X-Kb-Visitor. The challenge token is verified once with the provider; a provider that cannot be reached is a 503 (never a pass).
         */
        post: operations["assistant-visitor"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/chat": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Answer a question from the knowledge base, streamed as Server-Sent Events (or as JSON with stream: false)
         * @description Each event is a line "data: <JSON>" and a blank line: first a meta event, then chunk events in order, and the literal "data: [DONE]" last. A failure after the stream started sends an error event before [DONE]. Comment lines (": ping") keep an idle stream open every 15 s. Validation, authentication, rate limits and an unknown conversationId are JSON errors before the stream starts.
         */
        post: operations["chat"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ingest/file": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Ingest a file: PDF, Word (.docx), HTML, Markdown or plain text
         * @description Converts the file to Markdown (a PDF's text layer page by page, each chunk keeping its page; a Word document's headings, lists, tables and code; HTML's main content) and ingests it as POST /ingest/md does: upserted by slug, skipped when unchanged. Send a multipart/form-data body with one or more `file` parts and the fields, or the file itself as the body with its Content-Type and the fields as query parameters (`filename` names it). A type sent as application/octet-stream is told from the file name, else from the content. The whole body is at most KB_MAX_FILE_BYTES (25 MB). Refused with 422 (nothing written): a PDF without a text layer (a scan: OCR is not supported), an encrypted PDF, a truncated or corrupt file, content that is not its declared type, a Word file inflating past 64 MB, a conversion over its time or memory bound; with 415: another type. Several files: each is answered on its own; the request fails only if all do.
         */
        post: operations["ingest-file"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document (OpenAPI 3.1) */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/docs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The API reference: this document rendered in the browser (Swagger UI, served from this server) */
        get: operations["docs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        CreatedApiKey: {
            id: string;
            label: string;
            /** @enum {string} */
            kind: "secret" | "publishable";
            /** @description The key: kb_ (secret) or kb_pub_ (publishable) followed by 40 base62 characters. A secret key is shown only here, once. */
            key: string;
            admin: boolean;
            /** @description The namespaces the key may use; null: all */
            namespaces: string[] | null;
            rateLimitRpm: number | null;
            rateLimitRpd: number | null;
            createdAt: string;
            /** @description Publishable keys: the sites that may use it */
            allowedOrigins?: string[];
            /** @description Publishable keys: questions one visitor (client address) may ask in any 60 seconds */
            visitorRateLimitRpm?: number | null;
            /** @description Publishable keys: questions one visitor may ask in any 24 hours */
            visitorRateLimitRpd?: number | null;
            /** @description Publishable keys: answers the key may give in any 24 hours, across its visitors */
            dailyAnswerLimit?: number | null;
        };
        ApiKey: {
            id: string;
            label: string;
            /**
             * @description secret: for servers (may be admin); publishable: for web pages (kb_pub_…)
             * @enum {string}
             */
            kind: "secret" | "publishable";
            /** @description The first characters of the key, to recognise it */
            keyPrefix: string;
            admin: boolean;
            /** @description The namespaces the key may use; null: all */
            namespaces: string[] | null;
            requestCount: number;
            rateLimitRpm: number | null;
            rateLimitRpd: number | null;
            createdAt: string;
            lastUsedAt: string | null;
            revokedAt: string | null;
            /** @description Publishable keys: the key itself (it is no secret: pages carry it) */
            key?: string;
            /** @description Publishable keys: the sites that may use it */
            allowedOrigins?: string[];
            /** @description Publishable keys: questions one visitor (client address) may ask in any 60 seconds */
            visitorRateLimitRpm?: number | null;
            /** @description Publishable keys: questions one visitor may ask in any 24 hours */
            visitorRateLimitRpd?: number | null;
            /** @description Publishable keys: answers the key may give in any 24 hours, across its visitors */
            dailyAnswerLimit?: number | null;
        };
        IngestResult: {
            documentId: string;
            /** @description true when the content hash matched the stored document: nothing was re-embedded */
            skipped: boolean;
        };
        SearchResult: {
            chunkId: string;
            documentId: string;
            documentTitle: string;
            /** @description The document's slug (its key within the namespace) */
            slug: string;
            /** @description The document's link, when it has one */
            url?: string;
            /** @description With url: the anchor of the passage's section (the id its author gave the heading, else its GitHub-style anchor; as chat sources give it), to link url#anchor */
            anchor?: string;
            /** @description Heading trail, document title first, joined by " > " (headings as the site shows them) */
            headingPath: string;
            content: string;
            namespace: string;
            /** @description The page of its source the chunk starts on, for a PDF (link url#page=N) */
            page?: number;
            score: number;
        };
        Context: {
            /** @description Most relevant first; at most 5 documents. Empty: the knowledge base holds nothing on the question. */
            passages: components["schemas"]["ContextPassage"][];
            /** @description Estimated tokens of the passages' content together, at most maxTokens */
            tokens: number;
            /** @description The budget applied */
            maxTokens: number;
        };
        /** @description A passage an answer would be written from */
        ContextPassage: {
            documentId: string;
            /** @description The document's title */
            title: string;
            slug: string;
            namespace: string;
            /** @description The document's link, when it has one */
            url?: string;
            /** @description With url: the anchor of the passage's section, to link url#anchor */
            anchor?: string;
            /** @description The section: its heading trail, document title first, joined by " > " */
            headingPath: string;
            /** @description The section's Markdown (its matching chunks when the whole section is over budget) */
            content: string;
            /** @description Estimated tokens of content */
            tokens: number;
        };
        Feedback: {
            messageId: string;
            /** @enum {string} */
            rating: "up" | "down";
            reasons: string[];
            note: string | null;
            createdAt: string;
            updatedAt: string;
        };
        Conversation: {
            id: string;
            /** @description BCP 47 tag of the latest answer */
            language: string | null;
            /** @description Namespaces the conversation was asked in */
            sources: string[];
            createdAt: string;
            updatedAt: string;
            /** @description In order: each question followed by its answer */
            messages: components["schemas"]["ConversationMessage"][];
        };
        ConversationMessage: {
            id: string;
            /** @enum {string} */
            role: "user" | "assistant";
            content: string;
            /** @description The documents the answer drew on (empty for user messages) */
            sources: components["schemas"]["ChatSource"][];
            /**
             * @description Present on an answer cut short by a disconnect or a failure
             * @constant
             */
            interrupted?: true;
            createdAt: string;
            /** @description A conversation read by id: the vote on this answer by the key that asked (null: none); absent for questions and in listings */
            feedback?: components["schemas"]["AnswerFeedback"] | null;
        };
        /** @description A document the answer draws on */
        ChatSource: {
            title: string;
            documentId: string;
            slug: string;
            namespace: string;
            /** @description The document's address, when it has one */
            url?: string;
            /** @description With url: the anchor of the section the answer drew on first (GitHub-style heading anchor), to link url#anchor; for a PDF, page=N */
            anchor?: string;
            /** @description The heading of that section, when it is below the title */
            section?: string;
            /** @description For a PDF: the page the answer drew on first */
            page?: number;
        };
        /** @description The vote on an answer */
        AnswerFeedback: {
            /** @enum {string} */
            rating: "up" | "down";
            reasons: string[];
            note: string | null;
            createdAt: string;
            updatedAt: string;
        };
        Faq: {
            /** @description The topic as asked */
            query: string;
            /** @description The namespace used, or all */
            scope: string;
            /** @description BCP 47 tag of the FAQ */
            language: string;
            /** @description Markdown: 5 to 10 pairs, each a "## Question?" heading followed by its answer and the pages it draws on */
            content: string;
            /** @description true when served from the cache (made by an earlier request) */
            cached: boolean;
            /** @description The documents the FAQ draws on */
            sources: components["schemas"]["ChatSource"][];
            /** @description When the FAQ was made (ISO 8601) */
            generatedAt: string;
        };
        Document: {
            id: string;
            namespace: string;
            slug: string;
            title: string;
            /** @description The document's canonical link, when it has one */
            url?: string;
            /** @description The folder of the `kb ingest-folder` run that last wrote or confirmed it */
            folder?: string;
            /** @description The source (GET /sources/{id}) that wrote it, if any */
            sourceId?: string;
            metadata: {
                [key: string]: unknown;
            };
            /** @description Child chunks (the searchable pieces) */
            chunkCount: number;
            createdAt: string;
            updatedAt: string;
        };
        DocumentDetail: {
            id: string;
            namespace: string;
            slug: string;
            title: string;
            /** @description The document's canonical link, when it has one */
            url?: string;
            /** @description The folder of the `kb ingest-folder` run that last wrote or confirmed it */
            folder?: string;
            /** @description The source (GET /sources/{id}) that wrote it, if any */
            sourceId?: string;
            metadata: {
                [key: string]: unknown;
            };
            /** @description Child chunks (the searchable pieces) */
            chunkCount: number;
            createdAt: string;
            updatedAt: string;
            /** @description The Markdown as ingested */
            content: string;
            /** @description Child chunks in document order */
            chunks: components["schemas"]["DocumentChunk"][];
        };
        DocumentChunk: {
            chunkId: string;
            /** @description Heading trail, document title first, joined by " > " */
            headingPath: string;
            content: string;
            tokenCount: number;
        };
        Source: {
            id: string;
            /** @enum {string} */
            kind: "website" | "confluence";
            name: string;
            /** @description The namespace its documents go to */
            namespace: string;
            /** @description The settings of its kind (`website`: startUrl, sitemapUrl, ...; `confluence`: spaceKey) */
            settings: {
                [key: string]: unknown;
            };
            /** @description Synced every this many minutes; null: only on demand */
            scheduleMinutes: number | null;
            /**
             * @description `queued` or `syncing` while a sync job is pending or running
             * @enum {string}
             */
            status: "idle" | "queued" | "syncing";
            /** @description The sync in progress, or the last one; null before the first */
            lastSync: {
                /** @description Its job in GET /ingest/jobs */
                jobId: string | null;
                /**
                 * @description `partial`: some pages failed, or the sync stopped at its page cap or time budget (nothing was removed then)
                 * @enum {string}
                 */
                status: "running" | "done" | "partial" | "failed";
                /** @description Why it failed or is partial */
                error: string | null;
                startedAt: string | null;
                finishedAt: string | null;
                pages: components["schemas"]["SourceSyncPages"];
            } | null;
            /** @description When the schedule syncs it next (null without a schedule) */
            nextSyncAt: string | null;
            createdAt: string;
            updatedAt: string;
        };
        SourceSyncPages: {
            /** @description Pages found in scope (sitemaps and links) */
            discovered: number;
            /** @description Pages requested from the site */
            fetched: number;
            /** @description Pages unchanged since the last sync (sitemap lastmod, 304, same content): no embedding */
            unchanged: number;
            /** @description Pages new or changed, stored again */
            updated: number;
            /** @description Pages removed with their chunks (404/410, or missing from two complete syncs running) */
            removed: number;
            /** @description Pages that could not be synced (listed with reasons by GET /sources/{id}/failures); their stored copy stays */
            failed: number;
        };
        SourceFailure: {
            url: string;
            /** @description Why the page could not be synced, in words */
            reason: string;
            /** @description The site's answer, when it answered */
            httpStatus: number | null;
            at: string;
        };
        KnowledgeGap: {
            /** @description The query as last asked */
            query: string;
            /** @description Times it was asked (repeats: the same text, ignoring case and spacing) */
            count: number;
            /** @description The best of its best scores (cosine similarity 0..1); null when nothing was ever found */
            bestScore: number | null;
            /** @description The mean of its best scores; null when nothing was ever found */
            meanScore: number | null;
            /** @description Namespaces it was asked in (empty: all) */
            namespaces: string[];
            kinds: ("search" | "chat")[];
            firstAskedAt: string;
            lastAskedAt: string;
            /** @description Thumbs-down votes on answers to it in the window (POST /chat/feedback); such questions come first */
            thumbsDown: number;
            /** @description Times its chat answer found nothing to draw on; such questions come right after those voted down */
            foundNothing: number;
            /** @description As a follow-up, the question it stood for when last asked (completed from the conversation); null when asked on its own */
            standalone: string | null;
        };
        FeedbackEntry: {
            messageId: string;
            /** @enum {string} */
            rating: "up" | "down";
            reasons: string[];
            note: string | null;
            createdAt: string;
            updatedAt: string;
            conversationId: string;
            /** @description The key that voted (null: an admin session) */
            keyId: string | null;
            keyLabel: string | null;
            /** @description The question the answer was to */
            question: string;
            /** @description The answer voted on (Markdown) */
            answer: string;
            sources: components["schemas"]["ChatSource"][];
            /** @description Namespaces the conversation was asked in */
            namespaces: string[];
            /**
             * @description Present when the answer was cut short
             * @constant
             */
            interrupted?: true;
        };
        AssistantConfig: {
            /** @description The namespaces the key may read */
            namespaces: string[];
            /** @description The challenge a visitor passes before asking (POST /assistant/visitor); null: none */
            botCheck: {
                /** @enum {string} */
                provider: "turnstile" | "hcaptcha";
                siteKey: string;
            } | null;
            limits: {
                visitorRateLimitRpm: number | null;
                visitorRateLimitRpd: number | null;
            };
            /**
             * @description Who writes the answers: model (a language model, from the passages) or extractive (the built-in answerer, quoting the passages)
             * @enum {string}
             */
            answerer: "model" | "extractive";
        };
        VisitorToken: {
            visitorToken: string;
            expiresAt: string;
        };
        ChatRequest: {
            /** @description The user's question */
            message: string;
            /** @description Namespace(s) to search: one or a list of up to 4. Absent or an empty list: all namespaces. */
            source?: ("user_docs" | "tech_docs" | "api_endpoints" | "wiki") | ("user_docs" | "tech_docs" | "api_endpoints" | "wiki")[];
            /** @description Continues a stored conversation (from an earlier meta event or answer). Unknown: 404. */
            conversationId?: string;
            /** @description BCP 47 tag of the answer's language. Absent: detected from the message (else the conversation's, else en). */
            language?: string;
            /**
             * @description standard (default): hybrid search, hits widened to their sections. smart: rewritten query and variants, fused and reranked.
             * @enum {string}
             */
            retrieval?: "standard" | "smart";
            /** @description true (default): Server-Sent Events. false: one JSON answer. */
            stream?: boolean;
        };
        /** @description First event: the conversation, the answer's id (for feedback) and the documents the answer draws on, best first */
        ChatMetaEvent: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "meta";
            conversationId: string;
            /** @description The answer's id: POST /chat/feedback names it */
            messageId: string;
            sources: components["schemas"]["ChatSource"][];
        };
        /** @description A fragment of the answer (Markdown), to be concatenated in order */
        ChatChunkEvent: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "chunk";
            text: string;
        };
        /** @description The answer failed after the stream started; data: [DONE] follows */
        ChatErrorEvent: {
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "error";
            message: string;
        };
        /** @description One event of the stream, by its type */
        ChatStreamEvent: components["schemas"]["ChatMetaEvent"] | components["schemas"]["ChatChunkEvent"] | components["schemas"]["ChatErrorEvent"];
        ChatAnswer: {
            conversationId: string;
            /** @description The answer's id: POST /chat/feedback names it */
            messageId: string;
            /** @description Markdown */
            answer: string;
            sources: components["schemas"]["ChatSource"][];
            /** @description BCP 47 tag of the answer */
            language: string;
        };
        /** @description A file ingested (as POST /ingest/md answers, with what the file was) */
        IngestFileResult: {
            documentId: string;
            /** @description true when the Markdown the file converts to, and its metadata, matched the stored document: nothing was re-embedded */
            skipped: boolean;
            /** @enum {string} */
            format: "pdf" | "docx" | "html" | "text" | "markdown";
            /** @description A PDF's pages */
            pages?: number;
            filename?: string;
        };
        /** @description Several files: each file's result or refusal, in the order sent */
        IngestFilesResult: {
            documents: (components["schemas"]["IngestFileResult"] | {
                filename?: string;
                error: {
                    code: string;
                    message: string;
                };
            })[];
        };
        WebsiteSourceSettings: {
            /** @description Where link following starts */
            startUrl?: string;
            /** @description A sitemap or sitemap index listing the pages */
            sitemapUrl?: string;
            /** @description Hosts pages may be on (default: the start URL's and the sitemap's hosts) */
            allowedHosts?: string[];
            /** @description Only pages whose path starts with this (default: everything on the hosts) */
            pathPrefix?: string;
            /** @description Only pages whose path matches one of these patterns (`*` matches anything) */
            include?: string[];
            /** @description Never pages whose path matches one of these patterns */
            exclude?: string[];
            /** @description Most pages one sync fetches (default 1000, at most 100000) */
            maxPages?: number;
            /** @description Links followed from the start URL and sitemap pages, in hops (default 5; 0: no link following) */
            maxDepth?: number;
        };
        ConfluenceSourceSettings: {
            /** @description The space's key, e.g. ENG */
            spaceKey: string;
        };
        /** @description Every error answer: a readable message, the code of its status, and for invalid input the problems found */
        Error: {
            /** @description What went wrong, for a person; unknown fields are named */
            message: string;
            /** @enum {string} */
            code: "BAD_REQUEST" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "CONFLICT" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "UNPROCESSABLE_CONTENT" | "TOO_MANY_REQUESTS" | "INTERNAL_SERVER_ERROR" | "BAD_GATEWAY" | "SERVICE_UNAVAILABLE";
            /** @description The request's X-Request-Id: every log line of the request carries it */
            requestId?: string;
            /** @description Invalid input only: one entry per problem (zod issues), at most 20 */
            issues?: {
                /** @description e.g. invalid_type, too_big, unrecognized_keys */
                code?: string;
                /** @description Where in the input */
                path?: (string | number)[];
                message: string;
                /** @description unrecognized_keys: the unknown field names (at most 10) */
                keys?: string[];
                /** @description unrecognized_keys: how many unknown fields there were, when more than keys lists */
                keysTotal?: number;
            }[];
        };
    };
    responses: {
        /** @description Invalid input: malformed JSON, or a field missing, invalid or unknown (named in the message, listed in issues) */
        InvalidBody: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Input validation failed: unknown field \"topk\"",
                 *       "code": "BAD_REQUEST"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Invalid input: a parameter missing, invalid or unknown (named in the message, listed in issues) */
        InvalidQuery: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Input validation failed: unknown field \"topk\"",
                 *       "code": "BAD_REQUEST"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Missing, malformed, unknown or revoked credentials */
        Unauthorized: {
            headers: {
                "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Missing credentials: send \"Authorization: Bearer <API key>\"",
                 *       "code": "UNAUTHORIZED"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description An API key without admin rights, or a publishable key */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "This operation needs an admin API key or an admin session",
                 *       "code": "FORBIDDEN"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description A namespace outside the key's namespaces; a publishable key where it may not be used, or from a page it does not allow */
        KeyForbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "This key may not use the namespace \"wiki\": it is limited to user_docs",
                 *       "code": "FORBIDDEN"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is larger than the limit (KB_MAX_BODY_BYTES, 10 MB by default) */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Request body is larger than the limit of 10485760 bytes",
                 *       "code": "PAYLOAD_TOO_LARGE"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The body is not application/json */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Unsupported content type \"text/plain\": send application/json",
                 *       "code": "UNSUPPORTED_MEDIA_TYPE"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The key's requests per minute or per day are used up (see Retry-After) */
        RateLimited: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Rate limit exceeded: 60 requests per window; retry in 12 s",
                 *       "code": "TOO_MANY_REQUESTS"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The database or Redis cannot be reached (restarting, failing over), rate limiting is unavailable, or the embedded store's disk is full (writes only); try again after Retry-After */
        Unavailable: {
            headers: {
                "Retry-After": components["headers"]["Retry-After"];
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "The database cannot be reached; try again shortly",
                 *       "code": "SERVICE_UNAVAILABLE"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Internal server error (the server log has the cause) */
        InternalError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                /**
                 * @example {
                 *       "message": "Internal server error",
                 *       "code": "INTERNAL_SERVER_ERROR"
                 *     }
                 */
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description Requests allowed in the window that is closest to its limit */
        "RateLimit-Limit": number;
        /** @description Requests left in that window */
        "RateLimit-Remaining": number;
        /** @description Seconds until that window frees a request */
        "RateLimit-Reset": number;
        /** @description Seconds to wait before trying again */
        "Retry-After": number;
        /** @description The Bearer challenge (RFC 6750), with error="invalid_token" for an unknown or revoked key */
        "WWW-Authenticate": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "auth-login": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "password": "correct horse battery staple"
                 *     }
                 */
                "application/json": {
                    password: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true,
                     *       "expiresAt": "2026-11-25T09:30:00.000Z"
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        ok: true;
                        expiresAt: string;
                    };
                };
            };
            400: components["responses"]["InvalidBody"];
            /** @description Wrong password */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Wrong password",
                     *       "code": "UNAUTHORIZED"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description Too many login attempts from this address (10 a minute) */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Too many login attempts from this address (10 a minute)",
                     *       "code": "TOO_MANY_REQUESTS"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            /** @description Admin login is not configured (KB_ADMIN_PASSWORD is not set); or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Admin login is not configured (KB_ADMIN_PASSWORD is not set)",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-logout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "ok": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        ok: true;
                    };
                };
            };
            400: components["responses"]["InvalidBody"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "keys-list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {
                     *           "id": "3f1c2a9e-8b7d-4c5e-9a01-6d2f4b8e7c13",
                     *           "label": "docs-site",
                     *           "kind": "secret",
                     *           "keyPrefix": "kb_3J8vQm",
                     *           "admin": false,
                     *           "namespaces": null,
                     *           "requestCount": 1284,
                     *           "rateLimitRpm": 60,
                     *           "rateLimitRpd": null,
                     *           "createdAt": "2026-11-24T09:30:00.000Z",
                     *           "lastUsedAt": "2026-11-24T11:02:17.000Z",
                     *           "revokedAt": null
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        keys: components["schemas"]["ApiKey"][];
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "keys-create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "label": "docs-site",
                 *       "rateLimitRpm": 60,
                 *       "namespaces": [
                 *         "user_docs",
                 *         "tech_docs"
                 *       ]
                 *     }
                 */
                "application/json": {
                    label: string;
                    /**
                     * @description secret (default): for servers; publishable: for web pages, bound to allowedOrigins and namespaces
                     * @enum {string}
                     */
                    kind?: "secret" | "publishable";
                    /** @description Admin keys may call the admin endpoints. Default false; never for publishable keys. */
                    admin?: boolean;
                    /** @description The namespaces the key may search, chat in, read the FAQ of and ingest into (a 403 outside them). Secret keys: absent or null is all (admin keys take none). Publishable keys: required. */
                    namespaces?: ("user_docs" | "tech_docs" | "api_endpoints" | "wiki")[] | null;
                    /** @description Requests allowed in any 60 seconds; null or absent is unlimited, 0 blocks the key */
                    rateLimitRpm?: number | null;
                    /** @description Requests allowed in any 24 hours; null or absent is unlimited, 0 blocks the key */
                    rateLimitRpd?: number | null;
                    /** @description Publishable keys (required): the sites that may use the key, as origins: https://docs.example.com, https://*.example.com (any subdomain), http://localhost:* (any port). Never "*". */
                    allowedOrigins?: string[];
                    /** @description Publishable keys: questions (chat and search) one visitor may ask in any 60 seconds; default 10, null unlimited, 0 none */
                    visitorRateLimitRpm?: number | null;
                    /** @description Publishable keys: questions one visitor may ask in any 24 hours; default 100, null unlimited, 0 none */
                    visitorRateLimitRpd?: number | null;
                    /** @description Publishable keys: answers the key may give in any 24 hours, across its visitors; default 1000, null unlimited, 0 none */
                    dailyAnswerLimit?: number | null;
                };
            };
        };
        responses: {
            /** @description Created: a secret key is returned this once */
            201: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f1c2a9e-8b7d-4c5e-9a01-6d2f4b8e7c13",
                     *       "label": "docs-site",
                     *       "kind": "secret",
                     *       "key": "kb_3J8vQm2LxR7tYp0WcN5sKd1HfG6aZb4EuT9oViMn",
                     *       "admin": false,
                     *       "namespaces": [
                     *         "user_docs",
                     *         "tech_docs"
                     *       ],
                     *       "rateLimitRpm": 60,
                     *       "rateLimitRpd": null,
                     *       "createdAt": "2026-11-24T09:30:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["CreatedApiKey"];
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "keys-revoke": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f1c2a9e-8b7d-4c5e-9a01-6d2f4b8e7c13 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "revoked": true,
                     *       "id": "3f1c2a9e-8b7d-4c5e-9a01-6d2f4b8e7c13"
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        revoked: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such key */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such key",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Already revoked */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Already revoked",
                     *       "code": "CONFLICT"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "keys-update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 5d2e8f1a-3c4b-4e6d-9f70-8a1b2c3d4e5f */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "allowedOrigins": [
                 *         "https://docs.example.com",
                 *         "https://*.example.com"
                 *       ]
                 *     }
                 */
                "application/json": {
                    label?: string;
                    /** @description The namespaces the key may search, chat in, read the FAQ of and ingest into (a 403 outside them). Secret keys: absent or null is all (admin keys take none). Publishable keys: required. */
                    namespaces?: ("user_docs" | "tech_docs" | "api_endpoints" | "wiki")[] | null;
                    /** @description Requests allowed in any 60 seconds; null or absent is unlimited, 0 blocks the key */
                    rateLimitRpm?: number | null;
                    /** @description Requests allowed in any 24 hours; null or absent is unlimited, 0 blocks the key */
                    rateLimitRpd?: number | null;
                    /** @description Publishable keys (required): the sites that may use the key, as origins: https://docs.example.com, https://*.example.com (any subdomain), http://localhost:* (any port). Never "*". */
                    allowedOrigins?: string[];
                    /** @description Publishable keys: questions (chat and search) one visitor may ask in any 60 seconds; default 10, null unlimited, 0 none */
                    visitorRateLimitRpm?: number | null;
                    /** @description Publishable keys: questions one visitor may ask in any 24 hours; default 100, null unlimited, 0 none */
                    visitorRateLimitRpd?: number | null;
                    /** @description Publishable keys: answers the key may give in any 24 hours, across its visitors; default 1000, null unlimited, 0 none */
                    dailyAnswerLimit?: number | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "5d2e8f1a-3c4b-4e6d-9f70-8a1b2c3d4e5f",
                     *       "label": "docs site assistant",
                     *       "kind": "publishable",
                     *       "keyPrefix": "kb_pub_7Hq2Lm",
                     *       "admin": false,
                     *       "namespaces": [
                     *         "user_docs"
                     *       ],
                     *       "requestCount": 5310,
                     *       "rateLimitRpm": null,
                     *       "rateLimitRpd": null,
                     *       "createdAt": "2026-11-24T09:30:00.000Z",
                     *       "lastUsedAt": "2026-11-27T08:12:44.000Z",
                     *       "revokedAt": null,
                     *       "key": "kb_pub_7Hq2LmX9vB4nR8tW1yK6pD3sF0gJ5cA2eZuQ",
                     *       "allowedOrigins": [
                     *         "https://docs.example.com",
                     *         "https://*.example.com"
                     *       ],
                     *       "visitorRateLimitRpm": 10,
                     *       "visitorRateLimitRpd": 100,
                     *       "dailyAnswerLimit": 1000
                     *     }
                     */
                    "application/json": components["schemas"]["ApiKey"];
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such key */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such key",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The key is revoked */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The key is revoked",
                     *       "code": "CONFLICT"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "ingest-markdown": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "title": "Rotating API keys",
                 *       "content": "# Rotating API keys\n\nCreate the new key, deploy it, then revoke the old one.\n",
                 *       "namespace": "user_docs",
                 *       "slug": "guides/rotating-keys",
                 *       "metadata": {
                 *         "url": "https://docs.example.com/guides/rotating-keys"
                 *       }
                 *     }
                 */
                "application/json": {
                    title: string;
                    /** @description Raw Markdown. YAML front matter becomes metadata. May be empty (a document with no chunks). */
                    content: string;
                    /** @enum {string} */
                    namespace: "user_docs" | "tech_docs" | "api_endpoints" | "wiki";
                    /** @description Deduplication key within the namespace. Defaults to the title. */
                    slug?: string;
                    /** @description Arbitrary key-value metadata (JSON, at most 32 levels deep). An http(s) `url` becomes the document's link. */
                    metadata?: {
                        [key: string]: unknown;
                    };
                    /** @description The folder a folder sync read the document from (`kb ingest-folder --api-url`); recorded even when the document is unchanged, and what `--prune` compares */
                    folder?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "documentId": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48",
                     *       "skipped": false
                     *     }
                     */
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description The embedding service failed; the document was not changed; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The embedding service failed; the document was not changed",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "ingest-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://docs.example.com/guides/rotating-keys",
                 *       "namespace": "user_docs"
                 *     }
                 */
                "application/json": {
                    url: string;
                    /** @enum {string} */
                    namespace: "user_docs" | "tech_docs" | "api_endpoints" | "wiki";
                    /** @description Defaults to the page's own title */
                    title?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "documentId": "0d3a5e61-c2b8-4f17-9d4e-a3b6c8e1f205",
                     *       "skipped": false
                     *     }
                     */
                    "application/json": components["schemas"]["IngestResult"];
                };
            };
            /** @description Invalid input, a malformed URL or an unsupported scheme (named in the message) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid input, a malformed URL or an unsupported scheme (named in the message)",
                     *       "code": "BAD_REQUEST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            /** @description The URL could not be fetched (the message says why) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The URL could not be fetched (the message says why)",
                     *       "code": "UNPROCESSABLE_CONTENT"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description The embedding service failed; the document was not changed; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The embedding service failed; the document was not changed",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "ingest-openapi": {
        parameters: {
            query?: {
                /**
                 * @description Target namespace (default api_endpoints)
                 * @example api_endpoints
                 */
                namespace?: "user_docs" | "tech_docs" | "api_endpoints" | "wiki";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description The raw OpenAPI 3.x or Swagger 2.0 spec (at most KB_MAX_SPEC_BYTES, 25 MB by default) */
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "openapi": "3.0.3",
                 *       "info": {
                 *         "title": "Pets",
                 *         "version": "1"
                 *       },
                 *       "paths": {
                 *         "/pets": {
                 *           "get": {
                 *             "operationId": "listPets",
                 *             "summary": "List pets",
                 *             "responses": {
                 *               "200": {
                 *                 "description": "OK"
                 *               }
                 *             }
                 *           }
                 *         }
                 *       }
                 *     }
                 */
                "application/json": Record<string, never>;
                /**
                 * @example openapi: 3.0.3
                 *     info: { title: Pets, version: "1" }
                 *     paths:
                 *       /pets:
                 *         get:
                 *           operationId: listPets
                 *           summary: List pets
                 *           responses: { "200": { description: OK } }
                 */
                "application/yaml": string;
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "upserted": 1,
                     *       "unchanged": 0,
                     *       "total": 1
                     *     }
                     */
                    "application/json": {
                        upserted: number;
                        unchanged: number;
                        /** @description Operations with an operationId: upserted + unchanged */
                        total: number;
                    };
                };
            };
            /** @description Invalid input or an invalid spec (the message says where) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Invalid input or an invalid spec (the message says where)",
                     *       "code": "BAD_REQUEST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            /** @description The spec is larger than KB_MAX_SPEC_BYTES (25 MB by default) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The spec is larger than KB_MAX_SPEC_BYTES (25 MB by default)",
                     *       "code": "PAYLOAD_TOO_LARGE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not application/json or application/yaml */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The body is not application/json or application/yaml",
                     *       "code": "UNSUPPORTED_MEDIA_TYPE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description The embedding service failed; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The embedding service failed",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "ingest-wiki": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "spaceKey": "DOCS",
                 *       "namespace": "wiki"
                 *     }
                 */
                "application/json": {
                    spaceKey: string;
                    /** @enum {string} */
                    namespace: "user_docs" | "tech_docs" | "api_endpoints" | "wiki";
                };
            };
        };
        responses: {
            /** @description Successful response */
            202: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jobId": "9e2c4b7d-1a03-4b6e-8f25-d4c1a7e93b50",
                     *       "status": "pending"
                     *     }
                     */
                    "application/json": {
                        jobId: string;
                        /** @constant */
                        status: "pending";
                    };
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description Wiki import is not configured, or the job queue is unavailable; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Wiki import is not configured, or the job queue is unavailable",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "ingest-jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jobs": [
                     *         {
                     *           "id": "9e2c4b7d-1a03-4b6e-8f25-d4c1a7e93b50",
                     *           "type": "wiki",
                     *           "status": "running",
                     *           "payload": {
                     *             "spaceKey": "DOCS",
                     *             "namespace": "wiki"
                     *           },
                     *           "progress": {
                     *             "total": 240,
                     *             "done": 118,
                     *             "skipped": 61,
                     *             "failed": 1
                     *           },
                     *           "attempts": 1,
                     *           "maxAttempts": 3,
                     *           "nextAttemptAt": null,
                     *           "createdAt": "2026-11-24T09:30:00.000Z",
                     *           "startedAt": "2026-11-24T09:30:01.000Z",
                     *           "completedAt": null
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        jobs: {
                            id: string;
                            /** @description "wiki" for a wiki import */
                            type: string;
                            /** @enum {string} */
                            status: "pending" | "running" | "done" | "failed";
                            /** @description The request parameters, e.g. { spaceKey, namespace } */
                            payload: {
                                [key: string]: unknown;
                            };
                            progress: {
                                /** @description Pages listed so far */
                                total: number;
                                /** @description Pages written (new or changed) */
                                done: number;
                                /** @description Pages unchanged since the last import */
                                skipped: number;
                                /** @description Pages that could not be imported */
                                failed: number;
                            };
                            /** @description Attempts started (a retried or resumed job counts each) */
                            attempts: number;
                            /** @description Attempts the queue gives the job after transient failures (null until it first starts) */
                            maxAttempts: number | null;
                            /** @description A pending job waiting to be retried after a transient failure: when its next attempt starts */
                            nextAttemptAt: string | null;
                            createdAt: string;
                            startedAt: string | null;
                            completedAt: string | null;
                            /** @description Present on failed jobs */
                            error?: string;
                            /** @description A job still being retried (pending or running): why its last attempt, or its last upstream request, failed */
                            lastError?: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    search: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "query": "how do I rotate an API key?",
                 *       "source": "user_docs",
                 *       "topK": 1,
                 *       "mode": "hybrid"
                 *     }
                 */
                "application/json": {
                    query: string;
                    /** @description Namespace filter: one namespace or a list of up to 4. Absent or an empty list: all namespaces. */
                    source?: ("user_docs" | "tech_docs" | "api_endpoints" | "wiki") | ("user_docs" | "tech_docs" | "api_endpoints" | "wiki")[];
                    /** @description Maximum results, 1 to 20. Default 5. */
                    topK?: number;
                    /**
                     * @description Default: hybrid with the built-in embedder, semantic with Voyage. semantic: ranked by cosine similarity, score = 1 - cosine distance (0..1). hybrid: full-text (BM25) and vector candidates rescored together; score = 0.5 chunk BM25 + 0.35 document BM25 + 0.15 cosine, each normalised over the candidates (0..1, relative to the query).
                     * @enum {string}
                     */
                    mode?: "semantic" | "hybrid";
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "results": [
                     *         {
                     *           "chunkId": "51a0e7c3-d9b2-4a6f-8e1d-c07b3f5a9e62",
                     *           "documentId": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48",
                     *           "documentTitle": "Rotating API keys",
                     *           "slug": "guides/rotating-api-keys",
                     *           "url": "https://docs.example.com/guides/rotating-api-keys",
                     *           "anchor": "rotate-without-downtime",
                     *           "headingPath": "Rotating API keys > Rotate without downtime",
                     *           "content": "Create the new key, deploy it, then revoke the old one.",
                     *           "namespace": "user_docs",
                     *           "score": 0.87
                     *         }
                     *       ],
                     *       "count": 1
                     *     }
                     */
                    "application/json": {
                        results: components["schemas"]["SearchResult"][];
                        count: number;
                    };
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description The embedding service failed; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The embedding service failed",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    context: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "question": "How do I rotate an API key?",
                 *       "source": "user_docs",
                 *       "maxTokens": 1500
                 *     }
                 */
                "application/json": {
                    /** @description The question your model is to answer */
                    question: string;
                    /** @description Namespace(s) to read: one or a list of up to 4. Absent or an empty list: all namespaces (of the key). */
                    source?: ("user_docs" | "tech_docs" | "api_endpoints" | "wiki") | ("user_docs" | "tech_docs" | "api_endpoints" | "wiki")[];
                    /** @description Budget of the passages' text, in estimated tokens (about 4 characters of English each), 200 to 32000. Default: the chat's own budget (KB_CHAT_CONTEXT_TOKENS, 3000). */
                    maxTokens?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "passages": [
                     *         {
                     *           "documentId": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48",
                     *           "title": "Rotating API keys",
                     *           "slug": "guides/rotating-api-keys",
                     *           "namespace": "user_docs",
                     *           "url": "https://docs.example.com/guides/rotating-api-keys",
                     *           "anchor": "rotate-without-downtime",
                     *           "headingPath": "Rotating API keys > Rotate without downtime",
                     *           "content": "## Rotate without downtime\n\nCreate the new key, deploy it, then revoke the old one.",
                     *           "tokens": 19
                     *         }
                     *       ],
                     *       "tokens": 19,
                     *       "maxTokens": 1500
                     *     }
                     */
                    "application/json": components["schemas"]["Context"];
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description The embedding service failed; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The embedding service failed",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "chat-feedback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "messageId": "e6b0c3f9-1d47-4a2e-8c5b-7f3a9d2e0c61",
                 *       "rating": "down",
                 *       "reasons": [
                 *         "outdated"
                 *       ],
                 *       "note": "The command was renamed in 2.0"
                 *     }
                 */
                "application/json": {
                    /** @description The answer: messageId of the meta event or of the JSON answer */
                    messageId: string;
                    /** @enum {string} */
                    rating: "up" | "down";
                    /** @description With a thumbs-down: why */
                    reasons?: ("incorrect" | "incomplete" | "not_what_i_asked" | "outdated" | "other")[];
                    /** @description What the reader adds, at most 1000 characters */
                    note?: string | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "messageId": "e6b0c3f9-1d47-4a2e-8c5b-7f3a9d2e0c61",
                     *       "rating": "down",
                     *       "reasons": [
                     *         "outdated"
                     *       ],
                     *       "note": "The command was renamed in 2.0",
                     *       "createdAt": "2026-11-24T10:01:00.000Z",
                     *       "updatedAt": "2026-11-24T10:01:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Feedback"];
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            /** @description No such answer (or one another key asked for) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such answer (or one another key asked for)",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "conversations-list": {
        parameters: {
            query?: {
                /** @example user_docs */
                source?: "user_docs" | "tech_docs" | "api_endpoints" | "wiki";
                language?: string;
                /** @example 1 */
                limit?: number;
                offset?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "conversations": [
                     *         {
                     *           "id": "2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376",
                     *           "language": "en",
                     *           "sources": [
                     *             "user_docs"
                     *           ],
                     *           "createdAt": "2026-11-24T10:00:00.000Z",
                     *           "updatedAt": "2026-11-24T10:00:04.000Z",
                     *           "messages": [
                     *             {
                     *               "id": "9a4d7e21-3c5b-4f80-a1e6-b2c9d0f7e814",
                     *               "role": "user",
                     *               "content": "How do I rotate an API key?",
                     *               "sources": [],
                     *               "createdAt": "2026-11-24T10:00:00.000Z"
                     *             },
                     *             {
                     *               "id": "e6b0c3f9-1d47-4a2e-8c5b-7f3a9d2e0c61",
                     *               "role": "assistant",
                     *               "content": "Create the new key, deploy it, then revoke the old one [1].",
                     *               "sources": [
                     *                 {
                     *                   "title": "Rotating API keys",
                     *                   "documentId": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48",
                     *                   "slug": "guides/rotating-keys",
                     *                   "namespace": "user_docs"
                     *                 }
                     *               ],
                     *               "createdAt": "2026-11-24T10:00:04.000Z"
                     *             }
                     *           ]
                     *         }
                     *       ],
                     *       "total": 12,
                     *       "take": 1,
                     *       "skip": 0,
                     *       "nextCursor": "WyIyMDI2LTExLTI0VDEwOjAwOjAwLjAwMDAwMFoiLCIyYzhmMWE2ZS0wYjk0LTRkMzctYjVhMi1lOWYwYzFkOGEzNzYiXQ"
                     *     }
                     */
                    "application/json": {
                        conversations: components["schemas"]["Conversation"][];
                        total: number;
                        take: number;
                        skip: number;
                        /** @description Pass as cursor to read the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "conversations-get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376",
                     *       "language": "en",
                     *       "sources": [
                     *         "user_docs"
                     *       ],
                     *       "createdAt": "2026-11-24T10:00:00.000Z",
                     *       "updatedAt": "2026-11-24T10:00:04.000Z",
                     *       "messages": [
                     *         {
                     *           "id": "9a4d7e21-3c5b-4f80-a1e6-b2c9d0f7e814",
                     *           "role": "user",
                     *           "content": "How do I rotate an API key?",
                     *           "sources": [],
                     *           "createdAt": "2026-11-24T10:00:00.000Z"
                     *         },
                     *         {
                     *           "id": "e6b0c3f9-1d47-4a2e-8c5b-7f3a9d2e0c61",
                     *           "role": "assistant",
                     *           "content": "Create the new key, deploy it, then revoke the old one [1].",
                     *           "sources": [
                     *             {
                     *               "title": "Rotating API keys",
                     *               "documentId": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48",
                     *               "slug": "guides/rotating-keys",
                     *               "namespace": "user_docs"
                     *             }
                     *           ],
                     *           "createdAt": "2026-11-24T10:00:04.000Z",
                     *           "feedback": {
                     *             "rating": "up",
                     *             "reasons": [],
                     *             "note": null,
                     *             "createdAt": "2026-11-24T10:01:00.000Z",
                     *             "updatedAt": "2026-11-24T10:01:00.000Z"
                     *           }
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["Conversation"];
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            /** @description No such conversation (or one another key started) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such conversation (or one another key started)",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "faq-get": {
        parameters: {
            query: {
                /**
                 * @description The FAQ's topic or question, 1 to 500 characters
                 * @example API keys
                 */
                q: string;
                /** @example user_docs */
                source?: "user_docs" | "tech_docs" | "api_endpoints" | "wiki" | "all";
                /** @example en */
                lang?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "query": "API keys",
                     *       "scope": "user_docs",
                     *       "language": "en",
                     *       "content": "## How do I rotate an API key?\n\nCreate the new key, deploy it, then revoke the old one.\n\nSources: [Rotating API keys](https://docs.example.com/guides/rotating-keys)\n",
                     *       "cached": true,
                     *       "sources": [
                     *         {
                     *           "title": "Rotating API keys",
                     *           "documentId": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48",
                     *           "slug": "guides/rotating-keys",
                     *           "namespace": "user_docs",
                     *           "url": "https://docs.example.com/guides/rotating-keys"
                     *         }
                     *       ],
                     *       "generatedAt": "2026-11-24T08:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Faq"];
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            /** @description A namespace KB_FAQ_NAMESPACES leaves out; with a key, one outside the key's namespaces, or a publishable key from a page it does not allow */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "A namespace KB_FAQ_NAMESPACES leaves out; with a key, one outside the key's namespaces, or a publishable key from a page it does not allow",
                     *       "code": "FORBIDDEN"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Nothing in the scope is about the topic */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Nothing in the scope is about the topic",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many FAQ requests from this address, or the daily number of FAQs written by the model is reached (see Retry-After) */
            429: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Too many FAQ requests from this address, or the daily number of FAQs written by the model is reached (see Retry-After)",
                     *       "code": "TOO_MANY_REQUESTS"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            /** @description The language model did not return a usable FAQ */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The language model did not return a usable FAQ",
                     *       "code": "BAD_GATEWAY"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The language model is unavailable, or this FAQ is still being made; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The language model is unavailable, or this FAQ is still being made",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "documents-list": {
        parameters: {
            query?: {
                /** @example user_docs */
                namespace?: "user_docs" | "tech_docs" | "api_endpoints" | "wiki";
                /** @example api keys */
                q?: string;
                folder?: string;
                sourceId?: string;
                /** @example 20 */
                limit?: number;
                offset?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "documents": [
                     *         {
                     *           "id": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48",
                     *           "namespace": "user_docs",
                     *           "slug": "guides/rotating-api-keys",
                     *           "title": "Rotating API keys",
                     *           "url": "https://docs.example.com/guides/rotating-api-keys",
                     *           "folder": "/srv/docs",
                     *           "metadata": {
                     *             "tags": [
                     *               "security"
                     *             ]
                     *           },
                     *           "chunkCount": 3,
                     *           "createdAt": "2026-11-20T09:12:44.000Z",
                     *           "updatedAt": "2026-11-24T08:01:10.000Z"
                     *         }
                     *       ],
                     *       "total": 1,
                     *       "take": 20,
                     *       "skip": 0,
                     *       "nextCursor": null
                     *     }
                     */
                    "application/json": {
                        documents: components["schemas"]["Document"][];
                        total: number;
                        take: number;
                        skip: number;
                        /** @description Pass as cursor to read the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "documents-get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48",
                     *       "namespace": "user_docs",
                     *       "slug": "guides/rotating-api-keys",
                     *       "title": "Rotating API keys",
                     *       "url": "https://docs.example.com/guides/rotating-api-keys",
                     *       "folder": "/srv/docs",
                     *       "metadata": {
                     *         "tags": [
                     *           "security"
                     *         ]
                     *       },
                     *       "chunkCount": 1,
                     *       "createdAt": "2026-11-20T09:12:44.000Z",
                     *       "updatedAt": "2026-11-24T08:01:10.000Z",
                     *       "content": "# Rotating API keys\n\nCreate the new key, deploy it, then revoke the old one.\n",
                     *       "chunks": [
                     *         {
                     *           "chunkId": "51a0e7c3-d9b2-4a6f-8e1d-c07b3f5a9e62",
                     *           "headingPath": "Rotating API keys",
                     *           "content": "Create the new key, deploy it, then revoke the old one.",
                     *           "tokenCount": 14
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": components["schemas"]["DocumentDetail"];
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            /** @description No such document (or one outside the key's namespaces) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such document (or one outside the key's namespaces)",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "documents-delete": {
        parameters: {
            query?: {
                folder?: string;
            };
            header?: never;
            path: {
                /** @example 7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "deleted": true,
                     *       "id": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48"
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such document */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such document",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "sources-list": {
        parameters: {
            query?: {
                /** @example 20 */
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "sources": [
                     *         {
                     *           "id": "0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13",
                     *           "kind": "website",
                     *           "name": "Product docs",
                     *           "namespace": "user_docs",
                     *           "settings": {
                     *             "startUrl": "https://docs.example.com/",
                     *             "sitemapUrl": "https://docs.example.com/sitemap.xml",
                     *             "pathPrefix": "/",
                     *             "exclude": [
                     *               "/blog/*"
                     *             ]
                     *           },
                     *           "scheduleMinutes": 1440,
                     *           "status": "idle",
                     *           "lastSync": {
                     *             "jobId": "9e2c4b7d-1a03-4b6e-8f25-d4c1a7e93b50",
                     *             "status": "done",
                     *             "error": null,
                     *             "startedAt": "2026-12-01T03:00:00.000Z",
                     *             "finishedAt": "2026-12-01T03:02:10.000Z",
                     *             "pages": {
                     *               "discovered": 412,
                     *               "fetched": 412,
                     *               "unchanged": 398,
                     *               "updated": 14,
                     *               "removed": 1,
                     *               "failed": 0
                     *             }
                     *           },
                     *           "nextSyncAt": "2026-12-02T03:00:00.000Z",
                     *           "createdAt": "2026-11-30T10:00:00.000Z",
                     *           "updatedAt": "2026-11-30T10:00:00.000Z"
                     *         }
                     *       ],
                     *       "take": 20,
                     *       "nextCursor": null
                     *     }
                     */
                    "application/json": {
                        sources: components["schemas"]["Source"][];
                        take: number;
                        /** @description Pass as cursor to read the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "sources-create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "kind": "website",
                 *       "name": "Product docs",
                 *       "namespace": "user_docs",
                 *       "settings": {
                 *         "startUrl": "https://docs.example.com/",
                 *         "exclude": [
                 *           "/blog/*"
                 *         ]
                 *       },
                 *       "scheduleMinutes": 1440
                 *     }
                 */
                "application/json": {
                    /**
                     * @description What the source is: `website` (a docs site) or `confluence` (a Confluence space)
                     * @enum {string}
                     */
                    kind: "website" | "confluence";
                    name: string;
                    /** @enum {string} */
                    namespace: "user_docs" | "tech_docs" | "api_endpoints" | "wiki";
                    /** @description By kind. `website`: `startUrl` and/or `sitemapUrl`, `allowedHosts`, `pathPrefix`, `include`, `exclude`, `maxPages`, `maxDepth`. `confluence`: `spaceKey` (read with the server's WIKI_BASE_URL, WIKI_EMAIL and WIKI_API_TOKEN; credentials are never settings). See docs/sources.md. */
                    settings: components["schemas"]["WebsiteSourceSettings"] | components["schemas"]["ConfluenceSourceSettings"];
                    /** @description Sync every this many minutes (5 to 44,640); null or absent: only on demand */
                    scheduleMinutes?: number | null;
                    /** @description Queue a first sync at once (default true) */
                    sync?: boolean;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13",
                     *       "kind": "website",
                     *       "name": "Product docs",
                     *       "namespace": "user_docs",
                     *       "settings": {
                     *         "startUrl": "https://docs.example.com/",
                     *         "sitemapUrl": "https://docs.example.com/sitemap.xml",
                     *         "pathPrefix": "/",
                     *         "exclude": [
                     *           "/blog/*"
                     *         ]
                     *       },
                     *       "scheduleMinutes": 1440,
                     *       "status": "queued",
                     *       "lastSync": null,
                     *       "nextSyncAt": "2026-12-02T03:00:00.000Z",
                     *       "createdAt": "2026-11-30T10:00:00.000Z",
                     *       "updatedAt": "2026-11-30T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Source"];
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description The job queue is unavailable (the source is created; sync it again later), or a `confluence` source is asked for and WIKI_* are not set; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The job queue is unavailable (the source is created; sync it again later), or a `confluence` source is asked for and WIKI_* are not set",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "sources-get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13",
                     *       "kind": "website",
                     *       "name": "Product docs",
                     *       "namespace": "user_docs",
                     *       "settings": {
                     *         "startUrl": "https://docs.example.com/",
                     *         "sitemapUrl": "https://docs.example.com/sitemap.xml",
                     *         "pathPrefix": "/",
                     *         "exclude": [
                     *           "/blog/*"
                     *         ]
                     *       },
                     *       "scheduleMinutes": 1440,
                     *       "status": "idle",
                     *       "lastSync": {
                     *         "jobId": "9e2c4b7d-1a03-4b6e-8f25-d4c1a7e93b50",
                     *         "status": "done",
                     *         "error": null,
                     *         "startedAt": "2026-12-01T03:00:00.000Z",
                     *         "finishedAt": "2026-12-01T03:02:10.000Z",
                     *         "pages": {
                     *           "discovered": 412,
                     *           "fetched": 412,
                     *           "unchanged": 398,
                     *           "updated": 14,
                     *           "removed": 1,
                     *           "failed": 0
                     *         }
                     *       },
                     *       "nextSyncAt": "2026-12-02T03:00:00.000Z",
                     *       "createdAt": "2026-11-30T10:00:00.000Z",
                     *       "updatedAt": "2026-11-30T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Source"];
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such source */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such source",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "sources-delete": {
        parameters: {
            query?: {
                /** @example true */
                documents?: boolean;
            };
            header?: never;
            path: {
                /** @example 0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "deleted": true,
                     *       "id": "0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13",
                     *       "documentsRemoved": 412
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        deleted: true;
                        id: string;
                        documentsRemoved: number;
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such source */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such source",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "sources-update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13 */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "scheduleMinutes": 360
                 *     }
                 */
                "application/json": {
                    name?: string;
                    /** @description The whole settings object (it replaces the stored one) */
                    settings?: components["schemas"]["WebsiteSourceSettings"] | components["schemas"]["ConfluenceSourceSettings"];
                    scheduleMinutes?: number | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13",
                     *       "kind": "website",
                     *       "name": "Product docs",
                     *       "namespace": "user_docs",
                     *       "settings": {
                     *         "startUrl": "https://docs.example.com/",
                     *         "sitemapUrl": "https://docs.example.com/sitemap.xml",
                     *         "pathPrefix": "/",
                     *         "exclude": [
                     *           "/blog/*"
                     *         ]
                     *       },
                     *       "scheduleMinutes": 360,
                     *       "status": "idle",
                     *       "lastSync": {
                     *         "jobId": "9e2c4b7d-1a03-4b6e-8f25-d4c1a7e93b50",
                     *         "status": "done",
                     *         "error": null,
                     *         "startedAt": "2026-12-01T03:00:00.000Z",
                     *         "finishedAt": "2026-12-01T03:02:10.000Z",
                     *         "pages": {
                     *           "discovered": 412,
                     *           "fetched": 412,
                     *           "unchanged": 398,
                     *           "updated": 14,
                     *           "removed": 1,
                     *           "failed": 0
                     *         }
                     *       },
                     *       "nextSyncAt": "2026-12-02T03:00:00.000Z",
                     *       "createdAt": "2026-11-30T10:00:00.000Z",
                     *       "updatedAt": "2026-11-30T10:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["Source"];
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such source */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such source",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "sources-sync": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            202: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "jobId": "9e2c4b7d-1a03-4b6e-8f25-d4c1a7e93b50",
                     *       "status": "pending"
                     *     }
                     */
                    "application/json": {
                        jobId: string;
                        /** @constant */
                        status: "pending";
                    };
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such source */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such source",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A sync of this source is already queued or running */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "A sync of this source is already queued or running",
                     *       "code": "CONFLICT"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description The job queue is unavailable; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The job queue is unavailable",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "sources-failures": {
        parameters: {
            query?: {
                /** @example 50 */
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                /** @example 0c9d3e1a-6b2f-4f7e-8a15-2d4c6e8f0a13 */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "failures": [
                     *         {
                     *           "url": "https://docs.example.com/reference/old",
                     *           "reason": "the server answered 500 Internal Server Error",
                     *           "httpStatus": 500,
                     *           "at": "2026-12-01T03:01:02.000Z"
                     *         }
                     *       ],
                     *       "take": 50,
                     *       "nextCursor": null
                     *     }
                     */
                    "application/json": {
                        failures: components["schemas"]["SourceFailure"][];
                        take: number;
                        /** @description Pass as cursor to read the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description No such source */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "No such source",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "insights-gaps": {
        parameters: {
            query?: {
                /** @example chat */
                kind?: "search" | "chat";
                /** @example 0.3 */
                maxScore?: number;
                /** @example 10 */
                limit?: number;
                offset?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "gaps": [
                     *         {
                     *           "query": "how do I export my data to CSV?",
                     *           "count": 4,
                     *           "bestScore": 0.21,
                     *           "meanScore": 0.18,
                     *           "namespaces": [
                     *             "user_docs"
                     *           ],
                     *           "kinds": [
                     *             "chat"
                     *           ],
                     *           "firstAskedAt": "2026-11-21T14:02:11.000Z",
                     *           "lastAskedAt": "2026-11-24T07:45:30.000Z",
                     *           "thumbsDown": 1,
                     *           "foundNothing": 2,
                     *           "standalone": null
                     *         }
                     *       ],
                     *       "total": 1,
                     *       "take": 10,
                     *       "skip": 0
                     *     }
                     */
                    "application/json": {
                        gaps: components["schemas"]["KnowledgeGap"][];
                        total: number;
                        take: number;
                        skip: number;
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "feedback-list": {
        parameters: {
            query?: {
                /** @example down */
                rating?: "up" | "down";
                reason?: "incorrect" | "incomplete" | "not_what_i_asked" | "outdated" | "other";
                namespace?: "user_docs" | "tech_docs" | "api_endpoints" | "wiki";
                keyId?: string;
                since?: string;
                /** @example 1 */
                limit?: number;
                offset?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "feedback": [
                     *         {
                     *           "messageId": "e6b0c3f9-1d47-4a2e-8c5b-7f3a9d2e0c61",
                     *           "rating": "down",
                     *           "reasons": [
                     *             "outdated"
                     *           ],
                     *           "note": "The command was renamed in 2.0",
                     *           "createdAt": "2026-11-24T10:01:00.000Z",
                     *           "updatedAt": "2026-11-24T10:01:00.000Z",
                     *           "conversationId": "2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376",
                     *           "keyId": "5d2e8f1a-3c4b-4e6d-9f70-8a1b2c3d4e5f",
                     *           "keyLabel": "docs site assistant",
                     *           "question": "How do I rotate an API key?",
                     *           "answer": "Create the new key, deploy it, then revoke the old one [1].",
                     *           "sources": [
                     *             {
                     *               "title": "Rotating API keys",
                     *               "documentId": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48",
                     *               "slug": "guides/rotating-keys",
                     *               "namespace": "user_docs"
                     *             }
                     *           ],
                     *           "namespaces": [
                     *             "user_docs"
                     *           ]
                     *         }
                     *       ],
                     *       "total": 3,
                     *       "take": 1,
                     *       "skip": 0,
                     *       "nextCursor": "WyIyMDI2LTExLTI0VDEwOjAxOjAwLjAwMDAwMFoiLCJlNmIwYzNmOS0xZDQ3LTRhMmUtOGM1Yi03ZjNhOWQyZTBjNjEiXQ"
                     *     }
                     */
                    "application/json": {
                        feedback: components["schemas"]["FeedbackEntry"][];
                        total: number;
                        take: number;
                        skip: number;
                        /** @description Pass as cursor to read the next page; null on the last page */
                        nextCursor: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidQuery"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "assistant-config": {
        parameters: {
            query: {
                /**
                 * @description The publishable key (kb_pub_…)
                 * @example kb_pub_7Hq2LmX9vB4nR8tW1yK6pD3sF0gJ5cA2eZuQ
                 */
                key: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "namespaces": [
                     *         "user_docs"
                     *       ],
                     *       "botCheck": null,
                     *       "limits": {
                     *         "visitorRateLimitRpm": 10,
                     *         "visitorRateLimitRpd": 100
                     *       },
                     *       "answerer": "model"
                     *     }
                     */
                    "application/json": components["schemas"]["AssistantConfig"];
                };
            };
            /** @description key is not a publishable key */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "key is not a publishable key",
                     *       "code": "BAD_REQUEST"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Unknown or revoked publishable key */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Unknown or revoked publishable key",
                     *       "code": "UNAUTHORIZED"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The page's origin is not one the key allows, or the request has no Origin */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The page's origin is not one the key allows, or the request has no Origin",
                     *       "code": "FORBIDDEN"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            500: components["responses"]["InternalError"];
            503: components["responses"]["Unavailable"];
        };
    };
    "assistant-visitor": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "0.zQx…"
                 *     }
                 */
                "application/json": {
                    /** @description The provider's challenge token from the page */
                    token: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "visitorToken": "eyJrIjoi….Qm9v…",
                     *       "expiresAt": "2026-11-24T12:00:00.000Z"
                     *     }
                     */
                    "application/json": components["schemas"]["VisitorToken"];
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            /** @description The bot check failed (or was used before), or the page is not one the key allows */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The bot check failed (or was used before), or the page is not one the key allows",
                     *       "code": "FORBIDDEN"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description This server has no bot check */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "This server has no bot check",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description The bot check provider could not be reached; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The bot check provider could not be reached",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    chat: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "message": "How do I rotate an API key?",
                 *       "source": "user_docs",
                 *       "stream": false
                 *     }
                 */
                "application/json": components["schemas"]["ChatRequest"];
            };
        };
        responses: {
            /** @description The answer: an event stream, or one JSON object when stream is false */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example data: {"type":"meta","conversationId":"2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376","messageId":"8d4b7e21-6c3a-4f95-b0d8-2e1f9a7c5b63","sources":[{"title":"Rotating API keys","documentId":"7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48","slug":"guides/rotating-keys","namespace":"user_docs"}]}
                     *
                     *     data: {"type":"chunk","text":"Create the new key, deploy it, "}
                     *
                     *     data: {"type":"chunk","text":"then revoke the old one [1]."}
                     *
                     *     data: [DONE]
                     */
                    "text/event-stream": string;
                    /**
                     * @example {
                     *       "conversationId": "2c8f1a6e-0b94-4d37-b5a2-e9f0c1d8a376",
                     *       "messageId": "8d4b7e21-6c3a-4f95-b0d8-2e1f9a7c5b63",
                     *       "answer": "Create the new key, deploy it, then revoke the old one [1].",
                     *       "sources": [
                     *         {
                     *           "title": "Rotating API keys",
                     *           "documentId": "7b1e0c9a-2f4d-4e8b-a6c3-51d09e2f7a48",
                     *           "slug": "guides/rotating-keys",
                     *           "namespace": "user_docs"
                     *         }
                     *       ],
                     *       "language": "en"
                     *     }
                     */
                    "application/json": components["schemas"]["ChatAnswer"];
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            /** @description Unknown conversationId (or one another key started) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "Unknown conversationId (or one another key started)",
                     *       "code": "NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description The language model or the embedding service is unavailable (stream: false; a stream reports it in an error event); or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The language model or the embedding service is unavailable (stream: false; a stream reports it in an error event)",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "ingest-file": {
        parameters: {
            query?: {
                /**
                 * @description Raw body only: Target namespace
                 * @example user_docs
                 */
                namespace?: "user_docs" | "tech_docs" | "api_endpoints" | "wiki";
                /** @description Raw body only: Document title. Defaults to the file's own (a PDF's metadata title, an HTML title, the first heading), else its file name. One file only. */
                title?: string;
                /** @description Raw body only: Deduplication key within the namespace. Defaults to the file name, else the title. One file only. */
                slug?: string;
                /** @description Raw body only: The file's http(s) address: the document's link, which answers cite (a PDF's with #page=N). One file only. */
                url?: string;
                /** @description Raw body only: The folder a folder sync read the files from */
                folder?: string;
                /** @description Raw body only: the file's name (its extension tells an untyped file's format; the default slug) */
                filename?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "file": [
                 *         "(guide.pdf's bytes)"
                 *       ],
                 *       "namespace": "user_docs",
                 *       "url": "https://docs.example.com/guide.pdf"
                 *     }
                 */
                "multipart/form-data": {
                    /** @description One or more files (parts named file, each with its filename and Content-Type) */
                    file: string[];
                    /**
                     * @description Target namespace
                     * @enum {string}
                     */
                    namespace: "user_docs" | "tech_docs" | "api_endpoints" | "wiki";
                    /** @description Document title. Defaults to the file's own (a PDF's metadata title, an HTML title, the first heading), else its file name. One file only. */
                    title?: string;
                    /** @description Deduplication key within the namespace. Defaults to the file name, else the title. One file only. */
                    slug?: string;
                    /**
                     * Format: uri
                     * @description The file's http(s) address: the document's link, which answers cite (a PDF's with #page=N). One file only.
                     */
                    url?: string;
                    /** @description The folder a folder sync read the files from */
                    folder?: string;
                };
                /** @example (the file's bytes) */
                "application/pdf": string;
                /** @example (the file's bytes) */
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document": string;
                /** @example (the file's bytes) */
                "text/html": string;
                /** @example (the file's bytes) */
                "application/xhtml+xml": string;
                /** @example (the file's bytes) */
                "text/markdown": string;
                /** @example (the file's bytes) */
                "text/plain": string;
                /** @example (the file's bytes: its type is told from filename, else from them) */
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description One file: its result. Several: each file's result or refusal. */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "documentId": "5e2b9c1d-7a43-4f08-b6e1-93d0c2a8f417",
                     *       "skipped": false,
                     *       "format": "pdf",
                     *       "pages": 12,
                     *       "filename": "guide.pdf"
                     *     }
                     */
                    "application/json": components["schemas"]["IngestFileResult"] | components["schemas"]["IngestFilesResult"];
                };
            };
            400: components["responses"]["InvalidBody"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["KeyForbidden"];
            /** @description The body is larger than KB_MAX_FILE_BYTES (25 MB by default) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The body is larger than KB_MAX_FILE_BYTES (25 MB by default)",
                     *       "code": "PAYLOAD_TOO_LARGE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A type the service does not read (the message names those it does) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "A type the service does not read (the message names those it does)",
                     *       "code": "UNSUPPORTED_MEDIA_TYPE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The file cannot be read: no text layer (a scan: OCR is not supported), encrypted, truncated or corrupt, not what its type says, or over the limits of a conversion */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The file cannot be read: no text layer (a scan: OCR is not supported), encrypted, truncated or corrupt, not what its type says, or over the limits of a conversion",
                     *       "code": "UNPROCESSABLE_CONTENT"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            429: components["responses"]["RateLimited"];
            500: components["responses"]["InternalError"];
            /** @description The embedding service failed; the document was not changed; or the database or Redis cannot be reached, or the store's disk is full (writes) */
            503: {
                headers: {
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message": "The embedding service failed; the document was not changed",
                     *       "code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document, cached for 5 minutes */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
        };
    };
    docs: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An HTML page; its scripts and styles are below /docs/ */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
        };
    };
}
