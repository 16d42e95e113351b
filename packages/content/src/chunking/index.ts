export { CHUNKER_VERSION, DEFAULT_MAX_CHILD_TOKENS, DEFAULT_MIN_CHILD_TOKENS, chunkMarkdown, isPointerOnly } from './chunk.ts';
export { estimateTokens } from './tokens.ts';
export type { ChildChunk, ChunkOptions, ChunkedDocument, ParentChunk } from './types.ts';
