import { cpuStopwatch } from '@kb/vitest-config/cpu-time';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { InvalidSpecError, operationsFromSpec, parseSpec, type OperationDocument } from './index.ts';
import { MAX_LINES_PER_SCHEMA } from './schema.ts';

type Spec = Record<string, unknown>;

/** Parses like the API does (through the text form), so fixtures exercise parseSpec too. */
function documents(spec: Spec, format: 'json' | 'yaml' = 'json'): OperationDocument[] {
  const text = format === 'json' ? JSON.stringify(spec) : stringify(spec);
  return operationsFromSpec(parseSpec(text, format)).operations;
}

function only(spec: Spec): OperationDocument {
  const [document, ...rest] = documents(spec);
  expect(rest).toHaveLength(0);
  if (!document) throw new Error('no operation');
  return document;
}

function refusal(spec: unknown): string {
  try {
    operationsFromSpec(spec);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidSpecError);
    return (error as Error).message;
  }
  throw new Error('expected an InvalidSpecError');
}

const info = { title: 'Pet Store', version: '1.2.0' };

const petStoreYaml = `
openapi: 3.0.3
info:
  title: Pet Store
  version: 1.2.0
paths:
  /pets/{petId}:
    parameters:
      - name: petId
        in: path
        description: The pet's id.
        schema: { type: string, format: uuid }
      - $ref: '#/components/parameters/Trace'
    get:
      operationId: getPet
      summary: Get a pet
      description: |
        Returns one pet.

        Pets are **fluffy**.
      tags: [pets]
      parameters:
        - name: fields
          in: query
          schema: { type: array, items: { type: string, enum: [name, tag] } }
        - name: X-Trace
          in: header
          required: true
          description: Overrides the path-level header.
          schema: { type: string }
      responses:
        '200':
          description: The pet.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Pet' }
        default:
          $ref: '#/components/responses/Error'
    delete:
      operationId: deletePet
      deprecated: true
      responses:
        '204': { description: Deleted. }
components:
  parameters:
    Trace:
      name: X-Trace
      in: header
      schema: { type: string }
  responses:
    Error:
      description: Something went wrong.
      content:
        application/json:
          schema:
            type: object
            required: [code]
            properties:
              code: { type: integer, format: int32 }
              message: { type: string }
  schemas:
    Pet:
      type: object
      description: A pet.
      required: [id, name]
      properties:
        id: { type: string, format: uuid, readOnly: true }
        name: { type: string, maxLength: 100, description: "The pet's name." }
        status: { type: string, enum: [available, sold], default: available }
        owner: { $ref: '#/components/schemas/Owner' }
    Owner:
      type: object
      properties:
        name: { type: string }
        pets:
          type: array
          items: { $ref: '#/components/schemas/Pet' }
`;

describe('OpenAPI 3.0 (YAML)', () => {
  const { operations, skipped } = operationsFromSpec(parseSpec(petStoreYaml, 'yaml'));

  it('makes one document per operation, in spec order', () => {
    expect(skipped).toBe(0);
    expect(operations.map((operation) => [operation.operationId, operation.title])).toEqual([
      ['getPet', 'Get a pet'],
      ['deletePet', 'DELETE /pets/{petId}'],
    ]);
    expect(operations[0]?.metadata).toEqual({
      method: 'GET',
      path: '/pets/{petId}',
      tags: ['pets'],
      specTitle: 'Pet Store',
      specVersion: '1.2.0',
    });
  });

  it('writes the operation as Markdown', () => {
    expect(operations[0]?.markdown).toBe(`# Get a pet

\`GET /pets/{petId}\`

Returns one pet.

Pets are **fluffy**.

Operation ID: \`getPet\`\\
Tags: pets

## Parameters

| Name | In | Type | Required | Description |
| --- | --- | --- | --- | --- |
| \`petId\` | path | string, format: uuid | yes | The pet's id. |
| \`X-Trace\` | header | string | yes | Overrides the path-level header. |
| \`fields\` | query | array of string | no | Items one of: \`name\`, \`tag\`. |

## Responses

### 200

The pet.

Content type: \`application/json\`

Schema: object (\`Pet\`). A pet.

- \`id\` (string, required, format: uuid, read-only)
- \`name\` (string, required, max length: 100): The pet's name.
- \`status\` (string, default: \`available\`). One of: \`available\`, \`sold\`.
- \`owner\` (object (\`Owner\`))
  - \`name\` (string)
  - \`pets\` (array of object (\`Pet\`)) (circular reference to \`Pet\`)

### default

Something went wrong.

Content type: \`application/json\`

Schema: object.

- \`code\` (integer, required, format: int32)
- \`message\` (string)
`);
  });

  it('merges path-level parameters and marks deprecation', () => {
    const markdown = operations[1]?.markdown ?? '';
    expect(markdown).toContain('**Deprecated:** this operation is deprecated.');
    expect(markdown).toContain('| `petId` | path | string, format: uuid | yes | The pet\'s id. |');
    expect(markdown).toContain('| `X-Trace` | header | string | no |  |');
  });

  it('gives the same documents from the same spec in JSON', () => {
    const json = JSON.stringify(parseSpec(petStoreYaml, 'yaml'));
    expect(operationsFromSpec(parseSpec(json, 'json')).operations).toEqual(operations);
  });
});

