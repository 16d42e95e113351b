import { confluenceSettingsSchema, websiteSettingsSchema } from '@kb/core';
import { z } from 'zod';

type Json = Record<string, unknown>;

const SETTINGS_SCHEMAS = { WebsiteSourceSettings: websiteSettingsSchema, ConfluenceSourceSettings: confluenceSettingsSchema } as const;

/**
 * A source's settings are checked by the service against its kind's schema (so that a mistake is
 * answered with the field and rule it breaks); the document still describes them: one schema per
 * kind, and the settings of the create and change bodies as one of them.
 */
export function describeSourceSettings(document: { paths?: Json; components?: Json }): void {
  const components = (document.components ??= {}) as Record<string, Json>;
  const schemas = (components.schemas ??= {});
  for (const [name, schema] of Object.entries(SETTINGS_SCHEMAS)) {
    // The schema's id makes it a definition of its own: that definition is the component.
    const json = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' }) as Json & { definitions?: Record<string, Json> };
    const { $schema: _s, id: _i, ...own } = json.definitions?.[name] ?? json;
    schemas[name] = own;
  }
  const oneOf = Object.keys(SETTINGS_SCHEMAS).map((name) => ({ $ref: `#/components/schemas/${name}` }));
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const operation of [paths['/sources']?.post, paths['/sources/{id}']?.patch]) {
    const body = (operation?.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, Json> } }> } | undefined)?.content?.['application/json']?.schema;
    const settings = body?.properties?.settings;
    if (!body?.properties || !settings) continue;
    body.properties.settings = { description: settings.description, oneOf };
  }
}
