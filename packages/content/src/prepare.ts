import { chunkMarkdown } from './chunking/index.ts';
import { hasPageMarkers, stripPageMarkers } from './files/markers.ts';
import { LexicalVectorizer } from './lexical/vectorize.ts';

/** The text a child chunk is embedded as: its heading trail (title first) and its content. */
export function embeddingText(headingPath: string, content: string): string {
  return `${headingPath}\n\n${content}`;
}

/** A document split by the pipeline's step 5: sections, and children that name their section. */
export interface SplitDocument {
  /** Front matter. */
  metadata: Record<string, unknown>;
  parents: Array<{ ordinal: number; headingPath: string; content: string }>;
  /** `fragment`: the included fragment a child's text comes from (chunking/fragments.ts). */
  children: Array<{ parentOrdinal: number; ordinal: number; headingPath: string; content: string; tokenCount: number; page?: number; fragment?: string }>;
}

/**
 * Step 5: the document's sections and the children to store. A child that repeats an earlier one
 * of the document (the same heading trail and text: a block pasted over and over, a long run of
 * identical lines) gives searches nothing new to find, and many identical vectors hurt the HNSW
 * index: they fill each other's neighbour lists until a search's walk of the graph cannot leave
 * them, and other documents stop being found. Only the first occurrence is kept (children are
 * numbered without gaps); every section is kept whole, as the context of its children.
 */
export function splitDocument(input: { title: string; content: string }): SplitDocument {
  const chunked = chunkMarkdown(input);
  // A document with page markers (a PDF's): each child keeps the page it starts on, and the
  // markers are taken out of the stored text (a child of nothing but a marker is dropped).
  const paged = hasPageMarkers(input.content);
  let page: number | null = null;
  const seen = new Set<string>();
  const children: SplitDocument['children'] = [];
  for (const parent of chunked.parents) {
    for (const child of parent.children) {
      let { content } = child;
      let childPage: number | null = null;
      if (paged) {
        const stripped = stripPageMarkers(content, page);
        ({ text: content, page: childPage, last: page } = stripped);
        if (content === '') continue;
      }
      const key = `${child.headingPath}\u0000${content}`;
      if (seen.has(key)) continue;
      seen.add(key);
      children.push({ ...child, content, ordinal: children.length, parentOrdinal: parent.ordinal, ...(childPage === null ? {} : { page: childPage }) });
    }
  }
  return {
    metadata: chunked.metadata,
    parents: chunked.parents.map((p) => ({ ordinal: p.ordinal, headingPath: p.headingPath, content: paged ? stripPageMarkers(p.content, null).text : p.content })),
    children,
  };
}

/** Documents split, and their children's vectors from the built-in embedder (see prepareDocuments). */
export interface PreparedDocuments {
  documents: SplitDocument[];
  vectors: Float32Array;
}

const vectorizers = new Map<number, LexicalVectorizer>();

/**
 * Steps 5 and 6 for the built-in embedder, for many documents at once (the worker pool runs
 * this off the server's thread): their splits, and one array holding every child's vector, in
 * order, `dimension` components each. With a null dimension, step 5 only (no vectors).
 */
export function prepareDocuments(
  documents: ReadonlyArray<{ title: string; content: string }>,
  dimension: number | null,
): PreparedDocuments {
  const split = documents.map(splitDocument);
  if (dimension === null) return { documents: split, vectors: new Float32Array(0) };
  let vectorizer = vectorizers.get(dimension);
  if (!vectorizer) vectorizers.set(dimension, (vectorizer = new LexicalVectorizer({ dimension })));
  const vectors = new Float32Array(split.reduce((n, d) => n + d.children.length, 0) * dimension);
  let offset = 0;
  for (const document of split) {
    for (const child of document.children) {
      vectors.set(vectorizer.vector(embeddingText(child.headingPath, child.content)), offset);
      offset += dimension;
    }
  }
  return { documents: split, vectors };
}