describe('Swagger 2.0', () => {
  const swagger: Spec = {
    swagger: '2.0',
    info,
    consumes: ['application/json'],
    produces: ['application/json'],
    paths: {
      '/pets': {
        parameters: [{ $ref: '#/parameters/Limit' }],
        post: {
          operationId: 'addPet',
          summary: 'Add a pet',
          parameters: [{ name: 'pet', in: 'body', required: true, description: 'The new pet.', schema: { $ref: '#/definitions/NewPet' } }],
          responses: { '201': { $ref: '#/responses/Created' }, '400': { description: 'Bad input.' } },
        },
      },
      '/pets/{id}/photo': {
        put: {
          operationId: 'uploadPhoto',
          consumes: ['multipart/form-data'],
          parameters: [
            { name: 'id', in: 'path', type: 'integer', format: 'int64' },
            { name: 'file', in: 'formData', type: 'file', required: true, description: 'The photo.' },
            { name: 'caption', in: 'formData', type: 'string', enum: ['front', 'side'] },
            { name: 'tags', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'csv' },
          ],
          responses: { '204': { description: 'Stored.', headers: { 'X-Rate-Limit': { type: 'integer', description: 'Calls left.' } } } },
        },
      },
    },
    parameters: { Limit: { name: 'limit', in: 'query', type: 'integer', default: 20, description: 'Page size.' } },
    responses: { Created: { description: 'Created.', schema: { $ref: '#/definitions/Pet' } } },
    definitions: {
      NewPet: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, tag: { type: 'string' } } },
      Pet: { allOf: [{ $ref: '#/definitions/NewPet' }, { type: 'object', required: ['id'], properties: { id: { type: 'integer', format: 'int64' } } }] },
    },
  };

  it('renders body parameters as the request body and follows #/definitions, #/parameters, #/responses', () => {
    const [addPet] = documents(swagger);
    expect(addPet?.markdown).toContain(`## Parameters

| Name | In | Type | Required | Description |
| --- | --- | --- | --- | --- |
| \`limit\` | query | integer | no | Page size. Default: \`20\`. |

## Request body

Required. The new pet.

Content type: \`application/json\`

Schema: object (\`NewPet\`).

- \`name\` (string, required)
- \`tag\` (string)

## Responses

### 201

Created.

Content type: \`application/json\`

Schema: object (\`Pet\`).

- \`name\` (string, required)
- \`tag\` (string)
- \`id\` (integer, required, format: int64)

### 400

Bad input.
`);
  });

  it('renders formData parameters as form fields, with the operation consumes', () => {
    const [, upload] = documents(swagger, 'yaml');
    expect(upload?.markdown).toContain(`## Parameters

| Name | In | Type | Required | Description |
| --- | --- | --- | --- | --- |
| \`id\` | path | integer, format: int64 | yes |  |
| \`tags\` | query | array of string | no |  |
`);
    expect(upload?.markdown).toContain(`## Request body

Content type: \`multipart/form-data\`

Form fields:

- \`file\` (file, required): The photo.
- \`caption\` (string): One of: \`front\`, \`side\`.`);
    expect(upload?.markdown).toContain('Headers:\n\n- `X-Rate-Limit` (integer): Calls left.');
  });
});

