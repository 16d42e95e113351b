export { InvalidSpecError } from './errors.ts';
export { MAX_ALIAS_COUNT, MAX_NESTING_DEPTH, MAX_VALUES, parseSpec } from './parse.ts';
export { HTTP_METHODS, operationsFromSpec } from './operations.ts';
export type { OperationDocument, OperationsResult } from './operations.ts';
