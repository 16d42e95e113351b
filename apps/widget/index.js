import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The absolute path of the built script (kb-assistant.js), made by `pnpm build`. */
export const widgetFile = fileURLToPath(new URL('./dist/kb-assistant.js', import.meta.url));
/** The script's version (the package's): its immutable address names it. */
export const widgetVersion = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version;