describe('OpenAPI 3.1', () => {
  it('reads type arrays, null variants, $ref siblings and request bodies', () => {
    const document = only({
      openapi: '3.1.0',
      info,
      paths: {
        '/items': {
          post: {
            operationId: 'createItem',
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/Item' } },
                'application/x-www-form-urlencoded': { schema: { $ref: '#/components/schemas/Item' } },
              },
            },
            responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Item', description: 'The stored item.' } } } } },
          },
        },
      },
      components: {
        schemas: {
          Item: {
            type: 'object',
            properties: {
              label: { type: ['string', 'null'] },
              size: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }], description: 'How big.' },
              kind: { const: 'item' },
              shape: { oneOf: [{ $ref: '#/components/schemas/Circle' }, { $ref: '#/components/schemas/Square' }] },
            },
          },
          Circle: { type: 'object', description: 'Round.', properties: { radius: { type: 'number' } } },
          Square: { type: 'object', properties: { side: { type: 'number' } } },
        },
      },
    });
    expect(document.markdown).toContain(`## Request body

Required.

Content types: \`application/json\`, \`application/x-www-form-urlencoded\`

Schema: object (\`Item\`).

- \`label\` (string | null)
- \`size\` (integer, nullable, minimum: 1): How big.
- \`kind\` (constant). Constant: \`item\`.
- \`shape\` (one of \`Circle\`, \`Square\`)
  - One of:
    - object (\`Circle\`): Round.
      - \`radius\` (number)
    - object (\`Square\`)
      - \`side\` (number)
`);
    expect(document.markdown).toContain('Schema: object (`Item`) (fields of `Item` are listed elsewhere in this document). The stored item.');
  });

  it('refuses a spec with only webhooks', () => {
    expect(refusal({ openapi: '3.1.0', info, webhooks: { newPet: { post: { operationId: 'x' } } } })).toBe(
      "the spec has no 'paths' (it only describes webhooks, which are not ingested)",
    );
  });
});

describe('$ref resolution', () => {
  const withSchema = (schemas: Spec, schema: unknown): Spec => ({
    openapi: '3.0.0',
    info,
    paths: { '/x': { get: { operationId: 'getX', responses: { '200': { description: 'OK', content: { 'application/json': { schema } } } } } } },
    components: { schemas },
  });

  it('ends cycles with a note naming the schema (self, mutual, and through arrays)', () => {
    const markdown = only(
      withSchema(
        {
          Node: { type: 'object', properties: { value: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } }, peer: { $ref: '#/components/schemas/Peer' } } },
          Peer: { type: 'object', properties: { back: { $ref: '#/components/schemas/Node' } } },
        },
        { $ref: '#/components/schemas/Node' },
      ),
    ).markdown;
    expect(markdown).toContain(`- \`value\` (string)
- \`children\` (array of object (\`Node\`)) (circular reference to \`Node\`)
- \`peer\` (object (\`Peer\`))
  - \`back\` (object (\`Node\`)) (circular reference to \`Node\`)`);
  });

  it('ends $ref chains that loop, and names missing targets', () => {
    const markdown = only(
      withSchema(
        { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' }, Holder: { type: 'object', properties: { loop: { $ref: '#/components/schemas/A' }, gone: { $ref: '#/components/schemas/Missing' } } } },
        { $ref: '#/components/schemas/Holder' },
      ),
    ).markdown;
    expect(markdown).toContain('- `loop` ((circular reference: #/components/schemas/A))');
    expect(markdown).toContain('- `gone` ((unresolved reference: #/components/schemas/Missing))');
  });

  it('decodes JSON-pointer escapes (~1, ~0) and percent-encoding', () => {
    const markdown = only(
      withSchema(
        {
          'a/b': { type: 'object', properties: { slash: { type: 'string' } } },
          'c~d': { type: 'object', properties: { tilde: { type: 'string' } } },
          'e f': { type: 'object', properties: { space: { type: 'string' } } },
          Holder: {
            type: 'object',
            properties: {
              one: { $ref: '#/components/schemas/a~1b' },
              two: { $ref: '#/components/schemas/c~0d' },
              three: { $ref: '#/components/schemas/e%20f' },
              four: { $ref: '#/components/schemas/Holder/properties/one' },
            },
          },
        },
        { $ref: '#/components/schemas/Holder' },
      ),
    ).markdown;
    expect(markdown).toContain('- `one` (object (`a/b`))\n  - `slash` (string)');
    expect(markdown).toContain('- `two` (object (`c~d`))\n  - `tilde` (string)');
    expect(markdown).toContain('- `three` (object (`e f`))\n  - `space` (string)');
    expect(markdown).toContain('- `four` (object (`a/b`)) (fields of `a/b` are listed elsewhere in this document)');
  });

  describe('external references', () => {
    afterEach(() => vi.restoreAllMocks());

    it('are named, never fetched or read', () => {
      const fetchSpy = vi.spyOn(globalThis, 'fetch');
      const externals = ['http://127.0.0.1:9/pet.json', 'https://example.com/schemas.yaml#/Pet', 'file:///etc/passwd', './models/pet.yaml#/Pet', '../common/Error.yaml'];
      const spec: Spec = {
        openapi: '3.0.0',
        info,
        paths: {
          '/pets': {
            get: {
              operationId: 'listPets',
              parameters: [{ $ref: externals[3] }],
              responses: {
                '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object', properties: { a: { $ref: externals[0] }, b: { $ref: externals[1] }, c: { $ref: externals[2] } } } } } },
                default: { $ref: externals[4] },
              },
            },
          },
          '/remote': { $ref: 'https://example.com/paths.yaml#/remote' },
        },
      };
      const { operations, skipped } = operationsFromSpec(parseSpec(JSON.stringify(spec), 'json'));
      expect(skipped).toBe(0);
      const markdown = operations[0]?.markdown ?? '';
      expect(markdown).toContain('| (external reference: ./models/pet.yaml#/Pet) |');
      expect(markdown).toContain('- `a` ((external reference: http://127.0.0.1:9/pet.json))');
      expect(markdown).toContain('- `b` ((external reference: https://example.com/schemas.yaml#/Pet))');
      expect(markdown).toContain('- `c` ((external reference: file:///etc/passwd))');
      expect(markdown).toContain('### default\n\n(external reference: ../common/Error.yaml)');
      expect(markdown).not.toContain('root:');
      expect(fetchSpy).not.toHaveBeenCalled();
    });

    it('refuses a spec whose operations are all external (a multi-file spec)', () => {
      const message = refusal({
        openapi: '3.0.0',
        info,
        paths: { '/a': { get: { $ref: 'resources/a_get.yml' } }, '/b': { $ref: 'resources/b.yml' } },
      });
      expect(message).toBe(
        'the operations are external $refs (2, e.g. "resources/a_get.yml"), which are never fetched: bundle the spec into one document first',
      );
    });
  });
});

