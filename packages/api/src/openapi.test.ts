import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lint, loadConfig } from '@redocly/openapi-core';
import { APP_ERROR_STATUS } from '@kb/core';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { buildOpenApiDocument, publishedProcedures, REFERENCE_PATHS } from './openapi.ts';
import { OPENAPI_FILE, openApiFileText } from './openapi-file.ts';
import { PUBLIC_PROCEDURES } from './trpc.ts';

// A JSON document read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const document = buildOpenApiDocument({ version: '0.0.0' }) as Json;
const operations = Object.entries(document.paths as Json).flatMap(([path, methods]) =>
  Object.entries(methods as Json).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation: operation as Json })),
);
const procedures = publishedProcedures();

/** A response or header, its $ref followed. */
function resolved(value: Json): Json {
  if (typeof value?.$ref !== 'string') return value;
  const [, , kind, name] = (value.$ref as string).split('/');
  return document.components[kind!][name!];
}

/** An operation's responses with their $refs followed. */
function responsesOf(operation: Json): Json {
  return Object.fromEntries(Object.entries(operation.responses as Json).map(([status, response]) => [status, resolved(response)]));
}

function headerNames(response: Json): string[] {
  return Object.keys(resolved(response).headers ?? {});
}

function operationOf(path: string, method: string): Json {
  const operation = (document.paths as Json)[path]?.[method.toLowerCase()];
  expect(operation, `${method} ${path}`).toBeDefined();
  return operation;
}

