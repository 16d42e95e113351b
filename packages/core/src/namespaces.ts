/** The namespaces (also called sources) documents are grouped in. */
export const NAMESPACES = ['user_docs', 'tech_docs', 'api_endpoints', 'wiki'] as const;
export type Namespace = (typeof NAMESPACES)[number];

export function isNamespace(value: string): value is Namespace {
  return (NAMESPACES as readonly string[]).includes(value);
}