describe('operations without operationId', () => {
  it('are skipped and counted, as are repeated operationIds', () => {
    const result = operationsFromSpec({
      swagger: '2.0',
      info,
      paths: {
        '/a': { get: { responses: {} }, post: { operationId: 'createA', responses: {} }, put: { operationId: '  ', responses: {} } },
        '/b': { get: { operationId: 'createA', responses: {} }, delete: { operationId: 'deleteB', responses: {} }, 'x-ext': { operationId: 'ignored' } },
        'x-internal': { get: { operationId: 'ignoredToo' } },
      },
    });
    expect(result.operations.map((operation) => operation.operationId)).toEqual(['createA', 'deleteB']);
    expect(result.skipped).toBe(3);
  });

  it('a spec with none gives no documents', () => {
    expect(operationsFromSpec({ openapi: '3.0.0', info, paths: { '/a': { get: { responses: {} } } } })).toEqual({ operations: [], skipped: 1 });
    expect(operationsFromSpec({ openapi: '3.0.0', info, paths: {} })).toEqual({ operations: [], skipped: 0 });
  });
});

describe('invalid specs', () => {
  it('say what is wrong', () => {
    expect(refusal([1, 2])).toBe('the spec must be an object (a JSON or YAML mapping), not an array');
    expect(refusal('openapi: 3.0.0')).toBe('the spec must be an object (a JSON or YAML mapping), not a string');
    expect(refusal(null)).toBe('the spec must be an object (a JSON or YAML mapping), not null');
    expect(refusal({ info, paths: {} })).toBe("missing version: the spec needs an 'openapi' (3.0.x, 3.1.x) or 'swagger' (2.0) field");
    expect(refusal({ openapi: '4.0.0', info, paths: {} })).toBe(
      'unsupported OpenAPI version "4.0.0": supported are Swagger 2.0 and OpenAPI 3.0.x and 3.1.x',
    );
    expect(refusal({ swagger: '1.2', info, paths: {} })).toBe(
      'unsupported Swagger version "1.2": supported are Swagger 2.0 and OpenAPI 3.0.x and 3.1.x',
    );
    expect(refusal({ openapi: '3.0.0', info })).toBe("the spec has no 'paths'");
    expect(refusal({ openapi: '3.0.0', info, paths: ['/a'] })).toBe("'paths' must be an object, not an array");
  });

  it('tolerate odd values inside without throwing anything else', () => {
    const odd: Spec = {
      openapi: 3.1,
      paths: {
        '/a': {
          parameters: 'nope',
          get: {
            operationId: 'a',
            summary: 42,
            tags: ['t', 7, null],
            parameters: [null, 5, { $ref: 7 }, { name: 'q', in: 'query', schema: 'string', content: 3 }],
            requestBody: { content: { 'text/plain': null } },
            responses: { '200': null, '201': { description: ['x'], content: { 'a/b': { schema: { properties: 'x', required: 'y', allOf: 'z', enum: [{ nested: [1, 2, 3, 4, 5, 6] }] } } } } },
          },
        },
        '/b': null,
      },
    };
    const { operations } = operationsFromSpec(odd);
    expect(operations).toHaveLength(1);
    expect(operations[0]?.metadata).toEqual({ method: 'GET', path: '/a', tags: ['t'], specTitle: '', specVersion: '' });
    expect(operations[0]?.title).toBe('GET /a');
    expect(operations[0]?.markdown).toContain('| `q` | query | any | no |  |\n\n## Request body');
  });
});