describe('the OpenAPI document', () => {
  it('is committed as generated (regenerate with `pnpm generate`)', () => {
    expect(readFileSync(OPENAPI_FILE, 'utf8'), 'packages/api/openapi.json is stale: run `pnpm generate`').toBe(openApiFileText());
  });

  it("passes Redocly's recommended rules (a warning only for the license it does not declare)", async () => {
    const problems = await lint({ ref: fileURLToPath(OPENAPI_FILE), config: await loadConfig({}) });
    const errors = problems.filter((problem) => problem.severity === 'error');
    expect(errors.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}: ${problem.message}`)).toEqual([]);
  });

  it('has an operation for every published procedure and the reference routes, and none other', () => {
    expect(procedures.length).toBeGreaterThan(10);
    const expected = [...procedures.map(({ method, path }) => `${method} ${path}`), ...REFERENCE_PATHS.map((path) => `GET ${path}`)].sort();
    expect(operations.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(expected);
    for (const route of ['POST /auth/login', 'POST /auth/logout', 'GET /faq', 'GET /conversations', 'POST /chat', 'DELETE /keys/{id}', 'GET /docs']) {
      expect(expected).toContain(route);
    }
  });

  it('asks no credentials of public operations and both kinds of the others', () => {
    for (const { name, method, path, meta } of procedures) {
      const operation = operationOf(path, method);
      if (meta.auth === 'public') {
        expect(PUBLIC_PROCEDURES.has(name), name).toBe(true);
        expect(operation.security, name).toEqual([]);
      } else {
        expect(operation.security, name).toEqual([{ Authorization: [] }, { AdminSession: [] }]);
      }
    }
    expect(document.security).toBeUndefined();
    expect(operationOf('/auth/login', 'POST').security).toEqual([]);
    expect(operationOf('/auth/logout', 'POST').security).toEqual([]);
    for (const path of REFERENCE_PATHS) expect(operationOf(path, 'GET').security).toEqual([]);
  });

  it('answers every error with the one error schema, an example of its own code, and nothing else', () => {
    const codes = Object.fromEntries(Object.entries(APP_ERROR_STATUS).map(([code, status]) => [String(status), code]));
    expect(Object.keys(document.components.schemas).filter((name) => name.startsWith('error.'))).toEqual([]);
    expect(document.components.schemas.Error.required).toEqual(['message', 'code']);
    for (const { method, path, operation } of operations) {
      for (const [status, response] of Object.entries(responsesOf(operation))) {
        if (status.startsWith('2')) continue;
        const json = response.content['application/json'];
        expect(Object.keys(response.content), `${method} ${path} ${status}`).toEqual(['application/json']);
        expect(json.schema, `${method} ${path} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
        expect(json.example.code, `${method} ${path} ${status}`).toBe(codes[status]);
        expect(json.example.message.length).toBeGreaterThan(0);
      }
    }
  });

  it('derives the errors of each operation from its access, input and body', () => {
    for (const { name, method, path, meta } of procedures) {
      const statuses = Object.keys(operationOf(path, method).responses);
      const auth = meta.auth ?? 'admin';
      expect(statuses, name).toContain('400');
      // A public route that a publishable key may call (the FAQ) or that names one (the assistant's config) refuses an unknown key.
      expect(statuses.includes('401'), name).toBe(auth !== 'public' || meta.publishable !== undefined || meta.errors?.[401] !== undefined || name === 'auth.login');
      // Admin routes refuse other keys; keyed routes refuse keys outside their scope or kind.
      expect(statuses.includes('403'), name).toBe(auth === 'admin' || auth === 'apiKey' || meta.publishable !== undefined || meta.errors?.[403] !== undefined);
      // A body (POST and PATCH) may be too large or of the wrong type.
      const hasBody = method === 'POST' || method === 'PATCH';
      expect(statuses.includes('413'), name).toBe(hasBody);
      expect(statuses.includes('415'), name).toBe(hasBody);
      if (auth !== 'public') {
        expect(statuses, name).toEqual(expect.arrayContaining(['429', '503']));
      }
      for (const status of Object.keys(meta.errors ?? {})) expect(statuses, name).toContain(status);
    }
  });

  it('sends Retry-After with every 429, and RateLimit headers with the answers of a key', () => {
    for (const { name, method, path, meta } of procedures) {
      const responses = responsesOf(operationOf(path, method));
      const limited = (meta.auth ?? 'admin') !== 'public' || meta.limitedPerClient === true;
      if (responses['429']) expect(headerNames(responses['429']), name).toContain('Retry-After');
      const success = Object.entries(responses).find(([status]) => status.startsWith('2'))![1];
      for (const header of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
        expect(headerNames(success).includes(header), `${name} ${header}`).toBe(limited);
        if (limited) expect(headerNames(responses['429']), name).toContain(header);
      }
    }
    for (const header of Object.values(document.components.headers as Json)) expect(header.schema.type).toBeDefined();
    expect(headerNames(responsesOf(operationOf('/faq', 'GET'))['429'])).toEqual(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);
    expect(headerNames(responsesOf(operationOf('/auth/login', 'POST'))['429'])).toEqual(['Retry-After']);
    expect(headerNames(responsesOf(operationOf('/keys', 'POST'))['401'])).toEqual(['WWW-Authenticate']);
  });

  it('uses the success status of each procedure', () => {
    expect(Object.keys(operationOf('/keys', 'POST').responses)[0]).toBe('201');
    expect(Object.keys(operationOf('/ingest/wiki', 'POST').responses)[0]).toBe('202');
    for (const { name, method, path, meta } of procedures) {
      const successes = Object.keys(operationOf(path, method).responses).filter((status) => status.startsWith('2'));
      expect(successes, name).toEqual([String(meta.successStatus ?? 200)]);
    }
  });

  it('has an example per operation that its procedure accepts and could answer', () => {
    for (const { name, method, path, meta, procedure } of procedures) {
      expect(meta.example, `${name} has no example`).toBeDefined();
      const input = procedure._def.inputs[0] as z.ZodType;
      const output = procedure._def.output as z.ZodType;
      const inputCheck = input.safeParse(meta.example!.input);
      expect(inputCheck.success, `${name} example input: ${inputCheck.error?.message}`).toBe(true);
      const outputCheck = output.safeParse(meta.example!.output);
      expect(outputCheck.success, `${name} example output: ${outputCheck.error?.message}`).toBe(true);
      const operation = operationOf(path, method);
      const success = Object.entries(operation.responses as Json).find(([status]) => status.startsWith('2'))![1];
      expect(success.content['application/json'].example, name).toEqual(meta.example!.output);
      if (operation.requestBody) {
        for (const [type, content] of Object.entries(operation.requestBody.content as Json)) expect(content.example, `${name} ${type}`).toBeDefined();
      }
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path') expect(parameter.example, `${name} ${parameter.name}`).toBeDefined();
      }
    }
  });

  it('describes the chat request, its event stream and its JSON answer', () => {
    const chat = operationOf('/chat', 'POST');
    expect(chat.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ChatRequest' });
    expect(document.components.schemas.ChatRequest.additionalProperties).toBe(false);
    const stream = chat.responses['200'].content['text/event-stream'];
    expect(stream['x-itemSchema']).toEqual({ $ref: '#/components/schemas/ChatStreamEvent' });
    expect(document.components.schemas.ChatStreamEvent.oneOf.map((schema: Json) => schema.$ref)).toEqual([
      '#/components/schemas/ChatMetaEvent',
      '#/components/schemas/ChatChunkEvent',
      '#/components/schemas/ChatErrorEvent',
    ]);
    expect(stream.example).toMatch(/^data: \{"type":"meta"/);
    expect(stream.example).toContain('data: [DONE]');
    expect(chat.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ChatAnswer' });
    expect(Object.keys(chat.responses)).toEqual(expect.arrayContaining(['400', '401', '404', '413', '415', '429', '503']));
  });

  it('describes the raw spec body of POST /ingest/openapi with its own limits', () => {
    const ingest = operationOf('/ingest/openapi', 'POST');
    expect(Object.keys(ingest.requestBody.content)).toEqual(['application/json', 'application/yaml']);
    expect(ingest.parameters.map((parameter: Json) => parameter.name)).toEqual(['namespace']);
    expect(resolved(ingest.responses['413']).description).toMatch(/KB_MAX_SPEC_BYTES/);
    expect(resolved(ingest.responses['415']).description).toMatch(/application\/yaml/);
    expect(resolved(operationOf('/search', 'POST').responses['413']).description).toMatch(/KB_MAX_BODY_BYTES/);
  });
});