describe('bounds', () => {
  const nested = (depth: number): Spec => {
    let schema: Spec = { type: 'string' };
    for (let level = depth; level >= 1; level--) schema = { type: 'object', properties: { [`level${level}`]: schema } };
    return schema;
  };
  const response = (schema: unknown): Spec => ({
    openapi: '3.0.0',
    info,
    paths: { '/x': { get: { operationId: 'getX', responses: { '200': { description: 'OK', content: { 'application/json': { schema } } } } } } },
  });

  it('writes at most 4 levels of nested fields, then "…"', () => {
    const { markdown } = only(response(nested(8)));
    expect(markdown).toContain(`- \`level1\` (object)
  - \`level2\` (object)
    - \`level3\` (object)
      - \`level4\` (object)
        - …`);
    expect(markdown).not.toContain('level5');
  });

  it('keeps one huge schema from producing megabytes', () => {
    const properties: Spec = {};
    for (let index = 0; index < 5_000; index++) properties[`field${index}`] = { type: 'object', description: 'x'.repeat(1_000), properties: { inner: { type: 'string' } } };
    const { markdown } = only(response({ type: 'object', properties }));
    expect(markdown.length).toBeLessThan(100_000);
    expect(markdown).toContain('- `field0` (object): ');
    expect(markdown).toContain('more)');
    expect(markdown).toContain('deeper fields omitted');
  });

  it('lists a long enum in part', () => {
    const { markdown } = only(response({ type: 'string', enum: Array.from({ length: 300 }, (_, index) => `v${index}`) }));
    expect(markdown).toContain('`v19`, … (280 more).');
    expect(markdown).not.toContain('`v20`');
  });

  it('renders many operations sharing big cyclic schemas quickly', () => {
    const schemas: Spec = {};
    for (let index = 0; index < 200; index++) {
      const properties: Spec = {};
      for (let field = 0; field < 30; field++) {
        properties[`f${field}`] = field % 3 === 0 ? { $ref: `#/components/schemas/S${(index + field + 1) % 200}` } : { type: 'string', description: 'A field.' };
      }
      schemas[`S${index}`] = { type: 'object', properties };
    }
    const paths: Spec = {};
    for (let index = 0; index < 500; index++) {
      paths[`/things/${index}`] = {
        get: { operationId: `get${index}`, responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: `#/components/schemas/S${index % 200}` } } } } } },
      };
    }
    const elapsed = cpuStopwatch();
    const { operations } = operationsFromSpec({ openapi: '3.0.0', info, paths, components: { schemas } });
    // A wide bound (about ten times the work on a 2-core machine): it tells linear work from the blow-up it guards against, not a fast machine from a slow one.
    expect(elapsed()).toBeLessThan(20_000);
    expect(operations).toHaveLength(500);
    for (const operation of operations) expect(operation.markdown.length).toBeLessThan(60_000);
  });
});

describe('speed', () => {
  it('a 5,000-field schema with huge descriptions, used by 500 operations', () => {
    const properties: Spec = {};
    for (let index = 0; index < 5_000; index++) {
      properties[`field${index}`] = { type: 'string', description: `Field ${index}. ${'Long text. '.repeat(50)}` };
    }
    const paths: Spec = {};
    const huge = 'Huge description. '.repeat(100_000);
    for (let index = 0; index < 500; index++) {
      paths[`/x/${index}`] = {
        post: {
          operationId: `op${index}`,
          description: huge,
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Big' } } } },
          responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Big' } } } } },
        },
      };
    }
    const spec = { openapi: '3.0.0', info, paths, components: { schemas: { Big: { type: 'object', description: 'Big. '.repeat(200_000), properties } } } };
    const elapsed = cpuStopwatch();
    const { operations } = operationsFromSpec(spec);
    // A wide bound (about ten times the work on a 2-core machine): it tells linear work from the blow-up it guards against, not a fast machine from a slow one.
    expect(elapsed()).toBeLessThan(20_000);
    expect(operations).toHaveLength(500);
    const [first] = operations;
    expect(first?.markdown).toContain(`- … (${5000 - MAX_LINES_PER_SCHEMA} more)`);
    expect(first?.markdown.length).toBeLessThan(100_000);
    expect(first?.markdown).toContain('Huge description. Huge description.');
  });
});

describe('determinism', () => {
  const base = (): Spec => parseSpec(petStoreYaml, 'yaml') as Spec;

  it('the same spec gives byte-identical documents', () => {
    const first = operationsFromSpec(base()).operations;
    const second = operationsFromSpec(parseSpec(petStoreYaml, 'yaml')).operations;
    expect(second).toEqual(first);
  });

  it('changing one operation changes only its document', () => {
    const before = operationsFromSpec(base()).operations;
    const spec = base();
    const paths = spec.paths as Record<string, Record<string, Record<string, unknown>>>;
    const deletePet = paths['/pets/{petId}']?.delete;
    if (!deletePet) throw new Error('fixture');
    deletePet.description = 'Now with a description.';
    const after = operationsFromSpec(spec).operations;
    expect(after[0]).toEqual(before[0]);
    expect(after[1]?.markdown).not.toBe(before[1]?.markdown);
    expect(after[1]?.markdown).toContain('Now with a description.');
  });

  it('adding an operation or an unreferenced schema leaves the others unchanged', () => {
    const before = operationsFromSpec(base()).operations;
    const spec = base();
    (spec.paths as Spec)['/owners'] = { get: { operationId: 'listOwners', responses: { '200': { description: 'OK' } } } };
    ((spec.components as Spec).schemas as Spec).Unused = { type: 'object', properties: { x: { type: 'string' } } };
    spec.info = { title: 'Pet Store', version: '1.2.0', description: 'Spec-wide text that is not in any document.' };
    const after = operationsFromSpec(spec).operations;
    expect(after.slice(0, 2)).toEqual(before);
    expect(after[2]?.operationId).toBe('listOwners');
  });

  it('changing a shared schema changes the documents that use it, and only those', () => {
    const before = operationsFromSpec(base()).operations;
    const spec = base();
    const owner = ((spec.components as Spec).schemas as Record<string, { properties: Spec }>).Owner;
    if (!owner) throw new Error('fixture');
    owner.properties.email = { type: 'string', format: 'email' };
    const after = operationsFromSpec(spec).operations;
    expect(after[0]?.markdown).toContain('`email` (string, format: email)');
    expect(after[1]).toEqual(before[1]);
  });
});

describe('the link of an operation', () => {
  const spec = (externalDocs: unknown): Spec => ({
    openapi: '3.0.3',
    info,
    externalDocs: { url: 'https://docs.example.com/' },
    paths: { '/pets': { get: { operationId: 'listPets', ...(externalDocs === undefined ? {} : { externalDocs }), responses: { '200': { description: 'ok' } } } } },
  });

  it("is its externalDocs URL when that is http(s), never the spec's own", () => {
    expect(only(spec({ url: ' https://docs.example.com/pets#list ' })).metadata.url).toBe('https://docs.example.com/pets#list');
    expect(only(spec(undefined)).metadata).not.toHaveProperty('url');
    expect(only(spec({ url: 'mailto:docs@example.com' })).metadata).not.toHaveProperty('url');
    expect(only(spec({ url: 'relative/page' })).metadata).not.toHaveProperty('url');
    expect(only(spec({ description: 'no url' })).metadata).not.toHaveProperty('url');
  });
});
